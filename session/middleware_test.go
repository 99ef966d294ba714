package session_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alexedwards/scs/v2/memstore"

	"github.com/gymkit/gymkit/session"
)

const cookieName = "example_session_state_mgmt___counter"

// uuid4 matches a canonical lower-case UUID4, as Python's str(uuid.uuid4()).
var uuid4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// newManager returns a Manager with the test cookie name unless opts has one.
func newManager(t testing.TB, opts session.Options) *session.Manager {
	t.Helper()
	if opts.CookieName == "" {
		opts.CookieName = cookieName
	}
	return session.MustNewManager(opts)
}

// idOf returns the session id that cookie names for m (a new id when m
// refuses it).
func idOf(t testing.TB, m *session.Manager, c *http.Cookie) string {
	t.Helper()
	return call(t, serve(t, m.Middleware(idHandler)), "/", replay(c)).body
}

// idHandler answers the session id.
var idHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	io.WriteString(w, session.ID(r.Context()))
})

// counterHandler adds 1 to the session's counter and answers the new count.
var counterHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	var n int
	err := session.Update(r.Context(), "count", func(c *int) error {
		*c++
		n = *c
		return nil
	})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	fmt.Fprint(w, n)
})

// exchange is one response, read.
type exchange struct {
	status  int
	body    string
	cookies []*http.Cookie // every Set-Cookie, parsed
	raw     []string       // the Set-Cookie header lines
	vary    []string       // the Vary header lines
}

// sessionCookies returns the Set-Cookie cookies named cookieName.
func (e exchange) sessionCookies() []*http.Cookie {
	var cs []*http.Cookie
	for _, c := range e.cookies {
		if c.Name == cookieName {
			cs = append(cs, c)
		}
	}
	return cs
}

// sessionCookie returns the one session cookie, failing the test unless
// there is exactly one.
func (e exchange) sessionCookie(t testing.TB) *http.Cookie {
	t.Helper()
	cs := e.sessionCookies()
	if len(cs) != 1 {
		t.Fatalf("got %d Set-Cookie headers for %s, want exactly 1; Set-Cookie: %q", len(cs), cookieName, e.raw)
	}
	return cs[0]
}

// call POSTs to ts at path with the given cookies (no cookie jar: like
// NeMo's agents, the caller passes cookies explicitly).
func call(t testing.TB, ts *httptest.Server, path string, cookies ...*http.Cookie) exchange {
	t.Helper()
	e, err := tryCall(ts, path, cookies...)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// tryCall is call for goroutines other than the test's.
func tryCall(ts *httptest.Server, path string, cookies ...*http.Cookie) (exchange, error) {
	req, err := http.NewRequest(http.MethodPost, ts.URL+path, strings.NewReader("{}"))
	if err != nil {
		return exchange{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	for _, c := range cookies {
		req.AddCookie(c)
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		return exchange{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return exchange{}, err
	}
	e := exchange{status: resp.StatusCode, body: string(body), raw: resp.Header.Values("Set-Cookie"), vary: resp.Header.Values("Vary")}
	for _, line := range e.raw {
		c, err := http.ParseSetCookie(line)
		if err != nil {
			return exchange{}, fmt.Errorf("bad Set-Cookie %q: %v", line, err)
		}
		e.cookies = append(e.cookies, c)
	}
	return e, nil
}

func serve(t testing.TB, h http.Handler) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts
}

// replay returns the cookie to send back, as an agent does.
func replay(c *http.Cookie) *http.Cookie { return &http.Cookie{Name: c.Name, Value: c.Value} }

func TestNewVisitorGetsCookieWithUUID4(t *testing.T) {
	t.Parallel()
	ts := serve(t, newManager(t, session.Options{}).Middleware(idHandler))

	e := call(t, ts, "/")
	if e.status != http.StatusOK {
		t.Fatalf("status %d, want 200", e.status)
	}
	if !uuid4.MatchString(e.body) {
		t.Errorf("session id %q is not a lower-case UUID4", e.body)
	}
	c := e.sessionCookie(t)
	want := cookieName + "=" + c.Value + "; Path=/; Max-Age=1209600; HttpOnly; SameSite=Lax"
	if e.raw[0] != want {
		t.Errorf("Set-Cookie = %q, want %q", e.raw[0], want)
	}
	if !regexp.MustCompile(`^[A-Za-z0-9_-]{84}$`).MatchString(c.Value) {
		t.Errorf("cookie value %q is not a signed id (84 base64url characters)", c.Value)
	}
	if strings.Contains(c.Value, e.body) || strings.Contains(c.Value, strings.ReplaceAll(e.body, "-", "")) {
		t.Errorf("cookie value %q contains the session id", c.Value)
	}
	if e2 := call(t, ts, "/"); e2.body == e.body {
		t.Errorf("two new visitors got the same session id %q", e.body)
	}
}

func TestReplayedCookieKeepsID(t *testing.T) {
	t.Parallel()
	ts := serve(t, newManager(t, session.Options{}).Middleware(idHandler))

	first := call(t, ts, "/seed_session")
	c := first.sessionCookie(t)
	for i := range 3 {
		e := call(t, ts, "/tool", replay(c))
		if e.body != first.body {
			t.Fatalf("call %d: id %q, want %q", i, e.body, first.body)
		}
		if got := e.sessionCookie(t); got.Value != c.Value || got.MaxAge != 1209600 {
			t.Fatalf("call %d: cookie %v, want the same (recent) value echoed with Max-Age=1209600", i, got)
		}
		c = e.sessionCookie(t) // agents replace their cookies with each response's
	}
}

func TestUnusableCookieStartsNewSession(t *testing.T) {
	t.Parallel()
	m := newManager(t, session.Options{})
	ts := serve(t, m.Middleware(idHandler))
	known := call(t, ts, "/")
	other := serve(t, newManager(t, session.Options{}).Middleware(idHandler))
	foreign := call(t, other, "/").sessionCookie(t).Value

	tests := []struct {
		name, value string
	}{
		{"forged well-formed value", strings.Repeat("A", 84)},
		{"old 43-character token", strings.Repeat("A", 43)},
		{"token of another manager", foreign},
		{"known token altered", flipLast(known.sessionCookie(t).Value)},
		{"session id instead of the signed value", known.body},
		{"known value with padding", known.sessionCookie(t).Value + "="},
		{"junk", "not a token;,\"\\"},
		{"too long", strings.Repeat("A", 4096)},
		{"empty", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := call(t, ts, "/", &http.Cookie{Name: cookieName, Value: tt.value, Quoted: false})
			if !uuid4.MatchString(e.body) || e.body == known.body {
				t.Errorf("id %q: want a fresh UUID4, not %q", e.body, known.body)
			}
			c := e.sessionCookie(t)
			if c.Value == tt.value || idOf(t, m, c) == known.body {
				t.Errorf("cookie value %q was not replaced", c.Value)
			}
			// The fresh session is a real one: replaying it keeps the id.
			if again := call(t, ts, "/", replay(c)); again.body != e.body {
				t.Errorf("replayed fresh cookie: id %q, want %q", again.body, e.body)
			}
		})
	}
}

func flipLast(s string) string {
	if s[len(s)-1] == 'A' {
		return s[:len(s)-1] + "B"
	}
	return s[:len(s)-1] + "A"
}

// recoverInner is a tiny recover middleware, as the framework's invoker
// has, inside the session middleware.
func recoverInner(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if p := recover(); p != nil {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusInternalServerError)
				fmt.Fprintf(w, "%q", fmt.Sprint(p))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

func TestExactlyOneSetCookie(t *testing.T) {
	t.Parallel()
	own := &http.Cookie{Name: cookieName, Value: "handler-made", Path: "/"}
	tests := []struct {
		name       string
		handler    http.HandlerFunc
		outer      bool   // wrap Middleware in recoverInner instead of next
		status     int    // want
		body       string // want, if not empty
		keepCookie string // a Set-Cookie line (other name) that must survive
		vary       string // want: the Vary lines joined by " | "; "" means "Cookie"
	}{
		{name: "200", status: 200, body: "ok", handler: func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "ok")
		}},
		{name: "404", status: 404, handler: http.NotFound},
		{name: "500", status: 500, handler: func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, `"RuntimeError('kaboom')"`, 500)
		}},
		{name: "422 with JSON body", status: 422, handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(422)
			io.WriteString(w, `{"detail":[]}`)
		}},
		{name: "panic recovered inside", status: 500, body: `"kaboom"`, handler: func(w http.ResponseWriter, r *http.Request) {
			panic("kaboom")
		}},
		{name: "panic after using the session, recovered inside", status: 500, handler: func(w http.ResponseWriter, r *http.Request) {
			_ = session.ID(r.Context())
			panic("kaboom")
		}},
		{name: "panic recovered outside", outer: true, status: 500, body: `"kaboom"`, handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Add("Set-Cookie", own.String()) // even a duplicate added before panicking goes
			panic("kaboom")
		}},
		{name: "writes nothing", status: 200, handler: func(w http.ResponseWriter, r *http.Request) {}},
		{name: "uses the session, writes nothing", status: 200, handler: func(w http.ResponseWriter, r *http.Request) {
			_ = session.ID(r.Context())
		}},
		{name: "WriteHeader only", status: 204, handler: func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(204)
		}},
		{name: "flushes early", status: 200, body: "ab", handler: func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "a")
			w.(http.Flusher).Flush()
			io.WriteString(w, "b")
		}},
		{name: "flushes headers via ResponseController", status: 202, body: "x", handler: func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(202)
			if err := http.NewResponseController(w).Flush(); err != nil {
				panic(err)
			}
			io.WriteString(w, "x")
		}},
		{name: "sets own cookie of that name", status: 200, handler: func(w http.ResponseWriter, r *http.Request) {
			http.SetCookie(w, own)
			io.WriteString(w, "ok")
		}},
		{name: "sets own cookie of that name, writes nothing", status: 200, handler: func(w http.ResponseWriter, r *http.Request) {
			http.SetCookie(w, own)
		}},
		{name: "replaces the Set-Cookie header", status: 200, keepCookie: "other=1", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header()["Set-Cookie"] = []string{"other=1", own.String()}
			io.WriteString(w, "ok")
		}},
		{name: "deletes the Set-Cookie header", status: 200, handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Del("Set-Cookie")
			io.WriteString(w, "ok")
		}},
		{name: "keeps other cookies", status: 200, keepCookie: "theme=dark; Path=/", handler: func(w http.ResponseWriter, r *http.Request) {
			http.SetCookie(w, &http.Cookie{Name: "theme", Value: "dark", Path: "/"})
			io.WriteString(w, "ok")
		}},
		{name: "writes through Unwrap", status: 200, body: "raw", handler: func(w http.ResponseWriter, r *http.Request) {
			raw := w.(interface{ Unwrap() http.ResponseWriter }).Unwrap()
			io.WriteString(raw, "raw")
		}},
		{name: "early hints", status: 200, handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Link", "</style.css>; rel=preload")
			w.WriteHeader(http.StatusEarlyHints)
			io.WriteString(w, "ok")
		}},
		{name: "adds its own Vary", status: 200, vary: "Cookie | Accept-Encoding", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Add("Vary", "Accept-Encoding")
			io.WriteString(w, "ok")
		}},
		{name: "replaces the Vary header", status: 200, vary: "Accept, Origin | Cookie", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Vary", "Accept, Origin")
			io.WriteString(w, "ok")
		}},
		{name: "lists Cookie in its own Vary", status: 200, vary: "Accept, cookie", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Vary", "Accept, cookie")
			io.WriteString(w, "ok")
		}},
		{name: "varies on everything", status: 200, vary: "*", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Vary", "*")
			io.WriteString(w, "ok")
		}},
		{name: "deletes the Vary header", status: 200, handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Del("Vary")
			io.WriteString(w, "ok")
		}},
	}
	for _, tt := range tests {
		for _, withCookie := range []bool{false, true} {
			name := tt.name + map[bool]string{false: "/new session", true: "/known session"}[withCookie]
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				m := newManager(t, session.Options{})
				var h http.Handler
				if tt.outer {
					h = recoverInner(m.Middleware(tt.handler))
				} else {
					h = m.Middleware(recoverInner(tt.handler))
				}
				ts := serve(t, h)
				var sent []*http.Cookie
				if withCookie {
					// A session made by the same manager through a route that uses it.
					seed := serve(t, m.Middleware(idHandler))
					sent = append(sent, replay(call(t, seed, "/").sessionCookie(t)))
				}
				e := call(t, ts, "/", sent...)
				if e.status != tt.status {
					t.Errorf("status %d, want %d", e.status, tt.status)
				}
				if tt.body != "" && e.body != tt.body {
					t.Errorf("body %q, want %q", e.body, tt.body)
				}
				c := e.sessionCookie(t)
				if c.Value == own.Value {
					t.Errorf("the handler's own cookie won: %q", e.raw)
				}
				if withCookie && idOf(t, m, c) != idOf(t, m, sent[0]) {
					t.Errorf("cookie %q does not name the replayed session", c.Value)
				}
				if c.MaxAge != 1209600 || c.Path != "/" || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode {
					t.Errorf("cookie attributes %q, want Path=/; Max-Age=1209600; HttpOnly; SameSite=Lax", e.raw)
				}
				if tt.keepCookie != "" && !contains(e.raw, tt.keepCookie) {
					t.Errorf("Set-Cookie %q lost %q", e.raw, tt.keepCookie)
				}
				wantVary := tt.vary
				if wantVary == "" {
					wantVary = "Cookie"
				}
				if got := strings.Join(e.vary, " | "); got != wantVary {
					t.Errorf("Vary %q, want %q", got, wantVary)
				}
			})
		}
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func TestSessionUsedInFailedRequestSurvives(t *testing.T) {
	t.Parallel()
	// A seed that stores state and then fails must not lose the session:
	// the agent gets the cookie with the error and replays it.
	m := newManager(t, session.Options{})
	ts := serve(t, m.Middleware(recoverInner(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/fail":
			if err := session.Update(r.Context(), "count", func(c *int) error { *c = 41; return nil }); err != nil {
				panic(err)
			}
			panic("kaboom")
		case "/id-then-fail":
			_ = session.ID(r.Context())
			http.Error(w, "nope", http.StatusBadRequest)
		default:
			counterHandler(w, r)
		}
	}))))
	e := call(t, ts, "/fail")
	if e.status != 500 {
		t.Fatalf("status %d", e.status)
	}
	if got := call(t, ts, "/count", replay(e.sessionCookie(t))); got.body != "42" {
		t.Errorf("after a failed seed: count %q, want 42", got.body)
	}
	e = call(t, ts, "/id-then-fail")
	a := call(t, ts, "/count", replay(e.sessionCookie(t)))
	b := call(t, ts, "/count", replay(e.sessionCookie(t)))
	if a.body != "1" || b.body != "2" {
		t.Errorf("counts %q, %q after a 400: want 1, 2 in one session", a.body, b.body)
	}
}

func TestParallelUpdatesOneRollout(t *testing.T) {
	t.Parallel()
	const n = 100
	m := newManager(t, session.Options{})
	ts := serve(t, m.Middleware(counterHandler))
	c := replay(call(t, ts, "/seed").sessionCookie(t)) // count is 1 now

	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			e, err := tryCall(ts, "/increment", c)
			if err != nil || e.status != 200 {
				t.Errorf("status %d, body %s, err %v", e.status, e.body, err)
			}
		})
	}
	wg.Wait()
	if e := call(t, ts, "/increment", c); e.body != fmt.Sprint(n+2) {
		t.Errorf("count %s, want %d", e.body, n+2)
	}
}

func TestParallelUpdatesDirect(t *testing.T) {
	t.Parallel()
	const n = 100
	m := newManager(t, session.Options{})
	ctx := session.WithID(context.Background(), m, session.NewID())
	other := session.WithID(context.Background(), m, session.NewID())

	type counters struct {
		Hits  int            `json:"hits"`
		ByKey map[string]int `json:"by_key"`
	}
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			err := session.Update(ctx, "c", func(c *counters) error {
				c.Hits++
				if c.ByKey == nil {
					c.ByKey = map[string]int{}
				}
				c.ByKey[fmt.Sprint(i%3)]++
				return nil
			})
			if err != nil {
				t.Error(err)
			}
			if err := session.Update(other, "n", func(v *int) error { *v++; return nil }); err != nil {
				t.Error(err)
			}
			if _, _, err := session.Get[counters](ctx, "c"); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got, ok, err := session.Get[counters](ctx, "c")
	if err != nil || !ok || got.Hits != n || got.ByKey["0"]+got.ByKey["1"]+got.ByKey["2"] != n {
		t.Errorf("Get = %+v, %v, %v; want %d hits", got, ok, err, n)
	}
	if v, _, _ := session.Get[int](other, "n"); v != n {
		t.Errorf("other session: %d, want %d", v, n)
	}
}

func TestSessionsAreIsolated(t *testing.T) {
	t.Parallel()
	m := newManager(t, session.Options{})
	ts := serve(t, m.Middleware(counterHandler))
	a := replay(call(t, ts, "/").sessionCookie(t))
	b := replay(call(t, ts, "/").sessionCookie(t))
	for range 3 {
		call(t, ts, "/", a)
	}
	if e := call(t, ts, "/", b); e.body != "2" {
		t.Errorf("session b: count %s, want 2", e.body)
	}
	if e := call(t, ts, "/", a); e.body != "5" {
		t.Errorf("session a: count %s, want 5", e.body)
	}
	// Another manager (another server instance) has its own sessions.
	ts2 := serve(t, newManager(t, session.Options{}).Middleware(counterHandler))
	if e := call(t, ts2, "/", a); e.body != "1" {
		t.Errorf("other manager: count %s, want 1", e.body)
	}
}

func TestNoSession(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	if id := session.ID(ctx); id != "" {
		t.Errorf("ID = %q, want empty", id)
	}
	if _, _, err := session.Get[int](ctx, "k"); !errors.Is(err, session.ErrNoSession) {
		t.Errorf("Get: err %v, want ErrNoSession", err)
	}
	called := false
	err := session.Update(ctx, "k", func(*int) error { called = true; return nil })
	if !errors.Is(err, session.ErrNoSession) || called {
		t.Errorf("Update: err %v, fn called %v; want ErrNoSession and no call", err, called)
	}
}

func TestWithIDSharesTheHTTPSession(t *testing.T) {
	t.Parallel()
	m := newManager(t, session.Options{})
	ts := serve(t, m.Middleware(counterHandler))
	e := call(t, ts, "/")
	var id string
	idTS := serve(t, m.Middleware(idHandler))
	id = call(t, idTS, "/", replay(e.sessionCookie(t))).body

	// The MCP door: the token carries the id.
	ctx := session.WithID(context.Background(), m, id)
	if got := session.ID(ctx); got != id {
		t.Errorf("ID = %q, want %q", got, id)
	}
	if err := session.Update(ctx, "count", func(c *int) error { *c += 10; return nil }); err != nil {
		t.Fatal(err)
	}
	if e := call(t, ts, "/", replay(e.sessionCookie(t))); e.body != "12" {
		t.Errorf("count over HTTP after an MCP update: %s, want 12", e.body)
	}
	// WithID shadows a session already in the context.
	inner := session.WithID(ctx, m, session.NewID())
	if n, ok, _ := session.Get[int](inner, "count"); ok {
		t.Errorf("shadowing session sees count %d", n)
	}
}

func TestWithIDPanics(t *testing.T) {
	t.Parallel()
	m := newManager(t, session.Options{})
	tests := []struct {
		name string
		m    *session.Manager
		id   string
	}{
		{"nil manager", nil, session.NewID()},
		{"empty id", m, ""},
		{"upper case", m, strings.ToUpper(session.NewID())},
		{"not version 4", m, "00000000-0000-1000-8000-000000000000"},
		{"braces", m, "{" + session.NewID() + "}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			session.WithID(context.Background(), tt.m, tt.id)
		})
	}
}

func TestUpdateErrors(t *testing.T) {
	t.Parallel()
	m := newManager(t, session.Options{})
	ctx := session.WithID(context.Background(), m, session.NewID())
	if err := session.Update(ctx, "n", func(v *int) error { *v = 7; return nil }); err != nil {
		t.Fatal(err)
	}

	errStop := errors.New("stop")
	err := session.Update(ctx, "n", func(v *int) error { *v = 8; return errStop })
	if err != errStop {
		t.Errorf("Update returned %v, want fn's error unchanged", err)
	}
	if v, _, _ := session.Get[int](ctx, "n"); v != 7 {
		t.Errorf("after an aborted Update: %d, want 7", v)
	}

	err = session.Update(ctx, "f", func(v *float64) error { *v = nan(); return nil })
	if err == nil || !strings.Contains(err.Error(), `"f"`) {
		t.Errorf("encoding NaN: err %v, want an error naming the key", err)
	}
	if _, ok, _ := session.Get[float64](ctx, "f"); ok {
		t.Error("a value that failed to encode was stored")
	}

	if _, _, err := session.Get[string](ctx, "n"); err == nil || !strings.Contains(err.Error(), `"n"`) || !strings.Contains(err.Error(), "string") {
		t.Errorf("Get[string] of an int: err %v, want an error naming key and type", err)
	}
	if err := session.Update(ctx, "n", func(v *[]string) error { return nil }); err == nil {
		t.Error("Update[[]string] of an int: no error")
	}
}

func nan() float64 {
	var zero float64
	return zero / zero
}

func TestGetReturnsACopy(t *testing.T) {
	t.Parallel()
	m := newManager(t, session.Options{})
	ctx := session.WithID(context.Background(), m, session.NewID())
	type world struct {
		Items map[string][]int
	}
	if err := session.Update(ctx, "w", func(w *world) error {
		w.Items = map[string][]int{"a": {1, 2}}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	w, _, _ := session.Get[world](ctx, "w")
	w.Items["a"][0] = 99
	w.Items["b"] = []int{3}
	got, _, _ := session.Get[world](ctx, "w")
	if len(got.Items) != 1 || got.Items["a"][0] != 1 {
		t.Errorf("stored value changed through a Get result: %+v", got)
	}
}

func TestNestedMiddlewareOfOneManager(t *testing.T) {
	t.Parallel()
	m := newManager(t, session.Options{})
	ts := serve(t, m.Middleware(m.Middleware(idHandler)))
	e := call(t, ts, "/")
	if again := call(t, ts, "/", replay(e.sessionCookie(t))); again.body != e.body {
		t.Errorf("id %q after replay, want %q", again.body, e.body)
	}
}

func TestTwoManagersTwoCookies(t *testing.T) {
	t.Parallel()
	a := newManager(t, session.Options{})
	b := newManager(t, session.Options{CookieName: "other___server"})
	ts := serve(t, a.Middleware(b.Middleware(idHandler)))
	e := call(t, ts, "/")
	e.sessionCookie(t)
	n := 0
	for _, c := range e.cookies {
		if c.Name == "other___server" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("Set-Cookie %q: want one cookie per manager", e.raw)
	}
}

func TestOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts session.Options
		want string // attributes after the value
	}{
		{"defaults", session.Options{}, "; Path=/; Max-Age=1209600; HttpOnly; SameSite=Lax"},
		{"lifetime rounds up", session.Options{Lifetime: 90*time.Minute + time.Millisecond}, "; Path=/; Max-Age=5401; HttpOnly; SameSite=Lax"},
		{"secure", session.Options{Secure: true}, "; Path=/; Max-Age=1209600; HttpOnly; Secure; SameSite=Lax"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := call(t, serve(t, newManager(t, tt.opts).Middleware(idHandler)), "/")
			c := e.sessionCookie(t)
			if want := cookieName + "=" + c.Value + tt.want; e.raw[0] != want {
				t.Errorf("Set-Cookie %q, want %q", e.raw[0], want)
			}
		})
	}
	if m := newManager(t, session.Options{}); m.CookieName() != cookieName || m.State() == nil {
		t.Errorf("CookieName %q, State %v", m.CookieName(), m.State())
	}
}

// NewManager refuses every invalid option with an error naming it, never a
// panic: a cookie name comes from the configuration (the instance name).
func TestNewManagerErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		opts session.Options
		want string
	}{
		{session.Options{}, "session: NewManager: Options.CookieName is required"},
		{session.Options{CookieName: "has space"}, `session: NewManager: invalid Options.CookieName "has space": http: invalid Cookie.Name`},
		{session.Options{CookieName: "semi;colon"}, `session: NewManager: invalid Options.CookieName "semi;colon": http: invalid Cookie.Name`},
		{session.Options{CookieName: "x___météo"}, `session: NewManager: invalid Options.CookieName "x___météo": http: invalid Cookie.Name`},
		{session.Options{CookieName: "ok", Lifetime: -time.Second}, "session: NewManager: negative Options.Lifetime -1s"},
		{session.Options{CookieName: "ok", IdleTimeout: -time.Second}, "session: NewManager: negative Options.IdleTimeout -1s"},
		{session.Options{CookieName: "ok", Secrets: [][]byte{[]byte("s"), nil}}, "session: NewManager: Options.Secrets[1] is empty"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			t.Parallel()
			m, err := session.NewManager(tc.opts)
			if m != nil || err == nil || err.Error() != tc.want {
				t.Errorf("NewManager(%+v) = %v, %v; want nil, %q", tc.opts, m, err, tc.want)
			}
			defer func() {
				if r := recover(); r == nil || fmt.Sprint(r) != tc.want {
					t.Errorf("MustNewManager panicked with %v, want %q", r, tc.want)
				}
			}()
			session.MustNewManager(tc.opts)
		})
	}
}

// countingStore is an scs store that counts calls and can fail.
type countingStore struct {
	*memstore.MemStore
	finds, commits atomic.Int64
	failCommit     atomic.Bool
}

var errStore = errors.New("store down")

func newCountingStore() *countingStore {
	return &countingStore{MemStore: memstore.NewWithCleanupInterval(0)}
}

func (s *countingStore) Find(token string) ([]byte, bool, error) {
	s.finds.Add(1)
	return s.MemStore.Find(token)
}

func (s *countingStore) Commit(token string, b []byte, expiry time.Time) error {
	s.commits.Add(1)
	if s.failCommit.Load() {
		return errStore
	}
	return s.MemStore.Commit(token, b, expiry)
}

// TestOnlyUpdateStores: a session costs a store write only when Update
// writes state under it, whatever else the handler does; its cookie names
// it on the next request either way (the cookie carries the id).
func TestOnlyUpdateStores(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		handler http.HandlerFunc
		commits int64
	}{
		{"unused", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "{}") }, 0},
		{"unused, writes nothing", func(w http.ResponseWriter, r *http.Request) {}, 0},
		{"Get only", func(w http.ResponseWriter, r *http.Request) {
			_, _, _ = session.Get[int](r.Context(), "k")
			io.WriteString(w, session.ID(r.Context()))
		}, 0},
		{"ID", idHandler, 0},
		{"ID many times (request logging)", func(w http.ResponseWriter, r *http.Request) {
			for range 10 {
				_ = session.ID(r.Context())
			}
			io.WriteString(w, session.ID(r.Context()))
		}, 0},
		{"Keep", func(w http.ResponseWriter, r *http.Request) {
			_ = session.Keep(r.Context())
			io.WriteString(w, session.ID(r.Context()))
		}, 0},
		{"Update", func(w http.ResponseWriter, r *http.Request) {
			_ = session.Update(r.Context(), "n", func(n *int) error { *n++; return nil })
			io.WriteString(w, session.ID(r.Context()))
		}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			store := newCountingStore()
			m := newManager(t, session.Options{Store: store})
			ts := serve(t, m.Middleware(tt.handler))
			e := call(t, ts, "/")
			if got := store.commits.Load(); got != tt.commits {
				t.Errorf("%d commits, want %d", got, tt.commits)
			}
			if all, _ := store.All(); int64(len(all)) != tt.commits {
				t.Errorf("%d store entries, want %d", len(all), tt.commits)
			}
			if id := idOf(t, m, e.sessionCookie(t)); !uuid4.MatchString(id) || (e.body != "{}" && e.body != "" && id != e.body) {
				t.Errorf("replayed cookie names %q, want %q", id, e.body)
			}
		})
	}
}

// TestParallelFirstReplay: the cookie of a response that never used its
// session (NeMo's default /seed_session answers {}) is replayed by several
// tool calls at once, by retries, and sequentially: all of them run in that
// one session, as with NeMo's cookies, which carry the id.
func TestParallelFirstReplay(t *testing.T) {
	t.Parallel()
	m := newManager(t, session.Options{})
	ts := serve(t, m.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/seed_session" {
			io.WriteString(w, "{}")
			return
		}
		var n int
		if err := session.Update(r.Context(), "count", func(c *int) error { *c++; n = *c; return nil }); err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		fmt.Fprintf(w, "%s %d", session.ID(r.Context()), n)
	})))
	for round := range 20 {
		seed := call(t, ts, "/seed_session")
		c := replay(seed.sessionCookie(t))
		const n = 8
		ids := make([]string, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				e, err := tryCall(ts, "/incr", c)
				if err != nil || e.status != 200 || len(e.sessionCookies()) != 1 {
					t.Errorf("status %d, body %s, err %v, Set-Cookie %q", e.status, e.body, err, e.raw)
					return
				}
				ids[i], _, _ = strings.Cut(e.body, " ")
			})
		}
		wg.Wait()
		for i := 1; i < n; i++ {
			if ids[i] != ids[0] {
				t.Fatalf("round %d: %d parallel replays of the seed's cookie ran in different sessions: %q", round, n, ids)
			}
		}
		for i := range 2 {
			if e := call(t, ts, "/incr", c); e.body != fmt.Sprintf("%s %d", ids[0], n+1+i) {
				t.Fatalf("round %d: sequential replay %d: %q, want %s %d", round, i, e.body, ids[0], n+1+i)
			}
		}
	}
}

// TestLastCookieOfNameWins: with several cookies of the session's name, the
// last one counts, as Starlette's cookie_parser (a dict) reads them.
func TestLastCookieOfNameWins(t *testing.T) {
	t.Parallel()
	m := newManager(t, session.Options{})
	ts := serve(t, m.Middleware(idHandler))
	good := call(t, ts, "/").sessionCookie(t)
	id := call(t, ts, "/", replay(good)).body
	other := call(t, ts, "/").sessionCookie(t)
	otherID := call(t, ts, "/", replay(other)).body
	send := func(lines ...string) exchange {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, ts.URL, nil)
		for _, l := range lines {
			req.Header.Add("Cookie", l)
		}
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return exchange{status: resp.StatusCode, body: string(body), raw: resp.Header.Values("Set-Cookie")}
	}
	g, o := cookieName+"="+good.Value, cookieName+"="+other.Value
	for _, tt := range []struct {
		name  string
		lines []string
		want  string // id; "" for a new session
	}{
		{"stale first", []string{cookieName + "=stale; " + g}, id},
		{"unknown well-formed first", []string{cookieName + "=" + strings.Repeat("B", 84) + "; " + g}, id},
		{"two known: the last", []string{g + "; a=b; " + o}, otherID},
		{"two known, other order", []string{o + "; " + g}, id},
		{"junk last: a new session", []string{g + "; " + cookieName + "=stale"}, ""},
		{"second header line", []string{cookieName + "=stale", "a=b; " + g}, id},
	} {
		e := send(tt.lines...)
		if len(e.raw) != 1 {
			t.Errorf("%s: Set-Cookie %q, want exactly one", tt.name, e.raw)
		}
		switch {
		case tt.want == "" && (e.body == id || e.body == otherID || !uuid4.MatchString(e.body)):
			t.Errorf("%s: id %q, want a new session", tt.name, e.body)
		case tt.want != "" && e.body != tt.want:
			t.Errorf("%s: id %q, want %q", tt.name, e.body, tt.want)
		}
	}
}

// TestStoreFailures: a state store that fails makes Update fail, and only
// Update: the response still carries the cookie, and the session survives.
func TestStoreFailures(t *testing.T) {
	t.Parallel()
	store := newCountingStore()
	m := newManager(t, session.Options{Store: store})
	ts := serve(t, m.Middleware(counterHandler))
	first := call(t, ts, "/")
	c := replay(first.sessionCookie(t))
	store.failCommit.Store(true)
	e := call(t, ts, "/", c)
	if e.status != 500 || !strings.Contains(e.body, "store down") {
		t.Errorf("got %d %q, want the Update error", e.status, e.body)
	}
	if len(e.sessionCookies()) != 1 || idOf(t, m, e.sessionCookie(t)) != idOf(t, m, c) {
		t.Errorf("Set-Cookie %q: want the session's cookie", e.raw)
	}
	store.failCommit.Store(false)
	if e := call(t, ts, "/", c); e.status != 200 || e.body != "2" {
		t.Errorf("after recovery: %d %q, want 200 2", e.status, e.body)
	}
}

// TestOmitSessionCookie: a handler that asks for it before writing gets a
// response without the session cookie (Python's unhandled 500), other
// cookies kept; asked after the headers were sent, it changes nothing; a
// client that replaces its jar with the answer's cookies starts a new session.
func TestOmitSessionCookie(t *testing.T) {
	t.Parallel()
	type omitter interface{ OmitSessionCookie() }
	m := newManager(t, session.Options{})
	ts := serve(t, m.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/unhandled":
			http.SetCookie(w, &http.Cookie{Name: "other", Value: "1"})
			http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "stale"})
			w.Header().Add("Vary", "Accept-Encoding")
			w.(omitter).OmitSessionCookie()
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, `"TypeError('x')"`)
		case "/late":
			w.WriteHeader(http.StatusOK)
			w.(omitter).OmitSessionCookie()
			io.WriteString(w, session.ID(r.Context()))
		default:
			counterHandler(w, r)
		}
	})))
	first := call(t, ts, "/count")
	jar := replay(first.sessionCookie(t))

	e := call(t, ts, "/unhandled", jar)
	if n := len(e.sessionCookies()); n != 0 || e.status != 500 {
		t.Fatalf("status %d with %d session cookies (%q), want 500 with none", e.status, n, e.raw)
	}
	if strings.Join(e.vary, " | ") != "Accept-Encoding" { // NeMo's unhandled 500 carries no "vary: Cookie" either
		t.Errorf("Vary %q without the session cookie, want only the handler's Accept-Encoding", e.vary)
	}
	if len(e.cookies) != 1 || e.cookies[0].Name != "other" {
		t.Errorf("other cookies %q, want only other=1", e.raw)
	}
	// The agent's jar is now empty: the next call is a new session.
	if got := call(t, ts, "/count"); got.body != "1" {
		t.Errorf("count %q after the jar emptied, want 1 (a new session)", got.body)
	}
	// The old cookie still names its session: state was not lost.
	if got := call(t, ts, "/count", jar); got.body != "2" {
		t.Errorf("count %q with the old cookie, want 2", got.body)
	}
	if e := call(t, ts, "/late"); len(e.sessionCookies()) != 1 || strings.Join(e.vary, ",") != "Cookie" {
		t.Errorf("OmitSessionCookie after the headers: %d session cookies, Vary %q; want 1 and Cookie", len(e.sessionCookies()), e.vary)
	}
}
