package aggregate

import (
	"bytes"
	"maps"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/internal/pyjson"
)

// goldenDir finds shared/data/nemo-gym/aggregate-golden by walking up from
// the test's working directory (the package directory): the shared folder
// sits beside the repository, at ../../../../shared from here.
func goldenDir(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		p := filepath.Join(dir, "shared", "data", "nemo-gym", "aggregate-golden")
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("shared/data/nemo-gym/aggregate-golden not found above the working directory")
		}
		dir = parent
	}
}

// collectorStrip is what the rollout collector sends to /aggregate_metrics
// for one persisted row (python-compat 2.4): the heavy keys dropped, and
// "response": {"usage": ...} re-added last when the usage was truthy.
func collectorStrip(row pyjson.Value) pyjson.Value {
	var usage pyjson.Value
	if resp, ok := row.Get("response"); ok {
		usage, _ = resp.Get("usage")
	}
	out := pyjson.ObjectValue()
	for _, m := range row.Members {
		switch m.Key {
		case "response", "responses_create_params", "ng_agent_observations", "ng_model_call_capture", "ng_trajectory":
			continue
		}
		out.Members = append(out.Members, m)
	}
	if truthy(usage) {
		out.Members = append(out.Members, pyjson.Member{Key: "response", Value: pyjson.ObjectValue(pyjson.Member{Key: "usage", Value: usage})})
	}
	return out
}

// litmusKeyMetrics is litmus_agent's get_key_metrics: the entries of
// agent_metrics named mean/reward or mean/correct, in agent_metrics order.
func litmusKeyMetrics(am pyjson.Value) (pyjson.Value, error) {
	out := pyjson.ObjectValue()
	for _, m := range am.Members {
		if m.Key == "mean/reward" || m.Key == "mean/correct" {
			out.Members = append(out.Members, m)
		}
	}
	return out, nil
}

// litmusComputeMetrics is litmus_agent's compute_metrics: count, accuracy and
// mean_reward per method, and per resolved answer type inside each method,
// with statistics.mean's exact arithmetic (an int when every input is an int
// and the mean is integral).
func litmusComputeMetrics(tasks [][]pyjson.Value) (pyjson.Value, error) {
	str := func(r pyjson.Value, key string) string {
		v, _ := r.Get(key)
		if v.Kind == pyjson.String {
			return v.Str
		}
		return ""
	}
	grouped := map[string]map[string][]pyjson.Value{}
	for _, task := range tasks {
		for _, r := range task {
			method := str(r, "method")
			if method == "" {
				method = "unknown"
			}
			atype := str(r, "resolved_answer_type")
			if atype == "" {
				atype = str(r, "answer_type")
			}
			if atype == "" {
				atype = "unknown"
			}
			if grouped[method] == nil {
				grouped[method] = map[string][]pyjson.Value{}
			}
			grouped[method][atype] = append(grouped[method][atype], r)
		}
	}
	mean := func(vals []pyjson.Value) pyjson.Value {
		sum := new(big.Rat)
		allInt := true
		for _, v := range vals {
			x, ok := new(big.Rat).SetString(v.Str)
			if !ok {
				panic("bad number " + v.Str)
			}
			allInt = allInt && !v.IsFloat()
			sum.Add(sum, x)
		}
		sum.Quo(sum, new(big.Rat).SetInt64(int64(len(vals))))
		if allInt && sum.IsInt() {
			return pyjson.NumberValue(sum.Num().String())
		}
		f, _ := sum.Float64()
		return pyjson.FloatValue(f)
	}
	stats := func(group []pyjson.Value) []pyjson.Member {
		var rewards, corrects []pyjson.Value
		for _, r := range group {
			rw, _ := r.Get("reward")
			rewards = append(rewards, rw)
			c, _ := r.Get("correct")
			corrects = append(corrects, intValue(map[bool]int64{true: 1}[c.Bool]))
		}
		return []pyjson.Member{
			{Key: "count", Value: intValue(int64(len(group)))},
			{Key: "accuracy", Value: mean(corrects)},
			{Key: "mean_reward", Value: mean(rewards)},
		}
	}
	out := pyjson.ObjectValue()
	for _, method := range slices.Sorted(maps.Keys(grouped)) {
		var all []pyjson.Value
		byType := pyjson.ObjectValue()
		for _, atype := range slices.Sorted(maps.Keys(grouped[method])) {
			g := grouped[method][atype]
			all = append(all, g...)
			byType.Members = append(byType.Members, pyjson.Member{Key: atype, Value: pyjson.ObjectValue(stats(g)...)})
		}
		m := append(stats(all), pyjson.Member{Key: "by_answer_type", Value: byType})
		out.Members = append(out.Members, pyjson.Member{Key: method, Value: pyjson.ObjectValue(m...)})
	}
	return out, nil
}

// TestGolden feeds each committed NeMo Gym rollouts file, stripped as the
// collector strips it and grouped by agent_ref.name, to Compute and compares
// agent_metrics, key_metrics and group_level_metrics with the committed
// aggregate metrics: values bit for bit, int vs float, and key order.
func TestGolden(t *testing.T) {
	t.Parallel()
	root := goldenDir(t)
	tests := []struct {
		name  string
		hooks Hooks
	}{
		{"blackjack", Hooks{}},
		{"example_multi_turn_gymnasium", Hooks{}},
		{"grl_tetris", Hooks{}},
		// litmus_agent's server overrides compute_metrics (a "direct" entry
		// appended to agent_metrics) and get_key_metrics (mean/reward and
		// mean/correct): the test supplies Go ports of both.
		{"litmus_agent", Hooks{ComputeMetrics: litmusComputeMetrics, KeyMetrics: litmusKeyMetrics}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(root, tc.name)
			rollouts, err := os.ReadFile(filepath.Join(dir, "example_rollouts.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			goldenText, err := os.ReadFile(filepath.Join(dir, "example_rollouts_aggregate_metrics.json"))
			if err != nil {
				t.Fatal(err)
			}
			golden := mustParse(t, string(goldenText))

			var agents []string
			byAgent := map[string][]pyjson.Value{}
			for _, line := range bytes.Split(rollouts, []byte("\n")) {
				if len(bytes.TrimSpace(line)) == 0 {
					continue
				}
				row := mustParse(t, string(line))
				ref, _ := row.Get("agent_ref")
				name, _ := ref.Get("name")
				if _, ok := byAgent[name.Str]; !ok {
					agents = append(agents, name.Str)
				}
				byAgent[name.Str] = append(byAgent[name.Str], collectorStrip(row))
			}
			if len(agents) != len(golden.Items) {
				t.Fatalf("%d agents in rollouts, %d in golden", len(agents), len(golden.Items))
			}
			for _, want := range golden.Items {
				ref, _ := want.Get("agent_ref")
				name, _ := ref.Get("name")
				got, err := Compute(byAgent[name.Str], tc.hooks)
				if err != nil {
					t.Fatalf("%s: %v", name.Str, err)
				}
				for _, key := range []string{"agent_metrics", "key_metrics", "group_level_metrics"} {
					w, _ := want.Get(key)
					g, _ := got.Get(key)
					if d := diffValues(w, g, name.Str+"."+key); d != "" {
						t.Error(d)
					}
				}
				// The collector writes {"agent_ref", then the three keys}
				// with orjson; compare our Pydantic encoding of each key
				// with the golden's compact re-encoding too.
				for _, key := range []string{"agent_metrics", "key_metrics", "group_level_metrics"} {
					w, _ := want.Get(key)
					g, _ := got.Get(key)
					if wb, gb := encode(t, w), encode(t, g); wb != gb {
						t.Errorf("%s.%s bytes differ:\n got  %s\n want %s", name.Str, key, firstDiff(gb, wb), firstDiff(wb, gb))
					}
				}
			}
		})
	}
}

// firstDiff returns a around the first byte where a and b differ.
func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-60)
	hi := min(len(a), i+60)
	return strings.TrimSpace(a[lo:hi])
}
