package config

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/internal/testkit/launchertest"
)

// Every recorded NEMO_GYM_CONFIG_DICT (ways 1, 2, 3, 4a and 4b of
// ../shared/data/nemo-launcher/README.md) loads, for each of the four shipped instances, exactly
// that instance at the dict's host and port, with the other servers (my_go_env, a Python type
// gymkit does not know), the agent and the model left alone but readable, and neither the
// relative nor the absolute config_paths nor env.yaml read.
func TestDictRecordedLaunches(t *testing.T) {
	t.Parallel()
	for _, c := range launchertest.Captures(t) {
		for _, name := range launchertest.ShippedNames() {
			t.Run(c.Name+"/"+name, func(t *testing.T) {
				t.Parallel()
				tree := launchertest.NewTree(t)
				dict := c.Dict(t, tree)
				typ := launchertest.Shipped[name]
				dir := tree.ServerFolder(typ)
				tree.Decoys(t, dict, dir)
				cfg, err := Load(LoadOptions{Dict: dict, Instance: name, WorkDir: dir, LookupEnv: envMap(nil), Logger: quiet})
				if err != nil {
					t.Fatalf("Load: %v", err)
				}
				insts := cfg.Instances()
				if len(insts) != 1 || insts[0].Name != name || insts[0].ServerType != typ {
					t.Fatalf("instances %+v, want only %s (%s)", insts, name, typ)
				}
				host, port := launchertest.Addr(t, dict, name)
				if insts[0].Host != host || insts[0].Port != port {
					t.Errorf("%s:%d, want the dict's %s:%d", insts[0].Host, insts[0].Port, host, port)
				}
				if got := cfg.Files(); !slices.Equal(got, []string{"NEMO_GYM_CONFIG_DICT"}) {
					t.Errorf("Files() = %q: something beside the dict was read", got)
				}
				// The other blocks stay readable, their interpolations resolved on demand.
				if v := lookup(t, cfg, "policy_model.responses_api_models.openai_model.openai_base_url"); v != "http://127.0.0.1:18999/v1" {
					t.Errorf("the model's base URL = %v", v)
				}
				switch name {
				case "math_advanced_calculations":
					// ${example_mcp_weather.resources_servers.example_mcp_weather.domain}, another instance's key
					if d := insts[0].Raw["description"]; d != "math next to a agent env" {
						t.Errorf("description = %q", d)
					}
				case "workplace_assistant":
					// ${data_dir}/..., a relative data_dir resolving against the server folder
					var w struct {
						DataDir   Path           `koanf:"data_dir"`
						ToolsFile Path           `koanf:"tools_file"`
						Rest      map[string]any `koanf:",remain"`
					}
					if err := insts[0].Decode(&w); err != nil {
						t.Fatal(err)
					}
					base := dir
					if strings.Contains(c.Name, "abs_data_dir") || strings.Contains(c.Name, "overrides") {
						base = filepath.Join(tree.Root, "root") // ++data_dir=<CAPTURE_ROOT>/root/data/shared
					}
					want(t, "data_dir", string(w.DataDir), filepath.Join(base, "data/shared/workplace_assistant/csv_data"))
					want(t, "tools_file", string(w.ToolsFile), filepath.Join(base, "data/shared/workplace_assistant/tools.json"))
				}
			})
		}
	}
}

// What a dict loads and which problems it reports: only the named instance's, each located in
// the dict as in a file.
func TestDict(t *testing.T) {
	t.Parallel()
	other := "other:\n  resources_servers:\n    py_env:\n      domain: nope\n      key: ${missing.key}\n      mandatory: ???\n      port: 7001\n"
	agent := "agent:\n  responses_api_agents:\n    simple_agent:\n      url: ${policy_base_url}\n      port: 7002\n"
	tests := []struct {
		name     string
		dict     string
		dictName string
		instance string
		files    map[string]string // written into the working directory
		loadFile []string
		over     []string
		problems []string // Problem.Error() of each, in order; nil: loads
		check    func(t *testing.T, c *Config)
	}{
		{name: "the other blocks are neither validated nor served",
			dict: other + agent + server("w", "port: 7000", "description: next to ${other.resources_servers.py_env.port}") + "x: 1\nport_range_lwo: 5\nport: 5\n", instance: "w",
			check: func(t *testing.T, c *Config) {
				inst, _ := c.Instance("w")
				if len(c.Instances()) != 1 || inst.Port != 7000 || inst.Raw["description"] != "next to 7001" {
					t.Errorf("instances %+v", c.Instances())
				}
			}},
		{name: "a problem of the instance names the dict and the line",
			dict: other + server("w", "tool_timeout: soon"), instance: "w",
			problems: []string{"NEMO_GYM_CONFIG_DICT:12: w.resources_servers.w.tool_timeout: expected a duration like \"30s\" or \"1m30s\", got string \"soon\""}},
		{name: "DictName names the dict", dictName: "launcher dict",
			dict: "w:\n  resources_servers:\n    w:\n      domain: agnet\n", instance: "w",
			problems: []string{"launcher dict:4: w.resources_servers.w.domain: unknown domain \"agnet\": one of math, coding, agent, knowledge, instruction_following, long_context, safety, games, translation, e2e, rlhf, other; did you mean `agent`?"}},
		{name: "invalid YAML",
			dict: "a: [1\nb: 2\n", instance: "w",
			problems: []string{"NEMO_GYM_CONFIG_DICT:1: invalid YAML: did not find expected ',' or ']'"}},
		{name: "an instance the dict does not have",
			dict: other + agent + server("w"), instance: "ww",
			problems: []string{"NEMO_GYM_CONFIG_DICT: ww: no such resources-server instance to serve (a top-level key whose value has a resources_servers mapping); the instances of the configuration: other, w; did you mean `w`?"}},
		{name: "an agent is no instance",
			dict: other + agent + server("w"), instance: "agent",
			problems: []string{"NEMO_GYM_CONFIG_DICT: agent: no such resources-server instance to serve (a top-level key whose value has a resources_servers mapping); the instances of the configuration: other, w"}},
		{name: "overrides apply after the dict",
			dict: server("w", "port: 7000"), instance: "w", over: []string{"w.resources_servers.w.port=7005"},
			check: func(t *testing.T, c *Config) {
				if inst, _ := c.Instance("w"); inst.Port != 7005 {
					t.Errorf("port %d, want the override's 7005", inst.Port)
				}
			}},
		{name: "a top-level instance key on the command line is still refused",
			dict: server("w"), instance: "w", over: []string{"port=8000"},
			problems: []string{"command line: port: is not a top-level setting: it is an instance's key, under <instance>.resources_servers.<server type>; did you mean `w.resources_servers.w.port`?"}},
		{name: "an override of an instance the dict lacks",
			dict: server("w"), instance: "w", over: []string{"ww.resources_servers.ww.port=1"},
			problems: []string{"command line: ww.resources_servers.ww.port: no instance ww in the config (its instances: w); did you mean `w`?"}},
		{name: "neither config_paths nor env.yaml is read",
			dict: "config_paths: [configs/all.yaml, /nonexistent/all.yaml]\n" + server("w"), instance: "w",
			files: map[string]string{"configs/all.yaml": launchertest.Decoy, "env.yaml": launchertest.Decoy}, over: []string{"+config_paths=[configs/all.yaml]"},
			check: func(t *testing.T, c *Config) {
				if got := c.Files(); !slices.Equal(got, []string{"NEMO_GYM_CONFIG_DICT"}) {
					t.Errorf("Files() = %q", got)
				}
			}},
		{name: "files merge after the dict, without their config_paths",
			dict: server("w", "port: 7000"), instance: "w",
			files:    map[string]string{"more.yaml": "config_paths: [configs/all.yaml]\nw:\n  resources_servers:\n    w:\n      port: 7001\n", "configs/all.yaml": launchertest.Decoy},
			loadFile: []string{"more.yaml"},
			check: func(t *testing.T, c *Config) {
				if inst, _ := c.Instance("w"); inst.Port != 7001 || !slices.Equal(c.Files(), []string{"NEMO_GYM_CONFIG_DICT", "more.yaml"}) {
					t.Errorf("port %d, files %q", inst.Port, c.Files())
				}
			}},
		{name: "an instance of two server types",
			dict: "w:\n  resources_servers:\n    w: {domain: agent}\n  responses_api_agents:\n    a: {}\n", instance: "w",
			problems: []string{"NEMO_GYM_CONFIG_DICT:1: w: has more than one server type (resources_servers, responses_api_agents); an instance has exactly one"}},
		{name: "an empty dict", dict: "", instance: "w",
			problems: []string{"NEMO_GYM_CONFIG_DICT: w: no such resources-server instance to serve (a top-level key whose value has a resources_servers mapping); the instances of the configuration: none"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := writeDir(t, tt.files)
			o := opts(dir, tt.loadFile, tt.over...)
			o.Dict, o.DictName, o.Instance = []byte(tt.dict), tt.dictName, tt.instance
			c, err := Load(o)
			if tt.problems == nil {
				if err != nil {
					t.Fatalf("Load: %v", err)
				}
				tt.check(t, c)
				return
			}
			var got []string
			for _, p := range problemsOf(t, err) {
				got = append(got, p.Error())
			}
			if !slices.Equal(got, tt.problems) {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.problems, "\n"))
			}
		})
	}
}

// LoadOptions.Instance without a dict: the same rule for files.
func TestInstanceOfFiles(t *testing.T) {
	t.Parallel()
	dir := writeDir(t, map[string]string{"c.yaml": server("a", "port: 7000") + "b:\n  resources_servers:\n    b:\n      domain: nope\n      port: 7001\n"})
	o := opts(dir, []string{"c.yaml"})
	o.Instance = "a"
	c := mustLoad(t, o)
	if insts := c.Instances(); len(insts) != 1 || insts[0].Name != "a" || insts[0].Port != 7000 {
		t.Errorf("instances %+v, want only a", insts)
	}
	o.Instance = "b"
	p := findProblem(t, problemsOf(t, mustFail(t, o)), "b.resources_servers.b.domain")
	if p.File != "c.yaml" || p.Line != 9 {
		t.Errorf("problem %v", p)
	}
}

// The ports configured on the blocks left alone are never picked for the instance.
func TestDictAvoidsTheOtherPorts(t *testing.T) {
	t.Parallel()
	dict := "port_range_low: 7000\nport_range_high: 7002\n" + server("w") +
		"py:\n  resources_servers:\n    py_env: {port: 7000}\nagent:\n  responses_api_agents:\n    a: {port: 7001}\n"
	for range 20 {
		c := mustLoad(t, LoadOptions{Dict: []byte(dict), Instance: "w", WorkDir: t.TempDir(), LookupEnv: envMap(nil), Logger: quiet})
		if err := c.AssignPorts(func(string, int) error { return nil }); err != nil {
			t.Fatal(err)
		}
		if inst, _ := c.Instance("w"); inst.Port != 7002 {
			t.Fatalf("port %d, want 7002, the one port of the range no other block configures", inst.Port)
		}
	}
}

func mustFail(t *testing.T, o LoadOptions) error {
	t.Helper()
	_, err := Load(o)
	if err == nil {
		t.Fatal("Load succeeded")
	}
	return err
}
