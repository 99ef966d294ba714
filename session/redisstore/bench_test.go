package redisstore_test

import (
	"context"
	"strconv"
	"sync"
	"testing"

	"github.com/gymkit/gymkit/internal/testkit/redistest"
	"github.com/gymkit/gymkit/session"
	"github.com/gymkit/gymkit/session/redisstore"
)

// BenchmarkStoreCall is the per-call cost of a StateStore, one rollout after
// another (no contention): an Update of a small counter then a Get, with the
// memory store as the baseline of the same run (redis-watch: the
// WATCH/MULTI/EXEC commit instead of the script). make bench runs it.
func BenchmarkStoreCall(b *testing.B) {
	ctx := context.Background()
	stores := []struct {
		name string
		st   func(*testing.B) session.StateStore
	}{
		{"memory", func(*testing.B) session.StateStore { return session.NewMemoryStore() }},
		{"redis", func(b *testing.B) session.StateStore { return newRedisStore(b, redisstore.Options{}) }},
		{"redis-watch", func(b *testing.B) session.StateStore {
			st := newRedisStore(b, redisstore.Options{})
			redisstore.SetStrategy(st, "watch")
			return st
		}},
	}
	for _, s := range stores {
		b.Run(s.name, func(b *testing.B) {
			st := s.st(b)
			i := 0
			for b.Loop() {
				id := "rollout-" + strconv.Itoa(i%1000)
				i++
				if err := st.Update(ctx, id, "count", incr); err != nil {
					b.Fatal(err)
				}
				if _, _, err := st.Get(ctx, id, "count"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRedisContention is how the commit strategies fare when 50
// concurrent Updates of one rollout's key are spread over two replicas (two
// stores on one Redis), per round of 50: the script (compare-and-set on the
// key's version) with the in-process lock, WATCH/MULTI/EXEC with it, and the
// script without it (every Update racing in Redis). The rounds/s and the fn
// calls per Update (retries) decide the strategy; docs/deployment.md gives
// the figures.
func BenchmarkRedisContention(b *testing.B) {
	redistest.URL(b)
	ctx := context.Background()
	for _, strategy := range []string{"script", "watch", "script-nolocal", "watch-nolocal"} {
		b.Run(strategy, func(b *testing.B) {
			prefix := redistest.Prefix(b)
			r1 := newRedisStore(b, redisstore.Options{Prefix: prefix})
			r2 := newRedisStore(b, redisstore.Options{Prefix: prefix})
			redisstore.SetStrategy(r1, strategy)
			redisstore.SetStrategy(r2, strategy)
			var calls, updates int64
			var mu sync.Mutex
			round := 0
			for b.Loop() {
				id := "rollout-" + strconv.Itoa(round)
				round++
				var wg sync.WaitGroup
				for i := range 50 {
					st := r1
					if i%2 == 1 {
						st = r2
					}
					wg.Go(func() {
						n := int64(0)
						err := st.Update(ctx, id, "count", func(old []byte, ok bool) ([]byte, error) {
							n++
							return incr(old, ok)
						})
						if err != nil {
							b.Error(err)
						}
						mu.Lock()
						calls += n
						updates++
						mu.Unlock()
					})
				}
				wg.Wait()
			}
			b.ReportMetric(float64(calls)/float64(updates), "fn-calls/update")
		})
	}
}
