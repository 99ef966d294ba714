package config

import (
	"reflect"
	"testing"
	"time"
)

func TestMCPBlock(t *testing.T) {
	t.Parallel()
	dir := writeDir(t, map[string]string{"c.yaml": server("a", "expose_tools_over_mcp: true",
		"mcp: {tools: [get_weather, lookup], coerce_json_strings: true, server_info: {name: weather, version: '1.2', title: Weather, instructions: Be brief.}}") +
		server("b", "mcp: {tools: []}") + server("c", "mcp: null") + server("d", "mcp: {tools: null, server_info: null}") + server("e")})
	c := mustLoad(t, opts(dir, []string{"c.yaml"}))
	a, _ := c.Instance("a")
	want := Defaults().MCP
	want.Tools, want.CoerceJSONStrings = []string{"get_weather", "lookup"}, true
	want.ServerInfo = MCPServerInfo{Name: "weather", Version: "1.2", Title: "Weather", Instructions: "Be brief."}
	if !reflect.DeepEqual(a.MCP, want) {
		t.Errorf("a.MCP = %+v, want %+v", a.MCP, want)
	}
	if b, _ := c.Instance("b"); b.MCP.Tools == nil || len(b.MCP.Tools) != 0 {
		t.Errorf("b: tools: [] gave %#v, want an empty non-nil allow-list", b.MCP.Tools)
	}
	for _, name := range []string{"c", "d", "e"} {
		if inst, _ := c.Instance(name); !reflect.DeepEqual(inst.MCP, Defaults().MCP) {
			t.Errorf("%s.MCP = %#v, want the defaults (NeMo's behaviour)", name, inst.MCP)
		}
	}
	// mcp is a framework key: a server's Decode does not see it.
	var own struct {
		X int `koanf:"x"`
	}
	if err := a.Decode(&own); err != nil {
		t.Errorf("Decode: %v", err)
	}
}

func TestMCPStatefulKeys(t *testing.T) {
	t.Parallel()
	dir := writeDir(t, map[string]string{"c.yaml": server("a", "expose_tools_over_mcp: true",
		"mcp: {stateful: true, session_idle_timeout: 90s, max_sessions_per_principal: 3, confirm_timeout: 2s}")})
	c := mustLoad(t, opts(dir, []string{"c.yaml"}))
	a, _ := c.Instance("a")
	want := MCPConfig{Stateful: true, SessionIdleTimeout: 90 * time.Second, MaxSessionsPerPrincipal: 3, ConfirmTimeout: 2 * time.Second, Lean: true}
	if !reflect.DeepEqual(a.MCP, want) {
		t.Errorf("a.MCP = %+v, want %+v", a.MCP, want)
	}
}

func TestMCPLeanKey(t *testing.T) {
	t.Parallel()
	dir := writeDir(t, map[string]string{"c.yaml": server("a", "expose_tools_over_mcp: true", "mcp: {lean: false}") +
		server("b", "mcp: {lean: true}") + server("c", "mcp: {lean: null}")})
	c := mustLoad(t, opts(dir, []string{"c.yaml"}))
	for name, want := range map[string]bool{"a": false, "b": true, "c": true} { // null: the default, true
		inst, _ := c.Instance(name)
		if inst.MCP.Lean != want {
			t.Errorf("%s: mcp.lean = %v, want %v", name, inst.MCP.Lean, want)
		}
	}
}

func TestMCPBlockProblems(t *testing.T) {
	t.Parallel()
	const blk = "w.resources_servers.w"
	testProblems(t, []problemCase{
		{"not a mapping", "mcp: [a]", blk + ".mcp", "expected a map", ""},
		{"unknown key", "mcp: {tool: [a]}", blk + ".mcp.tool", "unknown key", "tools"},
		{"unknown key, no suggestion", "mcp: {zzzzzz: 1}", blk + ".mcp.zzzzzz", "the keys here are", ""},
		{"stateful misspelt", "mcp: {statefull: true}", blk + ".mcp.statefull", "unknown key", "stateful"},
		{"stateful not a bool", "mcp: {stateful: maybe}", blk + ".mcp.stateful", "expected true or false", ""},
		{"negative idle timeout", "mcp: {session_idle_timeout: -1s}", blk + ".mcp.session_idle_timeout", "must not be negative", ""},
		{"idle timeout not a duration", "mcp: {session_idle_timeout: soon}", blk + ".mcp.session_idle_timeout", "", ""},
		{"negative session bound", "mcp: {max_sessions_per_principal: -1}", blk + ".mcp.max_sessions_per_principal", "must not be negative", ""},
		{"negative confirm timeout", "mcp: {confirm_timeout: -5s}", blk + ".mcp.confirm_timeout", "must not be negative", ""},
		{"tools not a list", "mcp: {tools: get_weather}", blk + ".mcp.tools", "expected a list", ""},
		{"tool not a string", "mcp: {tools: [1]}", blk + ".mcp.tools[0]", "expected a string", ""},
		{"empty tool name", "mcp: {tools: ['']}", blk + ".mcp.tools[0]", "must be a tool name, got an empty string", ""},
		{"null tool name", "mcp: {tools: [null]}", blk + ".mcp.tools[0]", "must be a tool name, got null", ""},
		{"coerce not a bool", "mcp: {coerce_json_strings: maybe}", blk + ".mcp.coerce_json_strings", "expected true or false", ""},
		{"server_info not a mapping", "mcp: {server_info: weather}", blk + ".mcp.server_info", "expected a map", ""},
		{"server_info unknown key", "mcp: {server_info: {nam: x}}", blk + ".mcp.server_info.nam", "unknown key", "name"},
		{"server_info name not a string", "mcp: {server_info: {name: [x]}}", blk + ".mcp.server_info.name", "expected a string", ""},
	})
}

// The keys whose 0 means their default hold the default after Load, so
// that the MCP door and the session store read them as they are.
func TestZeroMeansTheDefault(t *testing.T) {
	t.Parallel()
	dir := writeDir(t, map[string]string{"c.yaml": server("a", "mcp: {session_idle_timeout: 0, max_sessions_per_principal: 0, confirm_timeout: 0}",
		"session: {dial_timeout: 0, read_timeout: 0}")})
	a, _ := mustLoad(t, opts(dir, []string{"c.yaml"})).Instance("a")
	d := Defaults()
	if a.MCP.SessionIdleTimeout != d.MCP.SessionIdleTimeout || a.MCP.MaxSessionsPerPrincipal != d.MCP.MaxSessionsPerPrincipal ||
		a.MCP.ConfirmTimeout != d.MCP.ConfirmTimeout || a.Session.DialTimeout != d.Session.DialTimeout || a.Session.ReadTimeout != d.Session.ReadTimeout {
		t.Errorf("mcp %+v, session %+v: want the defaults for 0", a.MCP, a.Session)
	}
	if d.MCP.SessionIdleTimeout != 10*time.Minute || d.MCP.MaxSessionsPerPrincipal != 100 || d.MCP.ConfirmTimeout != time.Minute ||
		d.Session.DialTimeout != time.Second || d.Session.ReadTimeout != time.Second {
		t.Errorf("defaults %+v %+v", d.MCP, d.Session)
	}
}
