package framework_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/server/servertest"
)

// modelServer's verify answer reports the typed view the handler gets.
type modelServer struct{ framework.Base }

type modelVerifyResp struct {
	framework.VerifyResponse
	Calls             []string        `json:"calls"`
	Text              string          `json:"text"`
	ParallelToolCalls framework.Value `json:"parallel_tool_calls"`
	IDs               []string        `json:"ids"`
	FirstItem         framework.Value `json:"first_item"`
}

func (s *modelServer) Routes(r *framework.Router) {
	framework.Verify(r, func(_ context.Context, req framework.VerifyRequest) (modelVerifyResp, error) {
		resp := modelVerifyResp{
			Calls:             []string{},
			Text:              req.Response.AssistantText(),
			ParallelToolCalls: req.ResponsesCreateParams.ParallelToolCalls,
			IDs:               []string{},
		}
		for _, c := range req.Response.FunctionCalls() {
			resp.Calls = append(resp.Calls, c.Name)
		}
		for _, it := range req.Response.Output {
			resp.IDs = append(resp.IDs, it.ID)
		}
		if len(req.Response.Output) > 0 {
			resp.FirstItem = req.Response.Output[0].Dump
		}
		resp.Reward = 1
		return resp, nil
	})
}

func verifyBody(output string) string {
	return `{"responses_create_params":{"input":"What is the weather in Paris?"},"response":{"id":"resp_1","created_at":0,"model":"demo","object":"response","parallel_tool_calls":false,"tool_choice":"auto","tools":[],"output":` + output + `}}`
}

func decodeDetail(t *testing.T, body []byte) []struct {
	Type string `json:"type"`
	Loc  []any  `json:"loc"`
	Msg  string `json:"msg"`
} {
	t.Helper()
	var d struct {
		Detail []struct {
			Type string `json:"type"`
			Loc  []any  `json:"loc"`
			Msg  string `json:"msg"`
		} `json:"detail"`
	}
	if err := json.Unmarshal(body, &d); err != nil {
		t.Fatalf("422 body: %v: %s", err, body)
	}
	return d.Detail
}

// NeMo's agents send function_call_output items with "id": null and
// "status": null (model_dump of the pydantic item); Python accepts them and
// echoes the nulls (example_mcp_weather.jsonl, "verify with function_call_output
// id/status null").
func TestVerifyAcceptsNullIDAndStatus(t *testing.T) {
	t.Parallel()
	ts := servertest.New(t, new(modelServer), servertest.Options{ServerType: "models", Name: "models"})
	body := verifyBody(`[{"arguments":"{\"city\":\"Paris\"}","call_id":"call_1","name":"get_weather","type":"function_call","id":null,"status":null},` +
		`{"call_id":"call_1","output":"sunny","type":"function_call_output","id":null,"status":null},` +
		`{"id":"msg_1","content":[{"annotations":[],"text":"It is sunny.","type":"output_text","logprobs":null}],"role":"assistant","status":"completed","type":"message"}]`)
	res := ts.Rollout().Post("/verify", body)
	if res.Status != 200 {
		t.Fatalf("status %d: %s", res.Status, res.Body)
	}
	wantOutput := `"output":[{"arguments":"{\"city\":\"Paris\"}","call_id":"call_1","name":"get_weather","type":"function_call","id":null,"status":null},` +
		`{"call_id":"call_1","output":"sunny","type":"function_call_output","id":null,"status":null},` +
		`{"id":"msg_1","content":[{"annotations":[],"text":"It is sunny.","type":"output_text","logprobs":null}],"role":"assistant","status":"completed","type":"message"}]`
	if !strings.Contains(string(res.Body), wantOutput) {
		t.Errorf("echo lacks the output as dumped:\n got %s\nwant ...%s...", res.Body, wantOutput)
	}
	for _, want := range []string{`"calls":["get_weather"]`, `"text":"It is sunny."`, `"ids":["","","msg_1"]`} {
		if !strings.Contains(string(res.Body), want) {
			t.Errorf("typed view: want %s in %s", want, res.Body)
		}
	}
}

// The echo is model_dump(): every field in model order, defaults filled
// (parallel_tool_calls true, tool_choice "auto", tools []), nulls for the
// other optional fields, created_at a float, logprobs null in output_text
// parts (every 200 /verify of the goldens).
func TestVerifyEchoFillsDefaults(t *testing.T) {
	t.Parallel()
	ts := servertest.New(t, new(modelServer), servertest.Options{ServerType: "models", Name: "models"})
	res := ts.Rollout().Post("/verify", verifyBody(`[{"id":"msg_1","type":"message","role":"assistant","status":"completed","content":[{"type":"output_text","text":"hi","annotations":[]}]}]`))
	if res.Status != 200 {
		t.Fatalf("status %d: %s", res.Status, res.Body)
	}
	want := `{"responses_create_params":{"background":null,"include":null,"input":"What is the weather in Paris?","instructions":null,"max_output_tokens":null,"max_tool_calls":null,"metadata":null,"model":null,"parallel_tool_calls":true,"previous_response_id":null,"prompt":null,"reasoning":null,"service_tier":null,"store":null,"temperature":null,"text":null,"tool_choice":"auto","tools":[],"top_logprobs":null,"top_p":null,"truncation":null,"user":null,"stream":null},` +
		`"response":{"id":"resp_1","created_at":0.0,"error":null,"incomplete_details":null,"instructions":null,"metadata":null,"model":"demo","object":"response","output":[{"id":"msg_1","content":[{"annotations":[],"text":"hi","type":"output_text","logprobs":null}],"role":"assistant","status":"completed","type":"message"}],"parallel_tool_calls":false,"temperature":null,"tool_choice":"auto","tools":[],"top_p":null,"background":null,"conversation":null,"max_output_tokens":null,"max_tool_calls":null,"previous_response_id":null,"prompt":null,"prompt_cache_key":null,"reasoning":null,"safety_identifier":null,"service_tier":null,"status":null,"text":null,"top_logprobs":null,"truncation":null,"usage":null,"user":null},` +
		`"reward":1.0,"calls":[],"text":"hi","parallel_tool_calls":true,"ids":["msg_1"],"first_item":{"id":"msg_1","content":[{"annotations":[],"text":"hi","type":"output_text","logprobs":null}],"role":"assistant","status":"completed","type":"message"}}`
	if string(res.Body) != want {
		t.Errorf("echo\n got %s\nwant %s", res.Body, want)
	}
}

// An assistant message item without id and status matches no member of
// NeMo's output item union: Python answers pydantic's smart-union error list,
// 115 items naming each member (example_mcp_weather.jsonl, "verify matching").
func TestVerifyRefusesMessageWithoutID(t *testing.T) {
	t.Parallel()
	ts := servertest.New(t, new(modelServer), servertest.Options{ServerType: "models", Name: "models"})
	res := ts.Rollout().Post("/verify", verifyBody(`[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"The weather in Paris is sunny and 72 F."}]}]`))
	if res.Status != 422 {
		t.Fatalf("status %d, want 422: %s", res.Status, res.Body)
	}
	items := decodeDetail(t, res.Body)
	if len(items) != 115 {
		t.Fatalf("%d items, want 115", len(items))
	}
	loc, _ := json.Marshal(items[0].Loc)
	if want := `["body","response","output",0,"NeMoGymEasyInputMessage","content","str"]`; string(loc) != want || items[0].Type != "string_type" {
		t.Errorf("first item %s %s, want string_type %s", items[0].Type, loc, want)
	}
	loc, _ = json.Marshal(items[1].Loc)
	if want := `["body","response","output",0,"NeMoGymEasyInputMessage","content","list[function-before[_validate_input_video_part(), union[ResponseInputTextParam,ResponseInputImageParam,ResponseInputFileParam,NeMoGymInputVideoPart]]]",0,"ResponseInputTextParam","type"]`; string(loc) != want || items[1].Type != "literal_error" {
		t.Errorf("second item %s %s, want literal_error %s", items[1].Type, loc, want)
	}
	var missingID bool
	for _, it := range items {
		l, _ := json.Marshal(it.Loc)
		if string(l) == `["body","response","output",0,"NeMoGymResponseOutputMessage","id"]` && it.Type == "missing" {
			missingID = true
		}
	}
	if !missingID {
		t.Error("no missing item for NeMoGymResponseOutputMessage.id")
	}
}

// An unknown item type is refused with every member's errors: 99 items
// (example_mcp_weather.jsonl, "verify bad output item").
func TestVerifyRefusesUnknownItemType(t *testing.T) {
	t.Parallel()
	ts := servertest.New(t, new(modelServer), servertest.Options{ServerType: "models", Name: "models"})
	res := ts.Rollout().Post("/verify", verifyBody(`[{"type":"bogus"}]`))
	if res.Status != 422 {
		t.Fatalf("status %d, want 422: %s", res.Status, res.Body)
	}
	items := decodeDetail(t, res.Body)
	if len(items) != 99 {
		t.Fatalf("%d items, want 99", len(items))
	}
	last := items[len(items)-1]
	loc, _ := json.Marshal(last.Loc)
	if want := `["body","response","output",0,"NeMoGymResponseReasoningItemForTraining","type"]`; string(loc) != want || last.Msg != "Input should be 'reasoning'" {
		t.Errorf("last item %s %q, want %s", loc, last.Msg, want)
	}
}

// The *ForTraining items keep prompt_token_ids, generation_token_ids and
// generation_log_probs through the echo (floats dumped as floats) and the
// handler sees them in OutputItem.Dump.
func TestVerifyTrainingFieldsRoundTrip(t *testing.T) {
	t.Parallel()
	ts := servertest.New(t, new(modelServer), servertest.Options{ServerType: "models", Name: "models"})
	res := ts.Rollout().Post("/verify", verifyBody(`[{"type":"function_call","name":"get_weather","arguments":"{}","call_id":"c1","prompt_token_ids":[1,2,3],"generation_token_ids":[4,5],"generation_log_probs":[-0.25,0,1e-7]}]`))
	if res.Status != 200 {
		t.Fatalf("status %d: %s", res.Status, res.Body)
	}
	item := `{"prompt_token_ids":[1,2,3],"generation_token_ids":[4,5],"generation_log_probs":[-0.25,0.0,1e-7],"routed_experts":null,"arguments":"{}","call_id":"c1","name":"get_weather","type":"function_call","id":null,"status":null}`
	if !strings.Contains(string(res.Body), `"output":[`+item+`]`) {
		t.Errorf("echo lacks the training item %s:\n%s", item, res.Body)
	}
	if !strings.Contains(string(res.Body), `"first_item":`+item) {
		t.Errorf("OutputItem.Dump lacks the training item %s:\n%s", item, res.Body)
	}
	if !strings.Contains(string(res.Body), `"calls":["get_weather"]`) {
		t.Errorf("FunctionCalls misses the training function_call: %s", res.Body)
	}
}
