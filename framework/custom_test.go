package framework_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/framework/host"
)

type withTime struct {
	When time.Time `json:"when"`
}

type amounts struct {
	Main  *Amount           `json:"main"`
	List  []Amount          `json:"list"`
	ByKey map[string]Amount `json:"by_key"`
}

// timeTool is a server whose request type has a field gymkit cannot
// validate.
type timeTool struct{ framework.Base }

func (s *timeTool) Routes(r *framework.Router) {
	framework.Post(r, "/when", func(context.Context, withTime) (struct{}, error) { return struct{}{}, nil })
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{}, nil
	})
}

type amountsTool struct{ framework.Base }

func (s *amountsTool) Routes(r *framework.Router) {
	framework.Post(r, "/sum", func(_ context.Context, req amounts) (map[string]any, error) {
		out := map[string]any{"list": req.List, "by_key": req.ByKey}
		if req.Main != nil {
			out["main"] = string(*req.Main)
		}
		return out, nil
	})
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{}, nil
	})
}

// TestBuildUnsupportedPointsAtCustomField: the error for time.Time names
// the field and the public interface to implement, not an internal one.
func TestBuildUnsupportedPointsAtCustomField(t *testing.T) {
	t.Parallel()
	_, err := host.Build(context.Background(), new(timeTool), host.Options{})
	if err == nil {
		t.Fatal("Build accepted a time.Time request field")
	}
	msg := err.Error()
	for _, want := range []string{"when", "time.Time", "framework.CustomField"} {
		if !strings.Contains(msg, want) {
			t.Errorf("Build error %q does not mention %q", msg, want)
		}
	}
	if strings.Contains(msg, "lax.Unmarshaler") {
		t.Errorf("Build error %q points at an internal interface", msg)
	}
}

// TestCustomFieldPositions: a CustomField decodes behind a pointer (null is
// nil), as list items and map values, with the item located there.
func TestCustomFieldPositions(t *testing.T) {
	t.Parallel()
	app, err := host.Build(context.Background(), new(amountsTool), host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ body, code, want string }{
		{`{"main":null,"list":[1,"2.5"],"by_key":{"a":"3"}}`, "200", `{"by_key":{"a":"3"},"list":["1","2.5"]}`},
		{`{"main":"7"}`, "200", `"main":"7"`},
		{`{"list":[1,"x"]}`, "422", `"loc":["body","list",1]`},
		{`{"by_key":{"k":true}}`, "422", `"loc":["body","by_key","k"],"msg":"Decimal input should be`},
		{`{"main":1.234}`, "422", `"loc":["body","main"],"msg":"Value error, \"1.234\" is not an amount`},
	}
	for _, tc := range cases {
		req := httptest.NewRequest("POST", "/sum", strings.NewReader(tc.body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		app.Handler().ServeHTTP(rec, req)
		if got := rec.Body.String(); !strings.HasPrefix(rec.Result().Status, tc.code) || !strings.Contains(got, tc.want) {
			t.Errorf("%s: %s %s, want %s containing %s", tc.body, rec.Result().Status, got, tc.code, tc.want)
		}
	}
}
