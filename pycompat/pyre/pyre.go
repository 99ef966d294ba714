package pyre

import (
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/dlclark/regexp2/v2"
	"github.com/gymkit/gymkit/pycompat"
	"github.com/gymkit/gymkit/pycompat/pystr"
)

// Flag is one of the re module's flags; combine them with |.
type Flag int

// The re module's flags, with CPython's values.
const (
	IgnoreCase Flag = 2   // re.I
	Locale     Flag = 4   // re.L: refused for a str pattern, as Python refuses it
	Multiline  Flag = 8   // re.M
	DotAll     Flag = 16  // re.S
	Unicode    Flag = 32  // re.U: the default for a str pattern
	Verbose    Flag = 64  // re.X
	ASCII      Flag = 256 // re.A
)

// MatchTimeout bounds one search, match or step of an iteration: a pattern
// that backtracks longer (where Python would run for ever) fails with
// ErrTimeout.
const MatchTimeout = 2 * time.Second

// ErrTimeout is the error of a match that ran longer than MatchTimeout.
// Its text is what workplace_assistant answers in Python's place.
var ErrTimeout = errors.New("regular expression match timed out")

// Error is re.error (re.PatternError since Python 3.13): a pattern, or a
// replacement template, that Python refuses. Msg is the message, Pattern the
// pattern (or template) and Pos the position of the error in it, in code
// points, or -1 when Python gives none.
type Error struct {
	// Msg is e.msg, the message without its position.
	Msg string
	// Pattern is e.pattern: the pattern, or the replacement template.
	Pattern string
	// Pos is e.pos, in code points of Pattern; -1 for None.
	Pos int
}

func newError(msg string, pattern []rune, pos int) *Error {
	return &Error{Msg: msg, Pattern: string(pattern), Pos: pos}
}

// Error returns str(e): "msg at position 3", with " (line 2, column 1)"
// added when the pattern holds a new line.
func (e *Error) Error() string {
	if e.Pos < 0 {
		return e.Msg
	}
	msg := fmt.Sprintf("%s at position %d", e.Msg, e.Pos)
	if strings.Contains(e.Pattern, "\n") {
		line, col := e.LineCol()
		msg = fmt.Sprintf("%s (line %d, column %d)", msg, line, col)
	}
	return msg
}

// LineCol returns Python's e.lineno and e.colno: the 1-based line and column
// of Pos in Pattern (0, 0 without a position).
func (e *Error) LineCol() (line, col int) {
	if e.Pos < 0 {
		return 0, 0
	}
	line, col = 1, e.Pos+1
	i := 0
	for _, r := range e.Pattern {
		if i >= e.Pos {
			break
		}
		if r == '\n' {
			line++
			col = e.Pos - i
		}
		i++
	}
	return line, col
}

// Unwrap returns e as a *pycompat.Exception of class PatternError, so that
// pycompat.IsInstance(err, "PatternError") holds for an *Error.
func (e *Error) Unwrap() error { return &pycompat.Exception{Class: "PatternError", Msg: e.Error()} }

// Regexp is a compiled pattern, re.compile's result. It is immutable and
// safe for concurrent use.
type Regexp struct {
	pattern    string
	flags      Flag
	groups     int
	groupindex map[string]int
	net        string // the pattern in .NET syntax
	opts       []regexp2.CompileOption

	search *regexp2.Regexp
	anchor struct { // \G(?:net) and \G(?:net)\z, for Match and FullMatch, compiled on first use
		once        sync.Once
		match, full *regexp2.Regexp
		err         error
	}
}

var cache struct {
	sync.Mutex
	m map[cacheKey]cacheEntry
}

type cacheKey struct {
	pattern string
	flags   Flag
}

type cacheEntry struct {
	re  *Regexp
	err error
}

const cacheMax = 1024

// Compile is re.compile(pattern, flags). A pattern Python refuses gives
// Python's error: an *Error with its text and position (re.error: "missing
// ), unterminated subpattern at position 0", "look-behind requires
// fixed-width pattern"), ValueError("cannot use LOCALE flag with a str
// pattern"), OverflowError("the repetition number is too large"), as
// *pycompat.Exception. Like Python's re module, it keeps the last
// compiled patterns (up to 1024, dropped all at once when full), so calling
// it per request costs a map lookup; it is safe for concurrent use.
func Compile(pattern string, flags Flag) (*Regexp, error) {
	k := cacheKey{pattern, flags}
	cache.Lock()
	ent, ok := cache.m[k]
	cache.Unlock()
	if ok {
		return ent.re, ent.err
	}
	re, err := compile(pattern, flags)
	cache.Lock()
	if cache.m == nil || len(cache.m) >= cacheMax {
		cache.m = map[cacheKey]cacheEntry{}
	}
	cache.m[k] = cacheEntry{re, err}
	cache.Unlock()
	return re, err
}

// MustCompile is Compile for patterns written in the program: it panics
// on an error.
func MustCompile(pattern string, flags Flag) *Regexp {
	re, err := Compile(pattern, flags)
	if err != nil {
		panic("pyre: " + pattern + ": " + err.Error())
	}
	return re
}

func compile(pattern string, flags Flag) (*Regexp, error) {
	p, err := parsePython(pattern, int(flags))
	if err != nil {
		return nil, err
	}
	var opts []regexp2.CompileOption
	if p.flags&reIgnoreCase != 0 {
		opts = append(opts, regexp2.IgnoreCase)
	}
	if p.flags&reMultiline != 0 {
		opts = append(opts, regexp2.Multiline)
	}
	if p.flags&reDotAll != 0 {
		opts = append(opts, regexp2.Singleline)
	}
	r := &Regexp{pattern: pattern, flags: Flag(p.flags), groups: p.groups, groupindex: p.groupindex,
		net: emitPattern(p.tree, p.flags), opts: opts}
	if r.search, err = r.compileNet(r.net); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *Regexp) compileNet(net string) (*regexp2.Regexp, error) {
	re, err := regexp2.Compile(net, r.opts...)
	if err != nil {
		return nil, fmt.Errorf("pyre: internal error: Python pattern %q became %q, which regexp2 refuses: %w", r.pattern, net, err)
	}
	re.MatchTimeout = MatchTimeout
	return re, nil
}

// Pattern returns pattern.pattern, the source text.
func (r *Regexp) Pattern() string { return r.pattern }

// Flags returns pattern.flags: the flags given, those set inline in the
// pattern ((?i) at its start), and Unicode unless ASCII.
func (r *Regexp) Flags() Flag { return r.flags }

// Groups returns pattern.groups, the number of capturing groups.
func (r *Regexp) Groups() int { return r.groups }

// GroupIndex returns pattern.groupindex, the number of each named group, in
// a new map.
func (r *Regexp) GroupIndex() map[string]int {
	m := make(map[string]int, len(r.groupindex))
	for k, v := range r.groupindex {
		m[k] = v
	}
	return m
}

// String returns the pattern's source text.
func (r *Regexp) String() string { return r.pattern }

// Match is a successful match, Python's re.Match. Positions are in code
// points, as Python counts them (the text of a group is Group's). It is
// safe for concurrent reads.
type Match struct {
	re    *Regexp
	m     *regexp2.Match
	input string
}

func (r *Regexp) wrap(m *regexp2.Match, err error, s string) (*Match, error) {
	if err != nil {
		return nil, ErrTimeout
	}
	if m == nil {
		return nil, nil
	}
	return &Match{re: r, m: m, input: s}, nil
}

// Search is pattern.search(s): the first match anywhere in s, or nil (and
// a nil error) when there is none. The error is ErrTimeout.
func (r *Regexp) Search(s string) (*Match, error) {
	m, err := r.search.FindStringMatch(s)
	return r.wrap(m, err, s)
}

// MatchString reports whether pattern.search(s) finds a match, without
// building it. The error is ErrTimeout.
func (r *Regexp) MatchString(s string) (bool, error) {
	ok, err := r.search.MatchString(s)
	if err != nil {
		return false, ErrTimeout
	}
	return ok, nil
}

func (r *Regexp) anchored() error {
	a := &r.anchor
	a.once.Do(func() {
		if a.match, a.err = r.compileNet(`\G(?:` + r.net + `)`); a.err != nil {
			return
		}
		a.full, a.err = r.compileNet(`\G(?:` + r.net + `)\z`)
	})
	return a.err
}

// Match is pattern.match(s): a match that starts at the beginning of s, or
// nil.
func (r *Regexp) Match(s string) (*Match, error) {
	if err := r.anchored(); err != nil {
		return nil, err
	}
	m, err := r.anchor.match.FindStringMatch(s)
	return r.wrap(m, err, s)
}

// FullMatch is pattern.fullmatch(s): a match of the whole of s, or nil.
func (r *Regexp) FullMatch(s string) (*Match, error) {
	if err := r.anchored(); err != nil {
		return nil, err
	}
	m, err := r.anchor.full.FindStringMatch(s)
	return r.wrap(m, err, s)
}

// FindIter is pattern.finditer(s): every non-overlapping match, left to
// right, empty ones included (one between two characters at most, and
// after a non-empty match too, as Python 3.7 and later find them).
func (r *Regexp) FindIter(s string) ([]*Match, error) {
	var out []*Match
	m, err := r.search.FindStringMatch(s)
	for m != nil && err == nil {
		out = append(out, &Match{re: r, m: m, input: s})
		m, err = r.search.FindNextMatch(m)
	}
	if err != nil {
		return nil, ErrTimeout
	}
	return out, nil
}

// FindAll is pattern.findall(s), one []string per match: the whole match
// when the pattern has no group, the one group's text when it has one, the
// text of every group (Python's tuple) when it has more; a group that took
// no part in the match is "", as in Python.
func (r *Regexp) FindAll(s string) ([][]string, error) {
	ms, err := r.FindIter(s)
	if err != nil {
		return nil, err
	}
	out := make([][]string, len(ms))
	for i, m := range ms {
		if r.groups == 0 {
			out[i] = []string{m.text(0)}
			continue
		}
		out[i] = make([]string, r.groups)
		for g := range r.groups {
			out[i][g] = m.text(g + 1)
		}
	}
	return out, nil
}

// Split is pattern.split(s, maxsplit): s cut at every match (at most
// maxsplit times when maxsplit > 0), each cut followed by the text of the
// pattern's groups ("" for a group that took no part, where Python gives
// None); empty matches cut too.
func (r *Regexp) Split(s string, maxsplit int) ([]string, error) {
	ms, err := r.FindIter(s)
	if err != nil {
		return nil, err
	}
	if maxsplit > 0 && len(ms) > maxsplit {
		ms = ms[:maxsplit]
	}
	var out []string
	last := 0
	for _, m := range ms {
		start, end := m.byteSpan(0)
		out = append(out, s[last:start])
		for g := 1; g <= r.groups; g++ {
			out = append(out, m.text(g))
		}
		last = end
	}
	return append(out, s[last:]), nil
}

// Sub is pattern.sub(repl, s, count): s with every match (the first count
// when count > 0) replaced by the template repl, whose \1, \g<1>, \g<name>
// are the groups' texts ("" for a group that took no part) and \n, \t,
// \\, \x-less octal escapes are Python's. A template Python refuses is
// its error, an *Error (bad escape \q, invalid group reference 3, missing
// <) or IndexError("unknown group name 'x'"), even when nothing matches.
func (r *Regexp) Sub(repl, s string, count int) (string, error) {
	out, _, err := r.SubN(repl, s, count)
	return out, err
}

// SubN is pattern.subn(repl, s, count): Sub and the number of replacements.
func (r *Regexp) SubN(repl, s string, count int) (string, int, error) {
	t, err := r.parseTemplate(repl)
	if err != nil {
		return "", 0, err
	}
	return r.subFunc(s, count, t.expand)
}

// SubFunc is pattern.sub(f, s, count): every match (the first count when
// count > 0) replaced by f's text for it.
func (r *Regexp) SubFunc(s string, count int, f func(*Match) string) (string, error) {
	out, _, err := r.subFunc(s, count, f)
	return out, err
}

func (r *Regexp) subFunc(s string, count int, f func(*Match) string) (string, int, error) {
	ms, err := r.FindIter(s)
	if err != nil {
		return "", 0, err
	}
	if count > 0 && len(ms) > count {
		ms = ms[:count]
	}
	var b strings.Builder
	last := 0
	for _, m := range ms {
		start, end := m.byteSpan(0)
		b.WriteString(s[last:start])
		b.WriteString(f(m))
		last = end
	}
	b.WriteString(s[last:])
	return b.String(), len(ms), nil
}

// group returns group i of the match, nil when the pattern has no such
// group or it took no part in the match.
func (m *Match) group(i int) *regexp2.Group {
	if i < 0 || i > m.re.groups {
		return nil
	}
	g := m.m.GroupByNumber(i)
	if g == nil || len(g.Captures) == 0 {
		return nil
	}
	return g
}

func (m *Match) text(i int) string {
	if g := m.group(i); g != nil {
		return g.String()
	}
	return ""
}

// byteSpan is group i's span in bytes of the input (-1, -1 when it took no
// part).
func (m *Match) byteSpan(i int) (int, int) {
	g := m.group(i)
	if g == nil {
		return -1, -1
	}
	idx, n := g.ByteRange()
	return idx, idx + n
}

// Group returns m.group(i): the text of group i (0 is the whole match); ok
// is false when the group took no part in the match (Python's None) or the
// pattern has no such group (Python's IndexError).
func (m *Match) Group(i int) (text string, ok bool) {
	g := m.group(i)
	if g == nil {
		return "", false
	}
	return g.String(), true
}

// GroupNamed returns m.group(name): the text of the named group; ok is
// false as for Group.
func (m *Match) GroupNamed(name string) (text string, ok bool) {
	i, found := m.re.groupindex[name]
	if !found {
		return "", false
	}
	return m.Group(i)
}

// Groups returns m.groups(): the texts of groups 1 and up, "" for a group
// that took no part (Python's default None).
func (m *Match) Groups() []string {
	out := make([]string, m.re.groups)
	for i := range out {
		out[i] = m.text(i + 1)
	}
	return out
}

// Span returns m.span(i): the start and end of group i in code points of the
// input, or -1, -1 when it took no part (or does not exist).
func (m *Match) Span(i int) (start, end int) {
	g := m.group(i)
	if g == nil {
		return -1, -1
	}
	return g.RuneIndex, g.RuneIndex + g.RuneLength
}

// String returns the text of the whole match, m.group(0).
func (m *Match) String() string { return m.text(0) }

// template is a parsed replacement string: literal text and group
// references in turn (group < 0: literal).
type template struct {
	parts []templatePart
}

type templatePart struct {
	lit   string
	group int // -1 for a literal
}

func (t template) expand(m *Match) string {
	var b strings.Builder
	for _, p := range t.parts {
		if p.group < 0 {
			b.WriteString(p.lit)
		} else {
			b.WriteString(m.text(p.group))
		}
	}
	return b.String()
}

// templateEscapes are the escapes a template turns into characters
// (re._parser.ESCAPES).
var templateEscapes = map[string]string{`\a`: "\a", `\b`: "\b", `\f`: "\f", `\n`: "\n", `\r`: "\r", `\t`: "\t", `\v`: "\v", `\\`: `\`}

// parseTemplate is re._parser.parse_template (CPython 3.13).
func (r *Regexp) parseTemplate(repl string) (template, error) {
	var t template
	if !strings.Contains(repl, `\`) {
		t.parts = []templatePart{{lit: repl, group: -1}}
		return t, nil
	}
	s, err := newTokenizer([]rune(repl))
	if err != nil {
		return t, err
	}
	var lit strings.Builder
	addgroup := func(index int, pos int) error {
		if index > r.groups {
			return s.errorf(pos, "invalid group reference %d", index)
		}
		if lit.Len() > 0 {
			t.parts = append(t.parts, templatePart{lit: lit.String(), group: -1})
			lit.Reset()
		}
		t.parts = append(t.parts, templatePart{group: index})
		return nil
	}
	for {
		this, ok, err := s.get()
		if err != nil {
			return t, err
		}
		if !ok {
			break
		}
		if this[0] != '\\' {
			lit.WriteString(this)
			continue
		}
		c := []rune(this)[1]
		switch {
		case c == 'g':
			ok, err := s.match("<")
			if err != nil {
				return t, err
			}
			if !ok {
				return t, s.errorf(0, "missing <")
			}
			name, err := s.getuntil(">", "group name")
			if err != nil {
				return t, err
			}
			var index int
			if !isASCIIDecimal(name) {
				if err := s.checkgroupname(name, 1); err != nil {
					return t, err
				}
				i, found := r.groupindex[name]
				if !found {
					return t, pycompat.IndexError(fmt.Sprintf("unknown group name %s", pystr.Repr(name)))
				}
				index = i
			} else {
				n, _ := new(big.Int).SetString(name, 10)
				if !n.IsInt64() || n.Int64() >= maxGroups {
					return t, s.errorf(len([]rune(name))+1, "invalid group reference %s", n.String())
				}
				index = int(n.Int64())
			}
			if err := addgroup(index, len([]rune(name))+1); err != nil {
				return t, err
			}
		case c == '0':
			digits := this[1:]
			for range 2 {
				if !s.has || !isOctDigit([]rune(s.next)[0]) || len([]rune(s.next)) != 1 {
					break
				}
				d, _, err := s.get()
				if err != nil {
					return t, err
				}
				digits += d
			}
			v := 0
			for _, d := range digits {
				v = v*8 + int(d-'0')
			}
			lit.WriteRune(rune(v & 0xff))
		case isASCIIDigit(c):
			isOctal := false
			if s.has && len([]rune(s.next)) == 1 && isASCIIDigit([]rune(s.next)[0]) {
				d, _, err := s.get()
				if err != nil {
					return t, err
				}
				this += d
				if isOctDigit(c) && isOctDigit([]rune(this)[2]) && s.has && len([]rune(s.next)) == 1 && isOctDigit([]rune(s.next)[0]) {
					d, _, err := s.get()
					if err != nil {
						return t, err
					}
					this += d
					isOctal = true
					v := 0
					for _, d := range this[1:] {
						v = v*8 + int(d-'0')
					}
					if v > 0o377 {
						return t, s.errorf(len([]rune(this)), "octal escape value %s outside of range 0-0o377", this)
					}
					lit.WriteRune(rune(v))
				}
			}
			if !isOctal {
				index := 0
				for _, d := range this[1:] {
					index = index*10 + int(d-'0')
				}
				if err := addgroup(index, len([]rune(this))-1); err != nil {
					return t, err
				}
			}
		default:
			if e, ok := templateEscapes[this]; ok {
				lit.WriteString(e)
			} else if isASCIILetter(c) {
				return t, s.errorf(len([]rune(this)), "bad escape %s", this)
			} else {
				lit.WriteString(this)
			}
		}
	}
	if lit.Len() > 0 {
		t.parts = append(t.parts, templatePart{lit: lit.String(), group: -1})
	}
	return t, nil
}
