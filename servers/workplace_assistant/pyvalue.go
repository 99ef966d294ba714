package workplace

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/pycompat/pystr"
)

// This file holds the Python semantics the reference tools rely on, for the
// JSON values a tool receives and stores: truthiness, str(), repr(), ==,
// ordering comparisons, int(), str.lower() and the texts of the exceptions
// they raise (Python 3.13).

// value is one JSON value as Python's json.loads sees it, and one table cell.
// Kind Null is None (and a missing CSV cell); a Number keeps its literal, so
// int and float stay distinct.
type value = framework.Value

// pyErr is a Python exception escaping a tool: class is the exception class
// (the reference catches ValueError in a few places), msg is str(exception).
type pyErr struct {
	class string
	msg   string
}

func (e *pyErr) Error() string { return e.msg }

func valueError(msg string) error     { return &pyErr{"ValueError", msg} }
func typeError(msg string) error      { return &pyErr{"TypeError", msg} }
func attributeError(msg string) error { return &pyErr{"AttributeError", msg} }

// isValueError reports whether err is a Python ValueError (or a subclass the
// reference raises in its place: pandas' DateParseError and
// OutOfBoundsDatetime, dateutil's ParserError).
func isValueError(err error) bool {
	e, ok := err.(*pyErr)
	return ok && e.class == "ValueError"
}

// Value constructors.

func vNone() value              { return value{} }
func vStr(s string) value       { return value{Kind: framework.KindString, Str: s} }
func vBool(b bool) value        { return value{Kind: framework.KindBool, Bool: b} }
func vInt(n int) value          { return value{Kind: framework.KindNumber, Str: strconv.Itoa(n)} }
func vList(items []value) value { return value{Kind: framework.KindArray, Items: items} }

// vFloat returns a float Number whose literal always reads as a Python float
// (the encoder then writes 20.0, not 20).
func vFloat(f float64) value {
	switch {
	case math.IsNaN(f):
		return value{Kind: framework.KindNumber, Str: "NaN"}
	case math.IsInf(f, 1):
		return value{Kind: framework.KindNumber, Str: "Infinity"}
	case math.IsInf(f, -1):
		return value{Kind: framework.KindNumber, Str: "-Infinity"}
	}
	return value{Kind: framework.KindNumber, Str: strconv.FormatFloat(f, 'e', -1, 64)}
}

// object builds an ordered JSON object.
type object []framework.Member

func (o *object) add(key string, v value) { *o = append(*o, framework.Member{Key: key, Value: v}) }
func (o object) value() value             { return value{Kind: framework.KindObject, Members: o} }

// typeName is the Python type name of v: NoneType, bool, int, float, str, list
// or dict.
func typeName(v value) string { return framework.PythonTypeName(v) }

// isStr reports whether v is a Python str.
func isStr(v value) bool { return v.Kind == framework.KindString }

// isFloat reports whether v is a Python float.
func isFloat(v value) bool { return v.Kind == framework.KindNumber && v.IsFloat() }

// isNaN reports whether v is a float NaN.
func isNaN(v value) bool {
	if !isFloat(v) {
		return false
	}
	f, _ := v.Float()
	return math.IsNaN(f)
}

// isMissing reports whether v is a missing cell for pandas (None or NaN).
func isMissing(v value) bool { return v.Kind == framework.KindNull || isNaN(v) }

// truthy is Python's bool(v).
func truthy(v value) bool {
	switch v.Kind {
	case framework.KindNull:
		return false
	case framework.KindBool:
		return v.Bool
	case framework.KindNumber:
		if v.IsFloat() {
			f, _ := v.Float()
			return f != 0 // NaN is truthy
		}
		b, ok := v.BigInt()
		return !ok || b.Sign() != 0
	case framework.KindString:
		return v.Str != ""
	case framework.KindArray:
		return len(v.Items) > 0
	}
	return len(v.Members) > 0
}

// pyRepr is Python's repr(v).
func pyRepr(v value) string { return framework.PythonRepr(v) }

// pyStr is Python's str(v) (and f"{v}").
func pyStr(v value) string {
	if v.Kind == framework.KindString {
		return v.Str
	}
	return pyRepr(v)
}

// outValue returns a cell as the reference's JSON answer shows it: NaN and
// infinities become null (pydantic's ser_json_inf_nan="null"), which is also
// what the MCP door's JSON-mode conversion does.
func outValue(v value) value {
	if v.Kind == framework.KindNumber && v.IsFloat() {
		if f, _ := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			return vNone()
		}
	}
	return v
}

// noLower is the error of v.lower() on a non-str.
func noLower(v value) error {
	return attributeError("'" + typeName(v) + "' object has no attribute 'lower'")
}

// lowerValue is v.lower() for a str, else the AttributeError.
func lowerValue(v value) (value, error) {
	if !isStr(v) {
		return value{}, noLower(v)
	}
	return vStr(pystr.Lower(v.Str)), nil
}

// --- numbers ---

// num is a Python int, bool or float.
type num struct {
	kind byte // 'i' int, 'b' bool, 'f' float
	i    *big.Int
	f    float64
}

// toNum converts v to a num; ok is false for non-numbers.
func toNum(v value) (num, bool) {
	switch v.Kind {
	case framework.KindBool:
		n := int64(0)
		if v.Bool {
			n = 1
		}
		return num{kind: 'b', i: big.NewInt(n)}, true
	case framework.KindNumber:
		if v.IsFloat() {
			f, _ := v.Float()
			return num{kind: 'f', f: f}, true
		}
		b, ok := v.BigInt()
		if !ok {
			return num{}, false
		}
		return num{kind: 'i', i: b}, true
	}
	return num{}, false
}

func intNum(n int) num { return num{kind: 'i', i: big.NewInt(int64(n))} }

// isInt reports whether n is an int or bool (usable as a slice index).
func (n num) isInt() bool { return n.kind != 'f' }

// float returns n as a float64 (Python float(n)).
func (n num) float() float64 {
	if n.kind == 'f' {
		return n.f
	}
	f, _ := new(big.Float).SetInt(n.i).Float64()
	return f
}

// value returns n as a JSON value (a bool stays a bool).
func (n num) value() value {
	switch n.kind {
	case 'f':
		return vFloat(n.f)
	case 'b':
		return vBool(n.i.Sign() != 0)
	}
	return value{Kind: framework.KindNumber, Str: n.i.String()}
}

// cmp compares two numbers exactly, as Python does across int and float.
// ok is false when a NaN is involved (every comparison is then False).
func (n num) cmp(m num) (int, bool) {
	if n.isInt() && m.isInt() {
		return n.i.Cmp(m.i), true
	}
	if (n.kind == 'f' && math.IsNaN(n.f)) || (m.kind == 'f' && math.IsNaN(m.f)) {
		return 0, false
	}
	return n.bigFloat().Cmp(m.bigFloat()), true
}

func (n num) bigFloat() *big.Float {
	if n.kind == 'f' {
		if math.IsInf(n.f, 0) {
			return new(big.Float).SetInf(n.f < 0)
		}
		return new(big.Float).SetFloat64(n.f)
	}
	return new(big.Float).SetInt(n.i)
}

// arith applies op (+, -, *, //) with Python's int/float promotion.
func arith(a num, op byte, b num) (num, error) {
	if a.isInt() && b.isInt() {
		r := new(big.Int)
		switch op {
		case '+':
			r.Add(a.i, b.i)
		case '-':
			r.Sub(a.i, b.i)
		case '*':
			r.Mul(a.i, b.i)
		case '/':
			if b.i.Sign() == 0 {
				return num{}, &pyErr{"ZeroDivisionError", "integer division or modulo by zero"}
			}
			// floor division: big.Int.Div is Euclidean; adjust for a negative divisor.
			var m big.Int
			r.DivMod(a.i, b.i, &m)
			if m.Sign() != 0 && b.i.Sign() < 0 {
				r.Add(r, big.NewInt(1))
			}
		}
		return num{kind: 'i', i: r}, nil
	}
	x, y := a.float(), b.float()
	switch op {
	case '+':
		return num{kind: 'f', f: x + y}, nil
	case '-':
		return num{kind: 'f', f: x - y}, nil
	case '*':
		return num{kind: 'f', f: x * y}, nil
	}
	if y == 0 {
		return num{}, &pyErr{"ZeroDivisionError", "float floor division by zero"}
	}
	return num{kind: 'f', f: pyFloorDivFloat(x, y)}, nil
}

// pyFloorDivFloat is CPython's float floor division.
func pyFloorDivFloat(vx, wx float64) float64 {
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

// --- comparisons ---

// pyEq is Python's a == b for JSON values.
func pyEq(a, b value) bool {
	if na, ok := toNum(a); ok {
		if nb, ok := toNum(b); ok {
			c, ok := na.cmp(nb)
			return ok && c == 0
		}
		return false
	}
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case framework.KindNull:
		return true
	case framework.KindString:
		return a.Str == b.Str
	case framework.KindArray:
		if len(a.Items) != len(b.Items) {
			return false
		}
		for i := range a.Items {
			if !pyEq(a.Items[i], b.Items[i]) {
				return false
			}
		}
		return true
	case framework.KindObject:
		if len(a.Members) != len(b.Members) {
			return false
		}
		for _, m := range a.Members {
			o, ok := b.Get(m.Key)
			if !ok || !pyEq(m.Value, o) {
				return false
			}
		}
		return true
	}
	return false
}

// pyOrder compares a op b for op one of "<", "<=", ">", ">=", as Python does:
// numbers (bools included) numerically, strings by code point, lists
// lexicographically; anything else raises TypeError.
func pyOrder(a value, op string, b value) (bool, error) {
	c, ok, err := pyCmp(a, op, b)
	if err != nil || !ok {
		return false, err
	}
	switch op {
	case "<":
		return c < 0, nil
	case "<=":
		return c <= 0, nil
	case ">":
		return c > 0, nil
	}
	return c >= 0, nil
}

// pyCmp returns the three-way comparison of a and b; ok is false when the
// comparison is defined but false in every direction (NaN).
func pyCmp(a value, op string, b value) (int, bool, error) {
	if na, ok := toNum(a); ok {
		if nb, ok := toNum(b); ok {
			c, ok := na.cmp(nb)
			return c, ok, nil
		}
	}
	switch {
	case a.Kind == framework.KindString && b.Kind == framework.KindString:
		return strings.Compare(a.Str, b.Str), true, nil
	case a.Kind == framework.KindArray && b.Kind == framework.KindArray:
		for i := 0; i < len(a.Items) && i < len(b.Items); i++ {
			if pyEq(a.Items[i], b.Items[i]) {
				continue
			}
			return pyCmp(a.Items[i], op, b.Items[i])
		}
		return len(a.Items) - len(b.Items), true, nil
	}
	return 0, false, notSupported(op, a, b)
}

func notSupported(op string, a, b value) error {
	return typeError("'" + op + "' not supported between instances of '" + typeName(a) + "' and '" + typeName(b) + "'")
}

// pyIn is Python's `needle in container` for a str needle: substring for a
// str, membership for a list, key membership for a dict; a TypeError for
// other types.
func pyIn(needle string, container value) (bool, error) {
	switch container.Kind {
	case framework.KindString:
		return strings.Contains(container.Str, needle), nil
	case framework.KindArray:
		for _, it := range container.Items {
			if it.Kind == framework.KindString && it.Str == needle {
				return true, nil
			}
		}
		return false, nil
	case framework.KindObject:
		_, ok := container.Get(needle)
		return ok, nil
	}
	return false, typeError("argument of type '" + typeName(container) + "' is not iterable")
}

// inList is Python's `v in [literals...]` (== against each string).
func inList(v value, list ...string) bool {
	if v.Kind != framework.KindString {
		return false
	}
	for _, s := range list {
		if v.Str == s {
			return true
		}
	}
	return false
}

// hashable reports the TypeError of using v as a dict key or in a set.
func hashable(v value) error {
	if v.Kind == framework.KindArray || v.Kind == framework.KindObject {
		return typeError("unhashable type: '" + typeName(v) + "'")
	}
	return nil
}

// --- int() ---

// pyInt is Python's int(v) for a JSON value.
func pyInt(v value) (*big.Int, error) {
	switch v.Kind {
	case framework.KindString:
		if n, ok := parseIntLiteral(v.Str); ok {
			return n, nil
		}
		return nil, valueError("invalid literal for int() with base 10: " + pystr.Repr(v.Str))
	case framework.KindBool:
		if v.Bool {
			return big.NewInt(1), nil
		}
		return big.NewInt(0), nil
	case framework.KindNumber:
		if !v.IsFloat() {
			if b, ok := v.BigInt(); ok {
				return b, nil
			}
		}
		f, _ := v.Float()
		switch {
		case math.IsNaN(f):
			return nil, valueError("cannot convert float NaN to integer")
		case math.IsInf(f, 0):
			return nil, &pyErr{"OverflowError", "cannot convert float infinity to integer"}
		}
		b, _ := new(big.Float).SetFloat64(math.Trunc(f)).Int(nil)
		return b, nil
	}
	return nil, typeError("int() argument must be a string, a bytes-like object or a real number, not '" + typeName(v) + "'")
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
	var digits []byte
	prevUnderscore := true // a leading underscore is invalid
	for _, r := range s {
		if r == '_' {
			if prevUnderscore {
				return nil, false
			}
			prevUnderscore = true
			continue
		}
		d, ok := pystr.DecimalValue(r)
		if !ok {
			return nil, false
		}
		digits = append(digits, byte('0'+d))
		prevUnderscore = false
	}
	if prevUnderscore {
		return nil, false
	}
	n, ok := new(big.Int).SetString(string(digits), 10)
	if ok && neg {
		n.Neg(n)
	}
	return n, ok
}
