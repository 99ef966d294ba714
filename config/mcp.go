package config

import (
	"fmt"
	"reflect"
	"time"
)

// MCPConfig is the mcp block of a server block (next to expose_tools_over_mcp): how the MCP
// door presents the instance to MCP clients. It only matters with expose_tools_over_mcp: true.
// Its defaults ([Defaults]; the block absent, or null) are NeMo Gym's behaviour: every exposed
// tool listed and callable, serverInfo {name: <instance>, version: <gymkit's version>}, no
// instructions, arguments passed to validation as sent.
//
//	mcp:
//	  tools: [get_weather, get_forecast]   # allow-list for tools/list and tools/call
//	  server_info: {name: weather, version: "1.2.0", title: Weather, instructions: "Call get_weather first."}
//	  coerce_json_strings: true            # decode "[1,2]" sent for an array field
type MCPConfig struct {
	// Tools (mcp.tools) is an allow-list of tool names that governs tools/list and tools/call:
	// a tool it does not name answers exactly as a nonexistent one. Names that are not exposed
	// tools are ignored (the door logs them once at startup). nil (absent or null): every
	// exposed tool; an empty list exposes none. A rollout's own allow-list (the session
	// token's) still narrows it.
	Tools []string `koanf:"tools"`
	// ServerInfo (mcp.server_info) is what initialize answers about the server.
	ServerInfo MCPServerInfo `koanf:"server_info"`
	// CoerceJSONStrings (mcp.coerce_json_strings, default false) repairs a tools/call argument
	// sent as a JSON string where the tool's input schema asks for an array or an object: a
	// string that starts with [ or { (after white space) and parses as JSON is decoded before
	// validation. Top-level fields only; anything else is left to validation.
	CoerceJSONStrings bool `koanf:"coerce_json_strings"`
	// Stateful (mcp.stateful, default false) serves MCP sessions (Mcp-Session-Id, the GET
	// stream, DELETE), each bound to the principal that made it, so that tools can ask the
	// client (elicitation, confirmations) and calls can be cancelled. A session lives in one
	// process: behind a load balancer it needs affinity on Mcp-Session-Id; the stateless
	// default keeps replicas interchangeable. See docs/mcp.md.
	Stateful bool `koanf:"stateful"`
	// SessionIdleTimeout (mcp.session_idle_timeout, >= 0; default
	// [DefaultMCPSessionIdleTimeout], 10m, also for 0) ends a stateful MCP session without a
	// request for that long (none in flight). Stateful only.
	SessionIdleTimeout time.Duration `koanf:"session_idle_timeout"`
	// MaxSessionsPerPrincipal (mcp.max_sessions_per_principal, >= 0; default
	// [DefaultMCPMaxSessionsPerPrincipal], 100, also for 0) bounds the live stateful MCP
	// sessions of one principal (429 with Retry-After beyond). Stateful only.
	MaxSessionsPerPrincipal int `koanf:"max_sessions_per_principal"`
	// ConfirmTimeout (mcp.confirm_timeout, >= 0; default [DefaultMCPConfirmTimeout], 60s, also
	// for 0) is how long a tool's framework.Confirm waits for the user's answer before refusing.
	ConfirmTimeout time.Duration `koanf:"confirm_timeout"`
	// Lean (mcp.lean, default true) lets a stateless MCP door answer the common requests (one
	// tools/call, tools/list, initialize, ping, notifications/initialized) itself, with the
	// bytes the go-sdk answers, and hand the rest to the go-sdk; false serves every request
	// through the go-sdk.
	Lean bool `koanf:"lean"`
}

// MCPServerInfo is mcp.server_info: the initialize result's serverInfo and instructions. An
// empty field takes its default.
type MCPServerInfo struct {
	// Name is serverInfo.name (default: the instance name). The "server_name" of the seed's
	// mcp key stays the instance name, which NeMo's agents build tool names from.
	Name string `koanf:"name"`
	// Version is serverInfo.version (default: gymkit's module version).
	Version string `koanf:"version"`
	// Title is serverInfo.title, a display name (default: none).
	Title string `koanf:"title"`
	// Instructions is the initialize result's instructions, a hint for the client's model
	// (default: none).
	Instructions string `koanf:"instructions"`
}

// mcpProblems reports the unknown keys of the mcp block and its server_info (with the closest
// key as the suggestion) and empty tool names, makes a present, non-null mcp.tools a non-nil
// list (an empty allow-list exposes nothing), and gives the keys set to 0 that mean their
// default that default. null for mcp means the defaults.
func (c *Config) mcpProblems(bkey string, data map[string]any, fw *Instance, bad map[string]bool) Problems {
	var ps Problems
	raw, ok := data["mcp"].(map[string]any)
	if !ok || bad["mcp"] {
		return nil // absent, null, or not a mapping (a type error already reported)
	}
	Instance{src: c.src}.unknownKeys(&ps, joinKey(bkey, "mcp"), raw, reflect.TypeFor[MCPConfig](), false)
	if v, ok := raw["tools"]; ok && v != nil && fw.MCP.Tools == nil {
		fw.MCP.Tools = []string{}
	}
	for _, k := range []struct {
		key string
		neg bool
	}{
		{"session_idle_timeout", fw.MCP.SessionIdleTimeout < 0},
		{"max_sessions_per_principal", fw.MCP.MaxSessionsPerPrincipal < 0},
		{"confirm_timeout", fw.MCP.ConfirmTimeout < 0},
	} {
		if k.neg && !bad["mcp."+k.key] {
			ps = append(ps, c.src.problem(joinKey(joinKey(bkey, "mcp"), k.key),
				"must not be negative (0 or null means the default)", ""))
		}
	}
	d := Defaults().MCP
	if fw.MCP.SessionIdleTimeout == 0 {
		fw.MCP.SessionIdleTimeout = d.SessionIdleTimeout
	}
	if fw.MCP.MaxSessionsPerPrincipal == 0 {
		fw.MCP.MaxSessionsPerPrincipal = d.MaxSessionsPerPrincipal
	}
	if fw.MCP.ConfirmTimeout == 0 {
		fw.MCP.ConfirmTimeout = d.ConfirmTimeout
	}
	items, _ := raw["tools"].([]any)
	for i, name := range fw.MCP.Tools {
		if name == "" && !bad[fmt.Sprintf("mcp.tools[%d]", i)] {
			got := "an empty string"
			if i < len(items) && items[i] == nil {
				got = "null"
			}
			ps = append(ps, c.src.problem(fmt.Sprintf("%s[%d]", joinKey(joinKey(bkey, "mcp"), "tools"), i),
				"must be a tool name, got "+got, ""))
		}
	}
	return ps
}
