package mcpexpose_test

// Regression tests of the MCP door against NeMo's recorded answers: where
// the recorded answers of
// NeMo Gym's real Python servers (../shared/data/nemo-gym-peer, replayed by
// tests/peerreplay) showed the door answering otherwise. Each goes
// through the real door: the go-sdk client where it can send the request,
// raw HTTP JSON-RPC where it cannot.

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gymkit/gymkit/mcpexpose"
)

const invalidParams = `"error":{"code":-32602,"message":"Invalid request parameters","data":""}}`

// tools/call arguments that are not an object fail the Python SDK's
// validation of the whole request (CallToolRequestParams.arguments is
// dict[str, Any] | None): JSON-RPC -32602, before the tool name or the
// token is looked at, and the tool does not run. null and missing
// arguments still reach the tool.
func TestArgumentsThatAreNotAnObjectAreInvalidParams(t *testing.T) {
	t.Parallel()
	h := newHost(t, &Store{})
	ro := h.seed(`{}`)

	// The go-sdk client sends whatever Arguments marshals to: a JSON
	// string holding the object, as the recorded agent did.
	cs := h.client(ro.token)
	for _, args := range []any{`{"value":"x"}`, []string{"x"}, 5, true} {
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "append", Arguments: args})
		var we *jsonrpc.Error
		if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams || we.Message != "Invalid request parameters" || string(we.Data) != `""` {
			t.Errorf("go-sdk client, arguments %#v: err = %v, want JSON-RPC -32602 Invalid request parameters", args, err)
		}
	}

	// Raw: the exact answer, whatever the name and the token; the id as sent.
	for _, tc := range []struct{ name, args, token string }{
		{"append", `"{\"value\":\"x\"}"`, ro.token},
		{"append", `[{"value":"x"}]`, ro.token},
		{"append", `""`, ro.token},
		{"append", `0`, ro.token},
		{"append", `false`, ro.token},
		{"append", `"x"`, ""},         // before the token check
		{"append", `"x"`, "forged.x"}, // before the token's validity
		{"no_such_tool", `"x"`, ro.token},
		{"lookup", `["x"]`, ro.token}, // a catch-all tool too
	} {
		for _, id := range []string{`7`, `"s"`, `123456789012345678901234567890`} {
			msg := `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":` + quote(tc.name) + `,"arguments":` + tc.args + `}}`
			r := h.rpc(msg, tc.token)
			want := `{"jsonrpc":"2.0","id":` + id + `,` + invalidParams
			if r.Status != 200 || string(r.Body) != want || r.Header.Get("Content-Type") != jsonCT {
				t.Errorf("%s: %d %q %s\nwant 200 %s", msg, r.Status, r.Header.Get("Content-Type"), r.Body, want)
			}
		}
	}
	// As a notification it is dropped (202), as every notification.
	r := h.rpc(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"append","arguments":"x"}}`, ro.token)
	if r.Status != 202 || len(r.Body) != 0 {
		t.Errorf("notification: %d %s", r.Status, r.Body)
	}
	// Nothing above ran the tool; null and missing arguments reach it.
	if c := h.call("append", `{"value":"x"}`, ro.token); c.text() != `{"values":["x"]}` {
		t.Errorf("a refused call ran the tool: %s", c.text())
	}
	for _, params := range []string{`{"name":"append","arguments":null}`, `{"name":"append"}`} {
		raw := h.rpcOK(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":`+params+`}`, ro.token)
		if !strings.Contains(string(raw), `"isError":true`) || !strings.Contains(string(raw), "HTTP 422 from POST /append: ") {
			t.Errorf("%s: %s; want the tool's 422", params, raw)
		}
	}
}

// Other params pydantic refuses get the same answer: a tools/call name
// that is missing, null or not a string, a _meta that is not an object, a
// tools/list cursor that is not a string (the go-sdk alone would call an
// unknown tool "" or print its decoding error).
func TestParamsPydanticRefusesAreInvalidParams(t *testing.T) {
	t.Parallel()
	h := newHost(t, &Store{})
	ro := h.seed(`{}`)
	for _, tc := range []struct{ method, params string }{
		{"tools/call", `{"arguments":{"value":"x"}}`},
		{"tools/call", `{"name":null,"arguments":{"value":"x"}}`},
		{"tools/call", `{"name":5,"arguments":{"name":"append"}}`},
		{"tools/call", `{"name":["append"]}`},
		{"tools/call", `{"name":"append","arguments":{"value":"x"},"_meta":5}`},
		{"tools/list", `{"cursor":5}`},
	} {
		for _, id := range []string{`7`, `123456789012345678901234567890`} {
			msg := `{"jsonrpc":"2.0","id":` + id + `,"method":"` + tc.method + `","params":` + tc.params + `}`
			r := h.rpc(msg, ro.token)
			if want := `{"jsonrpc":"2.0","id":` + id + `,` + invalidParams; r.Status != 200 || string(r.Body) != want {
				t.Errorf("%s: %d %s\nwant 200 %s", msg, r.Status, r.Body, want)
			}
		}
	}
	// A string name that is no tool is still the isError answer, and a
	// "name" inside the arguments is the tool's business.
	if c := h.call("", `{}`, ro.token); !*c.IsError || !strings.HasPrefix(c.text(), "Unknown tool: ''.") {
		t.Errorf(`name "": %+v`, c)
	}
	if c := h.call("lookup", `{"name":5}`, ro.token); *c.IsError || !strings.Contains(c.text(), `"args":{"name":5}`) {
		t.Errorf("lookup: %+v", c)
	}
	if c := h.call("append", `{"value":"x"}`, ro.token); c.text() != `{"values":["x"]}` {
		t.Errorf("a refused call ran the tool: %s", c.text())
	}
}

// structuredContent is what NeMo's server makes of the text: json.loads,
// then pydantic's dump (0.00001, 1e-7), while the text keeps Python's repr
// (1e-05, 1e-07). Numbers whose forms agree, strings that look like
// exponents, and integers are the same in both.
func TestStructuredContentWritesPydanticFloats(t *testing.T) {
	t.Parallel()
	h := newHost(t, Shapes{})
	ro := h.seed(`{}`)
	const text = `{"tiny":1e-05,"tinier":-1.5e-07,"small":0.0001,"big":1e+16,"huge":1.5e+22,"whole":5.0,"count":7,` +
		`"nested":[2.5e-06,0.0001],"text":"1e-05 2E+16","literal":1e-05}`
	const structured = `{"tiny":0.00001,"tinier":-1.5e-7,"small":0.0001,"big":1e+16,"huge":1.5e+22,"whole":5.0,"count":7,` +
		`"nested":[2.5e-6,0.0001],"text":"1e-05 2E+16","literal":0.00001}`
	raw := h.rpcOK(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"floats","arguments":{}}}`, ro.token)
	want := `{"content":[{"type":"text","text":` + quote(text) + `}],"structuredContent":` + structured + `,"isError":false}`
	if string(raw) != want {
		t.Errorf("tools/call floats:\n got %s\nwant %s", raw, want)
	}
	// Without an exponent, text and structuredContent are the same bytes.
	raw = h.rpcOK(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"upper","arguments":{"text":"2e5 é"}}}`, ro.token)
	if want := `{"content":[{"type":"text","text":"{\"upper\":\"2E5 É\"}"}],"structuredContent":{"upper":"2E5 É"},"isError":false}`; string(raw) != want {
		t.Errorf("tools/call upper:\n got %s\nwant %s", raw, want)
	}
	// The go-sdk client reads the same values from both.
	res := sdkCall(t, h.client(ro.token), "floats", map[string]any{})
	m, ok := res.StructuredContent.(map[string]any)
	if res.IsError || !ok || m["tiny"] != 1e-05 || m["tinier"] != -1.5e-07 || sdkText(res) != text {
		t.Errorf("go-sdk client: isError=%v %q %#v", res.IsError, sdkText(res), res.StructuredContent)
	}
}

// A result holding NaN or an infinity is isError with the text NeMo's
// server answers, without the value.
func TestNonFiniteResultsAreIsErrorWithPythonsText(t *testing.T) {
	t.Parallel()
	h := newHost(t, Shapes{})
	ro := h.seed(`{}`)
	cs := h.client(ro.token)
	for _, tool := range []string{"nan", "inf", "neg_inf"} {
		raw := h.rpcOK(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"`+tool+`","arguments":{}}}`, ro.token)
		if want := `{"content":[{"type":"text","text":"Out of range float values are not JSON compliant"}],"isError":true}`; string(raw) != want {
			t.Errorf("%s: %s", tool, raw)
		}
		if res := sdkCall(t, cs, tool, nil); !res.IsError || sdkText(res) != "Out of range float values are not JSON compliant" {
			t.Errorf("%s, go-sdk client: isError=%v %q", tool, res.IsError, sdkText(res))
		}
	}
}

// A POST whose Content-Type does not start with application/json is
// answered as the Python SDK's transport security answers it, before any
// other check: 400, the plain text, no Content-Type header (the rollout
// cookie as on every answer). One that starts so but does not list
// application/json is the transport's 415.
func TestBadContentTypeIs400InvalidContentTypeHeader(t *testing.T) {
	t.Parallel()
	h := newHost(t, &Store{}, hostOptions{door: func(o *mcpexpose.Options) { o.Config.MCPAllowedHosts = []string{"proxy.internal"} }})
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	for _, tc := range []struct {
		ct     string
		header []string
	}{
		{"text/plain", []string{"Accept", both}},
		{"", []string{"Accept", both}},
		{"text/plain; application/json", []string{"Accept", both}},
		{"application/vnd.api+json", []string{"Accept", both}},
		{"x-application/json", []string{"Accept", both}},
		{"text/plain", nil},                                              // before the Accept check (406)
		{"text/plain", []string{"Accept", both, "Host", "evil.example"}}, // before the Host check (403)
		{"form", []string{"Accept", both, "Mcp-Protocol-Version", "1999-01-01"}},
	} {
		r := h.do("POST", "/mcp", ping, append([]string{"Content-Type", tc.ct}, tc.header...)...)
		if r.Status != 400 || string(r.Body) != "Invalid Content-Type header" || r.Header.Values("Content-Type") != nil {
			t.Errorf("Content-Type %q %v: %d %q %s; want 400, no Content-Type, Invalid Content-Type header", tc.ct, tc.header, r.Status, r.Header.Values("Content-Type"), r.Body)
		}
		if len(r.Header.Values("Set-Cookie")) != 1 {
			t.Errorf("Content-Type %q: Set-Cookie %q, want the session cookie", tc.ct, r.Header.Values("Set-Cookie"))
		}
	}
	want415 := `{"jsonrpc":"2.0","id":"server-error","error":{"code":-32600,"message":"Unsupported Media Type: Content-Type must be application/json"}}`
	for _, ct := range []string{"application/jsonx", "application/json-seq", "APPLICATION/JSON-patch+json"} {
		if r := h.do("POST", "/mcp", ping, "Content-Type", ct, "Accept", both); r.Status != 415 || string(r.Body) != want415 {
			t.Errorf("Content-Type %q: %d %s; want 415", ct, r.Status, r.Body)
		}
	}
	// A wrong Accept with a good Content-Type is still the 406.
	if r := h.do("POST", "/mcp", ping, "Content-Type", jsonCT, "Accept", "text/event-stream"); r.Status != 406 {
		t.Errorf("Accept text/event-stream: %d %s", r.Status, r.Body)
	}
}

// DELETE has Python's stateless text; every 405 keeps Allow: POST.
func TestMethodNotAllowedTexts(t *testing.T) {
	t.Parallel()
	h := newHost(t, &Store{})
	for method, msg := range map[string]string{
		"DELETE": "Method Not Allowed: Session termination not supported",
		"GET":    "Method Not Allowed",
		"PUT":    "Method Not Allowed",
	} {
		r := h.do(method, "/mcp", "", "Accept", both)
		want := `{"jsonrpc":"2.0","id":"server-error","error":{"code":-32600,"message":"` + msg + `"}}`
		if r.Status != 405 || r.Header.Get("Allow") != "POST" || string(r.Body) != want || r.Header.Get("Content-Type") != jsonCT {
			t.Errorf("%s: %d Allow %q %q %s; want 405, Allow: POST, %s", method, r.Status, r.Header.Get("Allow"), r.Header.Get("Content-Type"), r.Body, want)
		}
	}
}
