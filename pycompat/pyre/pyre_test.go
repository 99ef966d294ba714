package pyre

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/pycompat"
)

// The expected results are CPython's (re of 3.13; these texts have not
// changed since 3.11).

func TestSearchMatchFullMatch(t *testing.T) {
	t.Parallel()
	type span struct{ lo, hi int }
	for _, c := range []struct {
		pattern, s string
		span       span
		groups     []string
		text       string
	}{
		{`b`, "abc", span{1, 2}, []string{}, "b"},
		{`é(.)`, "xxéa😀", span{2, 4}, []string{"a"}, "éa"},
		{`(.)😀`, "xa😀", span{1, 3}, []string{"a"}, "a😀"},
		{`(\d+)-(\d+)?`, "ab 12- cd", span{3, 6}, []string{"12", ""}, "12-"},
		{`(?P<y>\d{4})-(?P<m>\d\d)`, "on 2023-12-05", span{3, 10}, []string{"2023", "12"}, "2023-12"},
	} {
		m, err := MustCompile(c.pattern, 0).Search(c.s)
		if err != nil || m == nil {
			t.Errorf("search(%q, %q) = %v, %v", c.pattern, c.s, m, err)
			continue
		}
		if lo, hi := m.Span(0); lo != c.span.lo || hi != c.span.hi || m.String() != c.text || !slices.Equal(m.Groups(), c.groups) {
			t.Errorf("search(%q, %q): span (%d, %d) %q groups %q; want %v %q %q", c.pattern, c.s, lo, hi, m.String(), m.Groups(), c.span, c.text, c.groups)
		}
	}
	m, _ := MustCompile(`(\d+)-(\d+)?`, 0).Search("ab 12- cd")
	if g, ok := m.Group(2); ok || g != "" {
		t.Errorf("a group that took no part: %q, %v", g, ok)
	}
	if lo, hi := m.Span(2); lo != -1 || hi != -1 {
		t.Errorf("its span: %d, %d", lo, hi)
	}
	if _, ok := m.Group(3); ok {
		t.Error("group 3 of a pattern with two")
	}
	m, _ = MustCompile(`(?P<y>\d{4})-(?P<m>\d\d)`, 0).Search("on 2023-12-05")
	if y, ok := m.GroupNamed("y"); !ok || y != "2023" {
		t.Errorf("group('y') = %q, %v", y, ok)
	}
	for _, c := range []struct {
		pattern, s  string
		match, full string // "-": None
	}{
		{`a|ab`, "ab", "a", "ab"},
		{`b`, "ab", "-", "-"},
		{`\d+`, "123x", "123", "-"},
		{`(a)|b`, "b", "b", "b"},
	} {
		re := MustCompile(c.pattern, 0)
		for _, k := range []struct {
			name string
			f    func(string) (*Match, error)
			want string
		}{{"match", re.Match, c.match}, {"fullmatch", re.FullMatch, c.full}} {
			m, err := k.f(c.s)
			got := "-"
			if m != nil {
				got = m.String()
			}
			if err != nil || got != k.want {
				t.Errorf("%s(%q, %q) = %q, %v; want %q", k.name, c.pattern, c.s, got, err, k.want)
			}
		}
	}
	if m, err := MustCompile(`x`, 0).Search("abc"); m != nil || err != nil {
		t.Errorf("no match: %v, %v", m, err)
	}
}

func TestFindAllSplit(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		pattern, s string
		want       [][]string
	}{
		{`\d+`, "a1b22c333", [][]string{{"1"}, {"22"}, {"333"}}},
		{`(\w)=(\d)?`, "a=1 b= c=3", [][]string{{"a", "1"}, {"b", ""}, {"c", "3"}}},
		{`x*`, "abxd", [][]string{{""}, {""}, {"x"}, {""}, {""}}},
		{`a|`, "ab", [][]string{{"a"}, {""}, {""}}},
		{`(a)(b)?`, "ab a", [][]string{{"a", "b"}, {"a", ""}}},
	} {
		got, err := MustCompile(c.pattern, 0).FindAll(c.s)
		if err != nil || !slices.EqualFunc(got, c.want, slices.Equal) {
			t.Errorf("findall(%q, %q) = %q, %v; want %q", c.pattern, c.s, got, err, c.want)
		}
	}
	for _, c := range []struct {
		pattern, s string
		n          int
		want       []string
	}{
		{`[,;]\s*`, "a, b;c", 0, []string{"a", "b", "c"}},
		{`(,)`, "a,b,c", 1, []string{"a", ",", "b,c"}},
		{`\b`, "a b", 0, []string{"", "a", " ", "b", ""}},
		{`(a)|(b)`, "xaybz", 0, []string{"x", "a", "", "y", "", "b", "z"}}, // Python: None for the groups that took no part
		{`x*`, "axbc", 0, []string{"", "a", "", "b", "c", ""}},
	} {
		got, err := MustCompile(c.pattern, 0).Split(c.s, c.n)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("split(%q, %q, %d) = %q, %v; want %q", c.pattern, c.s, c.n, got, err, c.want)
		}
	}
}

func TestSub(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		pattern, repl, s string
		count            int
		want             string
	}{
		{`(\w+)@(\w+)`, `\2 at \1`, "joe@site x@y", 0, "site at joe y at x"},
		{`(?P<w>\w+)`, `<\g<w>>`, "a b", 1, "<a> b"},
		{`x*`, "-", "abxd", 0, "-a-b--d-"},
		{`(a)|b`, `[\1]`, "ab", 0, "[a][]"},
		{`a`, `\n\t\\\.`, "a", 0, "\n\t\\\\."},
		{`a`, `\0101\08`, "a", 0, "\x081\x008"},
		{`(a)`, `\g<0>\g<1>`, "a", 0, "aa"},
		{`(a)`, `\101`, "a", 0, "A"},
		{`é`, `e`, "café é", 0, "cafe e"},
	} {
		got, err := MustCompile(c.pattern, 0).Sub(c.repl, c.s, c.count)
		if err != nil || got != c.want {
			t.Errorf("sub(%q, %q, %q) = %q, %v; want %q", c.pattern, c.repl, c.s, got, err, c.want)
		}
	}
	for _, c := range []struct {
		pattern, repl, want string
		class               string
	}{
		{`(a)`, `\10`, "invalid group reference 10 at position 1", "PatternError"},
		{`a`, `\q`, `bad escape \q at position 0`, "PatternError"},
		{`(a)`, `\2`, "invalid group reference 2 at position 1", "PatternError"},
		{`a`, `\g`, "missing < at position 2", "PatternError"},
		{`a`, `\g<`, "missing group name at position 3", "PatternError"},
		{`a`, `\g<x>`, "unknown group name 'x'", "IndexError"},
		{`a`, `\g<1x>`, "bad character in group name '1x' at position 3", "PatternError"},
		{`a`, `\`, "bad escape (end of pattern) at position 0", "PatternError"},
		{`a`, `\g<>`, "missing group name at position 3", "PatternError"},
		{`a`, `\777`, `octal escape value \777 outside of range 0-0o377 at position 0`, "PatternError"},
		{`a`, `x\g<99999999999999999999>`, "invalid group reference 99999999999999999999 at position 4", "PatternError"},
		{`a`, "x\n\\q", `bad escape \q at position 2 (line 2, column 1)`, "PatternError"},
	} {
		// Python refuses the template even where nothing matches.
		_, err := MustCompile(c.pattern, 0).Sub(c.repl, "zzz", 0)
		if err == nil || err.Error() != c.want || !pycompat.IsInstance(err, c.class) {
			t.Errorf("sub(%q, %q): %v, want %s %q", c.pattern, c.repl, err, c.class, c.want)
		}
	}
	out, n, err := MustCompile(`a`, 0).SubN("b", "aaa", 2)
	if out != "bba" || n != 2 || err != nil {
		t.Errorf("subn = %q, %d, %v", out, n, err)
	}
	out, err = MustCompile(`\d+`, 0).SubFunc("a1b22", 0, func(m *Match) string { return "<" + m.String() + ">" })
	if out != "a<1>b<22>" || err != nil {
		t.Errorf("sub with a function = %q, %v", out, err)
	}
}

func TestRegexpInfo(t *testing.T) {
	t.Parallel()
	re := MustCompile(`(?i)(?P<a>x)(y)(?:z)`, Multiline)
	// re.compile("(?i)(?P<a>x)(y)(?:z)", re.M).flags == re.I | re.M | re.U
	if re.Flags() != IgnoreCase|Multiline|Unicode || re.Groups() != 2 || re.GroupIndex()["a"] != 1 || re.Pattern() != `(?i)(?P<a>x)(y)(?:z)` {
		t.Errorf("flags %d, groups %d, groupindex %v", re.Flags(), re.Groups(), re.GroupIndex())
	}
	if a := MustCompile(`x`, ASCII); a.Flags() != ASCII {
		t.Errorf("ASCII flags: %d", a.Flags())
	}
	if _, err := Compile(`x`, Locale); err == nil || err.Error() != "cannot use LOCALE flag with a str pattern" || !pycompat.IsInstance(err, "ValueError") {
		t.Errorf("LOCALE: %v", err)
	}
	_, err := Compile("a\n(", 0)
	var e *Error
	if !errors.As(err, &e) || e.Msg != "missing ), unterminated subpattern" || e.Pos != 2 || !pycompat.IsInstance(err, "PatternError") {
		t.Fatalf("error %#v", err)
	}
	if line, col := e.LineCol(); line != 2 || col != 1 {
		t.Errorf("lineno, colno = %d, %d", line, col)
	}
	if a, b := MustCompile(`a+`, 0), MustCompile(`a+`, 0); a != b {
		t.Error("a pattern compiled twice is not cached")
	}
}

func TestTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for MatchTimeout")
	}
	t.Parallel()
	re := MustCompile(`(a+)+$`, 0)
	_, err := re.Search(strings.Repeat("a", 40) + "b")
	if !errors.Is(err, ErrTimeout) || err.Error() != "regular expression match timed out" {
		t.Errorf("catastrophic backtracking: %v", err)
	}
}

// FuzzCompile: every pattern either compiles to something regexp2 accepts
// and can run, or is refused with one of Python's errors; the writer of the
// .NET pattern never produces something regexp2 refuses.
func FuzzCompile(f *testing.F) {
	for _, s := range []string{`(a)\1`, `(?P<x>ab)(?P=x)`, `[^\W\d]`, `(?x) a b # c`, `a{,2}b`, `(?<=@)atlas`, `\N{LATIN SMALL LETTER D}`,
		`(?i:A)(?-i:b)`, `[]a]`, `a++`, `(?(1)a|b)`, `\Z`, `[\s\S]`, "a\n(", `(?a)\w+`, `(?s).`, `x*`, `[z-a]`, `\777`} {
		f.Add(s, "aAb1 é\n@atlas")
	}
	f.Fuzz(func(t *testing.T, pattern, s string) {
		re, err := compile(pattern, 0)
		if err != nil {
			var e *Error
			var pe *pycompat.Exception
			if !errors.As(err, &e) && !errors.As(err, &pe) {
				t.Fatalf("%q: %v", pattern, err)
			}
			if strings.Contains(err.Error(), "internal error") {
				t.Fatalf("%q: %v", pattern, err)
			}
			return
		}
		if err := re.anchored(); err != nil {
			t.Fatalf("%q anchored: %v", pattern, err)
		}
		if len(s) > 64 {
			s = s[:64]
		}
		_, _ = re.Search(s)
		_, _ = re.FullMatch(s)
		_, _ = re.Split(s, 0)
		_, _ = re.Sub(`[\g<0>]`, s, 0)
	})
}
