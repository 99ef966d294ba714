package pyjson

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"unicode/utf8"
)

// MaxDepth is the deepest nesting of arrays and objects that Parse accepts:
// 1000 nested containers parse, 1001 give ErrTooDeep. CPython raises
// RecursionError instead, at a depth that depends on the interpreter's C stack
// budget (several thousand for a direct json.loads call on 3.13); FastAPI
// turns that into a 400, as the framework does with ErrTooDeep.
const MaxDepth = 1000

// MaxIntDigits is CPython's default int_max_str_digits: an integer literal
// with more digits (the sign not counted) makes json.loads raise ValueError,
// which FastAPI answers with a 400. Parse returns an error wrapping
// ErrIntTooLong for it. Float literals have no such limit.
const MaxIntDigits = 4300

// Errors returned by Parse that are not JSON syntax errors. Python raises a
// non-JSONDecodeError exception for each of them, which FastAPI turns into a
// 400 {"detail":"There was an error parsing the body"}: callers should treat
// every Parse error that is not a *SyntaxError that way.
var (
	// ErrInvalidUTF8 means the body bytes could not be decoded (Python's
	// UnicodeDecodeError): invalid UTF-8 (UTF-8-encoded surrogates, which
	// Python's "surrogatepass" accepts, are not invalid), or malformed
	// UTF-16/UTF-32 when json.detect_encoding picks those.
	ErrInvalidUTF8 = errors.New("pyjson: body is not valid UTF-8")
	// ErrTooDeep means arrays and objects are nested deeper than MaxDepth
	// (Python's RecursionError).
	ErrTooDeep = errors.New("pyjson: JSON nested too deeply")
	// ErrIntTooLong means an integer literal has more than MaxIntDigits
	// digits (Python's ValueError "Exceeds the limit (4300 digits) for
	// integer string conversion"). Parse wraps it with the digit count.
	ErrIntTooLong = errors.New("Exceeds the limit (4300 digits) for integer string conversion")
	// ErrTooManyElements means a body holds more JSON values than
	// Limits.MaxElements allows (see [LimitError]).
	ErrTooManyElements = errors.New("pyjson: too many JSON elements")
)

// Limits bound one parse (see [ParseLimited]). The zero value is [Parse]'s:
// MaxDepth levels, any number of elements.
type Limits struct {
	// MaxDepth is the deepest nesting of arrays and objects accepted: n
	// nested containers parse, n+1 give a *LimitError. 0, or a value above
	// the package's MaxDepth, means MaxDepth (whose excess then is a
	// *LimitError too, not ErrTooDeep).
	MaxDepth int
	// MaxElements is the most JSON values a document may hold: every
	// scalar, array and object counts one, the document itself included
	// (object keys do not count). It is checked while parsing, so the
	// memory a parse holds is bounded by it. 0 (or negative) means no limit.
	MaxElements int
}

// LimitKind names the limit of a [LimitError].
type LimitKind int

// The limits of [Limits].
const (
	// LimitDepth is Limits.MaxDepth.
	LimitDepth LimitKind = iota + 1
	// LimitElements is Limits.MaxElements.
	LimitElements
)

// LimitError is a [ParseLimited] failure for a document beyond its
// [Limits]: errors.Is matches it with ErrTooDeep (LimitDepth) or
// ErrTooManyElements (LimitElements).
type LimitError struct {
	// Kind is the limit exceeded.
	Kind LimitKind
	// Max is its value in force.
	Max int
}

// Error names the limit and its value.
func (e *LimitError) Error() string {
	if e.Kind == LimitDepth {
		return "pyjson: JSON nested deeper than " + strconv.Itoa(e.Max) + " levels"
	}
	return "pyjson: more than " + strconv.Itoa(e.Max) + " JSON elements"
}

// Unwrap returns ErrTooDeep or ErrTooManyElements.
func (e *LimitError) Unwrap() error {
	if e.Kind == LimitDepth {
		return ErrTooDeep
	}
	return ErrTooManyElements
}

// SyntaxError is CPython's json.JSONDecodeError for the same input.
//
// Msg is the exception's .msg, one of "Expecting value", "Expecting property
// name enclosed in double quotes", "Expecting ':' delimiter", "Expecting ','
// delimiter", "Unterminated string starting at", "Invalid control character
// at", "Invalid \\escape", "Invalid \\uXXXX escape", "Extra data", "Illegal
// trailing comma before end of object" and "Illegal trailing comma before end
// of array" (Python 3.13). Pos is .pos: an index in code points (not bytes)
// into the decoded text, which excludes a leading UTF-8 BOM. Line and Col are
// .lineno and .colno (1-based, in code points).
type SyntaxError struct {
	Msg  string
	Pos  int
	Line int
	Col  int
}

// Error returns str() of the Python exception, e.g.
// "Expecting value: line 1 column 1 (char 0)".
func (e *SyntaxError) Error() string {
	return e.Msg + ": line " + strconv.Itoa(e.Line) + " column " + strconv.Itoa(e.Col) +
		" (char " + strconv.Itoa(e.Pos) + ")"
}

// CPython's messages.
const (
	msgExpectingValue  = "Expecting value"
	msgExpectingName   = "Expecting property name enclosed in double quotes"
	msgExpectingColon  = "Expecting ':' delimiter"
	msgExpectingComma  = "Expecting ',' delimiter"
	msgUnterminated    = "Unterminated string starting at"
	msgControl         = "Invalid control character at"
	msgBadEscape       = "Invalid \\escape"
	msgBadUnicode      = "Invalid \\uXXXX escape"
	msgExtraData       = "Extra data"
	msgTrailingCommaOb = "Illegal trailing comma before end of object"
	msgTrailingCommaAr = "Illegal trailing comma before end of array"
)

// Parse parses a request body as CPython 3.13's json.loads(bytes) does
// (Starlette's request.json()).
//
// The bytes are decoded first, as json.detect_encoding picks: a UTF-8 BOM is
// skipped, UTF-16 and UTF-32 (with a BOM, or guessed from NUL bytes among the
// first four) are decoded, anything else is UTF-8; an undecodable input gives
// ErrInvalidUTF8 whatever its syntax. The grammar is CPython's: NaN,
// Infinity and -Infinity literals are numbers, integers of any size (up to
// MaxIntDigits digits, else ErrIntTooLong) and float literals such as 1e400
// keep their literal text in Value.Str, duplicate keys keep the first
// position and the last value, whitespace is " \t\n\r" only. Nesting deeper
// than MaxDepth gives ErrTooDeep. Any other failure is a *SyntaxError with
// CPython's message and character position.
//
// Strings are valid UTF-8 Go strings: a lone surrogate, which Python keeps
// in its str ("\ud800" escapes, or surrogates that "surrogatepass" let
// through), becomes U+FFFD; an escaped surrogate pair becomes its astral code
// point. Unescaped strings and number literals share one copy of the input,
// so keeping any part of the result keeps that copy alive.
//
// Parse never panics and does not recurse deeper than MaxDepth.
func Parse(data []byte) (Value, error) {
	text, sur, err := decodeText(data)
	if err != nil {
		return Value{}, err
	}
	p := getParser(text, sur, false)
	v, err := p.document()
	putParser(p)
	return v, err
}

// ParseLimited is [Parse] within lim: a document nested deeper than
// lim.MaxDepth, or holding more than lim.MaxElements values, gives a
// *LimitError as soon as the parse reaches the excess (the first limit met
// in reading order wins, and so does a syntax error before it), so the
// values a parse builds are never more than lim.MaxElements.
func ParseLimited(data []byte, lim Limits) (Value, error) {
	text, sur, err := decodeText(data)
	if err != nil {
		return Value{}, err
	}
	p := getParser(text, sur, false)
	p.limit(lim)
	v, err := p.document()
	putParser(p)
	return v, err
}

// Valid reports whether Parse would accept data, without building the value.
func Valid(data []byte) bool { return Check(data, Limits{}) == nil }

// Check returns the error [ParseLimited] would return for data and lim,
// without building the value (no allocation but the decoding of UTF-16 and
// UTF-32 texts).
func Check(data []byte, lim Limits) error {
	text, sur, err := decodeText(data)
	if err != nil {
		return err
	}
	p := getParser(text, sur, true)
	if lim != (Limits{}) {
		p.limit(lim)
	}
	_, err = p.document()
	putParser(p)
	return err
}

// CheckKind is [Check] that also returns the Kind of the document's value
// (meaningful only without an error).
func CheckKind(data []byte, lim Limits) (Kind, error) {
	text, sur, err := decodeText(data)
	if err != nil {
		return Null, err
	}
	p := getParser(text, sur, true)
	if lim != (Limits{}) {
		p.limit(lim)
	}
	_, err = p.document()
	k := Null
	if i := p.ws(0); err == nil && i < len(text) {
		switch text[i] {
		case '{':
			k = Object
		case '[':
			k = Array
		case '"':
			k = String
		case 't', 'f':
			k = Bool
		case 'n':
			k = Null
		default:
			k = Number
		}
	}
	putParser(p)
	return k, err
}

// parser holds one parse. Only the scratch stacks survive a parse (pooled).
type parser struct {
	data []byte // decoded text, UTF-8 (WTF-8 when sur)
	s    string // string(data): unescaped strings and literals are substrings
	sur  bool   // data holds UTF-8-encoded surrogates (ED A0..BF xx)
	only bool   // validate only: build nothing
	// copyStr: s is not built; strings and literals are copied out of
	// data one by one (a Reader).
	copyStr bool
	// lazy: containers below the root are kept as lazy spans (lazy.go).
	lazy bool

	depth    int
	maxDepth int  // MaxDepth unless limited
	limited  bool // exceeding maxDepth is a *LimitError
	elems    int  // values begun so far
	maxElems int  // 0: no limit
	err      error

	vals []Value  // scratch stack of array items being collected
	mems []Member // scratch stack of object members being collected
	buf  []byte   // scratch for unescaping
	keys []string // scratch stack of the keys of objects being written (lazy.go)

	valSlab  []Value // carved into exact-size Items slices
	memSlab  []Member
	valChunk int
	memChunk int
	valHigh  int // high-water marks of vals and mems, cleared after use
	memHigh  int
}

// maxChunk caps the slab chunks (in elements): bigger containers get an
// exact allocation of their own.
const maxChunk = 256

var parserPool = sync.Pool{New: func() any { return new(parser) }}

func getParser(text []byte, sur, only bool) *parser {
	p := parserPool.Get().(*parser)
	p.data = text
	p.sur = sur
	p.only = only
	p.maxDepth = MaxDepth
	if !only {
		p.s = string(text)
	}
	p.valChunk = min(max(len(text)/128, 8), maxChunk)
	p.memChunk = min(max(len(text)/32, 8), maxChunk)
	return p
}

func putParser(p *parser) {
	p.data, p.s, p.err, p.depth = nil, "", nil, 0
	p.limited, p.elems, p.maxElems = false, 0, 0
	p.lazy = false
	clear(p.keys[:cap(p.keys)])
	if cap(p.keys) > 1<<10 {
		p.keys = nil
	}
	p.keys = p.keys[:0]
	p.valSlab, p.memSlab = nil, nil
	// Drop references the scratch stacks still hold.
	clear(p.vals[:p.valHigh])
	clear(p.mems[:p.memHigh])
	p.valHigh, p.memHigh = 0, 0
	if cap(p.vals) > 1<<14 {
		p.vals = nil
	}
	if cap(p.mems) > 1<<14 {
		p.mems = nil
	}
	if cap(p.buf) > 1<<16 {
		p.buf = nil
	}
	p.vals, p.mems, p.buf = p.vals[:0], p.mems[:0], p.buf[:0]
	parserPool.Put(p)
}

// limit puts the parse under lim.
func (p *parser) limit(lim Limits) {
	p.limited = true
	if lim.MaxDepth > 0 && lim.MaxDepth < MaxDepth {
		p.maxDepth = lim.MaxDepth
	}
	p.maxElems = max(lim.MaxElements, 0)
}

// tooDeep records the error of a container nested deeper than maxDepth.
func (p *parser) tooDeep() (Value, int) {
	if p.limited {
		p.err = &LimitError{Kind: LimitDepth, Max: p.maxDepth}
	} else {
		p.err = ErrTooDeep
	}
	return Value{}, -1
}

// document is json.JSONDecoder.decode: skip whitespace, one value, skip
// whitespace, then the end.
func (p *parser) document() (Value, error) {
	i := p.ws(0)
	v, i := p.value(i)
	if i < 0 {
		return Value{}, p.err
	}
	i = p.ws(i)
	if i != len(p.data) {
		return Value{}, p.syntax(msgExtraData, i)
	}
	return v, nil
}

// syntax records a SyntaxError at byte offset off and returns it.
func (p *parser) syntax(msg string, off int) error {
	pos, line, col := 0, 1, 1
	for _, c := range p.data[:off] {
		if c&0xC0 != 0x80 { // one code point starts here
			pos++
			col++
			if c == '\n' {
				line++
				col = 1
			}
		}
	}
	p.err = &SyntaxError{Msg: msg, Pos: pos, Line: line, Col: col}
	return p.err
}

func (p *parser) fail(msg string, off int) int {
	p.syntax(msg, off)
	return -1
}

func isWS(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (p *parser) ws(i int) int {
	for i < len(p.data) && isWS(p.data[i]) {
		i++
	}
	return i
}

// value is the C scanner's scan_once: it parses the value starting exactly at
// i and returns it with the offset after it, or a negative offset with p.err
// set.
func (p *parser) value(i int) (Value, int) {
	d := p.data
	n := len(d)
	if i >= n {
		return Value{}, p.fail(msgExpectingValue, i)
	}
	if p.elems++; p.maxElems > 0 && p.elems > p.maxElems {
		p.err = &LimitError{Kind: LimitElements, Max: p.maxElems}
		return Value{}, -1
	}
	switch d[i] {
	case '"':
		s, j := p.str(i)
		return Value{Kind: String, Str: s}, j
	case '{', '[':
		if p.lazy && !p.only && p.depth > 0 {
			return p.skipLazy(i)
		}
	}
	switch d[i] {
	case '{':
		return p.object(i)
	case '[':
		return p.array(i)
	case 'n':
		if i+3 < n && d[i+1] == 'u' && d[i+2] == 'l' && d[i+3] == 'l' {
			return Value{}, i + 4
		}
	case 't':
		if i+3 < n && d[i+1] == 'r' && d[i+2] == 'u' && d[i+3] == 'e' {
			return Value{Kind: Bool, Bool: true}, i + 4
		}
	case 'f':
		if i+4 < n && d[i+1] == 'a' && d[i+2] == 'l' && d[i+3] == 's' && d[i+4] == 'e' {
			return Value{Kind: Bool}, i + 5
		}
	case 'N':
		if i+2 < n && d[i+1] == 'a' && d[i+2] == 'N' {
			return Value{Kind: Number, Str: "NaN"}, i + 3
		}
	case 'I':
		if i+7 < n && string(d[i:i+8]) == "Infinity" {
			return Value{Kind: Number, Str: "Infinity"}, i + 8
		}
	case '-':
		if i+8 < n && string(d[i:i+9]) == "-Infinity" {
			return Value{Kind: Number, Str: "-Infinity"}, i + 9
		}
	}
	return p.number(i)
}

func isDigit(c byte) bool { return c-'0' < 10 }

// number is _match_number_unicode: -?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?
// matched greedily with backtracking of an incomplete fraction or exponent.
func (p *parser) number(start int) (Value, int) {
	d := p.data
	end := len(d) - 1
	i := start
	if d[i] == '-' {
		i++
		if i > end {
			return Value{}, p.fail(msgExpectingValue, start)
		}
	}
	switch c := d[i]; {
	case c >= '1' && c <= '9':
		i++
		for i <= end && isDigit(d[i]) {
			i++
		}
	case c == '0':
		i++
	default:
		return Value{}, p.fail(msgExpectingValue, start)
	}
	isFloat := false
	if i < end && d[i] == '.' && isDigit(d[i+1]) {
		isFloat = true
		i += 2
		for i <= end && isDigit(d[i]) {
			i++
		}
	}
	if i < end && (d[i] == 'e' || d[i] == 'E') {
		e := i
		i++
		if i < end && (d[i] == '-' || d[i] == '+') {
			i++
		}
		for i <= end && isDigit(d[i]) {
			i++
		}
		if isDigit(d[i-1]) {
			isFloat = true
		} else {
			i = e
		}
	}
	if !isFloat {
		digits := i - start
		if d[start] == '-' {
			digits--
		}
		if digits > MaxIntDigits {
			p.err = fmt.Errorf("%w: value has %d digits; use sys.set_int_max_str_digits() to increase the limit", ErrIntTooLong, digits)
			return Value{}, -1
		}
	}
	if p.only {
		return Value{}, i
	}
	if p.copyStr {
		return Value{Kind: Number, Str: string(d[start:i])}, i
	}
	return Value{Kind: Number, Str: p.s[start:i]}, i
}

// SWAR helpers: does any byte of w need attention inside a string ('"',
// '\\' or a control character)?
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

func strSpecial(w uint64) bool {
	q := w ^ (lsb * '"')
	b := w ^ (lsb * '\\')
	return ((q-lsb)&^q|(b-lsb)&^b|(w-lsb*0x20)&^w)&msb != 0
}

// str is scanstring_unicode with begin at the opening quote. It returns the
// decoded string and the offset after the closing quote.
func (p *parser) str(begin int) (string, int) {
	d := p.data
	n := len(d)
	i := begin + 1
	// Fast path: no escapes (and no surrogates to replace).
	if !p.sur {
		for i+8 <= n && !strSpecial(binary.LittleEndian.Uint64(d[i:])) {
			i += 8
		}
	}
	for i < n {
		c := d[i]
		if c == '"' {
			if p.only {
				return "", i + 1
			}
			if p.copyStr {
				return string(d[begin+1 : i]), i + 1
			}
			return p.s[begin+1 : i], i + 1
		}
		if c == '\\' || c < 0x20 || (p.sur && c == 0xED && d[i+1] >= 0xA0) {
			break
		}
		i++
	}
	return p.strSlow(begin, i)
}

// strSlow continues a string at i, where the fast path met an escape, a
// control character, a surrogate or the end.
func (p *parser) strSlow(begin, i int) (string, int) {
	d := p.data
	n := len(d)
	buf := p.buf[:0]
	if !p.only {
		buf = append(buf, d[begin+1:i]...)
	}
	for {
		// Find the end of the string or the next escape.
		chunk := i
		if !p.sur {
			for i+8 <= n && !strSpecial(binary.LittleEndian.Uint64(d[i:])) {
				i += 8
			}
		}
		for i < n {
			c := d[i]
			if c == '"' || c == '\\' {
				break
			}
			if c < 0x20 {
				p.buf = buf
				return "", p.fail(msgControl, i)
			}
			if p.sur && c == 0xED && d[i+1] >= 0xA0 {
				// A UTF-8-encoded surrogate (let through by
				// surrogatepass): one code point, U+FFFD in Go.
				if !p.only {
					buf = append(buf, d[chunk:i]...)
					buf = utf8.AppendRune(buf, utf8.RuneError)
				}
				i += 3
				chunk = i
				continue
			}
			i++
		}
		if i >= n {
			p.buf = buf
			return "", p.fail(msgUnterminated, begin)
		}
		if !p.only {
			buf = append(buf, d[chunk:i]...)
		}
		if d[i] == '"' {
			p.buf = buf
			if p.only {
				return "", i + 1
			}
			return string(buf), i + 1
		}
		// Backslash at i.
		i++
		if i == n {
			p.buf = buf
			return "", p.fail(msgUnterminated, begin)
		}
		c := d[i]
		if c != 'u' {
			var r byte
			switch c {
			case '"', '\\', '/':
				r = c
			case 'b':
				r = '\b'
			case 'f':
				r = '\f'
			case 'n':
				r = '\n'
			case 'r':
				r = '\r'
			case 't':
				r = '\t'
			default:
				p.buf = buf
				return "", p.fail(msgBadEscape, i-1)
			}
			buf = append(buf, r)
			i++
			continue
		}
		// \uXXXX: i is at 'u'.
		i++
		end := i + 4
		if end >= n {
			p.buf = buf
			return "", p.fail(msgBadUnicode, i-1)
		}
		r, ok := hex4(d[i:end])
		if !ok {
			p.buf = buf
			return "", p.fail(msgBadUnicode, end-5)
		}
		i = end
		if r >= 0xD800 && r < 0xDC00 && end+6 < n && d[end] == '\\' && d[end+1] == 'u' {
			r2, ok := hex4(d[end+2 : end+6])
			if !ok {
				p.buf = buf
				return "", p.fail(msgBadUnicode, end+1)
			}
			if r2 >= 0xDC00 && r2 < 0xE000 {
				r = 0x10000 + (r-0xD800)<<10 + (r2 - 0xDC00)
				i = end + 6
			}
		}
		if !p.only {
			// A lone surrogate is not representable: U+FFFD.
			buf = utf8.AppendRune(buf, r)
		}
	}
}

func hex4(b []byte) (rune, bool) {
	var r rune
	for _, c := range b {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return r, true
}

// object is _parse_object_unicode; start is at '{'.
func (p *parser) object(start int) (Value, int) {
	if p.depth++; p.depth > p.maxDepth {
		return p.tooDeep()
	}
	d := p.data
	n := len(d)
	base := len(p.mems)
	var index map[string]int // key -> member offset, for big objects
	i := p.ws(start + 1)
	if i >= n || d[i] != '}' {
		for {
			if i >= n || d[i] != '"' {
				return p.abortObject(base, msgExpectingName, i)
			}
			key, j := p.str(i)
			if j < 0 {
				p.memHigh = max(p.memHigh, len(p.mems))
				return Value{}, -1
			}
			i = p.ws(j)
			if i >= n || d[i] != ':' {
				return p.abortObject(base, msgExpectingColon, i)
			}
			i = p.ws(i + 1)
			val, j := p.value(i)
			if j < 0 {
				p.memHigh = max(p.memHigh, len(p.mems))
				return Value{}, -1
			}
			i = j
			if !p.only {
				p.addMember(base, &index, key, val)
			}
			i = p.ws(i)
			if i < n && d[i] == '}' {
				break
			}
			if i >= n || d[i] != ',' {
				return p.abortObject(base, msgExpectingComma, i)
			}
			comma := i
			i = p.ws(i + 1)
			if i < n && d[i] == '}' {
				return p.abortObject(base, msgTrailingCommaOb, comma)
			}
		}
	}
	p.depth--
	if p.only {
		return Value{}, i + 1
	}
	return Value{Kind: Object, Members: p.popMembers(base)}, i + 1
}

func (p *parser) abortObject(base int, msg string, off int) (Value, int) {
	p.memHigh = max(p.memHigh, len(p.mems))
	p.mems = p.mems[:base]
	return Value{}, p.fail(msg, off)
}

// addMember appends a member, or replaces the value of an earlier member
// with the same key (Python dict semantics).
func (p *parser) addMember(base int, index *map[string]int, key string, val Value) {
	cur := p.mems[base:]
	const linear = 16
	if *index == nil {
		for k := range cur {
			if cur[k].Key == key {
				cur[k].Value = val
				return
			}
		}
		if len(cur) >= linear {
			m := make(map[string]int, 2*len(cur))
			for k := range cur {
				m[cur[k].Key] = k
			}
			*index = m
			m[key] = len(cur)
		}
	} else {
		if k, ok := (*index)[key]; ok {
			cur[k].Value = val
			return
		}
		(*index)[key] = len(cur)
	}
	p.mems = append(p.mems, Member{Key: key, Value: val})
}

func (p *parser) popMembers(base int) []Member {
	k := len(p.mems) - base
	if k == 0 {
		return nil
	}
	var out []Member
	if k > maxChunk {
		out = make([]Member, k)
	} else {
		if len(p.memSlab)+k > cap(p.memSlab) {
			p.memSlab = make([]Member, 0, max(k, p.memChunk))
			p.memChunk = min(2*p.memChunk, maxChunk)
		}
		l := len(p.memSlab)
		out = p.memSlab[l : l+k : l+k]
		p.memSlab = p.memSlab[:l+k]
	}
	copy(out, p.mems[base:])
	p.memHigh = max(p.memHigh, len(p.mems))
	p.mems = p.mems[:base]
	return out
}

// array is _parse_array_unicode; start is at '['.
func (p *parser) array(start int) (Value, int) {
	if p.depth++; p.depth > p.maxDepth {
		return p.tooDeep()
	}
	d := p.data
	n := len(d)
	base := len(p.vals)
	i := p.ws(start + 1)
	if i >= n || d[i] != ']' {
		for {
			val, j := p.value(i)
			if j < 0 {
				p.valHigh = max(p.valHigh, len(p.vals))
				return Value{}, -1
			}
			if !p.only {
				p.vals = append(p.vals, val)
			}
			i = p.ws(j)
			if i < n && d[i] == ']' {
				break
			}
			if i >= n || d[i] != ',' {
				return p.abortArray(base, msgExpectingComma, i)
			}
			comma := i
			i = p.ws(i + 1)
			if i < n && d[i] == ']' {
				return p.abortArray(base, msgTrailingCommaAr, comma)
			}
			if !p.only && len(p.vals)-base == bigArray && p.depth <= bigArrayDepth {
				if items, end, ok := p.bigArray(base, i); ok {
					p.depth--
					return Value{Kind: Array, Items: items}, end
				} else if end < 0 {
					return Value{}, -1
				}
			}
		}
	}
	p.depth--
	if p.only {
		return Value{}, i + 1
	}
	return Value{Kind: Array, Items: p.popItems(base)}, i + 1
}

// A big array (more than bigArray items, nested at most bigArrayDepth
// deep) is counted before its items are parsed, so they go straight into
// one exact allocation rather than through the scratch stack (which would
// grow to the array's size and then be copied: about 3x its Items in
// all). Deeper ones keep the stack, so no byte is counted more than
// bigArrayDepth times.
const (
	bigArray      = 256
	bigArrayDepth = 4
)

// bigArray continues the array whose items from base on are on the
// scratch stack, at the start of its next item i: it counts the rest
// (validating only), then parses it into the exact Items. ok false with
// end >= 0: the count met an error, parse on as usual (which reports it);
// end < 0: a parse error, p.err set.
func (p *parser) bigArray(base, i int) (items []Value, end int, ok bool) {
	d := p.data
	n := len(d)
	// Count, with the element limit off (the parse below applies it).
	elems, maxElems, depth := p.elems, p.maxElems, p.depth
	p.only, p.maxElems = true, 0
	rest := 0
	j := i
	for {
		_, k := p.value(j)
		if k < 0 {
			break
		}
		rest++
		j = p.ws(k)
		if j < n && d[j] == ']' {
			break
		}
		if j >= n || d[j] != ',' {
			k = -1
			break
		}
		j = p.ws(j + 1)
	}
	p.only, p.maxElems, p.elems, p.depth = false, maxElems, elems, depth
	if p.err != nil || j >= n || d[j] != ']' || (p.maxElems > 0 && p.elems+rest > p.maxElems) {
		// An error ahead, or more items than the element limit allows:
		// the usual parse reports it, having built no more than the
		// limit.
		p.err = nil
		return nil, 0, false
	}
	have := len(p.vals) - base
	items = make([]Value, have+rest)
	copy(items, p.vals[base:])
	p.valHigh = max(p.valHigh, len(p.vals))
	clear(p.vals[base:])
	p.vals = p.vals[:base]
	for k := have; k < len(items); k++ {
		v, e := p.value(i)
		if e < 0 {
			return nil, -1, false
		}
		items[k] = v
		i = p.ws(e)
		if k+1 < len(items) {
			i = p.ws(i + 1) // the ',' the count saw
		}
	}
	return items, i + 1, true // i is at the ']' the count saw
}

func (p *parser) abortArray(base int, msg string, off int) (Value, int) {
	p.valHigh = max(p.valHigh, len(p.vals))
	p.vals = p.vals[:base]
	return Value{}, p.fail(msg, off)
}

func (p *parser) popItems(base int) []Value {
	k := len(p.vals) - base
	if k == 0 {
		return nil
	}
	var out []Value
	if k > maxChunk {
		out = make([]Value, k)
	} else {
		if len(p.valSlab)+k > cap(p.valSlab) {
			p.valSlab = make([]Value, 0, max(k, p.valChunk))
			p.valChunk = min(2*p.valChunk, maxChunk)
		}
		l := len(p.valSlab)
		out = p.valSlab[l : l+k : l+k]
		p.valSlab = p.valSlab[:l+k]
	}
	copy(out, p.vals[base:])
	p.valHigh = max(p.valHigh, len(p.vals))
	p.vals = p.vals[:base]
	return out
}
