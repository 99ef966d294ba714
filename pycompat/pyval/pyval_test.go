package pyval

import (
	"encoding/json"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/pycompat"
	"github.com/gymkit/gymkit/pycompat/pystr"
)

// The expected texts are CPython's (3.13; the exception texts here are
// unchanged since 3.11).

func num(lit string) framework.Value { return framework.NumberValue(lit) }

func mustLoads(t testing.TB, s string) any {
	t.Helper()
	v, err := Loads(s)
	if err != nil {
		t.Fatalf("Loads(%s): %v", s, err)
	}
	return v
}

func big2(s string) *big.Int {
	b, _ := new(big.Int).SetString(s, 10)
	return b
}

func TestEqual(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	for _, tc := range []struct {
		a, b any
		want bool
	}{
		{1, 1.0, true}, {1, true, true}, {true, 1.0, true}, {0, false, true}, {num("1"), num("1.0"), true},
		{num("1"), framework.BoolValue(true), true}, {num("2"), 2.0, true}, {int64(3), uint8(3), true},
		{big2("9007199254740993"), float64(1 << 53), false}, {big2("9007199254740992"), float64(1 << 53), true},
		{big2("123456789012345678901234567890"), num("123456789012345678901234567890"), true},
		{nan, nan, false}, {num("NaN"), num("NaN"), false}, {math.Inf(1), num("Infinity"), true},
		{"a", "a", true}, {"a", framework.StringValue("a"), true}, {"1", 1, false},
		{nil, nil, true}, {nil, framework.NullValue(), true}, {nil, 0, false}, {nil, "", false},
		{NewList(1, "a"), mustLoads(t, `[1.0, "a"]`), true}, {NewList(1), NewList(1, 2), false},
		{mustLoads(t, `{"a": 1, "b": [true]}`), mustLoads(t, `{"b": [1], "a": 1.0}`), true},
		{mustLoads(t, `{"a": 1}`), mustLoads(t, `{"a": 2}`), false}, {mustLoads(t, `{"a": 1}`), mustLoads(t, `{"b": 1}`), false},
		{mustLoads(t, `{"a": 1}`), func() framework.Value { v, _ := framework.ParseJSON([]byte(`{"a": true}`)); return v }(), true},
		{NewList(), NewDict(), false}, {NewList(nan), NewList(nan), false},
		{framework.Int{}, 0, true},
	} {
		if got := Equal(tc.a, tc.b); got != tc.want {
			t.Errorf("%s == %s: %v, want %v", Repr(tc.a), Repr(tc.b), got, tc.want)
		}
		if got := Equal(tc.b, tc.a); got != tc.want {
			t.Errorf("%s == %s: %v, want %v", Repr(tc.b), Repr(tc.a), got, tc.want)
		}
	}
}

// TestValuePointers: a *framework.Value is the Value it points to, read in
// place; a nil one is None.
func TestValuePointers(t *testing.T) {
	t.Parallel()
	v, _ := framework.ParseJSON([]byte(`{"a": [1, 2.0, "x"], "b": null}`))
	var nilValue *framework.Value
	for _, c := range []struct {
		got, want any
	}{
		{Equal(&v, mustLoads(t, `{"b": null, "a": [1.0, 2, "x"]}`)), true},
		{Equal(&v.Members[0].Value, v.Members[0].Value), true},
		{Repr(&v), "{'a': [1, 2.0, 'x'], 'b': None}"},
		{Repr(nilValue), "None"},
		{TypeName(&v.Members[1].Value), "NoneType"},
		{TypeName(nilValue), "NoneType"},
		{Truthy(&v.Members[0].Value), true},
		{Truthy(nilValue), false},
		{Str(&v.Members[0].Value.Items[2]), "x"},
		{Repr(NewList(&v.Members[0].Value)), "[[1, 2.0, 'x']]"},
	} {
		if c.got != c.want {
			t.Errorf("got %v, want %v", c.got, c.want)
		}
	}
	if in, err := Contains(&v, "a"); err != nil || !in {
		t.Errorf("'a' in v: %v %v", in, err)
	}
	if lt, err := Compare(&v.Members[0].Value, "<", mustLoads(t, `[1, 2, "y"]`)); err != nil || !lt {
		t.Errorf("[1, 2.0, 'x'] < [1, 2, 'y']: %v %v", lt, err)
	}
	d := NewDict()
	d.Set("v", &v)
	v.Members[0].Value.Items[0] = framework.NumberValue("9")
	if Repr(d) != "{'v': {'a': [1, 2.0, 'x'], 'b': None}}" {
		t.Errorf("a stored *framework.Value is copied into Lists and Dicts: %s", Repr(d))
	}
}

func TestCompare(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a    any
		op   string
		b    any
		want bool
		err  string
	}{
		{1, "<", 1.5, true, ""}, {true, ">=", 1, true, ""}, {"abc", "<", "abd", true, ""}, {"é", ">", "z", true, ""},
		{NewList(1, 2), "<", NewList(1, 3), true, ""}, {NewList(1, 2), "<", NewList(1, 2, 0), true, ""},
		{NewList(1, "a"), "<", NewList(2, 1), true, ""}, {math.NaN(), "<=", 1, false, ""}, {1, ">", math.NaN(), false, ""},
		{NewList(math.NaN()), "<", NewList(1), false, ""},
		{None(), "<", 1, false, "'<' not supported between instances of 'NoneType' and 'int'"},
		{NewList(1), "<", NewList("a"), false, "'<' not supported between instances of 'int' and 'str'"},
		{NewDict(), "<=", NewDict(), false, "'<=' not supported between instances of 'dict' and 'dict'"},
		{"a", ">", 1, false, "'>' not supported between instances of 'str' and 'int'"},
		{num("3"), ">", framework.StringValue("2"), false, "'>' not supported between instances of 'int' and 'str'"},
		{1, "==", 1.0, true, ""}, {1, "!=", "1", true, ""},
		// ints beyond 2**53 against floats, exactly
		{math.MaxInt64, "<", float64(1 << 63), true, ""}, {math.MinInt64, "==", -float64(1 << 63), true, ""},
		{int64(1<<60 + 1), ">", float64(1 << 60), true, ""}, {int64(-(1 << 60) - 1), "<", -float64(1 << 60), true, ""},
		{int64(1 << 60), "==", float64(1 << 60), true, ""}, {int64(1<<54 + 2), "<", math.Inf(1), true, ""},
		{int64(1<<54 + 2), ">", math.Inf(-1), true, ""}, {big2("9223372036854775808"), "==", float64(1 << 63), true, ""},
	} {
		got, err := Compare(tc.a, tc.op, tc.b)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err || !pycompat.IsInstance(err, "TypeError") {
				t.Errorf("%s %s %s: %v, %v; want TypeError %q", Repr(tc.a), tc.op, Repr(tc.b), got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s %s %s = %v, %v; want %v", Repr(tc.a), tc.op, Repr(tc.b), got, err, tc.want)
		}
	}
	if _, err := Compare(1, "<>", 2); err == nil || pycompat.IsInstance(err, "Exception") {
		t.Errorf("an unknown operator: %v", err)
	}
}

// None returns Python's None (nil), for readable tables.
func None() any { return nil }

// Rows of servers/workplace_assistant's TestPythonReprAndStr and
// TestTruthyAndInt, then more.
func TestReprAndStr(t *testing.T) {
	t.Parallel()
	l := NewList(1)
	l.Append(l)
	d := NewDict()
	d.Set("self", d)
	for _, c := range []struct {
		v         any
		repr, str string
	}{
		{framework.StringValue("it's"), `"it's"`, "it's"},
		{framework.StringValue("a\nb"), `'a\nb'`, "a\nb"},
		{num("1e5"), "100000.0", "100000.0"},
		{num("1e-5"), "1e-05", "1e-05"},
		{num("-0"), "0", "0"},
		{framework.BoolValue(true), "True", "True"},
		{framework.NullValue(), "None", "None"},
		{framework.ArrayValue(num("1"), framework.StringValue("a")), "[1, 'a']", "[1, 'a']"},
		{1e16, "1e+16", "1e+16"}, {3.0, "3.0", "3.0"}, {math.Inf(-1), "-inf", "-inf"}, {math.NaN(), "nan", "nan"},
		{big2("-123456789012345678901234567890"), "-123456789012345678901234567890", "-123456789012345678901234567890"},
		{mustLoads(t, `[1.0, "a", null, true, {"k": [2]}]`), "[1.0, 'a', None, True, {'k': [2]}]", "[1.0, 'a', None, True, {'k': [2]}]"},
		{l, "[1, [...]]", "[1, [...]]"}, {d, "{'self': {...}}", "{'self': {...}}"},
		{struct{}{}, "<struct {} object>", "<struct {} object>"},
	} {
		if got := Repr(c.v); got != c.repr {
			t.Errorf("repr = %s, want %s", got, c.repr)
		}
		if got := Str(c.v); got != c.str {
			t.Errorf("str = %s, want %s", got, c.str)
		}
	}
}

func TestTruthy(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		v    any
		want bool
	}{
		{framework.StringValue(""), false}, {framework.StringValue(" "), true}, {num("0"), false}, {num("0.0"), false},
		{num("NaN"), true}, {framework.ArrayValue(), false}, {framework.ObjectValue(), false},
		{framework.BoolValue(false), false}, {framework.NullValue(), false},
		{0, false}, {-0.0, false}, {big2("0"), false}, {big2("99999999999999999999"), true}, {"", false}, {"0", true},
		{NewList(), false}, {NewList(nil), true}, {NewDict(), false}, {nil, false}, {struct{}{}, true},
	} {
		if Truthy(c.v) != c.want {
			t.Errorf("bool(%s) != %v", Repr(c.v), c.want)
		}
	}
}

func TestInt(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{" 45 ": "45", "+7": "7", "-3": "-3", "1_000": "1000", "٣": "3", " ١٢ ": "12"} {
		if n, err := Int(framework.StringValue(in)); err != nil || n.String() != want {
			t.Errorf("int(%q) = %v, %v; want %s", in, n, err, want)
		}
	}
	for _, in := range []string{"1.5", "", "_1", "1__0", "1_", "abc", "1e3", "+", "²"} {
		if _, err := Int(framework.StringValue(in)); err == nil || !pycompat.IsInstance(err, "ValueError") ||
			err.Error() != "invalid literal for int() with base 10: "+Repr(in) {
			t.Errorf("int(%q): %v, want ValueError", in, err)
		}
	}
	for _, c := range []struct {
		v    any
		want string
		err  string
	}{
		{-2.7, "-2", ""}, {true, "1", ""}, {num("1e300"), "1000000000000000052504760255204420248704468581108159154915854115511802457988908195786371375080447864043704443832883878176942523235360430575644792184786706982848387200926575803737830233794788090059368953234970799945081119038967640880074652742780142494579258788820056842838115669472196386865459400540160", ""},
		{math.NaN(), "", "cannot convert float NaN to integer"},
		{math.Inf(1), "", "cannot convert float infinity to integer"},
		{nil, "", "int() argument must be a string, a bytes-like object or a real number, not 'NoneType'"},
		{NewList(), "", "int() argument must be a string, a bytes-like object or a real number, not 'list'"},
	} {
		n, err := Int(c.v)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("int(%s): %v, want %s", Repr(c.v), err, c.err)
			}
			continue
		}
		if err != nil || n.String() != c.want {
			t.Errorf("int(%s) = %v, %v; want %s", Repr(c.v), n, err, c.want)
		}
	}
}

func TestFloat(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]float64{
		" 1_000.5 ": 1000.5, "١.٥": 1.5, "-Infinity": math.Inf(-1), " -inf ": math.Inf(-1), "INF": math.Inf(1),
		"1e400": math.Inf(1), ".5": 0.5, "5.": 5, "1E-3": 0.001, "+0": 0, "1_0e1_0": 1e11,
	} {
		if f, err := ParseFloat(in); err != nil || f != want {
			t.Errorf("float(%q) = %v, %v; want %v", in, f, err, want)
		}
	}
	if f, err := Float("nan"); err != nil || !math.IsNaN(f) {
		t.Errorf("float('nan') = %v, %v", f, err)
	}
	for _, in := range []string{"abc", "1__0", "0x1p3", "infinit", "", ".", "1e", "e5", "_1", "1.5_", "1._5", "nan(1)", "1 2"} {
		if _, err := ParseFloat(in); err == nil || err.Error() != "could not convert string to float: "+Repr(in) {
			t.Errorf("float(%q): %v, want ValueError", in, err)
		}
	}
	if _, err := Float(big2("1" + strings.Repeat("0", 400))); err == nil || err.Error() != "int too large to convert to float" {
		t.Errorf("float(10**400): %v", err)
	}
	if _, err := Float(nil); err == nil || err.Error() != "float() argument must be a string or a real number, not 'NoneType'" {
		t.Errorf("float(None): %v", err)
	}
	if f, err := Float(num("7")); err != nil || f != 7 {
		t.Errorf("float(7) = %v, %v", f, err)
	}
}

func TestArithmetic(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		op   func(a, b any) (any, error)
		name string
		a, b any
		want string // repr
		err  string
	}{
		{Add, "+", 1, 2, "3", ""}, {Add, "+", true, true, "2", ""}, {Add, "+", 1, 0.5, "1.5", ""},
		{Add, "+", math.MaxInt64, 1, "9223372036854775808", ""}, {Add, "+", "a", framework.StringValue("b"), "'ab'", ""},
		{Add, "+", NewList(1), mustLoads(t, `[2]`), "[1, 2]", ""},
		{Add, "+", "a", 1, "", `can only concatenate str (not "int") to str`},
		{Add, "+", NewList(1), 1, "", `can only concatenate list (not "int") to list`},
		{Add, "+", 1, "a", "", "unsupported operand type(s) for +: 'int' and 'str'"},
		{Sub, "-", math.MinInt64, 1, "-9223372036854775809", ""}, {Sub, "-", 1.5, true, "0.5", ""},
		{Sub, "-", nil, 1, "", "unsupported operand type(s) for -: 'NoneType' and 'int'"},
		{Mul, "*", 3, "ab", "'ababab'", ""}, {Mul, "*", -1, "ab", "''", ""}, {Mul, "*", NewList(1), 2, "[1, 1]", ""},
		{Mul, "*", math.MaxInt64, 2, "18446744073709551614", ""}, {Mul, "*", 2, 2.5, "5.0", ""},
		{Mul, "*", "a", 1.5, "", "can't multiply sequence by non-int of type 'float'"},
		{Mul, "*", NewList(1), "a", "", "can't multiply sequence by non-int of type 'str'"},
		{Mul, "*", 2, nil, "", "unsupported operand type(s) for *: 'int' and 'NoneType'"},
		{TrueDiv, "/", 1, 3, "0.3333333333333333", ""}, {TrueDiv, "/", true, 2, "0.5", ""},
		{TrueDiv, "/", big2("100000000000000000000"), 3, "3.333333333333333e+19", ""},
		{TrueDiv, "/", big2("9007199254740993"), 1, "9007199254740992.0", ""},
		{TrueDiv, "/", 1, big2("1" + strings.Repeat("0", 400)), "0.0", ""},
		{TrueDiv, "/", big2("1" + strings.Repeat("0", 400)), 1, "", "integer division result too large for a float"},
		{TrueDiv, "/", 1, 0, "", "division by zero"}, {TrueDiv, "/", 1.0, 0, "", "float division by zero"},
		{FloorDiv, "//", 7, -2, "-4", ""}, {FloorDiv, "//", -7, 2, "-4", ""}, {FloorDiv, "//", 7.5, 2, "3.0", ""},
		{FloorDiv, "//", -7.5, 2, "-4.0", ""}, {FloorDiv, "//", math.MinInt64, -1, "9223372036854775808", ""},
		{FloorDiv, "//", 1, 0, "", "integer division or modulo by zero"},
		{FloorDiv, "//", num("1.0"), 0, "", "float floor division by zero"},
	} {
		got, err := c.op(c.a, c.b)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%s %s %s: %v, want %s", Repr(c.a), c.name, Repr(c.b), err, c.err)
			}
			continue
		}
		if err != nil || Repr(got) != c.want {
			t.Errorf("%s %s %s = %v, %v; want %s", Repr(c.a), c.name, Repr(c.b), Repr(got), err, c.want)
		}
	}
	if v, _ := Add(1, 2); v != any(3) {
		t.Errorf("1 + 2 is %T, want int", v)
	}
	if v, _ := Add(math.MaxInt64, 1); func() bool { _, ok := v.(*big.Int); return !ok }() {
		t.Errorf("MaxInt64 + 1 is %T, want *big.Int", v)
	}
}

func TestSliceBounds(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		start, stop any
		lo, hi      int
	}{
		{nil, nil, 0, 5}, {1, 3, 1, 3}, {-2, nil, 3, 5}, {-10, 2, 0, 2}, {4, 2, 4, 4}, {2, 100, 2, 5}, {true, nil, 1, 5},
		{big2("-100000000000000000000"), big2("100000000000000000000"), 0, 5}, {num("2"), framework.NullValue(), 2, 5},
	} {
		lo, hi, err := SliceBounds(5, c.start, c.stop)
		if err != nil || lo != c.lo || hi != c.hi {
			t.Errorf("[%s:%s] of 5 = %d, %d, %v; want %d, %d", Repr(c.start), Repr(c.stop), lo, hi, err, c.lo, c.hi)
		}
	}
	if _, _, err := SliceBounds(5, 1.0, nil); err == nil || err.Error() != "slice indices must be integers or None or have an __index__ method" {
		t.Errorf("float index: %v", err)
	}
}

func TestContainsLenHashable(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		container, item any
		want            bool
		err             string
	}{
		{"a@b.co", "@", true, ""}, {framework.StringValue("abc"), framework.StringValue("d"), false, ""},
		{"a", 1, false, "'in <string>' requires string as left operand, not int"},
		{NewList(1, "a"), 1.0, true, ""}, {mustLoads(t, `["x", 2]`), "y", false, ""},
		{mustLoads(t, `{"a": 1}`), "a", true, ""}, {mustLoads(t, `{"a": 1}`), 1, false, ""},
		{NewDict(), NewList(1), false, "unhashable type: 'list'"},
		{1, 1, false, "argument of type 'int' is not iterable"}, {nil, "a", false, "argument of type 'NoneType' is not iterable"},
	} {
		got, err := Contains(c.container, c.item)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%s in %s: %v, want %s", Repr(c.item), Repr(c.container), err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s in %s = %v, %v", Repr(c.item), Repr(c.container), got, err)
		}
	}
	for v, want := range map[any]int{"é😀": 2, "": 0} {
		if n, err := Len(v); err != nil || n != want {
			t.Errorf("len(%s) = %d, %v", Repr(v), n, err)
		}
	}
	if n, err := Len(mustLoads(t, `{"a": 1, "b": 2}`)); n != 2 || err != nil {
		t.Errorf("len(dict) = %d, %v", n, err)
	}
	if _, err := Len(1); err == nil || err.Error() != "object of type 'int' has no len()" {
		t.Errorf("len(1): %v", err)
	}
	if err := CheckHashable(mustLoads(t, `{}`)); err == nil || err.Error() != "unhashable type: 'dict'" {
		t.Errorf("hash({}): %v", err)
	}
	if err := NoAttribute(5, "lower"); err.Error() != "'int' object has no attribute 'lower'" || !pycompat.IsInstance(err, "AttributeError") {
		t.Errorf("NoAttribute: %v", err)
	}
}

func TestList(t *testing.T) {
	t.Parallel()
	l := NewList(framework.NumberValue("1"), int64(2), float32(0.5), mustLoads(t, `{"k": [1]}`))
	if got := Repr(l); got != "[1, 2, 0.5, {'k': [1]}]" {
		t.Fatalf("NewList: %s", got)
	}
	if _, ok := l.items[0].(int); !ok {
		t.Errorf("a framework.Value 1 is stored as %T, want int", l.items[0])
	}
	l.Append("x")
	l.Insert(0, "first")
	l.Insert(-1, "before x")
	l.Insert(100, "last")
	if got := Repr(l); got != "['first', 1, 2, 0.5, {'k': [1]}, 'before x', 'x', 'last']" {
		t.Errorf("after inserts: %s", got)
	}
	if v, err := l.At(-1); err != nil || v != "last" {
		t.Errorf("l[-1] = %v, %v", v, err)
	}
	if _, err := l.At(8); err == nil || err.Error() != "list index out of range" {
		t.Errorf("l[8]: %v", err)
	}
	if err := l.Set(-8, "FIRST"); err != nil {
		t.Error(err)
	}
	if err := l.Set(8, 0); err == nil || err.Error() != "list assignment index out of range" {
		t.Errorf("l[8] = 0: %v", err)
	}
	if v, err := l.Pop(-1); err != nil || v != "last" {
		t.Errorf("pop() = %v, %v", v, err)
	}
	if _, err := l.Pop(10); err == nil || err.Error() != "pop index out of range" {
		t.Errorf("pop(10): %v", err)
	}
	if _, err := (&List{}).Pop(-1); err == nil || err.Error() != "pop from empty list" {
		t.Errorf("[].pop(): %v", err)
	}
	if i, err := l.Index(2.0); err != nil || i != 2 {
		t.Errorf("index(2.0) = %d, %v", i, err)
	}
	if _, err := l.Index("b"); err == nil || err.Error() != "'b' is not in list" {
		t.Errorf("index('b'): %v", err)
	}
	if err := l.Remove(true); err != nil || Repr(l) != "['FIRST', 2, 0.5, {'k': [1]}, 'before x', 'x']" {
		t.Errorf("remove(True): %v, %s", err, Repr(l))
	}
	if err := l.Remove(99); err == nil || err.Error() != "list.remove(x): x not in list" {
		t.Errorf("remove(99): %v", err)
	}
	if l.Count(2) != 1 || !l.Contains(mustLoads(t, `{"k": [1.0]}`)) || l.Contains(3) {
		t.Error("count/contains")
	}
	s, err := l.Slice(1, -2)
	if err != nil || Repr(s) != "[2, 0.5, {'k': [1]}]" {
		t.Errorf("l[1:-2] = %s, %v", Repr(s), err)
	}
	inner, _ := s.At(2)
	inner.(*Dict).Set("k", "shared")
	if Repr(l) != "['FIRST', 2, 0.5, {'k': 'shared'}, 'before x', 'x']" {
		t.Errorf("a slice is shallow, as Python's: %s", Repr(l))
	}
	l.Extend(l.Items()...)
	if l.Len() != 12 {
		t.Errorf("l.extend(l): %d items", l.Len())
	}
	l.Reverse()
	c := l.Copy()
	l.Clear()
	if l.Len() != 0 || c.Len() != 12 {
		t.Errorf("clear/copy: %d, %d", l.Len(), c.Len())
	}
	var nilList *List
	if nilList.Len() != 0 || Repr(nilList) != "[]" || Truthy(nilList) {
		t.Error("a nil *List is an empty list")
	}
}

func TestListSort(t *testing.T) {
	t.Parallel()
	l := NewList(3, 1.5, true, big2("-100000000000000000000"), 2, 1)
	if err := l.Sort(false); err != nil || Repr(l) != "[-100000000000000000000, True, 1, 1.5, 2, 3]" {
		t.Errorf("sort: %s, %v", Repr(l), err)
	}
	// Stable with reverse: True and 1 keep their order.
	if err := l.Sort(true); err != nil || Repr(l) != "[3, 2, 1.5, True, 1, -100000000000000000000]" {
		t.Errorf("sort(reverse=True): %s, %v", Repr(l), err)
	}
	words := NewList("b", "A", "a", "B")
	if err := words.Sort(false); err != nil || Repr(words) != "['A', 'B', 'a', 'b']" {
		t.Errorf("sort strs: %s", Repr(words))
	}
	if err := NewList(1, "a").Sort(false); err == nil || err.Error() != "'<' not supported between instances of 'str' and 'int'" {
		t.Errorf("sort([1, 'a']): %v", err)
	}
}

func TestDict(t *testing.T) {
	t.Parallel()
	d := NewDict()
	for i := range 20 {
		d.Set(string(rune('a'+i)), i)
	}
	d.Set("c", "C") // keeps its place
	for i := 3; i < 18; i++ {
		if !d.Delete(string(rune('a' + i))) {
			t.Fatalf("delete %c", 'a'+i)
		}
	}
	d.Set("d", 3.5) // deleted then set again: last
	if got := Repr(d); got != "{'a': 0, 'b': 1, 'c': 'C', 's': 18, 't': 19, 'd': 3.5}" {
		t.Errorf("after sets and deletes: %s", got)
	}
	if d.Delete("zz") || d.Len() != 6 || !d.Has("t") || d.Has("e") {
		t.Error("Delete/Len/Has")
	}
	if v := d.GetDefault("zz", "dflt"); v != "dflt" {
		t.Errorf("get default: %v", v)
	}
	if _, err := d.Item("zz"); err == nil || err.Error() != "'zz'" || !pycompat.IsInstance(err, "KeyError") {
		t.Errorf("d['zz']: %v", err)
	}
	if v, ok := d.Pop("a"); !ok || v != 0 {
		t.Errorf("pop('a') = %v, %v", v, ok)
	}
	if _, ok := d.Pop("a"); ok {
		t.Error("pop of a missing key")
	}
	if k, v, err := d.PopItem(); err != nil || k != "d" || v != 3.5 {
		t.Errorf("popitem() = %s, %v, %v", k, v, err)
	}
	if _, _, err := NewDict().PopItem(); err == nil || err.Error() != "'popitem(): dictionary is empty'" {
		t.Errorf("{}.popitem(): %v", err)
	}
	if v := d.SetDefault("h", NewList()); Repr(v) != "[]" {
		t.Errorf("setdefault: %v", v)
	}
	h, _ := d.Get("h")
	h.(*List).Append(1) // the stored list itself
	if err := d.Update(mustLoads(t, `{"b": null, "z": 2}`)); err != nil {
		t.Fatal(err)
	}
	if got := Repr(d); got != "{'b': None, 'c': 'C', 's': 18, 't': 19, 'h': [1], 'z': 2}" {
		t.Errorf("after update: %s", got)
	}
	if err := d.Update(NewList()); err == nil || err.Error() != "'list' object is not iterable" {
		t.Errorf("update([]): %v", err)
	}
	if got := strings.Join(d.Keys(), ","); got != "b,c,s,t,h,z" {
		t.Errorf("keys: %s", got)
	}
	if got := Repr(NewList(d.Values()...)); got != "[None, 'C', 18, 19, [1], 2]" {
		t.Errorf("values: %s", got)
	}
	shallow, deep := d.Copy(), DeepCopy(d).(*Dict)
	h.(*List).Append(2)
	if Repr(shallow) != Repr(d) || Repr(deep) == Repr(d) {
		t.Errorf("copy shares the list, deepcopy does not: %s %s", Repr(shallow), Repr(deep))
	}
	func() {
		defer func() {
			if r := recover(); r == nil {
				t.Error("adding a key while ranging did not panic")
			}
		}()
		for k := range d.All() {
			d.Set(k+"!", 1)
		}
	}()
	for k := range d.All() {
		d.Set(k, "same keys") // allowed
	}
	d.Clear()
	var nilDict *Dict
	if d.Len() != 0 || nilDict.Len() != 0 || nilDict.Has("a") || Repr(nilDict) != "{}" {
		t.Error("clear, nil *Dict")
	}
}

func TestDumps(t *testing.T) {
	t.Parallel()
	v := mustLoads(t, `{"b": [1, 2.5, true, null, "é"], "a": {"x": 1e16, "y": NaN}}`)
	for _, c := range []struct {
		o    DumpOptions
		in   any
		want string
	}{
		{DumpOptions{}, v, `{"b": [1, 2.5, true, null, "\u00e9"], "a": {"x": 1e+16, "y": NaN}}`},
		{DumpOptions{SortKeys: true}, v, `{"a": {"x": 1e+16, "y": NaN}, "b": [1, 2.5, true, null, "\u00e9"]}`},
		{DumpOptions{Indent: "  "}, mustLoads(t, `{"b": [1, 2.5, true, null, "é"], "a": {"x": 1e16, "y": NaN, "z": []}}`),
			"{\n  \"b\": [\n    1,\n    2.5,\n    true,\n    null,\n    \"\\u00e9\"\n  ],\n  \"a\": {\n    \"x\": 1e+16,\n    \"y\": NaN,\n    \"z\": []\n  }\n}"},
		{DumpOptions{Separators: [2]string{",", ":"}, NoASCII: true}, mustLoads(t, `{"b": [1, 2.5, true, null, "é\u2028\u007f"], "a": {}}`),
			"{\"b\":[1,2.5,true,null,\"é\u2028\x7f\"],\"a\":{}}"},
		{DumpOptions{}, mustLoads(t, `[1e-5, -0.0, 12345678901234567890123, "\ud83d\ude00"]`), `[1e-05, -0.0, 12345678901234567890123, "\ud83d\ude00"]`},
		{DumpOptions{}, mustLoads(t, `{"a":1,"b":2,"a":3}`), `{"a": 3, "b": 2}`},
		{DumpOptions{}, NewList(3.0, big2("-99999999999999999999"), nil, false, "x"), `[3.0, -99999999999999999999, null, false, "x"]`},
	} {
		got, err := Dumps(c.in, c.o)
		if err != nil || got != c.want {
			t.Errorf("Dumps(%s, %+v) = %s, %v\nwant %s", Repr(c.in), c.o, got, err, c.want)
		}
	}
	l := NewList()
	l.Append(l)
	if _, err := Dumps(l, DumpOptions{}); err == nil || err.Error() != "Circular reference detected" {
		t.Errorf("a circular list: %v", err)
	}
	if _, err := Dumps(NewList(struct{}{}), DumpOptions{}); err == nil || err.Error() != "Object of type struct {} is not JSON serializable" {
		t.Errorf("an opaque object: %v", err)
	}
}

// TestHandlerEditsInPlace ports a handler that keeps a session's state in a
// dict and edits it in place; the answers are CPython's json.dumps of the
// same handler's results on the same bodies:
//
//	def handle(state, body):
//	    hist = state.setdefault("history", [])
//	    hist.append({"role": "user", "content": body["message"]})
//	    counts = state.setdefault("counts", {})
//	    for w in body["message"].lower().split():
//	        counts[w] = counts.get(w, 0) + 1
//	    if "reset" in body.get("flags", []):
//	        state.pop("counts", None)
//	        counts = {}
//	    state["half"] = body.get("score", 0) / 2
//	    state["words"] = sorted(counts)
//	    total = 0
//	    for v in counts.values():
//	        total = total + v
//	    state["total"] = total
//	    if len(hist) > 2:
//	        state["history"] = hist[-2:]
//	    return {"ok": total > 2, "state": state, "same": body.get("score") == 1.0}
func TestHandlerEditsInPlace(t *testing.T) {
	t.Parallel()
	handle := func(state *Dict, raw string) (string, error) {
		b, err := Loads(raw)
		if err != nil {
			return "", err
		}
		body := b.(*Dict)
		hist := state.SetDefault("history", NewList()).(*List)
		msg, err := body.Item("message")
		if err != nil {
			return "", err
		}
		hist.Append(NewDictOf("role", "user", "content", msg))
		counts := state.SetDefault("counts", NewDict()).(*Dict)
		for _, w := range pystr.Split(pystr.Lower(msg.(string))) {
			n, err := Add(counts.GetDefault(w, 0), 1)
			if err != nil {
				return "", err
			}
			counts.Set(w, n)
		}
		if in, err := Contains(body.GetDefault("flags", NewList()), "reset"); err != nil {
			return "", err
		} else if in {
			state.Pop("counts")
			counts = NewDict()
		}
		half, err := TrueDiv(body.GetDefault("score", 0), 2)
		if err != nil {
			return "", err
		}
		state.Set("half", half)
		words := NewList()
		for k := range counts.All() {
			words.Append(k)
		}
		if err := words.Sort(false); err != nil {
			return "", err
		}
		state.Set("words", words)
		var total any = 0
		for _, v := range counts.All() {
			if total, err = Add(total, v); err != nil {
				return "", err
			}
		}
		state.Set("total", total)
		if hist.Len() > 2 {
			last2, err := hist.Slice(-2, nil)
			if err != nil {
				return "", err
			}
			state.Set("history", last2)
		}
		ok, err := Compare(total, ">", 2)
		if err != nil {
			return "", err
		}
		out := NewDictOf("ok", ok, "state", state, "same", Equal(body.GetDefault("score", nil), 1.0))
		return Dumps(out, DumpOptions{})
	}
	state := NewDict()
	for i, c := range []struct{ body, want string }{
		{`{"message": "Sync UP  sync", "score": 1}`,
			`{"ok": true, "state": {"history": [{"role": "user", "content": "Sync UP  sync"}], "counts": {"sync": 2, "up": 1}, "half": 0.5, "words": ["sync", "up"], "total": 3}, "same": true}`},
		{`{"message": "ΟΔΟΣ up", "score": 3.5, "flags": []}`,
			`{"ok": true, "state": {"history": [{"role": "user", "content": "Sync UP  sync"}, {"role": "user", "content": "\u039f\u0394\u039f\u03a3 up"}], "counts": {"sync": 2, "up": 2, "\u03bf\u03b4\u03bf\u03c2": 1}, "half": 1.75, "words": ["sync", "up", "\u03bf\u03b4\u03bf\u03c2"], "total": 5}, "same": false}`},
		{`{"message": "x", "flags": ["reset"]}`,
			`{"ok": false, "state": {"history": [{"role": "user", "content": "\u039f\u0394\u039f\u03a3 up"}, {"role": "user", "content": "x"}], "half": 0.0, "words": [], "total": 0}, "same": false}`},
	} {
		got, err := handle(state, c.body)
		if err != nil || got != c.want {
			t.Errorf("call %d: %v\n got %s\nwant %s", i, err, got, c.want)
		}
	}
	if got := Repr(state); got != "{'history': [{'role': 'user', 'content': 'ΟΔΟΣ up'}, {'role': 'user', 'content': 'x'}], 'half': 0.0, 'words': [], 'total': 0}" {
		t.Errorf("state: %s", got)
	}
	if _, err := handle(state, `{}`); err == nil || err.Error() != "'message'" {
		t.Errorf("a body without message: %v, want KeyError('message')", err)
	}
}

func TestJSONRoundTrip(t *testing.T) {
	t.Parallel()
	type state struct {
		D *Dict `json:"d"`
		L *List `json:"l"`
	}
	in := state{D: mustLoads(t, `{"z": 1, "a": [1.0, 1e-5, "é"], "big": 123456789012345678901234567890}`).(*Dict), L: NewList(true, nil)}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"d":{"z":1,"a":[1.0,1e-05,"é"],"big":123456789012345678901234567890},"l":[true,null]}`; string(b) != want {
		t.Errorf("json.Marshal: %s\nwant %s", b, want)
	}
	var out state
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if !Equal(out.D, in.D) || !Equal(out.L, in.L) || strings.Join(out.D.Keys(), ",") != "z,a,big" {
		t.Errorf("round trip: %s %s", Repr(out.D), Repr(out.L))
	}
	if err := json.Unmarshal([]byte(`{"d": [1]}`), &out); err == nil {
		t.Error("a Dict read from an array")
	}
	if _, err := json.Marshal(NewList(math.NaN())); err == nil {
		t.Error("NaN marshalled")
	}
	v, err := ToValue(in.D)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := framework.MarshalJSON(v, framework.JSONPydantic); string(b) != `{"z":1,"a":[1.0,0.00001,"é"],"big":123456789012345678901234567890}` {
		t.Errorf("ToValue in pydantic's forms: %s", b)
	}
}

// TestNoAllocations: the functions read framework.Values without copying
// them (servers compare table cells with them).
func TestNoAllocations(t *testing.T) {
	cell, id := framework.StringValue("00000057"), framework.StringValue("00000058")
	n1, n2 := num("12"), num("12.0")
	allocs := testing.AllocsPerRun(100, func() {
		_ = Equal(cell, id)
		_ = Equal(n1, n2)
		_ = Truthy(cell)
		_, _ = Compare(n1, "<", n2)
		_, _ = Compare(cell, ">=", id)
		_, _ = Contains(cell, "0005")
		_ = Str(cell)
		_ = TypeName(n1)
		_ = CheckHashable(cell)
		_ = Equal(&cell, &id)
		_ = Equal(&n1, n2)
		_, _ = Compare(&n1, "<", &n2)
		_ = Str(&cell)
		_ = Truthy(&cell)
	})
	if allocs != 0 {
		t.Errorf("%v allocations", allocs)
	}
	if a := testing.AllocsPerRun(100, func() { _ = FloatValue(1.75) }); a != 1 {
		t.Errorf("FloatValue allocates %v times", a)
	}
}

// FuzzLoads: whatever json.loads accepts, Dumps writes as framework's
// json.dumps writer does, and reads back equal (NaN aside).
func FuzzLoads(f *testing.F) {
	for _, s := range []string{`{"a": [1, 2.5, true, null, "é"], "b": {"c": 1e16}}`, `[NaN, Infinity, -0.0]`,
		`{"a":1,"a":2}`, `123456789012345678901234567890`, `"\ud83d\ude00"`, `[[[]]]`, `{"": {}}`, `1e400`, `-0`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := Loads(s)
		tree, perr := framework.ParseJSON([]byte(s))
		if (err == nil) != (perr == nil) {
			t.Fatalf("Loads: %v, ParseJSON: %v", err, perr)
		}
		if err != nil {
			return
		}
		got, err := Dumps(v, DumpOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want, err := framework.MarshalJSON(tree, framework.JSONPythonDumps)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Fatalf("Dumps %s, json.dumps %s", got, want)
		}
		back, err := Loads(got)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(got, "NaN") && !Equal(back, v) {
			t.Fatalf("%s read back as %s", Repr(v), Repr(back))
		}
		if _, err := Dumps(v, DumpOptions{Indent: "\t", SortKeys: true, NoASCII: true}); err != nil {
			t.Fatal(err)
		}
	})
}

func TestFloatValue(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		f         float64
		lit, repr string
	}{
		{3, "3.0", "3.0"}, {0.5, "0.5", "0.5"}, {1e16, "1e+16", "1e+16"}, {123456789, "1.23456789e+08", "123456789.0"},
		{math.Copysign(0, -1), "-0.0", "-0.0"}, {1e-5, "1e-05", "1e-05"}, {5e-324, "5e-324", "5e-324"},
		{math.NaN(), "NaN", "nan"}, {math.Inf(-1), "-Infinity", "-inf"},
	} {
		v := FloatValue(c.f)
		back, ok := v.Float()
		if v.Str != c.lit || !v.IsFloat() || !ok || (back != c.f && !math.IsNaN(c.f)) || Repr(v) != c.repr {
			t.Errorf("FloatValue(%v) = %q (reads %v), repr %s; want %q, %s", c.f, v.Str, back, Repr(v), c.lit, c.repr)
		}
	}
}
