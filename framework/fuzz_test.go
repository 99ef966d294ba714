package framework_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/config/configtest"
	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/framework/host"
)

type fuzzItem struct {
	Name  string   `json:"name" required:"true"`
	Score *float64 `json:"score"`
}

type FuzzRequest struct {
	City   string            `json:"city" required:"true"`
	Days   int               `json:"days" default:"3"`
	Unit   string            `json:"unit" enum:"c,f" default:"c"`
	Big    framework.Int     `json:"big"`
	Items  []fuzzItem        `json:"items"`
	Tags   map[string]string `json:"tags"`
	Any    any               `json:"any"`
	Metric *bool             `json:"metric"`
	Amount *Amount           `json:"amount"` // a framework.CustomField (example_custom_test.go)
}

type fuzzServer struct{ framework.Base }

func (s *fuzzServer) Routes(r *framework.Router) {
	framework.Post(r, "/typed", func(_ context.Context, req FuzzRequest) (FuzzRequest, error) { return req, nil })
	framework.Post(r, "/raw", func(_ context.Context, req json.RawMessage) (json.RawMessage, error) { return req, nil })
	framework.Post(r, "/dict", func(_ context.Context, req map[string]any) (map[string]any, error) { return req, nil })
	framework.Post(r, "/value", func(_ context.Context, req framework.Value) (framework.Value, error) { return req, nil })
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{Reward: 1}, nil
	})
}

// FuzzRequestBody sends any body to a typed tool and to the three dict
// body kinds, on the HTTP door (App.Handler) and the MCP door (Tool.Call
// with DoorMCP): never a panic, only 200, 400, 413 or 422 with a JSON body
// (or Python's 500 for a 422 it cannot write: NaN in the items' input); and the typed tool's answer is
// what decoding the parsed tree gives (framework.DecodeValue): the
// streaming decoder and the tree path agree through the door.
func FuzzRequestBody(f *testing.F) {
	app, err := host.Build(context.Background(), new(fuzzServer), host.Options{
		Config: new(configtest.Over(config.Instance{MaxJSONDepth: 32, MaxJSONElements: 5000})), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		f.Fatal(err)
	}
	h := app.Handler()
	tools := map[string]framework.Tool{}
	for _, t := range app.Tools() {
		tools[t.Name] = t
	}
	for _, s := range []string{
		`{"city": "Paris", "days": "4", "items": [{"name": "a", "score": 1}], "tags": {"k": "v"}, "any": [1, {"x": NaN}], "big": 123456789012345678901234567890}`,
		`{"city": 1}`, `{"city": "x", "unit": "k"}`, `{"city": "x", "city": "y"}`, `[]`, `null`, `{"city": "x"} y`,
		`{"city": "x", "amount": "12.50"}`, `{"city": "x", "amount": 1.234}`, `{"city": "x", "amount": [1]}`, `{"city": "x", "amount": null}`,
		`{"city": "\ud800", "metric": "yes", "items": []}`, `{`, `{"a": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, path := range []string{"/typed", "/raw", "/dict", "/value"} {
			req := httptest.NewRequest("POST", path, strings.NewReader(string(body)))
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			switch {
			case rec.Code == 200, rec.Code == 400, rec.Code == 413, rec.Code == 422:
			case rec.Code == 500 && strings.Contains(rec.Body.String(), "Out of range float values are not JSON compliant"):
				// A 422 whose items hold NaN or an infinity: Python's
				// JSONResponse cannot write it and answers this 500.
			default:
				t.Fatalf("%s %q: %d %s", path, body, rec.Code, rec.Body)
			}
			if _, err := framework.ParseJSON(rec.Body.Bytes()); err != nil {
				t.Fatalf("%s %q: answer is not JSON: %s", path, body, rec.Body)
			}
			if path == "/typed" {
				want := typedTree(body)
				if rec.Code == 200 && want != rec.Body.String() {
					t.Fatalf("%q: HTTP door answered %s, the tree path gives %s", body, rec.Body, want)
				}
				if rec.Code == 422 && want != "" {
					t.Fatalf("%q: HTTP door answered 422 %s, the tree path accepts it: %s", body, rec.Body, want)
				}
			}
			tool := tools[strings.TrimPrefix(path, "/")]
			res, err := tool.Call(context.Background(), body, framework.DoorMCP)
			if err == nil {
				if _, err := framework.MarshalJSON(res, framework.JSONPydantic); err != nil {
					t.Fatalf("%s %q: MCP result does not encode: %v", path, body, err)
				}
			} else if st := framework.StatusOf(err); st.Code != 400 && st.Code != 413 && st.Code != 422 && !errors.As(err, new(*framework.ValidationError)) {
				t.Fatalf("%s %q: MCP door: %d %v", path, body, st.Code, err)
			}
		}
	})
}

// typedTree is the typed tool's 200 body by the tree path, or "" when that
// path refuses the body.
func typedTree(body []byte) string {
	v, err := framework.ParseJSON(body)
	if err != nil {
		return ""
	}
	req, err := framework.DecodeValue[FuzzRequest](v)
	if err != nil {
		return ""
	}
	b, err := framework.MarshalJSON(req, framework.JSONPydantic)
	if err != nil {
		return ""
	}
	return string(b)
}
