package mcpexpose_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/framework"
	fwhost "github.com/gymkit/gymkit/framework/host"
	"github.com/gymkit/gymkit/mcpexpose"
	"github.com/gymkit/gymkit/session"
)

// Interactive is a server whose tools use the MCP client: progress, logs,
// elicitation, confirmation, cancellation and per-rollout state.
type Interactive struct {
	framework.Base
	cancelled chan error    // what /block's context ended with
	started   chan struct{} // /block is running
}

type StepsRequest struct {
	Steps int `json:"steps"`
}

type NameAnswer struct {
	Name string `json:"name"`
}

var nameSchema = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)

func (s *Interactive) Routes(r *framework.Router) {
	framework.Post(r, "/progress", func(ctx context.Context, req StepsRequest) (map[string]int, error) {
		for i := 1; i <= req.Steps; i++ {
			if err := framework.ReportProgress(ctx, float64(i), float64(req.Steps), "step"); err != nil {
				return nil, err
			}
		}
		return map[string]int{"steps": req.Steps}, nil
	})
	framework.Post(r, "/chatty", func(ctx context.Context, _ framework.NoBody) (map[string]bool, error) {
		_ = framework.LogToClient(ctx, framework.ClientLogDebug, "a debug line")
		_ = framework.LogToClient(ctx, framework.ClientLogInfo, "an info line", "k", 1)
		_ = framework.LogToClient(ctx, framework.ClientLogWarning, "a warning line")
		framework.ClientLogger(ctx).Error("an error line", "k", "v")
		return map[string]bool{"ok": true}, nil
	})
	framework.Post(r, "/ask", func(ctx context.Context, _ framework.NoBody) (map[string]string, error) {
		v, action, err := framework.Elicit[NameAnswer](ctx, "Your name?", nameSchema)
		if err != nil {
			return nil, framework.Errorf(409, "%v", err)
		}
		return map[string]string{"action": string(action), "name": v.Name}, nil
	})
	framework.Post(r, "/wipe", func(ctx context.Context, _ framework.NoBody) (map[string]bool, error) {
		if err := framework.Confirm(ctx, "Wipe everything?"); err != nil {
			return nil, err
		}
		return map[string]bool{"wiped": true}, nil
	})
	framework.Post(r, "/block", func(ctx context.Context, _ framework.NoBody) (map[string]bool, error) {
		s.started <- struct{}{}
		<-ctx.Done()
		s.cancelled <- ctx.Err()
		return nil, ctx.Err()
	})
	framework.Post(r, "/count", func(ctx context.Context, _ framework.NoBody) (map[string]int, error) {
		var n int
		err := session.Update(ctx, "n", func(v *int) error { *v++; n = *v; return nil })
		return map[string]int{"n": n}, err
	})
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{Reward: 1}, nil
	})
}

// keys are the API keys of the test hosts: the principal is the name.
var keys = map[string]string{"alice": "alice-key-0123456789", "bob": "bob-key-0123456789"}

// bearerAuth is the bearer layer of the test hosts, a stand-in for the
// host's API keys (server/internal/authn, which only package server may
// import): a request whose Authorization is "Bearer <key>" of one of keys
// goes on with that key's name as its principal (fwhost.WithPrincipal),
// as the host's auth block passes it; any other is answered 401.
func bearerAuth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if key, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
			for name, k := range keys {
				if key == k {
					next.ServeHTTP(w, r.WithContext(fwhost.WithPrincipal(r.Context(), name)))
					return
				}
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"error":"Invalid or unauthorized token"}`))
	})
}

// interactiveHost serves Interactive as the host does, behind bearerAuth
// with the API keys of keys.
func interactiveHost(t testing.TB, opts func(*mcpexpose.Options)) (string, *Interactive) {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	sm := session.MustNewManager(session.Options{CookieName: "interactive___i"})
	cfg := config.Defaults() // host 127.0.0.1: the DNS-rebinding check is on
	cfg.Name = "i"
	o := mcpexpose.Options{Config: &cfg, Secret: []byte("test secret, 32 bytes at least.."), Sessions: sm, Logger: log}
	if opts != nil {
		opts(&o)
	}
	door, err := mcpexpose.New(o)
	if err != nil {
		t.Fatal(err)
	}
	srv := &Interactive{cancelled: make(chan error, 1), started: make(chan struct{}, 1)}
	app, err := fwhost.Build(context.Background(), srv, fwhost.Options{Name: "i", Logger: log,
		AfterSeed: door.AfterSeed, NormalizeToolName: door.NormalizeToolName})
	if err != nil {
		t.Fatal(err)
	}
	if err := door.Attach(app); err != nil {
		t.Fatal(err)
	}
	h := bearerAuth(sm.Middleware(door.Mount(app.Handler())))
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp", srv
}

func stateful(extra ...func(*mcpexpose.Options)) func(*mcpexpose.Options) {
	return func(o *mcpexpose.Options) {
		o.Config.MCP.Stateful = true
		for _, f := range extra {
			f(o)
		}
	}
}

// bearer adds Authorization: Bearer <key> (and the session token, when
// set) to every request.
type bearer struct{ key, token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	if b.token != "" {
		r.Header.Set(mcpexpose.TokenHeader, b.token)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// seedToken seeds a rollout over HTTP and returns its MCP session token.
func seedToken(t testing.TB, url string) string {
	t.Helper()
	req, _ := http.NewRequest("POST", strings.TrimSuffix(url, "/mcp")+"/seed_session", strings.NewReader("{}"))
	req.Header.Set("Authorization", "Bearer "+keys["alice"])
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var seed struct {
		MCP struct {
			Headers map[string]string `json:"headers"`
		} `json:"mcp"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&seed); err != nil || seed.MCP.Headers[mcpexpose.TokenHeader] == "" {
		t.Fatalf("seed: %v %+v", err, seed)
	}
	return seed.MCP.Headers[mcpexpose.TokenHeader]
}

// connect connects the go-sdk client as principal with copts; a token
// argument is sent as the session token.
func connect(t *testing.T, url, principal string, copts *mcp.ClientOptions, token ...string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "gymkit-test", Version: "1"}, copts)
	b := bearer{key: keys[principal]}
	if len(token) > 0 {
		b.token = token[0]
	}
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url,
		HTTPClient: &http.Client{Transport: b}}, nil)
	if err != nil {
		t.Fatalf("connect as %s: %v", principal, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// raw sends one request to the door as principal and returns status,
// Content-Type and body.
func raw(t *testing.T, method, url, principal, sid, body string, header ...string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+keys[principal])
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}

func callText(t *testing.T, cs *mcp.ClientSession, tool string) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
	if err != nil {
		t.Fatalf("CallTool %s: %v", tool, err)
	}
	return sdkText(res), res.IsError
}

const listReq = `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`

// A stateful session belongs to the principal that made it: another
// principal presenting its id gets exactly the answer to an id that does
// not exist, for POST, GET and DELETE; DELETE by the owner ends it.
func TestStatefulSessionBoundToPrincipal(t *testing.T) {
	t.Parallel()
	url, _ := interactiveHost(t, stateful())
	cs := connect(t, url, "alice", nil)
	sid := cs.ID()
	if sid == "" {
		t.Fatal("a stateful door gave no Mcp-Session-Id")
	}
	if st, _, body := raw(t, "POST", url, "alice", sid, listReq); st != 200 || !strings.Contains(body, `"tools"`) {
		t.Fatalf("owner's tools/list = %d %s", st, body)
	}
	_, _, unknown := raw(t, "POST", url, "bob", "no-such-session", listReq)
	for _, method := range []string{"POST", "GET", "DELETE"} {
		st, _, body := raw(t, method, url, "bob", sid, listReq)
		if st != http.StatusNotFound || body != unknown {
			t.Errorf("bob %s with alice's session id = %d %s, want 404 %s (as for an unknown id)", method, st, body, unknown)
		}
	}
	if !strings.Contains(unknown, `"session not found"`) {
		t.Errorf("unknown session answer = %s", unknown)
	}
	if st, _, body := raw(t, "DELETE", url, "alice", sid, ""); st != http.StatusNoContent {
		t.Fatalf("owner's DELETE = %d %s, want 204", st, body)
	}
	if st, _, _ := raw(t, "POST", url, "alice", sid, listReq); st != http.StatusNotFound {
		t.Errorf("tools/list after DELETE = %d, want 404", st)
	}
}

// The stateless default refuses GET and DELETE as before, and gives no
// session id.
func TestStatelessStaysDefault(t *testing.T) {
	t.Parallel()
	url, _ := interactiveHost(t, nil)
	cs := connect(t, url, "alice", nil)
	if cs.ID() != "" {
		t.Errorf("stateless door gave session id %q", cs.ID())
	}
	if st, _, body := raw(t, "DELETE", url, "alice", "x", ""); st != http.StatusMethodNotAllowed ||
		!strings.Contains(body, "Session termination not supported") {
		t.Errorf("stateless DELETE = %d %s", st, body)
	}
}

// One principal has at most max_sessions_per_principal live sessions (429
// beyond); others are not affected, and a DELETE frees a slot.
func TestStatefulSessionsPerPrincipal(t *testing.T) {
	t.Parallel()
	url, _ := interactiveHost(t, stateful(func(o *mcpexpose.Options) { o.Config.MCP.MaxSessionsPerPrincipal = 2 }))
	a1 := connect(t, url, "alice", nil)
	connect(t, url, "alice", nil)
	const initMsg = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	st, _, body := raw(t, "POST", url, "alice", "", initMsg)
	if st != http.StatusTooManyRequests || !strings.Contains(body, "max_sessions_per_principal") {
		t.Errorf("third initialize = %d %s, want 429 naming max_sessions_per_principal", st, body)
	}
	connect(t, url, "bob", nil) // bob has his own budget
	if st, _, _ := raw(t, "DELETE", url, "alice", a1.ID(), ""); st != http.StatusNoContent {
		t.Fatalf("DELETE = %d", st)
	}
	if st, _, body := raw(t, "POST", url, "alice", "", initMsg); st != http.StatusOK {
		t.Errorf("initialize after a DELETE = %d %s, want 200", st, body)
	}
}

// An idle session is gone after session_idle_timeout: its id answers 404.
func TestStatefulIdleExpiry(t *testing.T) {
	t.Parallel()
	url, _ := interactiveHost(t, stateful(func(o *mcpexpose.Options) { o.Config.MCP.SessionIdleTimeout = 50 * time.Millisecond }))
	cs := connect(t, url, "alice", nil)
	time.Sleep(200 * time.Millisecond) // four idle timeouts
	if st, _, body := raw(t, "POST", url, "alice", cs.ID(), listReq); st != http.StatusNotFound {
		t.Errorf("idle session = %d %s, want 404", st, body)
	}
}

// Calls without a session token in a stateful session share one rollout
// session of that MCP session's own.
func TestStatefulSessionIsARollout(t *testing.T) {
	t.Parallel()
	url, _ := interactiveHost(t, stateful())
	a := connect(t, url, "alice", nil)
	for want := 1; want <= 2; want++ {
		if text, _ := callText(t, a, "count"); text != `{"n":`+string(rune('0'+want))+`}` {
			t.Errorf("count #%d = %s", want, text)
		}
	}
	if text, _ := callText(t, connect(t, url, "alice", nil), "count"); text != `{"n":1}` {
		t.Errorf("a second session's count = %s, want its own rollout", text)
	}
	// Stateless: no token, no rollout (NeMo's answer).
	surl, _ := interactiveHost(t, nil)
	if text, isErr := callText(t, connect(t, surl, "alice", nil), "count"); !isErr || !strings.Contains(text, "Missing") {
		t.Errorf("stateless tokenless call = %s", text)
	}
}

// waitFor waits until cond holds, or 10 s (then the caller's check fails).
func waitFor(cond func() bool) {
	for deadline := time.Now().Add(10 * time.Second); !cond() && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
}

// progressClient returns client options that collect progress values.
func progressClient() (*mcp.ClientOptions, func() []float64) {
	var mu sync.Mutex
	var got []float64
	return &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			got = append(got, r.Params.Progress)
			mu.Unlock()
		}}, func() []float64 {
			mu.Lock()
			defer mu.Unlock()
			return append([]float64(nil), got...)
		}
}

// Progress reaches the go-sdk client in both modes; the answer is a stream
// only when the tool reports and the call has a token and accepts a stream.
func TestProgress(t *testing.T) {
	t.Parallel()
	for _, mode := range []struct {
		name string
		opts func(*mcpexpose.Options)
	}{{"stateless", nil}, {"stateful", stateful()}} {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			url, _ := interactiveHost(t, mode.opts)
			copts, got := progressClient()
			tok := seedToken(t, url)
			cs := connect(t, url, "alice", copts, tok)
			p := &mcp.CallToolParams{Name: "progress", Arguments: map[string]any{"steps": 3}}
			p.SetProgressToken("tok-1")
			res, err := cs.CallTool(context.Background(), p)
			if err != nil || res.IsError {
				t.Fatalf("CallTool = %v, %v", res, err)
			}
			// The client runs notification handlers on its own goroutine:
			// the values may land just after the result.
			waitFor(func() bool { return len(got()) >= 3 })
			if g := got(); len(g) != 3 || g[0] != 1 || g[2] != 3 {
				t.Errorf("progress values = %v, want [1 2 3]", g)
			}

			sid := cs.ID()
			call := func(steps int, token bool) string {
				meta := ""
				if token {
					meta = `,"_meta":{"progressToken":"t"}`
				}
				return `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"progress","arguments":{"steps":` +
					string(rune('0'+steps)) + `}` + meta + `}}`
			}
			for _, tc := range []struct {
				name   string
				body   string
				accept string
				want   string
			}{
				{"reports, token, stream accepted", call(2, true), "application/json, text/event-stream", "text/event-stream"},
				{"reports nothing", call(0, true), "application/json, text/event-stream", "application/json"},
				{"no token", call(2, false), "application/json, text/event-stream", "application/json"},
				{"JSON only", call(2, true), "application/json", "application/json"},
			} {
				st, ct, body := raw(t, "POST", url, "alice", sid, tc.body, "Accept", tc.accept, mcpexpose.TokenHeader, tok)
				if st != 200 || ct != tc.want {
					t.Errorf("%s: %d %q, want 200 %q\n%s", tc.name, st, ct, tc.want, body)
				}
				if tc.want == "application/json" && !strings.HasPrefix(body, `{"jsonrpc":"2.0","id":3,"result":`) {
					t.Errorf("%s: body %s, want the plain JSON answer", tc.name, body)
				}
				if tc.want == "text/event-stream" && (strings.Count(body, "notifications/progress") != 2 || !strings.Contains(body, `"id":3,"result"`)) {
					t.Errorf("%s: stream %s, want two progress events and the result", tc.name, body)
				}
			}
		})
	}
}

// Handlers log to the client at the level logging/setLevel set; an invalid
// level is -32602.
func TestClientLogging(t *testing.T) {
	t.Parallel()
	url, _ := interactiveHost(t, stateful())
	var mu sync.Mutex
	var got []string
	cs := connect(t, url, "alice", &mcp.ClientOptions{LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
		mu.Lock()
		got = append(got, string(r.Params.Level))
		mu.Unlock()
	}})
	if err := cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "warning"}); err != nil {
		t.Fatal(err)
	}
	if text, isErr := callText(t, cs, "chatty"); isErr {
		t.Fatal(text)
	}
	waitFor(func() bool { mu.Lock(); defer mu.Unlock(); return len(got) >= 2 })
	mu.Lock()
	if strings.Join(got, ",") != "warning,error" {
		t.Errorf("levels received = %v, want [warning error]", got)
	}
	mu.Unlock()
	err := cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "loud"})
	if err == nil || !strings.Contains(err.Error(), "-32602") && !strings.Contains(err.Error(), "Invalid request parameters") {
		t.Errorf("setLevel loud = %v, want -32602", err)
	}
}

// elicitClient answers every elicitation with answer (nil: no answer for
// 10 s, far beyond the confirm timeout of the test (2 s), then an error;
// the go-sdk client does not cancel its handler when the server gives up).
func elicitClient(answer *mcp.ElicitResult) *mcp.ClientOptions {
	return &mcp.ClientOptions{ElicitationHandler: func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		if answer == nil {
			select {
			case <-ctx.Done():
			case <-time.After(10 * time.Second):
			}
			return nil, errors.New("no answer")
		}
		return answer, nil
	}}
}

// Elicit decodes the accepted content; Confirm fails closed.
func TestElicitationAndConfirm(t *testing.T) {
	t.Parallel()
	url, _ := interactiveHost(t, stateful(func(o *mcpexpose.Options) { o.Config.MCP.ConfirmTimeout = 2 * time.Second }))
	ask := connect(t, url, "alice", elicitClient(&mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}))
	if text, isErr := callText(t, ask, "ask"); isErr || text != `{"action":"accept","name":"Ada"}` {
		t.Errorf("ask = %s (isError %v)", text, isErr)
	}
	declineAsk := connect(t, url, "alice", elicitClient(&mcp.ElicitResult{Action: "decline"}))
	if text, _ := callText(t, declineAsk, "ask"); text != `{"action":"decline","name":""}` {
		t.Errorf("ask declined = %s", text)
	}

	for _, tc := range []struct {
		name   string
		client *mcp.ClientOptions
		want   string // "" means success
	}{
		{"accept", elicitClient(&mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}), ""},
		{"accept without confirm", elicitClient(&mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": false}}), "did not set confirm"},
		{"decline", elicitClient(&mcp.ElicitResult{Action: "decline"}), "the user chose decline"},
		{"cancel", elicitClient(&mcp.ElicitResult{Action: "cancel"}), "the user chose cancel"},
		{"no answer in time", elicitClient(nil), "no answer within 2s"},
		{"no elicitation capability", nil, "did not declare the elicitation capability"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := connect(t, url, "alice", tc.client)
			text, isErr := callText(t, cs, "wipe")
			if tc.want == "" {
				if isErr || text != `{"wiped":true}` {
					t.Errorf("wipe = %s (isError %v), want success", text, isErr)
				}
				return
			}
			if !isErr || !strings.HasPrefix(text, "HTTP 403 from POST /wipe: not confirmed: ") || !strings.Contains(text, tc.want) {
				t.Errorf("wipe = %s (isError %v), want a 403 refusal containing %q", text, isErr, tc.want)
			}
		})
	}

	// Stateless: both refuse, saying why.
	surl, _ := interactiveHost(t, nil)
	cs := connect(t, surl, "alice", elicitClient(&mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}), seedToken(t, surl))
	for _, tool := range []string{"wipe", "ask"} {
		if text, isErr := callText(t, cs, tool); !isErr || !strings.Contains(text, "stateless") {
			t.Errorf("stateless %s = %s, want a refusal naming the stateless door", tool, text)
		}
	}
}

// notifications/cancelled cancels the running call's context (stateful).
func TestCancellation(t *testing.T) {
	t.Parallel()
	url, srv := interactiveHost(t, stateful())
	cs := connect(t, url, "alice", nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "block", Arguments: map[string]any{}})
		done <- err
	}()
	select { // the call is running before it is cancelled
	case <-srv.started:
	case <-time.After(30 * time.Second):
		t.Fatal("the /block call never started")
	}
	cancel()
	select {
	case err := <-srv.cancelled:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("tool context ended with %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the tool's context was not cancelled by notifications/cancelled")
	}
	<-done
}
