package server

import (
	"context"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gymkit/gymkit/session"
)

// countingStore is a state store whose Sweep counts its calls.
type countingStore struct {
	session.StateStore
	sweeps atomic.Int64
}

func (s *countingStore) Sweep(context.Context) (int, error) { s.sweeps.Add(1); return 1, nil }

// TestStartSweeps: the host's sweepers call the state store's Sweep with no
// request, at the manager's SweepInterval (1 s for a short idle timeout),
// and stop when told.
func TestStartSweeps(t *testing.T) {
	t.Parallel()
	store := &countingStore{StateStore: session.NewMemoryStore()}
	sm := session.MustNewManager(session.Options{CookieName: "s", IdleTimeout: time.Second, State: store})
	if sm.SweepInterval() != time.Second {
		t.Fatalf("SweepInterval = %v", sm.SweepInterval())
	}
	stop := startSweeps([]*Instance{{Name: "i", Sessions: sm, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}})
	deadline := time.Now().Add(30 * time.Second) // a ceiling, not a target
	for store.sweeps.Load() < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("%d sweeps in 30 s, want 2", store.sweeps.Load())
		}
		time.Sleep(50 * time.Millisecond)
	}
	stop()
	n := store.sweeps.Load()
	time.Sleep(1500 * time.Millisecond)
	if store.sweeps.Load() != n {
		t.Error("a sweeper ran after stop")
	}
}
