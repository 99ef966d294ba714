package examplemcpweather_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/gymkit/gymkit/server/servertest"
	weather "github.com/gymkit/gymkit/servers/example_mcp_weather"
)

// dataPath returns a path under ../shared/data/nemo-gym from the project root.
func dataPath(t *testing.T, rel string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	p := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "data", "nemo-gym", rel)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("shared data missing: %v", err)
	}
	return p
}

func newServer(t *testing.T) *servertest.Server {
	return servertest.New(t, new(weather.Weather), servertest.Options{ServerType: weather.Name, Name: weather.Name})
}

// response builds a Responses API response with the given output items.
func response(output ...any) map[string]any {
	if output == nil {
		output = []any{}
	}
	return map[string]any{
		"id": "resp_1", "created_at": 0.0, "model": "m", "object": "response",
		"output": output, "parallel_tool_calls": false, "tool_choice": "auto", "tools": []any{},
	}
}

func assistant(text string) map[string]any {
	return map[string]any{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
		"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}}
}

func rcp() map[string]any {
	return map[string]any{"input": []any{map[string]any{"role": "user", "content": "weather in Paris?"}}, "tools": []any{}}
}

type verifyResult struct {
	Reward                       float64 `json:"reward"`
	ExpectedWeather              string  `json:"expected_weather"`
	ToolCallSeen                 bool    `json:"tool_call_seen"`
	FinalResponseMentionsWeather bool    `json:"final_response_mentions_weather"`
}

func verify(t *testing.T, ro *servertest.Rollout, body map[string]any) verifyResult {
	t.Helper()
	res := ro.Post("/verify", body)
	if res.Status != 200 {
		t.Fatalf("verify: %d %s", res.Status, res.Body)
	}
	var v verifyResult
	if err := json.Unmarshal(res.Body, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestRolloutRewardsTheCallInItsOwnSession(t *testing.T) {
	t.Parallel()
	ts := newServer(t)
	a := ts.Rollout()
	if res := a.Post("/seed_session", `{"verifier_metadata":{"expected_city":"Paris"}}`); res.Status != 200 || string(res.Body) != `{}` {
		t.Fatalf("seed: %d %s", res.Status, res.Body)
	}
	res := a.Post("/get_weather", `{"city":"Paris"}`)
	if want := `{"weather":"The weather in Paris is sunny and 72 F."}`; res.Status != 200 || string(res.Body) != want {
		t.Fatalf("get_weather: %d %s, want 200 %s", res.Status, res.Body, want)
	}
	body := map[string]any{
		"responses_create_params": rcp(),
		"response":                response(assistant("The weather in Paris is sunny and 72 F.")),
		"verifier_metadata":       map[string]any{"expected_city": "Paris"},
	}
	if got := verify(t, a, body); got.Reward != 1.0 || !got.ToolCallSeen || !got.FinalResponseMentionsWeather {
		t.Errorf("same session: %+v, want reward 1.0", got)
	}

	// The same trajectory verified from another session scores 0.0.
	b := ts.Rollout()
	b.Post("/seed_session", `{"verifier_metadata":{"expected_city":"Paris"}}`)
	if got := verify(t, b, body); got.Reward != 0.0 || got.ToolCallSeen {
		t.Errorf("other session: %+v, want reward 0.0 and no tool call seen", got)
	}
}

func TestEdgeCases(t *testing.T) {
	t.Parallel()
	ts := newServer(t)
	cases := []struct {
		name      string
		calls     []string
		reseed    bool
		final     string
		wantSeen  bool
		wantMent  bool
		wantScore float64
	}{
		{"different case city", []string{`{"city":"PARIS"}`}, false, "The weather in PARIS is sunny and 72 F.", true, true, 1},
		{"case-folded mention", []string{`{"city":"Paris"}`}, false, "the WEATHER in paris is SUNNY and 72 f. Enjoy!", true, true, 1},
		{"reseed forgets calls", []string{`{"city":"Paris"}`}, true, "The weather in Paris is sunny and 72 F.", false, true, 0},
		{"no mention", []string{`{"city":"Paris"}`}, false, "It is nice.", true, false, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ro := ts.Rollout()
			ro.Post("/seed_session", `{"verifier_metadata":{"expected_city":"Paris"}}`)
			for _, call := range c.calls {
				if res := ro.Post("/get_weather", call); res.Status != 200 {
					t.Fatalf("get_weather: %d %s", res.Status, res.Body)
				}
			}
			if c.reseed {
				ro.Post("/seed_session", `{"verifier_metadata":{"expected_city":"Paris"}}`)
			}
			got := verify(t, ro, map[string]any{
				"responses_create_params": rcp(), "response": response(assistant(c.final)),
				"verifier_metadata": map[string]any{"expected_city": "Paris"},
			})
			if got.ToolCallSeen != c.wantSeen || got.FinalResponseMentionsWeather != c.wantMent || got.Reward != c.wantScore {
				t.Errorf("got %+v, want seen=%v mentions=%v reward=%v", got, c.wantSeen, c.wantMent, c.wantScore)
			}
		})
	}
}

// TestExampleRows seeds each row of NeMo's example.jsonl, calls the tool for
// its expected city, answers with the sentence and verifies: reward 1.0.
func TestExampleRows(t *testing.T) {
	t.Parallel()
	ts := newServer(t)
	f, err := os.Open(dataPath(t, "example_mcp_weather/example.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	rows := 0
	for sc.Scan() {
		rows++
		var row map[string]any
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatal(err)
		}
		city := row["verifier_metadata"].(map[string]any)["expected_city"].(string)
		ro := ts.Rollout()
		if res := ro.Post("/seed_session", sc.Bytes()); res.Status != 200 {
			t.Fatalf("row %d seed: %d %s", rows, res.Status, res.Body)
		}
		args, _ := json.Marshal(map[string]string{"city": city})
		res := ro.Post("/get_weather", args)
		var out struct{ Weather string }
		if err := json.Unmarshal(res.Body, &out); err != nil || res.Status != 200 {
			t.Fatalf("row %d get_weather: %d %s", rows, res.Status, res.Body)
		}
		row["response"] = response(
			map[string]any{"type": "function_call", "name": "get_weather", "arguments": string(args), "call_id": "c1"},
			map[string]any{"type": "function_call_output", "call_id": "c1", "output": string(res.Body)},
			assistant(out.Weather),
		)
		if got := verify(t, ro, row); got.Reward != 1.0 {
			t.Errorf("row %d (%s): %+v, want reward 1.0", rows, city, got)
		}
	}
	if rows != 5 {
		t.Errorf("read %d rows, want 5", rows)
	}
}

// TestWireAnswers pins the exact bodies of small-servers.md section 1.
func TestWireAnswers(t *testing.T) {
	t.Parallel()
	ts := newServer(t)
	resp := `{"id":"r","created_at":0.0,"model":"m","object":"response","output":[],"parallel_tool_calls":false,"tool_choice":"auto","tools":[]}`
	// The echo is pydantic's model_dump() of both models: defaults filled, in
	// model field order (nemo-gym-peer example_mcp_weather.jsonl, verify steps).
	const rcpDump = `{"background":null,"include":null,"input":"x","instructions":null,"max_output_tokens":null,"max_tool_calls":null,"metadata":null,"model":null,"parallel_tool_calls":true,"previous_response_id":null,"prompt":null,"reasoning":null,"service_tier":null,"store":null,"temperature":null,"text":null,"tool_choice":"auto","tools":[],"top_logprobs":null,"top_p":null,"truncation":null,"user":null,"stream":null}`
	const respDump = `{"id":"r","created_at":0.0,"error":null,"incomplete_details":null,"instructions":null,"metadata":null,"model":"m","object":"response","output":[],"parallel_tool_calls":false,"temperature":null,"tool_choice":"auto","tools":[],"top_p":null,"background":null,"conversation":null,"max_output_tokens":null,"max_tool_calls":null,"previous_response_id":null,"prompt":null,"prompt_cache_key":null,"reasoning":null,"safety_identifier":null,"service_tier":null,"status":null,"text":null,"top_logprobs":null,"truncation":null,"usage":null,"user":null}`
	cases := []struct {
		name, path, body string
		status           int
		want             string
	}{
		{"city is a number", "/get_weather", `{"city":5}`, 422, `{"detail":[{"type":"string_type","loc":["body","city"],"msg":"Input should be a valid string","input":5}]}`},
		{"city missing", "/get_weather", `{}`, 422, `{"detail":[{"type":"missing","loc":["body","city"],"msg":"Field required","input":{}}]}`},
		{"city verbatim", "/get_weather", `{"city":" São Paulo <&>","extra":1}`, 200, `{"weather":"The weather in  São Paulo <&> is sunny and 72 F."}`},
		{"seed metadata not an object", "/seed_session", `{"verifier_metadata":5}`, 422, `{"detail":[{"type":"dict_type","loc":["body","verifier_metadata"],"msg":"Input should be a valid dictionary","input":5}]}`},
		{"seed any row", "/seed_session", `{"responses_create_params":{"input":"x"},"_ng_task_index":3}`, 200, `{}`},
		{"verify null expected city", "/verify", `{"responses_create_params":{"input":"x"},"response":` + resp + `,"verifier_metadata":{"expected_city":null}}`, 500, `"AttributeError(\"'NoneType' object has no attribute 'casefold'\")"`},
		{"verify int expected city", "/verify", `{"responses_create_params":{"input":"x"},"response":` + resp + `,"verifier_metadata":{"expected_city":7}}`, 500, `"AttributeError(\"'int' object has no attribute 'casefold'\")"`},
		{"verify echo order", "/verify", `{"zz":1,"responses_create_params":{"input":"x"},"response":` + resp + `,"aa":[true]}`, 200,
			`{"responses_create_params":` + rcpDump + `,"response":` + respDump + `,"reward":0.0,"expected_weather":"The weather in Paris is sunny and 72 F.","tool_call_seen":false,"final_response_mentions_weather":false,"verifier_metadata":null,"zz":1,"aa":[true]}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			res := ts.Rollout().Post(c.path, c.body)
			if res.Status != c.status || string(res.Body) != c.want {
				t.Errorf("got %d %s\nwant %d %s", res.Status, res.Body, c.status, c.want)
			}
		})
	}
}
