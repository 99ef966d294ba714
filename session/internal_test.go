package session

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// clock is a clock that moves only when told to (Add); safe for
// concurrent use.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

// FakeClock is clock for the external tests (package session_test).
type FakeClock = clock

// NewFakeClock returns a clock standing at t, for the external tests.
func NewFakeClock(t time.Time) *FakeClock { return &clock{t: t} }

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

func TestDefaults(t *testing.T) {
	t.Parallel()
	m := MustNewManager(Options{CookieName: "s", Lifetime: time.Hour})
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
		if id := NewID(); !ValidID(id) {
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
		if ValidID(bad) {
			t.Errorf("ValidID(%q) = true", bad)
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
