package mcpexpose_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/framework"
	fwhost "github.com/gymkit/gymkit/framework/host"
	"github.com/gymkit/gymkit/internal/testkit/syncbuf"
	"github.com/gymkit/gymkit/mcpexpose"
	"github.com/gymkit/gymkit/session"
)

// ---- the Store fixture (contract d.11) ----

// Store is the contract's synthetic server: a typed append tool with
// per-session state, a dict-body raw_step, an end_session route, a
// catch-all dispatcher and a Tools hook that mints the catch-all tool
// "lookup"; its AllowedToolsForSession returns the seed's allowed_tools.
type Store struct {
	framework.Base
	// hook replaces the default Tools hook when set.
	hook func(harvested []framework.Tool, c *framework.CatchAll) []framework.Tool
	// extra registers more routes.
	extra func(r *framework.Router)
	// noDispatch leaves the catch-all out.
	noDispatch bool
}

var (
	_ framework.ToolsProvider     = (*Store)(nil)
	_ framework.SessionToolFilter = (*Store)(nil)
)

type AppendRequest struct {
	Value string `json:"value" required:"true"`
}

type AppendResponse struct {
	Values []string `json:"values"`
}

type echo struct {
	Echo framework.Value `json:"echo"`
}

type dispatched struct {
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args"`
}

func (s *Store) Routes(r *framework.Router) {
	framework.Post(r, "/append", s.append, framework.Description("Append a value to this rollout's list.\n\nReturns every value so far."))
	framework.Post(r, "/raw_step", func(_ context.Context, body framework.Value) (echo, error) { return echo{body}, nil })
	framework.Post(r, "/end_session", func(context.Context, framework.NoBody) (map[string]string, error) {
		return map[string]string{"ended": "x"}, nil
	})
	if !s.noDispatch {
		framework.Dispatch(r, func(_ context.Context, tool string, args json.RawMessage) (any, error) {
			if strings.HasPrefix(tool, "scalar") {
				return "just text", nil
			}
			return dispatched{Tool: tool, Args: args}, nil
		})
	}
	if s.extra != nil {
		s.extra(r)
	}
	framework.Verify(r, s.verify)
}

func (s *Store) append(ctx context.Context, req AppendRequest) (AppendResponse, error) {
	var out []string
	err := session.Update(ctx, "values", func(v *[]string) error {
		*v = append(*v, req.Value)
		out = slices.Clone(*v)
		return nil
	})
	return AppendResponse{Values: out}, err
}

func (s *Store) Tools(harvested []framework.Tool, c *framework.CatchAll) []framework.Tool {
	if s.hook != nil {
		return s.hook(harvested, c)
	}
	return append(harvested, c.Tool("lookup", nil, "Look anything up."))
}

func (s *Store) AllowedToolsForSession(_ context.Context, seed json.RawMessage) ([]string, error) {
	var body struct {
		AllowedTools *[]string `json:"allowed_tools"`
		Explode      bool      `json:"explode"`
	}
	if err := json.Unmarshal(seed, &body); err != nil {
		return nil, err
	}
	if body.Explode {
		return nil, errors.New("allow-list service unavailable")
	}
	if body.AllowedTools == nil {
		return nil, nil
	}
	return *body.AllowedTools, nil
}

// StoreVerifyRequest records the names verify sees.
type StoreVerifyRequest struct {
	framework.VerifyRequest
}

type StoreVerifyResponse struct {
	framework.VerifyResponse
	Seen []string `json:"seen"`
}

func (s *Store) verify(_ context.Context, req StoreVerifyRequest) (StoreVerifyResponse, error) {
	var seen []string
	for _, it := range req.Response.Output {
		if it.Type == "function_call" {
			seen = append(seen, it.Name)
		}
	}
	return StoreVerifyResponse{VerifyResponse: framework.VerifyResponse{Reward: 1}, Seen: seen}, nil
}

// ---- the Shapes fixture: one route per handler shape ----

type Shapes struct{ framework.Base }

type PublicView struct {
	Shown  string `json:"shown"`
	secret string
}

type UpperRequest struct {
	Text string `json:"text" required:"true"`
}

type UpperResponse struct {
	Upper string `json:"upper"`
}

type Measure struct {
	X float64 `json:"x"`
}

// Floats holds numbers whose Python repr and pydantic forms differ (and
// some whose forms agree).
type Floats struct {
	Tiny    float64         `json:"tiny"`
	Tinier  float64         `json:"tinier"`
	Small   float64         `json:"small"`
	Big     float64         `json:"big"`
	Huge    float64         `json:"huge"`
	Whole   float64         `json:"whole"`
	Count   int             `json:"count"`
	Nested  []float64       `json:"nested"`
	Text    string          `json:"text"`
	Literal framework.Value `json:"literal"`
}

func (Shapes) Routes(r *framework.Router) {
	framework.Post(r, "/dict_body", func(_ context.Context, body map[string]any) (map[string]any, error) { return body, nil })
	framework.Post(r, "/dict_object", func(_ context.Context, body framework.Object) (framework.Object, error) { return body, nil })
	framework.Post(r, "/upper", func(_ context.Context, req UpperRequest) (UpperResponse, error) {
		return UpperResponse{Upper: strings.ToUpper(req.Text)}, nil
	})
	framework.Post(r, "/filtered", func(context.Context, framework.NoBody) (PublicView, error) {
		return PublicView{Shown: "v", secret: "hidden"}, nil
	})
	framework.Post(r, "/kaboom", func(context.Context, framework.NoBody) (struct{}, error) {
		return struct{}{}, framework.PythonError("RuntimeError", "kaboom")
	})
	framework.Post(r, "/teapot", func(context.Context, framework.NoBody) (struct{}, error) {
		return struct{}{}, framework.Errorf(418, "short and stout")
	})
	framework.Post(r, "/nope", func(context.Context, framework.NoBody) (struct{}, error) {
		return struct{}{}, framework.Errorf(400, "nope")
	})
	framework.Post(r, "/plain", func(context.Context, framework.NoBody) (string, error) { return "plain hello", nil })
	framework.Post(r, "/numbers", func(context.Context, framework.NoBody) ([]int, error) { return []int{1, 2}, nil })
	framework.Post(r, "/boom", func(context.Context, framework.NoBody) (struct{}, error) { panic("boom") })
	framework.Post(r, "/nan", func(context.Context, framework.NoBody) (Measure, error) { return Measure{X: math.NaN()}, nil })
	framework.Post(r, "/inf", func(context.Context, framework.NoBody) (Measure, error) { return Measure{X: math.Inf(1)}, nil })
	framework.Post(r, "/neg_inf", func(context.Context, framework.NoBody) ([]float64, error) { return []float64{math.Inf(-1)}, nil })
	framework.Post(r, "/floats", func(context.Context, framework.NoBody) (Floats, error) {
		return Floats{Tiny: 1e-05, Tinier: -1.5e-07, Small: 0.0001, Big: 1e16, Huge: 1.5e22, Whole: 5, Count: 7,
			Nested: []float64{2.5e-06, 1e-4}, Text: "1e-05 2E+16", Literal: framework.NumberValue("1E-5")}, nil
	})
	framework.Post(r, "/html", func(context.Context, framework.NoBody) (map[string]string, error) {
		return map[string]string{"s": "<b>&amp; é\u2028"}, nil
	})
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{Reward: 1}, nil
	})
}

// ---- the harness: a host in miniature ----

// logBuffer is a bytes.Buffer safe for concurrent use.
type logBuffer = syncbuf.Buffer

// host is one instance served the way package server composes it:
// session middleware around door.Mount around the App's handler.
type host struct {
	t        *testing.T
	URL      string
	door     *mcpexpose.Door // nil with exposure off
	sessions *session.Manager
	cookie   string // the session cookie's name
	logs     *logBuffer
}

// hostOptions tune newHost.
type hostOptions struct {
	instance string
	noMCP    bool // expose_tools_over_mcp: false
	door     func(*mcpexpose.Options)
	state    session.StateStore // the session manager's State; nil: the memory store
}

// compose builds srv as the host does; it returns the Build or Attach
// error, if any.
func compose(t testing.TB, srv framework.Server, ho hostOptions) (*host, http.Handler, error) {
	t.Helper()
	if ho.instance == "" {
		ho.instance = "store"
	}
	logs := &logBuffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cookie := "store___" + ho.instance
	sm := session.MustNewManager(session.Options{CookieName: cookie, State: ho.state})
	h := &host{sessions: sm, cookie: cookie, logs: logs}
	opts := fwhost.Options{Name: ho.instance, Logger: log}
	if !ho.noMCP {
		cfg := config.Defaults() // host 127.0.0.1: the DNS-rebinding check is on
		cfg.Name, cfg.ServerType = ho.instance, "store"
		o := mcpexpose.Options{Config: &cfg, Secret: []byte("test secret, 32 bytes at least.."), Sessions: sm, Logger: log}
		if ho.door != nil {
			ho.door(&o)
		}
		door, err := mcpexpose.New(o)
		if err != nil {
			return nil, nil, err
		}
		h.door = door
		opts.AfterSeed, opts.NormalizeToolName = door.AfterSeed, door.NormalizeToolName
	}
	app, err := fwhost.Build(context.Background(), srv, opts)
	if err != nil {
		return nil, nil, err
	}
	var handler http.Handler = app.Handler()
	if h.door != nil {
		if err := h.door.Attach(app); err != nil {
			return nil, nil, err
		}
		handler = h.door.Mount(handler)
	}
	return h, sm.Middleware(handler), nil
}

// newHost serves srv on an httptest server.
func newHost(t *testing.T, srv framework.Server, ho ...hostOptions) *host {
	t.Helper()
	var o hostOptions
	if len(ho) > 0 {
		o = ho[0]
	}
	h, handler, err := compose(t, srv, o)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(handler)
	t.Cleanup(ts.Close)
	h.t, h.URL = t, ts.URL
	return h
}

// reply is an HTTP answer.
type reply struct {
	Status int
	Header http.Header
	Body   []byte
}

func (r reply) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("body %q: %v", r.Body, err)
	}
	return m
}

// do sends one request; header pairs are name, value.
func (h *host) do(method, path, body string, header ...string) reply {
	h.t.Helper()
	req, err := http.NewRequest(method, h.URL+path, strings.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		if strings.EqualFold(header[i], "Host") {
			req.Host = header[i+1]
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Fatal(err)
	}
	return reply{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// post is a plain HTTP tool call (the HTTP door) with a session cookie.
func (h *host) post(path, body, cookie string) reply {
	h.t.Helper()
	hdr := []string{"Content-Type", "application/json"}
	if cookie != "" {
		hdr = append(hdr, "Cookie", h.cookie+"="+cookie)
	}
	return h.do("POST", path, body, hdr...)
}

// rollout is one seeded rollout: its cookie value and its MCP token.
type rollout struct {
	cookie string
	token  string
	seed   map[string]any
}

// seed POSTs body to /seed_session with no cookie (a fresh session, as
// NeMo's agents start a rollout) and reads the cookie and the token.
func (h *host) seed(body string) rollout {
	h.t.Helper()
	r := h.post("/seed_session", body, "")
	if r.Status != 200 {
		h.t.Fatalf("seed: %d %s", r.Status, r.Body)
	}
	var ro rollout
	for _, c := range (&http.Response{Header: r.Header}).Cookies() {
		if c.Name == h.cookie {
			ro.cookie = c.Value
		}
	}
	ro.seed = r.json(h.t)
	if m, ok := ro.seed["mcp"].(map[string]any); ok {
		ro.token, _ = m["headers"].(map[string]any)[mcpexpose.TokenHeader].(string)
	}
	if ro.cookie == "" {
		h.t.Fatalf("seed: no session cookie in %v", r.Header)
	}
	return ro
}

// rpc POSTs one raw JSON-RPC message to path (default /mcp) with the
// contract's headers and, when token is set, the session token.
func (h *host) rpc(msg, token string, header ...string) reply {
	h.t.Helper()
	hdr := []string{"Content-Type", "application/json", "Accept", "application/json, text/event-stream",
		"Mcp-Protocol-Version", "2025-06-18"}
	if token != "" {
		hdr = append(hdr, mcpexpose.TokenHeader, token)
	}
	return h.do("POST", "/mcp", msg, append(hdr, header...)...)
}

// rpcResult is the result or error of a raw JSON-RPC answer.
type rpcResult struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (h *host) rpcOK(msg, token string) json.RawMessage {
	h.t.Helper()
	r := h.rpc(msg, token)
	if r.Status != 200 {
		h.t.Fatalf("%s: status %d: %s", msg, r.Status, r.Body)
	}
	var res rpcResult
	if err := json.Unmarshal(r.Body, &res); err != nil || res.Error != nil {
		h.t.Fatalf("%s: %s (%v)", msg, r.Body, err)
	}
	return res.Result
}

// callResult is a decoded tools/call result.
type callResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           *bool           `json:"isError"`
}

func (c callResult) text() string {
	var s []string
	for _, p := range c.Content {
		s = append(s, p.Text)
	}
	return strings.Join(s, "\n")
}

// call sends tools/call over raw JSON-RPC.
func (h *host) call(tool, args, token string) callResult {
	h.t.Helper()
	if args == "" {
		args = "{}"
	}
	raw := h.rpcOK(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":`+quote(tool)+`,"arguments":`+args+`}}`, token)
	var c callResult
	if err := json.Unmarshal(raw, &c); err != nil {
		h.t.Fatal(err)
	}
	if c.IsError == nil {
		h.t.Fatalf("tools/call %s: no isError in %s", tool, raw)
	}
	return c
}

// listNames sends tools/list over raw JSON-RPC.
func (h *host) listNames(token string) []string {
	h.t.Helper()
	raw := h.rpcOK(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, token)
	var res struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		h.t.Fatal(err)
	}
	names := []string{}
	for _, t := range res.Tools {
		names = append(names, t.Name)
	}
	return names
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// client connects the official go-sdk client to the instance's /mcp,
// sending the session token on every request when token is set.
func (h *host) client(token string) *mcp.ClientSession {
	h.t.Helper()
	hc := &http.Client{Transport: headerTransport{token: token}}
	c := mcp.NewClient(&mcp.Implementation{Name: "gymkit-test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: h.URL + "/mcp", HTTPClient: hc}, nil)
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { _ = cs.Close() })
	return cs
}

type headerTransport struct{ token string }

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if t.token != "" {
		r = r.Clone(r.Context())
		r.Header.Set(mcpexpose.TokenHeader, t.token)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// sdkCall calls a tool with the go-sdk client and returns the text and
// structured content.
func sdkCall(t *testing.T, cs *mcp.ClientSession, tool string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool %s: %v", tool, err)
	}
	return res
}

func sdkText(res *mcp.CallToolResult) string {
	var s []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			s = append(s, tc.Text)
		}
	}
	return strings.Join(s, "\n")
}

// verifyBody is the minimal verify request of the contract's tests, with
// function_call items named names.
func verifyBody(names ...string) string {
	var items []string
	for i, n := range names {
		items = append(items, `{"type":"function_call","name":`+quote(n)+`,"arguments":"{}","call_id":"c`+string(rune('0'+i))+`"}`)
	}
	return `{"responses_create_params":{"input":"hi"},"response":{"id":"r","created_at":0.0,"model":"m","object":"response",` +
		`"parallel_tool_calls":false,"tool_choice":"auto","tools":[],"output":[` + strings.Join(items, ",") + `]}}`
}

// instanceConfig is the configuration of an instance named name with the
// defaults, but no host: the DNS-rebinding check is off.
func instanceConfig(name string) *config.Instance {
	cfg := config.Defaults()
	cfg.Name, cfg.Host = name, ""
	return &cfg
}

func newSessions() *session.Manager {
	return session.MustNewManager(session.Options{CookieName: "store___store"})
}
