package redisstore_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gymkit/gymkit/internal/testkit/redistest"
	"github.com/gymkit/gymkit/session"
	"github.com/gymkit/gymkit/session/redisstore"
)

// A rollout's key holding something gymkit did not write (another Redis
// type, a broken expiry field, a value over MaxValueBytes) fails that
// rollout's Get and Update with ErrCorruptState naming the key, not with
// ErrStoreUnavailable (the store is up: a 503 would make the agent retry
// forever); another rollout is untouched, nothing is written, and Delete
// (close_session) clears it so that the rollout can start over. Before the
// fix each of these answered 503 "the rollout state store is unavailable".
func TestRedisStoreForeignValues(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rdb := rawClient(t)
	tests := []struct {
		name string
		set  func(key string) error
	}{
		{"a list", func(k string) error { rdb.Del(ctx, k); return rdb.RPush(ctx, k, "a", "b").Err() }},
		{"a string", func(k string) error { rdb.Del(ctx, k); return rdb.Set(ctx, k, "garbage", 0).Err() }},
		{"a set", func(k string) error { rdb.Del(ctx, k); return rdb.SAdd(ctx, k, "x").Err() }},
		{"expiry not a number", func(k string) error { return rdb.HSet(ctx, k, "d", "soon").Err() }},
		{"a value over MaxValueBytes", func(k string) error {
			return rdb.HSet(ctx, k, "v:k", strings.Repeat("x", 4097)).Err()
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st := newRedisStore(t, redisstore.Options{MaxValueBytes: 4096})
			for _, id := range []string{"bad", "good"} {
				if err := st.Update(ctx, id, "k", incr); err != nil {
					t.Fatal(err)
				}
			}
			if err := tt.set(st.Key("bad")); err != nil {
				t.Fatal(err)
			}
			ran := false
			for op, call := range map[string]func() error{
				"get": func() error { _, _, err := st.Get(ctx, "bad", "k"); return err },
				"update": func() error {
					return st.Update(ctx, "bad", "k", func(o []byte, ok bool) ([]byte, error) { ran = true; return incr(o, ok) })
				},
			} {
				err := call()
				if !errors.Is(err, redisstore.ErrCorruptState) || errors.Is(err, session.ErrStoreUnavailable) ||
					!strings.Contains(err.Error(), st.Key("bad")) {
					t.Errorf("%s: %v; want ErrCorruptState naming %s, not ErrStoreUnavailable", op, err, st.Key("bad"))
				}
			}
			if ran {
				t.Error("Update ran fn on a foreign value")
			}
			if v, ok, err := st.Get(ctx, "good", "k"); err != nil || !ok || string(v) != "1" {
				t.Errorf("the other rollout: %q %v %v, want 1", v, ok, err)
			}
			if err := st.Ping(ctx); err != nil {
				t.Errorf("Ping: %v (the store is up)", err)
			}
			if err := st.Delete(ctx, "bad"); err != nil {
				t.Fatalf("Delete: %v", err)
			}
			if err := st.Update(ctx, "bad", "k", incr); err != nil {
				t.Errorf("Update after Delete: %v", err)
			}
		})
	}
}

// An Update whose fn makes a value over MaxValueBytes writes nothing and
// says so; the old value stays.
func TestRedisStoreRefusesALargeValue(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := newRedisStore(t, redisstore.Options{MaxValueBytes: 1024})
	if err := st.Update(ctx, "s", "k", incr); err != nil {
		t.Fatal(err)
	}
	err := st.Update(ctx, "s", "k", func([]byte, bool) ([]byte, error) { return make([]byte, 1025), nil })
	if err == nil || errors.Is(err, session.ErrStoreUnavailable) || !strings.Contains(err.Error(), "1025 bytes") {
		t.Fatalf("Update of 1025 bytes: %v, want the limit error", err)
	}
	if v, _, _ := st.Get(ctx, "s", "k"); string(v) != "1" {
		t.Errorf("after the refused Update: %q, want 1", v)
	}
}

// Parallel Updates of one rollout's key queue on the store's in-process
// lock. While Redis does not answer (CLIENT PAUSE WRITE, which also holds scripts: a stalled server), the
// first one fails after ReadTimeout; before the fix each waiter then tried
// in turn, so the 30th failed after 30 read timeouts (6s+). Now the waiters
// fail with the holder's error, and an Update whose context ends while it
// waits returns at once.
func TestRedisStoreQueuedUpdatesFailTogether(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := redistest.Start(t)
	const readTimeout = 200 * time.Millisecond
	st := newRedisStore(t, redisstore.Options{URL: srv.URL(), DialTimeout: readTimeout, ReadTimeout: readTimeout})
	if err := st.Update(ctx, "s", "k", incr); err != nil {
		t.Fatal(err)
	}
	o, _ := redis.ParseURL(srv.URL())
	admin := redis.NewClient(o)
	defer admin.Close()
	if err := admin.Do(ctx, "CLIENT", "PAUSE", "60000", "WRITE").Err(); err != nil {
		t.Fatal(err)
	}
	defer admin.Do(ctx, "CLIENT", "UNPAUSE")

	const n = 30
	var wg sync.WaitGroup
	var mu sync.Mutex
	var slowest time.Duration
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			start := time.Now()
			errs[i] = st.Update(ctx, "s", "k", incr)
			mu.Lock()
			slowest = max(slowest, time.Since(start))
			mu.Unlock()
		})
	}
	wg.Wait()
	for i, err := range errs {
		if !errors.Is(err, session.ErrStoreUnavailable) {
			t.Errorf("Update %d with Redis stalled: %v, want ErrStoreUnavailable", i, err)
		}
	}
	// Serialised, the last would fail after n read timeouts (6s); together
	// they fail after about one. The bound is half of n, for a loaded machine.
	if slowest > n/2*readTimeout {
		t.Errorf("the slowest of %d queued Updates took %v: they failed one after another, not together", n, slowest)
	}

	// A waiter whose context ends stops waiting.
	if err := admin.Do(ctx, "CLIENT", "UNPAUSE").Err(); err != nil {
		t.Fatal(err)
	}
	hold := make(chan struct{})
	held := make(chan struct{})
	go func() {
		_ = st.Update(ctx, "s", "k2", func([]byte, bool) ([]byte, error) { close(held); <-hold; return []byte("1"), nil })
	}()
	<-held
	cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if err := st.Update(cctx, "s", "k2", incr); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a waiter whose context ended: %v, want context.DeadlineExceeded", err)
	}
	close(hold)
}

// EvictionPolicy reads the server's maxmemory-policy, which the host warns
// about when it is not noeviction.
func TestRedisStoreEvictionPolicy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := redistest.Start(t)
	st := newRedisStore(t, redisstore.Options{URL: srv.URL()})
	if p, err := st.EvictionPolicy(ctx); err != nil || p != "noeviction" {
		t.Fatalf("EvictionPolicy = %q, %v; want noeviction (Redis's default)", p, err)
	}
	o, _ := redis.ParseURL(srv.URL())
	admin := redis.NewClient(o)
	defer admin.Close()
	if err := admin.ConfigSet(ctx, "maxmemory-policy", "volatile-lru").Err(); err != nil {
		t.Fatal(err)
	}
	if p, err := st.EvictionPolicy(ctx); err != nil || p != "volatile-lru" {
		t.Errorf("EvictionPolicy = %q, %v; want volatile-lru", p, err)
	}
	srv.Stop()
	if _, err := st.EvictionPolicy(ctx); !errors.Is(err, session.ErrStoreUnavailable) {
		t.Errorf("EvictionPolicy with Redis down: %v, want ErrStoreUnavailable", err)
	}
}
