package lax

import (
	"strings"
	"testing"

	"github.com/gymkit/gymkit/internal/pyjson"
)

// TestRenderCut: both renderings stop at MaxItems items, or once past
// MaxRenderBytes, and end with the TypeTooManyErrors item; a single item
// larger than the budget is rendered whole; short reports are untouched.
func TestRenderCut(t *testing.T) {
	item := ErrorItem{Type: TypeMissing, Loc: []any{"a", 1}, Msg: msgMissing, Input: pyjson.ObjectValue()}
	many := make([]ErrorItem, MaxItems+1)
	for i := range many {
		many[i] = item
	}
	cutHTTP := `,{"type":"too_many_errors","loc":["body"],"msg":"` + msgTooManyErrors + `","input":null}]}`
	cutMCP := `, {"type": "too_many_errors", "loc": [], "msg": "` + msgTooManyErrors + `", "input": null}]`
	if b := RenderHTTP(many); !strings.HasSuffix(string(b), cutHTTP) || strings.Count(string(b), `"missing"`) != MaxItems {
		t.Errorf("HTTP: %d missing items, suffix %q", strings.Count(string(b), `"missing"`), b[len(b)-200:])
	}
	if s := RenderMCP(many); !strings.HasSuffix(s, cutMCP) || strings.Count(s, `"missing"`) != MaxItems {
		t.Errorf("MCP: %d missing items, suffix %q", strings.Count(s, `"missing"`), s[len(s)-200:])
	}
	if b := RenderHTTP(many[:MaxItems]); strings.Contains(string(b), "too_many_errors") {
		t.Errorf("HTTP: %d items were cut", MaxItems)
	}
	big := ErrorItem{Type: TypeStringType, Loc: []any{"s"}, Msg: "Input should be a valid string", Input: pyjson.StringValue(strings.Repeat("x", MaxRenderBytes))}
	b := RenderHTTP([]ErrorItem{big, big, big})
	if n := strings.Count(string(b), `"string_type"`); n != 1 || !strings.HasSuffix(string(b), cutHTTP) {
		t.Errorf("big items: %d shown, %d bytes", n, len(b))
	}
	if s := RenderMCP([]ErrorItem{big}); len(s) < MaxRenderBytes || strings.Contains(s, "too_many_errors") {
		t.Errorf("one big item: %d bytes", len(s))
	}
}
