package server

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/session"
)

type downStore struct{ *session.MemoryStore }

func (downStore) Ping(context.Context) error { return errors.New("down") }

// TestReadyPingsUnderTheMeteredStore: with metrics on, the host wraps the
// store in its timing decorator; readiness still finds the store's Ping,
// and the decorator passes Sweep on.
func TestReadyPingsUnderTheMeteredStore(t *testing.T) {
	t.Parallel()
	m := newInstanceMetrics("x", "x", config0(), func() bool { return false })
	inner := downStore{session.NewMemoryStore()}
	wrapped := &meteredStore{inner: inner, m: m}
	if _, ok := session.StateStore(wrapped).(StorePinger); ok {
		t.Fatal("the decorator must not claim a Ping of its own")
	}
	if got := baseStore(wrapped); got != session.StateStore(inner) {
		t.Fatalf("baseStore = %T, want the wrapped store", got)
	}
	sm := session.MustNewManager(session.Options{CookieName: "x___x", State: wrapped})
	in := &Instance{Sessions: sm, Logger: discard()}
	if r := in.Ready(context.Background()); r.Reason != "store_unreachable" || r.Store != "server.downStore" {
		t.Errorf("Ready = %+v, want store_unreachable naming server.downStore", r)
	}
	if _, err := sm.Sweep(context.Background()); err != nil {
		t.Errorf("Sweep through the decorator: %v", err)
	}
}

func config0() config.MetricsConfig { return config.MetricsConfig{Enabled: true} }

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
