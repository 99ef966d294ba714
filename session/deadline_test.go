package session_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gymkit/gymkit/session"
)

// An Update under a write deadline commits before the deadline and fails
// with ErrDeadline, writing nothing, at or after it, or once expired.
func TestWriteDeadline(t *testing.T) {
	t.Parallel()
	m := session.MustNewManager(session.Options{CookieName: "c"})
	ctx := session.WithID(context.Background(), m, session.NewID())
	add := func(ctx context.Context) error {
		return session.Update(ctx, "n", func(n *int) error { *n++; return nil })
	}
	get := func() int {
		n, _, err := session.Get[int](ctx, "n")
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	dctx, expire := session.WithWriteDeadline(ctx, time.Now().Add(time.Hour))
	if err := add(dctx); err != nil || get() != 1 {
		t.Fatalf("Update before the deadline: %v, n = %d", err, get())
	}
	expire()
	expire() // idempotent
	if err := add(dctx); !errors.Is(err, session.ErrDeadline) || !errors.Is(err, context.DeadlineExceeded) || get() != 1 {
		t.Errorf("Update after expire: %v, n = %d; want ErrDeadline and 1", err, get())
	}

	past, _ := session.WithWriteDeadline(ctx, time.Now().Add(-time.Millisecond))
	if err := add(past); !errors.Is(err, session.ErrDeadline) || get() != 1 {
		t.Errorf("Update past the deadline: %v, n = %d", err, get())
	}
	// A slow fn that ends past the deadline writes nothing either.
	soon, _ := session.WithWriteDeadline(ctx, time.Now().Add(20*time.Millisecond))
	err := session.Update(soon, "n", func(n *int) error { time.Sleep(40 * time.Millisecond); *n = 100; return nil })
	if !errors.Is(err, session.ErrDeadline) || get() != 1 {
		t.Errorf("Update whose fn ends past the deadline: %v, n = %d", err, get())
	}
	// The deadline is the call's: the session without it still writes.
	if err := add(ctx); err != nil || get() != 2 {
		t.Errorf("Update without a deadline: %v, n = %d", err, get())
	}
}
