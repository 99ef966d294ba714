package server

import (
	"context"
	"errors"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/session"
)

// failingStore fails every operation, as an unreachable Redis would.
type failingStore struct{}

var errStoreDown = errors.New("store down")

func (failingStore) Get(context.Context, string, string) ([]byte, bool, error) {
	return nil, false, errStoreDown
}
func (failingStore) Update(context.Context, string, string, func([]byte, bool) ([]byte, error)) error {
	return errStoreDown
}
func (failingStore) Delete(context.Context, string) error { return errStoreDown }

// TestMeteredStoreCountsStoreErrorsOnly: the decorator counts the store's
// failures per op, not an error of the caller's update function, and
// returns every error unchanged.
func TestMeteredStoreCountsStoreErrorsOnly(t *testing.T) {
	t.Parallel()
	m := newInstanceMetrics("x", "x", config.MetricsConfig{Enabled: true}, func() bool { return false })
	ok := &meteredStore{inner: session.NewMemoryStore(), m: m}
	refused := errors.New("the tool refuses the change")
	if err := ok.Update(context.Background(), "s", "k", func([]byte, bool) ([]byte, error) { return nil, refused }); !errors.Is(err, refused) {
		t.Fatalf("Update = %v, want the function's error", err)
	}
	if err := ok.Update(context.Background(), "s", "k", func([]byte, bool) ([]byte, error) { return []byte("1"), nil }); err != nil {
		t.Fatal(err)
	}
	if v, found, err := ok.Get(context.Background(), "s", "k"); err != nil || !found || string(v) != "1" {
		t.Fatalf("Get = %q %v %v", v, found, err)
	}
	if got := counterValue(m.storeErrs[opUpdate]); got != 0 {
		t.Errorf("update errors = %v after a refused change, want 0", got)
	}
	bad := &meteredStore{inner: failingStore{}, m: m}
	if _, _, err := bad.Get(context.Background(), "s", "k"); !errors.Is(err, errStoreDown) {
		t.Errorf("Get = %v", err)
	}
	if err := bad.Update(context.Background(), "s", "k", func([]byte, bool) ([]byte, error) { return nil, nil }); !errors.Is(err, errStoreDown) {
		t.Errorf("Update = %v", err)
	}
	if err := bad.Delete(context.Background(), "s"); !errors.Is(err, errStoreDown) {
		t.Errorf("Delete = %v", err)
	}
	if n, err := bad.Sweep(context.Background()); n != 0 || err != nil {
		t.Errorf("Sweep of a store without Sweep = %d %v, want 0 nil", n, err)
	}
	for op, want := range map[int]float64{opGet: 1, opUpdate: 1, opDelete: 1, opSweep: 0} {
		if got := counterValue(m.storeErrs[op]); got != want {
			t.Errorf("%s errors = %v, want %v", opNames[op], got, want)
		}
	}
}

func counterValue(c prometheus.Counter) float64 {
	var d dto.Metric
	if err := c.Write(&d); err != nil {
		return -1
	}
	return d.GetCounter().GetValue()
}
