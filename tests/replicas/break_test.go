package replicas

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gymkit/gymkit/internal/testkit/redistest"
)

// callOutcome tallies answers of parallel calls by what they said.
type callOutcome struct {
	mu  sync.Mutex
	got map[string]int
}

func (o *callOutcome) add(s string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.got == nil {
		o.got = map[string]int{}
	}
	o.got[s]++
}

// storm runs the jobs on workers goroutines and waits for them: parallel
// enough to interleave every call with others on every replica, without
// the connection pools' and dials' timeouts of a burst of hundreds of
// goroutines on a loaded 2-core machine under -race (those answer a clear
// 503, which is not what these tests look at).
func storm(workers int, jobs []func()) {
	ch := make(chan func())
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for j := range ch {
				j()
			}
		})
	}
	for _, j := range jobs {
		ch <- j
	}
	close(ch)
	wg.Wait()
}

// TestWorkplaceStormOnThreeReplicas: three workplace_assistant replicas on
// one Redis, with a cache of one world each (max_world_bytes 1: every call
// of another rollout evicts, so worlds are rebuilt from the log all the
// time). 90 sends of one rollout, spread over the replicas and both doors,
// race with 90 reads of it and 90 sends of five other rollouts. Every
// call answers 200; afterwards every replica finds each of the rollout's
// emails exactly once, and each other rollout exactly its own. Then a
// verify on one replica races with more sends on the others: each send
// either succeeded before the end or answers "Session not initialized",
// never anything else, and after it every replica answers 400.
func TestWorkplaceStormOnThreeReplicas(t *testing.T) {
	url := redistest.URL(t)
	redis := []string{"session.store=redis", "session.url=" + url, "session.prefix=" + redistest.Prefix(t), "max_world_bytes=1",
		"session.dial_timeout=2s", "session.read_timeout=2s"}
	reps := []string{startWorkplace(t, redis...), startWorkplace(t, redis...), startWorkplace(t, redis...)}
	ro := seedRow(t, reps[0], map[string]any{})
	var clients []*mcp.ClientSession
	for _, r := range reps {
		clients = append(clients, mcpClient(t, r, ro.token))
	}
	var others []*rollout
	for i := range 5 {
		others = append(others, seedRow(t, reps[i%3], map[string]any{}))
	}
	send := func(i int, subject string) string {
		r := i % 3
		args := map[string]any{"recipient": "s@atlas.com", "subject": subject, "body": "b"}
		if i%2 == 0 {
			code, out, _ := post(t, reps[r], "/email_send_email", ro, args)
			return fmt.Sprintf("%d %s", code, out)
		}
		res, err := clients[r].CallTool(context.Background(), &mcp.CallToolParams{Name: "email_send_email", Arguments: args})
		if err != nil {
			return err.Error()
		}
		if res.IsError {
			return "isError " + mcpText(res)
		}
		return "200 " + mcpText(res)
	}
	const n = 90
	var sends, reads, otherSends callOutcome
	var jobs []func()
	for i := range n {
		jobs = append(jobs, func() { sends.add(send(i, fmt.Sprintf("storm-%03d", i))) }, func() {
			code, _, _ := post(t, reps[(i+1)%3], "/email_search_emails", ro, map[string]any{"query": "storm-", "page_size": 1})
			reads.add(fmt.Sprint(code))
		}, func() {
			code, out, _ := post(t, reps[(i+2)%3], "/email_send_email", others[i%5], map[string]any{"recipient": "o@atlas.com", "subject": fmt.Sprintf("other-%d-%03d", i%5, i), "body": "b"})
			otherSends.add(fmt.Sprintf("%d %s", code, out))
		})
	}
	storm(48, jobs)
	okSend := `{"output":"Email sent successfully."}`
	for name, o := range map[string]*callOutcome{"send": &sends, "other send": &otherSends} {
		if o.got["200 "+okSend] != n || len(o.got) != 1 {
			t.Errorf("%s answers: %v, want %d x 200 %s", name, o.got, n, okSend)
		}
	}
	if reads.got["200"] != n {
		t.Errorf("read answers: %v, want %d x 200", reads.got, n)
	}
	for _, r := range reps {
		_, out, _ := post(t, r, "/email_search_emails", ro, map[string]any{"query": "storm-", "page_size": 1000})
		for i := range n {
			if k := strings.Count(string(out), fmt.Sprintf(`storm-%03d"`, i)); k != 1 {
				t.Errorf("on %s storm-%03d found %d times, want 1", r, i, k)
			}
		}
		for j, o := range others {
			_, out, _ := post(t, r, "/email_search_emails", o, map[string]any{"query": "other-", "page_size": 1000})
			if !strings.Contains(string(out), fmt.Sprintf(`"total_emails":%d`, n/5)) || strings.Contains(string(out), "storm-") ||
				strings.Count(string(out), fmt.Sprintf("other-%d-", j)) != n/5 {
				t.Errorf("on %s other rollout %d: want exactly its %d emails: ...%s", r, j, n/5, out[max(0, len(out)-150):])
			}
		}
	}

	// verify on A races with sends on B and C.
	var late callOutcome
	var wg sync.WaitGroup
	for i := range 30 {
		wg.Go(func() { late.add(send(3*(i/2)+1+i%2, fmt.Sprintf("late-%02d", i))) })
	}
	code, out, _ := post(t, reps[0], "/verify", ro, verifyBody(exampleRow(t), nil))
	wg.Wait()
	if code != 200 {
		t.Fatalf("verify racing with sends: %d %s", code, out)
	}
	notSeeded := "Session not initialized. Please call seed_session first."
	for got, k := range late.got {
		if !strings.Contains(got, okSend) && !strings.Contains(got, notSeeded) && !strings.Contains(got, "Email sent successfully.") {
			t.Errorf("%d sends racing with verify answered %q, want success or %q", k, got, notSeeded)
		}
	}
	for _, r := range reps {
		if code, out, _ := post(t, r, "/email_search_emails", ro, map[string]any{"query": "storm-"}); code != 400 || !strings.Contains(string(out), notSeeded) {
			t.Errorf("on %s after verify: %d %s, want 400 %s", r, code, out, notSeeded)
		}
	}
}

// TestCounterStormOnThreeReplicas: three counter replicas; 180 increments
// of one rollout over the replicas and both doors race with 90 reads and
// with re-seeds (which never reset a set counter); every answer is 200 and
// the count is exact on every replica.
func TestCounterStormOnThreeReplicas(t *testing.T) {
	url, prefix := redistest.URL(t), redistest.Prefix(t)
	reps := []string{startReplicaWith(t, url, prefix), startReplicaWith(t, url, prefix), startReplicaWith(t, url, prefix)}
	ro := seed(t, reps[0], 1000)
	var clients []*mcp.ClientSession
	for _, r := range reps {
		clients = append(clients, mcpClient(t, r, ro.token))
	}
	const n = 180
	var out callOutcome
	var jobs []func()
	for i := range n {
		jobs = append(jobs, func() {
			if i%2 == 0 {
				code, body, _ := post(t, reps[i%3], "/increment_counter", ro, map[string]any{"count": 1})
				out.add(fmt.Sprintf("%d %s", code, body))
				return
			}
			res, err := clients[i%3].CallTool(context.Background(), &mcp.CallToolParams{Name: "increment_counter", Arguments: map[string]any{"count": 1}})
			if err != nil || res.IsError {
				out.add(fmt.Sprintf("mcp %v %s", err, mcpText(res)))
				return
			}
			out.add("200 " + mcpText(res))
		})
		if i%2 == 0 {
			jobs = append(jobs, func() {
				code, body, _ := post(t, reps[(i+1)%3], "/get_counter_value", ro, map[string]any{})
				out.add(fmt.Sprint("read ", code, len(body) > 0))
			})
		}
		if i%40 == 0 {
			jobs = append(jobs, func() {
				code, body, _ := post(t, reps[(i+2)%3], "/seed_session", ro, map[string]any{"initial_count": 0})
				out.add(fmt.Sprintf("seed %d %s", code, body[:min(len(body), 2)]))
			})
		}
	}
	storm(48, jobs)
	want := map[string]int{`200 {"success":true}`: n, "read 200 true": n / 2, "seed 200 {\"": (n + 39) / 40}
	for k, v := range out.got {
		if want[k] != v {
			t.Errorf("answers: %v, want %v", out.got, want)
			break
		}
	}
	for _, r := range reps {
		if got := count(t, r, ro); got != 1000+n {
			t.Errorf("count on %s = %d, want %d", r, got, 1000+n)
		}
	}
}

// TestWorkplaceReseedRacesWithSends: sends of one rollout on three
// replicas race with re-seeds of it (each a new generation of its change
// log, on any replica). Every call answers 200, and afterwards the three
// replicas show the very same world: the same search answer, byte for
// byte, holding only emails whose send answered success.
func TestWorkplaceReseedRacesWithSends(t *testing.T) {
	url := redistest.URL(t)
	redis := []string{"session.store=redis", "session.url=" + url, "session.prefix=" + redistest.Prefix(t),
		"session.dial_timeout=2s", "session.read_timeout=2s"}
	reps := []string{startWorkplace(t, redis...), startWorkplace(t, redis...), startWorkplace(t, redis...)}
	ro := seedRow(t, reps[0], map[string]any{})
	var out callOutcome
	var jobs []func()
	for i := range 60 {
		jobs = append(jobs, func() {
			code, body, _ := post(t, reps[i%3], "/email_send_email", ro, map[string]any{"recipient": "r@atlas.com", "subject": fmt.Sprintf("zq-reseed-%02d", i), "body": "b"})
			out.add(fmt.Sprintf("send %d %s", code, body))
		})
		if i%15 == 7 {
			jobs = append(jobs, func() {
				code, body, _ := post(t, reps[(i+1)%3], "/seed_session", ro, map[string]any{})
				out.add(fmt.Sprintf("seed %d %.20s", code, body))
			})
		}
	}
	storm(16, jobs)
	for k := range out.got {
		if !strings.HasPrefix(k, "send 200 ") && !strings.HasPrefix(k, "seed 200 ") {
			t.Errorf("answers: %v, want only 200s", out.got)
			break
		}
	}
	var first string
	for _, r := range reps {
		code, body, _ := post(t, r, "/email_search_emails", ro, map[string]any{"query": "zq-reseed-", "page_size": 100})
		if code != 200 {
			t.Fatalf("search on %s: %d %s", r, code, body)
		}
		if first == "" {
			first = string(body)
		} else if string(body) != first {
			t.Errorf("replica %s shows another world:\n%s\nfirst:\n%s", r, body, first)
		}
	}
}
