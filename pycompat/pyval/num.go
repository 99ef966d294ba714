package pyval

import (
	"math"
	"math/big"
	"strconv"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/pycompat"
	"github.com/gymkit/gymkit/pycompat/pystr"
)

// number is a Python bool, int or float: kind 'b' (i is 0 or 1), 'i' (i,
// or big when big is not nil) or 'f'.
type number struct {
	kind byte
	i    int64
	big  *big.Int
	f    float64
}

// toNumber returns v as a number; ok is false when v is not a bool, int or
// float.
func toNumber(v any) (n number, ok bool) {
	switch x := v.(type) {
	case bool:
		if x {
			return number{kind: 'b', i: 1}, true
		}
		return number{kind: 'b'}, true
	case int:
		return number{kind: 'i', i: int64(x)}, true
	case int64:
		return number{kind: 'i', i: x}, true
	case int32:
		return number{kind: 'i', i: int64(x)}, true
	case int16:
		return number{kind: 'i', i: int64(x)}, true
	case int8:
		return number{kind: 'i', i: int64(x)}, true
	case uint:
		return fromUint(uint64(x)), true
	case uint64:
		return fromUint(x), true
	case uint32:
		return number{kind: 'i', i: int64(x)}, true
	case uint16:
		return number{kind: 'i', i: int64(x)}, true
	case uint8:
		return number{kind: 'i', i: int64(x)}, true
	case *big.Int:
		if x == nil {
			return number{}, false
		}
		if x.IsInt64() {
			return number{kind: 'i', i: x.Int64()}, true
		}
		return number{kind: 'i', big: x}, true
	case float64:
		return number{kind: 'f', f: x}, true
	case float32:
		return number{kind: 'f', f: float64(x)}, true
	case framework.Int:
		if n, ok := x.Int64(); ok {
			return number{kind: 'i', i: n}, true
		}
		return number{kind: 'i', big: x.Big()}, true
	case framework.Value:
		return valueNumber(&x)
	case *framework.Value:
		if x != nil {
			return valueNumber(x)
		}
	}
	return number{}, false
}

func fromUint(u uint64) number {
	if u <= math.MaxInt64 {
		return number{kind: 'i', i: int64(u)}
	}
	return number{kind: 'i', big: new(big.Int).SetUint64(u)}
}

// valueNumber is toNumber of a framework.Value: a bool, or a Number by its
// literal (json.loads' int or float).
func valueNumber(v *framework.Value) (number, bool) {
	switch v.Kind {
	case framework.KindBool:
		if v.Bool {
			return number{kind: 'b', i: 1}, true
		}
		return number{kind: 'b'}, true
	case framework.KindNumber:
		if v.IsFloat() {
			f, ok := v.Float()
			return number{kind: 'f', f: f}, ok
		}
		if n, err := strconv.ParseInt(v.Str, 10, 64); err == nil {
			return number{kind: 'i', i: n}, true
		}
		b, ok := v.BigInt()
		if !ok {
			return number{}, false
		}
		return number{kind: 'i', big: b}, true
	}
	return number{}, false
}

func (n number) isInt() bool { return n.kind != 'f' }

// bigInt returns an int or bool as a *big.Int (a new one unless n holds
// one).
func (n number) bigInt() *big.Int {
	if n.big != nil {
		return n.big
	}
	return big.NewInt(n.i)
}

// float returns n as Python's float(n); ok is false for an int beyond the
// float range (OverflowError).
func (n number) float() (float64, bool) {
	switch {
	case n.kind == 'f':
		return n.f, true
	case n.big == nil:
		return float64(n.i), true
	}
	f, _ := new(big.Float).SetInt(n.big).Float64()
	return f, !math.IsInf(f, 0)
}

// object returns n as a canonical object: bool, int, *big.Int or float64.
func (n number) object() any {
	switch {
	case n.kind == 'f':
		return n.f
	case n.kind == 'b':
		return n.i != 0
	case n.big != nil:
		return bigObject(n.big)
	}
	return int(n.i)
}

// bigObject returns b as an int when it fits, else b.
func bigObject(b *big.Int) any {
	if b.IsInt64() && int64(int(b.Int64())) == b.Int64() {
		return int(b.Int64())
	}
	return b
}

// cmp compares two numbers exactly, as Python does across int and float;
// ok is false when a NaN is involved (every comparison is then False).
func (n number) cmp(m number) (int, bool) {
	if n.isInt() && m.isInt() {
		if n.big == nil && m.big == nil {
			switch {
			case n.i < m.i:
				return -1, true
			case n.i > m.i:
				return 1, true
			}
			return 0, true
		}
		return n.bigInt().Cmp(m.bigInt()), true
	}
	if (n.kind == 'f' && math.IsNaN(n.f)) || (m.kind == 'f' && math.IsNaN(m.f)) {
		return 0, false
	}
	switch {
	case n.kind == 'f' && m.kind == 'f':
		return cmpFloats(n.f, m.f), true
	case n.kind != 'f' && n.big == nil:
		return cmpIntFloat(n.i, m.f), true
	case m.kind != 'f' && m.big == nil:
		return -cmpIntFloat(m.i, n.f), true
	}
	return n.bigFloat().Cmp(m.bigFloat()), true
}

func cmpFloats(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// cmpIntFloat compares an int64 with a float (not NaN) exactly.
func cmpIntFloat(i int64, f float64) int {
	const exact = 1 << 53
	switch {
	case i >= -exact && i <= exact:
		return cmpFloats(float64(i), f)
	case f >= math.MaxInt64: // 2**63 and above, +Inf
		return -1
	case f < math.MinInt64:
		return 1
	}
	t := math.Trunc(f)
	switch fi := int64(t); {
	case i < fi:
		return -1
	case i > fi:
		return 1
	}
	return -cmpFloats(f-t, 0) // the fraction decides
}

func (n number) bigFloat() *big.Float {
	if n.kind == 'f' {
		if math.IsInf(n.f, 0) {
			return new(big.Float).SetInf(n.f < 0)
		}
		return new(big.Float).SetFloat64(n.f)
	}
	return new(big.Float).SetInt(n.bigInt())
}

// Int returns Python's int(v): an int's value; a bool's 0 or 1; a float
// truncated toward zero; a str read as int() reads it (surrounding white
// space, a sign, decimal digits of any script, single underscores between
// them: " ١٢ " is 12). The errors are Python's: ValueError("invalid literal
// for int() with base 10: '1.5'"), ValueError("cannot convert float NaN to
// integer"), OverflowError("cannot convert float infinity to integer"), and
// for other types TypeError("int() argument must be a string, a bytes-like
// object or a real number, not 'list'"). The result is a new *big.Int.
func Int(v any) (*big.Int, error) {
	if s, ok := str(v); ok {
		if n, ok := parseIntLiteral(s); ok {
			return n, nil
		}
		return nil, pycompat.ValueError("invalid literal for int() with base 10: " + pystr.Repr(s))
	}
	n, ok := toNumber(v)
	if !ok {
		return nil, pycompat.TypeError("int() argument must be a string, a bytes-like object or a real number, not '" + TypeName(v) + "'")
	}
	if n.isInt() {
		return new(big.Int).Set(n.bigInt()), nil
	}
	switch {
	case math.IsNaN(n.f):
		return nil, pycompat.ValueError("cannot convert float NaN to integer")
	case math.IsInf(n.f, 0):
		return nil, pycompat.OverflowError("cannot convert float infinity to integer")
	}
	b, _ := new(big.Float).SetFloat64(math.Trunc(n.f)).Int(nil)
	return b, nil
}

// parseIntLiteral parses a base-10 int() literal: surrounding white space,
// an optional sign, Unicode decimal digits with single underscores between
// them.
func parseIntLiteral(s string) (*big.Int, bool) {
	s = pystr.Strip(s)
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if s == "" {
		return nil, false
	}
	digits, ok := decimalDigits(s)
	if !ok {
		return nil, false
	}
	n, ok := new(big.Int).SetString(digits, 10)
	if ok && neg {
		n.Neg(n)
	}
	return n, ok
}

// decimalDigits returns the ASCII digits of s, a run of Unicode decimal
// digits with single underscores between them.
func decimalDigits(s string) (string, bool) {
	b := make([]byte, 0, len(s))
	prevUnderscore := true // a leading underscore is invalid
	for _, r := range s {
		if r == '_' {
			if prevUnderscore {
				return "", false
			}
			prevUnderscore = true
			continue
		}
		d, ok := pystr.DecimalValue(r)
		if !ok {
			return "", false
		}
		b = append(b, byte('0'+d))
		prevUnderscore = false
	}
	if prevUnderscore {
		return "", false
	}
	return string(b), true
}

// ParseInt is int(s) for a str: Int(s).
func ParseInt(s string) (*big.Int, error) { return Int(s) }

// Float returns Python's float(v): a float as it is, an int or bool
// converted (with correct rounding; OverflowError("int too large to convert
// to float") beyond the float range), a str read as float() reads it
// (ParseFloat), and for other types TypeError("float() argument must be a
// string or a real number, not 'list'").
func Float(v any) (float64, error) {
	if s, ok := str(v); ok {
		return ParseFloat(s)
	}
	n, ok := toNumber(v)
	if !ok {
		return 0, pycompat.TypeError("float() argument must be a string or a real number, not '" + TypeName(v) + "'")
	}
	f, ok := n.float()
	if !ok {
		return 0, pycompat.OverflowError("int too large to convert to float")
	}
	return f, nil
}

// ParseFloat is Python's float(s) for a str: surrounding white space, an
// optional sign, then digits (of any script, single underscores between
// them) with an optional '.' and fraction and an optional exponent, or
// "inf", "infinity", "nan" in any case. A literal beyond the float range is
// ±inf, as Python reads it. Anything else is ValueError("could not convert
// string to float: 'abc'"); Go's hexadecimal floats are refused, as Python
// refuses them.
func ParseFloat(s string) (float64, error) {
	bad := func() (float64, error) {
		return 0, pycompat.ValueError("could not convert string to float: " + pystr.Repr(s))
	}
	t := pystr.Strip(s)
	sign := ""
	if t != "" && (t[0] == '+' || t[0] == '-') {
		sign, t = t[:1], t[1:]
	}
	switch pystr.Lower(t) {
	case "inf", "infinity":
		return strconv.ParseFloat(sign+"inf", 64)
	case "nan":
		return math.NaN(), nil
	}
	mant, exp := t, ""
	for i := 0; i < len(t); i++ {
		if t[i] == 'e' || t[i] == 'E' {
			mant, exp = t[:i], t[i+1:]
			if exp == "" {
				return bad()
			}
			break
		}
	}
	intPart, frac, hasDot := mant, "", false
	for i := 0; i < len(mant); i++ {
		if mant[i] == '.' {
			intPart, frac, hasDot = mant[:i], mant[i+1:], true
			break
		}
	}
	lit := sign
	switch {
	case intPart == "" && frac == "":
		return bad()
	case intPart != "":
		d, ok := decimalDigits(intPart)
		if !ok {
			return bad()
		}
		lit += d
	}
	if hasDot {
		lit += "."
		if frac != "" {
			d, ok := decimalDigits(frac)
			if !ok {
				return bad()
			}
			lit += d
		}
	}
	if exp != "" {
		esign := ""
		if exp[0] == '+' || exp[0] == '-' {
			esign, exp = exp[:1], exp[1:]
		}
		d, ok := decimalDigits(exp)
		if !ok {
			return bad()
		}
		lit += "e" + esign + d
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return f, nil // ±Inf or ±0, as Python
		}
		return bad()
	}
	return f, nil
}

// binop applies an arithmetic operator to two numbers, Python's promotion:
// int (and bool) with int gives int, with float gives float.
func binop(a number, op string, b number) (any, error) {
	if a.isInt() && b.isInt() {
		if op == "/" {
			return trueDivInt(a.bigInt(), b.bigInt())
		}
		if a.big == nil && b.big == nil {
			if r, ok := smallIntOp(a.i, op, b.i); ok {
				return r, nil
			}
		}
		x, y := a.bigInt(), b.bigInt()
		r := new(big.Int)
		switch op {
		case "+":
			r.Add(x, y)
		case "-":
			r.Sub(x, y)
		case "*":
			r.Mul(x, y)
		case "//":
			if y.Sign() == 0 {
				return nil, pycompat.ZeroDivisionError("integer division or modulo by zero")
			}
			// big.Int.Div is Euclidean; floor division rounds toward -inf.
			var m big.Int
			r.DivMod(x, y, &m)
			if m.Sign() != 0 && y.Sign() < 0 {
				r.Add(r, big.NewInt(1))
			}
		}
		return bigObject(r), nil
	}
	x, ok := a.float()
	if !ok {
		return nil, pycompat.OverflowError("int too large to convert to float")
	}
	y, ok := b.float()
	if !ok {
		return nil, pycompat.OverflowError("int too large to convert to float")
	}
	switch op {
	case "+":
		return x + y, nil
	case "-":
		return x - y, nil
	case "*":
		return x * y, nil
	case "/":
		if y == 0 {
			return nil, pycompat.ZeroDivisionError("float division by zero")
		}
		return x / y, nil
	}
	if y == 0 {
		return nil, pycompat.ZeroDivisionError("float floor division by zero")
	}
	return floorDivFloat(x, y), nil
}

// smallIntOp applies op to two int64s; ok is false on overflow (and for a
// zero divisor, left to the big path's error).
func smallIntOp(x int64, op string, y int64) (any, bool) {
	switch op {
	case "+":
		r := x + y
		if (r > x) == (y > 0) {
			return int(r), int64(int(r)) == r
		}
	case "-":
		r := x - y
		if (r < x) == (y > 0) {
			return int(r), int64(int(r)) == r
		}
	case "*":
		if x == 0 || y == 0 {
			return 0, true
		}
		r := x * y
		if r/y == x && !(x == -1 && y == math.MinInt64) && !(y == -1 && x == math.MinInt64) {
			return int(r), int64(int(r)) == r
		}
	case "//":
		if y == 0 || (x == math.MinInt64 && y == -1) {
			return nil, false
		}
		q := x / y
		if (x%y != 0) && ((x < 0) != (y < 0)) {
			q--
		}
		return int(q), int64(int(q)) == q
	}
	return nil, false
}

// trueDivInt is int / int: the correctly rounded quotient, as CPython
// computes it.
func trueDivInt(x, y *big.Int) (any, error) {
	if y.Sign() == 0 {
		return nil, pycompat.ZeroDivisionError("division by zero")
	}
	const exact = 1 << 53
	if x.IsInt64() && y.IsInt64() {
		if a, b := x.Int64(), y.Int64(); a > -exact && a < exact && b > -exact && b < exact {
			return float64(a) / float64(b), nil // both exact: one rounding
		}
	}
	f, _ := new(big.Rat).SetFrac(x, y).Float64()
	if math.IsInf(f, 0) {
		return nil, pycompat.OverflowError("integer division result too large for a float")
	}
	return f, nil
}

// floorDivFloat is CPython's float floor division (float_floor_div).
func floorDivFloat(vx, wx float64) float64 {
	mod := math.Mod(vx, wx)
	div := (vx - mod) / wx
	if mod != 0 {
		if (wx < 0) != (mod < 0) {
			div -= 1.0
		}
	}
	var floordiv float64
	if div != 0 {
		floordiv = math.Floor(div)
		if div-floordiv > 0.5 {
			floordiv += 1.0
		}
	} else {
		floordiv = math.Copysign(0, vx/wx)
	}
	return floordiv
}

// Add returns Python's a + b: numbers added (int with int stays an int, of
// any size; with a float, a float), two strs or two lists concatenated (a new
// *List). Other operands are Python's TypeError: "can only concatenate str
// (not \"int\") to str", "unsupported operand type(s) for +: 'int' and
// 'str'".
func Add(a, b any) (any, error) {
	if na, ok := toNumber(a); ok {
		if nb, ok := toNumber(b); ok {
			return binop(na, "+", nb)
		}
	}
	if sa, ok := str(a); ok {
		if sb, ok := str(b); ok {
			return sa + sb, nil
		}
		return nil, pycompat.TypeError(`can only concatenate str (not "` + TypeName(b) + `") to str`)
	}
	if isList(a) {
		if isList(b) {
			out := &List{}
			out.extendSeq(a)
			out.extendSeq(b)
			return out, nil
		}
		return nil, pycompat.TypeError(`can only concatenate list (not "` + TypeName(b) + `") to list`)
	}
	return nil, unsupported("+", a, b)
}

// Sub returns Python's a - b for numbers; other operands are TypeError
// "unsupported operand type(s) for -: 'str' and 'int'".
func Sub(a, b any) (any, error) { return arith("-", a, b) }

// Mul returns Python's a * b: numbers multiplied, or a str or list repeated
// by an int (a count <= 0 gives an empty one). A sequence times a non-int
// is TypeError("can't multiply sequence by non-int of type 'float'"). A
// repetition beyond 2 GiB of text or 2^28 items is MemoryError, where
// Python would try to allocate it.
func Mul(a, b any) (any, error) {
	if na, ok := toNumber(a); ok {
		if nb, ok := toNumber(b); ok {
			return binop(na, "*", nb)
		}
	}
	seq, count := a, b
	if _, ok := toNumber(a); ok {
		seq, count = b, a
	}
	_, isStr := str(seq)
	if !isStr && !isList(seq) {
		return nil, unsupported("*", a, b)
	}
	n, ok := toNumber(count)
	if !ok || !n.isInt() {
		return nil, pycompat.TypeError("can't multiply sequence by non-int of type '" + TypeName(count) + "'")
	}
	times := 0
	if n.big == nil && n.i > 0 {
		if n.i > math.MaxInt32 {
			return nil, &pycompat.Exception{Class: "MemoryError", Msg: ""}
		}
		times = int(n.i)
	} else if n.big != nil && n.big.Sign() > 0 {
		return nil, pycompat.OverflowError("cannot fit 'int' into an index-sized integer")
	}
	if s, ok := str(seq); ok {
		if times > 0 && len(s) > (1<<31)/times {
			return nil, &pycompat.Exception{Class: "MemoryError", Msg: ""}
		}
		out := make([]byte, 0, len(s)*times)
		for range times {
			out = append(out, s...)
		}
		return string(out), nil
	}
	out := &List{}
	if l := seqLen(seq); times > 0 && l > (1<<28)/times {
		return nil, &pycompat.Exception{Class: "MemoryError", Msg: ""}
	}
	for range times {
		out.extendSeq(seq)
	}
	return out, nil
}

// TrueDiv returns Python's a / b for numbers: always a float, an int
// quotient correctly rounded. A zero divisor is ZeroDivisionError("division
// by zero") for ints, "float division by zero" for floats; an int quotient
// beyond the float range is OverflowError("integer division result too
// large for a float").
func TrueDiv(a, b any) (any, error) { return arith("/", a, b) }

// FloorDiv returns Python's a // b for numbers: rounded toward minus
// infinity (7 // -2 is -4), an int for ints and a float when either is a
// float. A zero divisor is ZeroDivisionError("integer division or modulo by
// zero"), or "float floor division by zero" for floats.
func FloorDiv(a, b any) (any, error) { return arith("//", a, b) }

func arith(op string, a, b any) (any, error) {
	if na, ok := toNumber(a); ok {
		if nb, ok := toNumber(b); ok {
			return binop(na, op, nb)
		}
	}
	return nil, unsupported(op, a, b)
}

func unsupported(op string, a, b any) error {
	return pycompat.TypeError("unsupported operand type(s) for " + op + ": '" + TypeName(a) + "' and '" + TypeName(b) + "'")
}

// SliceBounds returns the bounds of Python's seq[start:stop] for a sequence
// of length n: start and stop are ints (or bools) or nil (omitted), negative
// ones count from the end, and both are clipped to [0, n] with hi >= lo.
// Any other type is TypeError("slice indices must be integers or None or
// have an __index__ method").
func SliceBounds(n int, start, stop any) (lo, hi int, err error) {
	norm := func(v any, def int) (int, error) {
		if v == nil {
			return def, nil
		}
		if kindOf(v) == kNone {
			return def, nil
		}
		x, ok := toNumber(v)
		if !ok || !x.isInt() {
			return 0, pycompat.TypeError("slice indices must be integers or None or have an __index__ method")
		}
		if x.big != nil {
			if x.big.Sign() < 0 {
				return 0, nil
			}
			return n, nil
		}
		i := x.i
		if i < 0 {
			i += int64(n)
			if i < 0 {
				return 0, nil
			}
		}
		if i > int64(n) {
			return n, nil
		}
		return int(i), nil
	}
	if lo, err = norm(start, 0); err != nil {
		return 0, 0, err
	}
	if hi, err = norm(stop, n); err != nil {
		return 0, 0, err
	}
	if hi < lo {
		hi = lo
	}
	return lo, hi, nil
}
