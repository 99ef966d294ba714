package aggregate

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/internal/pyjson"
)

// requestItems returns the verify_responses of a request body.
func requestItems(t testing.TB, body string) []pyjson.Value {
	t.Helper()
	v := mustParse(t, body)
	vr, ok := v.Get("verify_responses")
	if !ok || vr.Kind != pyjson.Array {
		t.Fatalf("no verify_responses in %.80q", body)
	}
	return vr.Items
}

// perTaskHook is the compute_metrics of test_aggregate_metrics.py ›
// test_per_task_metrics_merged.
func perTaskHook(tasks [][]pyjson.Value) (pyjson.Value, error) {
	return pyjson.Parse([]byte(`{"custom_agg":99,"per_task_metrics":[{"_ng_task_index":0,"difficulty":"easy"},{"_ng_task_index":1,"difficulty":"hard"}]}`))
}

func TestWorkedExamples(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in, out string
		hooks   Hooks
	}{
		{"example1_ints", example1In, example1Out, Hooks{}},
		{"example2_fields_usage_std_rule", example2In, example2Out, Hooks{}},
		{"example3_per_task_metrics", example3In, example3Out, Hooks{ComputeMetrics: perTaskHook}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := Compute(requestItems(t, tc.in), tc.hooks)
			if err != nil {
				t.Fatal(err)
			}
			if d := diffValues(mustParse(t, tc.out), got, "$"); d != "" {
				t.Fatal(d)
			}
			if b := encode(t, got); b != tc.out {
				t.Fatalf("bytes differ\n got  %s\n want %s", b, tc.out)
			}
		})
	}
}

func TestEmpty(t *testing.T) {
	t.Parallel()
	called := false
	h := Hooks{
		ComputeMetrics: func([][]pyjson.Value) (pyjson.Value, error) { called = true; return pyjson.ObjectValue(), nil },
		KeyMetrics:     func(pyjson.Value) (pyjson.Value, error) { called = true; return pyjson.ObjectValue(), nil },
	}
	for _, in := range [][]pyjson.Value{nil, {}} {
		got, err := Compute(in, h)
		if err != nil {
			t.Fatal(err)
		}
		if b := encode(t, got); b != `{"group_level_metrics":[],"agent_metrics":{},"key_metrics":{}}` {
			t.Fatalf("got %s", b)
		}
	}
	if called {
		t.Fatal("a hook was called for an empty list")
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"missing rollout index", `[{"_ng_task_index":0,"reward":1}]`, `KeyError('_ng_rollout_index')`},
		{"missing task index", `[{"_ng_rollout_index":0,"reward":1}]`, `KeyError('_ng_task_index')`},
		{"missing both: task first", `[{"reward":1}]`, `KeyError('_ng_task_index')`},
		{"missing in a later element", `[{"_ng_task_index":0,"_ng_rollout_index":0},{"_ng_task_index":1}]`, `KeyError('_ng_rollout_index')`},
		{"duplicate pair", `[{"_ng_task_index":3,"_ng_rollout_index":1},{"_ng_task_index":3,"_ng_rollout_index":1}]`,
			`ValueError('Duplicate materialized input row for rollout key (3, 1)')`},
		// The synthetic rows default a missing index to 0 and are checked
		// before the results are indexed, so the duplicate wins over KeyError.
		{"duplicate through default beats KeyError", `[{"_ng_task_index":0,"_ng_rollout_index":0},{"_ng_task_index":0}]`,
			`ValueError('Duplicate materialized input row for rollout key (0, 0)')`},
		{"duplicate int and float", `[{"_ng_task_index":1,"_ng_rollout_index":0},{"_ng_task_index":1.0,"_ng_rollout_index":0}]`,
			`ValueError('Duplicate materialized input row for rollout key (1.0, 0)')`},
		{"duplicate int and bool", `[{"_ng_task_index":1,"_ng_rollout_index":0},{"_ng_task_index":true,"_ng_rollout_index":0}]`,
			`ValueError('Duplicate materialized input row for rollout key (True, 0)')`},
		{"duplicate str", `[{"_ng_task_index":"a","_ng_rollout_index":0},{"_ng_task_index":"a","_ng_rollout_index":0}]`,
			`ValueError("Duplicate materialized input row for rollout key ('a', 0)")`},
		{"null response", `[{"_ng_task_index":0,"_ng_rollout_index":0,"reward":1,"response":null}]`,
			`AttributeError("'NoneType' object has no attribute 'get'")`},
		{"string response", `[{"_ng_task_index":0,"_ng_rollout_index":0,"response":"x"}]`,
			`AttributeError("'str' object has no attribute 'get'")`},
		{"empty list response", `[{"_ng_task_index":0,"_ng_rollout_index":0,"response":[]}]`,
			`AttributeError("'list' object has no attribute 'get'")`},
		{"int usage", `[{"_ng_task_index":0,"_ng_rollout_index":0,"response":{"usage":5}}]`,
			`AttributeError("'int' object has no attribute 'items'")`},
		{"null response in the second sorted element", `[{"_ng_task_index":1,"_ng_rollout_index":0,"response":null},{"_ng_task_index":0,"_ng_rollout_index":0,"response":{"usage":7}}]`,
			`AttributeError("'int' object has no attribute 'items'")`},
		{"unhashable task index", `[{"_ng_task_index":[0],"_ng_rollout_index":0}]`, `TypeError("unhashable type: 'list'")`},
		{"null task index", `[{"_ng_task_index":null,"_ng_rollout_index":0}]`, `ValueError('gymkit does not accept None as a rollout key index')`},
		{"NaN rollout index", `[{"_ng_task_index":0,"_ng_rollout_index":NaN}]`, `ValueError('gymkit does not accept NaN as a rollout key index')`},
		{"str and int task indices", `[{"_ng_task_index":"a","_ng_rollout_index":0},{"_ng_task_index":0,"_ng_rollout_index":0}]`,
			`TypeError`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Compute(mustParseArray(t, tc.in), Hooks{})
			if err == nil {
				t.Fatal("no error")
			}
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %T %v is not an *Error", err, err)
			}
			if tc.want == "TypeError" {
				if pe.Type != "TypeError" || !strings.Contains(pe.Message, "'<' not supported between instances of") {
					t.Fatalf("got %s", err)
				}
				return
			}
			if err.Error() != tc.want {
				t.Fatalf("got  %s\nwant %s", err, tc.want)
			}
		})
	}
}

// TestErrorsUnicode151: a string index reaches the exception's text through
// two reprs (the key's, then the exception's). CPython 3.13 (Unicode 15.1,
// which NeMo runs) prints the code points Unicode 15.1 added (U+2FFC-2FFF,
// U+31EF, U+2EBF0-2EE5D) raw and escapes their unassigned neighbours; Go's
// own tables are Unicode 15.0, which has none of them.
func TestErrorsUnicode151(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		r    rune
		repr string // as it appears in the exception's repr
	}{
		{0x2FFB, "\u2ffb"}, // Unicode 3.0: printable in both
		{0x2FFC, "\u2ffc"},
		{0x2FFF, "\u2fff"},
		{0x31EE, `\\u31ee`}, // unassigned: escaped by the key's repr, that backslash doubled by the exception's
		{0x31EF, "\u31ef"},
		{0x2EBEF, `\\U0002ebef`},
		{0x2EBF0, "\U0002ebf0"},
		{0x2EE5D, "\U0002ee5d"},
		{0x2EE5E, `\\U0002ee5e`},
	} {
		t.Run(fmt.Sprintf("U+%04X", tc.r), func(t *testing.T) {
			t.Parallel()
			key, _ := json.Marshal(string(tc.r))
			row := `{"_ng_task_index":` + string(key) + `,"_ng_rollout_index":0}`
			_, err := Compute(mustParseArray(t, "["+row+","+row+"]"), Hooks{})
			want := `ValueError("Duplicate materialized input row for rollout key ('` + tc.repr + `', 0)")`
			if err == nil || err.Error() != want {
				t.Fatalf("got  %v\nwant %s", err, want)
			}
		})
	}
}

func TestNonObjectElement(t *testing.T) {
	t.Parallel()
	_, err := Compute(mustParseArray(t, `[{"_ng_task_index":0,"_ng_rollout_index":0},3]`), Hooks{})
	if err == nil {
		t.Fatal("no error")
	}
	var pe *Error
	if errors.As(err, &pe) {
		t.Fatalf("a non-object element is the framework's 422, not a Python exception: %v", err)
	}
}

// TestCases checks whole results of small requests against outputs derived
// from spec/python-compat.md section 1 by hand.
func TestCases(t *testing.T) {
	t.Parallel()
	const sample = `"sample":{"agent_ref":{"name":"agent"}}`
	tail := func(n int, infos string) string {
		return fmt.Sprintf(`%s,"num_rollouts":%d,"expected_num_rollouts":%d,"missing_num_rollouts":0,"reward_profile_completion_pct":100.0,"rollout_infos":[%s]`, sample, n, n, infos)
	}
	tests := []struct {
		name  string
		in    string
		hooks Hooks
		want  string
	}{{
		// A null usage is fine; an absent response is fine.
		name: "null usage and absent response",
		in:   `[{"_ng_task_index":0,"_ng_rollout_index":0,"reward":1,"response":{"usage":null}},{"_ng_task_index":0,"_ng_rollout_index":1,"reward":3}]`,
		want: `{"group_level_metrics":[{"_ng_task_index":0,"mean/reward":2.0,"max/reward":3,"min/reward":1,"median/reward":2.0,"std/reward":1.4142135623730951,` +
			tail(2, `{"rollout_id":"0:0","_ng_task_index":0,"_ng_rollout_index":0,"reward":1},{"rollout_id":"0:1","_ng_task_index":0,"_ng_rollout_index":1,"reward":3}`) +
			`}],"agent_metrics":{"mean/reward":2.0,"max/reward":3,"min/reward":1,"median/reward":2.0,"std/reward":1.4142135623730951},"key_metrics":{"mean/reward":2.0}}`,
	}, {
		// NaN counts as missing: task 0's reward is float-typed with one
		// value; an int column missing from one element is float-typed,
		// and one float column makes every max/min float.
		name: "NaN input and missing int",
		in:   `[{"_ng_task_index":0,"_ng_rollout_index":0,"reward":NaN,"n":1},{"_ng_task_index":0,"_ng_rollout_index":1,"reward":2.5,"n":2},{"_ng_task_index":1,"_ng_rollout_index":0,"reward":0.5}]`,
		want: `{"group_level_metrics":[{"_ng_task_index":0,"mean/reward":2.5,"mean/n":1.5,"max/reward":2.5,"max/n":2.0,"min/reward":2.5,"min/n":1.0,"median/reward":2.5,"median/n":1.5,"std/n":0.7071067811865476,` +
			tail(2, `{"rollout_id":"0:0","_ng_task_index":0,"_ng_rollout_index":0,"reward":NaN,"n":1},{"rollout_id":"0:1","_ng_task_index":0,"_ng_rollout_index":1,"reward":2.5,"n":2}`) +
			`},{"_ng_task_index":1,"mean/reward":0.5,"max/reward":0.5,"min/reward":0.5,"median/reward":0.5,"std/reward":0.0,` +
			tail(1, `{"rollout_id":"1:0","_ng_task_index":1,"_ng_rollout_index":0,"reward":0.5}`) +
			`}],"agent_metrics":{"mean/reward":1.5,"mean/n":1.5,"max/reward":2.5,"max/n":2.0,"min/reward":0.5,"min/n":1.0,"median/reward":1.5,"median/n":1.5,"std/reward":1.4142135623730951,"std/n":0.7071067811865476},"key_metrics":{"mean/reward":1.5,"mean/n":1.5}}`,
	}, {
		// Every std NaN and no column fully present: no std keys at all.
		// A column with two values elsewhere keeps the NaN rule per frame.
		name: "std rule: nothing fully present",
		in:   `[{"_ng_task_index":0,"_ng_rollout_index":0,"a":1.5},{"_ng_task_index":0,"_ng_rollout_index":1,"b":2.5}]`,
		want: `{"group_level_metrics":[{"_ng_task_index":0,"mean/a":1.5,"mean/b":2.5,"max/a":1.5,"max/b":2.5,"min/a":1.5,"min/b":2.5,"median/a":1.5,"median/b":2.5,` +
			tail(2, `{"rollout_id":"0:0","_ng_task_index":0,"_ng_rollout_index":0,"a":1.5},{"rollout_id":"0:1","_ng_task_index":0,"_ng_rollout_index":1,"b":2.5}`) +
			`}],"agent_metrics":{"mean/a":1.5,"mean/b":2.5,"max/a":1.5,"max/b":2.5,"min/a":1.5,"min/b":2.5,"median/a":1.5,"median/b":2.5},"key_metrics":{"mean/a":1.5,"mean/b":2.5}}`,
	}, {
		// Two values of a make its std valid, so b (one value) has none.
		name: "std rule: some valid",
		in:   `[{"_ng_task_index":0,"_ng_rollout_index":0,"a":1.0,"b":4.0},{"_ng_task_index":0,"_ng_rollout_index":1,"a":2.0}]`,
		want: `{"group_level_metrics":[{"_ng_task_index":0,"mean/a":1.5,"mean/b":4.0,"max/a":2.0,"max/b":4.0,"min/a":1.0,"min/b":4.0,"median/a":1.5,"median/b":4.0,"std/a":0.7071067811865476,` +
			tail(2, `{"rollout_id":"0:0","_ng_task_index":0,"_ng_rollout_index":0,"a":1.0,"b":4.0},{"rollout_id":"0:1","_ng_task_index":0,"_ng_rollout_index":1,"a":2.0}`) +
			`}],"agent_metrics":{"mean/a":1.5,"mean/b":4.0,"max/a":2.0,"max/b":4.0,"min/a":1.0,"min/b":4.0,"median/a":1.5,"median/b":4.0,"std/a":0.7071067811865476},"key_metrics":{"mean/a":1.5,"mean/b":4.0}}`,
	}, {
		// std of [inf, inf] is NaN; it is the only column, fully present,
		// so the rule turns it into 0.0. Infinity is written as a literal
		// here (the encoder decides how it goes on the wire).
		name: "std rule: NaN from infinities",
		in:   `[{"_ng_task_index":0,"_ng_rollout_index":0,"a":Infinity},{"_ng_task_index":0,"_ng_rollout_index":1,"a":Infinity}]`,
		want: `{"group_level_metrics":[{"_ng_task_index":0,"mean/a":Infinity,"max/a":Infinity,"min/a":Infinity,"median/a":Infinity,"std/a":0.0,` +
			tail(2, `{"rollout_id":"0:0","_ng_task_index":0,"_ng_rollout_index":0,"a":Infinity},{"rollout_id":"0:1","_ng_task_index":0,"_ng_rollout_index":1,"a":Infinity}`) +
			`}],"agent_metrics":{"mean/a":Infinity,"max/a":Infinity,"min/a":Infinity,"median/a":Infinity,"std/a":0.0},"key_metrics":{"mean/a":Infinity}}`,
	}, {
		// Usage keys win over same-named top-level keys in the stats (at
		// the top-level key's position) but lose in rollout_infos (at the
		// usage key's position). Nested usage objects and strings are
		// ignored; bools count as ints; all-int columns keep int max/min.
		name: "usage precedence",
		in:   `[{"_ng_task_index":0,"_ng_rollout_index":0,"total_tokens":100,"ok":true,"s":"x","response":{"usage":{"input_tokens":3,"d":{"c":0},"total_tokens":7}}}]`,
		want: `{"group_level_metrics":[{"_ng_task_index":0,"mean/total_tokens":7.0,"mean/ok":1.0,"mean/input_tokens":3.0,"max/total_tokens":7,"max/ok":1,"max/input_tokens":3,"min/total_tokens":7,"min/ok":1,"min/input_tokens":3,"median/total_tokens":7.0,"median/ok":1.0,"median/input_tokens":3.0,"std/total_tokens":0.0,"std/ok":0.0,"std/input_tokens":0.0,` +
			tail(1, `{"rollout_id":"0:0","_ng_task_index":0,"_ng_rollout_index":0,"input_tokens":3,"total_tokens":100,"ok":1}`) +
			`}],"agent_metrics":{"mean/total_tokens":7.0,"mean/ok":1.0,"mean/input_tokens":3.0,"max/total_tokens":7,"max/ok":1,"max/input_tokens":3,"min/total_tokens":7,"min/ok":1,"min/input_tokens":3,"median/total_tokens":7.0,"median/ok":1.0,"median/input_tokens":3.0,"std/total_tokens":0.0,"std/ok":0.0,"std/input_tokens":0.0},"key_metrics":{"mean/total_tokens":7.0,"mean/ok":1.0,"mean/input_tokens":3.0}}`,
	}, {
		// Columns appear in first-seen order over records sorted by (task,
		// rollout), not request order; groups ascend; reward of any type
		// is echoed in rollout_infos; the group's _ng_task_index is the
		// first value seen in request order (1.0 here, 1 in its info).
		name: "ordering",
		in:   `[{"_ng_task_index":1.0,"_ng_rollout_index":1,"z":1,"reward":"bad"},{"_ng_task_index":0,"_ng_rollout_index":0,"y":2},{"_ng_task_index":1,"_ng_rollout_index":0,"x":3}]`,
		want: `{"group_level_metrics":[{"_ng_task_index":0,"mean/y":2.0,"max/y":2.0,"min/y":2.0,"median/y":2.0,"std/y":0.0,` +
			tail(1, `{"rollout_id":"0:0","_ng_task_index":0,"_ng_rollout_index":0,"y":2}`) +
			`},{"_ng_task_index":1.0,"mean/x":3.0,"mean/z":1.0,"max/x":3.0,"max/z":1.0,"min/x":3.0,"min/z":1.0,"median/x":3.0,"median/z":1.0,` +
			tail(2, `{"rollout_id":"1:0","_ng_task_index":1,"_ng_rollout_index":0,"x":3},{"rollout_id":"1.0:1","_ng_task_index":1.0,"_ng_rollout_index":1,"reward":"bad","z":1}`) +
			`}],"agent_metrics":{"mean/y":2.0,"mean/x":3.0,"mean/z":1.0,"max/y":2.0,"max/x":3.0,"max/z":1.0,"min/y":2.0,"min/x":3.0,"min/z":1.0,"median/y":2.0,"median/x":3.0,"median/z":1.0},"key_metrics":{"mean/y":2.0,"mean/x":3.0,"mean/z":1.0}}`,
	}, {
		// compute_metrics: per_task_metrics overwrite in place and append;
		// other keys update agent_metrics in place and append; the custom
		// key_metrics hook sees the merged agent_metrics.
		name: "compute_metrics merge",
		in:   `[{"_ng_task_index":0,"_ng_rollout_index":0,"reward":1},{"_ng_task_index":1,"_ng_rollout_index":0,"reward":0}]`,
		hooks: Hooks{
			ComputeMetrics: func(tasks [][]pyjson.Value) (pyjson.Value, error) {
				return pyjson.Parse([]byte(`{"mean/reward":"over","per_task_metrics":[{"_ng_task_index":1.0,"num_rollouts":"x","extra":[1]},{"_ng_task_index":7,"zzz":1}],"n_tasks":` + strconv.Itoa(len(tasks)) + `}`))
			},
			KeyMetrics: func(am pyjson.Value) (pyjson.Value, error) {
				v, _ := am.Get("n_tasks")
				return pyjson.ObjectValue(pyjson.Member{Key: "n", Value: v}), nil
			},
		},
		want: `{"group_level_metrics":[{"_ng_task_index":0,"mean/reward":1.0,"max/reward":1,"min/reward":1,"median/reward":1.0,"std/reward":0.0,` +
			tail(1, `{"rollout_id":"0:0","_ng_task_index":0,"_ng_rollout_index":0,"reward":1}`) +
			`},{"_ng_task_index":1,"mean/reward":0.0,"max/reward":0,"min/reward":0,"median/reward":0.0,"std/reward":0.0,` +
			strings.Replace(tail(1, `{"rollout_id":"1:0","_ng_task_index":1,"_ng_rollout_index":0,"reward":0}`), `"num_rollouts":1`, `"num_rollouts":"x"`, 1) + `,"extra":[1]` +
			`}],"agent_metrics":{"mean/reward":"over","max/reward":1,"min/reward":0,"median/reward":0.5,"std/reward":0.7071067811865476,"n_tasks":2},"key_metrics":{"n":2}}`,
	}, {
		// Exact int64 max/min of an all-int request beyond 2^53; the other
		// statistics see the float64 values 2^53 and 2^53+4.
		name: "big ints",
		in:   `[{"_ng_task_index":0,"_ng_rollout_index":0,"t":9007199254740993},{"_ng_task_index":0,"_ng_rollout_index":1,"t":9007199254740995}]`,
		want: `{"group_level_metrics":[{"_ng_task_index":0,"mean/t":9007199254740994.0,"max/t":9007199254740995,"min/t":9007199254740993,"median/t":9007199254740994.0,"std/t":2.8284271247461903,` +
			tail(2, `{"rollout_id":"0:0","_ng_task_index":0,"_ng_rollout_index":0,"t":9007199254740993},{"rollout_id":"0:1","_ng_task_index":0,"_ng_rollout_index":1,"t":9007199254740995}`) +
			`}],"agent_metrics":{"mean/t":9007199254740994.0,"max/t":9007199254740995,"min/t":9007199254740993,"median/t":9007199254740994.0,"std/t":2.8284271247461903},"key_metrics":{"mean/t":9007199254740994.0}}`,
	}, {
		// String task indices work as in Python: sorted as strings.
		name: "string task indices",
		in:   `[{"_ng_task_index":"b","_ng_rollout_index":0,"r":1},{"_ng_task_index":"a","_ng_rollout_index":0,"r":2}]`,
		want: `{"group_level_metrics":[{"_ng_task_index":"a","mean/r":2.0,"max/r":2,"min/r":2,"median/r":2.0,"std/r":0.0,` +
			tail(1, `{"rollout_id":"a:0","_ng_task_index":"a","_ng_rollout_index":0,"r":2}`) +
			`},{"_ng_task_index":"b","mean/r":1.0,"max/r":1,"min/r":1,"median/r":1.0,"std/r":0.0,` +
			tail(1, `{"rollout_id":"b:0","_ng_task_index":"b","_ng_rollout_index":0,"r":1}`) +
			`}],"agent_metrics":{"mean/r":1.5,"max/r":2,"min/r":1,"median/r":1.5,"std/r":0.7071067811865476},"key_metrics":{"mean/r":1.5}}`,
	}, {
		// Elements with no numeric field besides the indices: groups keep
		// their bookkeeping keys, agent_metrics is empty.
		name: "no statistics",
		in:   `[{"_ng_task_index":0,"_ng_rollout_index":0,"s":"x"}]`,
		want: `{"group_level_metrics":[{"_ng_task_index":0,` +
			tail(1, `{"rollout_id":"0:0","_ng_task_index":0,"_ng_rollout_index":0}`) +
			`}],"agent_metrics":{},"key_metrics":{}}`,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := Compute(mustParseArray(t, tc.in), tc.hooks)
			if err != nil {
				t.Fatal(err)
			}
			if d := diffValues(mustParse(t, tc.want), got, "$"); d != "" {
				t.Fatal(d)
			}
		})
	}
}

func TestComputeMetricsTasks(t *testing.T) {
	t.Parallel()
	in := mustParseArray(t, `[{"_ng_task_index":2,"_ng_rollout_index":1,"k":"a"},{"_ng_task_index":0,"_ng_rollout_index":0,"k":"b"},{"_ng_task_index":2,"_ng_rollout_index":0,"k":"c"},{"_ng_task_index":1,"_ng_rollout_index":5,"k":"d","response":{"usage":{"x":1}}}]`)
	var got [][]string
	_, err := Compute(in, Hooks{ComputeMetrics: func(tasks [][]pyjson.Value) (pyjson.Value, error) {
		for _, task := range tasks {
			var ks []string
			for _, vr := range task {
				k, _ := vr.Get("k")
				ks = append(ks, k.Str)
				if k.Str == "d" {
					if _, ok := vr.Get("response"); !ok {
						return pyjson.Value{}, errors.New("raw element lost its response")
					}
				}
			}
			got = append(got, ks)
		}
		return pyjson.ObjectValue(), nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	// Tasks ascend; inside a task, request order.
	if fmt.Sprint(got) != "[[b] [d] [a c]]" {
		t.Fatalf("tasks %v", got)
	}
}

func TestHookErrors(t *testing.T) {
	t.Parallel()
	in := mustParseArray(t, `[{"_ng_task_index":0,"_ng_rollout_index":0,"reward":1}]`)
	boom := errors.New("boom")
	if _, err := Compute(in, Hooks{ComputeMetrics: func([][]pyjson.Value) (pyjson.Value, error) { return pyjson.Value{}, boom }}); !errors.Is(err, boom) {
		t.Fatalf("compute_metrics error: %v", err)
	}
	if _, err := Compute(in, Hooks{KeyMetrics: func(pyjson.Value) (pyjson.Value, error) { return pyjson.Value{}, boom }}); !errors.Is(err, boom) {
		t.Fatalf("key metrics error: %v", err)
	}
	tests := []struct{ custom, want string }{
		{`[1]`, `AttributeError("'list' object has no attribute 'pop'")`},
		{`{"per_task_metrics":[{"x":1}]}`, `KeyError('_ng_task_index')`},
		{`{"per_task_metrics":[3]}`, `TypeError("'int' object is not subscriptable")`},
		{`{"per_task_metrics":5}`, `TypeError("'int' object is not iterable")`},
		{`{"per_task_metrics":{"a":1}}`, `TypeError("string indices must be integers, not 'str'")`},
	}
	for _, tc := range tests {
		custom := mustParse(t, tc.custom)
		_, err := Compute(in, Hooks{ComputeMetrics: func([][]pyjson.Value) (pyjson.Value, error) { return custom, nil }})
		if err == nil || err.Error() != tc.want {
			t.Errorf("custom %s: got %v, want %s", tc.custom, err, tc.want)
		}
	}
	// A falsy per_task_metrics is popped and ignored.
	got, err := Compute(in, Hooks{ComputeMetrics: func([][]pyjson.Value) (pyjson.Value, error) {
		return mustParse(t, `{"per_task_metrics":[],"x":1}`), nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	am, _ := got.Get("agent_metrics")
	if ks := keys(am); ks[len(ks)-1] != "x" || len(ks) != 6 {
		t.Fatalf("agent_metrics keys %v", ks)
	}
}

// TestMaxMinTyping covers section 1.4: max/min are ints only when every
// statistics column of the request is int-typed (ints or bools, present in
// every element).
func TestMaxMinTyping(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		wantInt  bool
	}{
		{"ints and bools", `[{"_ng_task_index":0,"_ng_rollout_index":0,"a":1,"b":true},{"_ng_task_index":1,"_ng_rollout_index":0,"a":2,"b":false}]`, true},
		{"int literal with exponent is float", `[{"_ng_task_index":0,"_ng_rollout_index":0,"a":1,"b":1e0}]`, false},
		{"3.0 is float", `[{"_ng_task_index":0,"_ng_rollout_index":0,"a":1,"b":3.0}]`, false},
		{"int missing in one element", `[{"_ng_task_index":0,"_ng_rollout_index":0,"a":1,"b":2},{"_ng_task_index":1,"_ng_rollout_index":0,"a":2}]`, false},
		{"int null in one element", `[{"_ng_task_index":0,"_ng_rollout_index":0,"a":1,"b":2},{"_ng_task_index":1,"_ng_rollout_index":0,"a":2,"b":null}]`, false},
		{"float task index does not count", `[{"_ng_task_index":0.5,"_ng_rollout_index":0,"a":1}]`, true},
		{"int usage", `[{"_ng_task_index":0,"_ng_rollout_index":0,"a":1,"response":{"usage":{"u":4}}}]`, true},
		{"float usage", `[{"_ng_task_index":0,"_ng_rollout_index":0,"a":1,"response":{"usage":{"u":4.5}}}]`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := Compute(mustParseArray(t, tc.in), Hooks{})
			if err != nil {
				t.Fatal(err)
			}
			groups, _ := got.Get("group_level_metrics")
			am, _ := got.Get("agent_metrics")
			objs := append([]pyjson.Value{am}, groups.Items...)
			n := 0
			for _, o := range objs {
				for _, m := range o.Members {
					if strings.HasPrefix(m.Key, "max/") || strings.HasPrefix(m.Key, "min/") {
						n++
						if m.Value.IsFloat() == tc.wantInt {
							t.Errorf("%s = %s, want int %v", m.Key, m.Value.Str, tc.wantInt)
						}
					}
					if strings.HasPrefix(m.Key, "mean/") || strings.HasPrefix(m.Key, "median/") || strings.HasPrefix(m.Key, "std/") {
						if !m.Value.IsFloat() {
							t.Errorf("%s = %s is not a float", m.Key, m.Value.Str)
						}
					}
				}
			}
			if n == 0 {
				t.Fatal("no max/min keys")
			}
		})
	}
}

// TestAgainstPandas compares frame statistics over n >= 8 and n > 128 rows
// with values pandas 1.5.3 / numpy 1.24 (bottleneck off, as in NeMo Gym's
// lock) computed for the same data: float column f with a NaN every 7th
// row, float column g, int column i. f and g share a float64 block, so
// their median goes through numpy's 2-D path (numpy.ma.median below 600
// rows). The nanops and pairwise-sum code involved is the same in pandas
// 2.3.2 / numpy 2.3.2 up to 8192 rows; beyond that numpy 1.24 splits every
// reduction into 8192-element buffers while numpy 2.3 honours GROWINNER for
// reductions that need no cast (see TestLargeFrameSummation).
func TestAgainstPandas(t *testing.T) {
	t.Parallel()
	fval := func(i, off int) float64 { return float64((i*i*31+i*7+off)%1013)/17.0 - 20.0 }
	ival := func(i int) int { return (i*i*31+i*7)%1013 - 500 }
	// n: mean f,g,i | std | median | max | min, as float64 hex.
	want := map[int]string{
		9:    "mean:-0x1.d2d2d2d2d2d2dp+1,-0x1.9ac5701ac5704p+1,-0x1.b71c71c71c71cp+7 std:0x1.217714a4007f0p+4,0x1.0edb99b2ab8d3p+4,0x1.1fc9534dd6460p+8 median:-0x1.75a5a5a5a5a5ap+3,-0x1.65a5a5a5a5a5ap+3,-0x1.6300000000000p+8 max:0x1.ba5a5a5a5a5a6p+4,0x1.bf0f0f0f0f0f0p+4,0x1.3600000000000p+8 min:-0x1.4000000000000p+4,-0x1.3b4b4b4b4b4b5p+4,-0x1.f400000000000p+8",
		100:  "mean:0x1.7802cd38620ebp+3,0x1.7121212121212p+3,0x1.f19999999999ap+4 std:0x1.1c43294b54dcep+4,0x1.1ccbc71054ccbp+4,0x1.2e9883815a198p+8 median:0x1.a3c3c3c3c3c3cp+3,0x1.a5a5a5a5a5a5cp+3,0x1.d800000000000p+5 max:0x1.3787878787878p+5,0x1.39e1e1e1e1e1ep+5,0x1.f600000000000p+8 min:-0x1.4000000000000p+4,-0x1.3b4b4b4b4b4b5p+4,-0x1.f400000000000p+8",
		129:  "mean:0x1.6208f43277a81p+3,0x1.65c7444a3e562p+3,0x1.911dc47711dc4p+4 std:0x1.17baafee66446p+4,0x1.16868e4a36167p+4,0x1.27eef72ed977ep+8 median:0x1.9878787878788p+3,0x1.9e1e1e1e1e1e0p+3,0x1.b800000000000p+5 max:0x1.3787878787878p+5,0x1.39e1e1e1e1e1ep+5,0x1.f600000000000p+8 min:-0x1.4000000000000p+4,-0x1.3b4b4b4b4b4b5p+4,-0x1.f400000000000p+8",
		1000: "mean:0x1.196ad146f8b53p+3,0x1.1dc4017215ed0p+3,-0x1.2451eb851eb85p+3 std:0x1.13f5d18f2908ep+4,0x1.13c4d88de6a34p+4,0x1.253350d9010d4p+8 median:0x1.fc3c3c3c3c3c4p+2,0x1.05a5a5a5a5a5ap+3,-0x1.5000000000000p+4 max:0x1.3bc3c3c3c3c3cp+5,0x1.3c3c3c3c3c3c4p+5,0x1.ff00000000000p+8 min:-0x1.4000000000000p+4,-0x1.4000000000000p+4,-0x1.f400000000000p+8",
		5000: "mean:0x1.1977773a105f7p+3,0x1.1cddc32364ee3p+3,-0x1.339c0ebedfa44p+3 std:0x1.143f7d66fac89p+4,0x1.13dec3fd63c68p+4,0x1.25507caf82c10p+8 median:0x1.f878787878788p+2,0x1.03c3c3c3c3c3cp+3,-0x1.9000000000000p+4 max:0x1.3bc3c3c3c3c3cp+5,0x1.3c3c3c3c3c3c4p+5,0x1.ff00000000000p+8 min:-0x1.4000000000000p+4,-0x1.4000000000000p+4,-0x1.f400000000000p+8",
		8192: "mean:0x1.1b0162a6f8ed7p+3,0x1.1d542d2d2d2d4p+3,-0x1.2ec9000000000p+3 std:0x1.145d7246939c7p+4,0x1.14211403c799cp+4,0x1.2594febd3ef35p+8 median:0x1.fc3c3c3c3c3c4p+2,0x1.03c3c3c3c3c3cp+3,-0x1.9000000000000p+4 max:0x1.3bc3c3c3c3c3cp+5,0x1.3c3c3c3c3c3c4p+5,0x1.ff00000000000p+8 min:-0x1.4000000000000p+4,-0x1.4000000000000p+4,-0x1.f400000000000p+8",
	}
	for n, w := range want {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			t.Parallel()
			vrs := make([]pyjson.Value, n)
			for i := range vrs {
				f := pyjson.NumberValue("NaN")
				if i%7 != 3 {
					f = pyjson.FloatValue(fval(i, 0))
				}
				vrs[i] = pyjson.ObjectValue(
					pyjson.Member{Key: TaskIndexKey, Value: intValue(0)},
					pyjson.Member{Key: RolloutIndexKey, Value: intValue(int64(i))},
					pyjson.Member{Key: "f", Value: f},
					pyjson.Member{Key: "g", Value: pyjson.FloatValue(fval(i, 5))},
					pyjson.Member{Key: "i", Value: intValue(int64(ival(i)))},
				)
			}
			got, err := Compute(vrs, Hooks{})
			if err != nil {
				t.Fatal(err)
			}
			am, _ := got.Get("agent_metrics")
			groups, _ := got.Get("group_level_metrics")
			for _, o := range []pyjson.Value{am, groups.Items[0]} {
				var parts []string
				for _, stat := range []string{"mean", "std", "median", "max", "min"} {
					var hs []string
					for _, c := range []string{"f", "g", "i"} {
						v, ok := o.Get(stat + "/" + c)
						if !ok {
							t.Fatalf("no %s/%s", stat, c)
						}
						f, _ := strconv.ParseFloat(v.Str, 64)
						hs = append(hs, hexFloat(f))
					}
					parts = append(parts, stat+":"+strings.Join(hs, ","))
				}
				if g := strings.Join(parts, " "); g != w {
					t.Fatalf("n=%d\n got  %s\n want %s", n, g, w)
				}
			}
		})
	}
}

// hexFloat formats f as Python's float.hex does.
func hexFloat(f float64) string {
	if f == 0 {
		if math.Signbit(f) {
			return "-0x0.0p+0"
		}
		return "0x0.0p+0"
	}
	s := strconv.FormatFloat(f, 'x', 13, 64) // -0x1.8000000000000p+01
	i := strings.IndexByte(s, 'p')
	exp, _ := strconv.Atoi(s[i+1:])
	return s[:i] + "p" + fmt.Sprintf("%+d", exp)
}
