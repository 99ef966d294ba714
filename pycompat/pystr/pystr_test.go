package pystr

import (
	"slices"
	"testing"
	"unicode"

	"golang.org/x/text/cases"
)

// The expected texts below are CPython's. The character classes, the case
// mappings and repr were also compared with CPython 3.11 (Unicode 14) over
// every code point it assigns: no difference but the Cherokee capitals of
// Casefold, now handled (Unicode 15.0 and 15.1 changed none of those code
// points; the 15.1 additions are tested by their own rows).

// TestUnicodeVersion: the tables this package builds on are Unicode 15.0
// (Go's unicode package and golang.org/x/text/cases), plus the additions of
// Unicode 15.1 written out here. A Go or x/text upgrade that changes the
// tables' version brings characters CPython 3.13 does not know (Unicode 16
// assigns new letters, cased ones among them): check the functions of this
// package against Unicode 15.1 again before changing this test.
func TestUnicodeVersion(t *testing.T) {
	t.Parallel()
	if unicode.Version != "15.0.0" || cases.UnicodeVersion != "15.0.0" {
		t.Fatalf("unicode %s, x/text/cases %s: pystr assumes Unicode 15.0 tables plus its 15.1 additions",
			unicode.Version, cases.UnicodeVersion)
	}
}

func TestLower(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"ABC def":      "abc def",
		"İstanbul":     "i\u0307stanbul",
		"ΟΔΟΣ":         "οδος",
		"ΟΔΟΣ ΚΑΙ":     "οδος και",
		"Σ":            "σ",
		"ÀÉÎ":          "àéî",
		"already safe": "already safe",
		"ΑΣ.":          "ας.",
		"Σ.Α":          "σ.α",
		"ΌΣΟΣ'":        "όσος'",
		"ǅ":            "ǆ",
		"ẞ":            "ß",
		"":             "",
	} {
		if got := Lower(in); got != want {
			t.Errorf("Lower(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestUpper(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"straße": "STRASSE", "ŉ": "ʼN", "ﬁ": "FI", "ᾳ": "ΑΙ", "\u0390": "\u0399\u0308\u0301", "ǆ": "Ǆ", "abc": "ABC",
		"ﬃx": "FFIX", "i\u0307": "I\u0307", "\u01f0": "J\u030c", "µ": "Μ", "ÿ": "Ÿ", "": "",
	} {
		if got := Upper(in); got != want {
			t.Errorf("Upper(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCasefold(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Straße": "strasse", "ﬁ": "fi", "ς": "σ", "ꭰ": "Ꭰ", "Ꭰ": "Ꭰ", "ᏸ": "Ᏸ", "İ": "i\u0307", "ẞ": "ss",
		"ǅ": "ǆ", "µ": "μ", "ﬃ": "ffi", "ΣΑΣ": "σασ", "ABC": "abc", "aᏸꭰᎠb": "aᏰᎠᎠb", "ᎠStraße": "Ꭰstrasse",
	} {
		if got := Casefold(in); got != want {
			t.Errorf("Casefold(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSplit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in             string
		all, one, zero []string
	}{
		{"  a b  ", []string{"a", "b"}, []string{"a", "b  "}, []string{"a b  "}},
		{"a\u3000b\u00a0c\x1cd\u0085e", []string{"a", "b", "c", "d", "e"}, []string{"a", "b\u00a0c\x1cd\u0085e"}, []string{"a\u3000b\u00a0c\x1cd\u0085e"}},
		{"", nil, nil, nil},
		{"   ", nil, nil, nil},
		{"a\u200bb", []string{"a\u200bb"}, []string{"a\u200bb"}, []string{"a\u200bb"}}, // ZERO WIDTH SPACE is not white space
		{"a\u180eb", []string{"a\u180eb"}, []string{"a\u180eb"}, []string{"a\u180eb"}},
	} {
		if got := Split(tc.in); !slices.Equal(got, tc.all) {
			t.Errorf("Split(%q) = %q, want %q", tc.in, got, tc.all)
		}
		if got := SplitN(tc.in, -1); !slices.Equal(got, tc.all) {
			t.Errorf("SplitN(%q, -1) = %q, want %q", tc.in, got, tc.all)
		}
		if got := SplitN(tc.in, 1); !slices.Equal(got, tc.one) {
			t.Errorf("SplitN(%q, 1) = %q, want %q", tc.in, got, tc.one)
		}
		if got := SplitN(tc.in, 0); !slices.Equal(got, tc.zero) {
			t.Errorf("SplitN(%q, 0) = %q, want %q", tc.in, got, tc.zero)
		}
	}
	for _, tc := range []struct {
		in, sep string
		n       int
		want    []string
	}{
		{"a,,b", ",", -1, []string{"a", "", "b"}},
		{"a,b,c", ",", 1, []string{"a", "b,c"}},
		{"", ",", -1, []string{""}},
		{"a,b", ",", 0, []string{"a,b"}},
		{"a<>b<>", "<>", -1, []string{"a", "b", ""}},
	} {
		if got, err := SplitSep(tc.in, tc.sep, tc.n); err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("SplitSep(%q, %q, %d) = %q, %v; want %q", tc.in, tc.sep, tc.n, got, err, tc.want)
		}
	}
	if _, err := SplitSep("abc", "", -1); err == nil || err.Error() != "empty separator" {
		t.Errorf("SplitSep with an empty separator: %v, want ValueError('empty separator')", err)
	}
}

func TestStrip(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ got, want string }{
		{Strip("\u3000a b\u0085"), "a b"},
		{LStrip(" \ta "), "a "},
		{RStrip(" a \x1f"), " a"},
		{Strip("\u200ba\u200b"), "\u200ba\u200b"},
		{StripChars("xxaxx", "x"), "a"},
		{StripChars("  a  ", ""), "  a  "},
		{LStripChars("abcab", "ba"), "cab"},
		{RStripChars("abcab", "ba"), "abc"},
		{ZFill("-42", 8), "-0000042"},
		{ZFill("+1", 4), "+001"},
		{ZFill("", 3), "000"},
		{ZFill("abcd", 2), "abcd"},
		{ZFill("é", 3), "00é"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestClasses(t *testing.T) {
	t.Parallel()
	// str.isdigit(), isdecimal(), isalnum(), isalpha(), isspace().
	for _, tc := range []struct {
		s                                   string
		digit, decimal, alnum, alpha, space bool
	}{
		{"²", true, false, true, false, false},
		{"½", false, false, true, false, false},
		{"٣", true, true, true, false, false},
		{"1²", true, false, true, false, false},
		{"", false, false, false, false, false},
		{"Ⅷ", false, false, true, false, false},
		{"\U00010e60", true, false, true, false, false}, // RUMI DIGIT ONE
		{"\U00011052", true, false, true, false, false}, // BRAHMI NUMBER ONE
		{"a1", false, false, true, false, false},
		{"_", false, false, false, false, false},
		{"é", false, false, true, true, false},
		{"\U0002ebf0", false, false, true, true, false}, // Unicode 15.1: a CJK ideograph
		{"\u2ffc", false, false, false, false, false},   // Unicode 15.1: a symbol
		{" \u3000\x1c", false, false, false, false, true},
		{"\u200b", false, false, false, false, false},
	} {
		got := [5]bool{IsDigit(tc.s), IsDecimal(tc.s), IsAlnum(tc.s), IsAlpha(tc.s), IsSpace(tc.s)}
		want := [5]bool{tc.digit, tc.decimal, tc.alnum, tc.alpha, tc.space}
		if got != want {
			t.Errorf("%q: isdigit, isdecimal, isalnum, isalpha, isspace = %v, want %v", tc.s, got, want)
		}
	}
	for r, want := range map[rune]int{'7': 7, '٣': 3, '०': 0, '९': 9, '\U0001D7D8': 0, '\U0001D7E1': 9} {
		if d, ok := DecimalValue(r); !ok || d != want {
			t.Errorf("DecimalValue(%q) = %d, %v; want %d", r, d, ok, want)
		}
	}
	for _, r := range []rune{'a', '²', '½', -1} {
		if d, ok := DecimalValue(r); ok {
			t.Errorf("DecimalValue(%q) = %d, want not a decimal", r, d)
		}
	}
}

func TestWord(t *testing.T) {
	t.Parallel()
	for r, want := range map[rune]bool{'a': true, '_': true, '²': true, 'é': true, '-': false, ' ': false, '\U0002ebf0': true, '\u2ffc': false} {
		if IsWordChar(r) != want {
			t.Errorf("IsWordChar(%q) = %v", r, !want)
		}
	}
	s := "cat at-é"
	var got []int
	for i := -1; i <= len(s)+1; i++ {
		if IsWordBoundary(s, i) {
			got = append(got, i)
		}
	}
	// re.finditer(r"\b", "cat at-é"): positions 0, 3, 4, 6, 7, 8 (code
	// points); "é" is two bytes.
	if want := []int{0, 3, 4, 6, 7, 9}; !slices.Equal(got, want) {
		t.Errorf("boundaries %v, want %v", got, want)
	}
}

func TestRepr(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"it's": `"it's"`, "a\nb": `'a\nb'`, "\u2ffc\u0378": "'\u2ffc\\u0378'", "é\u00a0": `'é\xa0'`} {
		if got := Repr(in); got != want {
			t.Errorf("Repr(%q) = %s, want %s", in, got, want)
		}
	}
}
