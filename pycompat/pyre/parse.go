package pyre

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/gymkit/gymkit/pycompat"
	"github.com/gymkit/gymkit/pycompat/pystr"
	"golang.org/x/text/unicode/runenames"
)

// This file is the parser of CPython 3.13's Lib/re/_parser.py (with the
// compiler's look-behind check) and the writer of the parse tree as a .NET
// pattern; pyre.go is the API.

// reFlags are Python's SRE flags, as the parser keeps them.
const (
	reIgnoreCase = int(IgnoreCase)
	reLocale     = int(Locale)
	reMultiline  = int(Multiline)
	reDotAll     = int(DotAll)
	reUnicode    = int(Unicode)
	reVerbose    = int(Verbose)
	reASCII      = int(ASCII)
)

var reFlagLetters = map[rune]int{
	'i': reIgnoreCase, 'L': reLocale, 'm': reMultiline, 's': reDotAll,
	'x': reVerbose, 'a': reASCII, 'u': reUnicode,
}

const (
	reTypeFlags = reASCII | reLocale | reUnicode
	maxRepeat   = 4294967295 // _sre.MAXREPEAT
	maxGroups   = 1073741823 // _sre.MAXGROUPS (64-bit)
	maxWidth    = int64(1) << 62
)

// --- parse tree ---

type reOp uint8

const (
	opLit reOp = iota
	opAny
	opIn
	opAt
	opGroup // capturing (group > 0) or flag-scoped / plain non-capturing
	opAtomic
	opAssert
	opFailure
	opGroupRef
	opGroupExists
	opRepeat
	opBranch
)

type atKind uint8

const (
	atBeginning atKind = iota
	atEnd
	atBeginningString
	atEndString
	atBoundary
	atNonBoundary
)

type catKind uint8

const (
	catDigit catKind = iota
	catNotDigit
	catSpace
	catNotSpace
	catWord
	catNotWord
)

// classItem is one member of a character set: a literal, a range or a
// category (\d, \W, ...).
type classItem struct {
	kind   byte // 'l' literal, 'r' range, 'c' category
	lo, hi rune
	cat    catKind
}

type reNode struct {
	op     reOp
	r      rune        // opLit
	negate bool        // opIn; opAssert (negative)
	items  []classItem // opIn
	at     atKind      // opAt
	group  int         // opGroup (0: non-capturing), opGroupRef, opGroupExists
	add    int         // opGroup flags turned on
	del    int         // opGroup flags turned off
	sub    []*reNode   // opGroup, opAtomic, opAssert, opRepeat, opGroupExists (yes)
	no     []*reNode   // opGroupExists
	hasNo  bool        // opGroupExists
	alts   [][]*reNode // opBranch
	min    int64       // opRepeat
	max    int64       // opRepeat (maxRepeat: unbounded)
	kind   byte        // opRepeat: 'g' greedy, 'l' lazy, 'p' possessive
	behind bool        // opAssert
}

// --- tokenizer (re._parser.Tokenizer) ---

type reTokenizer struct {
	s     []rune
	index int
	next  string // "" with !has: end of pattern
	has   bool
}

func newTokenizer(p []rune) (*reTokenizer, error) {
	t := &reTokenizer{s: p}
	return t, t.advance()
}

func (t *reTokenizer) advance() error {
	i := t.index
	if i >= len(t.s) {
		t.next, t.has = "", false
		return nil
	}
	c := string(t.s[i])
	if t.s[i] == '\\' {
		i++
		if i >= len(t.s) {
			return newError("bad escape (end of pattern)", t.s, len(t.s)-1)
		}
		c += string(t.s[i])
	}
	t.index = i + 1
	t.next, t.has = c, true
	return nil
}

func (t *reTokenizer) match(c string) (bool, error) {
	if t.has && t.next == c {
		return true, t.advance()
	}
	return false, nil
}

// get returns the current token and advances; ok is false at the end.
func (t *reTokenizer) get() (string, bool, error) {
	this, ok := t.next, t.has
	return this, ok, t.advance()
}

func (t *reTokenizer) tell() int { return t.index - len([]rune(t.next)) }

func (t *reTokenizer) seek(i int) error {
	t.index = i
	return t.advance()
}

func (t *reTokenizer) errorf(offset int, format string, args ...any) error {
	return newError(fmt.Sprintf(format, args...), t.s, t.tell()-offset)
}

// getwhile returns up to n tokens that are single characters in set.
func (t *reTokenizer) getwhile(n int, set func(rune) bool) (string, error) {
	var b strings.Builder
	for range n {
		if !t.has || len([]rune(t.next)) != 1 || !set([]rune(t.next)[0]) {
			break
		}
		b.WriteString(t.next)
		if err := t.advance(); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

// getuntil reads a name up to terminator.
func (t *reTokenizer) getuntil(terminator, name string) (string, error) {
	var b strings.Builder
	for {
		c, ok := t.next, t.has
		if err := t.advance(); err != nil {
			return "", err
		}
		if !ok {
			if b.Len() == 0 {
				return "", t.errorf(0, "missing %s", name)
			}
			return "", t.errorf(len([]rune(b.String())), "missing %s, unterminated name", terminator)
		}
		if c == terminator {
			if b.Len() == 0 {
				return "", t.errorf(1, "missing %s", name)
			}
			break
		}
		b.WriteString(c)
	}
	return b.String(), nil
}

func (t *reTokenizer) checkgroupname(name string, offset int) error {
	if !isIdentifier(name) {
		return t.errorf(len([]rune(name))+offset, "bad character in group name %s", pystr.Repr(name))
	}
	return nil
}

// isIdentifier approximates Python's str.isidentifier().
func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || unicode.IsLetter(r) || unicode.Is(unicode.Nl, r):
		case i > 0 && (unicode.IsDigit(r) || unicode.In(r, unicode.Mn, unicode.Mc, unicode.Pc)):
		default:
			return false
		}
	}
	return true
}

func isOctDigit(r rune) bool { return r >= '0' && r <= '7' }
func isASCIIDigit(r rune) bool {
	return r >= '0' && r <= '9'
}
func isHexDigit(r rune) bool {
	return isASCIIDigit(r) || (r >= 'a' && r <= 'f') || (r >= 'A' && r <= 'F')
}
func isASCIILetter(r rune) bool { return (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') }

// --- parser state (re._parser.State) ---

type reState struct {
	flags            int
	groupdict        map[string]int
	groupwidths      [][2]int64 // index 0 unused
	groupClosed      []bool
	lookbehindgroups int // -1: none
	grouprefpos      map[int]int
	grouprefOrder    []int
}

func (s *reState) groups() int { return len(s.groupwidths) }

func (s *reState) opengroup(name string, named bool) (int, error) {
	gid := s.groups()
	s.groupwidths = append(s.groupwidths, [2]int64{})
	s.groupClosed = append(s.groupClosed, false)
	if s.groups() > maxGroups {
		return 0, errors.New("too many groups")
	}
	if named {
		if ogid, ok := s.groupdict[name]; ok {
			return 0, fmt.Errorf("redefinition of group name %s as group %d; was group %d", pystr.Repr(name), gid, ogid)
		}
		s.groupdict[name] = gid
	}
	return gid, nil
}

func (s *reState) checkgroup(gid int) bool { return gid < s.groups() && s.groupClosed[gid] }

func (s *reState) checklookbehindgroup(gid int, t *reTokenizer) error {
	if s.lookbehindgroups >= 0 {
		if !s.checkgroup(gid) {
			return t.errorf(0, "cannot refer to an open group")
		}
		if gid >= s.lookbehindgroups {
			return t.errorf(0, "cannot refer to group defined in the same lookbehind subpattern")
		}
	}
	return nil
}

// --- parser ---

type reParser struct {
	t     *reTokenizer
	state *reState
}

// parsed is a pattern parsed by parsePython.
type parsed struct {
	tree       []*reNode
	flags      int            // the global flags, inline ones included (UNICODE unless ASCII)
	groups     int            // capturing groups (pattern.groups)
	groupindex map[string]int // named groups
}

// parsePython parses pattern as re.compile(pattern, flags) would.
func parsePython(pattern string, flags int) (parsed, error) {
	runes := []rune(pattern)
	t, err := newTokenizer(runes)
	if err != nil {
		return parsed{}, err
	}
	p := &reParser{t: t, state: &reState{
		flags: flags, groupdict: map[string]int{}, groupwidths: [][2]int64{{}},
		groupClosed: []bool{true}, lookbehindgroups: -1, grouprefpos: map[int]int{},
	}}
	tree, err := p.parseSub(flags&reVerbose != 0, 0)
	if err != nil {
		return parsed{}, err
	}
	// fix_flags for a str pattern.
	f := p.state.flags
	if f&reLocale != 0 {
		return parsed{}, pycompat.ValueError("cannot use LOCALE flag with a str pattern")
	}
	if f&reASCII != 0 && f&reUnicode != 0 {
		return parsed{}, pycompat.ValueError("ASCII and UNICODE flags are incompatible")
	}
	if t.has {
		return parsed{}, t.errorf(0, "unbalanced parenthesis")
	}
	for _, g := range p.state.grouprefOrder {
		if g >= p.state.groups() {
			return parsed{}, newError(fmt.Sprintf("invalid group reference %d", g), runes, p.state.grouprefpos[g])
		}
	}
	// The compiler's check: look-behind needs a fixed width.
	if err := p.checkLookbehind(tree); err != nil {
		return parsed{}, err
	}
	if f&reASCII == 0 {
		f |= reUnicode
	}
	return parsed{tree: tree, flags: f, groups: p.state.groups() - 1, groupindex: p.state.groupdict}, nil
}

func (p *reParser) parseSub(verbose bool, nested int) ([]*reNode, error) {
	var items [][]*reNode
	for {
		item, err := p.parse(verbose, nested+1, nested == 0 && len(items) == 0)
		if err != nil {
			return nil, err
		}
		items = append(items, item)
		ok, err := p.t.match("|")
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if nested == 0 {
			verbose = p.state.flags&reVerbose != 0
		}
	}
	if len(items) == 1 {
		return items[0], nil
	}
	return []*reNode{{op: opBranch, alts: items}}, nil
}

func (p *reParser) parse(verbose bool, nested int, first bool) ([]*reNode, error) {
	t := p.t
	var sub []*reNode
	for {
		if !t.has {
			break
		}
		this := t.next
		if this == "|" || this == ")" {
			break
		}
		if err := t.advance(); err != nil {
			return nil, err
		}
		thisR := []rune(this)
		if verbose {
			if len(thisR) == 1 && strings.ContainsRune(" \t\n\r\v\f", thisR[0]) {
				continue
			}
			if this == "#" {
				for {
					c, ok, err := t.get()
					if err != nil {
						return nil, err
					}
					if !ok || c == "\n" {
						break
					}
				}
				continue
			}
		}
		switch {
		case thisR[0] == '\\':
			n, err := p.escape(this)
			if err != nil {
				return nil, err
			}
			sub = append(sub, n)
		case !strings.Contains(".\\[{()*+?^$|", this):
			sub = append(sub, &reNode{op: opLit, r: thisR[0]})
		case this == "[":
			n, err := p.parseSet()
			if err != nil {
				return nil, err
			}
			sub = append(sub, n)
		case strings.Contains("*+?{", this):
			var err error
			if sub, err = p.parseRepeat(this, sub); err != nil {
				return nil, err
			}
		case this == ".":
			sub = append(sub, &reNode{op: opAny})
		case this == "(":
			n, skip, err := p.parseGroup(verbose, nested, first && len(sub) == 0, &verbose)
			if err != nil {
				return nil, err
			}
			if !skip {
				sub = append(sub, n)
			}
		case this == "^":
			sub = append(sub, &reNode{op: opAt, at: atBeginning})
		case this == "$":
			sub = append(sub, &reNode{op: opAt, at: atEnd})
		}
	}
	return sub, nil
}

// parseRepeat handles a repeat character after the items parsed so far.
func (p *reParser) parseRepeat(this string, sub []*reNode) ([]*reNode, error) {
	t := p.t
	here := t.tell()
	var lo, hi int64
	switch this {
	case "?":
		lo, hi = 0, 1
	case "*":
		lo, hi = 0, maxRepeat
	case "+":
		lo, hi = 1, maxRepeat
	case "{":
		if t.has && t.next == "}" {
			return append(sub, &reNode{op: opLit, r: '{'}), nil
		}
		lo, hi = 0, maxRepeat
		var los, his string
		for t.has && len(t.next) == 1 && isASCIIDigit(rune(t.next[0])) {
			los += t.next
			if err := t.advance(); err != nil {
				return nil, err
			}
		}
		comma, err := t.match(",")
		if err != nil {
			return nil, err
		}
		if comma {
			for t.has && len(t.next) == 1 && isASCIIDigit(rune(t.next[0])) {
				his += t.next
				if err := t.advance(); err != nil {
					return nil, err
				}
			}
		} else {
			his = los
		}
		closed, err := t.match("}")
		if err != nil {
			return nil, err
		}
		if !closed {
			if err := t.seek(here); err != nil {
				return nil, err
			}
			return append(sub, &reNode{op: opLit, r: '{'}), nil
		}
		if los != "" {
			n, err := strconv.ParseInt(los, 10, 64)
			if err != nil || n >= maxRepeat {
				return nil, pycompat.OverflowError("the repetition number is too large")
			}
			lo = n
		}
		if his != "" {
			n, err := strconv.ParseInt(his, 10, 64)
			if err != nil || n >= maxRepeat {
				return nil, pycompat.OverflowError("the repetition number is too large")
			}
			hi = n
			if hi < lo {
				return nil, t.errorf(t.tell()-here, "min repeat greater than max repeat")
			}
		}
	}
	thisLen := len([]rune(this))
	if len(sub) == 0 || sub[len(sub)-1].op == opAt {
		return nil, t.errorf(t.tell()-here+thisLen, "nothing to repeat")
	}
	if sub[len(sub)-1].op == opRepeat {
		return nil, t.errorf(t.tell()-here+thisLen, "multiple repeat")
	}
	item := sub[len(sub)-1]
	kind := byte('g')
	if ok, err := t.match("?"); err != nil {
		return nil, err
	} else if ok {
		kind = 'l'
	} else if ok, err := t.match("+"); err != nil {
		return nil, err
	} else if ok {
		kind = 'p'
	}
	sub[len(sub)-1] = &reNode{op: opRepeat, min: lo, max: hi, kind: kind, sub: []*reNode{item}}
	return sub, nil
}

func (p *reParser) parseSet() (*reNode, error) {
	t := p.t
	here := t.tell() - 1
	var set []classItem
	negate, err := t.match("^")
	if err != nil {
		return nil, err
	}
	for {
		this, ok, err := t.get()
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, t.errorf(t.tell()-here, "unterminated character set")
		}
		if this == "]" && len(set) > 0 {
			break
		}
		var code1 classItem
		if []rune(this)[0] == '\\' {
			if code1, err = p.classEscape(this); err != nil {
				return nil, err
			}
		} else {
			code1 = classItem{kind: 'l', lo: []rune(this)[0]}
		}
		dash, err := t.match("-")
		if err != nil {
			return nil, err
		}
		if !dash {
			set = append(set, code1)
			continue
		}
		that, ok, err := t.get()
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, t.errorf(t.tell()-here, "unterminated character set")
		}
		if that == "]" {
			set = append(set, code1, classItem{kind: 'l', lo: '-'})
			break
		}
		var code2 classItem
		if []rune(that)[0] == '\\' {
			if code2, err = p.classEscape(that); err != nil {
				return nil, err
			}
		} else {
			code2 = classItem{kind: 'l', lo: []rune(that)[0]}
		}
		off := len([]rune(this)) + 1 + len([]rune(that))
		if code1.kind != 'l' || code2.kind != 'l' || code2.lo < code1.lo {
			return nil, t.errorf(off, "bad character range %s-%s", this, that)
		}
		set = append(set, classItem{kind: 'r', lo: code1.lo, hi: code2.lo})
	}
	return &reNode{op: opIn, negate: negate, items: set}, nil
}

var categoryEscapes = map[string]catKind{
	`\d`: catDigit, `\D`: catNotDigit, `\s`: catSpace, `\S`: catNotSpace, `\w`: catWord, `\W`: catNotWord,
}

var literalEscapes = map[string]rune{
	`\a`: '\a', `\b`: '\b', `\f`: '\f', `\n`: '\n', `\r`: '\r', `\t`: '\t', `\v`: '\v', `\\`: '\\',
}

var atEscapes = map[string]atKind{
	`\A`: atBeginningString, `\b`: atBoundary, `\B`: atNonBoundary, `\Z`: atEndString,
}

// hexEscape reads the digits of \x, \u or \U (n of them exactly).
func (p *reParser) hexEscape(escape string, n int) (rune, error) {
	digits, err := p.t.getwhile(n, isHexDigit)
	if err != nil {
		return 0, err
	}
	escape += digits
	if len(digits) != n {
		return 0, p.t.errorf(len([]rune(escape)), "incomplete escape %s", escape)
	}
	v, _ := strconv.ParseUint(digits, 16, 32)
	if v > unicode.MaxRune {
		return 0, p.t.errorf(len([]rune(escape)), "bad escape %s", escape)
	}
	return rune(v), nil
}

func (p *reParser) namedEscape() (rune, error) {
	t := p.t
	ok, err := t.match("{")
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, t.errorf(0, "missing {")
	}
	name, err := t.getuntil("}", "character name")
	if err != nil {
		return 0, err
	}
	r, found := lookupRuneName(name)
	if !found {
		return 0, t.errorf(len([]rune(name))+len(`\N{}`), "undefined character name %s", pystr.Repr(name))
	}
	return r, nil
}

// classEscape is re._parser._class_escape.
func (p *reParser) classEscape(escape string) (classItem, error) {
	t := p.t
	if r, ok := literalEscapes[escape]; ok {
		return classItem{kind: 'l', lo: r}, nil
	}
	if c, ok := categoryEscapes[escape]; ok {
		return classItem{kind: 'c', cat: c}, nil
	}
	c := []rune(escape)[1]
	switch {
	case c == 'x':
		r, err := p.hexEscape(escape, 2)
		return classItem{kind: 'l', lo: r}, err
	case c == 'u':
		r, err := p.hexEscape(escape, 4)
		return classItem{kind: 'l', lo: r}, err
	case c == 'U':
		r, err := p.hexEscape(escape, 8)
		return classItem{kind: 'l', lo: r}, err
	case c == 'N':
		r, err := p.namedEscape()
		return classItem{kind: 'l', lo: r}, err
	case isOctDigit(c):
		more, err := t.getwhile(2, isOctDigit)
		if err != nil {
			return classItem{}, err
		}
		escape += more
		v, _ := strconv.ParseInt(string([]rune(escape)[1:]), 8, 32)
		if v > 0o377 {
			return classItem{}, t.errorf(len([]rune(escape)), "octal escape value %s outside of range 0-0o377", escape)
		}
		return classItem{kind: 'l', lo: rune(v)}, nil
	case isASCIIDigit(c):
		return classItem{}, t.errorf(len([]rune(escape)), "bad escape %s", escape)
	}
	if isASCIILetter(c) {
		return classItem{}, t.errorf(len([]rune(escape)), "bad escape %s", escape)
	}
	return classItem{kind: 'l', lo: c}, nil
}

// escape is re._parser._escape (an escape outside a set).
func (p *reParser) escape(escape string) (*reNode, error) {
	t := p.t
	if a, ok := atEscapes[escape]; ok {
		return &reNode{op: opAt, at: a}, nil
	}
	if c, ok := categoryEscapes[escape]; ok {
		return &reNode{op: opIn, items: []classItem{{kind: 'c', cat: c}}}, nil
	}
	if r, ok := literalEscapes[escape]; ok {
		return &reNode{op: opLit, r: r}, nil
	}
	c := []rune(escape)[1]
	lit := func(r rune, err error) (*reNode, error) {
		if err != nil {
			return nil, err
		}
		return &reNode{op: opLit, r: r}, nil
	}
	switch {
	case c == 'x':
		return lit(p.hexEscape(escape, 2))
	case c == 'u':
		return lit(p.hexEscape(escape, 4))
	case c == 'U':
		return lit(p.hexEscape(escape, 8))
	case c == 'N':
		return lit(p.namedEscape())
	case c == '0':
		more, err := t.getwhile(2, isOctDigit)
		if err != nil {
			return nil, err
		}
		v, _ := strconv.ParseInt("0"+more, 8, 32)
		return &reNode{op: opLit, r: rune(v)}, nil
	case isASCIIDigit(c):
		if t.has && len(t.next) == 1 && isASCIIDigit(rune(t.next[0])) {
			escape += t.next
			if err := t.advance(); err != nil {
				return nil, err
			}
			er := []rune(escape)
			if isOctDigit(er[1]) && isOctDigit(er[2]) && t.has && len(t.next) == 1 && isOctDigit(rune(t.next[0])) {
				escape += t.next
				if err := t.advance(); err != nil {
					return nil, err
				}
				v, _ := strconv.ParseInt(string([]rune(escape)[1:]), 8, 32)
				if v > 0o377 {
					return nil, t.errorf(len([]rune(escape)), "octal escape value %s outside of range 0-0o377", escape)
				}
				return &reNode{op: opLit, r: rune(v)}, nil
			}
		}
		group, _ := strconv.Atoi(string([]rune(escape)[1:]))
		if group < p.state.groups() {
			if !p.state.checkgroup(group) {
				return nil, t.errorf(len([]rune(escape)), "cannot refer to an open group")
			}
			if err := p.state.checklookbehindgroup(group, t); err != nil {
				return nil, err
			}
			return &reNode{op: opGroupRef, group: group}, nil
		}
		return nil, t.errorf(len([]rune(escape))-1, "invalid group reference %d", group)
	}
	if isASCIILetter(c) {
		return nil, t.errorf(len([]rune(escape)), "bad escape %s", escape)
	}
	return &reNode{op: opLit, r: c}, nil
}

// parseGroup parses what follows "(". skip reports a construct that adds
// nothing (a comment, global flags).
func (p *reParser) parseGroup(verbose bool, nested int, first bool, verboseOut *bool) (*reNode, bool, error) {
	t := p.t
	start := t.tell() - 1
	capture, atomic := true, false
	name, named := "", false
	addFlags, delFlags := 0, 0
	q, err := t.match("?")
	if err != nil {
		return nil, false, err
	}
	if q {
		char, ok, err := t.get()
		if err != nil {
			return nil, false, err
		}
		if !ok {
			return nil, false, t.errorf(0, "unexpected end of pattern")
		}
		switch {
		case char == "P":
			if ok, err := t.match("<"); err != nil {
				return nil, false, err
			} else if ok {
				if name, err = t.getuntil(">", "group name"); err != nil {
					return nil, false, err
				}
				if err := t.checkgroupname(name, 1); err != nil {
					return nil, false, err
				}
				named = true
			} else if ok, err := t.match("="); err != nil {
				return nil, false, err
			} else if ok {
				name, err := t.getuntil(")", "group name")
				if err != nil {
					return nil, false, err
				}
				if err := t.checkgroupname(name, 1); err != nil {
					return nil, false, err
				}
				gid, found := p.state.groupdict[name]
				if !found {
					return nil, false, t.errorf(len([]rune(name))+1, "unknown group name %s", pystr.Repr(name))
				}
				if !p.state.checkgroup(gid) {
					return nil, false, t.errorf(len([]rune(name))+1, "cannot refer to an open group")
				}
				if err := p.state.checklookbehindgroup(gid, t); err != nil {
					return nil, false, err
				}
				return &reNode{op: opGroupRef, group: gid}, false, nil
			} else {
				c, ok, err := t.get()
				if err != nil {
					return nil, false, err
				}
				if !ok {
					return nil, false, t.errorf(0, "unexpected end of pattern")
				}
				return nil, false, t.errorf(len([]rune(c))+2, "unknown extension ?P%s", c)
			}
		case char == ":":
			capture = false
		case char == "#":
			for {
				if !t.has {
					return nil, false, t.errorf(t.tell()-start, "missing ), unterminated comment")
				}
				c, _, err := t.get()
				if err != nil {
					return nil, false, err
				}
				if c == ")" {
					break
				}
			}
			return nil, true, nil
		case char == "=" || char == "!" || char == "<":
			behind := false
			saved := -2
			if char == "<" {
				c, ok, err := t.get()
				if err != nil {
					return nil, false, err
				}
				if !ok {
					return nil, false, t.errorf(0, "unexpected end of pattern")
				}
				if c != "=" && c != "!" {
					return nil, false, t.errorf(len([]rune(c))+2, "unknown extension ?<%s", c)
				}
				char = c
				behind = true
				saved = p.state.lookbehindgroups
				if saved < 0 {
					p.state.lookbehindgroups = p.state.groups()
				}
			}
			sub, err := p.parseSub(verbose, nested+1)
			if err != nil {
				return nil, false, err
			}
			if behind && saved < 0 {
				p.state.lookbehindgroups = -1
			}
			if ok, err := t.match(")"); err != nil {
				return nil, false, err
			} else if !ok {
				return nil, false, t.errorf(t.tell()-start, "missing ), unterminated subpattern")
			}
			if char == "=" {
				return &reNode{op: opAssert, behind: behind, sub: sub}, false, nil
			}
			if len(sub) > 0 {
				return &reNode{op: opAssert, behind: behind, negate: true, sub: sub}, false, nil
			}
			return &reNode{op: opFailure}, false, nil
		case char == "(":
			condname, err := t.getuntil(")", "group name")
			if err != nil {
				return nil, false, err
			}
			var condgroup int
			if isASCIIDecimal(condname) {
				trimmed := strings.TrimLeft(condname, "0")
				if trimmed == "" {
					return nil, false, t.errorf(len([]rune(condname))+1, "bad group number")
				}
				condgroup, err = strconv.Atoi(trimmed)
				if err != nil || condgroup >= maxGroups {
					return nil, false, t.errorf(len([]rune(condname))+1, "invalid group reference %s", trimmed)
				}
				if _, seen := p.state.grouprefpos[condgroup]; !seen {
					p.state.grouprefpos[condgroup] = t.tell() - len([]rune(condname)) - 1
					p.state.grouprefOrder = append(p.state.grouprefOrder, condgroup)
				}
			} else {
				if err := t.checkgroupname(condname, 1); err != nil {
					return nil, false, err
				}
				gid, found := p.state.groupdict[condname]
				if !found {
					return nil, false, t.errorf(len([]rune(condname))+1, "unknown group name %s", pystr.Repr(condname))
				}
				condgroup = gid
			}
			if err := p.state.checklookbehindgroup(condgroup, t); err != nil {
				return nil, false, err
			}
			yes, err := p.parse(verbose, nested+1, false)
			if err != nil {
				return nil, false, err
			}
			n := &reNode{op: opGroupExists, group: condgroup, sub: yes}
			if ok, err := t.match("|"); err != nil {
				return nil, false, err
			} else if ok {
				if n.no, err = p.parse(verbose, nested+1, false); err != nil {
					return nil, false, err
				}
				n.hasNo = true
				if t.has && t.next == "|" {
					return nil, false, t.errorf(0, "conditional backref with more than two branches")
				}
			}
			if ok, err := t.match(")"); err != nil {
				return nil, false, err
			} else if !ok {
				return nil, false, t.errorf(t.tell()-start, "missing ), unterminated subpattern")
			}
			return n, false, nil
		case char == ">":
			capture, atomic = false, true
		case reFlagLetters[[]rune(char)[0]] != 0 || char == "-":
			add, del, global, err := p.parseFlags(char)
			if err != nil {
				return nil, false, err
			}
			if global {
				if !first {
					return nil, false, t.errorf(t.tell()-start, "global flags not at the start of the expression")
				}
				*verboseOut = p.state.flags&reVerbose != 0
				return nil, true, nil
			}
			addFlags, delFlags = add, del
			capture = false
		default:
			return nil, false, t.errorf(len([]rune(char))+1, "unknown extension ?%s", char)
		}
	}
	group := 0
	if capture {
		g, err := p.state.opengroup(name, named)
		if err != nil {
			return nil, false, t.errorf(len([]rune(name))+1, "%s", err.Error())
		}
		group = g
	}
	subVerbose := (verbose || addFlags&reVerbose != 0) && delFlags&reVerbose == 0
	sub, err := p.parseSub(subVerbose, nested+1)
	if err != nil {
		return nil, false, err
	}
	if ok, err := t.match(")"); err != nil {
		return nil, false, err
	} else if !ok {
		return nil, false, t.errorf(t.tell()-start, "missing ), unterminated subpattern")
	}
	if group > 0 {
		p.state.groupwidths[group] = width(sub, p.state)
		p.state.groupClosed[group] = true
	}
	if atomic {
		return &reNode{op: opAtomic, sub: sub}, false, nil
	}
	return &reNode{op: opGroup, group: group, add: addFlags, del: delFlags, sub: sub}, false, nil
}

func isASCIIDecimal(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !isASCIIDigit(r) {
			return false
		}
	}
	return true
}

// parseFlags is re._parser._parse_flags; global reports "(?flags)".
func (p *reParser) parseFlags(char string) (add, del int, global bool, err error) {
	t := p.t
	if char != "-" {
		for {
			c := []rune(char)[0]
			flag := reFlagLetters[c]
			if c == 'L' {
				return 0, 0, false, t.errorf(0, "bad inline flags: cannot use 'L' flag with a str pattern")
			}
			add |= flag
			if flag&reTypeFlags != 0 && add&reTypeFlags != flag {
				return 0, 0, false, t.errorf(0, "bad inline flags: flags 'a', 'u' and 'L' are incompatible")
			}
			var ok bool
			if char, ok, err = t.get(); err != nil {
				return 0, 0, false, err
			}
			if !ok {
				return 0, 0, false, t.errorf(0, "missing -, : or )")
			}
			if char == ")" || char == "-" || char == ":" {
				break
			}
			if reFlagLetters[[]rune(char)[0]] == 0 || len([]rune(char)) != 1 {
				msg := "missing -, : or )"
				if pystr.IsAlpha(char) {
					msg = "unknown flag"
				}
				return 0, 0, false, t.errorf(len([]rune(char)), "%s", msg)
			}
		}
	}
	if char == ")" {
		p.state.flags |= add
		return 0, 0, true, nil
	}
	if char == "-" {
		var ok bool
		if char, ok, err = t.get(); err != nil {
			return 0, 0, false, err
		}
		if !ok {
			return 0, 0, false, t.errorf(0, "missing flag")
		}
		if reFlagLetters[[]rune(char)[0]] == 0 || len([]rune(char)) != 1 {
			msg := "missing flag"
			if pystr.IsAlpha(char) {
				msg = "unknown flag"
			}
			return 0, 0, false, t.errorf(len([]rune(char)), "%s", msg)
		}
		for {
			flag := reFlagLetters[[]rune(char)[0]]
			if flag&reTypeFlags != 0 {
				return 0, 0, false, t.errorf(0, "bad inline flags: cannot turn off flags 'a', 'u' and 'L'")
			}
			del |= flag
			if char, ok, err = t.get(); err != nil {
				return 0, 0, false, err
			}
			if !ok {
				return 0, 0, false, t.errorf(0, "missing :")
			}
			if char == ":" {
				break
			}
			if reFlagLetters[[]rune(char)[0]] == 0 || len([]rune(char)) != 1 {
				msg := "missing :"
				if pystr.IsAlpha(char) {
					msg = "unknown flag"
				}
				return 0, 0, false, t.errorf(len([]rune(char)), "%s", msg)
			}
		}
	}
	if add&del != 0 {
		return 0, 0, false, t.errorf(1, "bad inline flags: flag turned on and off")
	}
	return add, del, false, nil
}

// --- widths and the look-behind check ---

func addWidth(a, b int64) int64 {
	if a+b > maxWidth || a+b < 0 {
		return maxWidth
	}
	return a + b
}

func mulWidth(a, n int64) int64 {
	if a == 0 || n == 0 {
		return 0
	}
	if a > maxWidth/n {
		return maxWidth
	}
	return a * n
}

// width is SubPattern.getwidth.
func width(seq []*reNode, st *reState) [2]int64 {
	var lo, hi int64
	for _, n := range seq {
		var w [2]int64
		switch n.op {
		case opBranch:
			w[0] = maxWidth
			for _, a := range n.alts {
				aw := width(a, st)
				w[0] = min(w[0], aw[0])
				w[1] = max(w[1], aw[1])
			}
		case opAtomic, opGroup:
			w = width(n.sub, st)
		case opRepeat:
			iw := width(n.sub, st)
			w[0] = mulWidth(iw[0], n.min)
			if n.max == maxRepeat && iw[1] > 0 {
				w[1] = maxWidth
			} else {
				w[1] = mulWidth(iw[1], n.max)
			}
		case opLit, opAny, opIn:
			w = [2]int64{1, 1}
		case opGroupRef:
			w = st.groupwidths[n.group]
		case opGroupExists:
			w = width(n.sub, st)
			if n.hasNo {
				nw := width(n.no, st)
				w[0] = min(w[0], nw[0])
				w[1] = max(w[1], nw[1])
			} else {
				w[0] = 0
			}
		}
		lo, hi = addWidth(lo, w[0]), addWidth(hi, w[1])
	}
	return [2]int64{lo, hi}
}

func (p *reParser) checkLookbehind(seq []*reNode) error {
	for _, n := range seq {
		if n.op == opAssert && n.behind {
			w := width(n.sub, p.state)
			if w[0] != w[1] {
				return newError("look-behind requires fixed-width pattern", nil, -1)
			}
		}
		for _, s := range [][]*reNode{n.sub, n.no} {
			if err := p.checkLookbehind(s); err != nil {
				return err
			}
		}
		for _, a := range n.alts {
			if err := p.checkLookbehind(a); err != nil {
				return err
			}
		}
	}
	return nil
}

// --- \N{...} ---

var runeNames struct {
	once sync.Once
	m    map[string]rune
}

func lookupRuneName(name string) (rune, bool) {
	runeNames.once.Do(func() {
		runeNames.m = make(map[string]rune, 40000)
		for r := rune(0); r <= unicode.MaxRune; r++ {
			if r >= 0xd800 && r <= 0xdfff {
				continue
			}
			if n := runenames.Name(r); n != "" && !strings.HasPrefix(n, "<") {
				runeNames.m[n] = r
			}
		}
	})
	r, ok := runeNames.m[strings.ToUpper(name)]
	return r, ok
}

// --- emitting .NET syntax ---

type reEmitter struct {
	b strings.Builder
}

// emitPattern writes tree as a .NET pattern; flags are the global flags.
func emitPattern(tree []*reNode, flags int) string {
	e := &reEmitter{}
	e.seq(tree, flags)
	return e.b.String()
}

func (e *reEmitter) seq(seq []*reNode, flags int) {
	for _, n := range seq {
		e.node(n, flags)
	}
}

func (e *reEmitter) lit(r rune) {
	switch {
	case r == '_' || isASCIILetter(r) || isASCIIDigit(r):
		e.b.WriteRune(r)
	case r > 0xffff:
		e.b.WriteRune(r)
	default:
		fmt.Fprintf(&e.b, `\u%04X`, r)
	}
}

func (e *reEmitter) node(n *reNode, flags int) {
	switch n.op {
	case opLit:
		e.lit(n.r)
	case opAny:
		e.b.WriteByte('.')
	case opIn:
		e.set(n, flags)
	case opAt:
		ascii := flags&reASCII != 0
		switch n.at {
		case atBeginning:
			e.b.WriteByte('^')
		case atEnd:
			e.b.WriteByte('$')
		case atBeginningString:
			e.b.WriteString(`\A`)
		case atEndString:
			e.b.WriteString(`\z`)
		case atBoundary:
			if ascii {
				e.b.WriteString(`(?:(?<=[A-Za-z0-9_])(?![A-Za-z0-9_])|(?<![A-Za-z0-9_])(?=[A-Za-z0-9_]))`)
			} else {
				e.b.WriteString(`\b`)
			}
		case atNonBoundary:
			if ascii {
				e.b.WriteString(`(?:(?<=[A-Za-z0-9_])(?=[A-Za-z0-9_])|(?<![A-Za-z0-9_])(?![A-Za-z0-9_]))`)
			} else {
				e.b.WriteString(`\B`)
			}
		}
	case opGroup:
		inner := (flags | n.add) &^ n.del
		switch {
		case n.group > 0:
			e.b.WriteByte('(')
		case n.add == 0 && n.del == 0:
			e.b.WriteString("(?:")
		default:
			e.b.WriteString("(?")
			e.b.WriteString(netFlags(n.add))
			if d := netFlags(n.del); d != "" {
				e.b.WriteString("-" + d)
			}
			e.b.WriteByte(':')
		}
		e.seq(n.sub, inner)
		e.b.WriteByte(')')
	case opAtomic:
		e.b.WriteString("(?>")
		e.seq(n.sub, flags)
		e.b.WriteByte(')')
	case opAssert:
		switch {
		case n.behind && n.negate:
			e.b.WriteString("(?<!")
		case n.behind:
			e.b.WriteString("(?<=")
		case n.negate:
			e.b.WriteString("(?!")
		default:
			e.b.WriteString("(?=")
		}
		e.seq(n.sub, flags)
		e.b.WriteByte(')')
	case opFailure:
		e.b.WriteString("(?!)")
	case opGroupRef:
		fmt.Fprintf(&e.b, `\k<%d>`, n.group)
	case opGroupExists:
		fmt.Fprintf(&e.b, "(?(%d)", n.group)
		e.seq(n.sub, flags)
		if n.hasNo {
			e.b.WriteByte('|')
			e.seq(n.no, flags)
		}
		e.b.WriteByte(')')
	case opBranch:
		e.b.WriteString("(?:")
		for i, a := range n.alts {
			if i > 0 {
				e.b.WriteByte('|')
			}
			e.seq(a, flags)
		}
		e.b.WriteByte(')')
	case opRepeat:
		if n.kind == 'p' {
			e.b.WriteString("(?>")
		}
		e.b.WriteString("(?:")
		e.seq(n.sub, flags)
		e.b.WriteByte(')')
		const netMax = 1<<31 - 1
		lo, hi := n.min, n.max
		if lo > netMax {
			// Unreachable in practice: no input is that long.
			e.b.WriteString("{0}(?!)")
		} else {
			switch {
			case lo == 0 && hi == maxRepeat:
				e.b.WriteByte('*')
			case lo == 1 && hi == maxRepeat:
				e.b.WriteByte('+')
			case lo == 0 && hi == 1:
				e.b.WriteByte('?')
			case hi == maxRepeat || hi > netMax:
				fmt.Fprintf(&e.b, "{%d,}", lo)
			default:
				fmt.Fprintf(&e.b, "{%d,%d}", lo, hi)
			}
			if n.kind == 'l' {
				e.b.WriteByte('?')
			}
		}
		if n.kind == 'p' {
			e.b.WriteByte(')')
		}
	}
}

func netFlags(f int) string {
	s := ""
	if f&reIgnoreCase != 0 {
		s += "i"
	}
	if f&reMultiline != 0 {
		s += "m"
	}
	if f&reDotAll != 0 {
		s += "s"
	}
	return s
}

// catClass returns the members of a positive category, for use inside [].
func catClass(c catKind, ascii bool) string {
	switch c {
	case catDigit, catNotDigit:
		if ascii {
			return "0-9"
		}
		return `\d`
	case catSpace, catNotSpace:
		if ascii {
			return `\u0020\u0009-\u000D`
		}
		return `\s\u001C-\u001F`
	}
	if ascii {
		return "a-zA-Z0-9_"
	}
	return `\p{L}\p{N}_`
}

func negatedCat(c catKind) bool { return c == catNotDigit || c == catNotSpace || c == catNotWord }

func (e *reEmitter) classLit(b *strings.Builder, r rune) {
	switch {
	case r == '_' || isASCIILetter(r) || isASCIIDigit(r):
		b.WriteRune(r)
	case r > 0xffff:
		b.WriteRune(r)
	default:
		fmt.Fprintf(b, `\u%04X`, r)
	}
}

// set writes a character set. Python's negated categories inside a set
// (\D \S \W) have no one-class .NET spelling once \w and \s are Python's, so
// a set holding them is written as an alternation (or, negated, as
// look-aheads).
func (e *reEmitter) set(n *reNode, flags int) {
	ascii := flags&reASCII != 0
	var pos strings.Builder
	var negs []catKind
	for _, it := range n.items {
		switch it.kind {
		case 'l':
			e.classLit(&pos, it.lo)
		case 'r':
			e.classLit(&pos, it.lo)
			pos.WriteByte('-')
			e.classLit(&pos, it.hi)
		case 'c':
			if negatedCat(it.cat) {
				negs = append(negs, it.cat)
			} else {
				pos.WriteString(catClass(it.cat, ascii))
			}
		}
	}
	P := pos.String()
	if len(negs) == 0 {
		if n.negate {
			e.b.WriteString("[^" + P + "]")
		} else {
			e.b.WriteString("[" + P + "]")
		}
		return
	}
	if !n.negate {
		// c in P, or c outside some positive category.
		e.b.WriteString("(?:")
		first := true
		if P != "" {
			e.b.WriteString("[" + P + "]")
			first = false
		}
		for _, c := range negs {
			if !first {
				e.b.WriteByte('|')
			}
			first = false
			e.b.WriteString("[^" + catClass(c, ascii) + "]")
		}
		e.b.WriteByte(')')
		return
	}
	// c not in P, and c inside every positive category.
	e.b.WriteString("(?:")
	if P != "" {
		e.b.WriteString("(?![" + P + "])")
	}
	for i, c := range negs {
		if i < len(negs)-1 {
			e.b.WriteString("(?=[" + catClass(c, ascii) + "])")
		} else {
			e.b.WriteString("[" + catClass(c, ascii) + "]")
		}
	}
	e.b.WriteByte(')')
}
