package pystr

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gymkit/gymkit/framework"
	"golang.org/x/text/cases"
	"golang.org/x/text/language"
)

// Repr returns Python's repr() of the str s: single quotes unless s holds a
// single quote and no double quote; backslash, the chosen quote, \t \n \r
// escaped; other C0 controls and DEL as \xhh; the code points CPython 3.13
// does not print (Unicode 15.1's non-printable: controls, format, surrogate,
// private use, unassigned, separators other than the ASCII space) as \xhh,
// \uhhhh or \Uhhhhhhhh; everything else as it is. It is
// framework.PythonReprString, gymkit's one repr of a str.
func Repr(s string) string { return framework.PythonReprString(s) }

// Lower returns Python's str.lower(): the full Unicode lowercase mapping,
// which differs from strings.ToLower for U+0130 (İ becomes "i̇", i and a
// combining dot) and for the final sigma (Σ becomes ς at the end of a word,
// σ elsewhere, by Unicode's Final_Sigma condition). An ASCII string costs one
// scan, and no allocation when it has no upper case letter.
func Lower(s string) string {
	ascii, upper := true, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
		upper = upper || ('A' <= c && c <= 'Z')
	}
	if ascii {
		if !upper {
			return s
		}
		b := make([]byte, len(s))
		for i := 0; i < len(s); i++ {
			c := s[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b[i] = c
		}
		return string(b)
	}
	var runes []rune // only for the final-sigma context
	if strings.ContainsRune(s, 0x3a3) {
		runes = []rune(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	i := 0
	for _, r := range s {
		switch {
		case r == 0x130:
			b.WriteString("i\u0307")
		case r == 0x3a3:
			if finalSigma(runes, i) {
				b.WriteRune(0x3c2)
			} else {
				b.WriteRune(0x3c3)
			}
		default:
			b.WriteRune(unicode.ToLower(r))
		}
		i++
	}
	return b.String()
}

// finalSigma is Unicode's Final_Sigma condition for runes[i]: a cased letter
// before it and none after it (skipping case-ignorable characters).
func finalSigma(runes []rune, i int) bool {
	j := i - 1
	for j >= 0 && caseIgnorable(runes[j]) {
		j--
	}
	if j < 0 || !cased(runes[j]) {
		return false
	}
	k := i + 1
	for k < len(runes) && caseIgnorable(runes[k]) {
		k++
	}
	return k >= len(runes) || !cased(runes[k])
}

func cased(r rune) bool {
	return unicode.IsUpper(r) || unicode.IsLower(r) || unicode.IsTitle(r) ||
		unicode.Is(unicode.Other_Lowercase, r) || unicode.Is(unicode.Other_Uppercase, r)
}

func caseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', '^', '`', 0xad, 0xb7, 0x2019, 0x2024, 0x2027:
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}

// Upper returns Python's str.upper(): the full Unicode uppercase mapping of
// every character (SpecialCasing's unconditional mappings included: ß
// becomes "SS", ŉ "ʼN", ﬁ "FI", ᾳ "ΑΙ"), which strings.ToUpper does not
// apply.
func Upper(s string) string {
	if isASCII(s) {
		return strings.ToUpper(s)
	}
	return cases.Upper(language.Und).String(s)
}

// Casefold returns Python's str.casefold(): Unicode's full case folding
// (CaseFolding.txt, statuses C and F), for caseless comparison: ß becomes
// "ss", ﬁ "fi", ς "σ", and the Cherokee small letters fold to the capital
// ones. Two strings are equal ignoring case, as Python compares them, when
// their Casefold are equal.
func Casefold(s string) string {
	if isASCII(s) {
		return strings.ToLower(s)
	}
	// CaseFolding.txt folds the Cherokee small letters to the capital ones
	// and leaves the capitals U+13A0-13F5 as they are, as Python does;
	// x/text's Fold maps those capitals to the small letters. Fold the rest
	// around them (folding has no context).
	var b strings.Builder
	from := 0
	for i, r := range s {
		if r >= 0x13a0 && r <= 0x13f5 {
			if from < i {
				b.WriteString(cases.Fold().String(s[from:i]))
			}
			b.WriteRune(r)
			from = i + utf8.RuneLen(r)
		}
	}
	if from == 0 {
		return cases.Fold().String(s)
	}
	b.WriteString(cases.Fold().String(s[from:]))
	return b.String()
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
