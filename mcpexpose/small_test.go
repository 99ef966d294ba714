package mcpexpose_test

// Smaller MCP checks (docs/security.md, "How each promise is tested"):
// logging/setLevel levels,
// the log line of a failed call (its level and status the same as on the
// HTTP door), and a tools/call name that is not a string. Driven through the
// real door: the go-sdk client where it can say the request, raw JSON-RPC
// where it cannot.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gymkit/gymkit/framework"
)

// invalidParamsBody is Python's answer to params pydantic refuses, after
// the id.
const invalidParamsBody = `"error":{"code":-32602,"message":"Invalid request parameters","data":""}}`

// logging/setLevel takes the MCP spec's eight levels only; anything else
// is JSON-RPC -32602 (invalid params), as the spec says and as pydantic's
// Literal refuses it (the go-sdk alone accepts any string).
func TestSetLevelRefusesUnknownLevels(t *testing.T) {
	t.Parallel()
	h := newHost(t, &Store{})
	cs := h.client("")
	ctx := context.Background()
	for _, level := range []mcp.LoggingLevel{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"} {
		if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: level}); err != nil {
			t.Errorf("setLevel %q: %v", level, err)
		}
	}
	for _, level := range []mcp.LoggingLevel{"bogus", "", "DEBUG", "warn", " info"} {
		err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: level})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("setLevel %q: %v, want JSON-RPC -32602", level, err)
		}
	}
	// What the client cannot send: a missing, null or non-string level,
	// and the exact bytes of the answer.
	for _, params := range []string{`{"level":"bogus"}`, `{}`, `{"level":null}`, `{"level":5}`, `{"level":["info"]}`} {
		msg := `{"jsonrpc":"2.0","id":7,"method":"logging/setLevel","params":` + params + `}`
		r := h.rpc(msg, "")
		if want := `{"jsonrpc":"2.0","id":7,` + invalidParamsBody; r.Status != 200 || string(r.Body) != want {
			t.Errorf("%s: %d %s\nwant 200 %s", params, r.Status, r.Body, want)
		}
	}
	if r := h.rpc(`{"jsonrpc":"2.0","id":8,"method":"logging/setLevel","params":{"level":"alert"}}`, ""); string(r.Body) != `{"jsonrpc":"2.0","id":8,"result":{}}` {
		t.Errorf("a valid level: %d %s", r.Status, r.Body)
	}
}

// tools/call {"name": 5} is -32602 "Invalid request parameters" (pydantic's
// str), not the go-sdk's Go decoding error; the go-sdk client cannot send a
// number as the name, so raw JSON-RPC. A string "5" is a name like any other.
func TestToolsCallNumberNameIsInvalidParams(t *testing.T) {
	t.Parallel()
	h := newHost(t, &Store{})
	ro := h.seed(`{}`)
	for _, name := range []string{`5`, `5.5`, `true`, `{"n":"append"}`} {
		msg := `{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":` + name + `,"arguments":{"value":"x"}}}`
		r := h.rpc(msg, ro.token)
		if want := `{"jsonrpc":"2.0","id":"a",` + invalidParamsBody; r.Status != 200 || string(r.Body) != want {
			t.Errorf("name %s: %d %s\nwant 200 %s", name, r.Status, r.Body, want)
		}
		if strings.Contains(string(r.Body), "unmarshal") {
			t.Errorf("name %s: the SDK's Go error text leaks: %s", name, r.Body)
		}
	}
	if c := h.call("5", `{}`, ro.token); !*c.IsError || !strings.HasPrefix(c.text(), "Unknown tool: '5'.") {
		t.Errorf(`name "5": %+v`, c)
	}
}

// failing serves one route per kind of failure, for the log tests.
func failing() *Store {
	return &Store{extra: func(r *framework.Router) {
		framework.Post(r, "/busy", func(context.Context, framework.NoBody) (struct{}, error) {
			return struct{}{}, framework.Errorf(503, "try again later")
		})
		framework.Post(r, "/wrapped_busy", func(context.Context, framework.NoBody) (struct{}, error) {
			return struct{}{}, fmt.Errorf("store: %w", framework.Errorf(503, "full"))
		})
		framework.Post(r, "/chosen_500", func(context.Context, framework.NoBody) (struct{}, error) {
			return struct{}{}, framework.Errorf(500, "chosen")
		})
		framework.Post(r, "/fault", func(context.Context, framework.NoBody) (struct{}, error) {
			return struct{}{}, errors.New("disk on fire")
		})
		framework.Post(r, "/refused", func(context.Context, framework.NoBody) (struct{}, error) {
			return struct{}{}, framework.Errorf(409, "conflict")
		})
	}}
}

// failureLines returns the log lines written since mark that report a
// failed request or call, and the new mark.
func failureLines(h *host, mark int) ([]string, int) {
	all := h.logs.String()
	var out []string
	for line := range strings.SplitSeq(all[mark:], "\n") {
		if strings.Contains(line, `msg="request failed"`) || strings.Contains(line, `msg="tool call failed"`) {
			out = append(out, line)
		}
	}
	return out, len(all)
}

// field returns the value of key=... in a text log line ("" if absent).
func field(line, key string) string {
	_, rest, ok := strings.Cut(line, " "+key+"=")
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, " ")
	return v
}

// One error is logged at one level on both doors, with the status that
// door answered: a 5xx the tool chose (Errorf(503), wrapped or not, or an
// Errorf(500)) is a warning, a fault (a plain error) an error, a 4xx is
// not logged. The MCP call goes through the go-sdk client.
func TestFailuresAreLoggedAlikeOnBothDoors(t *testing.T) {
	t.Parallel()
	h := newHost(t, failing())
	ro := h.seed(`{}`)
	cs := h.client(ro.token)
	mark := len(h.logs.String())
	for _, tc := range []struct {
		tool       string
		httpStatus int
		level      string // "": not logged
		status     string // the logged status
	}{
		{"busy", 503, "WARN", "503"},
		{"wrapped_busy", 503, "WARN", "503"},
		{"chosen_500", 500, "WARN", "500"},
		{"fault", 500, "ERROR", "500"},
		{"refused", 409, "", ""},
	} {
		if r := h.post("/"+tc.tool, `{}`, ro.cookie); r.Status != tc.httpStatus {
			t.Errorf("HTTP /%s: %d %s, want %d", tc.tool, r.Status, r.Body, tc.httpStatus)
		}
		var httpLines, mcpLines []string
		httpLines, mark = failureLines(h, mark)
		res := sdkCall(t, cs, tc.tool, map[string]any{})
		if !res.IsError {
			t.Errorf("MCP %s: not an isError: %s", tc.tool, sdkText(res))
		}
		mcpLines, mark = failureLines(h, mark)
		if tc.level == "" {
			if len(httpLines)+len(mcpLines) != 0 {
				t.Errorf("%s: a 4xx is logged as a failure:\n%s", tc.tool, strings.Join(append(httpLines, mcpLines...), "\n"))
			}
			continue
		}
		if len(httpLines) != 1 || len(mcpLines) != 1 {
			t.Fatalf("%s: want one failure line per door, HTTP %q MCP %q", tc.tool, httpLines, mcpLines)
		}
		for door, line := range map[string]string{"HTTP": httpLines[0], "MCP": mcpLines[0]} {
			if field(line, "level") != tc.level || field(line, "status") != tc.status {
				t.Errorf("%s on the %s door: %s\nwant level=%s status=%s", tc.tool, door, line, tc.level, tc.status)
			}
		}
		if field(mcpLines[0], "door") != "mcp" {
			t.Errorf("%s: no door=mcp: %s", tc.tool, mcpLines[0])
		}
	}
}

// An argument such as 1e400 (an infinite float where a string is wanted)
// fails validation: the HTTP door answers NeMo's 500 (Starlette cannot
// write the infinite input), the MCP door the isError "HTTP 422 ...", and
// logs it as what it is, a 422: not a failure of the server.
func TestInfiniteArgumentIsAn422NotLoggedOverMCP(t *testing.T) {
	t.Parallel()
	h := newHost(t, &Store{})
	ro := h.seed(`{}`)
	cs := h.client(ro.token)
	mark := len(h.logs.String())
	res := sdkCall(t, cs, "append", json.RawMessage(`{"value":1e400}`))
	if text := sdkText(res); !res.IsError || !strings.HasPrefix(text, "HTTP 422 from POST /append: ") || !strings.Contains(text, "Infinity") {
		t.Errorf("MCP append 1e400: isError=%v %q", res.IsError, text)
	}
	c := h.call("append", `{"value":-1e400}`, ro.token)
	if !*c.IsError || !strings.HasPrefix(c.text(), "HTTP 422 from POST /append: ") {
		t.Errorf("raw MCP append -1e400: %+v", c)
	}
	if lines, _ := failureLines(h, mark); len(lines) != 0 {
		t.Errorf("the MCP 422 is logged as a failure:\n%s", strings.Join(lines, "\n"))
	}
	if r := h.post("/append", `{"value":1e400}`, ro.cookie); r.Status != 500 {
		t.Errorf("HTTP append 1e400: %d %s, want NeMo's 500", r.Status, r.Body)
	}
}
