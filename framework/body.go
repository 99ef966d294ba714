package framework

import (
	"sync"

	"github.com/gymkit/gymkit/framework/internal/pyjson"
)

// body is one call's arguments: their JSON text, already checked (syntax
// and limits, pyjson.CheckKind), and the parsed tree, built only when a
// reader needs it (a dict body, /verify, a hook, or a typed request whose
// streaming decode gave up). A typed request decodes straight from the text
// (lax.Plan.DecodeJSON) and never builds the tree. A nil *body is an absent
// body (JSON null). Safe for concurrent use.
type body struct {
	mu     sync.Mutex
	raw    []byte
	lim    pyjson.Limits
	kind   pyjson.Kind // the value's kind (pyjson.CheckKind's), known without the tree
	parsed bool
	v      pyjson.Value
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
	}
	return b.v
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
