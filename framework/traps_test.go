package framework_test

import (
	"context"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/framework/host"
)

type enumLoose struct {
	Color string `json:"color" enum:"red,green"`
}

type enumNested struct {
	Items []enumLoose `json:"items"`
}

type enumOK struct {
	A string  `json:"a" enum:"x,y" required:"true"`
	B string  `json:"b" enum:"x,y" default:"x"`
	C *string `json:"c" enum:"x,y"`
}

type scoreLate struct {
	Note string `json:"note"`
	framework.VerifyResponse
}

type scoreBase struct {
	framework.VerifyResponse
}

type scoreLateNested struct {
	Note string `json:"note"`
	scoreBase
}

type scoreFirst struct {
	framework.VerifyResponse
	Note string `json:"note"`
}

type scoreHiddenFirst struct {
	skip string //nolint:unused // unexported: not written, does not reorder
	Drop string `json:"-"`
	framework.VerifyResponse
	Note string `json:"note"`
}

// trapEnv registers one route given by reg.
type trapEnv struct {
	framework.Base
	reg func(r *framework.Router)
}

func (s *trapEnv) Routes(r *framework.Router) { s.reg(r) }

func plainVerify(r *framework.Router) {
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{}, nil
	})
}

func TestBuildRefusesTraps(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		reg  func(r *framework.Router)
		want []string // "" entries: Build must succeed
	}{
		{"optional enum", func(r *framework.Router) {
			framework.Post(r, "/paint", func(context.Context, enumLoose) (struct{}, error) { return struct{}{}, nil })
			plainVerify(r)
		}, []string{"enumLoose", "Color", `"color"`, `required:"true"`, "default", "*string"}},
		{"optional enum nested", func(r *framework.Router) {
			framework.Post(r, "/paint", func(context.Context, enumNested) (struct{}, error) { return struct{}{}, nil })
			plainVerify(r)
		}, []string{"enumLoose", "Color"}},
		{"optional enum seed", func(r *framework.Router) {
			framework.SeedSession(r, func(context.Context, enumLoose) (struct{}, error) { return struct{}{}, nil })
			plainVerify(r)
		}, []string{"SeedSession", "enumLoose", "Color"}},
		{"enum required, default or pointer", func(r *framework.Router) {
			framework.Post(r, "/paint", func(context.Context, enumOK) (struct{}, error) { return struct{}{}, nil })
			plainVerify(r)
		}, nil},
		{"VerifyResponse after a field", func(r *framework.Router) {
			framework.Verify(r, func(context.Context, framework.VerifyRequest) (scoreLate, error) { return scoreLate{}, nil })
		}, []string{"scoreLate.VerifyResponse", "Note", "first field"}},
		{"VerifyResponse after a field, nested", func(r *framework.Router) {
			framework.Verify(r, func(context.Context, framework.VerifyRequest) (scoreLateNested, error) { return scoreLateNested{}, nil })
		}, []string{"scoreLateNested.scoreBase", "Note", "first field"}},
		{"VerifyResponse first", func(r *framework.Router) {
			framework.Verify(r, func(context.Context, framework.VerifyRequest) (scoreFirst, error) { return scoreFirst{}, nil })
		}, nil},
		{"VerifyResponse after unwritten fields", func(r *framework.Router) {
			framework.Verify(r, func(context.Context, framework.VerifyRequest) (scoreHiddenFirst, error) {
				return scoreHiddenFirst{}, nil
			})
		}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := host.Build(context.Background(), &trapEnv{reg: tc.reg}, host.Options{})
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Build: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("Build accepted the trap")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Build error %q does not mention %q", err, w)
				}
			}
		})
	}
}

// TestAnonymousRequestTitle: an anonymous request struct's schema is titled
// after the tool (pydantic models always have a class name), not with Go's
// type text.
func TestAnonymousRequestTitle(t *testing.T) {
	t.Parallel()
	app, err := host.Build(context.Background(), &trapEnv{reg: func(r *framework.Router) {
		framework.Post(r, "/get_weather", func(context.Context, struct {
			City string `json:"city" required:"true"`
		}) (struct{}, error) {
			return struct{}{}, nil
		})
		framework.Post(r, "/ping", func(context.Context, struct{}) (struct{}, error) { return struct{}{}, nil })
		plainVerify(r)
	}}, host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"get_weather": `{"properties":{"city":{"title":"City","type":"string"}},"required":["city"],"title":"GetWeatherRequest","type":"object"}`,
		"ping":        `{"properties":{},"title":"PingRequest","type":"object"}`,
	}
	for _, tool := range app.Tools() {
		if got := string(tool.InputSchema); got != want[tool.Name] {
			t.Errorf("%s inputSchema\n%s\nwant\n%s", tool.Name, got, want[tool.Name])
		}
	}
}
