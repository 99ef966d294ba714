package examplesessionstatemgmt_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"github.com/gymkit/gymkit/server/servertest"
	counter "github.com/gymkit/gymkit/servers/example_session_state_mgmt"
)

func newServer(t *testing.T) *servertest.Server {
	return servertest.New(t, new(counter.Counter), servertest.Options{ServerType: counter.Name, Name: "example_session_state_mgmt_resources_server"})
}

func response() map[string]any {
	return map[string]any{"id": "r", "created_at": 0, "model": "m", "object": "response", "output": []any{},
		"parallel_tool_calls": false, "tool_choice": "auto", "tools": []any{}}
}

func verifyReward(t *testing.T, ro *servertest.Rollout, row map[string]any) float64 {
	t.Helper()
	row["response"] = response()
	res := ro.Post("/verify", row)
	if res.Status != 200 {
		t.Fatalf("verify: %d %s", res.Status, res.Body)
	}
	var out map[string]any
	if err := json.Unmarshal(res.Body, &out); err != nil {
		t.Fatal(err)
	}
	if _, echoed := out["expected_count"]; echoed {
		t.Errorf("expected_count is echoed: %s", res.Body)
	}
	return out["reward"].(float64)
}

var adds = regexp.MustCompile(`add (-?\d+)`)

// TestExampleRows drives each example row with the calls its prompt asks for
// (reward 1.0) and with a wrong call (reward 0.0).
func TestExampleRows(t *testing.T) {
	t.Parallel()
	ts := newServer(t)
	_, file, _, _ := runtime.Caller(0)
	f, err := os.Open(filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "data", "nemo-gym", "example_session_state_mgmt", "example.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := append([]byte(nil), sc.Bytes()...)
		var row map[string]any
		if err := json.Unmarshal(line, &row); err != nil {
			t.Fatal(err)
		}
		prompt := row["responses_create_params"].(map[string]any)["input"].([]any)[0].(map[string]any)["content"].(string)
		for _, wrong := range []bool{false, true} {
			t.Run(fmt.Sprintf("row%d/wrong=%v", n, wrong), func(t *testing.T) {
				ro := ts.Rollout()
				if res := ro.Post("/seed_session", line); res.Status != 200 || string(res.Body) != "{}" {
					t.Fatalf("seed: %d %s", res.Status, res.Body)
				}
				for _, m := range adds.FindAllStringSubmatch(prompt, -1) {
					d, _ := strconv.Atoi(m[1])
					if wrong {
						d++
					}
					if res := ro.Post("/increment_counter", fmt.Sprintf(`{"count":%d}`, d)); string(res.Body) != `{"success":true}` {
						t.Fatalf("increment: %d %s", res.Status, res.Body)
					}
				}
				get := ro.Post("/get_counter_value", nil)
				if get.Status != 200 {
					t.Fatalf("get: %d %s", get.Status, get.Body)
				}
				var r map[string]any
				_ = json.Unmarshal(line, &r)
				want := 1.0
				if wrong {
					want = 0.0
				}
				if got := verifyReward(t, ro, r); got != want {
					t.Errorf("reward %v, want %v (counter %s)", got, want, get.Body)
				}
			})
		}
	}
	if n != 5 {
		t.Errorf("read %d rows, want 5", n)
	}
}

func TestSeedWithoutInitialCountIs422(t *testing.T) {
	t.Parallel()
	res := newServer(t).Rollout().Post("/seed_session", `{}`)
	want := `{"detail":[{"type":"missing","loc":["body","initial_count"],"msg":"Field required","input":{}}]}`
	if res.Status != 422 || string(res.Body) != want {
		t.Errorf("got %d %s\nwant 422 %s", res.Status, res.Body, want)
	}
}

func TestParallelIncrementsInOneSession(t *testing.T) {
	t.Parallel()
	ts := newServer(t)
	ro := ts.Rollout()
	ro.Post("/seed_session", `{"initial_count":0}`)
	var wg sync.WaitGroup
	for range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if res := ro.Post("/increment_counter", `{"count":1}`); res.Status != 200 {
				t.Errorf("increment: %d %s", res.Status, res.Body)
			}
		}()
	}
	wg.Wait()
	if res := ro.Post("/get_counter_value", nil); string(res.Body) != `{"count":100}` {
		t.Errorf("after 100 parallel increments: %s, want {\"count\":100}", res.Body)
	}
}

func TestEdgeCases(t *testing.T) {
	t.Parallel()
	ts := newServer(t)
	t.Run("increment before seed survives the seed", func(t *testing.T) {
		t.Parallel()
		ro := ts.Rollout()
		ro.Post("/increment_counter", `{"count":5}`)
		ro.Post("/seed_session", `{"initial_count":100}`)
		if res := ro.Post("/get_counter_value", `{}`); string(res.Body) != `{"count":5}` {
			t.Errorf("got %s, want {\"count\":5}", res.Body)
		}
	})
	t.Run("get_counter_value ignores an invalid body", func(t *testing.T) {
		t.Parallel()
		ro := ts.Rollout()
		if res := ro.Post("/get_counter_value", `not json`); res.Status != 200 || string(res.Body) != `{"count":0}` {
			t.Errorf("got %d %s", res.Status, res.Body)
		}
	})
	t.Run("lax ints", func(t *testing.T) {
		t.Parallel()
		ro := ts.Rollout()
		ro.Post("/seed_session", `{"initial_count":"3"}`)
		for _, c := range []string{`3.0`, `"3"`, `true`, `-4`} {
			if res := ro.Post("/increment_counter", `{"count":`+c+`}`); res.Status != 200 {
				t.Errorf("count %s: %d %s", c, res.Status, res.Body)
			}
		}
		if res := ro.Post("/get_counter_value", nil); string(res.Body) != `{"count":6}` {
			t.Errorf("got %s, want {\"count\":6}", res.Body)
		}
	})
	t.Run("rejections", func(t *testing.T) {
		t.Parallel()
		ro := ts.Rollout()
		for body, want := range map[string]string{
			`{"count":2.5}`:  `{"detail":[{"type":"int_from_float","loc":["body","count"],"msg":"Input should be a valid integer, got a number with a fractional part","input":2.5}]}`,
			`{"count":null}`: `{"detail":[{"type":"int_type","loc":["body","count"],"msg":"Input should be a valid integer","input":null}]}`,
		} {
			if res := ro.Post("/increment_counter", body); res.Status != 422 || string(res.Body) != want {
				t.Errorf("%s: got %d %s\nwant 422 %s", body, res.Status, res.Body, want)
			}
		}
	})
	t.Run("no cookie means a new session", func(t *testing.T) {
		t.Parallel()
		a := ts.Rollout()
		a.Post("/seed_session", `{"initial_count":6}`)
		b := ts.Rollout() // never seeded
		row := map[string]any{"responses_create_params": map[string]any{"input": "x"}, "expected_count": 6}
		if got := verifyReward(t, b, row); got != 0 {
			t.Errorf("unseeded session reward %v, want 0", got)
		}
	})
}

// TestPythonInts replays the increments of the recorded Python counter
// (../shared/data/nemo-gym-peer/example_session_state_mgmt_resources_server.jsonl,
// scenario "http"): counts are Python ints, so a 30-digit increment is
// accepted and summed exactly, and the refused ones change nothing.
func TestPythonInts(t *testing.T) {
	t.Parallel()
	ts := newServer(t)
	ro := ts.Rollout()
	if res := ro.Post("/seed_session", `{"initial_count":3}`); res.Status != 200 {
		t.Fatalf("seed: %d %s", res.Status, res.Body)
	}
	for _, c := range []struct {
		count  string
		status int
	}{
		{`2`, 200}, {`"4"`, 200}, {`1.0`, 200}, {`1.5`, 422}, {`"abc"`, 422}, {`true`, 200}, {`"true"`, 422},
		{`null`, 422}, {`123456789012345678901234567890`, 200}, {`1e3`, 200}, {`" 5 "`, 200}, {`"5.0"`, 200},
		{`[1]`, 422}, {`-0`, 200},
	} {
		if res := ro.Post("/increment_counter", `{"count":`+c.count+`}`); res.Status != c.status {
			t.Errorf("increment %s: %d %s, want %d", c.count, res.Status, res.Body, c.status)
		}
	}
	const sum = `123456789012345678901234568911`
	if res := ro.Post("/get_counter_value", `{}`); string(res.Body) != `{"count":`+sum+`}` {
		t.Fatalf("get_counter_value: %s, want {\"count\":%s}", res.Body, sum)
	}
	// Re-seeding keeps it; nothing wraps past int64 in either direction.
	ro.Post("/seed_session", `{"initial_count":100}`)
	if got := verifyReward(t, ro, map[string]any{"responses_create_params": map[string]any{"input": "c"}, "expected_count": sum}); got != 1.0 {
		t.Errorf("verify with the exact sum: reward %v", got)
	}
	ro2 := ts.Rollout()
	ro2.Post("/seed_session", `{"initial_count":9223372036854775807}`)
	ro2.Post("/increment_counter", `{"count":1}`)
	if res := ro2.Post("/get_counter_value", nil); string(res.Body) != `{"count":9223372036854775808}` {
		t.Errorf("2^63-1 + 1 = %s", res.Body)
	}
	ro2.Post("/increment_counter", `{"count":"-18446744073709551617"}`)
	if res := ro2.Post("/get_counter_value", nil); string(res.Body) != `{"count":-9223372036854775809}` {
		t.Errorf("2^63 - (2^64+1) = %s", res.Body)
	}
	if got := verifyReward(t, ro2, map[string]any{"responses_create_params": map[string]any{"input": "c"}, "expected_count": -9223372036854775808}); got != 0.0 {
		t.Errorf("verify off by one: reward %v", got)
	}
}
