package mcpexpose_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/framework"
	fwhost "github.com/gymkit/gymkit/framework/host"
	"github.com/gymkit/gymkit/mcpexpose"
)

func TestNewRequiresInstanceAndSessions(t *testing.T) {
	t.Parallel()
	if _, err := mcpexpose.New(mcpexpose.Options{Sessions: newSessions()}); err == nil || !strings.Contains(err.Error(), "Instance") {
		t.Errorf("no instance: %v", err)
	}
	if _, err := mcpexpose.New(mcpexpose.Options{Config: instanceConfig("x")}); err == nil || !strings.Contains(err.Error(), "Sessions") {
		t.Errorf("no sessions: %v", err)
	}
}

func TestUnsetSecretWarnsAndStillWorks(t *testing.T) {
	t.Parallel()
	h := newHost(t, &Store{}, hostOptions{door: func(o *mcpexpose.Options) { o.Secret = nil }})
	if !strings.Contains(h.logs.String(), "mcp_token_secret is unset") {
		t.Errorf("no warning: %s", h.logs.String())
	}
	ro := h.seed(`{}`)
	if c := h.call("append", `{"value":"x"}`, ro.token); *c.IsError {
		t.Errorf("call: %s", c.text())
	}
}

func TestAttachChecks(t *testing.T) {
	t.Parallel()
	sm := newSessions()
	d, _ := mcpexpose.New(mcpexpose.Options{Config: instanceConfig("store"), Sessions: sm, Secret: []byte("k")})
	if _, err := d.AfterSeed(context.Background(), new(framework.SeedBody), []byte(`{}`)); err == nil {
		t.Error("AfterSeed before Attach succeeded")
	}
	if err := d.Attach(nil); err == nil {
		t.Error("Attach(nil) succeeded")
	}
	other, err := fwhost.Build(context.Background(), &Store{}, fwhost.Options{Name: "other"})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Attach(other); err == nil || !strings.Contains(err.Error(), `instance "other"`) {
		t.Errorf("App of another instance: %v", err)
	}
	app, err := fwhost.Build(context.Background(), &Store{}, fwhost.Options{Name: "store", AfterSeed: d.AfterSeed})
	if err != nil {
		t.Fatal(err)
	}
	if d.Tools() != nil {
		t.Error("Tools before Attach")
	}
	if err := d.Attach(app); err != nil {
		t.Fatal(err)
	}
	if err := d.Attach(app); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("second Attach: %v", err)
	}
	var names []string
	for _, tool := range d.Tools() {
		names = append(names, tool.Name)
	}
	if strings.Join(names, ",") != "append,end_session,lookup,raw_step" {
		t.Errorf("Tools() = %v", names)
	}
}

func TestHandlerBeforeAttachAnswers503(t *testing.T) {
	t.Parallel()
	d, _ := mcpexpose.New(mcpexpose.Options{Config: instanceConfig("store"), Sessions: newSessions(), Secret: []byte("k")})
	rec := httptest.NewRecorder()
	d.Handler().ServeHTTP(rec, httptest.NewRequest("POST", "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)))
	if rec.Code != 503 || !strings.Contains(rec.Body.String(), `"id":"server-error"`) {
		t.Errorf("%d %s", rec.Code, rec.Body)
	}
}

func TestRefusesBadSchemasAndPanickingHooks(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		hook func([]framework.Tool, *framework.CatchAll) []framework.Tool
		want string
	}{
		"array input schema": {func(h []framework.Tool, c *framework.CatchAll) []framework.Tool {
			return append(h, c.Tool("listy", json.RawMessage(`{"type":"array"}`), ""))
		}, `MCP tool "listy" (catch-all route POST /{tool}): inputSchema: the root "type" must be "object"`},
		"not JSON input schema": {func(h []framework.Tool, c *framework.CatchAll) []framework.Tool {
			return append(h, c.Tool("broken", json.RawMessage(`{"type":`), ""))
		}, `MCP tool "broken" (catch-all route POST /{tool}): inputSchema: `},
		"array output schema": {func(h []framework.Tool, c *framework.CatchAll) []framework.Tool {
			t := c.Tool("out", nil, "")
			t.OutputSchema = json.RawMessage(`{"type":"array","items":{}}`)
			return append(h, t)
		}, `MCP tool "out" (catch-all route POST /{tool}): outputSchema: the root "type" must be "object"`},
		"panicking hook": {func([]framework.Tool, *framework.CatchAll) []framework.Tool {
			panic("no inventory")
		}, "the Tools hook panicked: no inventory"},
	} {
		_, _, err := compose(t, &Store{hook: tc.hook}, hostOptions{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", name, err, tc.want)
		}
	}
}

func TestHookMayRenameAndRedescribeTools(t *testing.T) {
	t.Parallel()
	h := newHost(t, &Store{hook: func(h []framework.Tool, c *framework.CatchAll) []framework.Tool {
		out := []framework.Tool{}
		for _, t := range h {
			if t.Name == "append" {
				t.Name, t.Description, t.Title = "push", "Push a value.", "Push"
				out = append(out, t)
			}
		}
		long := c.Tool("a_rather_long_tool_name_that_blows_the_claude_code_budget", nil, "")
		return append(out, long)
	}})
	ro := h.seed(`{}`)
	if c := h.call("push", `{"value":"x"}`, ro.token); *c.IsError || c.text() != `{"values":["x"]}` {
		t.Errorf("push: %+v", c)
	}
	raw := h.rpcOK(listMsg, "")
	if !strings.Contains(string(raw), `{"name":"push","title":"Push","description":"Push a value.","inputSchema":{"properties":{"value"`) {
		t.Errorf("list: %s", raw)
	}
	if c := h.call("push", `{}`, ro.token); !strings.HasPrefix(c.text(), "HTTP 422 from POST /push: ") {
		t.Errorf("errors name the exposed tool: %q", c.text())
	}
	if !strings.Contains(h.logs.String(), `level=WARN msg="MCP tool names are long: clients that prefix tools (mcp__<instance>__<tool>) may reject them" door=mcp `+
		`count=1 tools=a_rather_long_tool_name_that_blows_the_claude_code_budget longest=mcp__store__a_rather_long_tool_name_that_blows_the_claude_code_budget length=69 limit=64`) {
		t.Errorf("no long-name warning: %s", h.logs.String())
	}
}

// TestLongToolNamesOneWarning: a long instance name (NeMo's
// example_session_state_mgmt_resources_server) that makes many tool names
// long gives one warning for the instance, with the count, the first ten
// names in tools/list order, how many more, and the longest qualified name.
func TestLongToolNamesOneWarning(t *testing.T) {
	t.Parallel()
	const instance = "example_session_state_mgmt_resources_server" // mcp__<it>__ is 50 characters
	h := newHost(t, &Store{hook: func(harvested []framework.Tool, c *framework.CatchAll) []framework.Tool {
		out := harvested // append, raw_step (56, 58 characters qualified), end_session (61): short enough
		for i := range 12 {
			out = append(out, c.Tool(fmt.Sprintf("tool_%02d_long", i), nil, "")) // 62 characters qualified
		}
		return append(out, c.Tool("increment_counter", nil, ""), c.Tool("a_much_longer_tool_name", nil, ""))
	}}, hostOptions{instance: instance})
	var lines []string
	for _, l := range strings.Split(h.logs.String(), "\n") {
		if strings.Contains(l, "long") && strings.Contains(l, "level=WARN") {
			lines = append(lines, l)
		}
	}
	want := `level=WARN msg="MCP tool names are long: clients that prefix tools (mcp__<instance>__<tool>) may reject them" door=mcp count=2 ` +
		`tools="a_much_longer_tool_name, increment_counter" longest=mcp__` + instance + `__a_much_longer_tool_name length=73 limit=64`
	if len(lines) != 1 || !strings.HasSuffix(lines[0], want) {
		t.Errorf("long-name warnings:\n%s\nwant one ending in\n%s", strings.Join(lines, "\n"), want)
	}

	// More than ten: the first ten, then how many more.
	h = newHost(t, &Store{hook: func(harvested []framework.Tool, c *framework.CatchAll) []framework.Tool {
		var out []framework.Tool
		for i := range 12 {
			out = append(out, c.Tool(fmt.Sprintf("tool_%02d_with_a_long_name", i), nil, ""))
		}
		return out
	}}, hostOptions{instance: instance})
	want = `count=12 tools="tool_00_with_a_long_name, tool_01_with_a_long_name, tool_02_with_a_long_name, tool_03_with_a_long_name, ` +
		`tool_04_with_a_long_name, tool_05_with_a_long_name, tool_06_with_a_long_name, tool_07_with_a_long_name, ` +
		`tool_08_with_a_long_name, tool_09_with_a_long_name, and 2 more" longest=mcp__` + instance + `__tool_00_with_a_long_name length=74 limit=64`
	if n := strings.Count(h.logs.String(), "MCP tool names are long"); n != 1 || !strings.Contains(h.logs.String(), want) {
		t.Errorf("%d long-name warnings, want one with %s:\n%s", n, want, h.logs.String())
	}
}

func TestResultEncodings(t *testing.T) {
	t.Parallel()
	h := newHost(t, Shapes{})
	ro := h.seed(`{}`)
	for _, tc := range []struct {
		tool, text string
		isError    bool
		structured bool
	}{
		{"numbers", `[1,2]`, false, false},
		{"html", "{\"s\":\"<b>&amp; é\u2028\"}", false, true},
		{"nan", "Out of range float values are not JSON compliant", true, false},
	} {
		c := h.call(tc.tool, ``, ro.token)
		if *c.IsError != tc.isError || c.text() != tc.text || (c.StructuredContent != nil) != tc.structured {
			t.Errorf("%s: isError=%v %q structured=%s", tc.tool, *c.IsError, c.text(), c.StructuredContent)
		}
	}
	// A result that is not the object its declared outputSchema promises
	// would break MCP clients (the TypeScript SDK rejects a success without
	// structuredContent): an isError 500, as for any other broken result.
	hs := newHost(t, &Store{hook: func(h []framework.Tool, c *framework.CatchAll) []framework.Tool {
		tool := c.Tool("scalar", nil, "")
		tool.OutputSchema = json.RawMessage(`{"type":"object","properties":{}}`)
		return append(h, tool, c.Tool("scalar2", nil, ""))
	}})
	sro := hs.seed(`{}`)
	if c := hs.call("scalar", ``, sro.token); !*c.IsError || c.text() != "HTTP 500 from POST /scalar: the tool declares an object outputSchema but returned a string" {
		t.Errorf("scalar with an outputSchema: %+v", c)
	}
	if c := hs.call("scalar2", ``, sro.token); *c.IsError || c.text() != "just text" {
		t.Errorf("scalar without an outputSchema: %+v", c)
	}
	if !strings.Contains(hs.logs.String(), "tool call failed") {
		t.Errorf("not logged: %s", hs.logs.String())
	}
	// Raw UTF-8 on the wire, no HTML escaping (Python's JSON).
	r := h.rpc(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"html"}}`, ro.token)
	if !strings.Contains(string(r.Body), "<b>&amp; é\u2028") {
		t.Errorf("wire: %s", r.Body)
	}
}

func TestSeedKeySplicing(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, answer, want string
	}{
		{"empty object", `{}`, `{"mcp":{`},
		{"fields kept in order", `{"a":1,"b":[2]}`, `{"a":1,"b":[2],"mcp":{"server_name":"store","url_path":"/mcp","transport":"http","headers":{"X-NeMo-Gym-Session-Token":"`},
		{"server-supplied mcp wins", `{"mcp":{"mine":true}}`, `{"mcp":{"mine":true}}`},
		{"not an object", `["x"]`, `["x"]`},
		{"a string", `"x"`, `"x"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHost(t, &seeder{answer: tc.answer})
			r := h.post("/seed_session", `{}`, "")
			if r.Status != 200 || !strings.HasPrefix(string(r.Body), tc.want) || !json.Valid(r.Body) {
				t.Errorf("%d %s, want prefix %s", r.Status, r.Body, tc.want)
			}
		})
	}
}

// seeder answers /seed_session with a fixed JSON value.
type seeder struct {
	framework.Base
	answer string
}

func (s *seeder) Routes(r *framework.Router) {
	framework.SeedSession(r, func(context.Context, framework.NoBody) (json.RawMessage, error) {
		return json.RawMessage(s.answer), nil
	})
	framework.Post(r, "/append", func(context.Context, AppendRequest) (AppendResponse, error) { return AppendResponse{}, nil })
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{}, nil
	})
}

// The token's session is the seed's cookie session, the same on the
// rollout-prefixed path, and the tool sees the rollout id.
func TestRolloutPrefixAndContextReachTheTool(t *testing.T) {
	t.Parallel()
	var gotRollout string
	h := newHost(t, &Store{extra: func(r *framework.Router) {
		framework.Post(r, "/whoami", func(ctx context.Context, _ framework.NoBody) (map[string]string, error) {
			gotRollout = framework.RolloutID(ctx)
			return map[string]string{"door": framework.DoorOf(ctx).String()}, nil
		})
	}})
	ro := h.seed(`{}`)
	r := h.do("POST", "/ng-rollout/rollout-7/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami"}}`,
		"Content-Type", jsonCT, "Accept", both, mcpexpose.TokenHeader, ro.token)
	if r.Status != 200 || !strings.Contains(string(r.Body), `"structuredContent":{"door":"mcp"}`) || gotRollout != "rollout-7" {
		t.Errorf("%d %s rollout=%q", r.Status, r.Body, gotRollout)
	}
}

// panicky panics when it is encoded: after the tool returned, in the door's
// own code, which the SDK runs in a goroutine without recover.
type panicky struct{}

func (panicky) MarshalJSON() ([]byte, error) { panic("encoder exploded") }

func TestPanicOutsideTheToolIsRecovered(t *testing.T) {
	t.Parallel()
	h := newHost(t, &Store{extra: func(r *framework.Router) {
		framework.Post(r, "/explode", func(context.Context, framework.NoBody) (panicky, error) { return panicky{}, nil })
	}})
	ro := h.seed(`{}`)
	if c := h.call("explode", ``, ro.token); !*c.IsError || c.text() != "HTTP 500 from POST /explode: panic: encoder exploded" {
		t.Errorf("explode: %+v", c)
	}
	if !strings.Contains(h.logs.String(), "MCP request panicked") {
		t.Errorf("not logged: %s", h.logs.String())
	}
	if c := h.call("append", `{"value":"still alive"}`, ro.token); *c.IsError {
		t.Errorf("after the panic: %s", c.text())
	}
}

// bare has no framework.Base: no Tools or AllowedToolsForSession hook.
type bare struct{}

func (bare) Routes(r *framework.Router) {
	framework.Post(r, "/append", func(_ context.Context, req AppendRequest) (AppendResponse, error) {
		return AppendResponse{Values: []string{req.Value}}, nil
	}, framework.Title("Append"), framework.Destructive(), framework.Idempotent(), framework.OpenWorld())
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{}, nil
	})
}

func TestServerWithoutHooksExposesEveryTypedTool(t *testing.T) {
	t.Parallel()
	h := newHost(t, bare{})
	raw := h.rpcOK(listMsg, "")
	if !strings.Contains(string(raw), `{"name":"append","title":"Append","inputSchema":`) ||
		!strings.HasSuffix(string(raw), `"annotations":{"destructiveHint":true,"idempotentHint":true,"openWorldHint":true}}]}`) {
		t.Errorf("list: %s", raw)
	}
	ro := h.seed(`{}`)
	if c := h.call("append", `{"value":"x"}`, ro.token); *c.IsError || c.text() != `{"values":["x"]}` {
		t.Errorf("call: %+v", c)
	}
}
