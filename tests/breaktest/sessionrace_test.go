package breaktest

import (
	"fmt"
	"math/big"
	"strings"
	"sync"
	"testing"

	"github.com/gymkit/gymkit/server/servertest"
	sessionstate "github.com/gymkit/gymkit/servers/example_session_state_mgmt"
)

// TestConcurrentUpdatesOfOneSession: one rollout's increments, sent at once
// on both doors (its cookie over HTTP, its seed token over MCP), are each
// applied once: no lost update (the session store's update is atomic per
// session). Another rollout seeded beside it, flooded meanwhile with big
// increments and bad bodies, keeps its own count. (Not 1e400: its
// cookieless 500 ends the flooding rollout's session, as NeMo's does.) Big ints cross the
// byte decoder (framework.Int).
func TestConcurrentUpdatesOfOneSession(t *testing.T) {
	t.Parallel()
	ts := servertest.New(t, new(sessionstate.Counter), servertest.Options{ServerType: sessionstate.Name, MCP: true})
	a, b := ts.Rollout(), ts.Rollout()
	if r := a.Post("/seed_session", `{"initial_count":0}`); r.Status != 200 {
		t.Fatalf("seed a: %d %s", r.Status, r.Body)
	}
	if r := b.Post("/seed_session", `{"initial_count":100000000000000000000000}`); r.Status != 200 {
		t.Fatalf("seed b: %d %s", r.Status, r.Body)
	}
	const n = 40
	mc := a.MCP()
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(3)
		go func() {
			defer wg.Done()
			if r := a.Post("/increment_counter", `{"count":1}`); r.Status != 200 {
				t.Errorf("HTTP increment: %d %s", r.Status, r.Body)
			}
		}()
		go func() {
			defer wg.Done()
			res, err := mc.Call("increment_counter", `{"count":1}`)
			if err != nil || res.IsError {
				t.Errorf("MCP increment: %v %+v", err, res)
			}
		}()
		go func() {
			defer wg.Done()
			bodies := []string{`{"count":` + strings.Repeat("9", 30) + `}`, `{"count":"x"}`, `{"count":1,"count":2}`, `{`, `{"count":-0}`}
			r := b.Post("/increment_counter", bodies[i%len(bodies)])
			if r.Status == 500 {
				t.Errorf("flood body %s: 500 %s", bodies[i%len(bodies)], r.Body)
			}
		}()
	}
	wg.Wait()
	r := a.Post("/get_counter_value", `{}`)
	if want := fmt.Sprintf(`{"count":%d}`, 2*n); r.Status != 200 || string(r.Body) != want {
		t.Errorf("rollout a after %d HTTP and %d MCP increments: %d %s, want %s", n, n, r.Status, r.Body, want)
	}
	r = b.Post("/get_counter_value", `{}`)
	// 1e23, plus 8 times 10^30-1 and 8 times 2 (duplicate keys: the last
	// wins); the refused bodies change nothing.
	if want := `{"count":` + fmt.Sprint(bigCount()) + `}`; r.Status != 200 || string(r.Body) != want {
		t.Errorf("rollout b: %d %s, want %s", r.Status, r.Body, want)
	}
}

func bigCount() *big.Int {
	n, _ := new(big.Int).SetString("100000000000000000000000", 10)
	nines, _ := new(big.Int).SetString(strings.Repeat("9", 30), 10)
	n.Add(n, new(big.Int).Mul(nines, big.NewInt(8)))
	return n.Add(n, big.NewInt(16))
}
