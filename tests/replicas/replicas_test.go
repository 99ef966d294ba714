// Package replicas runs two replicas of one resources server on one Redis,
// as a deployment behind a load balancer without stickiness does
// (docs/deployment.md): each replica is the real host (server.New, Serve)
// on its own loopback port, driven over real HTTP and by the official MCP
// go-sdk client. It needs GYMKIT_REDIS_URL and a redis-server on PATH (see
// internal/testkit/redistest; `make redis-test`).
package replicas

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gymkit/gymkit/mcpexpose"
	"github.com/gymkit/gymkit/server"
	_ "github.com/gymkit/gymkit/servers/all"
)

const (
	counterConfig = "servers/example_session_state_mgmt/configs/example_session_state_mgmt.yaml"
	counterBlock  = "example_session_state_mgmt_resources_server.resources_servers.example_session_state_mgmt."
	secret        = "replicas-test-secret-0123456789abcdefghijklmnop"
)

// rollout is one rollout's credentials: its session cookie (HTTP door) and
// session token (MCP door), good on every replica.
type rollout struct {
	cookie, token string
}

func post(t *testing.T, base, path string, ro *rollout, body any) (int, []byte, string) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", base+path, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	if ro != nil && ro.cookie != "" {
		req.Header.Set("Cookie", ro.cookie)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Errorf("POST %s%s: %v", base, path, err)
		return 0, nil, ""
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	return res.StatusCode, out, res.Header.Get("Set-Cookie")
}

func seed(t *testing.T, base string, initial int) *rollout {
	t.Helper()
	code, body, setCookie := post(t, base, "/seed_session", nil, map[string]any{"initial_count": initial})
	if code != 200 {
		t.Fatalf("seed: %d %s", code, body)
	}
	var seeded struct {
		MCP struct {
			Headers map[string]string `json:"headers"`
		} `json:"mcp"`
	}
	if err := json.Unmarshal(body, &seeded); err != nil {
		t.Fatal(err)
	}
	return &rollout{cookie: strings.SplitN(setCookie, ";", 2)[0], token: seeded.MCP.Headers[mcpexpose.TokenHeader]}
}

type headerTransport struct{ token string }

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(mcpexpose.TokenHeader, h.token)
	return http.DefaultTransport.RoundTrip(r)
}

func mcpClient(t *testing.T, base, token string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "replicas-test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: base + "/mcp",
		HTTPClient: &http.Client{Transport: headerTransport{token: token}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func count(t *testing.T, base string, ro *rollout) int {
	t.Helper()
	code, body, _ := post(t, base, "/get_counter_value", ro, map[string]any{})
	var out struct{ Count int }
	if code != 200 || json.Unmarshal(body, &out) != nil {
		t.Fatalf("get_counter_value on %s: %d %s", base, code, body)
	}
	return out.Count
}

func verify(t *testing.T, base string, ro *rollout, expected int) float64 {
	t.Helper()
	code, body, _ := post(t, base, "/verify", ro, map[string]any{
		"responses_create_params": map[string]any{"input": "count"},
		"response": map[string]any{"id": "r", "created_at": 0, "model": "m", "object": "response", "output": []any{},
			"parallel_tool_calls": false, "tool_choice": "auto", "tools": []any{}},
		"expected_count": expected,
	})
	var out struct{ Reward float64 }
	if code != 200 || json.Unmarshal(body, &out) != nil {
		t.Fatalf("verify: %d %s", code, body)
	}
	return out.Reward
}

func mcpText(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestCounterTwoReplicas: seed on A; 50 parallel increments split across A
// and B and across both doors; the read on B is exact and verify on A scores
// 1.0. Then Redis is killed: both replicas answer 503 (HTTP) and isError
// (MCP) naming the store, stay up, and write nothing; once Redis is back
// calls succeed again on both, and the count is exactly what was committed.
func TestCounterTwoReplicas(t *testing.T) {
	srv, _, a, b := twoReplicas(t)
	ro := seed(t, a, 7)
	mcpA, mcpB := mcpClient(t, a, ro.token), mcpClient(t, b, ro.token)

	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			base, cs := a, mcpA
			if i%2 == 1 {
				base, cs = b, mcpB
			}
			if i%4 < 2 { // HTTP door, with the cookie
				if code, body, _ := post(t, base, "/increment_counter", ro, map[string]any{"count": 1}); code != 200 {
					t.Errorf("HTTP increment %d on %s: %d %s", i, base, code, body)
				}
				return
			}
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "increment_counter", Arguments: map[string]any{"count": 1}})
			if err != nil || res.IsError {
				t.Errorf("MCP increment %d on %s: %v %v", i, base, err, res)
			}
		})
	}
	wg.Wait()
	if got := count(t, b, ro); got != 57 {
		t.Fatalf("count on B = %d, want 7 + 50", got)
	}
	if r := verify(t, a, ro, 57); r != 1.0 {
		t.Fatalf("verify on A: reward %v, want 1.0", r)
	}

	// The store goes down mid-rollout.
	srv.Stop()
	for _, base := range []string{a, b} {
		start := time.Now()
		code, body, _ := post(t, base, "/increment_counter", ro, map[string]any{"count": 100})
		if code != http.StatusServiceUnavailable || !strings.Contains(string(body), "state store is unavailable") ||
			!strings.Contains(string(body), fmt.Sprintf("redis at 127.0.0.1:%d", srv.Port)) {
			t.Errorf("HTTP increment on %s with Redis down: %d %s; want 503 naming the store", base, code, body)
		}
		if d := time.Since(start); d > 15*time.Second { // bounded by the dial and read timeouts, generous for a loaded machine
			t.Errorf("the failing call took %v", d)
		}
	}
	for _, cs := range []*mcp.ClientSession{mcpA, mcpB} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "increment_counter", Arguments: map[string]any{"count": 100}})
		if err != nil || !res.IsError || !strings.HasPrefix(mcpText(res), "HTTP 503 from POST /increment_counter: ") ||
			!strings.Contains(mcpText(res), "state store is unavailable") {
			t.Errorf("MCP increment with Redis down: %v, %v %q; want isError HTTP 503 naming the store", err, res != nil && res.IsError, mcpText(res))
		}
	}
	if code, body, _ := post(t, a, "/close_session", ro, map[string]any{}); code != http.StatusServiceUnavailable {
		t.Errorf("close_session with Redis down: %d %s, want 503", code, body)
	}

	// It comes back: no restart of the replicas, no partial state.
	srv.Restart(t)
	if got := count(t, a, ro); got != 57 {
		t.Errorf("count on A after the outage = %d, want 57 (the failed calls wrote nothing)", got)
	}
	res, err := mcpB.CallTool(context.Background(), &mcp.CallToolParams{Name: "increment_counter", Arguments: map[string]any{"count": 1}})
	if err != nil || res.IsError {
		t.Fatalf("MCP increment on B after the outage: %v %q", err, mcpText(res))
	}
	if got := count(t, a, ro); got != 58 {
		t.Errorf("count on A = %d, want 58", got)
	}

	// Closing on A ends the rollout's state on B too: a call there sees a
	// fresh session (the counter starts from zero).
	if code, body, _ := post(t, a, "/close_session", ro, map[string]any{}); code != 200 {
		t.Fatalf("close_session on A: %d %s", code, body)
	}
	if got := count(t, b, ro); got != 0 {
		t.Errorf("count on B after close on A = %d, want 0 (a fresh session)", got)
	}
}

// TestRedisNeedsSecret: store: redis without a session_secret is a config
// error, before anything is bound.
func TestRedisNeedsSecret(t *testing.T) {
	t.Parallel()
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	_, err := server.New(context.Background(), server.Options{
		Files:     []string{counterConfig},
		Overrides: []string{counterBlock + "session.store=redis", counterBlock + "session.url=redis://127.0.0.1:1/0"},
		WorkDir:   root,
		LookupEnv: func(string) (string, bool) { return "", false },
		Logger:    slog.New(slog.DiscardHandler),
		Ready:     io.Discard,
	})
	if err == nil || !strings.Contains(err.Error(), "session.store") || !strings.Contains(err.Error(), "redis needs session_secret") {
		t.Fatalf("err = %v, want the session.store config error", err)
	}
}
