package lax

import (
	"reflect"

	"github.com/gymkit/gymkit/internal/pyjson"
)

// Streaming lazy containers. When Decode, on a lazy tree (pyjson.ParseLazy),
// reaches a lazy container whose Go type is a struct, slice or map (or a
// pointer to one), it first decodes the container's text with the type's
// streaming decoder (a pyjson.Reader over the span, NewLazyReader): no
// Value is built for its items, which is what makes the lazy fallback about
// as fast as DecodeJSON. Only if that gives up (an item to report, a
// duplicate key, a null where the streaming decoder does not take one)
// is the container expanded and decoded as a tree, into the destination
// zeroed again, so the error items, their locs and inputs, and the value,
// are exactly the tree's: a streaming decoder only succeeds where the tree
// decoder would report nothing and build the same value (FuzzDecodeJSON),
// and what it keeps (any, pyjson.Value, Dict, Extra members) it reads with
// Reader.Value, in full, never lazy.
//
// Limits: the span was checked under the document's Limits when ParseLazy
// made it (its elements counted once, there), and the Reader over it
// applies none, so nothing is counted twice and no limit can be met in it.
//
// Time stays linear: a streaming attempt reads at most its span, and inside
// a container whose attempt gave up (decoded as a tree) the items are
// tried again, narrowing down to the failing one, but only up to
// maxStreamRetries nested give-ups: no byte is read by more than
// maxStreamRetries+1 attempts (besides the tree decode today's path does).

// maxStreamRetries is how many nested containers whose streaming attempt
// gave up a lazy container may be inside and still be tried: 3 narrows a
// verify body's bad output item down (response, then output, then the
// item) and bounds the text read again to 4x.
const maxStreamRetries = 3

// streamHook, when set (by a test, never while a Decode runs), is called
// after each streaming attempt on a lazy span with the span's length and
// whether the attempt succeeded.
var streamHook func(span int, ok bool)

// streamWorthy reports whether a lazy container of type t is worth a
// streaming attempt: a struct, slice or map (through pointers), whose
// streaming decoder reads it without a tree. The special types (any,
// pyjson.Value, Dict, json.RawMessage, custom fields) need the whole value
// anyway, and scalars (enums included) reject a container.
func streamWorthy(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if special(t) != specialNone {
		return false
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Slice, reflect.Map:
		return true
	}
	return false
}

// bcell is a streaming decoder that a tree decoder (a slice's or a map's)
// calls for its lazy elements, filled in once the plan's structs are all
// compiled (fillCells); nil when the element type is not streamWorthy.
type bcell struct {
	t reflect.Type
	b *bdecoder
}

// cell returns the streaming decoder cell of elements of type t, to be
// filled by fillCells (nil when t is not streamWorthy).
func (c *compiler) cell(t reflect.Type) *bdecoder {
	if !streamWorthy(t) {
		return nil
	}
	b := new(bdecoder)
	c.cells = append(c.cells, bcell{t: t, b: b})
	return b
}

// fillCells compiles the streaming decoders of the cells, after compile
// has built every struct plan the type reaches.
func (c *compiler) fillCells() {
	for len(c.cells) > 0 {
		cl := c.cells[len(c.cells)-1]
		c.cells = c.cells[:len(c.cells)-1]
		*cl.b = c.bcompile(cl.t)
	}
}

// decodeElem decodes v into dst with dec, trying the streaming decoder of
// cell first when v is a lazy container (see the top of this file).
func (s *state) decodeElem(dec decoder, cell *bdecoder, v *pyjson.Value, dst reflect.Value) {
	if cell == nil {
		dec(s, v, dst)
		return
	}
	s.decodeLazy(dec, *cell, v, dst)
}

// decodeLazy decodes v into dst with dec, trying bdec (nil: none) first
// when v is a lazy container and dst is zero.
func (s *state) decodeLazy(dec decoder, bdec bdecoder, v *pyjson.Value, dst reflect.Value) {
	if bdec == nil || !s.lazy || s.retries >= maxStreamRetries || !pyjson.IsLazy(v) || !dst.IsZero() {
		dec(s, v, dst)
		return
	}
	if s.streamSpan(bdec, v, dst) {
		return
	}
	dst.SetZero() // what the streaming decoder wrote (all fresh: dst was zero)
	s.retries++
	dec(s, v, dst)
	s.retries--
}

// streamSpan decodes the lazy container v into dst with bdec and reports
// whether it could (false: dst may be partly written).
func (s *state) streamSpan(bdec bdecoder, v *pyjson.Value, dst reflect.Value) bool {
	r, ok := pyjson.NewLazyReader(v)
	if !ok {
		return false
	}
	if s.b == nil {
		s.b = &bstate{}
	}
	b := s.b
	b.r = r
	b.st.mode = s.mode
	ok = bdec(b, dst) && r.End()
	if streamHook != nil {
		streamHook(len(v.Str), ok)
	}
	r.Release()
	b.r, b.v = nil, pyjson.Value{} // no reference to the body kept in the pool
	clear(b.st.items)
	b.st.items = b.st.items[:0]
	return ok
}
