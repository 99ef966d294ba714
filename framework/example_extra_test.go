package framework_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/framework/host"
)

type answerReq struct {
	framework.VerifyRequest
	framework.Extra // expected_answer and whatever else the dataset row carries
}

type answerResp struct {
	framework.VerifyResponse
	framework.Extra // left unset: the request's extra keys are echoed
}

type answerChecker struct{ framework.Base }

func (s *answerChecker) Routes(r *framework.Router) {
	framework.Verify(r, func(_ context.Context, req answerReq) (answerResp, error) {
		fmt.Println("extra keys:", req.Keys())
		// Get parses the one key it is asked for; "trace" is never
		// parsed, only echoed from the text it arrived as.
		want, _ := req.Get("expected_answer")
		reward := 0.0
		if want.Kind == framework.KindString && want.Str == req.Response.AssistantText() {
			reward = 1
		}
		return answerResp{VerifyResponse: framework.VerifyResponse{Reward: reward}}, nil
	})
}

// Extra keeps a verify body's unknown keys; the environment reads the ones
// it needs with Get, and an empty Extra in the response echoes them all
// (NeMo's extra="allow" verify models).
func ExampleExtra() {
	app, err := host.Build(context.Background(), new(answerChecker), host.Options{})
	if err != nil {
		panic(err)
	}
	rec, req := httptest.NewRecorder(), httptest.NewRequest("POST", "/verify", strings.NewReader(`{"responses_create_params":{"input":"2+2?"},"response":{"id":"r","created_at":0,"model":"m","object":"response","output":[{"type":"message","id":"m1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"4","annotations":[]}]}],"parallel_tool_calls":false,"tool_choice":"auto","tools":[]},"expected_answer":"4","trace":[[1, 2.50], {"k": "v"}]}`))
	req.Header.Set("Content-Type", "application/json")
	app.Handler().ServeHTTP(rec, req)
	answer := rec.Body.String()
	fmt.Println(rec.Code, answer[strings.Index(answer, `"reward"`):])
	// Output:
	// extra keys: [expected_answer trace]
	// 200 "reward":1.0,"expected_answer":"4","trace":[[1,2.5],{"k":"v"}]}
}
