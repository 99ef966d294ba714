package pyval

import (
	"errors"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/pycompat"
	"github.com/gymkit/gymkit/pycompat/pystr"
)

// kind is the Python type of an object.
type kind uint8

const (
	kOther kind = iota
	kNone
	kBool
	kInt
	kFloat
	kStr
	kList
	kDict
)

func kindOf(v any) kind {
	switch x := v.(type) {
	case nil:
		return kNone
	case bool:
		return kBool
	case int, int64, int32, int16, int8, uint, uint64, uint32, uint16, uint8, framework.Int:
		return kInt
	case *big.Int:
		if x == nil {
			return kOther
		}
		return kInt
	case float64, float32:
		return kFloat
	case string:
		return kStr
	case *List:
		return kList
	case *Dict:
		return kDict
	case framework.Value:
		return valueKind(&x)
	case *framework.Value:
		if x == nil {
			return kNone
		}
		return valueKind(x)
	}
	return kOther
}

func valueKind(v *framework.Value) kind {
	switch v.Kind {
	case framework.KindNull:
		return kNone
	case framework.KindBool:
		return kBool
	case framework.KindNumber:
		if v.IsFloat() {
			return kFloat
		}
		return kInt
	case framework.KindString:
		return kStr
	case framework.KindArray:
		return kList
	case framework.KindObject:
		return kDict
	}
	return kOther
}

// str returns v's text when v is a str.
func str(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case framework.Value:
		return x.Str, x.Kind == framework.KindString
	case *framework.Value:
		if x != nil {
			return x.Str, x.Kind == framework.KindString
		}
	}
	return "", false
}

func isList(v any) bool { return kindOf(v) == kList }

// seqLen is the length of a list object.
func seqLen(v any) int {
	switch x := v.(type) {
	case *List:
		return x.Len()
	case framework.Value:
		return len(x.Items)
	case *framework.Value:
		if x != nil {
			return len(x.Items)
		}
	}
	return 0
}

// seqAt is item i of a list object (an item of a framework array read in
// place, as a *framework.Value).
func seqAt(v any, i int) any {
	switch x := v.(type) {
	case *List:
		return x.items[i]
	case framework.Value:
		return &x.Items[i]
	case *framework.Value:
		return &x.Items[i]
	}
	return nil
}

// dictLen is the number of keys of a dict object.
func dictLen(v any) int {
	switch x := v.(type) {
	case *Dict:
		return x.Len()
	case framework.Value:
		return len(x.Members)
	case *framework.Value:
		if x != nil {
			return len(x.Members)
		}
	}
	return 0
}

// dictGet looks key up in a dict object (a member of a framework object,
// the first of its name as framework.Value.Get finds it, read in place).
func dictGet(v any, key string) (any, bool) {
	var members []framework.Member
	switch x := v.(type) {
	case *Dict:
		return x.Get(key)
	case framework.Value:
		members = x.Members
	case *framework.Value:
		if x == nil {
			return nil, false
		}
		members = x.Members
	}
	for i := range members {
		if members[i].Key == key {
			return &members[i].Value, true
		}
	}
	return nil, false
}

// dictEach calls f with each key and value of a dict object, in order,
// until f returns false.
func dictEach(v any, f func(string, any) bool) {
	switch x := v.(type) {
	case *Dict:
		for k, val := range x.All() {
			if !f(k, val) {
				return
			}
		}
	case framework.Value:
		for i := range x.Members {
			if !f(x.Members[i].Key, &x.Members[i].Value) {
				return
			}
		}
	case *framework.Value:
		for i := range x.Members {
			if !f(x.Members[i].Key, &x.Members[i].Value) {
				return
			}
		}
	}
}

// TypeName returns the name of v's Python type, as type(v).__name__:
// NoneType, bool, int, float, str, list or dict; for an opaque object, its
// Go type ("time.Time").
func TypeName(v any) string {
	switch kindOf(v) {
	case kNone:
		return "NoneType"
	case kBool:
		return "bool"
	case kInt:
		return "int"
	case kFloat:
		return "float"
	case kStr:
		return "str"
	case kList:
		return "list"
	case kDict:
		return "dict"
	}
	return reflect.TypeOf(v).String()
}

// Truthy returns Python's bool(v): False for None, False, zero (0, 0.0,
// -0.0), the empty str, list and dict; True otherwise (NaN and opaque
// objects included).
func Truthy(v any) bool {
	switch x := v.(type) {
	case framework.Value:
		return truthyValue(&x)
	case *framework.Value:
		return x != nil && truthyValue(x)
	}
	if n, ok := toNumber(v); ok {
		switch {
		case n.kind == 'f':
			return n.f != 0
		case n.big != nil:
			return n.big.Sign() != 0
		}
		return n.i != 0
	}
	switch x := v.(type) {
	case nil:
		return false
	case string:
		return x != ""
	case *List:
		return x.Len() > 0
	case *Dict:
		return x.Len() > 0
	}
	return true
}

func truthyValue(v *framework.Value) bool {
	switch v.Kind {
	case framework.KindNull:
		return false
	case framework.KindBool:
		return v.Bool
	case framework.KindNumber:
		n, ok := valueNumber(v)
		if !ok {
			return true
		}
		switch {
		case n.kind == 'f':
			return n.f != 0
		case n.big != nil:
			return n.big.Sign() != 0
		}
		return n.i != 0
	case framework.KindString:
		return v.Str != ""
	case framework.KindArray:
		return len(v.Items) > 0
	}
	return len(v.Members) > 0
}

// Equal returns Python's a == b: numbers (bool, int, float) compared by
// value exactly across types (1 == 1.0 == True, 2**53 + 1 != 2.0**53, NaN
// equal to nothing), strs by their text, lists item by item, dicts by their
// keys and values whatever their order, None equal to None; objects of
// different types are not equal. Opaque objects are equal when Go's ==
// says so.
func Equal(a, b any) bool {
	switch x := a.(type) {
	case framework.Value:
		switch y := b.(type) {
		case framework.Value:
			return equalValues(&x, &y)
		case *framework.Value:
			if y != nil {
				return equalValues(&x, y)
			}
		}
	case *framework.Value:
		switch y := b.(type) {
		case framework.Value:
			if x != nil {
				return equalValues(x, &y)
			}
		case *framework.Value:
			if x != nil && y != nil {
				return equalValues(x, y)
			}
		}
	}
	if na, ok := toNumber(a); ok {
		nb, ok := toNumber(b)
		if !ok {
			return false
		}
		c, ok := na.cmp(nb)
		return ok && c == 0
	}
	ka, kb := kindOf(a), kindOf(b)
	if ka != kb {
		return false
	}
	switch ka {
	case kNone:
		return true
	case kStr:
		sa, _ := str(a)
		sb, _ := str(b)
		return sa == sb
	case kList:
		n := seqLen(a)
		if n != seqLen(b) {
			return false
		}
		for i := range n {
			if !Equal(seqAt(a, i), seqAt(b, i)) {
				return false
			}
		}
		return true
	case kDict:
		if dictLen(a) != dictLen(b) {
			return false
		}
		eq := true
		dictEach(a, func(k string, va any) bool {
			vb, ok := dictGet(b, k)
			eq = ok && Equal(va, vb)
			return eq
		})
		return eq
	case kOther:
		ta := reflect.TypeOf(a)
		return ta == reflect.TypeOf(b) && ta.Comparable() && a == b
	}
	return false
}

// equalValues is Equal for two framework.Values, without boxing.
func equalValues(a, b *framework.Value) bool {
	if na, ok := valueNumber(a); ok {
		nb, ok := valueNumber(b)
		if !ok {
			return false
		}
		c, ok := na.cmp(nb)
		return ok && c == 0
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
			if !equalValues(&a.Items[i], &b.Items[i]) {
				return false
			}
		}
		return true
	case framework.KindObject:
		if len(a.Members) != len(b.Members) {
			return false
		}
		for i := range a.Members {
			o, ok := b.Get(a.Members[i].Key)
			if !ok || !equalValues(&a.Members[i].Value, &o) {
				return false
			}
		}
		return true
	}
	return false // an invalid Number literal
}

// Compare returns Python's a op b for op one of "<", "<=", ">", ">=", "==",
// "!=": numbers (bools included) by value, strs by code point, lists
// lexicographically (the first items that differ decide, then the
// lengths); == and != as Equal for any objects. Ordering anything else,
// or a list whose deciding items cannot be ordered, is Python's TypeError
// "'<' not supported between instances of 'str' and 'int'". A NaN makes
// every ordering False. An op outside the six is a Go error (not an
// Exception).
func Compare(a any, op string, b any) (bool, error) {
	switch op {
	case "==":
		return Equal(a, b), nil
	case "!=":
		return !Equal(a, b), nil
	case "<", "<=", ">", ">=":
	default:
		return false, errors.New("pyval: unknown comparison operator " + strconv.Quote(op))
	}
	c, ok, err := order(a, op, b)
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

// Less returns Python's a < b: Compare(a, "<", b).
func Less(a, b any) (bool, error) { return Compare(a, "<", b) }

// order returns the three-way comparison of a and b for the ordering op;
// ok is false when the comparison is defined but false in every direction
// (NaN).
func order(a any, op string, b any) (int, bool, error) {
	if na, ok := toNumber(a); ok {
		if nb, ok := toNumber(b); ok {
			c, ok := na.cmp(nb)
			return c, ok, nil
		}
	}
	ka, kb := kindOf(a), kindOf(b)
	switch {
	case ka == kStr && kb == kStr:
		sa, _ := str(a)
		sb, _ := str(b)
		return strings.Compare(sa, sb), true, nil
	case ka == kList && kb == kList:
		na, nb := seqLen(a), seqLen(b)
		for i := 0; i < na && i < nb; i++ {
			x, y := seqAt(a, i), seqAt(b, i)
			if Equal(x, y) {
				continue
			}
			return order(x, op, y)
		}
		return na - nb, true, nil
	}
	return 0, false, pycompat.TypeError("'" + op + "' not supported between instances of '" + TypeName(a) + "' and '" + TypeName(b) + "'")
}

// Str returns Python's str(v): a str as it is, anything else as Repr.
func Str(v any) string {
	if s, ok := str(v); ok {
		return s
	}
	return Repr(v)
}

// Repr returns Python's repr(v): None, True, 42, 1.0, 1e-05, inf, nan,
// 'it\'s' quoted as Python quotes it (pystr.Repr), [1, 'a'], {'k': None}.
// A list or dict that holds itself is written [...] or {...} there, as
// Python does; an opaque object is written <type object>.
func Repr(v any) string {
	var b strings.Builder
	writeRepr(&b, v, nil)
	return b.String()
}

// writeRepr writes repr(v); path holds the addresses of the lists and
// dicts being written (addresses, not pointers, so that v does not escape:
// Repr and Str of a framework.Value must not allocate).
func writeRepr(b *strings.Builder, v any, path []uintptr) {
	switch x := v.(type) {
	case framework.Value:
		b.WriteString(framework.PythonRepr(x))
		return
	case *framework.Value:
		if x == nil {
			b.WriteString("None")
		} else {
			b.WriteString(framework.PythonRepr(*x))
		}
		return
	case string:
		b.WriteString(pystr.Repr(x))
		return
	case *List:
		addr := uintptr(unsafe.Pointer(x))
		if slices.Contains(path, addr) {
			b.WriteString("[...]")
			return
		}
		b.WriteByte('[')
		for i, it := range x.All() {
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, it, append(path, addr))
		}
		b.WriteByte(']')
		return
	case *Dict:
		addr := uintptr(unsafe.Pointer(x))
		if slices.Contains(path, addr) {
			b.WriteString("{...}")
			return
		}
		b.WriteByte('{')
		first := true
		for k, val := range x.All() {
			if !first {
				b.WriteString(", ")
			}
			first = false
			b.WriteString(pystr.Repr(k))
			b.WriteString(": ")
			writeRepr(b, val, append(path, addr))
		}
		b.WriteByte('}')
		return
	case nil:
		b.WriteString("None")
		return
	case bool:
		if x {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
		return
	}
	if n, ok := toNumber(v); ok {
		switch {
		case n.kind == 'f':
			b.WriteString(floatRepr(n.f))
		case n.big != nil:
			b.WriteString(n.big.String())
		default:
			b.WriteString(strconv.FormatInt(n.i, 10))
		}
		return
	}
	b.WriteString("<" + TypeName(v) + " object>")
}

// floatRepr is Python's repr of a float.
func floatRepr(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return floatText(f)
}

// Contains returns Python's item in container: a substring test when
// container is a str (item must be a str: otherwise TypeError("'in
// <string>' requires string as left operand, not int")), membership by
// Equal in a list, key membership in a dict (an unhashable item, a list or
// dict, is TypeError("unhashable type: 'list'"); a non-str key is never in
// a str-keyed dict). Any other container is TypeError("argument of type
// 'int' is not iterable").
func Contains(container, item any) (bool, error) {
	switch kindOf(container) {
	case kStr:
		s, _ := str(container)
		sub, ok := str(item)
		if !ok {
			return false, pycompat.TypeError("'in <string>' requires string as left operand, not " + TypeName(item))
		}
		return strings.Contains(s, sub), nil
	case kList:
		for i := range seqLen(container) {
			if Equal(seqAt(container, i), item) {
				return true, nil
			}
		}
		return false, nil
	case kDict:
		if err := CheckHashable(item); err != nil {
			return false, err
		}
		key, ok := str(item)
		if !ok {
			return false, nil
		}
		_, ok = dictGet(container, key)
		return ok, nil
	}
	return false, pycompat.TypeError("argument of type '" + TypeName(container) + "' is not iterable")
}

// Len returns Python's len(v): the code points of a str, the items of a
// list, the keys of a dict; TypeError("object of type 'int' has no len()")
// for anything else.
func Len(v any) (int, error) {
	switch kindOf(v) {
	case kStr:
		s, _ := str(v)
		return utf8.RuneCountInString(s), nil
	case kList:
		return seqLen(v), nil
	case kDict:
		return dictLen(v), nil
	}
	return 0, pycompat.TypeError("object of type '" + TypeName(v) + "' has no len()")
}

// CheckHashable returns Python's TypeError("unhashable type: 'list'") for a
// list or dict, which cannot be a dict key or a set member; nil otherwise.
func CheckHashable(v any) error {
	if k := kindOf(v); k == kList || k == kDict {
		return pycompat.TypeError("unhashable type: '" + TypeName(v) + "'")
	}
	return nil
}

// NoAttribute returns the AttributeError Python raises for a missing
// attribute or method: NoAttribute(5, "lower") is AttributeError("'int'
// object has no attribute 'lower'").
func NoAttribute(v any, name string) error {
	return pycompat.AttributeError("'" + TypeName(v) + "' object has no attribute '" + name + "'")
}
