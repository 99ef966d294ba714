package config

import (
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestInstanceDefaults(t *testing.T) {
	t.Parallel()
	dir := writeDir(t, map[string]string{"c.yaml": server("w", "entrypoint: app.py")})
	inst, _ := mustLoad(t, opts(dir, []string{"c.yaml"})).Instance("w")
	want := Instance{
		Name: "w", ServerType: "w", Entrypoint: "app.py", Host: "127.0.0.1", Port: 0, Domain: "agent",
		MaxBodyBytes: 16 << 20, SessionIdleTimeout: time.Hour, SessionLifetime: 336 * time.Hour,
		CloseSession: true, OpenAPI: true,
		BodyReadTimeout: 30 * time.Second,
		MaxJSONDepth:    DefaultMaxJSONDepth, MaxJSONElements: DefaultMaxJSONElements,
		MaxInflightBodyBytes: DefaultMaxInflightBodyBytes,
		MCP:                  MCPConfig{SessionIdleTimeout: 10 * time.Minute, MaxSessionsPerPrincipal: 100, ConfirmTimeout: time.Minute, Lean: true},
		Metrics:              MetricsConfig{Path: "/metrics"},
		Session:              SessionConfig{Store: "memory", Prefix: "gymkit:w:", DialTimeout: time.Second, ReadTimeout: time.Second},
		Raw:                  map[string]any{"domain": "agent", "entrypoint": "app.py"},
		File:                 "c.yaml", Line: 3, src: inst.src,
	}
	if !reflect.DeepEqual(inst, want) {
		t.Errorf("instance\n%+v\nwant\n%+v", inst, want)
	}
	if got := inst.Path(); got != "w.resources_servers.w" {
		t.Errorf("Path() = %q", got)
	}
}

func TestInstanceFrameworkKeys(t *testing.T) {
	t.Parallel()
	dir := writeDir(t, map[string]string{"c.yaml": "default_host: 0.0.0.0\n" +
		server("a", "host: 10.1.1.1", "port: '8081'", "expose_tools_over_mcp: true", "mcp_token_secret: s",
			"mcp_allowed_hosts: [proxy.local]", "max_body_bytes: 1024", "num_workers: 4", "datasets: [{name: x}]") +
		server("b", "host: ''", "max_body_bytes: null")})
	c := mustLoad(t, opts(dir, []string{"c.yaml"}))
	a, _ := c.Instance("a")
	if a.Host != "10.1.1.1" || a.Port != 8081 || !a.ExposeToolsOverMCP || !reflect.DeepEqual(a.SessionSecrets, Secrets{"s"}) ||
		!reflect.DeepEqual(a.MCPAllowedHosts, []string{"proxy.local"}) || a.MaxBodyBytes != 1024 {
		t.Errorf("a = %+v", a)
	}
	b, _ := c.Instance("b")
	if b.Host != "0.0.0.0" || b.MaxBodyBytes != DefaultMaxBodyBytes {
		t.Errorf("b: host %q, max %d; want default_host and the default limit", b.Host, b.MaxBodyBytes)
	}
	if names := []string{c.Instances()[0].Name, c.Instances()[1].Name}; !reflect.DeepEqual(names, []string{"a", "b"}) {
		t.Errorf("Instances() order %v", names)
	}
}

func TestInstanceProblems(t *testing.T) {
	t.Parallel()
	const blk = "w.resources_servers.w"
	tests := []struct {
		name    string
		yaml    string
		key     string
		message string
		suggest string
	}{
		{"missing domain", "w:\n  resources_servers:\n    w:\n      port: 1\n", blk + ".domain", "is required: one of math, coding, agent", ""},
		{"empty domain", "w:\n  resources_servers:\n    w:\n      domain: ''\n", blk + ".domain", "is required", ""},
		{"unknown domain", "w:\n  resources_servers:\n    w:\n      domain: agnet\n", blk + ".domain", `unknown domain "agnet"`, "agent"},
		{"domain not a string", "w:\n  resources_servers:\n    w:\n      domain: [agent]\n", blk + ".domain", "expected a string, got a list", ""},
		{"port type", server("w", "port: eighty"), blk + ".port", `expected an integer, got string "eighty"`, ""},
		{"port range", server("w", "port: 70000"), blk + ".port", "must be a port between 1 and 65535", ""},
		{"negative port", server("w", "port: -1"), blk + ".port", "must be a port between 1 and 65535", ""},
		{"bool type", server("w", "expose_tools_over_mcp: sometimes"), blk + ".expose_tools_over_mcp", "expected true or false", ""},
		{"allowed hosts type", server("w", "mcp_allowed_hosts: proxy"), blk + ".mcp_allowed_hosts", "expected a list", ""},
		{"body limit", server("w", "max_body_bytes: 0"), blk + ".max_body_bytes", "must be a positive number of bytes", ""},
		{"two server types", "w:\n  resources_servers:\n    a: {domain: agent}\n    b: {domain: agent}\n", "w.resources_servers", "holds 2 server types (a, b)", ""},
		{"no server type", "w:\n  resources_servers: {}\n", "w.resources_servers", "is empty", ""},
		{"server block not a mapping", "w:\n  resources_servers:\n    w: [1]\n", blk, "must be a mapping of the server's keys, got a list", ""},
		{"resources_servers not a mapping", "w:\n  resources_servers: x\n", "w.resources_servers", `must be a mapping with exactly one server type, got string "x"`, ""},
		{"agent and resources", "w:\n  resources_servers:\n    w: {domain: agent}\n  responses_api_agents:\n    a: {}\n", "w", "has more than one server type", ""},
		{"near miss", server("ok") + "w:\n  resource_servers:\n    w: {domain: agent}\n", "w.resource_servers", "unknown server type key", "resources_servers"},
		{"same address", server("a", "port: 9000") + server("b", "port: 9000"), "b.resources_servers.b.port", "127.0.0.1:9000 is also the address of instance a", ""},
		{"port_range_low", server("w") + "port_range_low: 0\n", "port_range_low", "must be a port between 1 and 65535, got 0", ""},
		{"port range order", server("w") + "port_range_low: 20000\nport_range_high: 10000\n", "port_range_high", "must not be below port_range_low (20000)", ""},
		{"disallowed_ports type", server("w") + "disallowed_ports: [1, x]\n", "disallowed_ports[1]", `expected an integer, got string "x"`, ""},
		{"head_server.port type", server("w") + "head_server: {port: x}\n", "head_server.port", "expected an integer", ""},
		{"default_host ???", server("w") + "default_host: ???\n", "default_host", "??? (a mandatory value) was never set", ""},
		{"inherit_from value", server("ok") + "w: ${inherit_from:ok}\n", "w", "inherit_from and copy directives are not supported", ""},
		{"_inherit_from block", server("ok") + "w: {_inherit_from: ok}\n", "w._inherit_from", "NeMo's _inherit_from directive is not supported", ""},
		{"_delete_key in a server block", server("w", "nested: {_delete_key: a, a: 1}"), blk + ".nested._delete_key", "NeMo's _delete_key directive is not supported", ""},
		{"default_host broken", server("w") + "default_host: ${nope}\n", "default_host", "key nope not found", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, _ := loadProblem(t, tt.yaml, tt.key)
			if !strings.Contains(p.Message, tt.message) || p.Suggestion != tt.suggest || p.File != "c.yaml" || p.Line == 0 {
				t.Errorf("problem = %+v\nwant message %q, suggestion %q, in c.yaml", p, tt.message, tt.suggest)
			}
		})
	}
}

func TestMandatory(t *testing.T) {
	t.Parallel()
	const blk = "w.resources_servers.w"
	yaml := server("w", "token: ???", "nested: {a: '???', b: [1, '???']}", "port: ???") + `
unused: ???
agent:
  responses_api_agents:
    simple_agent:
      model_server: ???
`
	dir := writeDir(t, map[string]string{"c.yaml": yaml})
	_, err := Load(opts(dir, []string{"c.yaml"}))
	ps := problemsOf(t, err)
	want := []string{blk + ".token", blk + ".nested.a", blk + ".nested.b[1]", blk + ".port"} // in file order
	var got []string
	for _, p := range ps {
		got = append(got, p.Key)
		if !strings.Contains(p.Message, "??? (a mandatory value) was never set") || p.Line == 0 {
			t.Errorf("problem = %v", p)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("problem keys %v, want %v", got, want)
	}
	// Setting them on the command line or in env.yaml is enough.
	dir = writeDir(t, map[string]string{"c.yaml": yaml, "env.yaml": "w: {resources_servers: {w: {nested: {a: 1}}}}\n"})
	mustLoad(t, opts(dir, []string{"c.yaml"}, blk+".token=t", blk+".port=1", blk+".nested.b=[]"))
}

func TestSkippedBlocks(t *testing.T) {
	t.Parallel()
	dir := writeDir(t, map[string]string{
		"c.yaml": server("w") + `
my_agent:
  responses_api_agents:
    simple_agent:
      entrypoint: app.py
      port: 12001
      resources_server: {type: resources_servers, name: w}
policy_model:
  responses_api_models:
    openai_model:
      openai_base_url: ${policy_base_url}
      port: ${oc.env:NOPE}
head_server: {host: 127.0.0.1, port: 11500}
port_range_low: 12000
port_range_high: 12002
uv_venv_dir: {resources_servers: {x: {}}}
`})
	var buf syncBuffer
	o := opts(dir, []string{"c.yaml"})
	o.Logger = slog.New(slog.NewTextHandler(&buf, nil))
	c := mustLoad(t, o)
	if got := len(c.Instances()); got != 1 {
		t.Errorf("%d instances, want 1 (reserved uv_* keys are not instances)", got)
	}
	log := buf.String()
	for _, want := range []string{
		`level=INFO msg="config: skipping block: gymkit serves only resources_servers" block=my_agent type=responses_api_agents file=c.yaml`,
		`level=INFO msg="config: skipping block: gymkit serves only resources_servers" block=policy_model type=responses_api_models file=c.yaml`,
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	if n := strings.Count(log, "skipping block"); n != 2 {
		t.Errorf("%d skip lines, want 2:\n%s", n, log)
	}
	// The agent's port is avoided: 12000-12002 minus 12001.
	seen := map[int]bool{}
	for range 20 {
		c := mustLoad(t, opts(dir, []string{"c.yaml"}))
		if err := c.AssignPorts(func(string, int) error { return nil }); err != nil {
			t.Fatal(err)
		}
		inst, _ := c.Instance("w")
		seen[inst.Port] = true
	}
	if seen[12001] || len(seen) == 0 {
		t.Errorf("ports picked %v; 12001 belongs to the agent", seen)
	}
}

func TestSeveralProblemsAtOnce(t *testing.T) {
	t.Parallel()
	dir := writeDir(t, map[string]string{
		"a.yaml": "a:\n  resources_servers:\n    a:\n      domain: agnet\n      port: x\n",
		"b.yaml": "b:\n  resources_servers:\n    b:\n      secret: ${oc.env:GK_SECRET}\n      todo: ???\n" +
			"c:\n  resources_servers:\n    c:\n      domain: math\n      v: ${missing}\n",
	})
	_, err := Load(opts(dir, []string{"a.yaml", "b.yaml"}))
	ps := problemsOf(t, err)
	want := []string{
		"a.yaml:4: a.resources_servers.a.domain: unknown domain \"agnet\": one of math, coding, agent, knowledge, instruction_following, long_context, safety, games, translation, e2e, rlhf, other; did you mean `agent`?",
		"a.yaml:5: a.resources_servers.a.port: expected an integer, got string \"x\"",
		"b.yaml:3: b.resources_servers.b.domain: is required: one of math, coding, agent, knowledge, instruction_following, long_context, safety, games, translation, e2e, rlhf, other",
		"b.yaml:4: b.resources_servers.b.secret: ${oc.env:GK_SECRET}: environment variable GK_SECRET is not set (give a default: ${oc.env:GK_SECRET,default})",
		"b.yaml:5: b.resources_servers.b.todo: ??? (a mandatory value) was never set: set it in a config file, in env.yaml or with b.resources_servers.b.todo=<value> on the command line",
		"b.yaml:10: c.resources_servers.c.v: ${missing}: key missing not found",
	}
	var got []string
	for _, p := range ps {
		got = append(got, p.Error())
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.HasPrefix(err.Error(), "config: 6 problems:\n\ta.yaml:4: ") {
		t.Errorf("Error() = %s", err)
	}
}
