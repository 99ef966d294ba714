package framework_test

import (
	"encoding/json"
	"errors"
	"fmt"
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

// TestMCPErrorTextIsStatusOfMCPText: the MCP door's one-copy isError text
// is StatusOf(err).MCPText(tool) for every kind of error, a 422 whose
// HTTP rendering fails (NaN input) and a wrapped 422 included.
func TestMCPErrorTextIsStatusOfMCPText(t *testing.T) {
	t.Parallel()
	type req struct {
		City string         `json:"city" required:"true"`
		N    int            `json:"n"`
		M    map[string]int `json:"m"`
	}
	decodeErr := func(body string) error {
		_, err := framework.Decode[req](json.RawMessage(body))
		if err == nil {
			t.Fatalf("%s decoded", body)
		}
		return err
	}
	for name, err := range map[string]error{
		"missing":         decodeErr(`{}`),
		"many items":      decodeErr(`{"city":[1,2,{"a":"<&>"}],"n":"x","m":{"a":"b"}}`),
		"NaN input":       decodeErr(`{"city":NaN}`),
		"wrapped 422":     fmt.Errorf("tool: %w", decodeErr(`{"city":1}`)),
		"framework.Error": framework.Errorf(409, "already borrowed"),
		"plain":           errors.New("boom"),
		"unicode":         framework.Errorf(400, "caf\u00e9 \u2028"),
	} {
		if got, want := framework.MCPErrorText(err, "get_weather"), framework.StatusOf(err).MCPText("get_weather"); got != want {
			t.Errorf("%s:\n got %q\nwant %q", name, got, want)
		}
	}
}

// TestStatusCodeIsCodeFor: StatusCode, which renders no 422 for the MCP
// door and one for the HTTP door, is StatusOf(err).CodeFor(door) on both
// doors for every kind of error (a 422 whose HTTP rendering fails on a
// NaN input is HTTP's 500 and MCP's 422), and asking it first leaves
// StatusOf's renderings as they are.
func TestStatusCodeIsCodeFor(t *testing.T) {
	t.Parallel()
	type req struct {
		City string `json:"city" required:"true"`
	}
	decodeErr := func(body string) error {
		_, err := framework.Decode[req](json.RawMessage(body))
		if err == nil {
			t.Fatalf("%s decoded", body)
		}
		return err
	}
	for _, c := range []struct {
		name      string
		err       func() error
		http, mcp int
	}{
		{"nil", func() error { return nil }, 200, 200},
		{"422", func() error { return decodeErr(`{"city":[1,2]}`) }, 422, 422},
		{"NaN input", func() error { return decodeErr(`{"city":NaN}`) }, 500, 422},
		{"wrapped NaN input", func() error { return fmt.Errorf("tool: %w", decodeErr(`{"city":-Infinity}`)) }, 500, 422},
		{"framework.Error", func() error { return framework.Errorf(409, "busy") }, 409, 409},
		{"NaN detail", func() error { return framework.NewError(400, map[string]any{"x": math.NaN()}) }, 500, 400},
		{"plain", func() error { return errors.New("boom") }, 500, 500},
	} {
		for _, d := range []framework.Door{framework.DoorHTTP, framework.DoorMCP} {
			want := c.http
			if d == framework.DoorMCP {
				want = c.mcp
			}
			err := c.err()
			got := framework.StatusCode(err, d)
			st, fresh := framework.StatusOf(err), framework.StatusOf(c.err())
			if got != want || got != st.CodeFor(d) {
				t.Errorf("%s on %v: StatusCode %d, StatusOf(err).CodeFor %d, want %d", c.name, d, got, st.CodeFor(d), want)
			}
			if st.Code != fresh.Code || string(st.Body) != string(fresh.Body) || st.MCPText("t") != fresh.MCPText("t") {
				t.Errorf("%s on %v: StatusOf after StatusCode %d %s %q, on a fresh error %d %s %q",
					c.name, d, st.Code, st.Body, st.MCPText("t"), fresh.Code, fresh.Body, fresh.MCPText("t"))
			}
		}
	}
}

// ExampleStatusCode: the status each door answers for an error, as a
// metrics interceptor reads it (no 422 rendered for the MCP door).
func ExampleStatusCode() {
	type req struct {
		City string `json:"city" required:"true"`
	}
	_, err := framework.Decode[req](json.RawMessage(`{"city":NaN}`))
	fmt.Println(framework.StatusCode(err, framework.DoorHTTP), framework.StatusCode(err, framework.DoorMCP))
	fmt.Println(framework.StatusCode(framework.Errorf(409, "busy"), framework.DoorMCP), framework.StatusCode(nil, framework.DoorHTTP))
	// Output:
	// 500 422
	// 409 200
}
