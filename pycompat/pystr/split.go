package pystr

import (
	"strings"
	"unicode/utf8"

	"github.com/gymkit/gymkit/pycompat"
)

// Split returns Python's str.split() without arguments: the words of s
// separated by runs of white space (IsSpaceChar: the ASCII ones, the
// separators 0x1c-0x1f, U+0085, U+00A0, U+3000 and the other Unicode spaces,
// which strings.Fields partly ignores), with no empty words. An empty or
// all-space s gives an empty (nil) slice.
func Split(s string) []string { return strings.FieldsFunc(s, IsSpaceChar) }

// SplitN returns Python's str.split(None, maxsplit): at most maxsplit splits
// on runs of white space, the rest of s after the last split (its leading
// white space skipped, its trailing kept) as the last word. A negative
// maxsplit splits everywhere, as Split.
func SplitN(s string, maxsplit int) []string {
	if maxsplit < 0 {
		return Split(s)
	}
	var out []string
	i := 0
	skip := func() {
		for i < len(s) {
			r, n := utf8.DecodeRuneInString(s[i:])
			if !IsSpaceChar(r) {
				return
			}
			i += n
		}
	}
	for ; maxsplit > 0; maxsplit-- {
		skip()
		if i == len(s) {
			return out
		}
		j := i
		for i < len(s) {
			r, n := utf8.DecodeRuneInString(s[i:])
			if IsSpaceChar(r) {
				break
			}
			i += n
		}
		out = append(out, s[j:i])
	}
	skip()
	if i < len(s) {
		out = append(out, s[i:])
	}
	return out
}

// SplitSep returns Python's str.split(sep, maxsplit): s cut at each
// occurrence of sep, at most maxsplit times (every time when maxsplit is
// negative), empty words kept ("a,,b" gives "a", "", "b"). An empty sep is
// Python's ValueError("empty separator").
func SplitSep(s, sep string, maxsplit int) ([]string, error) {
	if sep == "" {
		return nil, pycompat.ValueError("empty separator")
	}
	if maxsplit < 0 {
		return strings.Split(s, sep), nil
	}
	return strings.SplitN(s, sep, maxsplit+1), nil
}

// Strip returns Python's str.strip(): s without its leading and trailing
// white space (IsSpaceChar).
func Strip(s string) string { return strings.TrimFunc(s, IsSpaceChar) }

// LStrip returns Python's str.lstrip(): s without its leading white space.
func LStrip(s string) string { return strings.TrimLeftFunc(s, IsSpaceChar) }

// RStrip returns Python's str.rstrip(): s without its trailing white space.
func RStrip(s string) string { return strings.TrimRightFunc(s, IsSpaceChar) }

// StripChars returns Python's str.strip(chars): s without the leading and
// trailing characters that are in chars (a set of code points; an empty
// chars strips nothing).
func StripChars(s, chars string) string { return strings.Trim(s, chars) }

// LStripChars returns Python's str.lstrip(chars).
func LStripChars(s, chars string) string { return strings.TrimLeft(s, chars) }

// RStripChars returns Python's str.rstrip(chars).
func RStripChars(s, chars string) string { return strings.TrimRight(s, chars) }

// ZFill returns Python's str.zfill(width): s padded on the left with '0' to
// width code points, the padding after a leading '+' or '-'; s as it is when
// it is already that long.
func ZFill(s string, width int) string {
	n := utf8.RuneCountInString(s)
	if n >= width {
		return s
	}
	pad := strings.Repeat("0", width-n)
	if s != "" && (s[0] == '+' || s[0] == '-') {
		return s[:1] + pad + s[1:]
	}
	return pad + s
}
