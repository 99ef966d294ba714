package session_test

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/gymkit/gymkit/session"
)

// fakeClock is a clock that moves only when told to.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// set is a raw Update that stores v.
func set(v []byte) func([]byte, bool) ([]byte, error) {
	return func([]byte, bool) ([]byte, error) { return v, nil }
}

func TestMemoryStoreIdleExpiry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := newFakeClock()
	const idle = time.Hour
	s := session.NewMemoryStore(session.WithIdleTimeout(idle), session.WithClock(clock.Now))
	a, b := session.NewID(), session.NewID()
	if err := s.Update(ctx, a, "k", set([]byte(`1`))); err != nil {
		t.Fatal(err)
	}
	if err := s.Update(ctx, b, "k", set([]byte(`2`))); err != nil {
		t.Fatal(err)
	}

	clock.Add(idle) // exactly idle: still there; the Get keeps a alive
	if _, ok, _ := s.Get(ctx, a, "k"); !ok {
		t.Fatal("a expired at exactly the idle timeout")
	}
	clock.Add(time.Nanosecond) // b idle for longer than idle
	if v, ok, _ := s.Get(ctx, b, "k"); ok {
		t.Errorf("b still has %s after the idle timeout", v)
	}
	if v, ok, _ := s.Get(ctx, a, "k"); !ok || string(v) != "1" {
		t.Errorf("a = %s, %v; a Get an hour ago should have kept it", v, ok)
	}
	if n := s.Len(); n != 1 {
		t.Errorf("Len = %d, want 1", n)
	}

	// An expired session starts over empty.
	err := s.Update(ctx, b, "k", func(old []byte, ok bool) ([]byte, error) {
		if ok {
			t.Errorf("Update of an expired session saw %s", old)
		}
		return []byte(`3`), nil
	})
	if err != nil {
		t.Fatal(err)
	}

	clock.Add(2 * idle)
	if n := s.Len(); n != 0 {
		t.Errorf("Len = %d after everything expired, want 0", n)
	}
}

func TestMemoryStoreNoExpiry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := newFakeClock()
	s := session.NewMemoryStore(session.WithIdleTimeout(0), session.WithClock(clock.Now))
	id := session.NewID()
	if err := s.Update(ctx, id, "k", set([]byte(`1`))); err != nil {
		t.Fatal(err)
	}
	clock.Add(100 * 365 * 24 * time.Hour)
	if _, ok, _ := s.Get(ctx, id, "k"); !ok || s.Len() != 1 {
		t.Error("state expired with idle timeout 0")
	}
}

func TestMemoryStoreRawSemantics(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := session.NewMemoryStore()
	id := session.NewID()

	if v, ok, err := s.Get(ctx, id, "k"); v != nil || ok || err != nil {
		t.Errorf("Get of nothing = %q, %v, %v", v, ok, err)
	}
	stored := []byte(`{"a":1}`)
	if err := s.Update(ctx, id, "k", set(stored)); err != nil {
		t.Fatal(err)
	}
	got, _, _ := s.Get(ctx, id, "k")
	got[0] = 'X' // the caller owns Get's result
	if again, _, _ := s.Get(ctx, id, "k"); !bytes.Equal(again, []byte(`{"a":1}`)) {
		t.Errorf("stored value changed through Get's result: %s", again)
	}

	// Present but empty is not absent.
	if err := s.Update(ctx, id, "empty", set([]byte{})); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Get(ctx, id, "empty"); !ok {
		t.Error("an empty value reads as absent")
	}

	// fn's error aborts and is returned unchanged.
	errBoom := errors.New("boom")
	if err := s.Update(ctx, id, "k", func(old []byte, ok bool) ([]byte, error) {
		if !ok || string(old) != `{"a":1}` {
			t.Errorf("fn got %s, %v", old, ok)
		}
		return []byte(`lost`), errBoom
	}); err != errBoom {
		t.Errorf("Update err = %v, want fn's", err)
	}

	// A nil value deletes the key.
	if err := s.Update(ctx, id, "k", set(nil)); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Get(ctx, id, "k"); ok {
		t.Error("key still there after fn returned nil")
	}

	// Delete drops the whole session; deleting again is fine.
	if err := s.Delete(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Get(ctx, id, "empty"); ok {
		t.Error("state survived Delete")
	}
	if err := s.Delete(ctx, id); err != nil {
		t.Errorf("second Delete: %v", err)
	}
}

func TestMemoryStoreGetInsideUpdate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := session.NewMemoryStore()
	id := session.NewID()
	_ = s.Update(ctx, id, "a", set([]byte(`1`)))
	done := make(chan struct{})
	go func() {
		defer close(done)
		err := s.Update(ctx, id, "a", func(old []byte, ok bool) ([]byte, error) {
			// Get of the same key sees the value before this Update;
			// Updates of other keys of the session proceed.
			if v, _, _ := s.Get(ctx, id, "a"); string(v) != "1" {
				t.Errorf("nested Get = %s", v)
			}
			return []byte(`2`), s.Update(ctx, id, "b", set([]byte(`1`)))
		})
		if err != nil {
			t.Error(err)
		}
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("deadlock: Get or another key's Update inside Update")
	}
}

func TestMemoryStoreKeysDoNotBlockEachOther(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := session.NewMemoryStore()
	id, other := session.NewID(), session.NewID()
	inside := make(chan struct{})
	release := make(chan struct{})
	go func() {
		_ = s.Update(ctx, id, "slow", func([]byte, bool) ([]byte, error) {
			close(inside)
			<-release
			return []byte(`1`), nil
		})
	}()
	<-inside
	defer close(release)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = s.Update(ctx, id, "fast", set([]byte(`1`)))
		_ = s.Update(ctx, other, "slow", set([]byte(`1`)))
		_, _, _ = s.Get(ctx, id, "slow")
		_ = s.Delete(ctx, other)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("an Update in progress blocked other keys or sessions")
	}
}
