package framework_test

import (
	"context"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/server/servertest"
)

type echoReq struct {
	framework.VerifyRequest
	Mutate string `json:"mutate"`
	framework.Extra
}

type echoResp struct {
	framework.VerifyResponse
	Mutate string `json:"mutate"`
	framework.Extra
}

// echoServer's verify echoes the request's extra keys (NeMo's
// Resp(**body.model_dump())). With "mutate" set to "request", its handler
// first changes its copy of the request's extras, which the echo does not
// show (the echo is the request as decoded, as for every other field); with
// "response", it answers extras of its own: the request's, one changed,
// one removed and one added; with "none" (Clear) or "copy-empty" (the
// request's, every key deleted) it answers no extra keys at all.
type echoServer struct{ framework.Base }

func (s *echoServer) Routes(r *framework.Router) {
	framework.Verify(r, func(_ context.Context, req echoReq) (echoResp, error) {
		resp := echoResp{Mutate: req.Mutate}
		switch req.Mutate {
		case "request":
			req.Extra.Set("pad", framework.StringValue("changed"))
			req.Extra.Delete("n")
		case "response":
			resp.Extra = framework.ExtraOf(req.Extra.Members()...)
			resp.Extra.Set("pad", framework.StringValue("changed"))
			resp.Extra.Delete("n")
			resp.Extra.Set("added", framework.NumberValue("1.50"))
		case "none":
			resp.Extra.Clear()
		case "copy-empty":
			resp.Extra = req.Extra
			for _, k := range req.Keys() {
				resp.Extra.Delete(k)
			}
		}
		return resp, nil
	})
}

// TestVerifyEchoesExtraKeys: the extra keys of a verify body come back in
// the answer as Python dumps them (floats in pydantic's form, escapes
// decoded and re-encoded, duplicate keys collapsed to the last value at
// the first position), whether they are written from the body's text (the
// handler left them alone) or from the values a handler changed.
func TestVerifyEchoesExtraKeys(t *testing.T) {
	t.Parallel()
	ts := servertest.New(t, &echoServer{}, servertest.Options{})
	resp := `{"id":"r","created_at":0,"model":"m","object":"response","output":[],"parallel_tool_calls":false,"tool_choice":"auto","tools":[]}`
	extras := `"pad":[1, 2.50, 1e5, {"k": "\u00e9\n", "k": [true, null]}, "<>&"],"n":{"a":{"b":[[],{}]}},"s":"x"`
	const echoed = `"pad":[1,2.5,100000.0,{"k":[true,null]},"<>&"],"n":{"a":{"b":[[],{}]}},"s":"x"}`
	for _, c := range []struct{ mutate, want string }{
		{"", `"mutate":"",` + echoed},
		{"request", `"mutate":"request",` + echoed},
		{"response", `"mutate":"response","pad":"changed","s":"x","added":1.5}`},
		{"none", `"mutate":"none"}`},
		{"copy-empty", `"mutate":"copy-empty"}`},
	} {
		body := `{"responses_create_params":{"input":"hi"},"response":` + resp + `,"mutate":"` + c.mutate + `",` + extras + `}`
		r := ts.Rollout().Post("/verify", body)
		if r.Status != 200 || !strings.HasSuffix(string(r.Body), `"reward":0.0,`+c.want) {
			t.Errorf("mutate %q: %d %s\nwant it to end with %s", c.mutate, r.Status, r.Body, `"reward":0.0,`+c.want)
		}
	}
}
