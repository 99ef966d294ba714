package mathadvancedcalculations_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/server/servertest"
	mac "github.com/gymkit/gymkit/servers/math_advanced_calculations"
)

// mcpCall sends one tools/call over the real MCP door and returns the
// result's text, structuredContent and isError.
func mcpCall(t *testing.T, ts *servertest.Server, token, name, args string) (string, json.RawMessage, bool) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `}}`
	req, _ := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("X-NeMo-Gym-Session-Token", token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out struct {
		Result struct {
			Content           []struct{ Text string } `json:"content"`
			StructuredContent json.RawMessage         `json:"structuredContent"`
			IsError           bool                    `json:"isError"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &out); err != nil || len(out.Result.Content) != 1 {
		t.Fatalf("tools/call %s: %d %s", name, resp.StatusCode, raw)
	}
	return out.Result.Content[0].Text, out.Result.StructuredContent, out.Result.IsError
}

// TestBothDoors calls every function, a failing call and an unknown name on
// the HTTP door and on the MCP door: the same results, the same errors.
func TestBothDoors(t *testing.T) {
	t.Parallel()
	ts := servertest.New(t, new(mac.Server), servertest.Options{ServerType: mac.Name, Name: mac.Name, MCP: true})
	ro := ts.Rollout()
	seed := ro.Post("/seed_session", `{}`)
	var s struct {
		MCP struct{ Headers map[string]string } `json:"mcp"`
	}
	if err := json.Unmarshal(seed.Body, &s); err != nil {
		t.Fatal(err)
	}
	token := s.MCP.Headers["X-NeMo-Gym-Session-Token"]
	for _, c := range []struct{ name, args string }{
		{"add", `{"a":1,"b":2}`}, {"subtract", `{"a":9,"b":9}`}, {"multiply", `{"a":1,"b":9}`},
		{"divide", `{"a":1,"b":1}`}, {"power", `{"a":2,"b":8}`}, {"log", `{"a":2,"base":2}`},
		{"sin", `{"radians":5}`}, {"cos", `{"radians":1.0}`}, {"pi", `{}`},
		{"negate", `{"a":5}`}, {"return_constant", `{"a":3}`},
	} {
		hres := ro.Post("/"+c.name, c.args)
		text, structured, isErr := mcpCall(t, ts, token, c.name, c.args)
		if hres.Status != 200 || isErr || text != string(hres.Body) || !bytes.Equal(structured, hres.Body) {
			t.Errorf("%s %s: HTTP %d %s, MCP %q (isError %v, structured %s)", c.name, c.args, hres.Status, hres.Body, text, isErr, structured)
		}
	}
	// A failing call: 500 {"detail":...} over HTTP, the same detail over MCP.
	if res := ro.Post("/divide", `{"a":1,"b":0}`); res.Status != 500 || string(res.Body) != `{"detail":"float division by zero"}` {
		t.Errorf("HTTP divide by zero: %d %s", res.Status, res.Body)
	}
	if text, _, isErr := mcpCall(t, ts, token, "divide", `{"a":1,"b":0}`); !isErr || text != "HTTP 500 from POST /divide: float division by zero" {
		t.Errorf("MCP divide by zero: %q (isError %v)", text, isErr)
	}
	// A 422 over MCP: pydantic's items as json.dumps, with url, without "body".
	want422 := `HTTP 422 from POST /add: [{"type": "float_parsing", "loc": ["a"], "msg": "Input should be a valid number, unable to parse string as a number", "input": "x", "url": "https://errors.pydantic.dev/2.13/v/float_parsing"}]`
	if text, _, isErr := mcpCall(t, ts, token, "add", `{"a":"x","b":1}`); !isErr || text != want422 {
		t.Errorf("MCP 422:\n got %q\nwant %q", text, want422)
	}
	// Unknown: 404 over HTTP; over MCP the door's unknown-tool text (contract d.6).
	if res := ro.Post("/sqrt", `{"a":4}`); res.Status != 404 || string(res.Body) != `{"detail":"Function not found"}` {
		t.Errorf("HTTP unknown: %d %s", res.Status, res.Body)
	}
	wantUnknown := "Unknown tool: 'sqrt'. Available tools: ['add', 'cos', 'divide', 'log', 'multiply', 'negate', 'pi', 'power', 'return_constant', 'sin', 'subtract']"
	if text, _, isErr := mcpCall(t, ts, token, "sqrt", `{"a":4}`); !isErr || text != wantUnknown {
		t.Errorf("MCP unknown:\n got %q\nwant %q", text, wantUnknown)
	}
}
