package session_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gymkit/gymkit/session"
)

// newFakeClock is a clock that moves only when told to, standing at
// 2026-01-02 03:04:05 UTC.
func newFakeClock() *session.FakeClock {
	return session.NewFakeClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
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

// typedState is a state of the kinds the memory store copies itself
// (slices, maps, nested structs, floats) and one it copies through JSON.
type typedState struct {
	Calls  []typedCall            `json:"calls"`
	Counts map[string]int         `json:"counts"`
	Scores map[string][]float64   `json:"scores"`
	Extra  any                    `json:"extra"`
	Tags   []string               `json:"tags,omitempty"`
	Nested map[string]typedNested `json:"nested"`
}

type typedCall struct {
	City string  `json:"city"`
	Temp float64 `json:"temp"`
}

type typedNested struct{ List []int }

func typedCtx(t *testing.T) context.Context {
	t.Helper()
	m := session.MustNewManager(session.Options{CookieName: "t___t"})
	return session.WithID(context.Background(), m, session.NewID())
}

func getTyped(t *testing.T, ctx context.Context) typedState {
	t.Helper()
	v, ok, err := session.Get[typedState](ctx, "s")
	if err != nil || !ok {
		t.Fatalf("Get: %v, %v", ok, err)
	}
	return v
}

func seedTyped(t *testing.T, ctx context.Context) {
	t.Helper()
	if err := session.Update(ctx, "s", func(s *typedState) error {
		*s = typedState{Calls: []typedCall{{"Paris", 20}}, Counts: map[string]int{"a": 1},
			Scores: map[string][]float64{"x": {0.5}}, Extra: typedCall{"Rome", 1},
			Nested: map[string]typedNested{"n": {List: []int{1}}}}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

const typedSeeded = `{"calls":[{"city":"Paris","temp":20}],"counts":{"a":1},"scores":{"x":[0.5]},"extra":{"city":"Rome","temp":1},"nested":{"n":{"List":[1]}}}`

// mutateAll changes every part of s in place, the stored value's too if
// fn were given it.
func mutateAll(s *typedState) {
	s.Calls[0].City = "changed"
	s.Calls = append(s.Calls, typedCall{"Oslo", 3})
	s.Counts["a"] = 99
	s.Counts["b"] = 1
	s.Scores["x"][0] = 9
	s.Nested["n"].List[0] = 9
	s.Tags = append(s.Tags, "t")
}

// TestTypedUpdateLeavesStoredValueOnFailure: whatever fn changed in place
// (elements, maps, nested slices, appends), an error, a panic or a missed
// write deadline stores nothing, and the key stays usable.
func TestTypedUpdateLeavesStoredValueOnFailure(t *testing.T) {
	t.Parallel()
	errStop := errors.New("stop")
	for _, tc := range []struct {
		name string
		run  func(ctx context.Context) error
		want error
	}{
		{"error", func(ctx context.Context) error {
			return session.Update(ctx, "s", func(s *typedState) error { mutateAll(s); return errStop })
		}, errStop},
		{"panic", func(ctx context.Context) (err error) {
			defer func() {
				if recover() == nil {
					err = errors.New("no panic")
				}
			}()
			return session.Update(ctx, "s", func(s *typedState) error { mutateAll(s); panic("kaboom") })
		}, nil},
		{"NaN", func(ctx context.Context) error {
			return session.Update(ctx, "s", func(s *typedState) error {
				mutateAll(s)
				s.Calls[1].Temp = nan()
				return nil
			})
		}, nil},
		{"deadline", func(ctx context.Context) error {
			dctx, expire := session.WithWriteDeadline(ctx, time.Now().Add(time.Hour))
			expire()
			return session.Update(dctx, "s", func(s *typedState) error { mutateAll(s); return nil })
		}, session.ErrDeadline},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := typedCtx(t)
			seedTyped(t, ctx)
			err := tc.run(ctx)
			switch {
			case tc.name == "NaN":
				if err == nil || !strings.Contains(err.Error(), `"s"`) {
					t.Errorf("err %v, want an encoding error naming the key", err)
				}
			case err != tc.want:
				t.Errorf("err %v, want %v", err, tc.want)
			}
			got, _ := json.Marshal(getTyped(t, ctx))
			if string(got) != typedSeeded {
				t.Errorf("after a failed Update:\n got %s\nwant %s", got, typedSeeded)
			}
			if err := session.Update(ctx, "s", func(s *typedState) error { s.Counts["a"]++; return nil }); err != nil {
				t.Fatal(err)
			}
			if v := getTyped(t, ctx); v.Counts["a"] != 2 {
				t.Errorf("the next Update: counts %v", v.Counts)
			}
		})
	}
}

// TestTypedGetKeepsNoAliases: a Get result does not reach the stored
// value (fn's T, by contrast, is the stored value once fn succeeded: fn must
// not keep it, see Update).
func TestTypedGetKeepsNoAliases(t *testing.T) {
	t.Parallel()
	ctx := typedCtx(t)
	seedTyped(t, ctx)
	g := getTyped(t, ctx)
	mutateAll(&g)
	if got, _ := json.Marshal(getTyped(t, ctx)); string(got) != typedSeeded {
		t.Errorf("stored value changed through fn's T or a Get:\n got %s\nwant %s", got, typedSeeded)
	}
}

// TestTypedUpdateAsThroughJSON: what fn sees is what the JSON path gave it:
// interfaces as JSON's generic types, an empty list under omitempty as nil,
// and another type of the same key decoded from the JSON of the first
// (or refused with the key and type named).
func TestTypedUpdateAsThroughJSON(t *testing.T) {
	t.Parallel()
	ctx := typedCtx(t)
	seedTyped(t, ctx)
	if err := session.Update(ctx, "s", func(s *typedState) error { s.Tags = []string{}; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := session.Update(ctx, "s", func(s *typedState) error {
		if m, ok := s.Extra.(map[string]any); !ok || m["city"] != "Rome" {
			t.Errorf("fn sees Extra as %#v, want JSON's map", s.Extra)
		}
		if s.Tags != nil {
			t.Errorf("fn sees an omitempty empty list as %#v, want nil", s.Tags)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	type other struct {
		Calls []struct{ City string } `json:"calls"`
	}
	if err := session.Update(ctx, "s", func(o *other) error {
		if len(o.Calls) != 1 || o.Calls[0].City != "Paris" {
			t.Errorf("Update of another type sees %+v", o)
		}
		o.Calls = append(o.Calls, struct{ City string }{"Oslo"})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if v := getTyped(t, ctx); len(v.Calls) != 2 || v.Calls[1].City != "Oslo" || v.Counts != nil {
		t.Errorf("after Update of another type: %+v", v)
	}
	if err := session.Update(ctx, "s", func(*int) error { return nil }); err == nil || !strings.Contains(err.Error(), `"s"`) || !strings.Contains(err.Error(), "int") {
		t.Errorf("Update[int] of an object: %v", err)
	}
}

// TestTypedAndRawInterfaces: the store's byte interface sees a value of
// Update as its JSON, and Update decodes bytes stored through it.
func TestTypedAndRawInterfaces(t *testing.T) {
	t.Parallel()
	s := session.NewMemoryStore()
	m := session.MustNewManager(session.Options{CookieName: "t___t", State: s})
	id := session.NewID()
	ctx := session.WithID(context.Background(), m, id)
	seedTyped(t, ctx)
	if b, ok, err := s.Get(ctx, id, "s"); err != nil || !ok || string(b) != typedSeeded {
		t.Errorf("raw Get = %s, %v, %v", b, ok, err)
	}
	if err := s.Update(ctx, id, "s", func(old []byte, ok bool) ([]byte, error) {
		if !ok || string(old) != typedSeeded {
			t.Errorf("raw Update sees %s, %v", old, ok)
		}
		return []byte(`{"counts":{"z":5}}`), nil
	}); err != nil {
		t.Fatal(err)
	}
	if v := getTyped(t, ctx); v.Counts["z"] != 5 || v.Calls != nil {
		t.Errorf("after a raw Update: %+v", v)
	}
	if err := session.Update(ctx, "s", func(v *typedState) error { v.Counts["z"]++; return nil }); err != nil {
		t.Fatal(err)
	}
	if b, _, _ := s.Get(ctx, id, "s"); !strings.Contains(string(b), `"z":6`) {
		t.Errorf("raw Get after Update = %s", b)
	}
}

// TestTypedUpdateParallel: 100 goroutines appending to one list lose none.
func TestTypedUpdateParallel(t *testing.T) {
	t.Parallel()
	ctx := typedCtx(t)
	var wg sync.WaitGroup
	for i := range 100 {
		wg.Go(func() {
			if err := session.Update(ctx, "s", func(s *typedState) error {
				s.Calls = append(s.Calls, typedCall{City: "c", Temp: float64(i)})
				return nil
			}); err != nil {
				t.Error(err)
			}
			if _, _, err := session.Get[typedState](ctx, "s"); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if v := getTyped(t, ctx); len(v.Calls) != 100 {
		t.Errorf("%d calls, want 100", len(v.Calls))
	}
}

// countedJSON counts its MarshalJSON calls: the JSON round trips the
// typed path makes of it.
type countedJSON struct{ n *atomic.Int64 }

func (c countedJSON) MarshalJSON() ([]byte, error) {
	if c.n != nil {
		c.n.Add(1)
	}
	return []byte("0"), nil
}
func (c *countedJSON) UnmarshalJSON([]byte) error { return nil }

// immutableJSON is countedJSON marked session.Immutable.
type immutableJSON struct{ countedJSON }

func (immutableJSON) SessionImmutable() {}

// TestTypedUpdateCopiesImmutableByAssignment: a field of a type with its
// own MarshalJSON is copied by a JSON round trip at each typed Update,
// unless the type is session.Immutable (framework.Int is): then no
// MarshalJSON runs and the value (here its pointer) is kept as it was.
func TestTypedUpdateCopiesImmutableByAssignment(t *testing.T) {
	t.Parallel()
	type plain struct{ V countedJSON }
	type marked struct{ V immutableJSON }
	var nPlain, nMarked atomic.Int64
	ctx := typedCtx(t)
	for i := range 5 {
		if err := session.Update(ctx, "plain", func(s *plain) error {
			if i == 0 {
				s.V = countedJSON{&nPlain}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if err := session.Update(ctx, "marked", func(s *marked) error {
			if i == 0 {
				s.V = immutableJSON{countedJSON{&nMarked}}
			} else if s.V.n != &nMarked {
				t.Errorf("update %d: the Immutable field was not copied by assignment", i)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if nPlain.Load() == 0 {
		t.Error("the control type was never encoded: the test would not see a round trip")
	}
	if n := nMarked.Load(); n != 0 {
		t.Errorf("the Immutable type was encoded %d times by typed Updates, want 0", n)
	}
}
