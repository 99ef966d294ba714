package mcpexpose_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/gymkit/gymkit/mcpexpose"
)

// TestLeanConcurrentOneRollout: calls of one rollout that arrive at once,
// half answered by the lean path and half by the go-sdk (an escaped tool
// name makes the door fall back), all run in the rollout's session: no
// update is lost, each value is kept once, and the lean path answered
// exactly its half. Run it with -race.
func TestLeanConcurrentOneRollout(t *testing.T) {
	t.Parallel()
	h := newHost(t, &Store{extra: parityRoutes}, hostOptions{})
	ro := h.seed(`{}`)
	const n = 16
	before := mcpexpose.LeanAnswers(h.door)
	var wg sync.WaitGroup
	errs := make(chan string, 2*n)
	for i := range 2 * n {
		wg.Go(func() {
			name := `"append"` // the lean path
			if i%2 == 1 {
				name = `"\u0061ppend"` // the go-sdk path
			}
			msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%s,"arguments":{"value":"v%d"}}}`, i, name, i)
			r := h.rpc(msg, ro.token)
			if r.Status != 200 {
				errs <- fmt.Sprintf("call %d: %d %s", i, r.Status, r.Body)
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if got := mcpexpose.LeanAnswers(h.door) - before; got != n {
		t.Errorf("the lean path answered %d calls, want %d", got, n)
	}
	res := h.rpcOK(`{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"append","arguments":{"value":"end"}}}`, ro.token)
	var out struct {
		StructuredContent struct {
			Values []string `json:"values"`
		} `json:"structuredContent"`
	}
	if err := json.Unmarshal(res, &out); err != nil {
		t.Fatal(err)
	}
	got := out.StructuredContent.Values
	slices.Sort(got)
	var want []string
	for i := range 2 * n {
		want = append(want, fmt.Sprintf("v%d", i))
	}
	want = append(want, "end")
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("the rollout kept %q, want every value once: %q", got, want)
	}
}
