package servertest

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gymkit/gymkit/mcpexpose"
)

// TokenTransport is an http.RoundTripper that sends a rollout's MCP session
// token: it sets the X-NeMo-Gym-Session-Token header (mcpexpose.TokenHeader)
// to Token on a clone of every request, then hands it to Base. Give it to
// the go-sdk client, which has no option for extra headers:
//
//	hc := &http.Client{Transport: &servertest.TokenTransport{Token: token}}
//	cs, err := mcp.NewClient(impl, nil).Connect(ctx,
//		&mcp.StreamableClientTransport{Endpoint: baseURL + "/mcp", HTTPClient: hc}, nil)
//
// Token is the "mcp.headers.X-NeMo-Gym-Session-Token" value of the
// /seed_session answer (docs/mcp.md, "Session tokens and allow-lists"); ""
// sends no header (the door then answers every tools/call with the isError
// "Missing X-NeMo-Gym-Session-Token ..."). Base nil means
// http.DefaultTransport. The request given to RoundTrip is not modified,
// as http.RoundTripper requires. Safe for concurrent use; the fields must
// not change while it is in use. It needs nothing from package testing and
// serves any Go program that talks to a gymkit (or NeMo Gym) MCP door.
type TokenTransport struct {
	Token string
	Base  http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (t *TokenTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	if t.Token == "" {
		return base.RoundTrip(r)
	}
	r = r.Clone(r.Context())
	r.Header.Set(mcpexpose.TokenHeader, t.Token)
	return base.RoundTrip(r)
}

// SeedToken returns the MCP session token of a /seed_session answer body
// (its "mcp" key, contract d.3), or "" when it has none (an instance without
// expose_tools_over_mcp, an error answer, a body that is not JSON).
func SeedToken(body []byte) string {
	var ans struct {
		MCP struct {
			Headers map[string]string `json:"headers"`
		} `json:"mcp"`
	}
	if json.Unmarshal(body, &ans) != nil {
		return ""
	}
	return ans.MCP.Headers[mcpexpose.TokenHeader]
}

// Token returns the MCP session token of the rollout's last successful
// POST /seed_session answer ("" before one, or when the instance does not
// expose MCP).
func (r *Rollout) Token() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.token
}

// noteSeed remembers the token of a seed answer.
func (r *Rollout) noteSeed(path string, res *Response) {
	if res.Status != http.StatusOK || !strings.HasSuffix(path, "/seed_session") {
		return
	}
	tok := SeedToken(res.Body)
	if tok == "" {
		return
	}
	r.mu.Lock()
	r.token = tok
	r.mu.Unlock()
}

// MCPClient is the official go-sdk client connected to the instance's /mcp
// with one rollout's session token, as NeMo's claude_code_agent connects:
// its tools/call run in that rollout's session, beside the rollout's HTTP
// calls. Session is the go-sdk session for anything the helpers do not
// cover; it is closed when the test ends. Safe for concurrent use (as the
// go-sdk session is).
type MCPClient struct {
	Session *mcp.ClientSession
	t       testing.TB
}

// MCP returns an MCP client bound to the token of the rollout's last
// /seed_session answer (see [Rollout.Token]): connected on first use
// (initialize), then the same client until a later seed changes the
// token. It fails the test when there is no token yet (seed first, on an
// instance with Options.MCP) or when initialize fails.
func (r *Rollout) MCP() *MCPClient {
	t := r.s.t
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.token == "" {
		t.Fatal("servertest: Rollout.MCP: no MCP session token: POST /seed_session first, on a server started with Options.MCP")
	}
	if r.mcp != nil && r.mcpToken == r.token {
		return r.mcp
	}
	c, err := r.s.ConnectMCP(context.Background(), r.token)
	if err != nil {
		t.Fatalf("servertest: MCP initialize: %v", err)
	}
	r.mcp, r.mcpToken = c, r.token
	return c
}

// ConnectMCP connects a new go-sdk client to the server's /mcp, sending
// token (which may be "", or any string, to test the door's refusals) on
// every request. The session is closed when the test ends. The error is
// the go-sdk's (initialize failed).
func (s *Server) ConnectMCP(ctx context.Context, token string) (*MCPClient, error) {
	return connect(ctx, s.t, s.URL, token, s.Client().Transport)
}

// DialMCP connects a new go-sdk client to baseURL + "/mcp" (baseURL is
// "http://host:port", e.g. an httptest.Server's URL, for instances not
// started with [New]), sending token on every request; it fails the test
// when initialize fails. The session is closed when the test ends.
func DialMCP(t testing.TB, baseURL, token string) *MCPClient {
	t.Helper()
	c, err := connect(context.Background(), t, baseURL, token, nil)
	if err != nil {
		t.Fatalf("servertest: MCP initialize at %s: %v", baseURL, err)
	}
	return c
}

func connect(ctx context.Context, t testing.TB, baseURL, token string, base http.RoundTripper) (*MCPClient, error) {
	hc := &http.Client{Transport: &TokenTransport{Token: token, Base: base}}
	c := mcp.NewClient(&mcp.Implementation{Name: "gymkit-servertest", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: strings.TrimSuffix(baseURL, "/") + mcpexpose.URLPath,
		HTTPClient: hc, DisableStandaloneSSE: true, MaxRetries: -1}, nil)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { _ = cs.Close() })
	return &MCPClient{Session: cs, t: t}, nil
}

// ListTools returns tools/list's tools (every page), failing the test on a
// JSON-RPC or transport error.
func (c *MCPClient) ListTools() []*mcp.Tool {
	c.t.Helper()
	var out []*mcp.Tool
	for tool, err := range c.Session.Tools(context.Background(), nil) {
		if err != nil {
			c.t.Fatalf("servertest: tools/list: %v", err)
		}
		out = append(out, tool)
	}
	return out
}

// ToolNames returns the names of tools/list's tools, in the door's order.
func (c *MCPClient) ToolNames() []string {
	c.t.Helper()
	var names []string
	for _, t := range c.ListTools() {
		names = append(names, t.Name)
	}
	return names
}

// ToolResult is one tools/call answer.
type ToolResult struct {
	// Result is the go-sdk's decoded result.
	Result *mcp.CallToolResult
	// IsError is the result's isError: the tool failed (a 422, 500, an
	// unknown or disallowed tool, a missing token; docs/mcp.md "tools/list
	// and tools/call").
	IsError bool
	// Text is the text content, the text items joined with "\n" (a
	// success's JSON result as NeMo writes it, or a failure's message such
	// as "HTTP 422 from POST /get_weather: [...]").
	Text string
	// Structured is structuredContent as JSON (nil when absent, as on
	// every isError result), re-encoded with encoding/json from the go-sdk's
	// decoded value: keys sorted, numbers through float64. For the exact
	// bytes the door wrote, post the JSON-RPC request with Rollout.Do.
	Structured json.RawMessage
}

// Decode decodes Structured into dst with encoding/json, failing the test
// when it is absent or does not decode.
func (r *ToolResult) Decode(t testing.TB, dst any) {
	t.Helper()
	if len(r.Structured) == 0 {
		t.Fatalf("servertest: tools/call result has no structuredContent (isError %v, text %q)", r.IsError, r.Text)
	}
	if err := json.Unmarshal(r.Structured, dst); err != nil {
		t.Fatalf("servertest: structuredContent %s: %v", r.Structured, err)
	}
}

// CallTool calls a tool (tools/call; args is anything encoding/json
// encodes, a json.RawMessage or a string of JSON sent as is; nil sends no
// arguments) and returns its result, isError or not. A JSON-RPC error or a
// transport failure fails the test: use [MCPClient.Call] to test those.
func (c *MCPClient) CallTool(name string, args any) *ToolResult {
	c.t.Helper()
	res, err := c.Call(name, args)
	if err != nil {
		c.t.Fatalf("servertest: tools/call %s: %v", name, err)
	}
	return res
}

// Call is CallTool that returns the error instead of failing the test: a
// *jsonrpc.Error for a JSON-RPC error answer (errors.As), else the
// transport's.
func (c *MCPClient) Call(name string, args any) (*ToolResult, error) {
	if s, ok := args.(string); ok {
		args = json.RawMessage(s)
	}
	res, err := c.Session.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return nil, err
	}
	out := &ToolResult{Result: res, IsError: res.IsError}
	var parts []string
	for _, ct := range res.Content {
		if tc, ok := ct.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	out.Text = strings.Join(parts, "\n")
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return nil, errors.New("servertest: structuredContent: " + err.Error())
		}
		out.Structured = b
	}
	return out, nil
}

// mcpState is the part of a Rollout the MCP helpers keep.
type mcpState struct {
	token    string     // the last seed's MCP session token
	mcp      *MCPClient // connected for mcpToken
	mcpToken string
}
