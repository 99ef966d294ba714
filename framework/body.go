package framework

import (
	"sync"

	"github.com/gymkit/gymkit/internal/pyjson"
)

// body is one call's arguments: their JSON text, already checked (syntax
// and limits, pyjson.CheckKind), and the parsed trees, built only when a
// reader needs them. A typed request decodes straight from the text
// (lax.Plan.DecodeJSON) and never builds a tree, and so does a
// map[string]any body (goMap). What the framework only writes out (a 422's
// items, a json.RawMessage body's text) reads a lazy tree over the text
// itself (view: no copy); what it reads and may hand on (/verify, a
// dispatcher's text, the rare typed request the tree accepts after the
// streaming decode gave up) reads the lazy tree (pyjson.ParseLazy: one
// level parsed, nested containers kept as spans of the text), which costs
// a copy of the text whatever its shape; what an environment sees as a
// Value (a Value body, a hook, VerifyRequest.Raw) is the full tree. A nil
// *body is an absent body (JSON null). Safe for concurrent use.
type body struct {
	mu     sync.Mutex
	raw    []byte
	lim    pyjson.Limits
	kind   pyjson.Kind // the value's kind (pyjson.CheckKind's), known without the tree
	parsed bool
	v      pyjson.Value
	lazied bool
	lz     pyjson.Value
}

// textBody is the body of checked JSON text raw, whose value is of kind
// (what pyjson.CheckKind returned for it).
func textBody(raw []byte, lim pyjson.Limits, kind pyjson.Kind) *body {
	return &body{raw: raw, lim: lim, kind: kind}
}

// treeBody is a body already parsed.
func treeBody(v pyjson.Value) *body { return &body{parsed: true, v: v, kind: v.Kind} }

// hasTree reports whether the tree is built already.
func (b *body) hasTree() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.parsed
}

// isObject reports whether the body is a JSON object, without the tree.
func (b *body) isObject() bool { return b != nil && b.kind == pyjson.Object }

// value returns the parsed tree (JSON null for a nil body).
func (b *body) value() pyjson.Value {
	if b == nil {
		return pyjson.Value{}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.parsed {
		// The text was checked: ParseLimited cannot fail.
		b.v, _ = pyjson.ParseLimited(b.raw, b.lim)
		b.parsed, b.raw = true, nil
		b.lazied, b.lz = false, pyjson.Value{} // the full tree serves both
	}
	return b.v
}

// view returns a lazy tree whose spans are views of the body's text (no
// copy; pyjson.ParseLazyView), not cached: for what is written out while
// the text is unchanged (the request's own answer, a *ValidationError's
// items, which Tool.Call documents), never for what an environment keeps.
// It is the full tree once that is built.
func (b *body) view() pyjson.Value {
	if b == nil {
		return pyjson.Value{}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.parsed:
		return b.v
	case b.lazied:
		return b.lz
	}
	v, _ := pyjson.ParseLazyView(b.raw, b.lim) // checked: cannot fail
	return v
}

// lazy returns the lazy tree (JSON null for a nil body), or the full tree
// when it is built already. Its lazy values must not reach an environment
// (pyjson.Materialize them); the encoders write them as the full tree.
func (b *body) lazy() pyjson.Value {
	if b == nil {
		return pyjson.Value{}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.parsed {
		return b.v
	}
	if !b.lazied {
		b.lz, _ = pyjson.ParseLazy(b.raw, b.lim) // checked: cannot fail
		b.lazied = true
	}
	return b.lz
}

// goMap returns the body, a JSON object, as Go values (toGo's): read from
// the text (readGo: no Value tree) unless the tree is built already.
func (b *body) goMap() map[string]any {
	if raw, lim, ok := b.text(); ok {
		if r, err := pyjson.NewReader(raw, lim); err == nil {
			v, ok := readGo(r)
			ok = ok && r.End() && !r.Failed()
			r.Release()
			if m, isMap := v.(map[string]any); ok && isMap {
				return m
			}
		}
	}
	m, _ := toGo(b.value()).(map[string]any)
	return m
}

// text returns the JSON text and its limits for a streaming decode; ok is
// false when the tree is built already (decode the tree then) or the body
// is absent.
func (b *body) text() (raw []byte, lim pyjson.Limits, ok bool) {
	if b == nil {
		return nil, pyjson.Limits{}, false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.raw, b.lim, !b.parsed
}
