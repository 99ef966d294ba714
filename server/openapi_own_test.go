package server_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/server/servertest"
)

// ownBodies has its own seed, verify request and verify response types.
type ownBodies struct{ framework.Base }

type ownSeed struct {
	Task string `json:"task" required:"true" description:"The task to solve."`
}

type ownVerifyReq struct {
	framework.VerifyRequest
	Expected string `json:"expected" required:"true"`
}

type ownVerifyResp struct {
	framework.VerifyResponse
	Matched bool `json:"matched"`
}

func (s *ownBodies) Routes(r *framework.Router) {
	framework.SeedSession(r, func(context.Context, ownSeed) (struct{}, error) { return struct{}{}, nil })
	framework.Verify(r, func(context.Context, ownVerifyReq) (ownVerifyResp, error) { return ownVerifyResp{}, nil })
}

// TestOpenAPIOwnSeedVerify: /openapi.json documents the environment's own
// seed and verify fields, with NeMo's base models merged in; a server with
// the defaults keeps NeMo's base models.
func TestOpenAPIOwnSeedVerify(t *testing.T) {
	t.Parallel()
	ts := servertest.New(t, new(ownBodies), servertest.Options{ServerType: "openapi_test"})
	doc, _ := getOpenAPI(t, ts)
	checkOpenAPI(t, doc)
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	js := func(name string) string { b, _ := json.Marshal(schemas[name]); return string(b) }
	seed := js("SeedSessionRequest")
	for _, w := range []string{`"task":{"description":"The task to solve.","title":"Task","type":"string"}`, `"required":["task"]`, `"title":"ownSeed"`} {
		if !strings.Contains(seed, w) {
			t.Errorf("SeedSessionRequest %s\nlacks %s", seed, w)
		}
	}
	req := js("VerifyRequest")
	for _, w := range []string{`"expected":{"title":"Expected","type":"string"}`, `"required":["responses_create_params","response","expected"]`,
		`NeMoGymResponseCreateParamsNonStreaming`, `"title":"ownVerifyReq"`} {
		if !strings.Contains(req, w) {
			t.Errorf("VerifyRequest %s\nlacks %s", req, w)
		}
	}
	resp := js("VerifyResponse")
	for _, w := range []string{`"matched":{"title":"Matched","type":"boolean"}`, `"required":["responses_create_params","response","reward"]`,
		`"reward":{"title":"Reward","type":"number"}`} {
		if !strings.Contains(resp, w) {
			t.Errorf("VerifyResponse %s\nlacks %s", resp, w)
		}
	}
	// The defaults: NeMo's base models, unchanged.
	doc, _ = getOpenAPI(t, servertest.New(t, new(dispatcher), servertest.Options{ServerType: "openapi_test"}))
	schemas = doc["components"].(map[string]any)["schemas"].(map[string]any)
	if seed := js("SeedSessionRequest"); !strings.Contains(seed, `"additionalProperties":true`) || !strings.Contains(seed, `dataset row`) {
		t.Errorf("default SeedSessionRequest %s", seed)
	}
}
