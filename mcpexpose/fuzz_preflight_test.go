package mcpexpose

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"testing"
)

// FuzzPreflight: the door's look at an /mcp body before the go-sdk never
// panics, and what it decides is consistent. An answer it writes itself
// (done) has a status and, unless it is a 202, one JSON-RPC object with
// "jsonrpc":"2.0" and an "error"; the body it hands on is the request as
// received, or (when it rewrote params) valid JSON again; an id it asks to
// echo exactly is the body's own top-level id, and only for a valid body.
func FuzzPreflight(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_weather","arguments":{"city":"Paris"}}}`,
		`{"jsonrpc":"2.0","id":12345678901234567890,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":null,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":[1],"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":null}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[1]}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
		`{"jsonrpc":"2.0","id":"x","method":"subscriptions/listen"}`,
		`{"jsonrpc":"2.0","method":"subscriptions/listen"}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]`,
		`{"jsonrpc":"2.0","id":1`, ``, `null`, `"x"`, `{}`, ` [`, `{"id":{"id":1}}`,
	} {
		f.Add([]byte(s), "")
		f.Add([]byte(s), "1999-01-01")
	}
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`), protocolVersions[0])
	f.Fuzz(func(t *testing.T, body []byte, version string) {
		orig := bytes.Clone(body)
		w := httptest.NewRecorder()
		sdkBody, echoID, _, done := preflight(w, body, version)
		if !bytes.Equal(body, orig) {
			t.Fatal("preflight changed the request body in place")
		}
		if done {
			if sdkBody != nil || echoID != nil {
				t.Fatalf("answered itself yet hands on a body %q / id %q", sdkBody, echoID)
			}
			if w.Code == 202 {
				if w.Body.Len() != 0 {
					t.Fatalf("202 with a body %q", w.Body)
				}
				return
			}
			var ans struct {
				JSONRPC string          `json:"jsonrpc"`
				Error   json.RawMessage `json:"error"`
			}
			if err := json.Unmarshal(w.Body.Bytes(), &ans); err != nil || ans.JSONRPC != "2.0" || len(ans.Error) == 0 {
				t.Fatalf("answer %d %q is not a JSON-RPC error (%v)", w.Code, w.Body, err)
			}
			return
		}
		if w.Body.Len() != 0 || w.Code != 200 || len(w.Header()) != 0 {
			t.Fatalf("handed on, yet wrote %d %v %q", w.Code, w.Header(), w.Body)
		}
		if !bytes.Equal(sdkBody, body) && !json.Valid(sdkBody) {
			t.Fatalf("rewrote %q into invalid JSON %q", body, sdkBody)
		}
		if echoID != nil {
			id, ok := topLevelID(body)
			if !ok || !bytes.Equal(id, echoID) {
				t.Fatalf("echo id %q is not the body's id %q", echoID, id)
			}
		}
	})
}
