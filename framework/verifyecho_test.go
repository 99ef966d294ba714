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
// Resp(**body.model_dump())); with "mutate" set, its handler first changes
// the decoded extras in place, which the echo must show.
type echoServer struct{ framework.Base }

func (s *echoServer) Routes(r *framework.Router) {
	framework.Verify(r, func(_ context.Context, req echoReq) (echoResp, error) {
		switch req.Mutate {
		case "member":
			req.Extra.Members[0].Value = framework.StringValue("changed")
		case "key":
			req.Extra.Members[0].Key = "renamed"
		}
		return echoResp{Mutate: req.Mutate}, nil
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
		{"member", `"mutate":"member","pad":"changed",` + echoed[strings.Index(echoed, `"n":`):]},
		{"key", `"mutate":"key","renamed":[1,2.5,100000.0,{"k":[true,null]},"<>&"],` + echoed[strings.Index(echoed, `"n":`):]},
	} {
		body := `{"responses_create_params":{"input":"hi"},"response":` + resp + `,"mutate":"` + c.mutate + `",` + extras + `}`
		r := ts.Rollout().Post("/verify", body)
		if r.Status != 200 || !strings.HasSuffix(string(r.Body), `"reward":0.0,`+c.want) {
			t.Errorf("mutate %q: %d %s\nwant it to end with %s", c.mutate, r.Status, r.Body, `"reward":0.0,`+c.want)
		}
	}
}
