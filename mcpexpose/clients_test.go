package mcpexpose_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/mcpexpose"
)

// ---- mcp.tools: the configured allow-list ----

func allowList(names ...string) hostOptions {
	return hostOptions{door: func(o *mcpexpose.Options) { o.Config.MCP.Tools = names }}
}

func listTools(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

func TestConfigAllowListGovernsListAndCall(t *testing.T) {
	h := newHost(t, &Store{}, allowList("lookup", "append", "apend", "append"))
	ro := h.seed(`{}`)
	cs := h.client(ro.token)
	if got := listTools(t, cs); !slices.Equal(got, []string{"append", "lookup"}) {
		t.Errorf("tools/list = %v, want [append lookup] (sorted, only the allow-list's)", got)
	}
	if got := listTools(t, h.client("")); !slices.Equal(got, []string{"append", "lookup"}) {
		t.Errorf("tokenless tools/list = %v", got)
	}
	if res := sdkCall(t, cs, "append", map[string]any{"value": "a"}); res.IsError {
		t.Errorf("append: %s", sdkText(res))
	}
	// An excluded tool answers exactly as a nonexistent one.
	excluded := sdkCall(t, cs, "raw_step", map[string]any{})
	missing := sdkCall(t, cs, "no_such_tool", map[string]any{})
	const available = ". Available tools: ['append', 'lookup']"
	if !excluded.IsError || sdkText(excluded) != "Unknown tool: 'raw_step'"+available {
		t.Errorf("excluded: %v %q", excluded.IsError, sdkText(excluded))
	}
	if !missing.IsError || sdkText(missing) != "Unknown tool: 'no_such_tool'"+available {
		t.Errorf("nonexistent: %v %q", missing.IsError, sdkText(missing))
	}
	// Before the token check too, as for a nonexistent tool.
	if c := h.call("raw_step", "{}", ""); sdkTextOf(c) != "Unknown tool: 'raw_step'"+available {
		t.Errorf("tokenless excluded call: %q", sdkTextOf(c))
	}
	// The HTTP door is not the allow-list's business.
	if r := h.post("/raw_step", `{"x":1}`, ro.cookie); r.Status != 200 {
		t.Errorf("POST /raw_step: %d %s", r.Status, r.Body)
	}
}

func sdkTextOf(c callResult) string { return c.text() }

func TestConfigAllowListUnderTokenAllowList(t *testing.T) {
	h := newHost(t, &Store{}, allowList("append", "lookup"))
	ro := h.seed(`{"allowed_tools": ["raw_step", "append"]}`)
	cs := h.client(ro.token)
	if got := listTools(t, cs); !slices.Equal(got, []string{"append"}) {
		t.Errorf("tools/list = %v, want [append]: both lists narrow", got)
	}
	if res := sdkCall(t, cs, "append", map[string]any{"value": "a"}); res.IsError {
		t.Errorf("append: %s", sdkText(res))
	}
	if res := sdkCall(t, cs, "lookup", map[string]any{}); sdkText(res) != "Tool 'lookup' is not allowed for this session." {
		t.Errorf("lookup: %q", sdkText(res))
	}
	if res := sdkCall(t, cs, "raw_step", map[string]any{}); sdkText(res) != "Unknown tool: 'raw_step'. Available tools: ['append', 'lookup']" {
		t.Errorf("raw_step: %q", sdkText(res))
	}
}

func TestConfigAllowListEmptyExposesNothing(t *testing.T) {
	h := newHost(t, &Store{}, hostOptions{door: func(o *mcpexpose.Options) { o.Config.MCP.Tools = []string{} }})
	ro := h.seed(`{}`)
	cs := h.client(ro.token)
	if got := listTools(t, cs); len(got) != 0 {
		t.Errorf("tools/list = %v, want none", got)
	}
	if res := sdkCall(t, cs, "append", map[string]any{"value": "a"}); sdkText(res) != "Unknown tool: 'append'. Available tools: []" {
		t.Errorf("append: %q", sdkText(res))
	}
}

func TestConfigAllowListUnknownNamesLoggedOnce(t *testing.T) {
	h := newHost(t, &Store{}, allowList("apend", "lookup", "zzz", "apend"))
	ro := h.seed(`{}`)
	cs := h.client(ro.token)
	listTools(t, cs)
	sdkCall(t, cs, "apend", map[string]any{})
	logs := h.logs.String()
	if n := strings.Count(logs, "mcp.tools names tools that are not exposed"); n != 1 {
		t.Fatalf("logged %d times, want once:\n%s", n, logs)
	}
	if !strings.Contains(logs, "level=WARN") || !strings.Contains(logs, `unknown="apend (closest: append), zzz (closest:`) {
		t.Errorf("log line lacks the names or the closest names:\n%s", logs)
	}
	// Without an allow-list, or with a list of exposed names only: no warning.
	for _, ho := range []hostOptions{{}, allowList("append")} {
		if h := newHost(t, &Store{}, ho); strings.Contains(h.logs.String(), "mcp.tools") {
			t.Errorf("unexpected warning:\n%s", h.logs.String())
		}
	}
}

// ---- mcp.server_info ----

func TestServerInfoInInitialize(t *testing.T) {
	h := newHost(t, &Store{}, hostOptions{instance: "weather", door: func(o *mcpexpose.Options) {
		o.Config.MCP.ServerInfo = config.MCPServerInfo{Name: "Weather Tools", Version: "1.2.3", Title: "Weather", Instructions: "Call get_weather first."}
	}})
	init := h.client("").InitializeResult()
	if si := init.ServerInfo; si.Name != "Weather Tools" || si.Version != "1.2.3" || si.Title != "Weather" {
		t.Errorf("serverInfo = %+v", si)
	}
	if init.Instructions != "Call get_weather first." {
		t.Errorf("instructions = %q", init.Instructions)
	}
	// The seed's server_name stays the instance name.
	if ro := h.seed(`{}`); ro.seed["mcp"].(map[string]any)["server_name"] != "weather" {
		t.Errorf("seed mcp = %v", ro.seed["mcp"])
	}
}

func TestServerInfoDefaults(t *testing.T) {
	h := newHost(t, &Store{}, hostOptions{instance: "weather", door: func(o *mcpexpose.Options) {
		o.Config.MCP.ServerInfo = config.MCPServerInfo{Title: "Weather"} // the rest defaulted
	}})
	init := h.client("").InitializeResult()
	if si := init.ServerInfo; si.Name != "weather" || si.Version == "" || si.Title != "Weather" {
		t.Errorf("serverInfo = %+v, want the instance name and gymkit's version", si)
	}
	def := newHost(t, &Store{}, hostOptions{instance: "weather"})
	r := def.rpcOK(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, "")
	if s := string(r); strings.Contains(s, "instructions") || strings.Contains(s, `"title"`) ||
		!strings.Contains(s, `"serverInfo":{"name":"weather","version":"`+init.ServerInfo.Version+`"}`) {
		t.Errorf("default initialize result: %s", s)
	}
}

// ---- mcp.coerce_json_strings ----

// SumRequest has an array field, an object field, a string field and an
// optional array.
type SumRequest struct {
	Xs    []int          `json:"xs" required:"true"`
	Names map[string]int `json:"names"`
	Note  string         `json:"note"`
	Maybe *[]int         `json:"maybe"`
}

type SumResponse struct {
	Sum   int    `json:"sum"`
	Names int    `json:"names"`
	Note  string `json:"note"`
	Maybe int    `json:"maybe"`
}

func summer() *Store {
	return &Store{extra: func(r *framework.Router) {
		framework.Post(r, "/sum", func(_ context.Context, req SumRequest) (SumResponse, error) {
			out := SumResponse{Names: len(req.Names), Note: req.Note}
			for _, x := range req.Xs {
				out.Sum += x
			}
			if req.Maybe != nil {
				out.Maybe = len(*req.Maybe)
			}
			return out, nil
		})
	}}
}

func coerce(on bool) hostOptions {
	return hostOptions{door: func(o *mcpexpose.Options) { o.Config.MCP.CoerceJSONStrings = on }}
}

func TestCoerceJSONStringsOn(t *testing.T) {
	h := newHost(t, summer(), coerce(true))
	ro := h.seed(`{}`)
	cs := h.client(ro.token)
	res := sdkCall(t, cs, "sum", map[string]any{"xs": "[1,2]", "names": " \n{\"a\": 1, \"b\": 2}", "note": "[3]", "maybe": "[4, 5]"})
	if res.IsError || sdkText(res) != `{"sum":3,"names":2,"note":"[3]","maybe":2}` {
		t.Fatalf("repaired call: %v %s", res.IsError, sdkText(res))
	}
	if n := h.door.ArgumentRepairs(); n != 3 {
		t.Errorf("ArgumentRepairs() = %d, want 3 (xs, names, maybe; not the string field)", n)
	}
	logs := h.logs.String()
	for _, f := range []string{"xs", "names", "maybe"} {
		if !strings.Contains(logs, "level=DEBUG msg=\"decoded a tools/call argument sent as a JSON string\" door=mcp tool=sum field="+f) {
			t.Errorf("no debug line for %s:\n%s", f, logs)
		}
	}
	// Anything else is left to validation: a string that is not JSON, or
	// that does not start with [ or {.
	for _, xs := range []string{"1,2", "[1,2", `"[1]"`, "null"} {
		res := sdkCall(t, cs, "sum", map[string]any{"xs": xs})
		if !res.IsError || !strings.HasPrefix(sdkText(res), `HTTP 422 from POST /sum: [{"type": "list_type", "loc": ["xs"]`) {
			t.Errorf("xs %q: %v %s", xs, res.IsError, sdkText(res))
		}
	}
	// A decoded value of the wrong type is validation's too.
	if res := sdkCall(t, cs, "sum", map[string]any{"xs": `{"a":1}`}); !strings.HasPrefix(sdkText(res), "HTTP 422 from POST /sum:") {
		t.Errorf("object for an array: %s", sdkText(res))
	}
	if n := h.door.ArgumentRepairs(); n != 4 {
		t.Errorf("ArgumentRepairs() = %d, want 4", n)
	}
	// The HTTP door is not repaired.
	if r := h.post("/sum", `{"xs":"[1,2]"}`, ro.cookie); r.Status != 422 {
		t.Errorf("POST /sum: %d %s", r.Status, r.Body)
	}
}

func TestCoerceJSONStringsKeepsOtherBytes(t *testing.T) {
	h := newHost(t, summer(), coerce(true))
	ro := h.seed(`{}`)
	c := h.call("sum", `{ "note" : "é\u00e9" , "xs":"[1, 2,\n 3]","names":{"a":1}}`, ro.token)
	if *c.IsError || c.text() != `{"sum":6,"names":1,"note":"éé","maybe":0}` {
		t.Errorf("call: %v %s", *c.IsError, c.text())
	}
}

func TestCoerceJSONStringsOff(t *testing.T) {
	for _, ho := range []hostOptions{{}, coerce(false)} {
		h := newHost(t, summer(), ho)
		ro := h.seed(`{}`)
		res := sdkCall(t, h.client(ro.token), "sum", map[string]any{"xs": "[1,2]"})
		if !res.IsError || sdkText(res) != `HTTP 422 from POST /sum: [{"type": "list_type", "loc": ["xs"], "msg": "Input should be a valid list", "input": "[1,2]", "url": "https://errors.pydantic.dev/2.13/v/list_type"}]` {
			t.Errorf("off: %v %s", res.IsError, sdkText(res))
		}
		if n := h.door.ArgumentRepairs(); n != 0 {
			t.Errorf("ArgumentRepairs() = %d", n)
		}
	}
}
