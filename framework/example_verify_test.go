package framework_test

import (
	"context"
	"fmt"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/framework/host"
)

type tokenCounter struct{ framework.Base }

func (s *tokenCounter) Routes(r *framework.Router) {
	framework.Verify(r, func(_ context.Context, req framework.VerifyRequest) (framework.VerifyResponse, error) {
		for _, it := range req.Response.Output {
			// Dump is the item as NeMo's model dumps it: the *ForTraining
			// fields are there, absent optional fields are null.
			ids, _ := it.Dump.Get("generation_token_ids")
			id, _ := it.Dump.Get("id")
			fmt.Println(it.Type, it.Name, len(ids.Items), "tokens, id", id.Kind)
		}
		// Dump is the whole validated response, written in the echo.
		created, _ := req.Response.Dump().Get("created_at")
		fmt.Println("created_at", created.Str, "parallel_tool_calls", req.ResponsesCreateParams.ParallelToolCalls.Bool)
		return framework.VerifyResponse{Reward: 1}, nil
	})
}

// Response.Dump and OutputItem.Dump give the validated response as NeMo's
// pydantic models dump it, training fields included.
func ExampleResponse_Dump() {
	app, err := host.Build(context.Background(), new(tokenCounter), host.Options{})
	if err != nil {
		panic(err)
	}
	h := app.Handler()
	post(h, "/verify", `{"responses_create_params":{"input":"hi"},"response":{"id":"r","created_at":0,"model":"m","object":"response","output":[{"type":"function_call","name":"f","arguments":"{}","call_id":"c","prompt_token_ids":[1],"generation_token_ids":[2,3],"generation_log_probs":[-0.5,-0.25]}],"parallel_tool_calls":true,"tool_choice":"auto","tools":[]}}`)
	// Output:
	// function_call f 2 tokens, id null
	// created_at 0.0 parallel_tool_calls true
	// 200 {"responses_create_params":{"background":null,"include":null,"input":"hi","instructions":null,"max_output_tokens":null,"max_tool_calls":null,"metadata":null,"model":null,"parallel_tool_calls":true,"previous_response_id":null,"prompt":null,"reasoning":null,"service_tier":null,"store":null,"temperature":null,"text":null,"tool_choice":"auto","tools":[],"top_logprobs":null,"top_p":null,"truncation":null,"user":null,"stream":null},"response":{"id":"r","created_at":0.0,"error":null,"incomplete_details":null,"instructions":null,"metadata":null,"model":"m","object":"response","output":[{"prompt_token_ids":[1],"generation_token_ids":[2,3],"generation_log_probs":[-0.5,-0.25],"routed_experts":null,"arguments":"{}","call_id":"c","name":"f","type":"function_call","id":null,"status":null}],"parallel_tool_calls":true,"temperature":null,"tool_choice":"auto","tools":[],"top_p":null,"background":null,"conversation":null,"max_output_tokens":null,"max_tool_calls":null,"previous_response_id":null,"prompt":null,"prompt_cache_key":null,"reasoning":null,"safety_identifier":null,"service_tier":null,"status":null,"text":null,"top_logprobs":null,"truncation":null,"usage":null,"user":null},"reward":1.0}
}
