package rollout

import (
	"bytes"
	"net/http"
	"testing"
	"time"

	"github.com/gymkit/gymkit/framework"
)

func parse(t *testing.T, s string) framework.Value {
	t.Helper()
	v, err := framework.ParseJSON([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// indented writes json.dumps(indent=4) (ensure_ascii, Python floats) and
// orjson OPT_INDENT_2 (raw UTF-8) layouts; the expected texts are what
// CPython 3.13 and orjson 3.11 print for the same value.
func TestIndented(t *testing.T) {
	t.Parallel()
	v := parse(t, `{"mean/r\u00e9ward":1.0,"n":3,"small":1e-05,"empty":{},"list":[],"nested":[{"a":null,"b":true}],"s":"a\"b"}`)
	got, err := indented(v, 4, framework.JSONPythonDumps)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n" +
		"    \"mean/r\\u00e9ward\": 1.0,\n" +
		"    \"n\": 3,\n" +
		"    \"small\": 1e-05,\n" +
		"    \"empty\": {},\n" +
		"    \"list\": [],\n" +
		"    \"nested\": [\n" +
		"        {\n" +
		"            \"a\": null,\n" +
		"            \"b\": true\n" +
		"        }\n" +
		"    ],\n" +
		"    \"s\": \"a\\\"b\"\n" +
		"}"
	if string(got) != want {
		t.Errorf("indent 4:\n%s\nwant:\n%s", got, want)
	}
	got, err = indented(parse(t, `[{"agent_ref":{"name":"\u00e9"},"m":{}}]`), 2, framework.JSONPydantic)
	if err != nil {
		t.Fatal(err)
	}
	want = "[\n  {\n    \"agent_ref\": {\n      \"name\": \"\u00e9\"\n    },\n    \"m\": {}\n  }\n]"
	if string(got) != want {
		t.Errorf("indent 2:\n%s\nwant:\n%s", got, want)
	}
}

// The collector's progress lines, at each new whole percent (and 99.5%),
// with the running averages of the numeric fields not starting with "_".
func TestNemoProgress(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := start
	var rows []framework.Value
	for i := range 200 {
		agent := "a"
		if i%4 == 3 {
			agent = "b"
		}
		rows = append(rows, parse(t, `{"agent_ref":{"name":"`+agent+`"}}`))
	}
	var out bytes.Buffer
	p := newNemoProgress(&out, []agentCount{{"a", 50}, {"b", 50}, {"a", 100}}, func() time.Time { return clock })
	clock = start.Add(3723 * time.Second)
	p.done(rows[0], parse(t, `{"reward":1.0,"ok":true,"_ng_task_index":0,"name":"x","n":3}`))
	if out.Len() != 0 {
		t.Fatalf("printed at 0.5%%:\n%s", out.String())
	}
	p.done(rows[1], parse(t, `{"reward":0.0,"ok":false,"n":4}`))
	want := "Finished 2 / 200 rollouts (1%) in 1:02:03 (0.03 rollouts/min). Examples left:\n" +
		"1. a: 148\n" +
		"2. b: 50\n" +
		"Found 2 / 150 (1.33%) rollouts for `a`.\n" +
		"{\n    \"reward\": 0.5,\n    \"ok\": 0.5,\n    \"n\": 3.5\n}\n"
	if out.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", out.String(), want)
	}
	out.Reset()
	for i := 2; i < 199; i++ {
		p.done(rows[i], parse(t, `{}`))
	}
	if !bytes.Contains(out.Bytes(), []byte("Finished 199 / 200 rollouts (99%) in ")) {
		t.Errorf("no 99.5%% line:\n%s", out.String())
	}
	out.Reset()
	p.done(rows[199], parse(t, `{}`))
	if !bytes.HasPrefix(out.Bytes(), []byte("Finished 200 / 200 rollouts (100%) in 1:02:03 (3.22 rollouts/min). Examples left:\nFound 150 / 150 (100.00%) rollouts for `a`.\n")) {
		t.Errorf("last lines:\n%s", out.String())
	}
}

// materialize follows the collector: agent_ref only when missing, task
// indexes by raw line (the trailing newline included, as Python iterates
// lines), rollout indexes per task.
func TestMaterialize(t *testing.T) {
	t.Parallel()
	in := []inputRow{
		{raw: "{\"responses_create_params\":{}}\n", row: parse(t, `{"responses_create_params":{}}`)},
		{raw: "{\"responses_create_params\":{},\"agent_ref\":{\"type\":\"responses_api_agents\",\"name\":\"x\"}}\n",
			row: parse(t, `{"responses_create_params":{},"agent_ref":{"type":"responses_api_agents","name":"x"}}`)},
		{raw: "{\"responses_create_params\":{}}\n", row: parse(t, `{"responses_create_params":{}}`)},
		{raw: "{\"responses_create_params\":{}}", row: parse(t, `{"responses_create_params":{}}`)},
		{raw: "x", row: parse(t, `{"_ng_rollout_index":9,"responses_create_params":{},"_ng_task_index":"t"}`)},
	}
	var got []string
	for _, r := range materialize(in, 1, "ag") {
		got = append(got, text(r))
	}
	want := []string{
		`{"responses_create_params":{},"agent_ref":{"name":"ag"},"_ng_task_index":0,"_ng_rollout_index":0}`,
		`{"responses_create_params":{},"agent_ref":{"type":"responses_api_agents","name":"x"},"_ng_task_index":1,"_ng_rollout_index":0}`,
		`{"responses_create_params":{},"agent_ref":{"name":"ag"},"_ng_task_index":0,"_ng_rollout_index":1}`,
		`{"responses_create_params":{},"agent_ref":{"name":"ag"},"_ng_task_index":2,"_ng_rollout_index":0}`,
		`{"_ng_rollout_index":0,"responses_create_params":{},"_ng_task_index":"t","agent_ref":{"name":"ag"}}`,
	}
	for i := range want {
		if i >= len(got) || got[i] != want[i] {
			t.Errorf("row %d:\n got %v\nwant %s", i, got, want[i])
			break
		}
	}
}

// strip removes the heavy keys and keeps a truthy usage as the last key.
func TestStrip(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`{"response":{"usage":{"input_tokens":3}},"reward":1.0,"ng_trajectory":[],"responses_create_params":{},"x":1}`: `{"reward":1.0,"x":1,"response":{"usage":{"input_tokens":3}}}`,
		`{"response":{"usage":{}},"reward":1.0}`:                               `{"reward":1.0}`,
		`{"response":{"usage":null},"reward":1.0}`:                             `{"reward":1.0}`,
		`{"reward":1.0,"ng_model_call_capture":{},"ng_agent_observations":[]}`: `{"reward":1.0}`,
	} {
		if got := text(strip(parse(t, in))); got != want {
			t.Errorf("strip(%s) = %s, want %s", in, got, want)
		}
	}
}

// TestCookiesReplacedByEachAnswer: the jar takes each answer's Set-Cookie and
// is emptied by an answer without one (Python's unhandled 500), as NeMo's
// agents do.
func TestCookiesReplacedByEachAnswer(t *testing.T) {
	t.Parallel()
	answer := func(setCookies ...string) *http.Response {
		h := http.Header{}
		for _, c := range setCookies {
			h.Add("Set-Cookie", c)
		}
		return &http.Response{Header: h}
	}
	var j cookies
	j.update(answer("a___b=1; Path=/; HttpOnly"))
	if j.header != "a___b=1" {
		t.Fatalf("after the first answer: %q", j.header)
	}
	j.update(answer("a___b=2; Path=/"))
	if j.header != "a___b=2" {
		t.Errorf("after the second answer: %q, want a___b=2", j.header)
	}
	j.update(answer())
	if j.header != "" {
		t.Errorf("after an answer without Set-Cookie: %q, want an empty jar", j.header)
	}
}
