package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gymkit/gymkit/internal/testkit/redistest"
	"github.com/gymkit/gymkit/session"
	"github.com/gymkit/gymkit/session/redisstore"
)

func newRedisStore(t testing.TB, opts redisstore.Options) *redisstore.Store {
	t.Helper()
	if opts.URL == "" {
		opts.URL = redistest.URL(t)
	}
	if opts.Prefix == "" {
		opts.Prefix = redistest.Prefix(t)
	}
	st, err := redisstore.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

func rawClient(t testing.TB) *redis.Client {
	o, err := redis.ParseURL(redistest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(o)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func TestRedisStoreGetUpdateDelete(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := newRedisStore(t, redisstore.Options{})
	if _, ok, err := st.Get(ctx, "s1", "k"); ok || err != nil {
		t.Fatalf("Get of nothing = ok %v, err %v", ok, err)
	}
	set := func(v string) func([]byte, bool) ([]byte, error) {
		return func([]byte, bool) ([]byte, error) { return []byte(v), nil }
	}
	if err := st.Update(ctx, "s1", "k", set(`{"a":1}`)); err != nil {
		t.Fatal(err)
	}
	// An empty value is a value, not an absence.
	if err := st.Update(ctx, "s1", "empty", set("")); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := st.Get(ctx, "s1", "empty"); !ok || err != nil || len(v) != 0 {
		t.Fatalf("Get(empty) = %q, %v, %v", v, ok, err)
	}
	var sawOld string
	if err := st.Update(ctx, "s1", "k", func(old []byte, ok bool) ([]byte, error) {
		sawOld = fmt.Sprintf("%s %v", old, ok)
		return []byte(`{"a":2}`), nil
	}); err != nil {
		t.Fatal(err)
	}
	if sawOld != `{"a":1} true` {
		t.Errorf("fn saw %s", sawOld)
	}
	boom := errors.New("boom")
	if err := st.Update(ctx, "s1", "k", func([]byte, bool) ([]byte, error) { return []byte("x"), boom }); err != boom {
		t.Errorf("Update with fn error = %v, want boom unchanged", err)
	}
	if v, _, _ := st.Get(ctx, "s1", "k"); string(v) != `{"a":2}` {
		t.Errorf("after failed fn: %s", v)
	}
	// Another session is untouched by everything above.
	if _, ok, _ := st.Get(ctx, "s2", "k"); ok {
		t.Error("s2 sees s1's state")
	}
	// nil deletes one key.
	if err := st.Update(ctx, "s1", "k", func([]byte, bool) ([]byte, error) { return nil, nil }); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := st.Get(ctx, "s1", "k"); ok {
		t.Error("key still there after a nil Update")
	}
	if err := st.Delete(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := st.Get(ctx, "s1", "empty"); ok {
		t.Error("state still there after Delete")
	}
	if n, _ := rawClient(t).Exists(ctx, st.Key("s1")).Result(); n != 0 {
		t.Error("the Redis key is still there after Delete")
	}
	if err := st.Delete(ctx, "never"); err != nil {
		t.Errorf("Delete of nothing: %v", err)
	}
	if err := st.Ping(ctx); err != nil {
		t.Errorf("Ping: %v", err)
	}
}

// Two stores on one Redis are two replicas: 50 concurrent increments of one
// key, half on each, leave exactly 50, with either commit strategy.
func TestRedisStoreAtomicAcrossReplicas(t *testing.T) {
	t.Parallel()
	for _, strategy := range []string{"script", "watch", "script-nolocal"} {
		t.Run(strategy, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			prefix := redistest.Prefix(t)
			a := newRedisStore(t, redisstore.Options{Prefix: prefix})
			b := newRedisStore(t, redisstore.Options{Prefix: prefix})
			redisstore.SetStrategy(a, strategy)
			redisstore.SetStrategy(b, strategy)
			var wg sync.WaitGroup
			errs := make(chan error, 50)
			for i := range 50 {
				st := a
				if i%2 == 1 {
					st = b
				}
				wg.Go(func() {
					errs <- st.Update(ctx, "rollout", "count", incr)
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Errorf("Update: %v", err)
				}
			}
			v, ok, err := b.Get(ctx, "rollout", "count")
			if err != nil || !ok || string(v) != "50" {
				t.Fatalf("count = %q (ok %v, err %v), want 50", v, ok, err)
			}
		})
	}
}

func incr(old []byte, ok bool) ([]byte, error) {
	n := 0
	if ok {
		var err error
		if n, err = strconv.Atoi(string(old)); err != nil {
			return nil, err
		}
	}
	return []byte(strconv.Itoa(n + 1)), nil
}

// The idle timeout and the absolute lifetime are the Redis key's TTL.
func TestRedisStoreTTL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rdb := rawClient(t)
	tests := []struct {
		name           string
		idle, lifetime time.Duration
		wantMax        time.Duration
	}{
		{"idle", 10 * time.Minute, time.Hour, 10 * time.Minute},
		{"lifetime caps", time.Hour, 5 * time.Minute, 5 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st := newRedisStore(t, redisstore.Options{IdleTimeout: tt.idle, Lifetime: tt.lifetime})
			if err := st.Update(ctx, "s", "k", incr); err != nil {
				t.Fatal(err)
			}
			for _, op := range []string{"update", "get"} {
				if op == "get" {
					if err := rdb.PExpire(ctx, st.Key("s"), time.Second).Err(); err != nil {
						t.Fatal(err)
					}
					if _, _, err := st.Get(ctx, "s", "k"); err != nil {
						t.Fatal(err)
					}
				}
				ttl, err := rdb.PTTL(ctx, st.Key("s")).Result()
				if err != nil {
					t.Fatal(err)
				}
				if ttl <= tt.wantMax-time.Minute || ttl > tt.wantMax {
					t.Errorf("after %s: TTL %v, want just under %v", op, ttl, tt.wantMax)
				}
			}
		})
	}
}

// A session idle for longer than the idle timeout reads as empty: Redis
// expired it. A session past its lifetime also does, however active.
func TestRedisStoreExpires(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	st := newRedisStore(t, redisstore.Options{IdleTimeout: 300 * time.Millisecond, Lifetime: time.Hour, Clock: clock})
	if err := st.Update(ctx, "s", "k", incr); err != nil {
		t.Fatal(err)
	}
	time.Sleep(700 * time.Millisecond)
	if _, ok, err := st.Get(ctx, "s", "k"); ok || err != nil {
		t.Errorf("idle session: ok %v, err %v; want expired", ok, err)
	}

	if err := st.Update(ctx, "old", "k", incr); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	now = now.Add(2 * time.Hour) // past the lifetime, as far as the store is concerned
	mu.Unlock()
	if _, ok, err := st.Get(ctx, "old", "k"); ok || err != nil {
		t.Errorf("session past its lifetime: ok %v, err %v; want gone", ok, err)
	}
}

// A store that is down fails fast with ErrStoreUnavailable naming its
// address, writes nothing, and recovers when the server is back.
func TestRedisStoreOutage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := redistest.Start(t)
	st := newRedisStore(t, redisstore.Options{URL: srv.URL(), DialTimeout: 200 * time.Millisecond, ReadTimeout: 200 * time.Millisecond})
	if err := st.Update(ctx, "s", "k", incr); err != nil {
		t.Fatal(err)
	}
	srv.Stop()
	addr := "127.0.0.1:" + strconv.Itoa(srv.Port)
	calls := map[string]func() error{
		"get":    func() error { _, _, err := st.Get(ctx, "s", "k"); return err },
		"update": func() error { return st.Update(ctx, "s", "k", incr) },
		"delete": func() error { return st.Delete(ctx, "s") },
		"ping":   func() error { return st.Ping(ctx) },
	}
	for name, call := range calls {
		start := time.Now()
		err := call()
		if !errors.Is(err, session.ErrStoreUnavailable) || !strings.Contains(err.Error(), addr) {
			t.Errorf("%s during the outage: %v; want ErrStoreUnavailable naming %s", name, err, addr)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s took %v: not failing fast", name, d)
		}
	}
	srv.Restart(t) // the append-only file kept the committed write, and only it
	if err := st.Update(ctx, "s", "k", incr); err != nil {
		t.Fatalf("after the restart: %v", err)
	}
	if v, _, err := st.Get(ctx, "s", "k"); err != nil || string(v) != "2" {
		t.Errorf("after the restart: %q, %v", v, err)
	}
}

func TestNewRedisStoreErrors(t *testing.T) {
	t.Parallel()
	for _, url := range []string{"", "http://example.com", "redis://host:notaport"} {
		if _, err := redisstore.New(redisstore.Options{URL: url}); err == nil {
			t.Errorf("NewRedisStore(%q) succeeded", url)
		}
	}
}
