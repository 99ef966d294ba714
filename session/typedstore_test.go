package session_test

import (
	"context"
	"errors"
	"testing"

	"github.com/gymkit/gymkit/session"
)

// countingTyped is a decorator of a MemoryStore that forwards
// session.TypedStore and counts what goes through each door.
type countingTyped struct {
	*session.MemoryStore
	typed, bytes int
}

func (c *countingTyped) Update(ctx context.Context, id, key string, fn func([]byte, bool) ([]byte, error)) error {
	c.bytes++
	return c.MemoryStore.Update(ctx, id, key, fn)
}

func (c *countingTyped) UpdateTyped(ctx context.Context, update func(*session.MemoryStore) error) error {
	c.typed++
	return c.MemoryStore.UpdateTyped(ctx, update)
}

// byteOnly hides the MemoryStore: only StateStore's methods.
type byteOnly struct{ session.StateStore }

// TestTypedStoreDecorator: session.Update goes through a decorator's
// UpdateTyped when it forwards session.TypedStore (once per Update, fn's
// error unchanged, the value kept without JSON: an invalid UTF-8 byte
// survives to the next Update), and through the byte methods when a
// decorator hides the store (the byte becomes U+FFFD).
func TestTypedStoreDecorator(t *testing.T) {
	t.Parallel()
	type state struct{ S string }
	run := func(t *testing.T, store session.StateStore) (seen string) {
		t.Helper()
		m := session.MustNewManager(session.Options{CookieName: "t___t", State: store})
		ctx := session.WithID(context.Background(), m, session.NewID())
		if err := session.Update(ctx, "k", func(s *state) error { s.S = "\xff"; return nil }); err != nil {
			t.Fatal(err)
		}
		boom := errors.New("boom")
		if err := session.Update(ctx, "k", func(s *state) error { seen = s.S; return boom }); err != boom { //nolint:errorlint // identity: returned unchanged
			t.Fatalf("Update returned %v, want fn's error itself", err)
		}
		return seen
	}
	dec := &countingTyped{MemoryStore: session.NewMemoryStore()}
	if seen := run(t, dec); seen != "\xff" {
		t.Errorf("through a TypedStore decorator fn saw %q, want the typed value %q", seen, "\xff")
	}
	if dec.typed != 2 || dec.bytes != 0 {
		t.Errorf("UpdateTyped called %d times, the byte Update %d; want 2 and 0", dec.typed, dec.bytes)
	}
	if seen := run(t, byteOnly{session.NewMemoryStore()}); seen != "\uFFFD" {
		t.Errorf("through a byte-only decorator fn saw %q, want JSON's %q", seen, "\uFFFD")
	}
}
