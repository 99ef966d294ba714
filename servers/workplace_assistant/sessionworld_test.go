package workplace_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/gymkit/gymkit/server/servertest"
	workplace "github.com/gymkit/gymkit/servers/workplace_assistant"
)

// newSessionServer serves workplace_assistant with world_state: session
// (the change log in the session state store; here the memory store) and
// the given max_world_bytes.
func newSessionServer(t *testing.T, maxWorldBytes int64) (*servertest.Server, *workplace.Workplace) {
	s := newWorkplace(t)
	s.WorldState = workplace.WorldStateSession
	s.MaxWorldBytes = maxWorldBytes
	return servertest.New(t, s, servertest.Options{ServerType: workplace.Name, Name: workplace.Name}), s
}

// TestWorldStateSessionSection9: the spec's observed outputs (section 9)
// are the same when each call rebuilds or reuses the world from the
// session's change log.
func TestWorldStateSessionSection9(t *testing.T) {
	t.Parallel()
	for _, budget := range []int64{workplace.DefaultMaxWorldBytes, 1} {
		ts, _ := newSessionServer(t, budget)
		for _, b := range section9 {
			t.Run(fmt.Sprintf("%s/budget=%d", b.name, budget), func(t *testing.T) {
				t.Parallel()
				ro := seeded(t, ts)
				for i, s := range b.steps {
					res := ro.Post("/"+s.tool, s.body)
					got := string(res.Body)
					ok := got == s.want
					if s.prefix {
						ok = strings.HasPrefix(got, s.want)
					}
					if res.Status != 200 || !ok {
						t.Errorf("step %d: POST /%s %s\n got: %d %s\nwant: 200 %s", i+1, s.tool, s.body, res.Status, got, s.want)
					}
				}
			})
		}
	}
}

// TestWorldStateSessionCacheEvictsNotRefuses: under world_state: session,
// max_world_bytes bounds the replica's cache; a rollout whose world was
// evicted gets it rebuilt from its log (every email it sent is there), and
// no call is refused with a 503.
func TestWorldStateSessionCacheEvictsNotRefuses(t *testing.T) {
	t.Parallel()
	ts, s := newSessionServer(t, 1)
	ros := []*servertest.Rollout{seeded(t, ts), seeded(t, ts), seeded(t, ts)}
	for round := range 4 {
		for i, ro := range ros {
			body := fmt.Sprintf(`{"recipient":"r%d@b.co","subject":"evict-%d-%d","body":"b"}`, i, i, round)
			if res := ro.Post("/email_send_email", body); res.Status != 200 || string(res.Body) != `{"output":"Email sent successfully."}` {
				t.Fatalf("rollout %d round %d: %d %s", i, round, res.Status, res.Body)
			}
		}
	}
	if n := s.LiveWorlds(); n != 1 {
		t.Errorf("%d cached worlds with max_world_bytes 1, want 1 (the last one written)", n)
	}
	for i, ro := range ros {
		res := ro.Post("/email_search_emails", fmt.Sprintf(`{"query":"evict-%d-"}`, i))
		if !strings.Contains(string(res.Body), `"total_emails":4`) {
			t.Errorf("rollout %d: %s", i, res.Body)
		}
	}
}

// TestWorldStateSessionParallelCalls: 40 parallel sends of one rollout are
// all in its world afterwards, each once (the log is appended atomically).
func TestWorldStateSessionParallelCalls(t *testing.T) {
	t.Parallel()
	ts, _ := newSessionServer(t, workplace.DefaultMaxWorldBytes)
	ro := seeded(t, ts)
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() {
			res := ro.Post("/email_send_email", fmt.Sprintf(`{"recipient":"p@b.co","subject":"par-%02d","body":"b"}`, i))
			if string(res.Body) != `{"output":"Email sent successfully."}` {
				t.Errorf("send %d: %d %s", i, res.Status, res.Body)
			}
		})
	}
	wg.Wait()
	res := ro.Post("/email_search_emails", `{"query":"par-","page_size":100}`)
	if !strings.Contains(string(res.Body), `"total_emails":40`) {
		t.Errorf("search: %s", res.Body)
	}
	for i := range 40 {
		if n := strings.Count(string(res.Body), fmt.Sprintf(`par-%02d"`, i)); n != 1 {
			t.Errorf("par-%02d found %d times", i, n)
		}
	}
}

// TestWorldStateSessionEnds: verify and close end the rollout (its next
// call answers 400 "Session not initialized"), and a re-seed starts from
// the base tables.
func TestWorldStateSessionEnds(t *testing.T) {
	t.Parallel()
	ts, s := newSessionServer(t, workplace.DefaultMaxWorldBytes)
	ro := seeded(t, ts)
	ro.Post("/email_send_email", `{"recipient":"a@b.co","subject":"endme","body":"b"}`)
	if res := ro.Post("/close_session", `{}`); res.Status != 200 {
		t.Fatalf("close: %d %s", res.Status, res.Body)
	}
	if res := ro.Post("/email_search_emails", `{"query":"endme"}`); res.Status != 400 || !strings.Contains(string(res.Body), notInitialized) {
		t.Errorf("after close: %d %s", res.Status, res.Body)
	}
	if n := s.LiveWorlds(); n != 0 {
		t.Errorf("%d cached worlds after the close", n)
	}
	ro = seeded(t, ts)
	ro.Post("/email_send_email", `{"recipient":"a@b.co","subject":"endme","body":"b"}`)
	ro.Post("/seed_session", `{}`)
	if res := ro.Post("/email_search_emails", `{"query":"endme"}`); res.Status != 200 || strings.Contains(string(res.Body), "endme") {
		t.Errorf("after re-seed: %d %s", res.Status, res.Body)
	}
}

func TestWorldStateRefusesUnknown(t *testing.T) {
	t.Parallel()
	s := newWorkplace(t)
	s.WorldState = "redis"
	if err := s.Provision(context.Background()); err == nil || !strings.Contains(err.Error(), `world_state: "redis" is not memory or session`) {
		t.Errorf("Provision: %v", err)
	}
}

// BenchmarkWorldState is one whole rollout over HTTP (seed, the ten calls
// of rolloutCalls, verify) with world_state: memory (the baseline of the
// same run) and world_state: session on the memory session store: the cost
// of the change log and the cache without a network store.
func BenchmarkWorldState(b *testing.B) {
	verify := verifyBody(rolloutCalls, rolloutTruth)
	for _, mode := range []string{workplace.WorldStateMemory, workplace.WorldStateSession} {
		b.Run(mode, func(b *testing.B) {
			s := newWorkplace(b)
			s.WorldState = mode
			ts := servertest.New(b, s, servertest.Options{ServerType: workplace.Name, Name: workplace.Name})
			b.ReportAllocs()
			for b.Loop() {
				ro := ts.Rollout()
				ro.Post("/seed_session", `{}`)
				for _, cl := range rolloutCalls {
					if res := ro.Post("/"+cl.name, cl.args); res.Status != 200 {
						b.Fatal(res.Status)
					}
				}
				if res := ro.Post("/verify", verify); res.Status != 200 || !strings.HasSuffix(string(res.Body), `"reward":1.0}`) {
					b.Fatalf("verify: %d %s", res.Status, res.Body)
				}
			}
		})
	}
}
