package breaktest

import (
	"context"
	"testing"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/server/servertest"
)

type PtrEmbedded struct {
	P1 int `json:"p1"`
}

type NestedAllow struct {
	X int `json:"x"`
	framework.Extra
}

type NestedForbid struct {
	framework.ForbidExtra
	Y int `json:"y" required:"true"`
}

type Leaf struct {
	V int `json:"v"`
}

type Tree struct {
	V    int `json:"v"`
	Kids []struct {
		V    int    `json:"v"`
		Kids []Leaf `json:"kids"`
	} `json:"kids"`
}

type DecoderReq struct {
	*PtrEmbedded
	Allow  NestedAllow   `json:"allow"`
	Forbid *NestedForbid `json:"forbid"`
	Tree   *Tree         `json:"tree"`
	ReqPtr *int          `json:"req_ptr" required:"true"`
	Skip   int           `json:"-"`
	hidden int
}

type decEnv struct{ framework.Base }

func (s *decEnv) Routes(r *framework.Router) {
	framework.Post(r, "/dec", func(_ context.Context, d DecoderReq) (DecoderReq, error) { return d, nil })
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{}, nil
	})
}

// TestHoldsDecoderStructs: embedded pointers, nested extra=allow/forbid,
// nested anonymous structs, required Optional.
func TestHoldsDecoderStructs(t *testing.T) {
	ts := servertest.New(t, &decEnv{}, servertest.Options{})
	for _, c := range []struct {
		body   string
		status int
		exact  string
	}{
		{`{"req_ptr":null}`, 200, `{"allow":{"x":0},"forbid":null,"tree":null,"req_ptr":null}`},
		{`{}`, 422, `{"detail":[{"type":"missing","loc":["body","req_ptr"],"msg":"Field required","input":{}}]}`},
		{`{"req_ptr":1,"p1":"2","allow":{"z":[1],"x":"3","a":null},"forbid":{"y":1,"q":2},"-":5,"Skip":1,"hidden":1}`, 422,
			`{"detail":[{"type":"extra_forbidden","loc":["body","forbid","q"],"msg":"Extra inputs are not permitted","input":2}]}`},
		{`{"req_ptr":1,"p1":"2","allow":{"z":[1],"x":"3","a":null}}`, 200, `{"p1":2,"allow":{"x":3,"z":[1],"a":null},"forbid":null,"tree":null,"req_ptr":1}`},
		{`{"req_ptr":1,"tree":{"v":1,"kids":[{"v":2,"kids":[{"v":"x"}]}]}}`, 422, `{"detail":[{"type":"int_parsing","loc":["body","tree","kids",0,"kids",0,"v"],"msg":"Input should be a valid integer, unable to parse string as an integer","input":"x"}]}`},
	} {
		res := ts.Rollout().Post("/dec", c.body)
		want(t, c.body, res.Status, res.Header, res.Body, c.status, c.exact)
	}
}
