package pyjson

import (
	"bytes"
	"math"
	"math/big"
	"strconv"
)

// Float returns a Number's value as Python's float() of the json.loads result
// would: NaN, Infinity and -Infinity literals give NaN and ±Inf, a float
// literal too large for a float64 (1e400) gives ±Inf, one too small gives
// ±0, and an integer literal is converted with correct rounding. ok is false
// for non-numbers, for literals that are not JSON numbers, and for integer
// literals beyond the float64 range (Python raises OverflowError "int too
// large to convert to float"); the value is then 0 or ±Inf.
func (v Value) Float() (f float64, ok bool) {
	if v.Kind != Number {
		return 0, false
	}
	switch numberClass(v.Str) {
	case numInt:
		f, err := strconv.ParseFloat(v.Str, 64)
		return f, err == nil
	case numFloat:
		f, _ := strconv.ParseFloat(v.Str, 64) // range errors give ±Inf or ±0, as Python
		return f, true
	case numNaN:
		return math.NaN(), true
	case numInf:
		return math.Inf(1), true
	case numNegInf:
		return math.Inf(-1), true
	}
	return 0, false
}

// Int returns an integer Number literal as an int64. ok is false for
// non-numbers, for float literals (including "3.0" and "1e3": converting a
// float to an int is a validation rule, not a JSON one) and for integers
// outside the int64 range (use BigInt).
func (v Value) Int() (int64, bool) {
	if v.Kind != Number || numberClass(v.Str) != numInt {
		return 0, false
	}
	n, err := strconv.ParseInt(v.Str, 10, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}

// BigInt returns an integer Number literal of any size as a new *big.Int.
// ok is false (and the result nil) for non-numbers and float literals.
func (v Value) BigInt() (*big.Int, bool) {
	if v.Kind != Number || numberClass(v.Str) != numInt {
		return nil, false
	}
	return new(big.Int).SetString(v.Str, 10)
}

// Number literal classes.
const (
	numInvalid = iota
	numInt
	numFloat
	numNaN
	numInf
	numNegInf
)

// numberClass classifies a literal by CPython's grammar
// -?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)? plus the three constants.
func numberClass(s string) int {
	switch s {
	case "NaN":
		return numNaN
	case "Infinity":
		return numInf
	case "-Infinity":
		return numNegInf
	}
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	default:
		return numInvalid
	}
	class := numInt
	if i < len(s) && s[i] == '.' {
		i++
		if i >= len(s) || !isDigit(s[i]) {
			return numInvalid
		}
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		class = numFloat
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || !isDigit(s[i]) {
			return numInvalid
		}
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		class = numFloat
	}
	if i != len(s) {
		return numInvalid
	}
	return class
}

// FloatStyle selects how finite floats are written.
type FloatStyle uint8

const (
	// PydanticFloats is pydantic-core's dump_json (serde_json with zmij):
	// the shortest round-trip digits; fixed notation when the decimal
	// exponent e of the first digit is in [-5, 15], with ".0" when integral
	// (1.0, 1000000000000000.0, 0.00001); otherwise d[.ddd]e±N with an
	// explicit sign and no zero padding (1e+16, 1e-6, 1.5e-7). It is the
	// zero FloatStyle.
	PydanticFloats FloatStyle = iota
	// PythonFloats is CPython's float repr (json.dumps): the shortest
	// round-trip digits; fixed notation when -4 <= e < 16, with ".0" when
	// integral (1000000000000000.0, 0.0001); otherwise d[.ddd]e±NN with a
	// sign and at least two exponent digits (1e+16, 1e-05, 1.5e-07).
	PythonFloats
)

// FloatValue returns f as a float Number Value: its literal is Python's float
// repr (PythonFloats), which always has a '.' or an exponent and parses back
// to f exactly, or NaN, Infinity, -Infinity. Encoders and Repr re-read the
// literal, so the Value is written in each writer's own style.
func FloatValue(f float64) Value {
	switch {
	case math.IsNaN(f):
		return NumberValue("NaN")
	case math.IsInf(f, 1):
		return NumberValue("Infinity")
	case math.IsInf(f, -1):
		return NumberValue("-Infinity")
	}
	return NumberValue(string(AppendFloat(nil, f, 64, PythonFloats)))
}

// AppendFloat appends the finite float f in style; bits is 64, or 32 to use
// the shortest digits that round-trip a float32. Non-finite values are
// written as Python's repr does ("nan", "inf", "-inf"); encoders handle them
// before calling it.
func AppendFloat(dst []byte, f float64, bits int, style FloatStyle) []byte {
	if math.IsNaN(f) {
		return append(dst, "nan"...)
	}
	if math.IsInf(f, 1) {
		return append(dst, "inf"...)
	}
	if math.IsInf(f, -1) {
		return append(dst, "-inf"...)
	}
	if f == math.Trunc(f) && f < 1e15 && f > -1e15 && (f != 0 || !math.Signbit(f)) &&
		(bits == 64 || (f < 1<<24 && f > -1<<24)) {
		// Integral and in the fixed range of both styles: 3 -> 3.0. (A
		// big float32 has fewer digits: 1.2345679e+11.)
		dst = strconv.AppendInt(dst, int64(f), 10)
		return append(dst, '.', '0')
	}
	// Well inside the fixed range of the style, strconv's 'f' format has
	// the layout already (the shortest digits, hence the exponent, of
	// values in [lo, 1e15) stay within the range).
	lo := 1e-5
	if style == PythonFloats {
		lo = 1e-4
	}
	if a := math.Abs(f); a >= lo && a < 1e15 {
		n := len(dst)
		dst = strconv.AppendFloat(dst, f, 'f', -1, bits)
		if bytes.IndexByte(dst[n:], '.') < 0 {
			dst = append(dst, '.', '0')
		}
		return dst
	}
	var tmp [32]byte
	b := strconv.AppendFloat(tmp[:0], f, 'e', -1, bits)
	// b is -?d(.d+)?e[+-]dd+
	if b[0] == '-' {
		dst = append(dst, '-')
		b = b[1:]
	}
	ePos := len(b) - 4
	for b[ePos] != 'e' {
		ePos--
	}
	exp := 0
	for _, c := range b[ePos+2:] {
		exp = exp*10 + int(c-'0')
	}
	if b[ePos+1] == '-' {
		exp = -exp
	}
	// digits: b[0] then b[2:ePos] when there is a fraction.
	var digs [24]byte
	nd := 1
	digs[0] = b[0]
	if ePos > 1 {
		nd += copy(digs[1:], b[2:ePos])
	}
	d := digs[:nd]

	fixed := exp >= -5 && exp <= 15
	if style == PythonFloats {
		fixed = exp >= -4 && exp < 16
	}
	if fixed {
		switch {
		case exp < 0:
			dst = append(dst, '0', '.')
			for k := 0; k < -exp-1; k++ {
				dst = append(dst, '0')
			}
			dst = append(dst, d...)
		case nd-1 <= exp:
			dst = append(dst, d...)
			for k := 0; k < exp-(nd-1); k++ {
				dst = append(dst, '0')
			}
			dst = append(dst, '.', '0')
		default:
			dst = append(dst, d[:exp+1]...)
			dst = append(dst, '.')
			dst = append(dst, d[exp+1:]...)
		}
		return dst
	}
	dst = append(dst, d[0])
	if nd > 1 {
		dst = append(dst, '.')
		dst = append(dst, d[1:]...)
	}
	dst = append(dst, 'e')
	if exp < 0 {
		dst = append(dst, '-')
		exp = -exp
	} else {
		dst = append(dst, '+')
	}
	if style == PythonFloats && exp < 10 {
		dst = append(dst, '0')
	}
	return strconv.AppendInt(dst, int64(exp), 10)
}
