package pyjson

import (
	"errors"
	"math"
	"strconv"
	"sync"
	"unicode/utf8"
)

// NaNMode selects what an encoder does with NaN and ±Inf floats (Go floats,
// and Number Values whose literal is NaN, Infinity, -Infinity or overflows,
// like 1e400).
type NaNMode uint8

const (
	// NaNAsNull writes null (pydantic's default ser_json_inf_nan="null").
	// It is the zero NaNMode.
	NaNAsNull NaNMode = iota
	// NaNError fails with a *FloatRangeError (json.dumps allow_nan=False,
	// as Starlette's JSONResponse does).
	NaNError
	// NaNLiteral writes NaN, Infinity and -Infinity (json.dumps defaults).
	NaNLiteral
)

// Options selects one of Python's JSON writers. The zero Options is Pydantic.
type Options struct {
	// Floats is the notation of finite floats.
	Floats FloatStyle
	// EnsureASCII writes every non-ASCII code point, and DEL, as a
	// lowercase \uXXXX escape (astral ones as a surrogate pair), as
	// json.dumps(ensure_ascii=True). Otherwise strings are raw UTF-8.
	EnsureASCII bool
	// SpacedSeparators writes ", " and ": " (json.dumps defaults) instead
	// of "," and ":". With Indent > 0 the item separator is "," anyway.
	SpacedSeparators bool
	// NaN is what NaN and infinities become.
	NaN NaNMode
	// Indent, when > 0, lays out arrays and objects as
	// json.dumps(indent=Indent) does: each item on its own line indented by
	// Indent spaces per level, "," between items and ": " after keys;
	// empty containers stay [] and {}. 0 writes a single line.
	Indent int
}

// Preset writers. Copy and adjust them freely (e.g. set Indent).
var (
	// Pydantic is pydantic-core's dump_json, which FastAPI uses for typed
	// success bodies: compact, raw UTF-8, PydanticFloats, NaN and ±Inf as
	// null. It equals the zero Options.
	Pydantic = Options{Floats: PydanticFloats, NaN: NaNAsNull}
	// Python is Starlette's JSONResponse: json.dumps with separators
	// (",", ":"), ensure_ascii=False, allow_nan=False; PythonFloats.
	Python = Options{Floats: PythonFloats, NaN: NaNError}
	// PythonDumps is json.dumps with its defaults: ", " and ": ",
	// ensure_ascii=True, NaN written as NaN; PythonFloats.
	PythonDumps = Options{Floats: PythonFloats, EnsureASCII: true, SpacedSeparators: true, NaN: NaNLiteral}
)

// MaxEncodeDepth bounds the nesting of arrays, objects, pointers and
// interfaces the encoders follow; deeper values (such as pointer cycles)
// fail with ErrEncodeTooDeep. It leaves room above MaxDepth so that any
// parsed Value can be written inside a response.
const MaxEncodeDepth = 2 * MaxDepth

// ErrEncodeTooDeep is returned by Marshal and Append for values nested deeper
// than MaxEncodeDepth, which includes pointer cycles.
var ErrEncodeTooDeep = errors.New("pyjson: value nested too deeply to encode (pointer cycle?)")

// FloatRangeError is the error of the NaNError mode. Its Error text is
// Python's ValueError message exactly: "Out of range float values are not
// JSON compliant: nan" (or inf, -inf).
type FloatRangeError struct {
	Value float64 // NaN, +Inf or -Inf
}

// Error returns Python's message, e.g. "Out of range float values are not
// JSON compliant: -inf".
func (e *FloatRangeError) Error() string {
	return "Out of range float values are not JSON compliant: " + string(AppendFloat(nil, e.Value, 64, PythonFloats))
}

// InvalidNumberError reports a Number Value whose literal is not a JSON
// number (for example one built with NumberValue("0x10")).
type InvalidNumberError struct {
	Literal string
}

// Error quotes the literal.
func (e *InvalidNumberError) Error() string {
	return "pyjson: invalid number literal " + strconv.Quote(e.Literal)
}

// encodeState is one encoding in progress.
type encodeState struct {
	buf   []byte
	opts  Options
	depth int
	level int // indentation level
}

var statePool = sync.Pool{New: func() any { return new(encodeState) }}

// Marshal returns v written as the writer o describes. See Append.
func Marshal(v any, o Options) ([]byte, error) {
	e := statePool.Get().(*encodeState)
	e.buf, e.opts, e.depth, e.level = e.buf[:0], o, 0, 0
	err := e.any(v)
	var out []byte
	if err == nil {
		if cap(e.buf) > 1<<20 {
			out, e.buf = e.buf, nil // a large result is not copied (nor pooled)
		} else {
			out = append([]byte(nil), e.buf...)
		}
	}
	if cap(e.buf) <= 1<<20 {
		statePool.Put(e)
	}
	return out, err
}

// Append appends v written as the writer o describes to dst and returns the
// extended buffer; on error it returns dst[:len(dst)] (bytes past it may have
// been overwritten) and the error.
//
// What is written, by Go type:
//   - nil, nil pointers and nil interfaces: null; bool: true/false.
//   - Integers of every size: decimal integers. float32/float64: always in
//     float form (3 -> 3.0) in o.Floats notation, float32 with its own
//     shortest digits; NaN and ±Inf per o.NaN.
//   - string: a JSON string (escapes as Python writes them; no escaping of
//     < > & / DEL U+2028 U+2029 unless EnsureASCII); invalid UTF-8 becomes
//     U+FFFD. []byte: a base64 string, as encoding/json.
//   - Slices and arrays: JSON arrays; a nil slice is [] (a pydantic list
//     field is never null; use a pointer to a slice for null).
//   - Maps with string, integer or encoding.TextMarshaler keys: objects with
//     the keys in sorted (byte-wise) order of their string form; a nil map is
//     {}. Other key types are an *UnsupportedTypeError.
//   - Structs: exported fields in declaration order, embedded structs
//     flattened with encoding/json's rules, json tags "name", "-",
//     "omitempty" (a Value field is empty when it is null, a Dict or Extra
//     field when it has no members) and "omitzero" honoured (",string" is
//     ignored). A struct that embeds Extra gets Extra.Members written after
//     its own fields, skipping keys it wrote. Dict and a non-embedded Extra
//     are objects of their Members, in order.
//   - Value: as parsed: objects in member order, strings escaped, integer
//     literals verbatim ("-0" as 0), float literals re-parsed and written in
//     o.Floats (1e5 -> 100000.0, as Python re-serializes it), NaN/Infinity
//     literals (and overflowing ones like 1e400) per o.NaN. A literal that
//     is not a JSON number is an *InvalidNumberError. json.Number likewise.
//   - json.RawMessage: parsed (as Parse does) and written like a Value, so
//     the output is valid JSON in the chosen style; an empty RawMessage is
//     null, invalid text an error. json.Marshaler output: written verbatim
//     (trusted: not validated, re-indented or re-escaped). encoding.TextMarshaler: its text as a JSON string. Unlike
//     encoding/json, methods declared on the pointer receiver are used for
//     every value, addressable or not (a value that is not addressable is
//     copied first); a nil pointer is null.
//   - Channels, functions, complex numbers and unsafe pointers: an
//     *UnsupportedTypeError naming the type.
//
// Nesting deeper than MaxEncodeDepth (a pointer cycle) is ErrEncodeTooDeep;
// errors of Marshaler and TextMarshaler methods are returned wrapped in a
// *MarshalerError.
func Append(dst []byte, v any, o Options) ([]byte, error) {
	n := len(dst)
	e := statePool.Get().(*encodeState)
	own := e.buf[:0]
	e.buf, e.opts, e.depth, e.level = dst, o, 0, 0
	err := e.any(v)
	out := e.buf
	e.buf = own
	statePool.Put(e)
	if err != nil {
		return dst[:n], err
	}
	return out, nil
}

// AppendValue appends the Value v written as o describes; it is Append
// without the interface conversion.
func AppendValue(dst []byte, v *Value, o Options) ([]byte, error) {
	n := len(dst)
	e := encodeState{buf: dst, opts: o}
	if err := e.value(v); err != nil {
		return dst[:n], err
	}
	return e.buf, nil
}

// MarshalJSON writes v with the Pydantic preset, so that encoding/json and
// other libraries render a Value as JSON rather than as a Go struct.
func (v Value) MarshalJSON() ([]byte, error) {
	return AppendValue(nil, &v, Pydantic)
}

// UnmarshalJSON parses data with Parse.
func (v *Value) UnmarshalJSON(data []byte) error {
	x, err := Parse(data)
	if err != nil {
		return err
	}
	*v = x
	return nil
}

// Layout helpers.

func (e *encodeState) open(c byte) error {
	if e.depth++; e.depth > MaxEncodeDepth {
		return ErrEncodeTooDeep
	}
	e.buf = append(e.buf, c)
	e.level++
	return nil
}

// sep goes before each item of a container; first is true for the first.
func (e *encodeState) sep(first bool) {
	if !first {
		if e.opts.SpacedSeparators && e.opts.Indent <= 0 {
			e.buf = append(e.buf, ',', ' ')
		} else {
			e.buf = append(e.buf, ',')
		}
	}
	if e.opts.Indent > 0 {
		e.newline()
	}
}

func (e *encodeState) newline() {
	e.buf = append(e.buf, '\n')
	for k := e.level * e.opts.Indent; k > 0; k-- {
		e.buf = append(e.buf, ' ')
	}
}

func (e *encodeState) colon() {
	if e.opts.SpacedSeparators || e.opts.Indent > 0 {
		e.buf = append(e.buf, ':', ' ')
	} else {
		e.buf = append(e.buf, ':')
	}
}

func (e *encodeState) close(c byte, empty bool) {
	e.level--
	e.depth--
	if e.opts.Indent > 0 && !empty {
		e.newline()
	}
	e.buf = append(e.buf, c)
}

// key writes an object key and the key separator.
func (e *encodeState) key(k string) {
	e.buf = appendString(e.buf, k, e.opts.EnsureASCII)
	e.colon()
}

func (e *encodeState) float(f float64, bits int) error {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return e.nonFinite(f)
	}
	e.buf = AppendFloat(e.buf, f, bits, e.opts.Floats)
	return nil
}

func (e *encodeState) nonFinite(f float64) error {
	switch e.opts.NaN {
	case NaNError:
		return &FloatRangeError{Value: f}
	case NaNLiteral:
		switch {
		case math.IsNaN(f):
			e.buf = append(e.buf, "NaN"...)
		case f > 0:
			e.buf = append(e.buf, "Infinity"...)
		default:
			e.buf = append(e.buf, "-Infinity"...)
		}
	default:
		e.buf = append(e.buf, "null"...)
	}
	return nil
}

// number writes a Number literal.
func (e *encodeState) number(lit string) error {
	switch numberClass(lit) {
	case numInt:
		if lit == "-0" {
			lit = "0"
		}
		e.buf = append(e.buf, lit...)
		return nil
	case numFloat:
		f, _ := strconv.ParseFloat(lit, 64) // overflow gives ±Inf, as Python
		return e.float(f, 64)
	case numNaN:
		return e.nonFinite(math.NaN())
	case numInf:
		return e.nonFinite(math.Inf(1))
	case numNegInf:
		return e.nonFinite(math.Inf(-1))
	}
	return &InvalidNumberError{Literal: lit}
}

// value writes a Value tree.
func (e *encodeState) value(v *Value) error {
	switch v.Kind {
	case Null:
		e.buf = append(e.buf, "null"...)
	case Bool:
		if v.Bool {
			e.buf = append(e.buf, "true"...)
		} else {
			e.buf = append(e.buf, "false"...)
		}
	case String:
		e.buf = appendString(e.buf, v.Str, e.opts.EnsureASCII)
	case Number:
		return e.number(v.Str)
	case Array:
		if IsLazy(v) {
			return e.lazy(v)
		}
		if err := e.open('['); err != nil {
			return err
		}
		for i := range v.Items {
			e.sep(i == 0)
			if err := e.value(&v.Items[i]); err != nil {
				return err
			}
		}
		e.close(']', len(v.Items) == 0)
	case Object:
		if IsLazy(v) {
			return e.lazy(v)
		}
		if err := e.open('{'); err != nil {
			return err
		}
		for i := range v.Members {
			m := &v.Members[i]
			e.sep(i == 0)
			e.key(m.Key)
			if err := e.value(&m.Value); err != nil {
				return err
			}
		}
		e.close('}', len(v.Members) == 0)
	default:
		return errors.New("pyjson: invalid Value kind " + strconv.Itoa(int(v.Kind)))
	}
	return nil
}

const hexDigits = "0123456789abcdef"

// escapeTable[c] is 0 for ASCII bytes written as they are, else the
// character after the backslash ('u' for \u00XX).
var escapeTable = func() (t [128]byte) {
	for c := 0; c < 0x20; c++ {
		t[c] = 'u'
	}
	t['"'], t['\\'] = '"', '\\'
	t['\n'], t['\r'], t['\t'], t['\b'], t['\f'] = 'n', 'r', 't', 'b', 'f'
	return t
}()

// appendString appends s as a JSON string: \" \\ \n \r \t \b \f, other C0
// controls as \u00XX, everything else raw (ascii=false) or, with ascii=true,
// DEL and non-ASCII as lowercase \uXXXX (surrogate pairs beyond the BMP).
// Invalid UTF-8 is written as U+FFFD.
func appendString(dst []byte, s string, ascii bool) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		// Skip 8 plain ASCII bytes at a time.
		for i+8 <= len(s) {
			w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
				uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
			if strSpecial(w) || w&msb != 0 || (ascii && hasByte(w, 0x7F)) {
				break
			}
			i += 8
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if esc := escapeTable[c]; esc != 0 {
				dst = append(dst, s[start:i]...)
				if esc == 'u' {
					dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
				} else {
					dst = append(dst, '\\', esc)
				}
				i++
				start = i
				continue
			}
			if c == 0x7F && ascii {
				dst = append(dst, s[start:i]...)
				dst = append(dst, `\u007f`...)
				i++
				start = i
				continue
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			if ascii {
				dst = append(dst, `\ufffd`...)
			} else {
				dst = append(dst, "\uFFFD"...)
			}
			i++
			start = i
			continue
		}
		if ascii {
			dst = append(dst, s[start:i]...)
			if r >= 0x10000 {
				r -= 0x10000
				dst = appendU4(dst, 0xD800+(r>>10))
				dst = appendU4(dst, 0xDC00+(r&0x3FF))
			} else {
				dst = appendU4(dst, r)
			}
			start = i + size
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

func hasByte(w uint64, c byte) bool {
	x := w ^ (lsb * uint64(c))
	return (x-lsb)&^x&msb != 0
}

func appendU4(dst []byte, r rune) []byte {
	return append(dst, '\\', 'u', hexDigits[r>>12&0xF], hexDigits[r>>8&0xF], hexDigits[r>>4&0xF], hexDigits[r&0xF])
}
