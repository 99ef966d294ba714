package mcpexpose_test

// Tests named after tests/unit_tests/test_mcp_auto_exposure.py (contract
// d.11). docs/mcp.md maps every one of the 45 to its Go test, or says why
// it has no Go meaning.

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/mcpexpose"
)

// d.11 #1
func TestFlagOffDoesNotMountMCP(t *testing.T) {
	t.Parallel()
	h := newHost(t, &Store{noDispatch: true}, hostOptions{noMCP: true})
	r := h.rpc(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, "")
	if r.Status != 404 || string(r.Body) != `{"detail":"Not Found"}` {
		t.Errorf("POST /mcp with exposure off: %d %s, want 404 Not Found", r.Status, r.Body)
	}
	ro := h.seed(`{}`)
	if _, ok := ro.seed["mcp"]; ok {
		t.Errorf("seed with exposure off carries mcp: %v", ro.seed)
	}
}

// d.11 #2
func TestFlagOnMountsMCPAndHarvestsTools(t *testing.T) {
	t.Parallel()
	h := newHost(t, &Store{})
	names := h.listNames("")
	if want := []string{"append", "end_session", "lookup", "raw_step"}; !slices.Equal(names, want) {
		t.Errorf("tools/list = %v, want %v (sorted)", names, want)
	}
	for _, n := range names {
		if strings.ContainsAny(n, "{}") {
			t.Errorf("tool name %q carries the catch-all template", n)
		}
	}
	// /mcp, /mcp/ and the rollout-prefixed form all answer, without redirect.
	for _, path := range []string{"/mcp", "/mcp/", "/ng-rollout/r-1.a/mcp", "/ng-rollout/r1/mcp/"} {
		r := h.do("POST", path, `{"jsonrpc":"2.0","id":1,"method":"ping"}`,
			"Content-Type", "application/json", "Accept", "application/json, text/event-stream")
		if r.Status != 200 || string(r.Body) != `{"jsonrpc":"2.0","id":1,"result":{}}` {
			t.Errorf("POST %s: %d %s", path, r.Status, r.Body)
		}
		if c := r.Header.Values("Set-Cookie"); len(c) != 1 || !strings.HasPrefix(c[0], h.cookie+"=") {
			t.Errorf("POST %s: Set-Cookie %q, want exactly one session cookie", path, c)
		}
	}
	// The go-sdk client initializes and lists the same tools.
	res, err := h.client("").ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tool := range res.Tools {
		got = append(got, tool.Name)
	}
	if !slices.Equal(got, names) {
		t.Errorf("go-sdk ListTools = %v, want %v", got, names)
	}
}

// d.11 #3: a route named mcp cannot be registered, so a server never
// serves /mcp itself.
func TestRefusesServerThatAlreadyServesMCP(t *testing.T) {
	t.Parallel()
	_, _, err := compose(t, &Store{extra: func(r *framework.Router) {
		framework.Post(r, "/mcp", func(context.Context, framework.NoBody) (struct{}, error) { return struct{}{}, nil })
	}}, hostOptions{})
	if err == nil || !strings.Contains(err.Error(), `"/mcp"`) || !strings.Contains(err.Error(), "reserved") {
		t.Errorf("err = %v, want a refusal naming route /mcp as reserved", err)
	}
}

// d.11 #6
func TestToolsListAdvertisesTypedSchema(t *testing.T) {
	t.Parallel()
	h := newHost(t, &Store{})
	res, err := h.client("").ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(res.Tools, func(tl *mcp.Tool) bool { return tl.Name == "append" })
	if i < 0 {
		t.Fatal("no append tool")
	}
	tool := res.Tools[i]
	var schema struct {
		Properties map[string]any `json:"properties"`
		Required   []string       `json:"required"`
		Type       string         `json:"type"`
	}
	b, _ := json.Marshal(tool.InputSchema)
	if err := json.Unmarshal(b, &schema); err != nil {
		t.Fatal(err)
	}
	if len(schema.Properties) != 1 || schema.Properties["value"] == nil || schema.Type != "object" || !slices.Equal(schema.Required, []string{"value"}) {
		t.Errorf("append inputSchema = %s", b)
	}
	if !strings.HasPrefix(tool.Description, "Append a value to this rollout's list.") {
		t.Errorf("description = %q", tool.Description)
	}
	if tool.OutputSchema == nil {
		t.Error("append has no outputSchema (its result is a JSON object type)")
	}
}

// d.11 #7
func TestDirectDispatchRunsHandlerAndSharesSessionWithPlainHTTPRoute(t *testing.T) {
	t.Parallel()
	h := newHost(t, &Store{})
	ro := h.seed(`{}`)
	if r := h.post("/append", `{"value":"a"}`, ro.cookie); r.Status != 200 || string(r.Body) != `{"values":["a"]}` {
		t.Fatalf("HTTP append: %d %s", r.Status, r.Body)
	}
	res := sdkCall(t, h.client(ro.token), "append", map[string]any{"value": "b"})
	if res.IsError || sdkText(res) != `{"values":["a","b"]}` {
		t.Fatalf("MCP append: isError=%v %q", res.IsError, sdkText(res))
	}
	if b, _ := json.Marshal(res.StructuredContent); string(b) != `{"values":["a","b"]}` {
		t.Errorf("structuredContent = %s", b)
	}
	// ... and the HTTP door sees the MCP call.
	if r := h.post("/append", `{"value":"c"}`, ro.cookie); string(r.Body) != `{"values":["a","b","c"]}` {
		t.Errorf("HTTP append after MCP: %s", r.Body)
	}
}

// d.11 #8
func TestDictBodyToolDispatchesDirect(t *testing.T) {
	t.Parallel()
	h := newHost(t, &Store{})
	ro := h.seed(`{}`)
	c := h.call("raw_step", `{"anything":[1,2]}`, ro.token)
	if *c.IsError || c.text() != `{"echo":{"anything":[1,2]}}` || string(c.StructuredContent) != c.text() {
		t.Errorf("raw_step: %+v", c)
	}
}

// d.11 #9: the dispatcher gets the tool's name as its path value.
func TestRawBodyCatchAllDispatches(t *testing.T) {
	t.Parallel()
	h := newHost(t, &Store{})
	ro := h.seed(`{}`)
	res := sdkCall(t, h.client(ro.token), "lookup", map[string]any{"q": "iron"})
	if res.IsError || sdkText(res) != `{"tool":"lookup","args":{"q":"iron"}}` {
		t.Errorf("lookup: isError=%v %q", res.IsError, sdkText(res))
	}
}

// d.11 #10
func TestErrorMapping(t *testing.T) {
	t.Parallel()
	h := newHost(t, &Store{})
	ro := h.seed(`{}`)
	for _, tc := range []struct {
		tool, args, token, want string
	}{
		{"nope", `{}`, ro.token, "Unknown tool: 'nope'. Available tools: ['append', 'end_session', 'lookup', 'raw_step']"},
		{"append", `{"value":"x"}`, "", "Missing X-NeMo-Gym-Session-Token for Gym MCP tool call."},
		{"append", `{"value":"x"}`, "garbage", "Invalid Gym MCP session token."},
		{"append", `{"wrong":"field"}`, ro.token, `HTTP 422 from POST /append: [{"type": "missing", "loc": ["value"], "msg": "Field required", ` +
			`"input": {"wrong": "field"}, "url": "https://errors.pydantic.dev/2.13/v/missing"}]`},
	} {
		c := h.call(tc.tool, tc.args, tc.token)
		if !*c.IsError || c.text() != tc.want || c.StructuredContent != nil {
			t.Errorf("%s %s (token %q): isError=%v %q, want isError %q", tc.tool, tc.args, tc.token, *c.IsError, c.text(), tc.want)
		}
	}
	// The unknown-name check runs before the token check.
	if c := h.call("nope", `{}`, ""); !strings.HasPrefix(c.text(), "Unknown tool: 'nope'.") {
		t.Errorf("tokenless unknown tool: %q", c.text())
	}
	// Python repr of the name.
	if c := h.call(`it's "x"`, `{}`, ""); !strings.HasPrefix(c.text(), `Unknown tool: 'it\'s "x"'.`) {
		t.Errorf("quoted unknown tool: %q", c.text())
	}
	// The go-sdk client sees the same as an isError result, not a protocol error.
	res := sdkCall(t, h.client(""), "append", map[string]any{"value": "x"})
	if !res.IsError || !strings.Contains(sdkText(res), mcpexpose.TokenHeader) {
		t.Errorf("go-sdk tokenless call: isError=%v %q", res.IsError, sdkText(res))
	}
}

// d.11 #13
func TestParameterizedDictBodyDispatches(t *testing.T) {
	t.Parallel()
	h := newHost(t, Shapes{})
	ro := h.seed(`{}`)
	if c := h.call("dict_object", `{"k":[1,2],"a":null}`, ro.token); *c.IsError || c.text() != `{"k":[1,2],"a":null}` {
		t.Errorf("dict_object: %+v", c)
	}
	// A map[string]any body answers what the HTTP door answers.
	c := h.call("dict_body", `{"k":[1,2]}`, ro.token)
	if r := h.post("/dict_body", `{"k":[1,2]}`, ro.cookie); *c.IsError || c.text() != string(r.Body) {
		t.Errorf("dict_body: MCP %q, HTTP %s", c.text(), r.Body)
	}
}

// d.11 #17: in Go the result type is the filter; fields it does not
// export are never written.
func TestResponseModelFiltersExtraFields(t *testing.T) {
	t.Parallel()
	h := newHost(t, Shapes{})
	ro := h.seed(`{}`)
	if c := h.call("filtered", ``, ro.token); *c.IsError || c.text() != `{"shown":"v"}` {
		t.Errorf("filtered: %+v", c)
	}
}

// d.11 #18, and a panic (Go's other unexpected failure).
func TestUnexpectedHandlerExceptionMapsToIsError(t *testing.T) {
	t.Parallel()
	h := newHost(t, Shapes{})
	ro := h.seed(`{}`)
	if c := h.call("kaboom", ``, ro.token); !*c.IsError || c.text() != "HTTP 500 from POST /kaboom: RuntimeError('kaboom')" {
		t.Errorf("kaboom: %+v", c)
	}
	if c := h.call("boom", ``, ro.token); !*c.IsError || c.text() != "HTTP 500 from POST /boom: panic: boom" {
		t.Errorf("boom: %+v", c)
	}
	// The process is alive and the logs carry the failure.
	if c := h.call("upper", `{"text":"ab"}`, ro.token); *c.IsError || c.text() != `{"upper":"AB"}` {
		t.Errorf("after a panic: %+v", c)
	}
	if !strings.Contains(h.logs.String(), "kaboom") {
		t.Errorf("no log line for the 500: %s", h.logs.String())
	}
}

// d.11 #19
func TestHTTPExceptionKeepsStatusAndDetail(t *testing.T) {
	t.Parallel()
	h := newHost(t, Shapes{})
	ro := h.seed(`{}`)
	if c := h.call("teapot", ``, ro.token); !*c.IsError || c.text() != "HTTP 418 from POST /teapot: short and stout" {
		t.Errorf("teapot: %+v", c)
	}
}

// d.11 #20
func TestNon2xxResponseMapsToIsError(t *testing.T) {
	t.Parallel()
	h := newHost(t, Shapes{})
	ro := h.seed(`{}`)
	if c := h.call("nope", ``, ro.token); !*c.IsError || c.text() != "HTTP 400 from POST /nope: nope" {
		t.Errorf("nope: %+v", c)
	}
}

// d.11 #21: a string result is the text, verbatim.
func TestNonJSON2xxResponsePassesThroughAsText(t *testing.T) {
	t.Parallel()
	h := newHost(t, Shapes{})
	ro := h.seed(`{}`)
	if c := h.call("plain", ``, ro.token); *c.IsError || c.text() != "plain hello" || c.StructuredContent != nil {
		t.Errorf("plain: %+v", c)
	}
}

// d.11 #22
func TestSequentialCallsKeepSessionsIsolatedAndOrdered(t *testing.T) {
	t.Parallel()
	h := newHost(t, &Store{})
	a, b := h.seed(`{}`), h.seed(`{}`)
	if a.token == b.token || a.cookie == b.cookie {
		t.Fatal("two seeds share a session")
	}
	ca, cb := h.client(a.token), h.client(b.token)
	var last string
	for _, step := range []struct {
		cs    *mcp.ClientSession
		value string
	}{{ca, "a1"}, {cb, "b1"}, {ca, "a2"}, {cb, "b2"}, {ca, "a3"}} {
		last = sdkText(sdkCall(t, step.cs, "append", map[string]any{"value": step.value}))
	}
	if last != `{"values":["a1","a2","a3"]}` {
		t.Errorf("A = %s", last)
	}
	if r := h.post("/append", `{"value":"b3"}`, b.cookie); string(r.Body) != `{"values":["b1","b2","b3"]}` {
		t.Errorf("B over HTTP = %s", r.Body)
	}
}

// Parallel calls of many interleaved rollouts, on both doors, lose nothing
// and never cross sessions (run with -race).
func TestInterleavedSessionsStayIsolatedUnderConcurrency(t *testing.T) {
	t.Parallel()
	h := newHost(t, &Store{})
	const rollouts, calls = 6, 8
	ros := make([]rollout, rollouts)
	for i := range ros {
		ros[i] = h.seed(`{}`)
	}
	var wg sync.WaitGroup
	for i := range ros {
		for j := range calls {
			wg.Add(1)
			go func() {
				defer wg.Done()
				v := string(rune('a'+i)) + string(rune('0'+j))
				if j%2 == 0 {
					h.post("/append", `{"value":"`+v+`"}`, ros[i].cookie)
					return
				}
				if c := h.call("append", `{"value":"`+v+`"}`, ros[i].token); *c.IsError {
					t.Errorf("append %s: %s", v, c.text())
				}
			}()
		}
	}
	wg.Wait()
	for i, ro := range ros {
		var got struct{ Values []string }
		if err := json.Unmarshal([]byte(h.call("append", `{"value":"end"}`, ro.token).text()), &got); err != nil {
			t.Fatal(err)
		}
		if len(got.Values) != calls+1 {
			t.Errorf("rollout %d: %d values %v, want %d", i, len(got.Values), got.Values, calls+1)
		}
		for _, v := range got.Values[:calls] {
			if v[0] != byte('a'+i) {
				t.Errorf("rollout %d sees %q from another rollout", i, v)
			}
		}
	}
}

// d.11 #23
func TestTokenlessAndGarbageTokenListAllTools(t *testing.T) {
	t.Parallel()
	h := newHost(t, &Store{})
	all := h.listNames("")
	if len(all) != 4 {
		t.Fatalf("tokenless list = %v", all)
	}
	for _, tok := range []string{"garbage", "a.b", "....", strings.Repeat("x", 70000)} {
		r := h.rpc(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, tok)
		tokenless := h.rpc(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, "")
		if r.Status != 200 || string(r.Body) != string(tokenless.Body) {
			t.Errorf("token %.10q: %d %s, want the tokenless answer", tok, r.Status, r.Body)
		}
	}
}

// d.11 #24
func TestSessionHookReturningNilMintsUnrestrictedToken(t *testing.T) {
	t.Parallel()
	h := newHost(t, &Store{})
	ro := h.seed(`{}`)
	if got := h.listNames(ro.token); len(got) != 4 {
		t.Errorf("list = %v, want every tool", got)
	}
	if c := h.call("raw_step", `{}`, ro.token); *c.IsError {
		t.Errorf("raw_step: %s", c.text())
	}
}

// d.11 #25: the allow-list narrows list and call, for that session only.
func TestSessionHookRestrictsThatSessionsToken(t *testing.T) {
	t.Parallel()
	h := newHost(t, &Store{})
	ro := h.seed(`{"allowed_tools":["append","ghost"]}`)
	free := h.seed(`{}`)
	if got := h.listNames(ro.token); !slices.Equal(got, []string{"append"}) {
		t.Errorf("restricted list = %v, want [append]", got)
	}
	if c := h.call("raw_step", `{}`, ro.token); !*c.IsError || c.text() != "Tool 'raw_step' is not allowed for this session." {
		t.Errorf("raw_step: %+v", c)
	}
	if c := h.call("append", `{"value":"x"}`, ro.token); *c.IsError {
		t.Errorf("append: %s", c.text())
	}
	if c := h.call("raw_step", `{}`, free.token); *c.IsError {
		t.Errorf("another session's raw_step: %s", c.text())
	}
	// The go-sdk client sees the narrowed list too.
	res, err := h.client(ro.token).ListTools(context.Background(), nil)
	if err != nil || len(res.Tools) != 1 || res.Tools[0].Name != "append" {
		t.Errorf("go-sdk list: %v %v", res, err)
	}
	// An empty allow-list allows nothing (distinct from none).
	none := h.seed(`{"allowed_tools":[]}`)
	if got := h.listNames(none.token); len(got) != 0 {
		t.Errorf("empty allow-list lists %v", got)
	}
	if c := h.call("append", `{"value":"x"}`, none.token); !*c.IsError || !strings.Contains(c.text(), "not allowed") {
		t.Errorf("empty allow-list call: %+v", c)
	}
}

// d.11 #26
func TestSessionHookErrorFailsSeedRequestNotSilentUnrestricted(t *testing.T) {
	t.Parallel()
	h := newHost(t, &Store{})
	r := h.post("/seed_session", `{"explode":true}`, "")
	if r.Status < 500 || strings.Contains(string(r.Body), mcpexpose.TokenHeader) {
		t.Errorf("seed with a failing hook: %d %s, want 5xx and no token", r.Status, r.Body)
	}
	if string(r.Body) != `"allow-list service unavailable"` {
		t.Errorf("body = %s", r.Body)
	}
}

// d.11 #27
func TestRefusesCustomMiddleware(t *testing.T) {
	t.Parallel()
	_, _, err := compose(t, &Store{extra: func(r *framework.Router) {
		r.Use(func(next http.Handler) http.Handler { return next })
	}}, hostOptions{})
	if err == nil || !strings.Contains(err.Error(), "non-Gym middleware") || !strings.Contains(err.Error(), `instance "store"`) {
		t.Errorf("err = %v", err)
	}
	// Without exposure the same server starts.
	if _, _, err := compose(t, &Store{extra: func(r *framework.Router) {
		r.Use(func(next http.Handler) http.Handler { return next })
	}}, hostOptions{noMCP: true}); err != nil {
		t.Errorf("exposure off: %v", err)
	}
}

// d.11 #28's Go form: a Tool value the framework did not make cannot be
// dispatched.
func TestRefusesToolThatCannotBeDispatchedDirectly(t *testing.T) {
	t.Parallel()
	_, _, err := compose(t, &Store{hook: func(h []framework.Tool, _ *framework.CatchAll) []framework.Tool {
		return append(h, framework.Tool{Name: "homemade", InputSchema: json.RawMessage(`{"type":"object"}`)})
	}}, hostOptions{})
	if err == nil || !strings.Contains(err.Error(), `MCP tool "homemade" (no route): cannot be dispatched directly`) {
		t.Errorf("err = %v", err)
	}
}

// d.11 #29
func TestDispatcherIgnoringCatchAllSoftWarnsInsteadOfRaising(t *testing.T) {
	t.Parallel()
	h := newHost(t, &Store{hook: func([]framework.Tool, *framework.CatchAll) []framework.Tool { return nil }})
	if got := h.listNames(""); len(got) != 0 {
		t.Errorf("list = %v, want nothing", got)
	}
	if !strings.Contains(h.logs.String(), "catch-all") || !strings.Contains(h.logs.String(), "level=WARN") {
		t.Errorf("no catch-all warning in %s", h.logs.String())
	}
	// /mcp stays mounted and the seed still carries the mcp key.
	if ro := h.seed(`{}`); ro.token == "" {
		t.Error("no token with nothing exposed")
	}
	if c := h.call("append", `{}`, ""); c.text() != "Unknown tool: 'append'. Available tools: []" {
		t.Errorf("call with nothing exposed: %q", c.text())
	}
}

// d.11 #30
func TestRefusesReservedToolName(t *testing.T) {
	t.Parallel()
	_, _, err := compose(t, &Store{hook: func(h []framework.Tool, c *framework.CatchAll) []framework.Tool {
		return append(h, c.Tool("verify", nil, ""))
	}}, hostOptions{})
	if err == nil || !strings.Contains(err.Error(), `MCP tool "verify" (catch-all route POST /{tool}): "verify" is reserved`) {
		t.Errorf("err = %v", err)
	}
}

// d.11 #31
func TestExcludedRouteIsNotAToolButPlainHTTPStillWorks(t *testing.T) {
	t.Parallel()
	h := newHost(t, &Store{hook: func(h []framework.Tool, _ *framework.CatchAll) []framework.Tool {
		return slices.DeleteFunc(h, func(t framework.Tool) bool { return t.Name != "append" })
	}})
	if got := h.listNames(""); !slices.Equal(got, []string{"append"}) {
		t.Errorf("list = %v", got)
	}
	ro := h.seed(`{}`)
	if c := h.call("end_session", `{}`, ro.token); !*c.IsError || !strings.HasPrefix(c.text(), "Unknown tool: 'end_session'") {
		t.Errorf("MCP end_session: %+v", c)
	}
	if r := h.post("/end_session", `{}`, ro.cookie); r.Status != 200 || string(r.Body) != `{"ended":"x"}` {
		t.Errorf("HTTP end_session: %d %s", r.Status, r.Body)
	}
}

// d.11 #33's Go form: the Tools hook receives the typed tools with their
// schemas, so it can filter or rename them keeping the schema.
func TestHarvestedListKeepsTypedSchema(t *testing.T) {
	t.Parallel()
	var seen []framework.Tool
	newHost(t, &Store{hook: func(h []framework.Tool, _ *framework.CatchAll) []framework.Tool {
		seen = h
		return nil
	}})
	i := slices.IndexFunc(seen, func(t framework.Tool) bool { return t.Name == "append" })
	if i < 0 || !strings.Contains(string(seen[i].InputSchema), `"properties":{"value":`) || seen[i].Path() != "/append" {
		t.Errorf("harvested = %+v", seen)
	}
}

// d.11 #34
func TestRefusesDuplicateToolName(t *testing.T) {
	t.Parallel()
	_, _, err := compose(t, &Store{hook: func(h []framework.Tool, c *framework.CatchAll) []framework.Tool {
		return append(h, c.Tool("append", nil, ""))
	}}, hostOptions{})
	if err == nil || !strings.Contains(err.Error(), `Duplicate MCP tool name "append" (also route POST /append)`) {
		t.Errorf("err = %v", err)
	}
}

// d.11 #35: a nested route is refused by the name rule, at Build for a
// route and at Attach for a tool a hook names so.
func TestRefusesNestedToolRoute(t *testing.T) {
	t.Parallel()
	_, _, err := compose(t, &Store{extra: func(r *framework.Router) {
		framework.Post(r, "/a/b", func(context.Context, framework.NoBody) (struct{}, error) { return struct{}{}, nil })
	}}, hostOptions{})
	if err == nil || !strings.Contains(err.Error(), `"/a/b"`) || !strings.Contains(err.Error(), "does not match") {
		t.Errorf("route /a/b: err = %v", err)
	}
	_, _, err = compose(t, &Store{hook: func(h []framework.Tool, c *framework.CatchAll) []framework.Tool {
		return append(h, c.Tool("a/b", nil, ""), c.Tool("", nil, ""), c.Tool("mcp", nil, ""))
	}}, hostOptions{})
	for _, want := range []string{`MCP tool "a/b" (catch-all route POST /{tool}): the name does not match`,
		`MCP tool "" (catch-all route POST /{tool}): the name does not match`, `MCP tool "mcp" (catch-all route POST /{tool}): "mcp" is reserved`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("hook tools: err = %v, want %q", err, want)
		}
	}
}

// d.11 #41
func TestVerifyNormalizesMCPNamespacedToolNames(t *testing.T) {
	t.Parallel()
	h := newHost(t, &Store{})
	ro := h.seed(`{}`)
	emitted := []string{"mcp__store__append", "raw_step", "mcp__other__tool"}
	r := h.post("/verify", verifyBody(emitted...), ro.cookie)
	if r.Status != 200 {
		t.Fatalf("verify: %d %s", r.Status, r.Body)
	}
	var got struct {
		Response struct {
			Output []struct{ Name string }
		}
		Seen []string
	}
	if err := json.Unmarshal(r.Body, &got); err != nil {
		t.Fatal(err)
	}
	if want := []string{"append", "raw_step", "mcp__other__tool"}; !slices.Equal(got.Seen, want) {
		t.Errorf("verify saw %v, want %v", got.Seen, want)
	}
	var echoed []string
	for _, it := range got.Response.Output {
		echoed = append(echoed, it.Name)
	}
	if !slices.Equal(echoed, emitted) {
		t.Errorf("echoed %v, want the emitted %v", echoed, emitted)
	}
}

// d.11 #43: a server without /verify never starts.
func TestServerWithoutVerifyRouteRefuses(t *testing.T) {
	t.Parallel()
	_, _, err := compose(t, noVerify{}, hostOptions{})
	if err == nil || !strings.Contains(err.Error(), "/verify route") {
		t.Errorf("err = %v", err)
	}
}

type noVerify struct{ framework.Base }

func (noVerify) Routes(*framework.Router) {}

// d.11 #44
func TestVerifyDoesNotNormalizeWhenMCPExposureOff(t *testing.T) {
	t.Parallel()
	h := newHost(t, &Store{}, hostOptions{noMCP: true})
	r := h.post("/verify", verifyBody("mcp__store__append"), "")
	var got struct{ Seen []string }
	if err := json.Unmarshal(r.Body, &got); err != nil || !slices.Equal(got.Seen, []string{"mcp__store__append"}) {
		t.Errorf("verify saw %v (%v), want the name unchanged", got.Seen, err)
	}
}

// d.11 #45
func TestNormalizeToolNameWithoutServerNameStripsFirstNamespace(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, server, want string }{
		{"mcp__store__append", "", "append"},
		{"mcp__store__ns__tool", "", "ns__tool"},
		{"mcp__dangling", "", "mcp__dangling"},
		{"plain", "", "plain"},
		{"mcp__store__append", "store", "append"},
		{"mcp__other__append", "store", "mcp__other__append"},
		{"mcp__store__ns__tool", "store", "ns__tool"},
	} {
		if got := mcpexpose.NormalizeToolName(tc.name, tc.server); got != tc.want {
			t.Errorf("NormalizeToolName(%q, %q) = %q, want %q", tc.name, tc.server, got, tc.want)
		}
	}
	d, err := mcpexpose.New(mcpexpose.Options{Config: instanceConfig("store"), Sessions: newSessions(), Secret: []byte("k")})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"mcp__store__append": "append", "mcp__other__append": "mcp__other__append",
		"append": "append", "mcp__storex__a": "mcp__storex__a"} {
		if got := d.NormalizeToolName(name); got != want {
			t.Errorf("Door.NormalizeToolName(%q) = %q, want %q", name, got, want)
		}
	}
}
