package pystr

import (
	"unicode"
	"unicode/utf8"
)

// IsSpaceChar reports whether r is white space for Python (str.isspace(),
// str.split(), str.strip(), re's \s): a character of bidirectional class
// WS, B or S or of category Zs. That is \t \n \v \f \r, the separators
// 0x1c-0x1f, the space, U+0085, U+00A0, U+1680, U+2000-200A, U+2028,
// U+2029, U+202F, U+205F and U+3000.
func IsSpaceChar(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\v', '\f', '\r', 0x1c, 0x1d, 0x1e, 0x1f, 0x85, 0xa0, 0x1680,
		0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// cjkExtI is the CJK Unified Ideographs Extension I, letters (Lo) that
// Unicode 15.1 added and Go's Unicode 15.0 tables lack.
func cjkExtI(r rune) bool { return r >= 0x2ebf0 && r <= 0x2ee5d }

// IsAlphaChar reports whether r is a letter for Python's str.isalpha():
// categories Lu, Ll, Lt, Lm and Lo of Unicode 15.1.
func IsAlphaChar(r rune) bool { return unicode.IsLetter(r) || cjkExtI(r) }

// IsDecimalChar reports whether r is a decimal digit for Python's
// str.isdecimal() and int(): category Nd (the digits of every script, 0-9,
// ٠-٩, ०-९, ...).
func IsDecimalChar(r rune) bool { return unicode.IsDigit(r) }

// IsDigitChar reports whether r is a digit for Python's str.isdigit(): a
// decimal digit or a character of Numeric_Type Digit (superscripts,
// subscripts, circled and parenthesized digits, Ethiopic and Rumi digits,
// ...), which int() still refuses.
func IsDigitChar(r rune) bool {
	if unicode.IsDigit(r) {
		return true
	}
	switch {
	case r == 0xb2, r == 0xb3, r == 0xb9, r == 0x19da, r == 0x2070, r == 0x24ea, r == 0x24ff,
		r >= 0x1369 && r <= 0x1371, r >= 0x2074 && r <= 0x2079, r >= 0x2080 && r <= 0x2089,
		r >= 0x2460 && r <= 0x2468, r >= 0x2474 && r <= 0x247c, r >= 0x2488 && r <= 0x2490,
		r >= 0x24f5 && r <= 0x24fd, r >= 0x2776 && r <= 0x277e, r >= 0x2780 && r <= 0x2788,
		r >= 0x278a && r <= 0x2792, r >= 0x10a40 && r <= 0x10a43, r >= 0x10e60 && r <= 0x10e68,
		r >= 0x11052 && r <= 0x1105a, r >= 0x1f100 && r <= 0x1f10a:
		return true
	}
	return false
}

// IsAlnumChar reports whether r is alphanumeric for Python's str.isalnum():
// a letter (IsAlphaChar) or a character with a numeric value (categories
// Nd, Nl and No).
func IsAlnumChar(r rune) bool { return IsAlphaChar(r) || unicode.IsNumber(r) }

// IsWordChar reports whether r is a word character for the re module's \w
// (and \b) in a str pattern without re.ASCII: '_' or IsAlnumChar.
func IsWordChar(r rune) bool { return r == '_' || IsAlnumChar(r) }

// IsWordBoundary reports whether re's \b matches at byte offset i of s (no
// re.ASCII): exactly one of the characters before and after i is a word
// character (IsWordChar); the start and end of s count as non-word. An i
// outside [0, len(s)] is false.
func IsWordBoundary(s string, i int) bool {
	if i < 0 || i > len(s) {
		return false
	}
	before, after := false, false
	if i > 0 {
		r, _ := utf8.DecodeLastRuneInString(s[:i])
		before = IsWordChar(r)
	}
	if i < len(s) {
		r, _ := utf8.DecodeRuneInString(s[i:])
		after = IsWordChar(r)
	}
	return before != after
}

// DecimalValue returns the value 0-9 of a decimal digit (IsDecimalChar), as
// Python's unicodedata.decimal(r); ok is false for any other character.
func DecimalValue(r rune) (d int, ok bool) {
	if '0' <= r && r <= '9' {
		return int(r - '0'), true
	}
	if !unicode.IsDigit(r) {
		return 0, false
	}
	// Nd characters come in contiguous runs of ten starting at zero.
	start := r
	for unicode.IsDigit(start - 1) {
		start--
	}
	return int(r-start) % 10, true
}

// all reports whether s is not empty and every character satisfies is.
func all(s string, is func(rune) bool) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !is(r) {
			return false
		}
	}
	return true
}

// IsSpace returns Python's str.isspace(): s is not empty and every character
// is white space (IsSpaceChar).
func IsSpace(s string) bool { return all(s, IsSpaceChar) }

// IsAlpha returns Python's str.isalpha(): s is not empty and every character
// is a letter (IsAlphaChar).
func IsAlpha(s string) bool { return all(s, IsAlphaChar) }

// IsAlnum returns Python's str.isalnum(): s is not empty and every character
// is alphanumeric (IsAlnumChar).
func IsAlnum(s string) bool { return all(s, IsAlnumChar) }

// IsDecimal returns Python's str.isdecimal(): s is not empty and every
// character is a decimal digit (IsDecimalChar).
func IsDecimal(s string) bool { return all(s, IsDecimalChar) }

// IsDigit returns Python's str.isdigit(): s is not empty and every character
// is a digit (IsDigitChar): "²" is a digit, "½" is not.
func IsDigit(s string) bool { return all(s, IsDigitChar) }
