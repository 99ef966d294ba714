package host_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/framework/host"
)

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
		if got, want := host.MCPErrorText(err, "get_weather"), framework.StatusOf(err).MCPText("get_weather"); got != want {
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
			got := host.StatusCode(err, d)
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
	fmt.Println(host.StatusCode(err, framework.DoorHTTP), host.StatusCode(err, framework.DoorMCP))
	fmt.Println(host.StatusCode(framework.Errorf(409, "busy"), framework.DoorMCP), host.StatusCode(nil, framework.DoorHTTP))
	// Output:
	// 500 422
	// 409 200
}
