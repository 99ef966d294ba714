package pyjson

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Repr returns Python's repr() of the object json.loads builds for v:
// None, True, False; integers as written ("-0" as 0); floats as float repr
// (1e5 -> 100000.0, 1e-05, 1e+16, nan, inf, -inf); strings as ReprString;
// lists "[1, 'a']"; dicts "{'a': 1, 'b': [True, None]}" in member order.
// An invalid Number literal is written as it is.
func Repr(v Value) string {
	return string(appendRepr(nil, &v, 0))
}

// ReprString returns Python's repr() of the str s: single quotes unless s
// contains a single quote and no double quote; backslash, the chosen quote,
// \t \n \r escaped; other C0 controls and DEL as \xhh; non-printable
// non-ASCII code points (Unicode 15.1, as CPython 3.13) as \xhh, \uhhhh or
// \Uhhhhhhhh; everything else raw. Invalid UTF-8 is read as U+FFFD (Go
// strings cannot hold the lone surrogates Python would show as \udxxx).
func ReprString(s string) string {
	return string(appendReprString(nil, s))
}

func appendRepr(dst []byte, v *Value, depth int) []byte {
	if depth > MaxEncodeDepth {
		return append(dst, "..."...)
	}
	switch v.Kind {
	case Null:
		return append(dst, "None"...)
	case Bool:
		if v.Bool {
			return append(dst, "True"...)
		}
		return append(dst, "False"...)
	case String:
		return appendReprString(dst, v.Str)
	case Number:
		switch numberClass(v.Str) {
		case numInt:
			if v.Str == "-0" {
				return append(dst, '0')
			}
			return append(dst, v.Str...)
		case numFloat:
			f, _ := strconv.ParseFloat(v.Str, 64)
			return AppendFloat(dst, f, 64, PythonFloats)
		case numNaN:
			return AppendFloat(dst, math.NaN(), 64, PythonFloats)
		case numInf:
			return append(dst, "inf"...)
		case numNegInf:
			return append(dst, "-inf"...)
		}
		return append(dst, v.Str...)
	case Array:
		dst = append(dst, '[')
		for i := range v.Items {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = appendRepr(dst, &v.Items[i], depth+1)
		}
		return append(dst, ']')
	case Object:
		dst = append(dst, '{')
		for i := range v.Members {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = appendReprString(dst, v.Members[i].Key)
			dst = append(dst, ": "...)
			dst = appendRepr(dst, &v.Members[i].Value, depth+1)
		}
		return append(dst, '}')
	}
	return append(dst, "<invalid>"...)
}

func appendReprString(dst []byte, s string) []byte {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	dst = append(dst, quote)
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == quote || c == '\\':
				dst = append(dst, '\\', c)
			case c == '\t':
				dst = append(dst, '\\', 't')
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c < ' ' || c == 0x7F:
				dst = append(dst, '\\', 'x', hexDigits[c>>4], hexDigits[c&0xF])
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case isPrintable(r):
			dst = utf8.AppendRune(dst, r)
		case r <= 0xFF:
			dst = append(dst, '\\', 'x', hexDigits[r>>4], hexDigits[r&0xF])
		case r <= 0xFFFF:
			dst = appendU4(dst, r)
		default:
			dst = append(dst, '\\', 'U')
			for shift := 28; shift >= 0; shift -= 4 {
				dst = append(dst, hexDigits[r>>uint(shift)&0xF])
			}
		}
		i += size
	}
	return append(dst, quote)
}

// isPrintable is CPython's Py_UNICODE_ISPRINTABLE for non-ASCII code points:
// not in categories Cc, Cf, Cs, Co, Cn, Zl, Zp, Zs. Go's unicode tables are
// Unicode 15.0; the code points Unicode 15.1 (CPython 3.13) added are all
// printable and are listed here.
func isPrintable(r rune) bool {
	if unicode.IsPrint(r) {
		return true
	}
	return (r >= 0x2FFC && r <= 0x2FFF) || r == 0x31EF || (r >= 0x2EBF0 && r <= 0x2EE5D)
}
