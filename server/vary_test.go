package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/config/configtest"
	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/server"
)

// varyEnv has one tool per kind of answer a tool gives: a good one, a
// chosen error status, Python's unhandled 500 (a plain error) and a panic.
type varyEnv struct{ framework.Base }

type varyIn struct {
	N int `json:"n" required:"true"`
}

type varyOut struct {
	N int `json:"n"`
}

func (e *varyEnv) Routes(r *framework.Router) {
	framework.Post(r, "/echo", func(_ context.Context, in varyIn) (varyOut, error) { return varyOut(in), nil })
	framework.Post(r, "/teapot", func(context.Context, framework.NoBody) (varyOut, error) {
		return varyOut{}, framework.Errorf(418, "short and stout")
	})
	framework.Post(r, "/chosen500", func(context.Context, framework.NoBody) (varyOut, error) {
		return varyOut{}, framework.Errorf(500, "chosen")
	})
	framework.Post(r, "/unhandled", func(context.Context, framework.NoBody) (varyOut, error) {
		return varyOut{}, errors.New("kaboom")
	})
	framework.Post(r, "/panics", func(context.Context, framework.NoBody) (varyOut, error) { panic("kaboom") })
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{Reward: 1}, nil
	})
}

// TestVaryCookie: every answer that carries the session cookie carries
// "Vary: Cookie", on both doors, whatever its status, as NeMo's answers do
// (Starlette's SessionMiddleware adds both); the unhandled-exception 500,
// which carries no cookie, has none, and neither do the answers gymkit
// gives outside the session layer (health probes, CORS preflights), whose
// content does not depend on the cookie. A CORS answer lists Origin and
// Cookie.
func TestVaryCookie(t *testing.T) {
	t.Parallel()
	const origin = "https://inspector.example.com"
	start := func(cors *config.CORSConfig) *httptest.Server {
		inst, err := server.NewInstance(context.Background(), &varyEnv{}, configtest.Over(config.Instance{Name: "vary", ServerType: "vary", Host: "127.0.0.1", ExposeToolsOverMCP: true, MaxBodyBytes: 4096,
			SessionSecrets: config.Secrets{"vary-test-secret-0123456789abcdef0123"}, CORS: cors}), server.InstanceOptions{Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(inst.Handler())
		t.Cleanup(ts.Close)
		return ts
	}
	ts := start(nil)
	withCORS := start(&config.CORSConfig{AllowedOrigins: []string{origin}, MaxAge: time.Minute})

	// The seed: a 200 with the cookie, and the MCP token the calls need.
	resp, body := send(t, mustRequest(t, http.MethodPost, ts.URL+"/seed_session", `{}`, nil))
	if resp.StatusCode != 200 || strings.Join(resp.Header.Values("Vary"), ", ") != "Cookie" {
		t.Fatalf("seed: %d Vary %q %s", resp.StatusCode, resp.Header.Values("Vary"), body)
	}
	var seed struct {
		MCP struct {
			Headers map[string]string `json:"headers"`
		} `json:"mcp"`
	}
	if err := json.Unmarshal([]byte(body), &seed); err != nil || seed.MCP.Headers["X-NeMo-Gym-Session-Token"] == "" {
		t.Fatalf("seed answer %s: %v", body, err)
	}
	mcpHeaders := map[string]string{"Accept": "application/json, text/event-stream",
		"X-NeMo-Gym-Session-Token": seed.MCP.Headers["X-NeMo-Gym-Session-Token"]}
	with := func(extra map[string]string) map[string]string {
		h := map[string]string{}
		for k, v := range mcpHeaders {
			h[k] = v
		}
		for k, v := range extra {
			h[k] = v
		}
		return h
	}
	call := func(tool, args string) string {
		return `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
	}
	big := `{"n":1,"pad":"` + strings.Repeat("x", 5000) + `"}`

	for _, tc := range []struct {
		name         string
		cors         bool // sent to the instance with a cors block
		method, path string
		body         string
		headers      map[string]string
		status       int
		cookies      int    // Set-Cookie lines
		vary         string // the Vary lines joined by ", "
	}{
		// The HTTP door.
		{"tool 200", false, "POST", "/echo", `{"n":1}`, nil, 200, 1, "Cookie"},
		{"tool under a rollout prefix", false, "POST", "/ng-rollout/r-1/echo", `{"n":1}`, nil, 200, 1, "Cookie"},
		{"verify 200", false, "POST", "/verify", `{"responses_create_params":{"input":"hi"},"response":{"id":"r","created_at":0,"model":"m","object":"response","output":[],"parallel_tool_calls":false,"tool_choice":"auto","tools":[]}}`, nil, 200, 1, "Cookie"},
		{"aggregate_metrics 200", false, "POST", "/aggregate_metrics", `{"verify_responses":[]}`, nil, 200, 1, "Cookie"},
		{"liveness GET /", false, "GET", "/", "", nil, 200, 1, "Cookie"},
		{"openapi.json", false, "GET", "/openapi.json", "", nil, 200, 1, "Cookie"},
		{"trailing-slash redirect", false, "POST", "/echo/", `{"n":1}`, nil, 307, 1, "Cookie"},
		{"422", false, "POST", "/echo", `{"n":"x"}`, nil, 422, 1, "Cookie"},
		{"404", false, "POST", "/nope", `{}`, nil, 404, 1, "Cookie"},
		{"405", false, "GET", "/echo", "", nil, 405, 1, "Cookie"},
		{"413", false, "POST", "/echo", big, nil, 413, 1, "Cookie"},
		{"Errorf 418", false, "POST", "/teapot", `{}`, nil, 418, 1, "Cookie"},
		{"Errorf 500", false, "POST", "/chosen500", `{}`, nil, 500, 1, "Cookie"},
		{"unhandled error 500", false, "POST", "/unhandled", `{}`, nil, 500, 0, ""},
		{"panic 500", false, "POST", "/panics", `{}`, nil, 500, 0, ""},
		// The MCP door.
		{"mcp initialize", false, "POST", "/mcp", initMsg, mcpHeaders, 200, 1, "Cookie"},
		{"mcp under a rollout prefix", false, "POST", "/ng-rollout/r-1/mcp", initMsg, mcpHeaders, 200, 1, "Cookie"},
		{"mcp tools/call", false, "POST", "/mcp", call("echo", `{"n":2}`), mcpHeaders, 200, 1, "Cookie"},
		{"mcp tools/call of an unhandled error", false, "POST", "/mcp", call("unhandled", `{}`), mcpHeaders, 200, 1, "Cookie"},
		{"mcp tools/call of a panic", false, "POST", "/mcp", call("panics", `{}`), mcpHeaders, 200, 1, "Cookie"},
		{"mcp notification 202", false, "POST", "/mcp", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, mcpHeaders, 202, 1, "Cookie"},
		{"mcp malformed 400", false, "POST", "/mcp", `{"jsonrpc":`, mcpHeaders, 400, 1, "Cookie"},
		{"mcp Accept refused 406", false, "POST", "/mcp", initMsg, with(map[string]string{"Accept": "text/plain"}), 406, 1, "Cookie"},
		{"mcp GET 405", false, "GET", "/mcp", "", mcpHeaders, 405, 1, "Cookie"},
		{"mcp 413", false, "POST", "/mcp", call("echo", big), mcpHeaders, 413, 1, "Cookie"},
		{"mcp from an allowed origin", true, "POST", "/mcp", initMsg, with(map[string]string{"Origin": origin}), 200, 1, "Origin, Cookie"},
		// Outside the session layer: no cookie, nothing to vary on.
		{"CORS preflight", true, "OPTIONS", "/mcp", "", map[string]string{"Origin": origin, "Access-Control-Request-Method": "POST"}, 204, 0,
			"Origin, Access-Control-Request-Method, Access-Control-Request-Headers"},
		{"health live", false, "GET", "/health/live", "", nil, 200, 0, ""},
		{"health ready", false, "GET", "/health/ready", "", nil, 200, 0, ""},
	} {
		base := ts.URL
		if tc.cors {
			base = withCORS.URL
		}
		resp, body := send(t, mustRequest(t, tc.method, base+tc.path, tc.body, tc.headers))
		if resp.StatusCode != tc.status {
			t.Errorf("%s: status %d, want %d (%.200s)", tc.name, resp.StatusCode, tc.status, body)
		}
		if n := len(resp.Header.Values("Set-Cookie")); n != tc.cookies {
			t.Errorf("%s: %d Set-Cookie lines, want %d", tc.name, n, tc.cookies)
		}
		if v := strings.Join(resp.Header.Values("Vary"), ", "); v != tc.vary {
			t.Errorf("%s: Vary %q, want %q", tc.name, v, tc.vary)
		}
	}
}

// send sends req without following redirects and returns the answer and
// its body.
func send(t *testing.T, req *http.Request) (*http.Response, string) {
	t.Helper()
	if req.Method == http.MethodPost && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// mustRequest builds a request with a body ("" for none) and headers.
func mustRequest(t *testing.T, method, url, body string, headers map[string]string) *http.Request {
	t.Helper()
	var req *http.Request
	var err error
	if body == "" {
		req, err = http.NewRequest(method, url, nil)
	} else {
		req, err = http.NewRequest(method, url, strings.NewReader(body))
	}
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	return req
}
