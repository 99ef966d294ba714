package session

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/alexedwards/scs/v2/memstore"
)

var (
	secretA = []byte("0123456789abcdef0123456789abcdef-secret-A")
	secretB = []byte("fedcba9876543210fedcba9876543210-secret-B")
)

func TestCookieCodec(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m := MustNewManager(Options{CookieName: "s", Secrets: [][]byte{secretA}, Lifetime: time.Hour})
	id := NewID()
	v := m.signCookie(id, now, now)
	if len(v) != cookieLen || !base64URL(v) {
		t.Fatalf("cookie %q: length %d, want %d base64url characters", v, len(v), cookieLen)
	}
	if got, ok := m.verifyCookie(v, now); !ok || got != id {
		t.Fatalf("verify = %q, %v; want %s", got, ok, id)
	}
	if strings.Contains(v, id) || strings.Contains(v, strings.ReplaceAll(id, "-", "")) {
		t.Errorf("cookie %q spells the id in the clear", v)
	}
	// Exactly one spelling: every change of one character fails.
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	for i := range len(v) {
		for _, c := range alphabet + "=+/ .\n" {
			if byte(c) == v[i] {
				continue
			}
			w := v[:i] + string(c) + v[i+1:]
			if _, ok := m.verifyCookie(w, now); ok {
				t.Fatalf("cookie with character %d changed to %q verifies", i, c)
			}
		}
	}
	for _, bad := range []string{"", v[:cookieLen-1], v + "A", v + "=", v[:40] + "\n" + v[40:], " " + v, strings.ToUpper(v)} {
		if _, ok := m.verifyCookie(bad, now); ok {
			t.Errorf("verifyCookie(%q) ok", bad)
		}
	}
	// Another cookie name, another secret: refused.
	other := MustNewManager(Options{CookieName: "t", Secrets: [][]byte{secretA}, Lifetime: time.Hour})
	if _, ok := other.verifyCookie(v, now); ok {
		t.Error("a cookie of name s verifies as a cookie of name t under the same secret")
	}
	otherSecret := MustNewManager(Options{CookieName: "s", Secrets: [][]byte{secretB}, Lifetime: time.Hour})
	if _, ok := otherSecret.verifyCookie(v, now); ok {
		t.Error("a cookie verifies under another secret")
	}
	// Lifetime: valid up to exactly the lifetime after it was signed; a
	// little clock skew ahead is allowed.
	if _, ok := m.verifyCookie(v, now.Add(time.Hour)); !ok {
		t.Error("refused at exactly the lifetime")
	}
	if _, ok := m.verifyCookie(v, now.Add(time.Hour+time.Millisecond)); ok {
		t.Error("accepted after the lifetime")
	}
	if _, ok := m.verifyCookie(v, now.Add(-maxSkew)); !ok {
		t.Error("refused with maxSkew of clock skew")
	}
	if _, ok := m.verifyCookie(v, now.Add(-maxSkew-time.Millisecond)); ok {
		t.Error("accepted from further in the future than maxSkew")
	}
	// A valid MAC over a version we do not know, or a non-UUID4 id: refused.
	raw, _ := base64.RawURLEncoding.DecodeString(v)
	raw[0] = cookieVersion + 1
	m.keys[0].sum(raw[cookieBody:cookieBody], "s", raw[:cookieBody])
	if _, ok := m.verifyCookie(base64.RawURLEncoding.EncodeToString(raw), now); ok {
		t.Error("an unknown version accepted")
	}
	raw[0] = cookieVersion
	raw[1+6] = 0x10 // version nibble 1
	m.keys[0].sum(raw[cookieBody:cookieBody], "s", raw[:cookieBody])
	if _, ok := m.verifyCookie(base64.RawURLEncoding.EncodeToString(raw), now); ok {
		t.Error("a UUID1 id accepted")
	}
}

func TestCookieKeyRotation(t *testing.T) {
	t.Parallel()
	now := time.Now()
	old := MustNewManager(Options{CookieName: "s", Secrets: [][]byte{secretA}})
	rotated := MustNewManager(Options{CookieName: "s", Secrets: [][]byte{secretB, secretA}})
	newOnly := MustNewManager(Options{CookieName: "s", Secrets: [][]byte{secretB}})
	id := NewID()
	vOld := old.signCookie(id, now, now)
	if got, ok := rotated.verifyCookie(vOld, now); !ok || got != id {
		t.Error("the rotated list refuses a cookie of its second secret")
	}
	vNew := rotated.signCookie(id, now, now)
	if _, ok := newOnly.verifyCookie(vNew, now); !ok {
		t.Error("the rotated list does not sign with its first secret")
	}
	if _, ok := old.verifyCookie(vNew, now); ok {
		t.Error("a cookie of the new secret verifies under the old one")
	}
	if _, ok := newOnly.verifyCookie(vOld, now); ok {
		t.Error("a cookie of the dropped secret verifies")
	}
}

// TestIdleAndLifetime: the session lives while its cookie comes back within
// the idle timeout, up to the absolute lifetime counted from its first
// answer; the Max-Age is the lifetime on every answer, and no request
// stores anything.
func TestIdleAndLifetime(t *testing.T) {
	t.Parallel()
	const lifetime, idle = 100 * time.Hour, 10 * time.Hour
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	m := MustNewManager(Options{CookieName: "s", Lifetime: lifetime, IdleTimeout: idle, Secrets: [][]byte{secretA}, Clock: c.Now})
	state := m.State().(*MemoryStore)
	h := m.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, ID(r.Context()))
	}))
	do := func(cookie string) (id, value string) {
		t.Helper()
		req := httptest.NewRequest("POST", "/", nil)
		if cookie != "" {
			req.AddCookie(&http.Cookie{Name: "s", Value: cookie})
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		cs := rec.Result().Cookies()
		if len(cs) != 1 || cs[0].MaxAge != int(lifetime/time.Second) {
			t.Fatalf("cookies %v", cs)
		}
		return rec.Body.String(), cs[0].Value
	}
	id, v := do("")
	first := v
	// Requests within the idle timeout keep the session, up to the lifetime.
	elapsed := time.Duration(0)
	for elapsed+idle <= lifetime {
		c.Add(idle)
		elapsed += idle
		got, next := do(v)
		if got != id {
			t.Fatalf("after %v: session lost", elapsed)
		}
		v = next
	}
	if n := state.Len(); n != 0 {
		t.Errorf("state store holds %d sessions; nothing was written", n)
	}
	// An active session ends at its lifetime.
	c.Add(lifetime - elapsed + time.Millisecond)
	if got, _ := do(v); got == id {
		t.Error("a session older than its lifetime was accepted")
	}
	// An idle one ends at its idle timeout.
	id2, v2 := do("")
	c.Add(idle + time.Millisecond)
	if got, _ := do(v2); got == id2 {
		t.Error("a cookie idle for longer than the idle timeout was accepted")
	}
	// The first cookie, replayed: long dead.
	if got, _ := do(first); got == id {
		t.Error("the first cookie still names the session")
	}
	if m.Lifetime() != lifetime || m.IdleTimeout() != idle {
		t.Errorf("Lifetime, IdleTimeout = %v, %v", m.Lifetime(), m.IdleTimeout())
	}
}

// TestSweep: Manager.Sweep frees expired state without any request, and
// SweepInterval is bounded.
func TestSweep(t *testing.T) {
	t.Parallel()
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	m := MustNewManager(Options{CookieName: "s", IdleTimeout: time.Hour, Clock: c.Now})
	ctx := context.Background()
	for range 10 {
		if err := Update(WithID(ctx, m, NewID()), "k", func(n *int) error { *n++; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := m.Sweep(ctx); n != 0 || err != nil {
		t.Fatalf("Sweep before expiry = %d, %v", n, err)
	}
	c.Add(time.Hour + time.Second)
	if n, err := m.Sweep(ctx); n != 10 || err != nil {
		t.Fatalf("Sweep after expiry = %d, %v; want 10", n, err)
	}
	if n := m.State().(*MemoryStore).Len(); n != 0 {
		t.Errorf("%d sessions left", n)
	}
	for _, tc := range []struct{ idle, want time.Duration }{
		{time.Hour, time.Minute}, {5 * time.Minute, 30 * time.Second}, {time.Second, time.Second},
	} {
		if got := MustNewManager(Options{CookieName: "s", IdleTimeout: tc.idle}).SweepInterval(); got != tc.want {
			t.Errorf("SweepInterval(idle %v) = %v, want %v", tc.idle, got, tc.want)
		}
	}
	// A store without Sweep: nothing to do.
	other := MustNewManager(Options{CookieName: "s", State: noSweep{}})
	if n, err := other.Sweep(ctx); n != 0 || err != nil {
		t.Errorf("Sweep of a store without Sweep = %d, %v", n, err)
	}
}

type noSweep struct{ StateStore }

// TestNothingStoredUntilUpdate: requests that read the id, Get, or call
// Keep store nothing, in the default memory store and through an scs
// store; the first Update creates the state.
func TestNothingStoredUntilUpdate(t *testing.T) {
	t.Parallel()
	mem := NewMemoryStore()
	scsMem := memstore.NewWithCleanupInterval(0)
	for _, m := range []*Manager{
		MustNewManager(Options{CookieName: "s", State: mem}),
		MustNewManager(Options{CookieName: "s", Store: scsMem}),
	} {
		h := m.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctx := r.Context()
			_ = ID(ctx)
			if err := Keep(ctx); err != nil {
				t.Error(err)
			}
			if _, ok, err := Get[int](ctx, "n"); ok || err != nil {
				t.Errorf("Get: %v %v", ok, err)
			}
			if r.URL.Path == "/update" {
				if err := Update(ctx, "n", func(n *int) error { *n++; return nil }); err != nil {
					t.Error(err)
				}
			}
			if r.URL.Path == "/failed-update" {
				_ = Update(ctx, "n", func(n *int) error { return errors.New("no") })
			}
		}))
		for range 1000 {
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/", nil))
		}
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/update", nil))
		if _, ok := m.State().(*SCSStore); ok {
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/failed-update", nil))
		}
	}
	if n := mem.Len(); n != 1 {
		t.Errorf("memory store: %d sessions after 1000 read-only requests and one Update, want 1", n)
	}
	if n := scsEntries(t, scsMem); n != 1 {
		t.Errorf("scs memstore: %d entries after 1000 read-only requests, one failed Update and one Update, want 1", n)
	}
}

// scsEntries counts the entries of an scs memstore.
func scsEntries(t *testing.T, s *memstore.MemStore) int {
	t.Helper()
	all, err := s.All()
	if err != nil {
		t.Fatal(err)
	}
	return len(all)
}

func TestCheckSecret(t *testing.T) {
	t.Parallel()
	for _, weak := range []string{"", "x", "changeme", "                                        ",
		strings.Repeat("ab", 30), "0123456789012345678901234567890", "aaaaaaaaabcdefghi" + strings.Repeat("a", 20)} {
		err := CheckSecret([]byte(weak))
		if !errors.Is(err, ErrWeakSecret) {
			t.Errorf("CheckSecret(%q) = %v, want ErrWeakSecret", weak, err)
			continue
		}
		if len(weak) > 2 && strings.Contains(err.Error(), weak) {
			t.Errorf("the error %q shows the secret", err)
		}
	}
	for _, strong := range []string{"0123456789abcdef0123456789abcdef", string(RandomSecret()), "servertest-secret-0123456789abcdef0123"} {
		if err := CheckSecret([]byte(strong)); err != nil {
			t.Errorf("CheckSecret(%q) = %v", strong, err)
		}
	}
	if a, b := DeriveKey(secretA, cookieContext), DeriveKey(secretA, "gymkit/mcpexpose session token v1"); string(a) == string(b) || len(a) != 32 {
		t.Error("the cookie key and the token key of one secret are not distinct 32-byte keys")
	}
}

// FuzzCookie: no input panics, only the signed spelling verifies, and what
// verifies is a valid id.
func FuzzCookie(f *testing.F) {
	m := MustNewManager(Options{CookieName: "s", Secrets: [][]byte{secretA}})
	now := time.Now()
	good := m.signCookie(NewID(), now, now)
	f.Add(good)
	f.Add(good[:cookieLen-1] + "B")
	f.Add("")
	f.Add(strings.Repeat("A", cookieLen))
	f.Fuzz(func(t *testing.T, v string) {
		id, ok := m.verifyCookie(v, now)
		if !ok {
			return
		}
		if !ValidID(id) {
			t.Fatalf("verified a non-id %q", id)
		}
		if v != good && m.signCookie(id, now, now) != v {
			// Another value verifies only if it is the signing of its id at
			// some time; re-encoding must give back the same spelling.
			raw, err := base64.RawURLEncoding.Strict().DecodeString(v)
			if err != nil || base64.RawURLEncoding.EncodeToString(raw) != v {
				t.Fatalf("a second spelling verifies: %q", v)
			}
		}
	})
}
