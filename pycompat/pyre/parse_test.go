package pyre

import (
	"testing"
)

// CPython 3.13's re.error texts for bad patterns (those of section 3.1 of
// ../shared/spec/workplace-assistant.md, then more of Lib/re/_parser.py's
// checks).
func TestPythonRegexErrors(t *testing.T) {
	t.Parallel()
	cases := []struct{ pattern, want string }{
		{`(`, "missing ), unterminated subpattern at position 0"},
		{`)`, "unbalanced parenthesis at position 0"},
		{`[`, "unterminated character set at position 0"},
		{`*`, "nothing to repeat at position 0"},
		{`+x`, "nothing to repeat at position 0"},
		{`?`, "nothing to repeat at position 0"},
		{`a**`, "multiple repeat at position 2"},
		{`a|*`, "nothing to repeat at position 2"},
		{`\`, "bad escape (end of pattern) at position 0"},
		{`\q`, "bad escape \\q at position 0"},
		{`a{2,1}`, "min repeat greater than max repeat at position 2"},
		{`[z-a]`, "bad character range z-a at position 1"},
		{`(?<x`, "unknown extension ?<x at position 1"},
		// further parser checks
		{`ab(cd`, "missing ), unterminated subpattern at position 2"},
		{`[]`, "unterminated character set at position 0"},
		{`[\d-z]`, "bad character range \\d-z at position 1"},
		{`^*`, "nothing to repeat at position 1"},
		{`a{3}{4}`, "multiple repeat at position 4"},
		{`a*?+`, "multiple repeat at position 3"},
		{`\1`, "invalid group reference 1 at position 1"},
		{`(a)\2`, "invalid group reference 2 at position 4"},
		{`(a\1)`, "cannot refer to an open group at position 2"},
		{`(?P<1a>x)`, "bad character in group name '1a' at position 4"},
		{`(?P<n>a)(?P<n>b)`, "redefinition of group name 'n' as group 2; was group 1 at position 12"},
		{`(?P=n)`, "unknown group name 'n' at position 4"},
		{`(?Px)`, "unknown extension ?Px at position 1"},
		{`(?z)`, "unknown extension ?z at position 1"},
		{`a(?i)b`, "global flags not at the start of the expression at position 1"},
		{`(?i`, "missing -, : or ) at position 3"},
		{`(?L)`, "bad inline flags: cannot use 'L' flag with a str pattern at position 3"},
		{`(?-q:a)`, "unknown flag at position 3"},
		{`(?i-i:a)`, "bad inline flags: flag turned on and off at position 5"},
		{`(?#x`, "missing ), unterminated comment at position 0"},
		{`\x4`, "incomplete escape \\x4 at position 0"},
		{`\u12`, "incomplete escape \\u12 at position 0"},
		{`[\777]`, "octal escape value \\777 outside of range 0-0o377 at position 1"},
		{`\N{NO SUCH CHARACTER}`, "undefined character name 'NO SUCH CHARACTER' at position 0"},
		{`(?<=a+)b`, "look-behind requires fixed-width pattern"},
		{`(?(0)a)`, "bad group number at position 3"},
		{`(?(2)a)(b)`, "invalid group reference 2 at position 3"},
		{"a\n(", "missing ), unterminated subpattern at position 2 (line 2, column 1)"},
		{`a{4294967296}`, "the repetition number is too large"},
	}
	for _, c := range cases {
		_, err := Compile(c.pattern, IgnoreCase)
		if err == nil {
			t.Errorf("%q compiled, want %q", c.pattern, c.want)
			continue
		}
		if err.Error() != c.want {
			t.Errorf("%q: %q, want %q", c.pattern, err.Error(), c.want)
		}
	}
}

// Patterns Python accepts, and what re.search(pattern, s, re.IGNORECASE)
// finds, including what RE2 cannot do (look-around, back-references,
// possessive quantifiers) and where .NET's syntax differs.
func TestPythonRegexMatching(t *testing.T) {
	t.Parallel()
	cases := []struct {
		pattern, s string
		want       bool
	}{
		{`s.c`, "amir.ali@atlas.com", true}, // "." is any character
		{`a.c`, "amir.ali@atlas.com", false},
		{`luis|amir`, "amir.ali@atlas.com", true},
		{`^a`, "bob", false},
		{`sync up`, "Sync Up", true},
		{`c++`, "ccc", true},
		{`a++a`, "aaa", false}, // possessive: gives nothing back
		{`(?<=@)atlas`, "x@atlas.com", true},
		{`(?<!@)atlas`, "x@atlas.com", false},
		{`foo(?=bar)`, "foobar", true},
		{`(a)\1`, "xAa", true},
		{`(?P<x>ab)(?P=x)`, "ABab", true},
		{`(?P<x>a)?(?(x)b|c)`, "c", true},
		{`a\Z`, "a\n", false},
		{`a$`, "a\n", true},
		{`\Aa`, "ba", false},
		{`a{,2}b`, "aab", true},
		{`a{`, "a{", true},
		{`x{}`, "x{}", true},
		{`[]a]`, "]", true},
		{`[a-]`, "-", true},
		{`[\[]`, "[", true},
		{`[[a]`, "[", true},
		{`\d+`, "٣", true},
		{`\w`, "²", true}, // Python's \w holds Unicode numerics
		{`\s`, "\x1c", true},
		{`[^\W]`, "é", true},
		{`[\S]`, "\x1c", false},
		{`[^\d\s]`, "5", false},
		{`(?a)\w`, "é", false},
		{`(?x) a b # comment`, "ab", true},
		{`(?i:A)(?-i:b)`, "aB", false},
		{`(?s:.)`, "\n", true},
		{`.`, "\n", false},
		{`\x41\u0042\U00000043\N{LATIN SMALL LETTER D}\101`, "abcda", true},
		{`[\x00-\x20]`, " ", true},
		{`😀`, "x😀", true},
		{`(?>a+)b`, "aab", true},
		{`\bat`, "cat at", true},
		{`(?#comment)x`, "x", true},
		{`a|`, "b", true},
		{`()`, "", true},
		{`(?!)`, "", false},
	}
	for _, c := range cases {
		re, err := Compile(c.pattern, IgnoreCase)
		if err != nil {
			t.Errorf("%q: %v", c.pattern, err)
			continue
		}
		got, err := re.MatchString(c.s)
		if err != nil || got != c.want {
			t.Errorf("search(%q, %q) = %v, %v; want %v", c.pattern, c.s, got, err, c.want)
		}
	}
}
