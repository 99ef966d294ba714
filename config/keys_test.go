package config

import (
	"strconv"
	"strings"
	"testing"
)

// requiredEnv is a server config with required keys, one of them nested.
type requiredEnv struct {
	DataDir string `koanf:"data_dir" required:"true"`
	Limit   int    `koanf:"limit" required:"true"`
	Extra   string `koanf:"extra"`
	Judge   *struct {
		URL   string `koanf:"url" required:"true"`
		Model string `koanf:"model"`
	} `koanf:"judge"`
}

func TestRequiredConfigKeys(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		lines []string
		over  []string
		want  []string // "line key" of each problem (an absent key is located at its block, a null one at itself); nil: decodes
	}{
		{"all set", []string{"data_dir: d", "limit: 3"}, nil, nil},
		{"zero values are values", []string{"data_dir: ''", "limit: 0"}, nil, nil},
		{"one absent", []string{"data_dir: d"}, nil, []string{"4 w.resources_servers.w.limit"}},
		{"both absent", nil, nil, []string{"4 w.resources_servers.w.data_dir", "4 w.resources_servers.w.limit"}},
		{"null is absent", []string{"data_dir: null", "limit: 3"}, nil, []string{"6 w.resources_servers.w.data_dir"}},
		{"set on the command line", []string{"limit: 3"}, []string{"w.resources_servers.w.data_dir=x"}, nil},
		{"nested, block present", []string{"data_dir: d", "limit: 3", "judge:", "  model: m"}, nil, []string{"8 w.resources_servers.w.judge.url"}},
		{"nested, block absent", []string{"data_dir: d", "limit: 3"}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			text := "# required keys\n" + server("w", tt.lines...)
			dir := writeDir(t, map[string]string{"c.yaml": text})
			c := mustLoad(t, opts(dir, []string{"c.yaml"}, tt.over...))
			inst, _ := c.Instance("w")
			var env requiredEnv
			err := inst.Decode(&env)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Decode: %v", err)
				}
				return
			}
			ps := problemsOf(t, err)
			var got []string
			for _, p := range ps {
				got = append(got, strings.TrimSpace(strings.Join([]string{strconv.Itoa(p.Line), p.Key}, " ")))
				if p.File != "c.yaml" || !strings.Contains(p.Message, `is required (its field is tagged required:"true")`) ||
					!strings.Contains(p.Message, p.Key+"=<value>") {
					t.Errorf("problem %q", p.Error())
				}
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("problems at %v, want %v\n%v", got, tt.want, ps)
			}
		})
	}
}

func TestTopLevelKeys(t *testing.T) {
	t.Parallel()
	two := server("a") + server("b")
	tests := []struct {
		name     string
		yaml     string
		over     []string
		wantKey  string // "" : loads
		wantText string
	}{
		{"port override, one instance", server("w"), []string{"port=8000"}, "port",
			"command line: port: is not a top-level setting: it is an instance's key, under <instance>.resources_servers.<server type>; did you mean `w.resources_servers.w.port`?"},
		{"port override, two instances", two, []string{"port=8000"}, "port",
			"command line: port: is not a top-level setting: it is an instance's key, under <instance>.resources_servers.<server type>"},
		{"host override, one instance", server("w"), []string{"host=0.0.0.0"}, "host",
			"command line: host: is not a top-level setting: it is an instance's key, under <instance>.resources_servers.<server type>; default_host sets the host of every instance that has none; did you mean `w.resources_servers.w.host`?"},
		{"host override, two instances", two, []string{"host=0.0.0.0"}, "host",
			"did you mean `default_host`?"},
		{"port in a file", "port: 8000\n" + server("w"), nil, "port", "c.yaml:1: port: is not a top-level setting"},
		{"a near miss of a setting", server("w"), []string{"port_range_lwo=5"}, "port_range_lwo",
			"command line: port_range_lwo: unknown top-level key: not a setting gymkit reads; did you mean `port_range_low`?"},
		{"metrics override, one instance", server("w"), []string{"metrics.enabled=true"}, "metrics.enabled",
			"command line: metrics.enabled: is not a top-level setting: it is an instance's key, under <instance>.resources_servers.<server type>; did you mean `w.resources_servers.w.metrics.enabled`?"},
		{"session override, two instances", two, []string{"session.store=redis"}, "session.store",
			"command line: session.store: is not a top-level setting: it is an instance's key, under <instance>.resources_servers.<server type>"},
		{"mcp block override", server("w"), []string{"mcp.lean=true"}, "mcp.lean", "did you mean `w.resources_servers.w.mcp.lean`?"},
		{"tool_timeout override", server("w"), []string{"tool_timeout=5s"}, "tool_timeout", "did you mean `w.resources_servers.w.tool_timeout`?"},
		{"session_secret in a file", "session_secret: abc\n" + server("w"), nil, "session_secret", "c.yaml:1: session_secret: is not a top-level setting"},
		{"metrics block in a file", "metrics:\n  enabled: true\n" + server("w"), nil, "metrics.enabled", "c.yaml:2: metrics.enabled: is not a top-level setting"},
		{"a framework-named interpolation source", "mcp: true\n" + server("w", "expose_tools_over_mcp: ${mcp}"), nil, "", ""},
		{"a free value", "policy_base_url: http://x\n" + server("w"), []string{"some_value=3"}, "", ""},
		{"the full key works", server("w"), []string{"w.resources_servers.w.port=8000"}, "", ""},
		{"default_host works", server("w"), []string{"default_host=0.0.0.0"}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := writeDir(t, map[string]string{"c.yaml": tt.yaml})
			c, err := Load(opts(dir, []string{"c.yaml"}, tt.over...))
			if tt.wantKey == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			ps := problemsOf(t, err)
			p := findProblem(t, ps, tt.wantKey)
			if len(ps) != 1 || !strings.Contains(p.Error(), tt.wantText) {
				t.Errorf("got %v\nwant one problem containing %q", ps, tt.wantText)
			}
			if c == nil {
				t.Error("no Config returned with a settings problem")
			}
		})
	}
}

func TestOpenAPIKey(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		line    string
		off     bool
		problem string
	}{
		{"", false, ""},
		{"openapi: true", false, ""},
		{"openapi: null", false, ""},
		{"openapi: false", true, ""},
		{"openapi: off", true, ""},
		{"openapi: maybe", false, "expected true or false"},
	} {
		dir := writeDir(t, map[string]string{"c.yaml": server("w", tt.line)})
		c, err := Load(opts(dir, []string{"c.yaml"}))
		if tt.problem != "" {
			p := findProblem(t, problemsOf(t, err), "w.resources_servers.w.openapi")
			if !strings.Contains(p.Message, tt.problem) {
				t.Errorf("%q: %v", tt.line, p)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", tt.line, err)
		}
		if inst, _ := c.Instance("w"); inst.OpenAPI == tt.off {
			t.Errorf("%q: OpenAPI = %v", tt.line, inst.OpenAPI)
		}
	}
}
