package pyjson

import (
	"errors"
	"slices"
	"unsafe"
)

// Lazy trees: the compact generic form of a request body.
//
// ParseLazy parses only the top level of a document: the root array or
// object gets its Items or Members, but every container inside it stays a
// lazy Value, a span of the checked text that is parsed when (and as far as)
// it is needed. A lazy Value has the Kind of its container (Array or
// Object), Bool set, Str holding its JSON text, and no Items or Members; it
// costs one Value however large the subtree is.
//
// Lazy Values never leave gymkit: what an environment can see (a Value,
// Dict, Extra or any field, a CustomField's input, a dict body) is
// Materialize'd first; what it cannot see (a 422 item's input, a verify
// echo) is written by the encoders straight from the span, with exactly
// the output the parsed tree would give (same escaping, number forms,
// duplicate keys collapsed as Python's dict does), without building it.

// IsLazy reports whether v is a lazy container (see ParseLazy).
func IsLazy(v *Value) bool {
	return v.Bool && (v.Kind == Array || v.Kind == Object) && v.Items == nil && v.Members == nil && len(v.Str) >= 2
}

// lazyValue is the lazy form of the container spanning s.
func lazyValue(s string) Value {
	k := Array
	if s[0] == '{' {
		k = Object
	}
	return Value{Kind: k, Bool: true, Str: s}
}

// ParseLazy is ParseLimited giving a lazy tree: the document's root is
// parsed, its nested containers are kept as lazy spans (see IsLazy). The
// errors are ParseLimited's. A text that
// holds encoded surrogates (WTF-8 after Python's surrogatepass) is parsed
// in full instead. The spans share one copy of the (decoded) input. The
// skipped containers are checked (syntax and lim) as they are skipped, and
// cost no allocation.
func ParseLazy(data []byte, lim Limits) (Value, error) {
	text, sur, err := decodeText(data)
	if err != nil {
		return Value{}, err
	}
	p := getParser(text, sur, false)
	p.limit(lim)
	p.lazy = !sur
	v, err := p.document()
	putParser(p)
	return v, err
}

// ParseLazyView is ParseLazy without the copy of the text: the Values'
// strings and spans are views of data, which must stay unchanged while
// they are used (Materialize'd values are views too). A text that is not
// UTF-8 as it stands (UTF-16, UTF-32, a BOM, encoded surrogates) is
// parsed as ParseLazy does it.
func ParseLazyView(data []byte, lim Limits) (Value, error) {
	text, sur, err := decodeText(data)
	if err != nil {
		return Value{}, err
	}
	if sur || len(text) != len(data) || len(text) == 0 {
		return ParseLazy(data, lim)
	}
	p := stringParser(unsafe.String(unsafe.SliceData(text), len(text)), true)
	p.limit(lim)
	v, err := p.document()
	putParser(p)
	return v, err
}

// stringParser is a parser over the checked text s (a span of an earlier
// parse): data aliases s, which the parser never writes, and every string
// and literal it returns is a substring of s.
func stringParser(s string, lazy bool) *parser {
	p := parserPool.Get().(*parser)
	p.data = unsafe.Slice(unsafe.StringData(s), len(s))
	p.s = s
	p.sur, p.only = false, false
	p.maxDepth = MaxDepth
	p.lazy = lazy
	p.valChunk = min(max(len(s)/128, 8), maxChunk)
	p.memChunk = min(max(len(s)/32, 8), maxChunk)
	return p
}

// Expand parses one level of a lazy container: the result has its Items or
// Members, whose own containers are lazy. Any other Value is returned as is.
func Expand(v Value) Value {
	if !IsLazy(&v) {
		return v
	}
	p := stringParser(v.Str, true)
	x, j := p.value(0)
	putParser(p)
	if j < 0 {
		return Value{Kind: v.Kind} // cannot happen: the text was checked
	}
	return x
}

// Materialize returns v with every lazy container in it parsed in full, so
// that its Items and Members hold the whole tree, as Parse gives it. A
// Value with nothing lazy is returned as is (no copy).
func Materialize(v Value) Value {
	if IsLazy(&v) {
		p := stringParser(v.Str, false)
		x, j := p.value(0)
		putParser(p)
		if j < 0 {
			return Value{Kind: v.Kind}
		}
		return x
	}
	if !holdsLazy(&v) {
		return v
	}
	switch v.Kind {
	case Array:
		items := make([]Value, len(v.Items))
		for i := range v.Items {
			items[i] = Materialize(v.Items[i])
		}
		v.Items = items
	case Object:
		mems := make([]Member, len(v.Members))
		for i := range v.Members {
			mems[i] = Member{Key: v.Members[i].Key, Value: Materialize(v.Members[i].Value)}
		}
		v.Members = mems
	}
	return v
}

// holdsLazy reports whether v is or contains a lazy container.
func holdsLazy(v *Value) bool { return lazyWithin(v, -1) }

// MayHoldLazy reports whether v or one of its items or members is lazy:
// the shape of a tree from ParseLazy or Expand (which leave lazy values
// only there). It does not descend further.
func MayHoldLazy(v *Value) bool { return lazyWithin(v, 1) }

// lazyWithin reports whether v, or a value at most depth levels below it
// (any depth when negative), is lazy.
func lazyWithin(v *Value, depth int) bool {
	if IsLazy(v) {
		return true
	}
	if depth == 0 {
		return false
	}
	for i := range v.Items {
		if lazyWithin(&v.Items[i], depth-1) {
			return true
		}
	}
	for i := range v.Members {
		if lazyWithin(&v.Members[i].Value, depth-1) {
			return true
		}
	}
	return false
}

// Len returns the number of items of an array or members of an object
// (lazy or not; for a lazy object, keys are counted as written, duplicates
// included, so use it for arrays).
func Len(v *Value) int {
	if !IsLazy(v) {
		if v.Kind == Array {
			return len(v.Items)
		}
		return len(v.Members)
	}
	p := stringParser(v.Str, false)
	p.only = true
	n := 0
	p.items(func(*Value) bool { n++; return true })
	putParser(p)
	return n
}

// EachItem calls f with each item of the array v (lazy or not) in order,
// until f returns false. The items of a lazy array are parsed one at a time
// and their containers are lazy; *it is valid only during the call (copy
// the Value to keep it).
func EachItem(v *Value, f func(i int, it *Value) bool) {
	if !IsLazy(v) {
		for i := range v.Items {
			if !f(i, &v.Items[i]) {
				return
			}
		}
		return
	}
	p := stringParser(v.Str, true)
	i := 0
	p.items(func(it *Value) bool {
		ok := f(i, it)
		i++
		return ok
	})
	putParser(p)
}

// items walks the items of the array at the start of p.s (checked text),
// nested containers lazy when p.lazy.
func (p *parser) items(f func(*Value) bool) {
	d := p.data
	if len(d) < 2 || d[0] != '[' {
		return
	}
	p.depth = 1
	i := p.ws(1)
	if i < len(d) && d[i] == ']' {
		return
	}
	// One Value for the walk: f's pointer makes it escape, and declared
	// in the loop it would cost an allocation per item.
	var v Value
	for {
		var j int
		v, j = p.value(i)
		if j < 0 || !f(&v) {
			return
		}
		i = p.ws(j)
		if i >= len(d) || d[i] != ',' {
			return
		}
		i = p.ws(i + 1)
	}
}

// skipLazy returns the container at i as a lazy Value, checking it as it
// goes (value has counted it already).
func (p *parser) skipLazy(i int) (Value, int) {
	p.only = true
	p.elems--
	_, j := p.value(i)
	p.only = false
	if j < 0 {
		return Value{}, -1
	}
	return lazyValue(p.s[i:j]), j
}

// errLazyText is the encoders' error for a lazy span that does not parse
// (only a hand-built Value can hold one).
var errLazyText = errors.New("pyjson: invalid lazy JSON span")

// lazy writes the lazy container v from its text, streaming: tokens are
// written as they are read, as e.value would write the parsed tree.
func (e *encodeState) lazy(v *Value) error {
	if n := len(v.Str); n > 4<<10 {
		// The output is about the text's size (a little more with
		// spaced separators or escapes): one allocation rather than
		// append's 1.25x steps.
		e.buf = slices.Grow(e.buf, n+n/8)
	}
	p := stringParser(v.Str, false)
	j, err := p.emit(e, 0)
	if err == nil && j != len(v.Str) {
		err = errLazyText
	}
	putParser(p)
	return err
}

// emit writes the value at i to e and returns the offset after it.
func (p *parser) emit(e *encodeState, i int) (int, error) {
	d := p.data
	if i >= len(d) {
		return -1, errLazyText
	}
	switch d[i] {
	case '[':
		if err := e.open('['); err != nil {
			return -1, err
		}
		i = p.ws(i + 1)
		first := true
		if i < len(d) && d[i] == ']' {
			e.close(']', true)
			return i + 1, nil
		}
		for {
			e.sep(first)
			first = false
			j, err := p.emit(e, i)
			if err != nil {
				return -1, err
			}
			var done bool
			if i, done, err = p.after(e, j, ']'); done || err != nil {
				return i, err
			}
		}
	case '{':
		return p.emitObject(e, i)
	case '"':
		s, j := p.str(i)
		if j < 0 {
			return -1, errLazyText
		}
		e.buf = appendString(e.buf, s, e.opts.EnsureASCII)
		return j, nil
	}
	v, j := p.value(i) // a scalar: no allocation (literals are substrings)
	if j < 0 {
		return -1, errLazyText
	}
	return j, e.value(&v)
}

// emitObject writes the object at start. Members are written as they come;
// a duplicate key (which the parsed tree collapses: last value at the first
// position) makes it take back what it wrote of this object and write the
// object's parsed tree instead.
func (p *parser) emitObject(e *encodeState, start int) (int, error) {
	d := p.data
	mark, depth, level := len(e.buf), e.depth, e.level
	if err := e.open('{'); err != nil {
		return -1, err
	}
	base := len(p.keys)
	defer func() { p.keys = p.keys[:base] }()
	var index map[string]struct{}
	i := p.ws(start + 1)
	if i < len(d) && d[i] == '}' {
		e.close('}', true)
		return i + 1, nil
	}
	first := true
	for {
		if i >= len(d) || d[i] != '"' {
			return -1, errLazyText
		}
		key, j := p.str(i)
		if j < 0 {
			return -1, errLazyText
		}
		dup := false
		if index != nil {
			_, dup = index[key]
			index[key] = struct{}{}
		} else {
			for _, k := range p.keys[base:] {
				if k == key {
					dup = true
					break
				}
			}
			if !dup {
				p.keys = append(p.keys, key)
				if len(p.keys)-base > 16 {
					index = make(map[string]struct{}, 64)
					for _, k := range p.keys[base:] {
						index[k] = struct{}{}
					}
				}
			}
		}
		if dup {
			e.buf, e.depth, e.level = e.buf[:mark], depth, level
			v, end := p.value(start)
			if end < 0 {
				return -1, errLazyText
			}
			return end, e.value(&v)
		}
		e.sep(first)
		first = false
		e.key(key)
		i = p.ws(j)
		if i >= len(d) || d[i] != ':' {
			return -1, errLazyText
		}
		j, err := p.emit(e, p.ws(i+1))
		if err != nil {
			return -1, err
		}
		var done bool
		if i, done, err = p.after(e, j, '}'); done || err != nil {
			return i, err
		}
	}
}

// after reads what follows a container's item or member value ending at j:
// a ',' (the index of the next one, not done) or the closing delimiter
// (written; the index after it, done); anything else is errLazyText.
func (p *parser) after(e *encodeState, j int, closer byte) (int, bool, error) {
	d := p.data
	i := p.ws(j)
	if i < len(d) && d[i] == ',' {
		return p.ws(i + 1), false, nil
	}
	if i < len(d) && d[i] == closer {
		e.close(closer, false)
		return i + 1, true, nil
	}
	return -1, true, errLazyText
}
