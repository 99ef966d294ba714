package framework_test

import (
	"errors"
	"math"
	"testing"

	"github.com/gymkit/gymkit/framework"
)

// TestStatusOfRenderings pins both doors' renderings of errors whose detail
// Starlette cannot write or replaces (python-compat 4.3 and 5).
func TestStatusOfRenderings(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		err     error
		code    int
		body    string
		mcpText string
	}{
		{"string detail", framework.Errorf(418, "short and stout"), 418, `{"detail":"short and stout"}`, "HTTP 418 from POST /t: short and stout"},
		{"map detail", framework.NewError(400, map[string]any{"a": []int{1}}), 400, `{"detail":{"a":[1]}}`, "HTTP 400 from POST /t: {'a': [1]}"},
		{"nil detail is the status phrase", framework.NewError(404, nil), 404, `{"detail":"Not Found"}`, "HTTP 404 from POST /t: Not Found"},
		{"NaN detail", framework.NewError(400, map[string]any{"x": math.NaN()}), 500,
			`"ValueError('Out of range float values are not JSON compliant: nan')"`, "HTTP 400 from POST /t: {'x': nan}"},
		{"invalid status", framework.Errorf(99, "x"), 500, `{"detail":"x"}`, "HTTP 500 from POST /t: x"},
		{"wrapped", errors.Join(errors.New("ctx"), framework.Errorf(409, "busy")), 409, `{"detail":"busy"}`, "HTTP 409 from POST /t: busy"},
		{"plain", errors.New("kaboom"), 500, `"kaboom"`, "HTTP 500 from POST /t: kaboom"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			st := framework.StatusOf(c.err)
			if st.Code != c.code || string(st.Body) != c.body || st.MCPText("t") != c.mcpText {
				t.Errorf("got %d %s %q\nwant %d %s %q", st.Code, st.Body, st.MCPText("t"), c.code, c.body, c.mcpText)
			}
		})
	}
}
