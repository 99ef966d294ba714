package mcpexpose_test

// Regression tests of the MCP break-it pass (internal/mcpbreak): what the
// door answers where the go-sdk alone would differ from NeMo's Python SDK
// or from the HTTP door. The wire forms are in testdata/wire (TestWire).

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/mcpexpose"
)

// doWithin sends one request and fails the test if no answer comes within d
// (a ceiling against a hang, not a speed target: give it tens of seconds).
func (h *host) doWithin(d time.Duration, body string, header ...string) reply {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "POST", h.URL+"/mcp", strings.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatalf("no answer within %v: %v", d, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Fatal(err)
	}
	return reply{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// A tool that calls runtime.Goexit gets the HTTP door's 500 as an isError
// result, and the server still drains (the SDK's stateless session Close
// waits for every call).
func TestGoexitInToolIsAnIsError500(t *testing.T) {
	t.Parallel()
	h, handler, err := compose(t, &Store{extra: func(r *framework.Router) {
		framework.Post(r, "/goexit", func(context.Context, framework.NoBody) (struct{}, error) {
			runtime.Goexit()
			return struct{}{}, nil
		})
	}}, hostOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(handler)
	h.t, h.URL = t, ts.URL
	ro := h.seed(`{}`)
	r := h.doWithin(30*time.Second, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"goexit"}}`,
		"Content-Type", jsonCT, "Accept", both, mcpexpose.TokenHeader, ro.token)
	want := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"HTTP 500 from POST /goexit: panic: runtime.Goexit called"}],"isError":true}}`
	if r.Status != 200 || string(r.Body) != want {
		t.Errorf("got %d %s\nwant %s", r.Status, r.Body, want)
	}
	if c := h.call("append", `{"value":"still alive"}`, ro.token); *c.IsError {
		t.Errorf("after Goexit: %s", c.text())
	}
	closed := make(chan struct{})
	go func() { ts.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(30 * time.Second):
		t.Fatal("the server does not drain after a Goexit")
	}
}

// A client that goes away (once the tool runs) cancels the tool's context
// on the MCP door as on the HTTP door. The waits are 30 s ceilings, not
// targets.
func TestClientDisconnectCancelsTheTool(t *testing.T) {
	t.Parallel()
	cancelled := make(chan error, 2)
	started := make(chan struct{}, 2)
	h := newHost(t, &Store{extra: func(r *framework.Router) {
		framework.Post(r, "/slow", func(ctx context.Context, _ framework.NoBody) (struct{}, error) {
			started <- struct{}{}
			select {
			case <-ctx.Done():
				cancelled <- ctx.Err()
				return struct{}{}, ctx.Err()
			case <-time.After(time.Minute):
				return struct{}{}, nil
			}
		})
	}})
	ro := h.seed(`{}`)
	for _, door := range []string{"http", "mcp"} {
		ctx, cancel := context.WithCancel(context.Background())
		var req *http.Request
		if door == "http" {
			req, _ = http.NewRequestWithContext(ctx, "POST", h.URL+"/slow", strings.NewReader(`{}`))
			req.Header.Set("Cookie", h.cookie+"="+ro.cookie)
		} else {
			req, _ = http.NewRequestWithContext(ctx, "POST", h.URL+"/mcp",
				strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}`))
			req.Header.Set("Accept", both)
			req.Header.Set(mcpexpose.TokenHeader, ro.token)
		}
		req.Header.Set("Content-Type", jsonCT)
		answered := make(chan struct{})
		go func() {
			defer close(answered)
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
				t.Errorf("%s: the slow tool answered", door)
			}
		}()
		select {
		case <-started:
		case <-time.After(30 * time.Second):
			t.Errorf("%s door: the slow tool did not start in 30 s", door)
		}
		cancel()
		<-answered
		select {
		case err := <-cancelled:
			if err != context.Canceled {
				t.Errorf("%s: the tool's context ended with %v", door, err)
			}
		case <-time.After(30 * time.Second):
			t.Errorf("%s door: the tool's context is not cancelled when the client goes away", door)
		}
	}
}

// Every string or integer id comes back exactly as sent (the go-sdk
// decodes ids through float64); an id that is neither makes the message a
// notification, as pydantic validates it.
func TestIDsEchoedExactly(t *testing.T) {
	t.Parallel()
	h := newHost(t, &Store{})
	ro := h.seed(`{}`)
	ids := []string{`1`, `0`, `-5`, `"abc"`, `""`, `"1"`, `999999999999999`,
		`9007199254740993`, `9223372036854775807`, `-9223372036854775808`, `123456789012345678901234567890`}
	for _, id := range ids {
		for _, msg := range []string{
			`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`,
			`{"method":"tools/call","params":{"name":"append","arguments":{"value":"x","id":1.5}},"jsonrpc":"2.0","id":` + id + `}`,
			`{"jsonrpc":"2.0","id":` + id + `,"method":"bogus"}`,                            // the door's own answer
			`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list","params":{"cursor":5}}`, // the SDK's JSON-RPC error
		} {
			r := h.rpc(msg, ro.token)
			var a struct {
				ID json.RawMessage `json:"id"`
			}
			if err := json.Unmarshal(r.Body, &a); err != nil || string(a.ID) != id {
				t.Errorf("%s: %d %s; want the id %s", msg, r.Status, r.Body, id)
			}
		}
	}
	for _, id := range []string{`1.5`, `2.0`, `1e3`, `1e400`, `true`, `{}`, `[1]`} {
		r := h.rpc(`{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"append","arguments":{"value":"ghost"}}}`, ro.token)
		if r.Status != 202 || len(r.Body) != 0 {
			t.Errorf("id %s: %d %s; want 202 and no body (a notification, as in Python)", id, r.Status, r.Body)
		}
	}
	want := `{"values":[` + strings.Repeat(`"x",`, len(ids)) + `"x"]}`
	if c := h.call("append", `{"value":"x"}`, ro.token); c.text() != want {
		t.Errorf("the calls that ran: %s; want %s (none of the notifications)", c.text(), want)
	}
}

// Python answers any message without a valid id with 202 (it validates as
// a notification, and an unknown one is dropped), and a request it cannot
// validate with 200 and -32602 "Invalid request parameters", missing and
// null params alike.
func TestMessagesTheSDKRefusesAreAnsweredAsInPython(t *testing.T) {
	t.Parallel()
	h := newHost(t, &Store{})
	ro := h.seed(`{}`)
	for _, version := range []string{"", "2025-06-18", "2024-11-05"} {
		for _, msg := range []string{
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
			`{"jsonrpc":"2.0","method":"notifications/vendor/custom","params":{"x":1}}`,
			`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"append","arguments":{"value":"ghost"}}}`,
			`{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"append","arguments":{"value":"ghost"}}}`,
			`{"jsonrpc":"2.0","method":"subscriptions/listen","params":{}}`,
		} {
			r := h.do("POST", "/mcp", msg, "Content-Type", jsonCT, "Accept", both, "Mcp-Protocol-Version", version, mcpexpose.TokenHeader, ro.token)
			if r.Status != 202 || len(r.Body) != 0 || r.Header.Get("Content-Type") != jsonCT {
				t.Errorf("%s (version %q): %d %q %s; want 202, application/json, no body", msg, version, r.Status, r.Header.Get("Content-Type"), r.Body)
			}
		}
		for _, msg := range []string{
			`{"jsonrpc":"2.0","id":7,"method":"bogus/method"}`,
			`{"jsonrpc":"2.0","id":7,"method":"notifications/initialized"}`,
			`{"jsonrpc":"2.0","id":7,"method":"tools/call"}`,
			`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":null}`,
			`{"jsonrpc":"2.0","id":7,"method":"initialize"}`,
			`{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true}}}`,
		} {
			r := h.do("POST", "/mcp", msg, "Content-Type", jsonCT, "Accept", both, "Mcp-Protocol-Version", version)
			want := `{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid request parameters","data":""}}`
			if r.Status != 200 || string(r.Body) != want {
				t.Errorf("%s (version %q): %d %s; want 200 %s", msg, version, r.Status, r.Body, want)
			}
		}
	}
	if c := h.call("append", `{"value":"x"}`, ro.token); c.text() != `{"values":["x"]}` {
		t.Errorf("a notification ran a tool: %s", c.text())
	}
	// params that are neither an object nor null make the message invalid,
	// as for pydantic, whatever the id.
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":[]}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"ping","params":"x"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized","params":5}`,
	} {
		r := h.rpc(msg, ro.token)
		if r.Status != 400 || !strings.Contains(string(r.Body), `"code":-32602`) {
			t.Errorf("%s: %d %s; want 400, -32602", msg, r.Status, r.Body)
		}
	}
	// Batches are refused, as in Python.
	r := h.rpc(`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, "", "Mcp-Protocol-Version", "2024-11-05")
	if r.Status != 400 || !strings.Contains(string(r.Body), `"code":-32602`) {
		t.Errorf("batch: %d %s", r.Status, r.Body)
	}
}

// subscriptions/listen never streams: a client that accepts JSON only gets
// one JSON answer (a stream would never end: doWithin fails after 30 s).
func TestListenIsAnsweredWithJSON(t *testing.T) {
	t.Parallel()
	h := newHost(t, &Store{})
	for _, accept := range []string{jsonCT, both} {
		r := h.doWithin(30*time.Second, `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true}}}`,
			"Content-Type", jsonCT, "Accept", accept)
		if r.Status != 200 || r.Header.Get("Content-Type") != jsonCT || !strings.Contains(string(r.Body), `"code":-32602`) {
			t.Errorf("Accept %q: %d %q %s", accept, r.Status, r.Header.Get("Content-Type"), r.Body)
		}
	}
}

// The SEP-2575 _meta protocolVersion key is ignored, as Python ignores
// _meta: it neither needs nor has to match a header.
func TestMetaProtocolVersionIsIgnored(t *testing.T) {
	t.Parallel()
	h := newHost(t, &Store{})
	ro := h.seed(`{}`)
	for i, c := range []struct{ meta, version string }{
		{`"2026-07-28"`, ""},
		{`"2025-06-18"`, ""},
		{`"2025-03-26"`, "2025-06-18"},
		{`5`, "2025-06-18"},
	} {
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"append","arguments":{"value":"v%d"},`+
			`"_meta":{"progressToken":"p","io.modelcontextprotocol/protocolVersion":%s}}}`, i, c.meta)
		r := h.do("POST", "/mcp", msg, "Content-Type", jsonCT, "Accept", both, "Mcp-Protocol-Version", c.version, mcpexpose.TokenHeader, ro.token)
		if r.Status != 200 || !strings.Contains(string(r.Body), `"isError":false`) {
			t.Errorf("_meta %s, header %q: %d %s", c.meta, c.version, r.Status, r.Body)
		}
	}
	// The key as a tool argument is the tool's business.
	if c := h.call("lookup", `{"io.modelcontextprotocol/protocolVersion":"x"}`, ro.token); !strings.Contains(c.text(), `"args":{"io.modelcontextprotocol/protocolVersion":"x"}`) {
		t.Errorf("argument: %s", c.text())
	}
}

// tokenTools decodes the allow-list a token carries.
func tokenTools(t *testing.T, tok string) []string {
	t.Helper()
	body, _, _ := strings.Cut(tok, ".")
	payload, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Tools []string `json:"tools"`
	}
	if err := json.Unmarshal(payload, &c); err != nil {
		t.Fatal(err)
	}
	return c.Tools
}

// A token carries only exposed tools, once each, so that a long dataset
// allow-list cannot make a token its own door refuses; nil and empty stay
// distinct, and a list of unknown names allows nothing.
func TestAllowListTokenCarriesOnlyExposedTools(t *testing.T) {
	t.Parallel()
	h := newHost(t, &Store{})
	names := []string{"append", "ghost", "append"}
	for i := 0; len(names) < 3000; i++ {
		names = append(names, fmt.Sprintf("dataset_tool_number_%05d", i))
	}
	list, _ := json.Marshal(map[string]any{"allowed_tools": names})
	ro := h.seed(string(list))
	if got := tokenTools(t, ro.token); !slices.Equal(got, []string{"append"}) || len(ro.token) > 200 {
		t.Errorf("token of %d bytes lists %v; want [append]", len(ro.token), got)
	}
	if c := h.call("append", `{"value":"x"}`, ro.token); *c.IsError {
		t.Errorf("append: %s", c.text())
	}
	for seed, want := range map[string][]string{`{"allowed_tools":["ghost"]}`: {}, `{"allowed_tools":[]}`: {}, `{}`: nil} {
		got := tokenTools(t, h.seed(seed).token)
		if !slices.Equal(got, want) || (got == nil) != (want == nil) {
			t.Errorf("seed %s: token lists %#v, want %#v", seed, got, want)
		}
	}
	if c := h.call("append", `{"value":"x"}`, h.seed(`{"allowed_tools":["ghost"]}`).token); !*c.IsError || !strings.Contains(c.text(), "not allowed") {
		t.Errorf("unknown names only: %+v", c)
	}
}

// With so many exposed tools that the token listing them all is longer
// than the default limit, the door still accepts every token it mints.
func TestDoorAcceptsItsLongestToken(t *testing.T) {
	t.Parallel()
	var names []string
	h := newHost(t, &Store{hook: func(harvested []framework.Tool, c *framework.CatchAll) []framework.Tool {
		for i := range 3000 {
			names = append(names, fmt.Sprintf("a_rather_long_dispatcher_tool_name_%05d", i))
			harvested = append(harvested, c.Tool(names[i], nil, ""))
		}
		return harvested
	}})
	list, _ := json.Marshal(map[string]any{"allowed_tools": names})
	ro := h.seed(string(list))
	if len(ro.token) <= 64<<10 {
		t.Fatalf("token of %d bytes: not a long token", len(ro.token))
	}
	if c := h.call(names[2999], `{}`, ro.token); *c.IsError {
		t.Errorf("a %d-byte token: %s", len(ro.token), c.text())
	}
	if c := h.call("append", `{"value":"x"}`, ro.token); !*c.IsError || !strings.Contains(c.text(), "not allowed") {
		t.Errorf("append: %+v", c)
	}
}

// Content-Type is read as NeMo's Python SDK reads it: a value that does not
// start with application/json is the transport security's 400 (see
// TestBadContentTypeIs400InvalidContentTypeHeader), one that starts so but
// does not list it the door's 415.
func TestContentTypeLikePython(t *testing.T) {
	t.Parallel()
	h := newHost(t, &Store{})
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	for _, ct := range []string{"application/json", "application/json; charset=utf-8", "application/json; charset",
		"application/json;", "application/json, text/plain", "application/json ,x", "Application/JSON"} {
		if r := h.do("POST", "/mcp", ping, "Content-Type", ct, "Accept", both); r.Status != 200 || string(r.Body) != `{"jsonrpc":"2.0","id":1,"result":{}}` {
			t.Errorf("Content-Type %q: %d %s", ct, r.Status, r.Body)
		}
	}
	for _, ct := range []string{"", "text/plain", "text/plain; application/json", "text/plain, application/json", "application/vnd.api+json"} {
		if r := h.do("POST", "/mcp", ping, "Content-Type", ct, "Accept", both); r.Status != 400 || string(r.Body) != "Invalid Content-Type header" {
			t.Errorf("Content-Type %q: %d %s", ct, r.Status, r.Body)
		}
	}
	want := `{"jsonrpc":"2.0","id":"server-error","error":{"code":-32600,"message":"Unsupported Media Type: Content-Type must be application/json"}}`
	for _, ct := range []string{"application/jsonx", "application/json-seq", "application/json-patch+json; charset=utf-8"} {
		if r := h.do("POST", "/mcp", ping, "Content-Type", ct, "Accept", both); r.Status != 415 || string(r.Body) != want {
			t.Errorf("Content-Type %q: %d %s", ct, r.Status, r.Body)
		}
	}
}
