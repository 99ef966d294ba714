// Package pyre is Python's re module (CPython 3.13) for Go: the same
// patterns accepted, the same ones refused with the same error texts and
// positions, and the same matches.
//
//	re, err := pyre.Compile(`(?P<user>[\w.]+)@(?P<host>\w+)`, pyre.IgnoreCase)
//	if err != nil {
//		return err // "missing ), unterminated subpattern at position 0", as re.error says it
//	}
//	m, err := re.Search("Mail Amir.Ali@atlas now")
//	user, _ := m.GroupNamed("user")                  // "Amir.Ali"
//	out, err := re.Sub(`\g<host>: \1`, "a@b", 0)      // "b: a"
//
// A pattern is parsed as CPython's Lib/re/_parser.py parses it, so that every
// syntax error has Python's text and position ("missing ), unterminated
// subpattern at position 0", "look-behind requires fixed-width pattern"), and
// the parse tree is then written out as an equivalent .NET pattern for
// regexp2 (github.com/dlclark/regexp2/v2), a backtracking engine: groups
// renumbered as plain capturing groups, named references turned into
// numbers, possessive quantifiers into atomic groups, \Z into \z, Python's \w
// and \s classes spelled out (pycompat/pystr's IsWordChar and IsSpaceChar),
// literals escaped. Only regexp2's matcher is used; its parser only ever sees
// that output. So look-around, back-references, atomic groups, conditionals,
// inline and scoped flags, verbose mode and \N{...} work as in Python, where
// Go's regexp (RE2) has none of them.
//
// Positions (Span, Error.Pos) are in code points, as Python counts them; the
// texts (Group, FindAll, Split, Sub) are Go strings.
//
// Differences from CPython: \b, \B and case-insensitive matching follow
// .NET's Unicode tables (Python's differ for a few characters, e.g. ſ
// matches s ignoring case in .NET); inside a set, \S, \W and \D are exact,
// \w and \s differ from .NET's only where spelled out. One search or match
// runs for at most MatchTimeout (2 s): a catastrophically backtracking
// pattern, which Python would run for ever, fails with ErrTimeout. Split
// gives "" for a group that took no part where Python gives None. Bytes
// patterns, pos/endpos arguments and Match.expand are not here.
//
// Compiled patterns are immutable and safe for concurrent use; Compile keeps
// the last 1024 as Python's re module keeps its cache.
package pyre
