package session

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alexedwards/scs/v2/memstore"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// recordingStore is an scs store that records the expiry of each commit.
type recordingStore struct {
	*memstore.MemStore
	mu      sync.Mutex
	commits []time.Time
}

func (s *recordingStore) Commit(token string, b []byte, expiry time.Time) error {
	s.mu.Lock()
	s.commits = append(s.commits, expiry)
	s.mu.Unlock()
	// memstore expires by the real clock; keep entries far in the future
	// so that only the Manager's own (fake) clock decides.
	return s.MemStore.Commit(token, b, time.Now().Add(1000*time.Hour))
}

func (s *recordingStore) last() (int, time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.commits) == 0 {
		return 0, time.Time{}
	}
	return len(s.commits), s.commits[len(s.commits)-1]
}

func TestLifetimeSlidesWithRequests(t *testing.T) {
	t.Parallel()
	const lifetime = 100 * time.Hour // refresh granularity: 1 hour
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	store := &recordingStore{MemStore: memstore.NewWithCleanupInterval(0)}
	m := NewManager(Options{CookieName: "s", Lifetime: lifetime, Store: store})
	m.now = c.Now
	// Update confirms a new session at once: it is saved for the full
	// lifetime (see TestProvisionalSession for sessions that are not).
	h := m.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := Update(r.Context(), "n", func(n *int) error { *n++; return nil }); err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		io.WriteString(w, ID(r.Context()))
	}))
	do := func(cookie string) (id, token string) {
		req := httptest.NewRequest("POST", "/", nil)
		if cookie != "" {
			req.AddCookie(&http.Cookie{Name: "s", Value: cookie})
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		cs := rec.Result().Cookies()
		if len(cs) != 1 {
			t.Fatalf("%d cookies", len(cs))
		}
		return rec.Body.String(), cs[0].Value
	}

	id, tok := do("")
	if n, exp := store.last(); n != 1 || !exp.Equal(c.Now().Add(lifetime)) {
		t.Fatalf("new session: %d commits, expiry %v", n, exp)
	}
	steps := []struct {
		advance time.Duration
		commits int // total after the request
	}{
		{30 * time.Minute, 1},           // < 1% of the lifetime since the last save: no write
		{31 * time.Minute, 2},           // > 1%: re-saved with a fresh expiry
		{lifetime - time.Minute, 3},     // still known (the expiry slid), re-saved
		{lifetime - time.Nanosecond, 4}, // just inside the slid lifetime
	}
	for i, st := range steps {
		c.Add(st.advance)
		gotID, gotTok := do(tok)
		if gotID != id || gotTok != tok {
			t.Fatalf("step %d: session lost (%s, %s)", i, gotID, gotTok)
		}
		n, exp := store.last()
		if n != st.commits {
			t.Errorf("step %d: %d commits, want %d", i, n, st.commits)
		}
		if st.commits > 1 && n == st.commits && !exp.Equal(c.Now().Add(lifetime)) {
			t.Errorf("step %d: expiry %v, want now+lifetime", i, exp)
		}
	}
	c.Add(lifetime + time.Nanosecond)
	if gotID, gotTok := do(tok); gotID == id || gotTok == tok {
		t.Error("a session idle for longer than its lifetime was kept")
	}
}

func TestDefaults(t *testing.T) {
	t.Parallel()
	m := NewManager(Options{CookieName: "s", Lifetime: time.Hour, Store: memstore.NewWithCleanupInterval(0)})
	ms, ok := m.state.(*MemoryStore)
	if !ok || ms.idle != time.Hour {
		t.Errorf("default state store %T, idle %v; want *MemoryStore idling out after the lifetime", m.state, ms.idle)
	}
	if s := NewMemoryStore(); s.idle != DefaultLifetime || s.sweep != time.Minute {
		t.Errorf("NewMemoryStore: idle %v, sweep %v", s.idle, s.sweep)
	}
	if DefaultLifetime.Seconds() != 1209600 {
		t.Errorf("DefaultLifetime = %v", DefaultLifetime)
	}
}

func TestValidID(t *testing.T) {
	t.Parallel()
	for range 1000 {
		if id := NewID(); !validID(id) {
			t.Fatalf("NewID() = %q is not valid", id)
		}
	}
	for _, bad := range []string{
		"",
		"0b5d5c5e-8a4e-4c43-9c2b-6d0f3f0a9e5",   // short
		"0b5d5c5e-8a4e-4c43-9c2b-6d0f3f0a9e511", // long
		"0B5D5C5E-8A4E-4C43-9C2B-6D0F3F0A9E51",  // upper case
		"0b5d5c5e-8a4e-1c43-9c2b-6d0f3f0a9e51",  // version 1
		"0b5d5c5e-8a4e-4c43-cc2b-6d0f3f0a9e51",  // variant
		"0b5d5c5e8a4e-4c43-9c2b-6d0f3f0a9e51-",  // hyphens
		"0b5d5c5g-8a4e-4c43-9c2b-6d0f3f0a9e51",  // not hex
	} {
		if validID(bad) {
			t.Errorf("validID(%q) = true", bad)
		}
	}
}

func TestWellFormedToken(t *testing.T) {
	t.Parallel()
	if tok := newToken(); !wellFormedToken(tok) {
		t.Errorf("newToken() = %q not well-formed", tok)
	}
	for _, bad := range []string{"", strings.Repeat("A", 42), strings.Repeat("A", 44), strings.Repeat("A", 42) + "=", strings.Repeat("A", 42) + ";"} {
		if wellFormedToken(bad) {
			t.Errorf("wellFormedToken(%q) = true", bad)
		}
	}
}

func TestFixCookie(t *testing.T) {
	t.Parallel()
	const ours = "s___i=TOKEN; Path=/"
	tests := []struct {
		name string
		in   []string
		want []string
	}{
		{"none", nil, []string{ours}},
		{"already", []string{ours}, []string{ours}},
		{"duplicate", []string{ours, ours}, []string{ours}},
		{"handler's", []string{"s___i=x; Path=/"}, []string{ours}},
		{"spaces around the name", []string{" s___i =x"}, []string{ours}},
		{"other names kept, in order", []string{"a=1", "s___i=x", "s___i2=y", "s___=z"}, []string{"a=1", "s___i2=y", "s___=z", ours}},
		{"malformed kept", []string{"junk"}, []string{"junk", ours}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := http.Header{}
			if tt.in != nil {
				h["Set-Cookie"] = tt.in
			}
			fixCookie(h, "s___i", ours)
			if got := h["Set-Cookie"]; strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestMemoryStoreSweepBoundsMemory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	s := NewMemoryStore(WithIdleTimeout(time.Hour), WithClock(c.Now))
	set := func(id string) {
		if err := s.Update(ctx, id, "k", func([]byte, bool) ([]byte, error) { return []byte("1"), nil }); err != nil {
			t.Fatal(err)
		}
	}
	old := map[string]bool{}
	for range 1000 {
		id := NewID()
		old[id] = true
		set(id)
	}
	c.Add(2 * time.Hour)
	fresh := map[*memShard]bool{}
	for range 100 {
		id := NewID()
		fresh[s.shard(id)] = true
		set(id)
	}
	// Every shard that got a new session was swept: no old session left in it.
	for sh := range fresh {
		sh.mu.Lock()
		for id := range sh.sessions {
			if old[id] {
				t.Errorf("expired session %s survived its shard's sweep", id)
			}
		}
		sh.mu.Unlock()
	}
	if n := s.Len(); n != 100 {
		t.Errorf("Len = %d, want 100", n)
	}
}

func TestRecord(t *testing.T) {
	t.Parallel()
	id := NewID()
	exp := time.Unix(0, 1767225600123456789)
	b := encodeRecord(id, exp)
	if want := `{"session_id":"` + id + `","expires":1767225600123456789}`; string(b) != want {
		t.Errorf("encodeRecord = %s, want %s", b, want)
	}
	if gotID, gotExp, ok := decodeRecord(b); !ok || gotID != id || !gotExp.Equal(exp) {
		t.Errorf("decodeRecord = %q, %v, %v", gotID, gotExp, ok)
	}
	for _, bad := range []string{
		"",
		"{}",
		`{"session_id":"` + id + `"}`,
		`{"session_id":"` + id + `","expires":12x}`,
		`{"session_id":"` + id + `","expires":1`,
		`{"session_id":"` + strings.ToUpper(id) + `","expires":1}`,
		`{"session_id":"short","expires":1}`,
		`{"expires":1,"session_id":"` + id + `"}`,
	} {
		if _, _, ok := decodeRecord([]byte(bad)); ok {
			t.Errorf("decodeRecord(%s) ok", bad)
		}
	}
}

func TestCorruptRecordStartsNewSession(t *testing.T) {
	t.Parallel()
	store := memstore.NewWithCleanupInterval(0)
	m := NewManager(Options{CookieName: "s", Store: store})
	token := newToken()
	for _, junk := range []string{"", "junk", `{"session_id":"x","expires":1}`, string(encodeRecord(NewID(), time.Now().Add(-time.Second)))} {
		_ = store.Commit(storeKey(token), []byte(junk), time.Now().Add(time.Hour))
		req := httptest.NewRequest("POST", "/", nil)
		req.AddCookie(&http.Cookie{Name: "s", Value: token})
		s, got, err := m.load(req)
		if err != nil || got == token || s.fresh == nil || !validID(s.id) {
			t.Errorf("record %q: scope %+v, token %q, err %v; want a new session", junk, s, got, err)
		}
	}
}

// TestProvisionalSession: a new session is saved before its headers are
// sent, provisionally (min(lifetime, 1h)) unless Update confirmed it, and the
// first replay of its cookie confirms it for the full lifetime.
func TestProvisionalSession(t *testing.T) {
	t.Parallel()
	const lifetime = 100 * time.Hour
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	store := &recordingStore{MemStore: memstore.NewWithCleanupInterval(0)}
	m := NewManager(Options{CookieName: "s", Lifetime: lifetime, Store: store})
	m.now = c.Now
	h := m.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/seed": // the default seed: uses nothing
			io.WriteString(w, "{}")
		case "/log": // request logging: only reads the id, repeatedly
			for range 3 {
				_ = ID(r.Context())
			}
			io.WriteString(w, ID(r.Context()))
		case "/update":
			_ = Update(r.Context(), "n", func(n *int) error { *n++; return nil })
			io.WriteString(w, ID(r.Context()))
		case "/write-then-update": // state written after the headers went
			io.WriteString(w, ID(r.Context()))
			w.(http.Flusher).Flush()
			_ = Update(r.Context(), "n", func(n *int) error { *n++; return nil })
		}
	}))
	do := func(path, cookie string) (body, token string) {
		t.Helper()
		req := httptest.NewRequest("POST", path, nil)
		if cookie != "" {
			req.AddCookie(&http.Cookie{Name: "s", Value: cookie})
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		cs := rec.Result().Cookies()
		if len(cs) != 1 {
			t.Fatalf("%s: %d cookies", path, len(cs))
		}
		return rec.Body.String(), cs[0].Value
	}
	idOf := func(token string) string {
		t.Helper()
		id, _, found, err := m.find(context.Background(), token)
		if err != nil || !found {
			t.Fatalf("token not in the store (found %v, err %v)", found, err)
		}
		return id
	}
	expect := func(step string, commits int, expiry time.Duration) {
		t.Helper()
		n, exp := store.last()
		if n != commits || !exp.Equal(c.Now().Add(expiry)) {
			t.Errorf("%s: %d commits, last expiry now%+v; want %d, now+%v", step, n, exp.Sub(c.Now()), commits, expiry)
		}
	}

	// An unused session is saved, provisionally.
	_, seedTok := do("/seed", "")
	expect("unused seed", 1, time.Hour)
	seedID := idOf(seedTok)
	// Reading its id changes nothing in the store.
	logged, logTok := do("/log", "")
	expect("ID only", 2, time.Hour)
	if idOf(logTok) != logged {
		t.Errorf("stored id %s, ID %s", idOf(logTok), logged)
	}
	// The first replay confirms it: same session, full lifetime.
	c.Add(59 * time.Minute)
	if got, tok := do("/log", seedTok); got != seedID || tok != seedTok {
		t.Fatalf("replayed seed cookie: id %s token %s, want %s %s", got, tok, seedID, seedTok)
	}
	expect("first replay", 3, lifetime)
	c.Add(2 * time.Hour) // past the provisional expiry: still known
	if got, _ := do("/log", seedTok); got != seedID {
		t.Errorf("confirmed session lost after the provisional expiry: %s", got)
	}
	expect("second replay", 4, lifetime) // > 1% of the lifetime: refreshed
	// A session nobody confirmed is forgotten after the provisional expiry.
	c.Add(time.Hour - 59*time.Minute + time.Nanosecond)
	if got, tok := do("/log", logTok); got == logged || tok == logTok {
		t.Errorf("an unconfirmed session outlived its provisional expiry")
	}
	expect("new session for the expired cookie", 5, time.Hour)

	// Update confirms a new session in its one commit.
	_, upTok := do("/update", "")
	expect("Update", 6, lifetime)
	c.Add(2 * time.Hour)
	if got, _ := do("/log", upTok); got != idOf(upTok) {
		t.Errorf("updated session lost")
	}
	expect("replay of the updated session", 7, lifetime) // > 1% of the lifetime: refreshed
	// Update after the headers were sent: provisional, then confirmed.
	_, lateTok := do("/write-then-update", "")
	expect("Update after the headers", 9, lifetime)
	if n := len(store.commits); store.commits[n-2] != c.Now().Add(time.Hour) {
		t.Errorf("before the headers: expiry now%+v, want now+1h", store.commits[n-2].Sub(c.Now()))
	}
	_ = idOf(lateTok)

	// A lifetime under an hour is the provisional expiry too.
	short := NewManager(Options{CookieName: "s", Lifetime: 10 * time.Minute, Store: store})
	short.now = c.Now
	rec := httptest.NewRecorder()
	short.Middleware(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})).ServeHTTP(rec, httptest.NewRequest("POST", "/", nil))
	expect("short lifetime", 10, 10*time.Minute)
}

func TestCookieValue(t *testing.T) {
	t.Parallel()
	const tok1, tok2 = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"
	tests := []struct {
		name  string
		lines []string
		want  string
		ok    bool
	}{
		{"none", nil, "", false},
		{"other names", []string{"a=1; s2=x; ss=y; S=z"}, "", false},
		{"one", []string{"s=" + tok1}, tok1, true},
		{"among others", []string{"a=1; s=" + tok1 + "; b=2"}, tok1, true},
		{"last wins", []string{"s=stale; s=" + tok1}, tok1, true},
		{"last wins even if junk", []string{"s=" + tok1 + "; s=stale"}, "stale", true},
		{"last wins when empty", []string{"s=" + tok1 + "; s="}, "", true},
		{"across header lines", []string{"s=" + tok1, "a=1; s=" + tok2}, tok2, true},
		{"spaces trimmed", []string{" s = " + tok1 + " ;b=2"}, tok1, true},
		{"quotes removed", []string{`s="` + tok1 + `"`}, tok1, true},
		{"value with =", []string{"s=a=b"}, "a=b", true},
		{"no = is no name", []string{"s; " + tok2}, "", false},
	}
	for _, tt := range tests {
		h := http.Header{}
		if tt.lines != nil {
			h["Cookie"] = tt.lines
		}
		if got, ok := cookieValue(h, "s"); got != tt.want || ok != tt.ok {
			t.Errorf("%s: cookieValue(%q) = %q, %v; want %q, %v", tt.name, tt.lines, got, ok, tt.want, tt.ok)
		}
	}
}
