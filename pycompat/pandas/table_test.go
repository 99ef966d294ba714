package pandas

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/pycompat"
	"github.com/gymkit/gymkit/pycompat/pyre"
	"github.com/gymkit/gymkit/pycompat/pyval"
)

func str(s string) framework.Value { return framework.StringValue(s) }
func num(s string) framework.Value { return framework.NumberValue(s) }

func mustRead(t *testing.T, csv string, o CSVOptions) *Table {
	t.Helper()
	tab, err := ReadCSV(strings.NewReader(csv), o)
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// cells renders a table's cells with repr (None for missing) and its labels.
func cells(t *Table) string {
	var b strings.Builder
	for i := range t.Len() {
		fmt.Fprintf(&b, "%d:", t.Label(i))
		for c := range t.Columns() {
			b.WriteString(" " + pyval.Repr(t.At(i, c)))
		}
		b.WriteString(";")
	}
	return b.String()
}

func TestReadCSV(t *testing.T) {
	t.Parallel()
	// pd.read_csv(io.StringIO(...), dtype=str): strings kept as written,
	// pandas' default NA texts missing.
	tab := mustRead(t, "id,name,notes\n007,\"Doe, J\",ends with space \n008,NA,\n009,None,null\n010,\"\",n/a\n", CSVOptions{})
	if !slices.Equal(tab.Columns(), []string{"id", "name", "notes"}) {
		t.Errorf("columns %q", tab.Columns())
	}
	if got, want := cells(tab), "0: '007' 'Doe, J' 'ends with space ';1: '008' None None;2: '009' None None;3: '010' None None;"; got != want {
		t.Errorf("cells\n got %s\nwant %s", got, want)
	}
	dir := mustRead(t, "a@b.co\nc@d.co\n", CSVOptions{Names: []string{"email_address"}})
	if got := cells(dir); got != "0: 'a@b.co';1: 'c@d.co';" || dir.Columns()[0] != "email_address" {
		t.Errorf("header=None: %s", got)
	}
	if _, err := ReadCSV(strings.NewReader("a,b\n1\n"), CSVOptions{}); err == nil {
		t.Error("a short record")
	}
	if _, err := ReadCSV(strings.NewReader(""), CSVOptions{}); err == nil {
		t.Error("an empty file")
	}
}

func TestCopyOnWrite(t *testing.T) {
	t.Parallel()
	base := mustRead(t, "id,v\n1,a\n2,b\n3,c\n", CSVOptions{})
	c := base.Clone()
	c.Set(1, 1, str("B"))
	c.Append([]framework.Value{str("4"), str("d")}, 9)
	c.Keep(func(i int) bool { return i != 0 })
	if got := cells(base); got != "0: '1' 'a';1: '2' 'b';2: '3' 'c';" {
		t.Errorf("the base changed: %s", got)
	}
	if got := cells(c); got != "1: '2' 'B';2: '3' 'c';9: '4' 'd';" {
		t.Errorf("clone: %s", got)
	}
	if &c.Row(1)[0] != &base.Row(2)[0] {
		t.Error("an unchanged row was copied")
	}
	c.ResetIndex()
	if !slices.Equal(c.Labels(), []int{0, 1, 2}) || c.Col("v") != 1 || c.Col("x") != -1 {
		t.Errorf("labels %v", c.Labels())
	}
}

func TestSeries(t *testing.T) {
	t.Parallel()
	tab := NewTable("v")
	for i, v := range []framework.Value{str("Sync Up"), {}, num("5"), str("sync"), pyval.FloatValue(0.5), str("x")} {
		tab.Append([]framework.Value{v}, i)
	}
	s := tab.Column(0)
	m, err := s.StrContains(framework.StringValue("SYNC"), false)
	if err != nil || !slices.Equal(m, []Bool{True, NA, NA, True, NA, False}) {
		t.Errorf("str.contains(case=False) = %v, %v", m, err)
	}
	if m, err := s.StrContains("SYNC", true); err != nil || slices.Contains(m, True) {
		t.Errorf("str.contains(case=True) = %v, %v", m, err)
	}
	if _, err := Mask(m); err == nil || err.Error() != "Cannot mask with non-boolean array containing NA / NaN values" {
		t.Errorf("mask with NA: %v", err)
	}
	if keep, err := Mask([]Bool{True, False}); err != nil || !slices.Equal(keep, []bool{true, false}) {
		t.Errorf("mask: %v %v", keep, err)
	}
	if _, err := s.StrContains(5, false); err == nil || err.Error() != "first argument must be string or compiled pattern" || !pycompat.IsInstance(err, "TypeError") {
		t.Errorf("str.contains(5): %v", err)
	}
	var pe *pyre.Error
	if _, err := s.StrContains("[", false); !errors.As(err, &pe) || err.Error() != "unterminated character set at position 0" {
		t.Errorf("str.contains('['): %v", err)
	}
	low, err := s.StrLower()
	if err != nil || pyval.Repr(framework.ArrayValue(low...)) != "['sync up', None, None, 'sync', None, 'x']" {
		t.Errorf("str.lower() = %v, %v", low, err)
	}
	if eq, err := s.Eq(5.0); err != nil || !slices.Equal(eq, []bool{false, false, true, false, false, false}) {
		t.Errorf("== 5.0: %v %v", eq, err)
	}
	if _, err := s.Eq(pyval.NewList(1, 2)); err == nil || err.Error() != "('Lengths must match to compare', (6,), (2,))" {
		t.Errorf("== [1, 2]: %v", err)
	}
	if !s.Contains(5) || !s.Contains(num("5.0")) || s.Contains(true) || s.Contains(pyval.NewList()) {
		t.Error("in s.values")
	}
	if _, err := s.Compare(">=", "a"); err == nil || err.Error() != "'>=' not supported between instances of 'int' and 'str'" {
		t.Errorf(">= 'a': %v", err)
	}
	nums := tab.ColumnAt(0, []int{2, 1, 4})
	if ge, err := nums.Compare(">=", 1); err != nil || !slices.Equal(ge, []bool{true, false, false}) {
		t.Errorf("[5, None, 0.5] >= 1: %v %v", ge, err)
	}
	if _, err := s.StrLower(); err != nil {
		t.Error(err)
	}
	if err := nums.CheckStr(); err == nil || err.Error() != "Can only use .str accessor with string values!" {
		t.Errorf("a numeric column's .str: %v", err)
	}
	if mx, ok, err := nums.Max(); err != nil || !ok || pyval.Repr(mx) != "5" {
		t.Errorf("max = %v, %v, %v", mx, ok, err)
	}
	if _, ok, _ := tab.ColumnAt(0, []int{}).Max(); ok {
		t.Error("max of an empty Series")
	}
	if !IsNA(nil) || !IsNA(framework.NullValue()) || !IsNA(num("NaN")) || IsNA(num("1.5")) || IsNA(str("")) {
		t.Error("IsNA")
	}
}

// TestSortDescending: pandas' sort_values(ascending=False) order of n equal
// keys (the emails a rollout sends in one second, workplace_assistant's
// sort vectors): input order up to 16, numpy's introsort order above.
func TestSortDescending(t *testing.T) {
	t.Parallel()
	equal := func(i, j int) bool { return false }
	for _, c := range []struct {
		n    int
		want []int
	}{
		{1, []int{0}},
		{5, []int{0, 1, 2, 3, 4}},
		{16, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}},
		{17, []int{0, 9, 15, 14, 13, 12, 11, 10, 8, 1, 7, 6, 5, 4, 3, 2, 16}},
		{20, []int{0, 1, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 19}},
	} {
		if got := SortDescending(c.n, equal); !slices.Equal(got, c.want) {
			t.Errorf("%d equal keys: %v, want %v", c.n, got, c.want)
		}
	}
	if SortDescending(0, equal) != nil {
		t.Error("no keys")
	}
	// Distinct keys come out in descending order, whatever the path
	// (insertion sort, quicksort, heapsort past the depth limit).
	for _, n := range []int{2, 16, 17, 100, 1000} {
		keys := make([]int, n)
		for i := range keys {
			keys[i] = (i * 7919) % n // a permutation of 0..n-1 (n and 7919 coprime)
		}
		order := SortDescending(n, func(i, j int) bool { return keys[i] < keys[j] })
		for k := 1; k < n; k++ {
			if keys[order[k-1]] < keys[order[k]] {
				t.Fatalf("n=%d: not descending at %d", n, k)
			}
		}
		asc := ArgsortQuick(n, func(i, j int) bool { return keys[i] < keys[j] })
		if !slices.IsSortedFunc(asc, func(a, b int) int { return keys[a] - keys[b] }) {
			t.Fatalf("n=%d: argsort not ascending", n)
		}
	}
}
