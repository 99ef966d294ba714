package framework_test

import (
	"context"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/framework/host"
)

type seedRow struct {
	Task string `json:"task" required:"true"`
}

type scoredReq struct {
	framework.VerifyRequest
	Expected string `json:"expected"`
}

func TestAppSeedVerifySchemas(t *testing.T) {
	t.Parallel()
	def, err := host.Build(context.Background(), &trapEnv{reg: plainVerify}, host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s := def.SeedSessionSchema(); s != nil {
		t.Errorf("default seed schema %s, want nil (NeMo's base model)", s)
	}
	app, err := host.Build(context.Background(), &trapEnv{reg: func(r *framework.Router) {
		framework.SeedSession(r, func(context.Context, seedRow) (struct{}, error) { return struct{}{}, nil })
		framework.Verify(r, func(context.Context, scoredReq) (scoreFirst, error) { return scoreFirst{}, nil })
	}}, host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(app.SeedSessionSchema()), `{"properties":{"task":{"title":"Task","type":"string"}},"required":["task"],"title":"seedRow","type":"object"}`; got != want {
		t.Errorf("seed schema\n%s\nwant\n%s", got, want)
	}
	req, resp := app.VerifySchemas()
	if !strings.Contains(string(req), `"expected":{"title":"Expected","type":"string"}`) || !strings.Contains(string(req), `"responses_create_params"`) {
		t.Errorf("verify request schema %s", req)
	}
	if !strings.Contains(string(resp), `"reward":{"title":"Reward","type":"number"},"note":{"title":"Note","type":"string"}`) {
		t.Errorf("verify response schema %s", resp)
	}
}
