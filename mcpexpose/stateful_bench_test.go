package mcpexpose_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gymkit/gymkit/mcpexpose"
)

// BenchmarkCallModes: one tools/call over loopback HTTP in each answer mode
// of the door, measured in the same run, so that the ratios to
// "stateless JSON" (the default, NeMo's path) are what to read:
// a progress token whose tool reports nothing (answered through the SSE
// handler, turned back into JSON), a tool that streams two progress events,
// and the stateful door (a session id, a tokenless call in the session's
// own rollout).
func BenchmarkCallModes(b *testing.B) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	call := func(steps string, token bool) string {
		meta := ""
		if token {
			meta = `,"_meta":{"progressToken":"t"}`
		}
		return `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"progress","arguments":{"steps":` + steps + `}` + meta + `}}`
	}
	surl, _ := interactiveHost(b, nil)
	tok := seedToken(b, surl)
	furl, _ := interactiveHost(b, stateful())
	c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: furl,
		HTTPClient: &http.Client{Transport: bearer{key: keys["alice"]}}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cs.Close() })
	for _, bc := range []struct {
		name, url, body, sid, want string
	}{
		{"stateless JSON", surl, call("0", false), "", `"isError":false`},
		{"stateless progress token, no report", surl, call("0", true), "", `"isError":false`},
		{"stateless streamed, 2 reports", surl, call("2", true), "", `notifications/progress`},
		{"stateful JSON", furl, call("0", false), cs.ID(), `"isError":false`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				req, _ := http.NewRequest("POST", bc.url, strings.NewReader(bc.body))
				req.Header.Set("Authorization", "Bearer "+keys["alice"])
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
				if bc.sid != "" {
					req.Header.Set("Mcp-Session-Id", bc.sid) // tokenless: the session's own rollout
				} else {
					req.Header.Set(mcpexpose.TokenHeader, tok)
				}
				resp, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if !strings.Contains(string(body), bc.want) {
					b.Fatalf("%s: %d %s", bc.name, resp.StatusCode, body)
				}
			}
		})
	}
}
