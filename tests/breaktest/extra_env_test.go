package breaktest

import (
	"context"

	"github.com/gymkit/gymkit/framework"
)

type XReq struct {
	framework.VerifyRequest
	GroundTruth string `json:"ground_truth"`
	Count       int    `json:"count"`
	Opt         *int   `json:"opt"`
	framework.Extra
}

type XResp struct {
	framework.VerifyResponse
	Score float64 `json:"score"`
	framework.Extra
}

type extraEnv struct{ framework.Base }

// respOnlyExtraEnv: the request type ignores unknown keys (no Extra), the
// response type allows them.
type respOnlyExtraEnv struct{ framework.Base }

type plainReq struct {
	framework.VerifyRequest
	Count int `json:"count"`
}

func (s *respOnlyExtraEnv) Routes(r *framework.Router) {
	framework.Verify(r, func(_ context.Context, req plainReq) (XResp, error) {
		return XResp{VerifyResponse: framework.VerifyResponse{Reward: 1}, Score: 0.5}, nil
	})
}

func (s *extraEnv) Routes(r *framework.Router) {
	framework.Verify(r, func(_ context.Context, req XReq) (XResp, error) {
		return XResp{VerifyResponse: framework.VerifyResponse{Reward: 1}, Score: 0.5}, nil
	})
}
