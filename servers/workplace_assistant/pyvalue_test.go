package workplace

import (
	"testing"

	"github.com/gymkit/gymkit/framework"
)

func strTable(ids ...string) *table {
	t := &table{cols: []string{"id"}}
	for i, s := range ids {
		t.appendRow([]value{vStr(s)}, i)
	}
	return t
}

// New ids are str(int(max) + 1) with the lexicographic max (spec 3.6).
func TestNextID(t *testing.T) {
	t.Parallel()
	cases := []struct {
		ids  []string
		pad  bool
		want string
		err  string
	}{
		{[]string{"00000498", "00000499"}, false, "500", ""},
		{[]string{"00000499", "500", "501"}, false, "502", ""},
		{[]string{"00000499", "999", "1000"}, false, "1000", ""}, // "999" stays the max
		{[]string{"00000299", "00000013"}, true, "00000300", ""},
		{[]string{"00000299", "abc"}, true, "", "invalid literal for int() with base 10: 'abc'"},
		{[]string{" 41 "}, true, "00000042", ""},
		{nil, true, "", "cannot convert float NaN to integer"},
	}
	for _, c := range cases {
		got, err := nextID(strTable(c.ids...).column(0), c.pad)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("nextID(%q): %q, %v; want error %q", c.ids, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("nextID(%q) = %q, %v; want %q", c.ids, got, err, c.want)
		}
	}
	// A non-string id that is not the max fails the comparison, as numpy's
	// reduction does.
	tbl := strTable("00000001")
	tbl.appendRow([]value{vInt(5)}, 1)
	if _, err := nextID(tbl.column(0), true); err == nil || err.Error() != "'>=' not supported between instances of 'str' and 'int'" {
		t.Errorf("mixed ids: %v", err)
	}
}

func TestPythonReprAndStr(t *testing.T) {
	t.Parallel()
	num := func(lit string) value { return value{Kind: framework.KindNumber, Str: lit} }
	for _, c := range []struct {
		v    value
		want string
	}{
		{vStr("it's"), `"it's"`},
		{vStr("a\nb"), `'a\nb'`},
		{num("1e5"), "100000.0"},
		{num("1e-5"), "1e-05"},
		{num("-0"), "0"},
		{vBool(true), "True"},
		{vNone(), "None"},
		{vList([]value{vInt(1), vStr("a")}), "[1, 'a']"},
	} {
		if got := pyRepr(c.v); got != c.want {
			t.Errorf("repr = %s, want %s", got, c.want)
		}
	}
}

func TestTruthyAndInt(t *testing.T) {
	t.Parallel()
	num := func(lit string) value { return value{Kind: framework.KindNumber, Str: lit} }
	for _, c := range []struct {
		v    value
		want bool
	}{
		{vStr(""), false}, {vStr(" "), true}, {num("0"), false}, {num("0.0"), false}, {num("NaN"), true},
		{vList(nil), false}, {(object{}).value(), false}, {vBool(false), false}, {vNone(), false},
	} {
		if truthy(c.v) != c.want {
			t.Errorf("bool(%s) != %v", pyRepr(c.v), c.want)
		}
	}
	for in, want := range map[string]string{" 45 ": "45", "+7": "7", "-3": "-3", "1_000": "1000", "٣": "3"} {
		if n, err := pyInt(vStr(in)); err != nil || n.String() != want {
			t.Errorf("int(%q) = %v, %v; want %s", in, n, err, want)
		}
	}
	for _, in := range []string{"1.5", "", "_1", "1__0", "1_", "abc"} {
		if _, err := pyInt(vStr(in)); err == nil || !isValueError(err) {
			t.Errorf("int(%q): %v, want ValueError", in, err)
		}
	}
}
