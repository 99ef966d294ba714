package server_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/config/configtest"
	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/server"
	"github.com/gymkit/gymkit/session"
)

// closeEnv is a sessEnv with a Close hook that records the sessions it
// closed and fails with err when set.
type closeEnv struct {
	sessEnv
	mu     sync.Mutex
	closed []string
	err    error
}

var _ framework.SessionCloser = (*closeEnv)(nil)

func (e *closeEnv) Close(ctx context.Context) error {
	n, _, _ := session.Get[int](ctx, "n") // the state is still there
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = append(e.closed, session.ID(ctx)+":"+strings.Repeat("+", n))
	return e.err
}

func (e *closeEnv) calls() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.closed...)
}

func startClose(t *testing.T, env *closeEnv, cfg config.Instance) (*server.Instance, *httptest.Server) {
	t.Helper()
	cfg.Host, cfg.ExposeToolsOverMCP = "127.0.0.1", true
	cfg.SessionSecrets = config.Secrets{oldSecret}
	inst, err := server.NewInstance(context.Background(), env, configtest.Named(cfg, "sess", "sess"), server.InstanceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(inst.Handler())
	t.Cleanup(ts.Close)
	return inst, ts
}

// rawPost posts body to path with the cookie (if any) and returns the
// status, the body and the Set-Cookie lines.
func rawPost(t testing.TB, ts *httptest.Server, path, cookie, body string) (int, string, []string) {
	t.Helper()
	code, h, b := postJSON(t, ts, path, body, "Cookie", cookie)
	return code, b, h.Values("Set-Cookie")
}

// TestCloseSessionFreesState: POST /close_session runs
// the Close hook with the rollout's session and its state, deletes the
// state, and answers {} 200 with the session cookie; the cookie and the MCP
// token then reach a session with no state. Closing twice, or without a
// cookie, is fine.
func TestCloseSessionFreesState(t *testing.T) {
	t.Parallel()
	env := &closeEnv{}
	inst, ts := startClose(t, env, configtest.Over(config.Instance{}))
	cookie, token := seedToken(t, ts)
	out, cookie := httpCall(t, ts, "/incr", cookie)
	if _, _, ok := mcpTool(t, ts, token, "incr"); !ok || out.N != 1 {
		t.Fatalf("incr: %+v", out)
	}
	id := out.ID
	if n := inst.Sessions.State().(*session.MemoryStore).Len(); n != 1 {
		t.Fatalf("%d sessions stored before the close, want 1", n)
	}
	for i := range 2 { // idempotent
		st, body, sc := rawPost(t, ts, "/close_session", cookie, "")
		if st != 200 || body != `{}` || len(sc) != 1 || !strings.HasPrefix(sc[0], "sess___sess=") {
			t.Fatalf("close %d: %d %s %q", i, st, body, sc)
		}
	}
	if got := env.calls(); len(got) != 2 || got[0] != id+":++" || got[1] != id+":" {
		t.Errorf("Close hook calls %q, want %s:++ then %s: (state readable in the hook, gone after)", got, id, id)
	}
	if n := inst.Sessions.State().(*session.MemoryStore).Len(); n != 0 {
		t.Errorf("%d sessions stored after the close", n)
	}
	// The closed session's cookie and token: a session with no state.
	if out, _ := httpCall(t, ts, "/whoami", cookie); out.N != 0 {
		t.Errorf("after close, HTTP sees n=%d", out.N)
	}
	if out, _, ok := mcpTool(t, ts, token, "whoami"); !ok || out.N != 0 {
		t.Errorf("after close, the token sees n=%d (ok %v)", out.N, ok)
	}
	// A close without a cookie closes a fresh session: {} 200, with a cookie.
	if st, body, sc := rawPost(t, ts, "/close_session", "", `{"any":"body"}`); st != 200 || body != `{}` || len(sc) != 1 {
		t.Errorf("close without a session: %d %s %q", st, body, sc)
	}
	// Under a rollout prefix too.
	if st, body, _ := rawPost(t, ts, "/ng-rollout/r1/close_session", cookie, "{}"); st != 200 || body != `{}` {
		t.Errorf("prefixed close: %d %s", st, body)
	}
	// Not an MCP tool.
	if _, text, ok := mcpTool(t, ts, token, "close_session"); ok || !strings.Contains(text, "close_session") {
		t.Errorf("tools/call close_session: ok %v, %q", ok, text)
	}
}

// TestCloseSessionHookError: the hook's error answers the close with its
// status (Errorf) or NeMo's unhandled 500 (a plain error, no Set-Cookie);
// the state is deleted either way.
func TestCloseSessionHookError(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err    error
		status int
		body   string
		cookie bool
	}{
		{framework.Errorf(503, "world busy"), 503, `{"detail":"world busy"}`, true},
		{errors.New("boom"), 500, `"boom"`, false},
	} {
		env := &closeEnv{err: tc.err}
		inst, ts := startClose(t, env, configtest.Over(config.Instance{}))
		_, cookie := httpCall(t, ts, "/incr", "")
		st, body, sc := rawPost(t, ts, "/close_session", cookie, "")
		if st != tc.status || body != tc.body || (len(sc) == 1) != tc.cookie {
			t.Errorf("%v: %d %s %q; want %d %s, cookie %v", tc.err, st, body, sc, tc.status, tc.body, tc.cookie)
		}
		if n := inst.Sessions.State().(*session.MemoryStore).Len(); n != 0 {
			t.Errorf("%v: %d sessions stored after a failed close", tc.err, n)
		}
	}
}

// TestCloseSessionOff: close_session: false answers 404 and runs no hook.
func TestCloseSessionOff(t *testing.T) {
	t.Parallel()
	env := &closeEnv{}
	off := config.Defaults()
	off.CloseSession = false
	inst, ts := startClose(t, env, off)
	_, cookie := httpCall(t, ts, "/incr", "")
	if st, body, _ := rawPost(t, ts, "/close_session", cookie, ""); st != 404 || body != `{"detail":"Not Found"}` {
		t.Errorf("close_session off: %d %s", st, body)
	}
	if len(env.calls()) != 0 || inst.Sessions.State().(*session.MemoryStore).Len() != 1 {
		t.Error("close_session off still closed")
	}
}

// reservedEnv registers a tool named close_session.
type reservedEnv struct{ framework.Base }

func (reservedEnv) Routes(r *framework.Router) {
	framework.Post(r, "/close_session", func(context.Context, framework.NoBody) (struct{}, error) { return struct{}{}, nil })
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{}, nil
	})
}

func TestCloseSessionReserved(t *testing.T) {
	t.Parallel()
	_, err := server.NewInstance(context.Background(), reservedEnv{}, configtest.Named(config.Defaults(), "r", "r"), server.InstanceOptions{})
	if err == nil || !strings.Contains(err.Error(), `"close_session" is reserved`) {
		t.Errorf("a tool named close_session: %v", err)
	}
}

// TestSessionLifetimeConfig: session_lifetime is the cookie's Max-Age and
// session_idle_timeout the manager's idle timeout.
func TestSessionLifetimeConfig(t *testing.T) {
	t.Parallel()
	inst, ts := startClose(t, &closeEnv{}, configtest.Over(config.Instance{SessionLifetime: 48 * time.Hour, SessionIdleTimeout: 30 * time.Minute}))
	if inst.Sessions.Lifetime() != 48*time.Hour || inst.Sessions.IdleTimeout() != 30*time.Minute {
		t.Errorf("lifetime %v, idle %v", inst.Sessions.Lifetime(), inst.Sessions.IdleTimeout())
	}
	if _, _, sc := rawPost(t, ts, "/whoami", "", ""); len(sc) != 1 || !strings.Contains(sc[0], "; Max-Age=172800;") {
		t.Errorf("Set-Cookie %q, want Max-Age=172800", sc)
	}
	// Unset (an Instance built without YAML): NeMo's 14 days, and 1h idle.
	def, _ := startClose(t, &closeEnv{}, configtest.Over(config.Instance{}))
	if def.Sessions.Lifetime() != config.DefaultSessionLifetime || def.Sessions.IdleTimeout() != config.DefaultSessionIdleTimeout {
		t.Errorf("defaults: lifetime %v, idle %v", def.Sessions.Lifetime(), def.Sessions.IdleTimeout())
	}
}

// TestExpiredStateSwept: through real HTTP with a fake clock, a rollout idle
// for longer than the idle timeout loses its cookie (a new session) and its
// state, which Sweep frees without any request; an active rollout ends at
// its lifetime.
func TestExpiredStateSwept(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	sm := session.MustNewManager(session.Options{CookieName: "sess___sess", Secrets: [][]byte{[]byte(oldSecret)},
		IdleTimeout: time.Hour, Lifetime: 3 * time.Hour, Clock: clock})
	inst, err := server.NewInstance(context.Background(), &closeEnv{}, configtest.Over(config.Instance{Name: "sess", ServerType: "sess", Host: "127.0.0.1"}), server.InstanceOptions{Sessions: sm})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(inst.Handler())
	t.Cleanup(ts.Close)
	store := sm.State().(*session.MemoryStore)

	idle, idleCookie := httpCall(t, ts, "/incr", "")
	active, activeCookie := httpCall(t, ts, "/incr", "")
	for range 5 { // 2.5 hours of calls every 30 minutes
		advance(30 * time.Minute)
		var out sessOut
		out, activeCookie = httpCall(t, ts, "/incr", activeCookie)
		if out.ID != active.ID {
			t.Fatal("an active session was lost within its lifetime")
		}
	}
	if n, _ := sm.Sweep(context.Background()); n != 1 || store.Len() != 1 {
		t.Errorf("Sweep removed %d, %d left; want the idle session's state gone", n, store.Len())
	}
	if out, _ := httpCall(t, ts, "/whoami", idleCookie); out.ID == idle.ID || out.N != 0 {
		t.Errorf("an idle cookie still names its session: %+v", out)
	}
	advance(31 * time.Minute) // 3h01m since the active session began
	if out, _ := httpCall(t, ts, "/whoami", activeCookie); out.ID == active.ID || out.N != 0 {
		t.Errorf("a session past its lifetime is still served: %+v", out)
	}
}
