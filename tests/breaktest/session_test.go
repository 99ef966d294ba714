package breaktest

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"time"

	"fmt"
	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/config/configtest"
	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/framework/host"
	"github.com/gymkit/gymkit/server"
	"github.com/gymkit/gymkit/session"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/gymkit/gymkit/server/servertest"
)

type incrOut struct {
	ID string `json:"id"`
	N  int    `json:"n"`
	OK bool   `json:"ok"`
}

func decodeIncr(t testing.TB, res *servertest.Response) incrOut {
	t.Helper()
	var o incrOut
	if res.Status != 200 {
		t.Fatalf("status %d: %s", res.Status, res.Body)
	}
	if err := json.Unmarshal(res.Body, &o); err != nil {
		t.Fatalf("%v: %s", err, res.Body)
	}
	return o
}

// TestSessionConcurrentRollouts: 200 rollouts in parallel, each first binding
// its session with one call, then doing 20 parallel increments on a shared
// key and 20 on per-call keys. Every rollout must end with exactly its own
// counts and one id.
func TestSessionConcurrentRollouts(t *testing.T) {
	ts := servertest.New(t, &breakEnv{}, servertest.Options{})
	ts.Client().Transport.(*http.Transport).MaxIdleConnsPerHost = 64
	const rollouts, calls = 200, 8
	ids := make([]string, rollouts)
	var wg sync.WaitGroup
	errs := make(chan string, rollouts*calls*3)
	for r := 0; r < rollouts; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ro := ts.Rollout()
			first := decodeIncr(t, ro.Post("/incr", `{"key":"bind"}`))
			ids[r] = first.ID
			var inner sync.WaitGroup
			for c := 0; c < calls; c++ {
				inner.Add(2)
				go func() {
					defer inner.Done()
					o := decodeIncr(t, ro.Post("/incr", `{"key":"shared"}`))
					if o.ID != first.ID {
						errs <- fmt.Sprintf("rollout %d: id changed %s -> %s", r, first.ID, o.ID)
					}
				}()
				go func() {
					defer inner.Done()
					o := decodeIncr(t, ro.Post("/incr", fmt.Sprintf(`{"key":"k%d"}`, c)))
					if o.ID != first.ID || o.N != 1 {
						errs <- fmt.Sprintf("rollout %d key k%d: id %s n %d", r, c, o.ID, o.N)
					}
				}()
			}
			inner.Wait()
			o := decodeIncr(t, ro.Post("/get", `{"key":"shared"}`))
			if o.N != calls || o.ID != first.ID {
				errs <- fmt.Sprintf("rollout %d: shared=%d (want %d) id %s", r, o.N, calls, o.ID)
			}
		}()
	}
	wg.Wait()
	close(errs)
	n := 0
	for e := range errs {
		if n < 10 {
			t.Error(e)
		}
		n++
	}
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			t.Errorf("two rollouts share session id %s", id)
		}
		seen[id] = true
	}
}

// bindSession makes a rollout whose session is saved (one Update) and returns
// its cookie "name=value" and id.
func bindSession(t *testing.T, ts *servertest.Server) (string, string) {
	t.Helper()
	ro := ts.Rollout()
	o := decodeIncr(t, ro.Post("/incr", `{"key":"k"}`))
	return ro.Cookie(), o.ID
}

func idWithCookie(t *testing.T, ts *servertest.Server, cookieHeader string) (string, *servertest.Response) {
	t.Helper()
	h := map[string]string{"Content-Type": "application/json"}
	if cookieHeader != "" {
		h["Cookie"] = cookieHeader
	}
	res := ts.Rollout().Do("POST", "/get", h, `{"key":"k"}`)
	return decodeIncr(t, res).ID, res
}

// TestSessionCookieForgeries: forged, truncated, oversized and foreign cookies
// start a fresh session (never someone else's), with exactly one Set-Cookie.
func TestSessionCookieForgeries(t *testing.T) {
	ts := servertest.New(t, &breakEnv{}, servertest.Options{})
	good, id := bindSession(t, ts)
	name, val, _ := strings.Cut(good, "=")
	for _, c := range []string{
		name + "=" + strings.Repeat("A", 43),
		name + "=" + val[:42],
		name + "=" + val + "x",
		name + "=" + strings.ToUpper(val),
		name + "=" + strings.Repeat("x", 3000),
		"other___other=" + val,
		strings.ToUpper(name) + "=" + val,
	} {
		got, res := idWithCookie(t, ts, c)
		if got == id {
			t.Errorf("cookie %q reached the session %s", trunc([]byte(c)), id)
		}
		if n := len(res.SetCookies()); n != 1 {
			t.Errorf("cookie %q: %d Set-Cookie", trunc([]byte(c)), n)
		}
	}
	// The genuine cookie still works, alone or among others.
	for _, c := range []string{good, "a=b; " + good + "; c=d", "other___other=x; " + good, name + "=\"" + val + "\""} {
		if got, _ := idWithCookie(t, ts, c); got != id {
			t.Errorf("cookie header %q: session %s, want %s", c, got, id)
		}
	}
}

// TestSessionExpiredCookie: a cookie older than the lifetime starts a new
// session (and a new Set-Cookie), as Starlette's max_age check does. The
// manager's clock is the test's, so "within" and "after" the lifetime do
// not depend on how fast the machine answers.
func TestSessionExpiredCookie(t *testing.T) {
	clock := &fakeClock{t: time.Now()}
	m := session.MustNewManager(session.Options{CookieName: "exp___exp", Lifetime: 1500 * time.Millisecond, Clock: clock.Now})
	inst, err := server.NewInstance(context.Background(), &breakEnv{}, configtest.Named(config.Defaults(), "exp", "exp"), server.InstanceOptions{Sessions: m})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(inst.Handler())
	defer hs.Close()
	post := func(cookie string) (incrOut, http.Header) {
		req, _ := http.NewRequest("POST", hs.URL+"/incr", strings.NewReader(`{"key":"k"}`))
		req.Header.Set("Content-Type", "application/json")
		if cookie != "" {
			req.Header.Set("Cookie", cookie)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var o incrOut
		_ = json.NewDecoder(resp.Body).Decode(&o)
		return o, resp.Header
	}
	o1, h1 := post("")
	sc := h1.Values("Set-Cookie")
	if len(sc) != 1 || !strings.Contains(sc[0], "Max-Age=2;") {
		t.Errorf("Set-Cookie %q, want one with Max-Age=2", sc)
	}
	cookie, _, _ := strings.Cut(sc[0], ";")
	if o2, _ := post(cookie); o2.ID != o1.ID || o2.N != 2 {
		t.Errorf("within lifetime: %+v, want id %s n 2", o2, o1.ID)
	}
	clock.Add(2 * time.Second)
	o3, h3 := post(cookie)
	if o3.ID == o1.ID || o3.N != 1 {
		t.Errorf("after lifetime: %+v, want a new session with n 1", o3)
	}
	if len(h3.Values("Set-Cookie")) != 1 {
		t.Errorf("after lifetime: Set-Cookie %q", h3.Values("Set-Cookie"))
	}
}

// TestSessionNoSessionInContext: calling a tool outside the session middleware
// (App.Tools()[i].Call with a bare context) must fail cleanly, not panic.
func TestSessionNoSessionInContext(t *testing.T) {
	app, err := host.Build(context.Background(), &breakEnv{}, host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range app.Tools() {
		if tool.Name != "incr" && tool.Name != "get" && tool.Name != "id" {
			continue
		}
		res, err := tool.Call(context.Background(), json.RawMessage(`{"key":"k"}`), framework.DoorHTTP)
		t.Logf("%s: res=%v err=%v", tool.Name, res, err)
		if tool.Name == "incr" && !errors.Is(err, session.ErrNoSession) {
			t.Errorf("incr without a session: err %v, want ErrNoSession", err)
		}
		if tool.Name == "get" && !errors.Is(err, session.ErrNoSession) {
			t.Errorf("get without a session: err %v, want ErrNoSession", err)
		}
		if st := framework.StatusOf(err); err != nil && st.Code != 500 {
			t.Errorf("%s: status %d", tool.Name, st.Code)
		}
	}
}

// jarClient is a NeMo-style cookie replacing client for an httptest server
// built without servertest.
type jarClient struct {
	url    string
	mu     sync.Mutex
	cookie string
}

func (c *jarClient) post(t *testing.T, path, body string) incrOut {
	req, _ := http.NewRequest("POST", c.url+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	c.mu.Lock()
	if c.cookie != "" {
		req.Header.Set("Cookie", c.cookie)
	}
	c.mu.Unlock()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return incrOut{}
	}
	defer resp.Body.Close()
	if sc := resp.Header.Values("Set-Cookie"); len(sc) == 1 {
		nv, _, _ := strings.Cut(sc[0], ";")
		c.mu.Lock()
		c.cookie = nv
		c.mu.Unlock()
	} else {
		t.Errorf("%d Set-Cookie", len(sc))
	}
	var o incrOut
	if err := json.NewDecoder(resp.Body).Decode(&o); err != nil || resp.StatusCode != 200 {
		t.Errorf("%s: %d %v", path, resp.StatusCode, err)
	}
	return o
}

// TestSessionRefreshRace: the calls of a rollout are 700 ms apart, so each
// refreshes the scs entry (more than 1% of the 60 s lifetime has passed);
// parallel calls of many rollouts must still keep their ids and counts (run
// with -race). The lifetime is long against the rollout's ~7 s, so a loaded
// machine does not expire a session mid-test.
func TestSessionRefreshRace(t *testing.T) {
	m := session.MustNewManager(session.Options{CookieName: "ref___ref", Lifetime: time.Minute})
	inst, err := server.NewInstance(context.Background(), &breakEnv{}, configtest.Named(config.Defaults(), "ref", "ref"), server.InstanceOptions{Sessions: m})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(inst.Handler())
	defer hs.Close()
	var wg sync.WaitGroup
	for r := 0; r < 30; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ro := &jarClient{url: hs.URL}
			first := ro.post(t, "/incr", `{"key":"k"}`)
			var inner sync.WaitGroup
			for c := 0; c < 10; c++ {
				inner.Add(1)
				go func() {
					defer inner.Done()
					time.Sleep(time.Duration(c*700) * time.Millisecond)
					if o := ro.post(t, "/incr", `{"key":"k"}`); o.ID != first.ID {
						t.Errorf("id changed %s -> %s", first.ID, o.ID)
					}
				}()
			}
			inner.Wait()
			if o := ro.post(t, "/get", `{"key":"k"}`); o.N != 11 {
				t.Errorf("count %d, want 11", o.N)
			}
		}()
	}
	wg.Wait()
}
