package breaktest

import (
	"context"
	"encoding/json"

	"github.com/gymkit/gymkit/framework"
)

// dictEnv has tools whose requests hold any JSON, for the memory bounds
// of TestBodyMemoryBounded: dict bodies (json.RawMessage, map[string]any,
// framework.Value) and typed requests with an Any field (framework.Value,
// any). Each answers the size of what it received, {"n": <size>}, so that
// the answer is small and the measure is the request's: json.RawMessage
// its length in bytes, the others the number of items of their "pad"
// array.
type dictEnv struct{ framework.Base }

// padValue is a typed request whose "pad" is any JSON, as a Value.
type padValue struct {
	Pad framework.Value `json:"pad"`
}

// padAny is a typed request whose "pad" is any JSON in an any field (the
// decoder stores a framework.Value there).
type padAny struct {
	Pad any `json:"pad"`
}

type sizeResp struct {
	N int `json:"n"`
}

func (dictEnv) Routes(r *framework.Router) {
	framework.Verify(r, func(_ context.Context, req framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{Reward: 1}, nil
	})
	framework.Post(r, "/dict_raw", func(_ context.Context, v json.RawMessage) (sizeResp, error) {
		return sizeResp{N: len(v)}, nil
	})
	framework.Post(r, "/dict_map", func(_ context.Context, v map[string]any) (sizeResp, error) {
		pad, _ := v["pad"].([]any)
		return sizeResp{N: len(pad)}, nil
	})
	framework.Post(r, "/dict_value", func(_ context.Context, v framework.Value) (sizeResp, error) {
		pad, _ := v.Get("pad")
		return sizeResp{N: len(pad.Items)}, nil
	})
	framework.Post(r, "/field_value", func(_ context.Context, req padValue) (sizeResp, error) {
		return sizeResp{N: len(req.Pad.Items)}, nil
	})
	framework.Post(r, "/field_any", func(_ context.Context, req padAny) (sizeResp, error) {
		pad, _ := req.Pad.(framework.Value) // an any field holds a Value
		return sizeResp{N: len(pad.Items)}, nil
	})
}
