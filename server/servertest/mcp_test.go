package servertest_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/gymkit/gymkit/mcpexpose"
	"github.com/gymkit/gymkit/server/servertest"
	examplemcpweather "github.com/gymkit/gymkit/servers/example_mcp_weather"
	sessionstate "github.com/gymkit/gymkit/servers/example_session_state_mgmt"
)

func TestRolloutMCP(t *testing.T) {
	t.Parallel()
	ts := servertest.New(t, new(examplemcpweather.Weather), servertest.Options{Name: "example_mcp_weather", MCP: true})
	ro := ts.Rollout()
	if ro.Token() != "" {
		t.Fatal("a token before any seed")
	}
	if res := ro.Post("/seed_session", `{}`); res.Status != 200 {
		t.Fatalf("seed: %d %s", res.Status, res.Body)
	}
	if ro.Token() == "" || ro.Token() != servertest.SeedToken(ro.Post("/get_weather", `{"city":"x"}`).Body)+ro.Token() {
		t.Fatal("no token kept from the seed answer, or one taken from a tool answer")
	}
	c := ro.MCP()
	if names := c.ToolNames(); !slices.Equal(names, []string{"get_weather"}) {
		t.Errorf("tools/list: %v", names)
	}
	tools := c.ListTools()
	if len(tools) != 1 || tools[0].InputSchema == nil || tools[0].OutputSchema == nil {
		t.Errorf("tools/list: %+v", tools)
	}

	ok := c.CallTool("get_weather", map[string]any{"city": "Paris"})
	var got struct{ Weather string }
	ok.Decode(t, &got)
	if ok.IsError || got.Weather != "The weather in Paris is sunny and 72 F." || ok.Text != `{"weather":"The weather in Paris is sunny and 72 F."}` {
		t.Errorf("good call: %+v", ok)
	}
	raw := c.CallTool("get_weather", `{"city":"Oslo"}`)
	if raw.IsError || !strings.Contains(raw.Text, "Oslo") {
		t.Errorf("JSON text arguments: %+v", raw)
	}
	bad := c.CallTool("get_weather", map[string]any{})
	if !bad.IsError || !strings.HasPrefix(bad.Text, "HTTP 422 from POST /get_weather: ") || bad.Structured != nil {
		t.Errorf("422: %+v", bad)
	}
	unknown := c.CallTool("nope", nil)
	if !unknown.IsError || !strings.HasPrefix(unknown.Text, "Unknown tool: 'nope'.") {
		t.Errorf("unknown tool: %+v", unknown)
	}
	if ro.MCP() != c {
		t.Error("a second client for the same token")
	}

	// The MCP call ran in the rollout's session: verify sees it.
	v := ro.Post("/verify", verifyBody("The weather in Paris is sunny and 72 F."))
	if v.Status != 200 || !strings.Contains(string(v.Body), `"tool_call_seen":true`) {
		t.Errorf("verify after the MCP call: %d %s", v.Status, v.Body)
	}

	// A seed of the same rollout (same session) gives the same token: the
	// same client. A failed seed keeps the token.
	old := ro.Token()
	ro.Post("/seed_session", `{}`)
	ro.Post("/seed_session", `[1]`)
	if ro.Token() != old || ro.MCP() != c {
		t.Error("a re-seed of the rollout changed its token or client")
	}
	// Another rollout's client is another session.
	other := ts.Rollout()
	other.Post("/seed_session", `{}`)
	if other.Token() == old || other.MCP() == c {
		t.Error("two rollouts share a token or a client")
	}
}

// The MCP call and the HTTP calls share one rollout session.
func TestRolloutMCPSharesTheSession(t *testing.T) {
	t.Parallel()
	ts := servertest.New(t, new(sessionstate.Counter), servertest.Options{MCP: true})
	a, b := ts.Rollout(), ts.Rollout()
	a.Post("/seed_session", `{"initial_count": 3}`)
	b.Post("/seed_session", `{"initial_count": 0}`)
	a.MCP().CallTool("increment_counter", map[string]any{"count": 2})
	res := a.Post("/get_counter_value", `{}`)
	if string(res.Body) != `{"count":5}` {
		t.Errorf("HTTP after MCP: %s", res.Body)
	}
	var other struct{ Count int }
	b.MCP().CallTool("get_counter_value", nil).Decode(t, &other)
	if other.Count != 0 {
		t.Errorf("another rollout sees count %d", other.Count)
	}
}

func TestConnectMCPTokens(t *testing.T) {
	t.Parallel()
	ts := servertest.New(t, new(examplemcpweather.Weather), servertest.Options{MCP: true})
	for _, tc := range []struct{ name, token, want string }{
		{"no token", "", "Missing " + mcpexpose.TokenHeader},
		{"forged token", "forged.token", "Invalid"},
	} {
		c, err := ts.ConnectMCP(context.Background(), tc.token)
		if err != nil {
			t.Fatalf("%s: initialize: %v", tc.name, err)
		}
		res := c.CallTool("get_weather", map[string]any{"city": "Paris"})
		if !res.IsError || !strings.Contains(res.Text, tc.want) {
			t.Errorf("%s: %+v", tc.name, res)
		}
	}
	c, _ := ts.ConnectMCP(context.Background(), "")
	_, err := c.Call("get_weather", `[1]`) // arguments not an object: a JSON-RPC error
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32602 {
		t.Errorf("non-object arguments: %v", err)
	}
}

func TestTokenTransport(t *testing.T) {
	t.Parallel()
	var seen atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.Store(r.Header.Values(mcpexpose.TokenHeader))
	}))
	defer srv.Close()
	for _, tok := range []string{"abc.def", ""} {
		req, _ := http.NewRequest("GET", srv.URL, nil)
		req.Header.Set("X-Other", "1")
		res, err := (&http.Client{Transport: &servertest.TokenTransport{Token: tok}}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		got := seen.Load().([]string)
		if (tok == "" && len(got) != 0) || (tok != "" && !slices.Equal(got, []string{tok})) {
			t.Errorf("token %q: server saw %v", tok, got)
		}
		if req.Header.Get(mcpexpose.TokenHeader) != "" {
			t.Error("the caller's request was modified")
		}
	}
}

func TestSeedToken(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]string{
		`{"mcp":{"headers":{"X-NeMo-Gym-Session-Token":"t.s"}}}`: "t.s",
		`{}`:                      "",
		`{"mcp":null}`:            "",
		`{"mcp":{"headers":[1]}}`: "",
		`not json`:                "",
		`{"detail":"x"}`:          "",
	} {
		if got := servertest.SeedToken([]byte(body)); got != want {
			t.Errorf("SeedToken(%s) = %q, want %q", body, got, want)
		}
	}
}

// verifyBody is a verify request whose final answer is text, after one
// get_weather call.
func verifyBody(text string) string {
	return `{"responses_create_params":{"input":"What is the weather in Paris?"},"response":{"id":"r","created_at":0,"model":"m","object":"response",` +
		`"parallel_tool_calls":false,"tool_choice":"auto","tools":[],"output":[{"id":"m1","type":"message","role":"assistant","status":"completed",` +
		`"content":[{"type":"output_text","annotations":[],"text":"` + text + `"}]}]},"verifier_metadata":{"expected_city":"Paris"}}`
}
