package aggregate

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gymkit/gymkit/framework/internal/pyjson"
)

// Error is an exception that NeMo Gym's Python implementation of
// /aggregate_metrics raises for the same input. Under Gym's exception
// middleware it becomes a 500 whose body is the JSON string of Error(), which
// is Python's repr of the exception, e.g. KeyError('_ng_rollout_index').
type Error struct {
	// Type is the Python exception class name ("KeyError", "ValueError",
	// "AttributeError", "TypeError").
	Type string
	// Message is the exception's single argument.
	Message string
}

// Error returns Python's repr of the exception: Type(repr(Message)).
func (e *Error) Error() string { return e.Type + "(" + pyStrRepr(e.Message) + ")" }

func pyErr(typ, msg string) *Error { return &Error{Type: typ, Message: msg} }

// pyStrRepr is Python 3's repr() of a str.
func pyStrRepr(s string) string {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte(quote)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == rune(quote) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < ' ' || r == 0x7f:
			b.WriteString(`\x`)
			b.WriteString(hex2(uint32(r)))
		case r < 0x7f:
			b.WriteRune(r)
		case unicode.IsPrint(r):
			b.WriteRune(r)
		case r <= 0xff:
			b.WriteString(`\x`)
			b.WriteString(hex2(uint32(r)))
		case r <= 0xffff:
			b.WriteString(`\u`)
			b.WriteString(hexN(uint32(r), 4))
		default:
			b.WriteString(`\U`)
			b.WriteString(hexN(uint32(r), 8))
		}
	}
	b.WriteByte(quote)
	return b.String()
}

func hex2(v uint32) string { return hexN(v, 2) }

func hexN(v uint32, n int) string {
	s := strconv.FormatUint(uint64(v), 16)
	for len(s) < n {
		s = "0" + s
	}
	return s
}

// pyFloatRepr is Python's repr() of a float (str() is the same): the
// shortest round-tripping digits, fixed notation for decimal exponents in
// [-4, 16), else scientific with a signed two-digit-minimum exponent; "inf",
// "-inf", "nan".
func pyFloatRepr(f float64) string {
	return string(pyjson.AppendFloat(nil, f, 64, pyjson.PythonFloats))
}

// floatValue returns a float Number Value for f: Python's float repr, which
// always has a '.' or an exponent and parses back to f exactly, or the
// NaN/Infinity literals.
func floatValue(f float64) pyjson.Value {
	switch {
	case math.IsNaN(f):
		return pyjson.NumberValue("NaN")
	case math.IsInf(f, 1):
		return pyjson.NumberValue("Infinity")
	case math.IsInf(f, -1):
		return pyjson.NumberValue("-Infinity")
	}
	return pyjson.NumberValue(pyFloatRepr(f))
}

// intValue returns an int Number Value.
func intValue(i int64) pyjson.Value { return pyjson.NumberValue(strconv.FormatInt(i, 10)) }

// pyTypeName is the name of the Python type json.loads produces for v.
func pyTypeName(v pyjson.Value) string {
	switch v.Kind {
	case pyjson.Null:
		return "NoneType"
	case pyjson.Bool:
		return "bool"
	case pyjson.Number:
		if v.IsFloat() {
			return "float"
		}
		return "int"
	case pyjson.String:
		return "str"
	case pyjson.Array:
		return "list"
	case pyjson.Object:
		return "dict"
	}
	return "object"
}

// truthy is Python's bool() of the value json.loads produces for v.
func truthy(v pyjson.Value) bool {
	switch v.Kind {
	case pyjson.Null:
		return false
	case pyjson.Bool:
		return v.Bool
	case pyjson.Number:
		f, _ := strconv.ParseFloat(v.Str, 64)
		return f != 0 || math.IsNaN(f)
	case pyjson.String:
		return v.Str != ""
	case pyjson.Array:
		return len(v.Items) > 0
	case pyjson.Object:
		return len(v.Members) > 0
	}
	return false
}

// pyStr is Python's str() of a scalar index value (int, float, bool, str), as
// f"{task}:{rollout}" renders it.
func pyStr(v pyjson.Value) string {
	switch v.Kind {
	case pyjson.Bool:
		if v.Bool {
			return "True"
		}
		return "False"
	case pyjson.String:
		return v.Str
	case pyjson.Null:
		return "None"
	case pyjson.Number:
		if !v.IsFloat() {
			if v.Str == "-0" {
				return "0"
			}
			return v.Str
		}
		f, _ := strconv.ParseFloat(v.Str, 64)
		return pyFloatRepr(f)
	}
	return "?"
}

// pyRepr is Python's repr() of a scalar index value.
func pyRepr(v pyjson.Value) string {
	if v.Kind == pyjson.String {
		return pyStrRepr(v.Str)
	}
	return pyStr(v)
}
