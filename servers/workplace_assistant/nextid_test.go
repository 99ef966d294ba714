package workplace

import (
	"testing"

	"github.com/gymkit/gymkit/pycompat/pandas"
)

func strTable(ids ...string) *table {
	t := pandas.NewTable("id")
	for i, s := range ids {
		t.Append([]value{vStr(s)}, i)
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
		got, err := nextID(strTable(c.ids...).Column(0), c.pad)
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
	tbl.Append([]value{vInt(5)}, 1)
	if _, err := nextID(tbl.Column(0), true); err == nil || err.Error() != "'>=' not supported between instances of 'str' and 'int'" {
		t.Errorf("mixed ids: %v", err)
	}
}
