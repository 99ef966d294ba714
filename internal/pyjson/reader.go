package pyjson

// Reader reads one JSON document piece by piece, with [ParseLimited]'s
// grammar, limits and reading order, without building a tree: a typed
// decoder walks the containers it expects and takes scalars (or whole
// subtrees, as Values) where it needs them. It is what lets a request body
// be decoded straight into a Go value.
//
//	r, err := pyjson.NewReader(body, lim)
//	if err != nil { ... }               // the bytes could not be decoded
//	defer r.Release()
//	if r.BeginObject() {
//		for first := true; ; first = false {
//			key, done := r.NextKey(first)
//			if done || r.Failed() { break }
//			v, _ := r.Value()           // or Scalar, Number, BeginArray ...
//		}
//	}
//	ok := r.End() && !r.Failed()
//
// A Reader stops at the first problem: every later call fails too, and
// Failed reports it. It does not say which problem (a syntax error, a limit,
// a value of an unexpected kind the caller refused): a caller that needs
// Parse's exact error parses the document again with ParseLimited. When a
// Reader ends without failure, ParseLimited accepts the same document.
//
// Values the Reader returns do not share memory with the input (but see
// NewLazyReader). A Reader is not safe for concurrent use; Release returns
// it to a pool.
type Reader struct {
	p      *parser
	i      int
	failed bool
	// span: the Reader reads a lazy container's text (NewLazyReader), and
	// its strings and subtrees are substrings of it.
	span bool
}

// NewReader starts reading data within lim. The error is ParseLimited's for
// bytes that cannot be decoded (ErrInvalidUTF8); syntax and limit errors are
// only noticed while reading (Failed).
func NewReader(data []byte, lim Limits) (*Reader, error) {
	text, sur, err := decodeText(data)
	if err != nil {
		return nil, err
	}
	p := getParser(text, sur, true)
	p.limit(lim)
	p.copyStr = true
	r := &Reader{p: p}
	r.i = p.ws(0)
	return r, nil
}

// NewLazyReader starts reading the lazy container v (see IsLazy) from its
// text, which ParseLazy checked (syntax and Limits, counted over the whole
// document) when it made v: the Reader applies no limit of its own (its
// depth is counted from v, so Parse's MaxDepth cannot be reached either),
// so nothing is counted twice. ok is false when v is not lazy. Unlike
// NewReader's, the strings, literals and subtrees it returns are
// substrings of v's text (sharing its memory, as Materialize's do). The
// Reader still fails on text that does not parse, which only a hand-built
// Value can hold.
func NewLazyReader(v *Value) (r *Reader, ok bool) {
	if !IsLazy(v) {
		return nil, false
	}
	p := stringParser(v.Str, false)
	p.only = true // the Reader validates; Scalar and Value build
	r = &Reader{p: p, span: true}
	r.i = p.ws(0)
	return r, true
}

// Release returns the Reader's parser to the pool; the Reader must not be
// used afterwards.
func (r *Reader) Release() {
	if r.p != nil {
		r.p.copyStr = false
		putParser(r.p)
		r.p = nil
	}
}

// Failed reports that the Reader met a problem (or was told to stop with
// Fail); the document must then be parsed with ParseLimited for its error.
func (r *Reader) Failed() bool { return r.failed }

// Fail stops the Reader: the caller refuses what it read.
func (r *Reader) Fail() { r.failed = true }

// Peek returns the first byte of the next value ('{', '[', '"', 'n', 't',
// 'f', a digit, '-', 'N', 'I'), or 0 at the end of the text or after a
// failure.
func (r *Reader) Peek() byte {
	if r.failed || r.i >= len(r.p.data) {
		return 0
	}
	return r.p.data[r.i]
}

// begin counts one value begun, as the parser does, and fails past the
// element limit.
func (r *Reader) begin() bool {
	p := r.p
	if p.elems++; p.maxElems > 0 && p.elems > p.maxElems {
		r.failed = true
		return false
	}
	return true
}

// BeginObject reads the '{' of an object; false (nothing read) when the
// next value is not an object.
func (r *Reader) BeginObject() bool { return r.beginContainer('{') }

// BeginArray reads the '[' of an array; false (nothing read) when the next
// value is not an array.
func (r *Reader) BeginArray() bool { return r.beginContainer('[') }

func (r *Reader) beginContainer(c byte) bool {
	if r.Peek() != c || !r.begin() {
		return false
	}
	p := r.p
	if p.depth++; p.depth > p.maxDepth {
		r.failed = true
		return false
	}
	r.i = p.ws(r.i + 1)
	return true
}

// NextKey reads the next key of the object begun with BeginObject (first:
// no member read yet) and the ':' after it, leaving the Reader at the
// member's value, which the caller must read next. done reports the end of
// the object (its '}' read). The key is valid until the next call; it holds
// the decoded text (escapes resolved).
func (r *Reader) NextKey(first bool) (key []byte, done bool) {
	if r.failed {
		return nil, true
	}
	p, d := r.p, r.p.data
	n := len(d)
	i := r.i
	if i < n && d[i] == '}' {
		p.depth--
		r.i = p.ws(i + 1)
		return nil, true
	}
	if !first {
		if i >= n || d[i] != ',' {
			r.failed = true
			return nil, true
		}
		i = p.ws(i + 1)
		if i < n && d[i] == '}' {
			r.failed = true // trailing comma
			return nil, true
		}
	}
	if i >= n || d[i] != '"' {
		r.failed = true
		return nil, true
	}
	// Fast path: no escape, control character or surrogate.
	j := i + 1
	for j < n {
		c := d[j]
		if c == '"' || c == '\\' || c < 0x20 || (p.sur && c == 0xED) {
			break
		}
		j++
	}
	if j < n && d[j] == '"' {
		key = d[i+1 : j]
		j++
	} else {
		p.only = false
		s, e := p.str(i)
		p.only = true
		if e < 0 {
			r.failed = true
			return nil, true
		}
		key, j = []byte(s), e
	}
	j = p.ws(j)
	if j >= n || d[j] != ':' {
		r.failed = true
		return nil, true
	}
	r.i = p.ws(j + 1)
	return key, false
}

// NextItem moves to the next item of the array begun with BeginArray
// (first: none read yet): more reports an item to read next; false is the
// end of the array (its ']' read) or a failure.
func (r *Reader) NextItem(first bool) (more bool) {
	if r.failed {
		return false
	}
	p, d := r.p, r.p.data
	n := len(d)
	i := r.i
	if i < n && d[i] == ']' {
		p.depth--
		r.i = p.ws(i + 1)
		return false
	}
	if !first {
		if i >= n || d[i] != ',' {
			r.failed = true
			return false
		}
		i = p.ws(i + 1)
		if i < n && d[i] == ']' {
			r.failed = true // trailing comma
			return false
		}
	}
	r.i = i
	return true
}

// Number reads a number (not NaN or an infinity) and returns its literal
// bytes, valid until the next call; ok is false, with nothing read, when the
// next value does not start like a number.
func (r *Reader) Number() (lit []byte, ok bool) {
	c := r.Peek()
	if c != '-' && (c < '0' || c > '9') {
		return nil, false
	}
	if c == '-' && r.i+1 < len(r.p.data) && r.p.data[r.i+1] == 'I' {
		return nil, false
	}
	if !r.begin() {
		return nil, false
	}
	_, j := r.p.number(r.i)
	if j < 0 {
		r.failed = true
		return nil, false
	}
	lit = r.p.data[r.i:j]
	r.i = r.p.ws(j)
	return lit, true
}

// Scalar reads a string, number, bool or null as a Value; ok is false, with
// nothing read, when the next value is an array or an object.
func (r *Reader) Scalar() (v Value, ok bool) {
	c := r.Peek()
	if c == 0 || c == '{' || c == '[' {
		return Value{}, false
	}
	p := r.p
	p.only = false
	v, j := p.value(r.i)
	p.only = true
	if j < 0 {
		r.failed = true
		return Value{}, false
	}
	r.i = p.ws(j)
	return v, true
}

// Value reads the next value, whatever it is, as Parse would build it.
func (r *Reader) Value() (Value, bool) {
	if c := r.Peek(); c != '{' && c != '[' {
		return r.Scalar()
	}
	start, end, ok := r.skipSpan()
	if !ok {
		return Value{}, false
	}
	var sub *parser
	if r.span {
		sub = stringParser(r.p.s[start:end], false)
	} else {
		sub = getParser(r.p.data[start:end], r.p.sur, false)
	}
	v, j := sub.value(0)
	putParser(sub)
	if j < 0 { // cannot happen: Skip accepted it
		r.failed = true
		return Value{}, false
	}
	return v, true
}

// LazyValue reads the next value as ParseLazy keeps a nested one: a
// container as a lazy Value over a copy of its text (checked as it is
// skipped: one string, however many values it holds), a scalar as Scalar
// does. In a text holding encoded surrogates it is Value (ParseLazy parses
// such text in full too).
func (r *Reader) LazyValue() (Value, bool) {
	if c := r.Peek(); (c != '{' && c != '[') || r.p.sur {
		return r.Value()
	}
	start, end, ok := r.skipSpan()
	if !ok {
		return Value{}, false
	}
	return lazyValue(string(r.p.data[start:end])), true
}

// skipSpan skips the next value and returns where its text starts and ends
// (trailing white space excluded).
func (r *Reader) skipSpan() (start, end int, ok bool) {
	start = r.i
	if !r.Skip() {
		return 0, 0, false
	}
	end = r.i
	for end > start && isWS(r.p.data[end-1]) {
		end--
	}
	return start, end, true
}

// Skip reads the next value without building it.
func (r *Reader) Skip() bool {
	if r.failed {
		return false
	}
	_, j := r.p.value(r.i)
	if j < 0 {
		r.failed = true
		return false
	}
	r.i = r.p.ws(j)
	return true
}

// End reports whether the whole text was read (only whitespace is left).
func (r *Reader) End() bool {
	if r.failed || r.i != len(r.p.data) {
		r.failed = true
		return false
	}
	return true
}

// CountItems returns a capacity hint for the array the Reader is at (just
// after BeginArray): the number of its top-level items, counted by a quick
// scan that does not validate (0 when unsure).
func (r *Reader) CountItems() int {
	d := r.p.data
	i := r.i
	if i >= len(d) || d[i] == ']' {
		return 0
	}
	n, depth := 1, 0
	for ; i < len(d); i++ {
		switch d[i] {
		case ',':
			if depth == 0 {
				n++
			}
		case '[', '{':
			depth++
		case ']', '}':
			if depth == 0 {
				return n
			}
			depth--
		case '"':
			for i++; i < len(d) && d[i] != '"'; i++ {
				if d[i] == '\\' {
					i++
				}
			}
		}
	}
	return 0
}
