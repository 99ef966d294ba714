package mcpexpose_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
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

// Guarded is a server with interceptors, an optional error policy hook and
// a few tools for the interceptor and error policy tests.
type Guarded struct {
	framework.Base
	interceptors []framework.Interceptor
	errorText    func(tool string, err error) (string, bool)
	ran          sync.Map // tool name -> true once its handler ran
}

var _ framework.ErrorTexter = (*Guarded)(nil)

type guardedRequest struct {
	Name string `json:"name" required:"true"`
}

type unencodable struct {
	X any `json:"x"`
}

type guardedResponse struct {
	Greeting string `json:"greeting"`
}

func (s *Guarded) Routes(r *framework.Router) {
	framework.Post(r, "/greet", func(_ context.Context, req guardedRequest) (guardedResponse, error) {
		s.ran.Store("greet", true)
		return guardedResponse{Greeting: "Hello, " + req.Name}, nil
	})
	framework.Post(r, "/secret", func(context.Context, framework.NoBody) (guardedResponse, error) {
		s.ran.Store("secret", true)
		return guardedResponse{Greeting: "the secret"}, nil
	})
	framework.Post(r, "/db", func(context.Context, framework.NoBody) (struct{}, error) {
		return struct{}{}, errors.New("connect: db password=hunter2")
	})
	framework.Post(r, "/db_chosen", func(context.Context, framework.NoBody) (struct{}, error) {
		return struct{}{}, framework.Errorf(500, "query failed: db password=hunter2")
	})
	framework.Post(r, "/unencodable", func(context.Context, framework.NoBody) (unencodable, error) {
		return unencodable{X: make(chan int)}, nil // the door's own 500 when it encodes the result
	})
	framework.Post(r, "/conflict", func(context.Context, framework.NoBody) (struct{}, error) {
		return struct{}{}, framework.Errorf(409, "conflict on row 7")
	})
	framework.Post(r, "/slow", func(ctx context.Context, _ framework.NoBody) (struct{}, error) {
		<-ctx.Done()
		return struct{}{}, ctx.Err()
	})
	framework.Intercept(r, s.interceptors...)
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{Reward: 1}, nil
	})
}

func (s *Guarded) ErrorText(_ context.Context, tool string, err error) (string, bool) {
	if s.errorText == nil {
		return "", false
	}
	return s.errorText(tool, err)
}

// guardedHost serves srv as the host does, with the framework options set
// by fw and an auth layer in miniature: the header X-Test-Principal becomes
// the request's principal.
func guardedHost(t *testing.T, srv framework.Server, fw func(*fwhost.Options)) *host {
	t.Helper()
	logs := &logBuffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cookie := "store___store"
	sm := session.MustNewManager(session.Options{CookieName: cookie})
	doorCfg := config.Defaults() // host 127.0.0.1: the DNS-rebinding check is on
	doorCfg.Name, doorCfg.ServerType = "store", "store"
	door, err := mcpexpose.New(mcpexpose.Options{Config: &doorCfg,
		Secret: []byte("test secret, 32 bytes at least.."), Sessions: sm, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Defaults()
	opts := fwhost.Options{Name: "store", Config: &cfg, Logger: log, AfterSeed: door.AfterSeed, NormalizeToolName: door.NormalizeToolName}
	if fw != nil {
		fw(&opts)
	}
	app, err := fwhost.Build(context.Background(), srv, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := door.Attach(app); err != nil {
		t.Fatal(err)
	}
	inner := sm.Middleware(door.Mount(app.Handler()))
	auth := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.Header.Get("X-Test-Principal"); p != "" {
			r = r.WithContext(fwhost.WithPrincipal(r.Context(), p))
		}
		inner.ServeHTTP(w, r)
	})
	ts := httptest.NewServer(auth)
	t.Cleanup(ts.Close)
	return &host{t: t, URL: ts.URL, door: door, sessions: sm, cookie: cookie, logs: logs}
}

// seen is what an interceptor recorded of one call.
type seen struct {
	Tool, Door, Session string
	Principal           any
	Args                string
	Result              any
	Status              int
}

type recorder struct {
	mu    sync.Mutex
	calls []seen
}

func (r *recorder) interceptor(next framework.Invoker) framework.Invoker {
	return func(ctx context.Context, c *framework.Call) (any, error) {
		res, err := next(ctx, c)
		r.mu.Lock()
		r.calls = append(r.calls, seen{Tool: c.Tool, Door: c.Door.String(), Session: c.SessionID,
			Principal: c.Principal, Args: string(c.Args), Result: res, Status: framework.StatusOf(err).Code})
		r.mu.Unlock()
		return res, err
	}
}

func (r *recorder) all() []seen {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]seen(nil), r.calls...)
}

// principalTransport sends X-Test-Principal with every request.
type principalTransport struct {
	next      http.RoundTripper
	principal string
}

func (t principalTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Test-Principal", t.principal)
	return t.next.RoundTrip(r)
}

// Both doors give an interceptor the same call: tool name, rollout session
// id, principal, arguments and result; only the door differs.
func TestInterceptorSeesBothDoorsAlike(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	h := guardedHost(t, &Guarded{interceptors: []framework.Interceptor{rec.interceptor}}, nil)
	ro := h.seed(`{}`)

	r := h.do("POST", "/greet", `{"name":"Ada"}`, "Content-Type", "application/json",
		"Cookie", h.cookie+"="+ro.cookie, "X-Test-Principal", "alice")
	if r.Status != 200 || string(r.Body) != `{"greeting":"Hello, Ada"}` {
		t.Fatalf("HTTP: %d %s", r.Status, r.Body)
	}
	cs := h.clientWith(headerTransport{token: ro.token}, "alice")
	if res := sdkCall(t, cs, "greet", map[string]any{"name": "Ada"}); res.IsError || sdkText(res) != `{"greeting":"Hello, Ada"}` {
		t.Fatalf("MCP: %+v", res)
	}

	calls := rec.all()
	if len(calls) != 2 {
		t.Fatalf("interceptor saw %d calls, want 2: %+v", len(calls), calls)
	}
	hc, mc := calls[0], calls[1]
	if hc.Door != "http" || mc.Door != "mcp" {
		t.Errorf("doors: %q, %q", hc.Door, mc.Door)
	}
	hc.Door, mc.Door = "", ""
	if fmt.Sprint(hc) != fmt.Sprint(mc) {
		t.Errorf("the doors differ:\nhttp %+v\nmcp  %+v", hc, mc)
	}
	want := seen{Tool: "greet", Session: hc.Session, Principal: "alice", Args: `{"name":"Ada"}`,
		Result: guardedResponse{Greeting: "Hello, Ada"}, Status: 200}
	if hc.Session == "" || fmt.Sprint(hc) != fmt.Sprint(want) {
		t.Errorf("http call %+v\nwant %+v", hc, want)
	}
	// The seed route is not a tool call.
	for _, c := range calls {
		if c.Tool == "seed_session" {
			t.Errorf("the seed ran the interceptors: %+v", c)
		}
	}
}

// clientWith connects the go-sdk client through rt, adding the principal
// header when set.
func (h *host) clientWith(rt http.RoundTripper, principal string) *mcp.ClientSession {
	h.t.Helper()
	if principal != "" {
		rt = principalTransport{next: rt, principal: principal}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "gymkit-test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: h.URL + "/mcp", HTTPClient: &http.Client{Transport: rt}}, nil)
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// An interceptor refuses a call with an error of its choosing: the handler
// does not run, and each door renders the error by its usual rules.
func TestInterceptorRefuses(t *testing.T) {
	t.Parallel()
	refuse := func(next framework.Invoker) framework.Invoker {
		return func(ctx context.Context, c *framework.Call) (any, error) {
			if c.Tool == "secret" && c.Principal != "admin" {
				return nil, framework.Errorf(403, "%s may not call %s", c.Principal, c.Tool)
			}
			return next(ctx, c)
		}
	}
	srv := &Guarded{interceptors: []framework.Interceptor{refuse}}
	h := guardedHost(t, srv, nil)
	ro := h.seed(`{}`)
	r := h.do("POST", "/secret", `{}`, "Content-Type", "application/json", "Cookie", h.cookie+"="+ro.cookie, "X-Test-Principal", "bob")
	if r.Status != 403 || string(r.Body) != `{"detail":"bob may not call secret"}` {
		t.Errorf("HTTP: %d %s", r.Status, r.Body)
	}
	res := sdkCall(t, h.clientWith(headerTransport{token: ro.token}, "bob"), "secret", map[string]any{})
	if want := "HTTP 403 from POST /secret: bob may not call secret"; !res.IsError || sdkText(res) != want {
		t.Errorf("MCP: %v %q, want %q", res.IsError, sdkText(res), want)
	}
	if _, ran := srv.ran.Load("secret"); ran {
		t.Error("the refused tool ran")
	}
	res = sdkCall(t, h.clientWith(headerTransport{token: ro.token}, "admin"), "secret", map[string]any{})
	if res.IsError {
		t.Errorf("admin: %q", sdkText(res))
	}
	if !strings.Contains(h.logs.String(), `msg="tool call" tool=secret door=mcp session=`) ||
		!regexp.MustCompile(`msg="tool call" tool=secret door=mcp session=\S+ status=403 `).MatchString(h.logs.String()) {
		t.Errorf("no 403 call log line for the refusal:\n%s", h.logs)
	}
}

// Interceptors run in registration order, the first outermost; a panic in
// one is contained (a 500 on HTTP, isError over MCP), logged with its
// stack, and seen as an error by the interceptors outside it.
func TestInterceptorOrderAndPanic(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var trace []string
	mark := func(s string) {
		mu.Lock()
		trace = append(trace, s)
		mu.Unlock()
	}
	named := func(name string) framework.Interceptor {
		return func(next framework.Invoker) framework.Invoker {
			return func(ctx context.Context, c *framework.Call) (any, error) {
				mark(name + ">")
				res, err := next(ctx, c)
				mark("<" + name + fmt.Sprintf("(%d)", framework.StatusOf(err).Code))
				return res, err
			}
		}
	}
	boom := func(next framework.Invoker) framework.Invoker {
		return func(ctx context.Context, c *framework.Call) (any, error) {
			if c.Tool == "secret" {
				panic("interceptor bug")
			}
			return next(ctx, c)
		}
	}
	h := guardedHost(t, &Guarded{interceptors: []framework.Interceptor{named("a"), named("b"), boom}}, nil)
	ro := h.seed(`{}`)

	h.post("/greet", `{"name":"x"}`, ro.cookie)
	mu.Lock()
	got := strings.Join(trace, " ")
	trace = nil
	mu.Unlock()
	if want := "a> b> <b(200) <a(200)"; got != want {
		t.Errorf("order %q, want %q", got, want)
	}

	r := h.post("/secret", `{}`, ro.cookie)
	if r.Status != 500 || string(r.Body) != `"panic: interceptor bug"` {
		t.Errorf("HTTP: %d %s", r.Status, r.Body)
	}
	res := sdkCall(t, h.client(ro.token), "secret", map[string]any{})
	if want := "HTTP 500 from POST /secret: panic: interceptor bug"; !res.IsError || sdkText(res) != want {
		t.Errorf("MCP: %v %q, want %q", res.IsError, sdkText(res), want)
	}
	mu.Lock()
	got = strings.Join(trace, " ")
	mu.Unlock()
	if want := "a> b> <b(500) <a(500) a> b> <b(500) <a(500)"; got != want {
		t.Errorf("panics: trace %q, want %q", got, want)
	}
	logs := h.logs.String()
	if n := strings.Count(logs, `msg="tool interceptor panicked"`); n != 2 {
		t.Errorf("%d panic lines, want 2:\n%s", n, logs)
	}
	if !strings.Contains(logs, `panic="interceptor bug" stack=`) {
		t.Errorf("no stack in the panic line:\n%s", logs)
	}
	// The server survives: a later call is answered.
	if res := sdkCall(t, h.client(ro.token), "greet", map[string]any{"name": "y"}); res.IsError {
		t.Errorf("after the panics: %q", sdkText(res))
	}
}

// gymkit logs one "tool call" line per call on either door, with tool,
// door, session, status and duration: Info on MCP (an MCP call is no longer
// only a "POST /mcp" request line), Debug on HTTP (the host's request line
// is the Info line there).
func TestToolCallLogLine(t *testing.T) {
	t.Parallel()
	// Only slow has a limit: a 50 ms limit on every tool would turn a quick
	// call into a 504 on a loaded machine.
	h := guardedHost(t, &Guarded{}, func(o *fwhost.Options) {
		o.Config.ToolTimeouts = map[string]time.Duration{"slow": 50 * time.Millisecond}
	})
	ro := h.seed(`{}`)
	sid := ""
	h.post("/greet", `{"name":"x"}`, ro.cookie)
	sdkCall(t, h.client(ro.token), "greet", map[string]any{"name": "y"})
	sdkCall(t, h.client(ro.token), "conflict", map[string]any{})
	sdkCall(t, h.client(ro.token), "greet", map[string]any{}) // 422
	sdkCall(t, h.client(ro.token), "slow", map[string]any{})  // 504
	var lines []string
	for line := range strings.SplitSeq(h.logs.String(), "\n") {
		if strings.Contains(line, `msg="tool call"`) {
			lines = append(lines, line)
		}
	}
	want := []string{"greet http 200", "greet mcp 200", "conflict mcp 409", "greet mcp 422", "slow mcp 504"}
	if len(lines) != len(want) {
		t.Fatalf("%d call lines, want %d:\n%s", len(lines), len(want), strings.Join(lines, "\n"))
	}
	for i, line := range lines {
		level := "level=INFO"
		if field(line, "door") == "http" {
			level = "level=DEBUG"
		}
		if !strings.Contains(line, level) || field(line, "duration") == "" {
			t.Errorf("line %d: %s", i, line)
		}
		if got := field(line, "tool") + " " + field(line, "door") + " " + field(line, "status"); got != want[i] {
			t.Errorf("line %d: %s, want %s", i, got, want[i])
		}
		if sid == "" {
			sid = field(line, "session")
		}
		if field(line, "session") != sid || sid == "" {
			t.Errorf("line %d: session %q, want %q", i, field(line, "session"), sid)
		}
	}
}

// The tool's timeout applies inside the interceptors: they see the 504.
func TestInterceptorSeesTimeout(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	h := guardedHost(t, &Guarded{interceptors: []framework.Interceptor{rec.interceptor}},
		func(o *fwhost.Options) { o.Config.ToolTimeout = 30 * time.Millisecond })
	ro := h.seed(`{}`)
	if r := h.post("/slow", `{}`, ro.cookie); r.Status != 504 {
		t.Errorf("HTTP: %d %s", r.Status, r.Body)
	}
	if calls := rec.all(); len(calls) != 1 || calls[0].Status != 504 {
		t.Errorf("interceptor saw %+v, want one 504", calls)
	}
}

var maskedText = regexp.MustCompile(`^Internal error \(id ([0-9a-f]{16})\)$`)

// mask_internal_errors replaces the detail of 500s on both doors with a
// generic text and an id, logged with the real detail; other statuses are
// left alone.
func TestMaskInternalErrors(t *testing.T) {
	t.Parallel()
	h := guardedHost(t, &Guarded{}, func(o *fwhost.Options) { o.Config.MaskInternalErrors = true })
	ro := h.seed(`{}`)
	ids := map[string]string{}
	check := func(where, text string) {
		t.Helper()
		m := maskedText.FindStringSubmatch(text)
		if m == nil {
			t.Errorf("%s: %q is not masked", where, text)
			return
		}
		ids[where] = m[1]
	}

	r := h.post("/db", `{}`, ro.cookie)
	var s string
	if r.Status != 500 || json.Unmarshal(r.Body, &s) != nil {
		t.Fatalf("HTTP /db: %d %s (want a JSON string)", r.Status, r.Body)
	}
	check("http db", s)
	r = h.post("/db_chosen", `{}`, ro.cookie)
	var d struct{ Detail string }
	if r.Status != 500 || json.Unmarshal(r.Body, &d) != nil || !strings.HasPrefix(string(r.Body), `{"detail":`) {
		t.Fatalf("HTTP /db_chosen: %d %s (want {\"detail\"})", r.Status, r.Body)
	}
	check("http db_chosen", d.Detail)
	r = h.post("/unencodable", `{}`, ro.cookie)
	if r.Status != 500 || json.Unmarshal(r.Body, &s) != nil {
		t.Fatalf("HTTP /unencodable: %d %s (want a JSON string)", r.Status, r.Body)
	}
	check("http unencodable", s)
	cs := h.client(ro.token)
	for _, tool := range []string{"db", "db_chosen", "unencodable"} {
		res := sdkCall(t, cs, tool, map[string]any{})
		text, ok := strings.CutPrefix(sdkText(res), "HTTP 500 from POST /"+tool+": ")
		if !res.IsError || !ok {
			t.Errorf("MCP %s: %q", tool, sdkText(res))
		}
		check("mcp "+tool, text)
	}
	if r := h.post("/conflict", `{}`, ro.cookie); r.Status != 409 || string(r.Body) != `{"detail":"conflict on row 7"}` {
		t.Errorf("a 409 was changed: %d %s", r.Status, r.Body)
	}
	if res := sdkCall(t, cs, "greet", map[string]any{}); !strings.HasPrefix(sdkText(res), "HTTP 422 from POST /greet: [{") {
		t.Errorf("a 422 was changed: %q", sdkText(res))
	}

	logs := h.logs.String()
	for where, id := range ids {
		found := false
		for line := range strings.SplitSeq(logs, "\n") {
			if strings.Contains(line, "error_id="+id) && strings.Contains(line, `msg="internal error masked"`) &&
				(strings.Contains(line, "hunter2") || strings.Contains(where, "unencodable") && strings.Contains(line, "encoding the response")) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no log line with error_id=%s and the detail:\n%s", where, id, logs)
		}
	}
	if len(ids) != 6 {
		t.Errorf("ids %v", ids)
	}
}

// The ErrorTexter hook chooses the text the client reads on both doors;
// the status stays, and masking leaves the chosen text alone.
func TestErrorTextHook(t *testing.T) {
	t.Parallel()
	srv := &Guarded{errorText: func(tool string, err error) (string, bool) {
		if strings.Contains(err.Error(), "password") {
			return "The database of " + tool + " is unavailable", true
		}
		return "", false
	}}
	h := guardedHost(t, srv, func(o *fwhost.Options) { o.Config.MaskInternalErrors = true })
	ro := h.seed(`{}`)
	if r := h.post("/db", `{}`, ro.cookie); r.Status != 500 || string(r.Body) != `"The database of db is unavailable"` {
		t.Errorf("HTTP /db: %d %s", r.Status, r.Body)
	}
	if r := h.post("/db_chosen", `{}`, ro.cookie); r.Status != 500 || string(r.Body) != `{"detail":"The database of db_chosen is unavailable"}` {
		t.Errorf("HTTP /db_chosen: %d %s", r.Status, r.Body)
	}
	res := sdkCall(t, h.client(ro.token), "db", map[string]any{})
	if want := "HTTP 500 from POST /db: The database of db is unavailable"; sdkText(res) != want {
		t.Errorf("MCP: %q, want %q", sdkText(res), want)
	}
	if r := h.post("/conflict", `{}`, ro.cookie); r.Status != 409 || string(r.Body) != `{"detail":"conflict on row 7"}` {
		t.Errorf("ok false changed a 409: %d %s", r.Status, r.Body)
	}
}
