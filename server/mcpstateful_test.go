package server_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/config/configtest"
)

// mcp.stateful through the instance the host builds, behind auth.api_keys:
// alice's session id is "session not found" for bob, exactly as an id that
// does not exist; a tokenless call of alice's session runs as alice.
func TestMCPStatefulSessionBoundToPrincipal(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "keys")
	if err := os.WriteFile(file, []byte(keyLine("alice", "alice-key-1")+"\n"+keyLine("bob", "bob-key-1")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ts, _ := startAuth(t, &authEnv{}, configtest.Over(config.Instance{
		Auth: &config.AuthConfig{APIKeys: &config.APIKeysConfig{File: file}},
		MCP:  config.MCPConfig{Stateful: true, MaxSessionsPerPrincipal: 5}}))

	c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp",
		HTTPClient: &http.Client{Transport: bearerTransport{token: "alice-key-1"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	if cs.ID() == "" {
		t.Fatal("mcp.stateful: true gave no Mcp-Session-Id")
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "whoami", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("tokenless call in alice's session: %v %v", res, err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != `{"principal":"alice"}` {
		t.Errorf("whoami = %s", got)
	}
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	hdr := func(key, sid string) map[string]string {
		return map[string]string{"Authorization": "Bearer " + key, "Mcp-Session-Id": sid,
			"Accept": "application/json, text/event-stream", "Mcp-Protocol-Version": "2025-11-25"}
	}
	resp, unknown := authPost(t, ts.URL, list, hdr("bob-key-1", "no-such-id"))
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown id = %d %s", resp.StatusCode, unknown)
	}
	resp, body := authPost(t, ts.URL, list, hdr("bob-key-1", cs.ID()))
	if resp.StatusCode != http.StatusNotFound || body != unknown {
		t.Errorf("bob with alice's id = %d %s, want 404 %s", resp.StatusCode, body, unknown)
	}
	if resp, body := authPost(t, ts.URL, list, hdr("alice-key-1", cs.ID())); resp.StatusCode != 200 || !strings.Contains(body, "whoami") {
		t.Errorf("alice with her id = %d %s", resp.StatusCode, body)
	}
}
