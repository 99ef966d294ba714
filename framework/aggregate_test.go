package framework_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/server/servertest"
)

// metricsServer overrides the aggregate hooks when its fields say so.
type metricsServer struct {
	framework.Base
	keys    []string // key_metrics to pick; nil = default
	perTask bool     // ComputeMetrics returns python-compat 1.8 example 3's dict
	litmus  bool     // ComputeMetrics emulates litmus_agent's "direct" metrics
}

func (s *metricsServer) Routes(r *framework.Router) {
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{}, nil
	})
}

func (s *metricsServer) ComputeMetrics(_ context.Context, tasks [][]framework.Value) (any, error) {
	if s.litmus {
		return litmusMetrics(tasks), nil
	}
	if !s.perTask {
		return nil, nil
	}
	return framework.ParseJSON([]byte(`{"custom_agg":99,"per_task_metrics":[{"_ng_task_index":0,"difficulty":"easy"},{"_ng_task_index":1,"difficulty":"hard"}]}`))
}

func (s *metricsServer) KeyMetrics(_ context.Context, agent framework.Value) (any, error) {
	if s.keys == nil {
		return framework.DefaultKeyMetrics(agent), nil
	}
	out := framework.Value{Kind: framework.KindObject}
	for _, k := range s.keys {
		if v, ok := agent.Get(k); ok {
			out.Members = append(out.Members, framework.Member{Key: k, Value: v})
		}
	}
	return out, nil
}

// litmusMetrics is litmus_agent's compute_metrics: counts, accuracy
// (statistics.mean of the bool "correct", an int when exact) and mean reward,
// overall and by answer_type (None counted as "float"), keys sorted.
func litmusMetrics(tasks [][]framework.Value) framework.Value {
	type acc struct {
		n, correct int
		reward     float64
	}
	all := &acc{}
	by := map[string]*acc{}
	for _, task := range tasks {
		for _, r := range task {
			typ := "float"
			if v, ok := r.Get("answer_type"); ok && v.Kind == framework.KindString {
				typ = v.Str
			}
			if by[typ] == nil {
				by[typ] = &acc{}
			}
			for _, a := range []*acc{all, by[typ]} {
				a.n++
				if v, _ := r.Get("correct"); v.Bool {
					a.correct++
				}
				if v, _ := r.Get("reward"); v.Kind == framework.KindNumber {
					f, _ := strconv.ParseFloat(v.Str, 64)
					a.reward += f
				}
			}
		}
	}
	obj := func(a *acc) string {
		accuracy := strconv.FormatFloat(float64(a.correct)/float64(a.n), 'g', -1, 64)
		if a.correct%a.n == 0 {
			accuracy = strconv.Itoa(a.correct / a.n)
		}
		return fmt.Sprintf(`{"count":%d,"accuracy":%s,"mean_reward":%s}`, a.n, accuracy, pyFloat(a.reward/float64(a.n)))
	}
	keys := make([]string, 0, len(by))
	for k := range by {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	b.WriteString(strings.TrimSuffix(obj(all), "}") + `,"by_answer_type":{`)
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(k) + ":" + obj(by[k]))
	}
	b.WriteString("}}")
	v, err := framework.ParseJSON([]byte(`{"direct":` + b.String() + `}`))
	if err != nil {
		panic(err)
	}
	return v
}

func pyFloat(f float64) string {
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

var (
	_ framework.MetricsComputer    = (*metricsServer)(nil)
	_ framework.KeyMetricsProvider = (*metricsServer)(nil)
)

const example1In = `{"verify_responses":[{"_ng_task_index":0,"_ng_rollout_index":0,"response":{"usage":{"abc usage":1}},"reward":0,"bool":true},{"_ng_task_index":0,"_ng_rollout_index":1,"response":{"usage":{"abc usage":1}},"reward":1,"bool":false},{"_ng_task_index":1,"_ng_rollout_index":0,"response":{"usage":{"abc usage":1}},"reward":0,"bool":true},{"_ng_task_index":1,"_ng_rollout_index":1,"response":{"usage":{"abc usage":1}},"reward":1,"bool":false},{"_ng_task_index":2,"_ng_rollout_index":0,"response":{"usage":{"abc usage":1}},"reward":0,"bool":true},{"_ng_task_index":2,"_ng_rollout_index":1,"response":{"usage":{"abc usage":1}},"reward":1,"bool":false}]}`

const example1Group = `{"_ng_task_index":0,"mean/reward":0.5,"mean/bool":0.5,"mean/abc usage":1.0,"max/reward":1,"max/bool":1,"max/abc usage":1,"min/reward":0,"min/bool":0,"min/abc usage":1,"median/reward":0.5,"median/bool":0.5,"median/abc usage":1.0,"std/reward":0.7071067811865476,"std/bool":0.7071067811865476,"std/abc usage":0.0,"sample":{"agent_ref":{"name":"agent"}},"num_rollouts":2,"expected_num_rollouts":2,"missing_num_rollouts":0,"reward_profile_completion_pct":100.0,"rollout_infos":[{"rollout_id":"0:0","_ng_task_index":0,"_ng_rollout_index":0,"reward":0,"abc usage":1,"bool":1},{"rollout_id":"0:1","_ng_task_index":0,"_ng_rollout_index":1,"reward":1,"abc usage":1,"bool":0}]}`

func example1Out() string {
	g := func(i string) string {
		s := strings.Replace(example1Group, `"_ng_task_index":0,"mean`, `"_ng_task_index":`+i+`,"mean`, 1)
		s = strings.ReplaceAll(s, `"rollout_id":"0:`, `"rollout_id":"`+i+`:`)
		return strings.ReplaceAll(s, `"_ng_task_index":0,"_ng_rollout_index"`, `"_ng_task_index":`+i+`,"_ng_rollout_index"`)
	}
	return `{"group_level_metrics":[` + g("0") + `,` + g("1") + `,` + g("2") + `],"agent_metrics":{"mean/reward":0.5,"mean/bool":0.5,"mean/abc usage":1.0,"max/reward":1,"max/bool":1,"max/abc usage":1,"min/reward":0,"min/bool":0,"min/abc usage":1,"median/reward":0.5,"median/bool":0.5,"median/abc usage":1.0,"std/reward":0.5477225575051661,"std/bool":0.5477225575051661,"std/abc usage":0.0},"key_metrics":{"mean/reward":0.5,"mean/bool":0.5,"mean/abc usage":1.0}}`
}

// TestAggregateMetricsWorkedExamples posts python-compat 1.8's examples and
// compares the exact bytes.
func TestAggregateMetricsWorkedExamples(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		perTask bool
		in, out string
		status  int
	}{
		{"example1", false, example1In, example1Out(), 200},
		{"example2", false,
			`{"verify_responses":[{"_ng_task_index":0,"_ng_rollout_index":0,"reward":1.0,"judgement":"[[A>>B]]","info":{"value":26},"maybe":null,"score":3,"response":{"usage":{"input_tokens":10,"input_tokens_details":{"cached_tokens":0},"output_tokens":5,"total_tokens":15}}},{"_ng_task_index":1,"_ng_rollout_index":0,"reward":0.0,"score":null,"response":{"usage":{"input_tokens":20,"input_tokens_details":{"cached_tokens":0},"output_tokens":7,"total_tokens":27}}}]}`,
			`{"group_level_metrics":[{"_ng_task_index":0,"mean/reward":1.0,"mean/score":3.0,"mean/input_tokens":10.0,"mean/output_tokens":5.0,"mean/total_tokens":15.0,"max/reward":1.0,"max/score":3.0,"max/input_tokens":10.0,"max/output_tokens":5.0,"max/total_tokens":15.0,"min/reward":1.0,"min/score":3.0,"min/input_tokens":10.0,"min/output_tokens":5.0,"min/total_tokens":15.0,"median/reward":1.0,"median/score":3.0,"median/input_tokens":10.0,"median/output_tokens":5.0,"median/total_tokens":15.0,"std/reward":0.0,"std/score":0.0,"std/input_tokens":0.0,"std/output_tokens":0.0,"std/total_tokens":0.0,"sample":{"agent_ref":{"name":"agent"}},"num_rollouts":1,"expected_num_rollouts":1,"missing_num_rollouts":0,"reward_profile_completion_pct":100.0,"rollout_infos":[{"rollout_id":"0:0","_ng_task_index":0,"_ng_rollout_index":0,"reward":1.0,"input_tokens":10,"output_tokens":5,"total_tokens":15,"score":3}]},{"_ng_task_index":1,"mean/reward":0.0,"mean/input_tokens":20.0,"mean/output_tokens":7.0,"mean/total_tokens":27.0,"max/reward":0.0,"max/input_tokens":20.0,"max/output_tokens":7.0,"max/total_tokens":27.0,"min/reward":0.0,"min/input_tokens":20.0,"min/output_tokens":7.0,"min/total_tokens":27.0,"median/reward":0.0,"median/input_tokens":20.0,"median/output_tokens":7.0,"median/total_tokens":27.0,"std/reward":0.0,"std/input_tokens":0.0,"std/output_tokens":0.0,"std/total_tokens":0.0,"sample":{"agent_ref":{"name":"agent"}},"num_rollouts":1,"expected_num_rollouts":1,"missing_num_rollouts":0,"reward_profile_completion_pct":100.0,"rollout_infos":[{"rollout_id":"1:0","_ng_task_index":1,"_ng_rollout_index":0,"reward":0.0,"input_tokens":20,"output_tokens":7,"total_tokens":27}]}],"agent_metrics":{"mean/reward":0.5,"mean/score":3.0,"mean/input_tokens":15.0,"mean/output_tokens":6.0,"mean/total_tokens":21.0,"max/reward":1.0,"max/score":3.0,"max/input_tokens":20.0,"max/output_tokens":7.0,"max/total_tokens":27.0,"min/reward":0.0,"min/score":3.0,"min/input_tokens":10.0,"min/output_tokens":5.0,"min/total_tokens":15.0,"median/reward":0.5,"median/score":3.0,"median/input_tokens":15.0,"median/output_tokens":6.0,"median/total_tokens":21.0,"std/reward":0.7071067811865476,"std/input_tokens":7.0710678118654755,"std/output_tokens":1.4142135623730951,"std/total_tokens":8.48528137423857},"key_metrics":{"mean/reward":0.5,"mean/score":3.0,"mean/input_tokens":15.0,"mean/output_tokens":6.0,"mean/total_tokens":21.0}}`, 200},
		{"example3", true,
			`{"verify_responses":[{"_ng_task_index":0,"_ng_rollout_index":0,"reward":1.0,"response":{}},{"_ng_task_index":1,"_ng_rollout_index":0,"reward":0.0,"response":{}}]}`,
			`{"group_level_metrics":[{"_ng_task_index":0,"mean/reward":1.0,"max/reward":1.0,"min/reward":1.0,"median/reward":1.0,"std/reward":0.0,"sample":{"agent_ref":{"name":"agent"}},"num_rollouts":1,"expected_num_rollouts":1,"missing_num_rollouts":0,"reward_profile_completion_pct":100.0,"rollout_infos":[{"rollout_id":"0:0","_ng_task_index":0,"_ng_rollout_index":0,"reward":1.0}],"difficulty":"easy"},{"_ng_task_index":1,"mean/reward":0.0,"max/reward":0.0,"min/reward":0.0,"median/reward":0.0,"std/reward":0.0,"sample":{"agent_ref":{"name":"agent"}},"num_rollouts":1,"expected_num_rollouts":1,"missing_num_rollouts":0,"reward_profile_completion_pct":100.0,"rollout_infos":[{"rollout_id":"1:0","_ng_task_index":1,"_ng_rollout_index":0,"reward":0.0}],"difficulty":"hard"}],"agent_metrics":{"mean/reward":0.5,"max/reward":1.0,"min/reward":0.0,"median/reward":0.5,"std/reward":0.7071067811865476,"custom_agg":99},"key_metrics":{"mean/reward":0.5}}`, 200},
		{"empty", false, `{"verify_responses":[]}`, `{"group_level_metrics":[],"agent_metrics":{},"key_metrics":{}}`, 200},
		{"missing_rollout_index", false, `{"verify_responses":[{"_ng_task_index":0,"reward":1}]}`, `"KeyError('_ng_rollout_index')"`, 500},
		{"not_a_list", false, `{"verify_responses":{}}`, `{"detail":[{"type":"list_type","loc":["body","verify_responses"],"msg":"Input should be a valid list","input":{}}]}`, 422},
		{"element_not_object", false, `{"verify_responses":[1]}`, `{"detail":[{"type":"dict_type","loc":["body","verify_responses",0],"msg":"Input should be a valid dictionary","input":1}]}`, 422},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ts := servertest.New(t, &metricsServer{perTask: c.perTask}, servertest.Options{})
			res := ts.Rollout().Post("/aggregate_metrics", c.in)
			if res.Status != c.status || string(res.Body) != c.out {
				t.Errorf("got %d\n%s\nwant %d\n%s", res.Status, res.Body, c.status, c.out)
			}
			// Python's unhandled 500 carries no Set-Cookie (nemo-gym-peer
			// goldens, "aggregate_metrics: ints and no indices").
			want := 1
			if c.status == 500 {
				want = 0
			}
			if n := len(res.SetCookies()); n != want {
				t.Errorf("%d Set-Cookie headers, want %d", n, want)
			}
		})
	}
}

// TestAggregateMetricsRecordedGoldens feeds NeMo's four recorded rollout files,
// stripped as the collector strips them (python-compat 2.4), to
// /aggregate_metrics and compares every value, number type and key order with
// the recorded metrics file.
func TestAggregateMetricsRecordedGoldens(t *testing.T) {
	t.Parallel()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "shared", "data", "nemo-gym", "aggregate-golden")
	for _, name := range []string{"blackjack", "example_multi_turn_gymnasium", "grl_tetris", "litmus_agent"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := &metricsServer{}
			if name == "litmus_agent" {
				srv.keys = []string{"mean/reward", "mean/correct"} // its server's get_key_metrics
				srv.litmus = true
			}
			ts := servertest.New(t, srv, servertest.Options{})
			f, err := os.Open(filepath.Join(dir, name, "example_rollouts.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var body bytes.Buffer
			body.WriteString(`{"verify_responses":[`)
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 16<<20)
			for i := 0; sc.Scan(); i++ {
				row, err := framework.ParseJSON(sc.Bytes())
				if err != nil {
					t.Fatal(err)
				}
				stripped := framework.Value{Kind: framework.KindObject}
				var usage framework.Value
				for _, m := range row.Members {
					switch m.Key {
					case "response":
						usage, _ = m.Value.Get("usage")
					case "responses_create_params", "ng_agent_observations", "ng_model_call_capture", "ng_trajectory":
					default:
						stripped.Members = append(stripped.Members, m)
					}
				}
				if usage.Kind == framework.KindObject && len(usage.Members) > 0 {
					stripped.Members = append(stripped.Members, framework.Member{Key: "response", Value: framework.Value{Kind: framework.KindObject, Members: []framework.Member{{Key: "usage", Value: usage}}}})
				}
				b, err := framework.MarshalJSON(stripped, framework.JSONPydantic)
				if err != nil {
					t.Fatal(err)
				}
				if i > 0 {
					body.WriteByte(',')
				}
				body.Write(b)
			}
			body.WriteString(`]}`)
			res := ts.Rollout().Post("/aggregate_metrics", body.Bytes())
			if res.Status != 200 {
				t.Fatalf("%d %s", res.Status, res.Body)
			}
			got, err := framework.ParseJSON(res.Body)
			if err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(filepath.Join(dir, name, "example_rollouts_aggregate_metrics.json"))
			if err != nil {
				t.Fatal(err)
			}
			want, err := framework.ParseJSON(raw)
			if err != nil {
				t.Fatal(err)
			}
			for _, key := range []string{"agent_metrics", "key_metrics", "group_level_metrics"} {
				w, _ := want.Items[0].Get(key)
				g, _ := got.Get(key)
				wb, _ := framework.MarshalJSON(w, framework.JSONPydantic)
				gb, _ := framework.MarshalJSON(g, framework.JSONPydantic)
				if !bytes.Equal(wb, gb) {
					t.Errorf("%s differs:\n got %s\nwant %s", key, gb, wb)
				}
			}
		})
	}
}
