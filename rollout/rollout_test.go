package rollout_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/rollout"
)

const (
	weatherRows = "testdata/weather_recorded.jsonl"
	counterRows = "testdata/counter_ground_truth.jsonl"
)

// The weather rows carry a recorded trajectory (three recorded by Claude
// Code as mcp__example_mcp_weather__get_weather, two by simple_agent as
// get_weather): replayed through either door, every rollout scores 1.0,
// and the names are recorded as each door's agent records them.
func TestWeatherRecordedBothDoors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		door     rollout.Door
		instance string
		name     string // the recorded function_call name
	}{
		{rollout.DoorHTTP, "example_mcp_weather", "get_weather"},
		{rollout.DoorMCP, "example_mcp_weather", "mcp__example_mcp_weather__get_weather"},
		// An instance of another name: recorded mcp__example_mcp_weather__
		// names still reach get_weather.
		{rollout.DoorHTTP, "weather", "get_weather"},
		{rollout.DoorMCP, "weather", "mcp__weather__get_weather"},
	} {
		t.Run(fmt.Sprintf("%s/%s", tc.door, tc.instance), func(t *testing.T) {
			t.Parallel()
			ts := weatherServer(t, tc.instance)
			r := collect(t, rollout.Options{Input: weatherRows, URL: ts.URL, Door: tc.door, Instance: tc.instance})
			if r.err != nil {
				t.Fatal(r.err)
			}
			if r.sum.Succeeded != 5 || r.sum.Failed != 0 || len(r.results) != 5 || len(r.failures) != 0 {
				t.Fatalf("summary %+v, %d results, %d failures; want 5 succeeded\n%s", r.sum, len(r.results), len(r.failures), r.stdout)
			}
			for _, res := range r.results {
				if got := jsonText(t, field(t, res, "reward")); got != "1.0" {
					t.Errorf("reward %s, want 1.0: %s", got, jsonText(t, res))
				}
				out := field(t, res, "response", "output")
				if len(out.Items) != 3 {
					t.Fatalf("output %s: want function_call, function_call_output, message", jsonText(t, out))
				}
				if got := field(t, out, 0, "name").Str; got != tc.name {
					t.Errorf("function_call name %q, want %q", got, tc.name)
				}
				city := field(t, res, "verifier_metadata", "expected_city").Str
				want := `{"weather":"The weather in ` + city + ` is sunny and 72 F."}`
				if got := field(t, out, 1, "output").Str; got != want {
					t.Errorf("output %q, want %q", got, want)
				}
				if got := field(t, out, 2, "type").Str; got != "message" {
					t.Errorf("last item %q, want the recorded message", got)
				}
			}
			if want := rollout.DefaultAgentName(tc.instance, tc.door); len(r.sum.Agents) != 1 || r.sum.Agents[0].Name != want {
				t.Fatalf("agents %+v, want %s", r.sum.Agents, want)
			} else if got := jsonText(t, r.sum.Agents[0].KeyMetrics); got != `{"mean/reward":1.0,"mean/tool_call_seen":1.0,"mean/final_response_mentions_weather":1.0}` {
				t.Errorf("key metrics %s", got)
			}
		})
	}
}

// The counter rows replay their ground_truth list: both doors score 1.0.
// A call with arguments that are not JSON is not made (simple_agent's
// error output), and a tool's 4xx answer is an output, not a failure: the
// rollout then simply scores 0.
func TestCounterGroundTruth(t *testing.T) {
	t.Parallel()
	for _, door := range []rollout.Door{rollout.DoorHTTP, rollout.DoorMCP} {
		t.Run(string(door), func(t *testing.T) {
			t.Parallel()
			ts := counterServer(t, true)
			r := collect(t, rollout.Options{Input: counterRows, URL: ts.URL, Door: door, Instance: "example_session_state_mgmt_resources_server", NumRepeats: 2})
			if r.err != nil || r.sum.Succeeded != 10 || r.sum.Failed != 0 {
				t.Fatalf("err %v, summary %+v\n%s", r.err, r.sum, r.stdout)
			}
			for _, res := range r.results {
				if got := jsonText(t, field(t, res, "reward")); got != "1.0" {
					t.Errorf("reward %s: %s", got, jsonText(t, res))
				}
			}

			rows := writeRows(t,
				`{"responses_create_params":{"input":"x"},"initial_count":1,"expected_count":3,"ground_truth":[`+
					`{"name":"increment_counter","arguments":"{\"count\": 2"},`+
					`{"name":"increment_counter","arguments":"{\"count\":\"two\"}"},`+
					`{"name":"get_counter_value","arguments":{}}]}`)
			r = collect(t, rollout.Options{Input: rows, URL: ts.URL, Door: door})
			if r.err != nil || r.sum.Succeeded != 1 {
				t.Fatalf("err %v, summary %+v", r.err, r.sum)
			}
			res := r.results[0]
			if got := jsonText(t, field(t, res, "reward")); got != "0.0" {
				t.Errorf("reward %s, want 0.0", got)
			}
			out := field(t, res, "response", "output")
			want := []string{
				`{"error": "Invalid tool call arguments: JSONDecodeError(\"Expecting ',' delimiter: line 1 column 12 (char 11)\")"}`,
				`{"detail":[{"type":"int_parsing","loc":["body","count"],"msg":"Input should be a valid integer, unable to parse string as an integer","input":"two"}]}`,
				`{"count":1}`,
			}
			if door == rollout.DoorMCP {
				want[1] = `HTTP 422 from POST /increment_counter: [{"type": "int_parsing", "loc": ["count"], "msg": "Input should be a valid integer, unable to parse string as an integer", "input": "two", "url": "https://errors.pydantic.dev/2.13/v/int_parsing"}]`
			}
			for i, w := range want {
				if got := field(t, out, 2*i+1, "output").Str; got != w {
					t.Errorf("output %d:\n got %s\nwant %s", i, got, w)
				}
			}
			if got := field(t, out, 4, "arguments").Str; got != `{}` {
				t.Errorf("ground-truth arguments given as an object are replayed as their JSON text: %q", got)
			}
		})
	}
}

// Seed and verify failures and a broken connection are counted and written
// to the failures file, with gymkit's failure classes; so is a verify answer
// with its own _ng_failure_class. The run goes on, and only the successful
// rollouts are aggregated.
func TestFailuresCountedAndWritten(t *testing.T) {
	t.Parallel()
	ts, _ := flakyServer(t)
	rows := writeRows(t,
		`{"responses_create_params":{"input":"a"},"mode":"ok","ground_truth":[{"name":"echo","arguments":"{\"x\": 1}"},{"name":"teapot","arguments":"{}"}]}`,
		`{"responses_create_params":{"input":"b"},"mode":"seed_422"}`,
		`{"responses_create_params":{"input":"c"},"mode":"verify_500","ground_truth":[{"name":"echo","arguments":"{}"}]}`,
		`{"responses_create_params":{"input":"d"},"mode":"ok","ground_truth":[{"name":"echo","arguments":"{}"},{"name":"hangup","arguments":"{}"}]}`,
		`{"responses_create_params":{"input":"e"},"mode":"judge"}`,
		`{"responses_create_params":{"input":"f"},"mode":"ok"}`,
	)
	out := filepath.Join(t.TempDir(), "out.jsonl")
	r := collect(t, rollout.Options{Input: rows, Output: out, URL: ts.URL, Concurrency: 3})
	if r.err != nil {
		t.Fatal(r.err)
	}
	want := map[string]int{rollout.FailureSeed: 1, rollout.FailureVerify: 1, rollout.FailureTransport: 1, "judge_failed": 1}
	if r.sum.Succeeded != 2 || r.sum.Failed != 4 || fmt.Sprint(r.sum.ByClass) != fmt.Sprint(want) {
		t.Fatalf("summary %+v, want 2 succeeded and %v", r.sum, want)
	}
	if len(r.results) != 2 || len(r.failures) != 4 {
		t.Fatalf("%d results and %d failures written, want 2 and 4", len(r.results), len(r.failures))
	}
	byTask := map[string]framework.Value{}
	for _, f := range r.failures {
		byTask[jsonText(t, field(t, f, "_ng_task_index"))] = f
	}
	for task, w := range map[string]struct{ class, err string }{
		"1": {rollout.FailureSeed, `HTTP 422 from POST /seed_session: {"detail":"no seed for you"}`},
		"2": {rollout.FailureVerify, `HTTP 500 from POST /verify: "kaboom"`},
		"3": {rollout.FailureTransport, "tool call hangup: POST /hangup: "},
		"4": {"judge_failed", ""},
	} {
		f, ok := byTask[task]
		if !ok {
			t.Fatalf("no failure row for task %s", task)
		}
		if got := field(t, f, "_ng_failure_class").Str; got != w.class {
			t.Errorf("task %s: class %q, want %q", task, got, w.class)
		}
		if got := jsonText(t, field(t, f, "reward")); got != "0.0" {
			t.Errorf("task %s: reward %s", task, got)
		}
		if w.class == "judge_failed" {
			continue
		}
		// gymkit's failure rows have a main line's shape: the row, the
		// response so far, reward, then the failure keys.
		if got, want := keys(f), []string{"responses_create_params", "mode", "ground_truth", "agent_ref", "_ng_task_index", "_ng_rollout_index",
			"response", "reward", "_ng_failure_class", "_ng_failure_error"}; task != "1" && !slices.Equal(got, want) {
			t.Errorf("task %s: keys %v, want %v", task, got, want)
		}
		if got := field(t, f, "_ng_failure_error").Str; !strings.HasPrefix(got, w.err) {
			t.Errorf("task %s: error %q, want it to start with %q", task, got, w.err)
		}
	}
	// The transport failure keeps the calls made before it.
	if got := len(field(t, byTask["3"], "response", "output").Items); got != 3 {
		t.Errorf("the transport failure's response has %d items, want 3 (echo, its output, hangup)", got)
	}
	// The tool 418 is an output of the successful row 0.
	for _, res := range r.results {
		if jsonText(t, field(t, res, "_ng_task_index")) == "0" {
			if got := field(t, res, "response", "output", 3, "output").Str; got != `{"detail":"short and stout"}` {
				t.Errorf("teapot output %q", got)
			}
		}
	}
	// Only the two successes are aggregated.
	agg, err := framework.ParseJSON(r.aggregate)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(field(t, agg, 0, "group_level_metrics").Items); n != 2 {
		t.Errorf("%d groups aggregated, want 2", n)
	}

	// The failures file is appended to, as the collector does; the results
	// file starts afresh.
	r = collect(t, rollout.Options{Input: rows, Output: out, URL: ts.URL})
	if len(r.failures) != 8 || len(r.results) != 2 {
		t.Errorf("second run: %d failures and %d results in the files, want 8 and 2", len(r.failures), len(r.results))
	}
}

// The files and the prints have the collector's shapes (python-compat 2).
func TestOutputShapes(t *testing.T) {
	t.Parallel()
	ts := weatherServer(t, "example_mcp_weather")
	r := collect(t, rollout.Options{Input: weatherRows, URL: ts.URL, Door: rollout.DoorMCP, Instance: "example_mcp_weather", Concurrency: 1, Limit: 2})
	if r.err != nil {
		t.Fatal(r.err)
	}

	// Materialized inputs: the row's keys, then agent_ref, _ng_task_index,
	// _ng_rollout_index.
	if len(r.materialized) != 2 {
		t.Fatalf("%d materialized rows", len(r.materialized))
	}
	wantKeys := []string{"responses_create_params", "verifier_metadata", "response", "agent_ref", "_ng_task_index", "_ng_rollout_index"}
	if got := keys(r.materialized[1]); !slices.Equal(got, wantKeys) {
		t.Errorf("materialized keys %v, want %v", got, wantKeys)
	}
	if got := jsonText(t, field(t, r.materialized[1], "agent_ref")); got != `{"name":"example_mcp_weather_claude_code_agent"}` {
		t.Errorf("agent_ref %s", got)
	}
	raw, _ := os.ReadFile(r.paths.Materialized)
	in, _ := os.ReadFile(weatherRows)
	first, _, _ := strings.Cut(string(in), "\n")
	firstRow, _ := framework.ParseJSON([]byte(first))
	if got, _, _ := strings.Cut(string(raw), "\n"); !strings.HasPrefix(got, strings.TrimSuffix(jsonText(t, firstRow), "}")+`,"agent_ref":`) {
		t.Errorf("materialized line is not the compact row with the keys appended:\n%s", got)
	}

	// Results: the verify answer's keys (the weather verifier echoes the
	// row's extra keys in place), in completion order.
	res := r.results[0]
	wantKeys = []string{"responses_create_params", "response", "reward", "expected_weather", "tool_call_seen", "final_response_mentions_weather",
		"verifier_metadata", "agent_ref", "_ng_task_index", "_ng_rollout_index"}
	if got := keys(res); !slices.Equal(got, wantKeys) {
		t.Errorf("result keys %v, want %v", got, wantKeys)
	}
	// The items sent, read field by field from the echo (whose exact bytes
	// are the verify model's: pydantic fills in defaults such as "id": null).
	resp := field(t, res, "response")
	for _, c := range []struct {
		path []any
		want string
	}{
		{[]any{"id"}, `"resp_gymkit_0"`},
		{[]any{"object"}, `"response"`},
		{[]any{"output", 0, "type"}, `"function_call"`},
		{[]any{"output", 0, "name"}, `"mcp__example_mcp_weather__get_weather"`},
		{[]any{"output", 0, "arguments"}, `"{\"city\": \"Paris\"}"`},
		{[]any{"output", 0, "call_id"}, `"call_1"`},
		{[]any{"output", 0, "id"}, `"fc_gymkit_0_1"`},
		{[]any{"output", 0, "status"}, `"completed"`},
		{[]any{"output", 1, "type"}, `"function_call_output"`},
		{[]any{"output", 1, "call_id"}, `"call_1"`},
		{[]any{"output", 1, "output"}, `"{\"weather\":\"The weather in Paris is sunny and 72 F.\"}"`},
		{[]any{"output", 2, "id"}, `"msg_rec_0"`},
		{[]any{"output", 2, "status"}, `"completed"`},
	} {
		if got := jsonText(t, field(t, resp, c.path...)); got != c.want {
			t.Errorf("response%v = %s, want %s", c.path, got, c.want)
		}
	}
	if got := field(t, resp, "model").Str; got != "claude-sonnet-4-5" {
		t.Errorf("model %q: want the recorded one", got)
	}

	// The aggregate metrics file: orjson OPT_INDENT_2, no trailing newline,
	// one entry per agent, keys agent_ref, agent_metrics, key_metrics,
	// group_level_metrics; its metrics are /aggregate_metrics' answer for the
	// stripped results.
	if !bytes.HasPrefix(r.aggregate, []byte("[\n  {\n    \"agent_ref\": {\n      \"name\": \"example_mcp_weather_claude_code_agent\"\n    },\n    \"agent_metrics\": {\n      \"mean/reward\": 1.0,\n")) ||
		!bytes.HasSuffix(r.aggregate, []byte("\n        ]\n      }\n    ]\n  }\n]")) {
		t.Errorf("aggregate file layout:\n%s", r.aggregate)
	}
	agg, err := framework.ParseJSON(r.aggregate)
	if err != nil {
		t.Fatal(err)
	}
	if got := keys(field(t, agg, 0)); !slices.Equal(got, []string{"agent_ref", "agent_metrics", "key_metrics", "group_level_metrics"}) {
		t.Errorf("aggregate entry keys %v", got)
	}
	var stripped []string
	for _, res := range sortedByIndex(t, r.results) {
		stripped = append(stripped, jsonText(t, without(res, "response", "responses_create_params")))
	}
	direct := ts.Rollout().Post("/aggregate_metrics", `{"verify_responses":[`+strings.Join(stripped, ",")+`]}`)
	want, _ := framework.ParseJSON(direct.Body)
	for _, k := range []string{"agent_metrics", "key_metrics", "group_level_metrics"} {
		if got, want := jsonText(t, field(t, agg, 0, k)), jsonText(t, field(t, want, k)); got != want {
			t.Errorf("%s in the file:\n%s\nwant /aggregate_metrics' answer:\n%s", k, got, want)
		}
	}

	// The prints.
	wantOut := "Limiting the number of rows to 2\n" +
		"Repeating rows 1 times (in a pattern of abc to aabbcc)!\n" +
		"Clearing output fpath since `resume_from_cache=False`!\n" +
		"Querying with 1 concurrent requests\n"
	if !strings.HasPrefix(r.stdout, wantOut) {
		t.Errorf("stdout starts:\n%s\nwant:\n%s", r.stdout, wantOut)
	}
	wantOut = "Sorting results to ensure consistent ordering\n" +
		"Computing aggregate metrics\n" +
		"\nKey metrics for example_mcp_weather_claude_code_agent:\n" +
		"{\n    \"mean/reward\": 1.0,\n    \"mean/tool_call_seen\": 1.0,\n    \"mean/final_response_mentions_weather\": 1.0\n}\n" +
		"Finished rollout collection! View results at:\n" +
		"Fully materialized inputs: " + r.paths.Materialized + "\n" +
		"Rollouts: " + r.paths.Results + "\n" +
		"Aggregate metrics: " + r.paths.Aggregate + "\n"
	if !strings.HasSuffix(r.stdout, wantOut) {
		t.Errorf("stdout ends:\n%s\nwant:\n%s", r.stdout, wantOut)
	}
	if !strings.Contains(r.stdout, "Finished 1 / 2 rollouts (50%) in 0:00:00 (") ||
		!strings.Contains(r.stdout, " rollouts/min). Examples left:\n1. example_mcp_weather_claude_code_agent: 1\nFound 1 / 2 (50.00%) rollouts for `example_mcp_weather_claude_code_agent`.\n{\n    \"reward\": 1.0,\n") {
		t.Errorf("progress lines:\n%s", r.stdout)
	}
}

func sortedByIndex(t *testing.T, rs []framework.Value) []framework.Value {
	out := slices.Clone(rs)
	slices.SortFunc(out, func(a, b framework.Value) int {
		return strings.Compare(jsonText(t, field(t, a, "_ng_task_index")), jsonText(t, field(t, b, "_ng_task_index")))
	})
	return out
}

func without(v framework.Value, drop ...string) framework.Value {
	out := framework.ObjectValue()
	for _, m := range v.Members {
		if !slices.Contains(drop, m.Key) {
			out.Members = append(out.Members, m)
		}
	}
	return out
}

// --limit, --num-repeats and the task indexes: task-major, identical lines
// share a task (rollouts keep counting), a row's own _ng_task_index is kept,
// and the concurrency does not change what is written.
func TestLimitRepeatsConcurrency(t *testing.T) {
	t.Parallel()
	ts := counterServer(t, false)
	a := `{"responses_create_params":{"input":"a"},"initial_count":1,"expected_count":1}`
	rows := writeRows(t, a,
		`{"responses_create_params":{"input":"b"},"initial_count":2,"expected_count":2,"_ng_task_index":7}`,
		a,
		"",
		`{"responses_create_params":{"input":"c"},"initial_count":3,"expected_count":3}`,
		`{"responses_create_params":{"input":"d"},"initial_count":4,"expected_count":4}`)
	var outs []string
	for _, c := range []int{1, 4} {
		r := collect(t, rollout.Options{Input: rows, URL: ts.URL, Limit: 4, NumRepeats: 2, Concurrency: c})
		if r.err != nil || r.sum.Total != 8 || r.sum.Succeeded != 8 {
			t.Fatalf("concurrency %d: err %v, summary %+v", c, r.err, r.sum)
		}
		var idx []string
		for _, m := range r.materialized {
			idx = append(idx, jsonText(t, field(t, m, "_ng_task_index"))+":"+jsonText(t, field(t, m, "_ng_rollout_index")))
		}
		if want := "[0:0 0:1 7:0 7:1 0:2 0:3 1:0 1:1]"; fmt.Sprint(idx) != want {
			t.Errorf("materialized indexes %v, want %s", idx, want)
		}
		var lines []string
		for _, res := range r.results {
			res = without(res, "response")
			lines = append(lines, jsonText(t, res))
		}
		slices.Sort(lines)
		outs = append(outs, strings.Join(lines, "\n"))
		agg, _ := framework.ParseJSON(r.aggregate)
		var tasks []string
		for _, g := range field(t, agg, 0, "group_level_metrics").Items {
			tasks = append(tasks, jsonText(t, field(t, g, "_ng_task_index"))+"x"+jsonText(t, field(t, g, "num_rollouts")))
		}
		if want := "[0x4 1x2 7x2]"; fmt.Sprint(tasks) != want {
			t.Errorf("groups %v, want %s", tasks, want)
		}
	}
	if outs[0] != outs[1] {
		t.Errorf("concurrency 1 and 4 wrote different results:\n%s\n---\n%s", outs[0], outs[1])
	}
}

// --door mcp against an instance without MCP: the run stops at the first
// seed answer without an "mcp" key, with one *NoMCPError; no rollout is
// written as a failure, and nothing is aggregated.
func TestMCPDoorWithoutMCP(t *testing.T) {
	t.Parallel()
	ts := counterServer(t, false)
	r := collect(t, rollout.Options{Input: counterRows, URL: ts.URL, Door: rollout.DoorMCP, Limit: 2, Concurrency: 1})
	var noMCP *rollout.NoMCPError
	if !errors.As(r.err, &noMCP) || noMCP.URL != ts.URL || r.sum.Failed != 0 || r.sum.NotRun != 2 || len(r.failures) != 0 {
		t.Fatalf("err %v, summary %+v, failures %v", r.err, r.sum, r.failures)
	}
	want := "--door mcp: the instance at " + ts.URL + ` does not serve MCP: its /seed_session answer has no "mcp" key (set expose_tools_over_mcp: true in its config, or use --door http)`
	if r.err.Error() != want {
		t.Errorf("error %q, want %q", r.err, want)
	}
	if r.aggregate != nil {
		t.Errorf("no aggregate file expected without results:\n%s", r.stdout)
	}
}

// A done context stops the run: the rollouts cut off are written nowhere,
// and nothing is aggregated.
func TestInterrupted(t *testing.T) {
	t.Parallel()
	ts, srv := flakyServer(t)
	rows := writeRows(t,
		`{"responses_create_params":{"input":"a"},"ground_truth":[{"name":"block","arguments":"{}"}]}`,
		`{"responses_create_params":{"input":"b"},"ground_truth":[{"name":"block","arguments":"{}"}]}`)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-srv.blocked; cancel() }()
	var stdout bytes.Buffer
	out := filepath.Join(t.TempDir(), "out.jsonl")
	sum, err := rollout.Run(ctx, rollout.Options{Input: rows, Output: out, URL: ts.URL, Concurrency: 1, Stdout: &stdout})
	if err != nil {
		t.Fatal(err)
	}
	if sum.NotRun != 2 || sum.Failed != 0 || sum.Succeeded != 0 || sum.Aggregated {
		t.Errorf("summary %+v", sum)
	}
	if !strings.Contains(stdout.String(), "Interrupted: 2 of 2 rollouts not run") {
		t.Errorf("stdout:\n%s", stdout.String())
	}
	if b, _ := os.ReadFile(out); len(b) != 0 {
		t.Errorf("results written: %s", b)
	}
}

// Input problems are *InputError, found before anything runs.
func TestInputErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct{ content, want string }{
		{"", "no rows"},
		{"{}\n", "line 1: the row has no responses_create_params object"},
		{`{"responses_create_params":{}}` + "\n[1]\n", "line 2: not a JSON object"},
		{`{"responses_create_params":{}}` + "\n{\n", "line 2: not JSON: Expecting property name enclosed in double quotes: line 2 column 1 (char 2)"},
	} {
		p := filepath.Join(dir, fmt.Sprintf("rows%d.jsonl", len(tc.want)))
		if err := os.WriteFile(p, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := rollout.Run(context.Background(), rollout.Options{Input: p, Output: filepath.Join(dir, "out.jsonl"), URL: "http://127.0.0.1:1"})
		var ie *rollout.InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want an InputError containing %q", tc.content, err, tc.want)
		}
	}
	_, err := rollout.Run(context.Background(), rollout.Options{Input: weatherRows, Output: weatherRows, URL: "http://127.0.0.1:1"})
	if !strings.Contains(fmt.Sprint(err), "would overwrite the input") {
		t.Errorf("output = input: %v", err)
	}
}

func TestPathsFor(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]rollout.Paths{
		"/tmp/out.jsonl": {"/tmp/out.jsonl", "/tmp/out_materialized_inputs.jsonl", "/tmp/out_failures.jsonl", "/tmp/out_aggregate_metrics.json"},
		"res":            {"res", "res_materialized_inputs.jsonl", "res_failures.jsonl", "res_aggregate_metrics.json"},
		"a/b.c.json":     {"a/b.c.json", "a/b.c_materialized_inputs.jsonl", "a/b.c_failures.jsonl", "a/b.c_aggregate_metrics.json"},
		".hidden":        {".hidden", ".hidden_materialized_inputs.jsonl", ".hidden_failures.jsonl", ".hidden_aggregate_metrics.json"},
	} {
		if got := rollout.PathsFor(in); got != want {
			t.Errorf("PathsFor(%q) = %+v, want %+v", in, got, want)
		}
	}
}
