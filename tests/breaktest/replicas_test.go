package breaktest

// Hostile tests of the signed session cookies and MCP tokens
// (docs/security.md, "What is signed, with what")
// across instances: replicas sharing a secret, instances that do not,
// rotation, fake-clock expiry, odd spellings, and oversized or repeated
// cookie headers, all over real HTTP.

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/config/configtest"
	"github.com/gymkit/gymkit/server"
	"github.com/gymkit/gymkit/session"
)

const (
	replicaSecretA = "breaktest-replica-secret-A-0123456789abcdef"
	replicaSecretB = "breaktest-replica-secret-B-fedcba9876543210"
)

// replica serves breakEnv as instance name (server type "rep") with the
// secrets, over MCP too; clock, when not nil, is the session clock.
func replica(t *testing.T, name string, clock func() time.Time, secrets ...string) string {
	t.Helper()
	cfg := configtest.Over(config.Instance{Name: name, ServerType: "rep", Host: "127.0.0.1", ExposeToolsOverMCP: true, SessionSecrets: secrets})
	var opts server.InstanceOptions
	if clock != nil {
		raw := make([][]byte, len(secrets))
		for i, s := range secrets {
			raw[i] = []byte(s)
		}
		opts.Sessions = session.MustNewManager(session.Options{CookieName: server.CookieName("rep", name), Secrets: raw,
			Lifetime: 10 * time.Hour, IdleTimeout: time.Hour, Clock: clock})
	}
	in, err := server.NewInstance(context.Background(), &breakEnv{}, cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(in.Handler())
	t.Cleanup(ts.Close)
	return ts.URL
}

// idAt posts /get to url with the Cookie header and returns the session id
// and the Set-Cookie values.
func idAt(t *testing.T, url, cookie string) (string, []string) {
	t.Helper()
	c := &wpClient{url: url, cookie: cookie}
	st, body, h := c.post(t, "/get", nil, `{"key":"k"}`)
	var o incrOut
	if st != 200 || json.Unmarshal([]byte(body), &o) != nil {
		t.Fatalf("/get with cookie %.80q: %d %s", cookie, st, body)
	}
	return o.ID, h.Values("Set-Cookie")
}

// seedAt seeds a rollout at url and returns its cookie, id and token.
func seedAt(t *testing.T, url string) (cookie, id, token string) {
	t.Helper()
	c := seedWP(t, url)
	id, _ = idAt(t, url, c.cookie)
	return c.cookie, id, c.token
}

// tokenID calls /get over MCP at url with token and returns the session id
// the call ran in, or "" with the error text.
func tokenID(t *testing.T, url, token string) (id, errText string) {
	t.Helper()
	text, isErr := (&wpClient{url: url, token: token}).mcpTool(t, "get", `{"key":"k"}`)
	if isErr {
		return "", text
	}
	var o incrOut
	if err := json.Unmarshal([]byte(text), &o); err != nil {
		t.Fatalf("MCP get: %s", text)
	}
	return o.ID, ""
}

const badToken = "Invalid Gym MCP session token."

// TestReplicasShareOneSecret (docs/security.md, "The instance secret"): a
// cookie and a token minted by replica A are valid on replica B with the same
// secret (the design: nothing is stored); replicas with another secret refuse
// both, and so does another instance with the same secret (the cookie's MAC
// covers its name, the token carries the instance). Rotation: [new, old]
// accepts the old secret's cookie and token and re-signs the cookie under
// new; an instance that dropped old refuses them.
func TestReplicasShareOneSecret(t *testing.T) {
	t.Parallel()
	a := replica(t, "inst", nil, replicaSecretA)
	b := replica(t, "inst", nil, replicaSecretA)
	other := replica(t, "inst", nil, replicaSecretB)
	y := replica(t, "insty", nil, replicaSecretA)
	rotated := replica(t, "inst", nil, replicaSecretB, replicaSecretA)

	cookie, id, token := seedAt(t, a)
	name, value, _ := strings.Cut(cookie, "=")
	if got, _ := idAt(t, b, cookie); got != id {
		t.Errorf("replica B: the cookie of A names %s, want %s", got, id)
	}
	if got, e := tokenID(t, b, token); got != id {
		t.Errorf("replica B: the token of A: %q %s", got, e)
	}
	if got, _ := idAt(t, other, cookie); got == id {
		t.Error("a replica with another secret accepted the cookie")
	}
	if _, e := tokenID(t, other, token); e != badToken {
		t.Errorf("a replica with another secret: token answered %q", e)
	}
	// Instance Y, same secret: X's cookie value under Y's name, and X's token.
	yName := server.CookieName("rep", "insty")
	if got, _ := idAt(t, y, yName+"="+value); got == id {
		t.Error("instance Y accepted instance X's cookie value under its own name")
	}
	if got, _ := idAt(t, y, cookie); got == id {
		t.Error("instance Y accepted instance X's cookie")
	}
	if _, e := tokenID(t, y, token); e != badToken {
		t.Errorf("instance Y: X's token answered %q", e)
	}
	// Rotation.
	got, sc := idAt(t, rotated, cookie)
	if got != id || len(sc) != 1 {
		t.Fatalf("rotated [new, old]: the old cookie names %s (%q), want %s", got, sc, id)
	}
	resigned, _, _ := strings.Cut(sc[0], ";")
	if resigned == cookie {
		t.Error("rotated [new, old]: the old secret's cookie was echoed, not re-signed under new")
	}
	if got, _ := idAt(t, other, resigned); got != id {
		t.Errorf("the re-signed cookie does not verify under new alone: %s", got)
	}
	if got, e := tokenID(t, rotated, token); got != id {
		t.Errorf("rotated [new, old]: the old token: %q %s", got, e)
	}
	if _, e := tokenID(t, other, token); e != badToken {
		t.Errorf("[new] alone: the old token answered %q", e)
	}
	_ = name
}

// TestCookieSpellingsOverHTTP (docs/security.md, "The session cookie"): every
// one of 84*68 one-character changes of a real cookie, its truncations,
// re-padded and standard-alphabet spellings start a new session with exactly
// one Set-Cookie; the genuine cookie, last among 5,000 duplicates or at the
// end of a 100 KB header, keeps its session, and a bad last duplicate after a
// good one does not.
func TestCookieSpellingsOverHTTP(t *testing.T) {
	t.Parallel()
	url := replica(t, "spell", nil, replicaSecretA)
	cookie, id, _ := seedAt(t, url)
	name, v, _ := strings.Cut(cookie, "=")
	var bad []string
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/."
	for i := range len(v) {
		for _, c := range alphabet {
			if byte(c) != v[i] {
				bad = append(bad, v[:i]+string(c)+v[i+1:])
			}
		}
	}
	std := strings.NewReplacer("-", "+", "_", "/").Replace(v)
	for _, s := range []string{v + "=", v + "==", v[:83], v[:80], v[:64], std, std + "=", v + "A", "A" + v, "%" + v} {
		if s != v {
			bad = append(bad, s)
		}
	}
	// Send them over 8 connections in parallel.
	var wg sync.WaitGroup
	var mu sync.Mutex
	accepted, cookies := 0, 0
	work := make(chan string)
	for range 8 {
		wg.Go(func() {
			for s := range work {
				got, sc := idAt(t, url, name+"="+s)
				mu.Lock()
				if got == id {
					accepted++
				}
				if len(sc) != 1 {
					cookies++
				}
				mu.Unlock()
			}
		})
	}
	for _, s := range bad {
		work <- s
	}
	close(work)
	wg.Wait()
	t.Logf("%d altered spellings: %d accepted, %d answers without exactly one Set-Cookie", len(bad), accepted, cookies)
	if accepted > 0 || cookies > 0 {
		t.Errorf("%d of %d altered cookies named the session; %d answers had not one Set-Cookie", accepted, len(bad), cookies)
	}

	dups := strings.Repeat(name+"="+v[:83]+"A; ", 5000)
	if got, _ := idAt(t, url, dups+cookie); got != id {
		t.Error("the good cookie last among 5,000 bad duplicates lost its session")
	}
	if got, _ := idAt(t, url, cookie+"; "+strings.Repeat(name+"="+v[:83]+"A; ", 10)+name+"=x"); got == id {
		t.Error("a bad last duplicate after the good cookie kept the session")
	}
	// Its cost against a short header is BenchmarkCookieHeader100KB's.
	big := "pad=" + strings.Repeat("p", 100<<10) + "; " + cookie
	if got, sc := idAt(t, url, big); got != id || len(sc) != 1 {
		t.Errorf("the good cookie after 100 KB of others: %s (%d Set-Cookie)", got, len(sc))
	}
}

// BenchmarkCookieHeader100KB: a /get whose good cookie ends a 100 KB Cookie
// header, against the same /get with the cookie alone, in the same run
// (time-x and alloc-x are the ratios; a parse that rescans the header per
// cookie would show in them). Through the instance's handler, no network.
func BenchmarkCookieHeader100KB(b *testing.B) {
	cfg := configtest.Over(config.Instance{Host: "127.0.0.1", SessionSecrets: config.Secrets{replicaSecretA}})
	in, err := server.NewInstance(context.Background(), &breakEnv{}, configtest.Named(cfg, "bench", "rep"), server.InstanceOptions{})
	if err != nil {
		b.Fatal(err)
	}
	h := in.Handler()
	do := func(cookie string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", "/get", strings.NewReader(`{"key":"k"}`))
		req.Header.Set("Content-Type", "application/json")
		if cookie != "" {
			req.Header.Set("Cookie", cookie)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	seed := do("")
	cookie, _, _ := strings.Cut(seed.Header().Get("Set-Cookie"), ";")
	big := "pad=" + strings.Repeat("p", 100<<10) + "; " + cookie
	if do(big).Header().Get("Set-Cookie") == "" || do(cookie).Code != 200 {
		b.Fatal("the seeded cookie was not answered")
	}
	var tShort, tBig time.Duration
	var aShort, aBig uint64
	var m0, m1 runtime.MemStats
	b.ResetTimer()
	for b.Loop() {
		for _, c := range []struct {
			h    string
			t    *time.Duration
			allc *uint64
		}{{cookie, &tShort, &aShort}, {big, &tBig, &aBig}} {
			runtime.ReadMemStats(&m0)
			st := time.Now()
			do(c.h)
			*c.t += time.Since(st)
			runtime.ReadMemStats(&m1)
			*c.allc += m1.TotalAlloc - m0.TotalAlloc
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(tBig)/float64(tShort), "time-x")
	b.ReportMetric(float64(aBig)/float64(max(aShort, 1)), "alloc-x")
}

// fakeClock is a settable clock shared by replicas.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// TestCookieClockOverHTTP (docs/security.md, "The session cookie") with fake
// clocks: idle expiry (1 h) and lifetime (10 h) over HTTP; a replica whose
// clock runs 30 s behind accepts a fresh cookie, one 2 min behind refuses it
// as signed in the future; a cookie of a closed session still names its id,
// with no state (as documented), and its token too.
func TestCookieClockOverHTTP(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	ca, cb, cc := &fakeClock{t: start}, &fakeClock{t: start.Add(-30 * time.Second)}, &fakeClock{t: start.Add(-2 * time.Minute)}
	a := replica(t, "clk", ca.Now, replicaSecretA)
	b := replica(t, "clk", cb.Now, replicaSecretA)
	c := replica(t, "clk", cc.Now, replicaSecretA)

	cookie, id, token := seedAt(t, a)
	if got, _ := idAt(t, b, cookie); got != id {
		t.Error("a replica 30 s behind refused a fresh cookie")
	}
	if got, _ := idAt(t, c, cookie); got == id {
		t.Error("a replica 2 min behind accepted a cookie signed 2 min in its future")
	}
	// Idle: 59 min keeps it (and re-signs); 61 min more ends it.
	ca.Add(59 * time.Minute)
	got, sc := idAt(t, a, cookie)
	if got != id || len(sc) != 1 {
		t.Fatalf("after 59 min idle: %s", got)
	}
	fresh, _, _ := strings.Cut(sc[0], ";")
	ca.Add(61 * time.Minute)
	if got, _ := idAt(t, a, fresh); got == id {
		t.Error("a cookie idle for 61 min was accepted")
	}
	// Lifetime: active every 50 min, refused after 10 h.
	cookie, id, _ = seedAt(t, a)
	for elapsed := time.Duration(0); ; {
		ca.Add(50 * time.Minute)
		elapsed += 50 * time.Minute
		got, sc := idAt(t, a, cookie)
		if elapsed > 10*time.Hour {
			if got == id {
				t.Errorf("an active session was accepted %v after it started", elapsed)
			}
			break
		}
		if got != id {
			t.Fatalf("an active session was lost after %v", elapsed)
		}
		cookie, _, _ = strings.Cut(sc[0], ";")
	}
	// Closed: the cookie and the token still name the id; its state is gone.
	cookie, id, token = seedAt(t, a)
	w := &wpClient{url: a, cookie: cookie}
	if st, body, _ := w.post(t, "/incr", nil, `{"key":"k"}`); st != 200 || !strings.Contains(body, `"n":1`) {
		t.Fatalf("incr: %d %s", st, body)
	}
	if st, body, _ := w.post(t, "/close_session", nil, ""); st != 200 || body != "{}" {
		t.Fatalf("close: %d %s", st, body)
	}
	st, body, _ := w.post(t, "/get", nil, `{"key":"k"}`)
	if st != 200 || !strings.Contains(body, `"id":"`+id+`"`) || !strings.Contains(body, `"ok":false`) {
		t.Errorf("after close, the cookie: %d %s", st, body)
	}
	text, isErr := (&wpClient{url: a, token: token}).mcpTool(t, "get", `{"key":"k"}`)
	if isErr || !strings.Contains(text, `"id":"`+id+`"`) || !strings.Contains(text, `"ok":false`) {
		t.Errorf("after close, the token: %v %s", isErr, text)
	}
	_ = http.StatusOK
}

// TestTokenSpellingsOverHTTP (docs/security.md, "The MCP session token"): of
// the 64 spellings of a real token's last signature character exactly one
// (the minted one) reaches the session; a padded, standard-alphabet,
// truncated or extended token, one with a second dot, and a 70 KB token are
// refused with the door's "Invalid Gym MCP session token.".
func TestTokenSpellingsOverHTTP(t *testing.T) {
	t.Parallel()
	url := replica(t, "tok", nil, replicaSecretA)
	_, id, token := seedAt(t, url)
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	verified := 0
	for _, c := range alphabet {
		tok := token[:len(token)-1] + string(c)
		if got, _ := tokenID(t, url, tok); got == id {
			verified++
		}
	}
	if verified != 1 {
		t.Errorf("%d of 64 spellings of the last character verify, want 1", verified)
	}
	body, sig, _ := strings.Cut(token, ".")
	std := strings.NewReplacer("-", "+", "_", "/")
	for _, tok := range []string{
		token + "=", body + "=." + sig, std.Replace(token), token[:len(token)-2], token + "A",
		body + ".." + sig, body + "." + sig + ".", "." + token, strings.Repeat("A", 70<<10) + "." + sig,
		body[:len(body)-1] + "." + sig,
	} {
		if tok == token {
			continue
		}
		if got, e := tokenID(t, url, tok); got != "" || e != badToken {
			t.Errorf("token %.60q: %q %q", tok, got, e)
		}
	}
}
