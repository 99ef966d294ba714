package server_test

import (
	"strings"
	"testing"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/config/configtest"
)

// TestMCPBlockReachesTheDoor: the instance's mcp block (config.MCPConfig)
// is what the host's MCP door serves: the allow-list narrows tools/list,
// server_info is the initialize answer.
func TestMCPBlockReachesTheDoor(t *testing.T) {
	t.Parallel()
	cfg := configtest.Over(config.Instance{SessionSecrets: config.Secrets{newSecret}, MCP: config.MCPConfig{
		Tools:      []string{"incr"},
		ServerInfo: config.MCPServerInfo{Name: "sessions", Version: "9.9", Instructions: "Count."},
	}})
	_, ts := startSess(t, cfg, nil)
	rpc := func(body string) string {
		t.Helper()
		_, _, b := postJSON(t, ts, "/mcp", body, "Accept", mcpAccept)
		return b
	}
	init := rpc(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	if !strings.Contains(init, `"serverInfo":{"name":"sessions","version":"9.9"}`) || !strings.Contains(init, `"instructions":"Count."`) {
		t.Errorf("initialize: %s", init)
	}
	list := rpc(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if !strings.Contains(list, `"name":"incr"`) || strings.Contains(list, "whoami") {
		t.Errorf("tools/list: %s", list)
	}
}
