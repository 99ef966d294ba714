package cli

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gymkit/gymkit/framework/host"
	"github.com/gymkit/gymkit/internal/testkit/launchertest"
)

// serveLive runs gymkit with args in process, in the environment and working directory the
// test set, until its first ready line; it returns that line, and stop, which cancels the
// serve and returns its exit status, the rest of stdout and stderr. A serve that exits before
// a ready line fails the test.
func serveLive(t *testing.T, args ...string) (ready string, stop func() (int, string, string)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	lines := newLineWriter()
	var stderr syncBuffer
	done := make(chan int, 1)
	go func() { done <- Run(ctx, args, lines, &stderr) }()
	stop = func() (int, string, string) {
		cancel()
		select {
		case code := <-done:
			return code, lines.rest(), stderr.String()
		case <-time.After(30 * time.Second):
			t.Fatalf("gymkit %q did not stop; stderr:\n%s", args, stderr.String())
			return 0, "", ""
		}
	}
	select {
	case ready = <-lines.lines:
		return ready, stop
	case code := <-done:
		cancel()
		t.Fatalf("gymkit %q: exit %d before a ready line; stdout %q, stderr:\n%s", args, code, lines.rest(), stderr.String())
	case <-time.After(60 * time.Second):
		code, _, se := stop()
		t.Fatalf("gymkit %q: no ready line in 60s (exit %d); stderr:\n%s", args, code, se)
	}
	return "", stop
}

// layOutWorkplaceData puts NeMo Gym's workplace_assistant data where the recorded dicts'
// data_dir names it: data/shared/workplace_assistant under the server folder dir (the relative
// data_dir: data/shared, resolved against the working directory) and under tree.Root/root (the
// absolute ++data_dir=<CAPTURE_ROOT>/root/data/shared of ways 2 and 4b).
func layOutWorkplaceData(t *testing.T, tree launchertest.Tree, dir string) {
	t.Helper()
	data := filepath.Join(launchertest.RepoRoot(t), "..", "shared", "data", "nemo-gym", "workplace_assistant")
	for _, base := range []string{dir, filepath.Join(tree.Root, "root")} {
		shared := filepath.Join(base, "data", "shared")
		if err := os.MkdirAll(shared, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(data, filepath.Join(shared, "workplace_assistant")); err != nil && !os.IsExist(err) {
			t.Fatal(err)
		}
	}
}

// Under NeMo's launcher, as recorded (ways 1, 2, 3, 4a and 4b of
// ../shared/data/nemo-launcher/README.md): for each of the four shipped environments, gymkit
// serve --nemo, started in the server folder with the launch's NEMO_GYM_CONFIG_DICT (its ports
// mapped to free ones) and NEMO_GYM_CONFIG_PATH, serves that one instance at the dict's host and
// port, prints one ready line, answers GET /, listens on none of the other servers' ports, and
// reads neither config_paths (relative or absolute) nor env.yaml: each holds text that is not
// YAML. my_go_env (a server type gymkit does not know), the agent and the model make no
// problem.
func TestServeNemoRecordedLaunches(t *testing.T) {
	for _, c := range launchertest.Captures(t) {
		for _, name := range launchertest.ShippedNames() {
			t.Run(c.Name+"/"+name, func(t *testing.T) {
				tree := launchertest.NewTree(t)
				dict := launchertest.FreePorts(t, c.Dict(t, tree))
				dir := tree.ServerFolder(launchertest.Shipped[name])
				tree.Decoys(t, dict, dir)
				layOutWorkplaceData(t, tree, dir)
				t.Setenv(envConfigDict, string(dict))
				t.Setenv(envConfigPath, name)
				t.Chdir(dir)

				ready, stop := serveLive(t, "serve", "--nemo")
				host, port := launchertest.Addr(t, dict, name)
				url := "http://" + net.JoinHostPort(host, strconv.Itoa(port))
				want := name + " " + url
				if _, _, b := launchertest.Block(t, dict, name); b["expose_tools_over_mcp"] == true {
					want += " mcp=" + url + "/mcp"
				}
				if ready != want {
					t.Errorf("ready line %q, want %q", ready, want)
				}
				res, err := http.Get(url + "/")
				if err != nil {
					t.Errorf("GET %s/: %v", url, err)
				} else {
					res.Body.Close()
					if res.StatusCode != http.StatusOK {
						t.Errorf("GET %s/: %d", url, res.StatusCode)
					}
				}
				for _, other := range []string{"example_mcp_weather", "example_session_state_mgmt_resources_server", "math_advanced_calculations", "workplace_assistant", "my_go_env"} {
					if other == name || !strings.Contains(string(dict), "\n"+other+":\n") {
						continue
					}
					h, p := launchertest.Addr(t, dict, other)
					if conn, err := net.DialTimeout("tcp", net.JoinHostPort(h, strconv.Itoa(p)), time.Second); err == nil {
						conn.Close()
						t.Errorf("something listens on %s's port %d", other, p)
					}
				}
				code, rest, stderr := stop()
				if code != 0 || rest != "" {
					t.Errorf("exit %d, more stdout %q, stderr:\n%s", code, rest, stderr)
				}
			})
		}
	}
}

// gymkit serve --nemo's refusals: each exits 2 with one clear message, nothing bound.
func TestServeNemoProblems(t *testing.T) {
	tree := launchertest.NewTree(t)
	var five []byte
	for _, c := range launchertest.Captures(t) {
		if c.Name == "way1_from_root" {
			five = launchertest.FreePorts(t, c.Dict(t, tree))
		}
	}
	weather := strings.Replace(string(five), "      expose_tools_over_mcp: true\n      mcp_token_secret", "      expose_tool_over_mcp: true\n      mcp_token_secret", 1)
	tests := []struct {
		name string
		env  map[string]string // "" unsets
		args []string
		want string // the whole of stderr
	}{
		{"no dict", map[string]string{envConfigDict: "", envConfigPath: "example_mcp_weather"}, []string{"serve", "--nemo"},
			"gymkit serve: --nemo: NEMO_GYM_CONFIG_DICT is not set: NeMo's launcher sets it to the merged config (YAML)\n"},
		{"no instance", map[string]string{envConfigDict: string(five), envConfigPath: ""}, []string{"serve"},
			"gymkit serve: --nemo: NEMO_GYM_CONFIG_PATH is not set: NeMo's launcher sets it to the instance's top-level name\n"},
		{"an instance the dict does not have", map[string]string{envConfigDict: string(five), envConfigPath: "example_mcp_wether"}, []string{"serve", "--nemo"},
			"gymkit serve: config: NEMO_GYM_CONFIG_DICT: example_mcp_wether: no such resources-server instance to serve (a top-level key whose value has a resources_servers mapping); " +
				"the instances of the configuration: example_mcp_weather, example_session_state_mgmt_resources_server, math_advanced_calculations, my_go_env, workplace_assistant; did you mean `example_mcp_weather`?\n"},
		{"the Python server", map[string]string{envConfigDict: string(five), envConfigPath: "my_go_env"}, []string{"serve", "--nemo"},
			"gymkit serve: config: NEMO_GYM_CONFIG_DICT:49: my_go_env.resources_servers.my_go_env: unknown server type \"my_go_env\" (registered: " + strings.Join(host.Names(), ", ") +
				"); blank-import the package that calls framework.Register(\"my_go_env\", ...) in your main package (e.g. _ \"example.com/myenvs/servers/my_go_env\")\n"},
		{"not YAML", map[string]string{envConfigDict: "a: [1\n", envConfigPath: "example_mcp_weather"}, []string{"serve", "--nemo"},
			"gymkit serve: config: NEMO_GYM_CONFIG_DICT:1: invalid YAML: did not find expected ',' or ']'\n"},
		{"a mistake in the instance's block", map[string]string{envConfigDict: weather, envConfigPath: "example_mcp_weather"}, []string{"serve", "--nemo"},
			"gymkit serve: config: NEMO_GYM_CONFIG_DICT:12: example_mcp_weather.resources_servers.example_mcp_weather.expose_tool_over_mcp: unknown key; did you mean `expose_tools_over_mcp`?\n"},
		{"an override of an instance the dict does not have", map[string]string{envConfigDict: string(five), envConfigPath: "example_mcp_weather"},
			[]string{"serve", "--nemo", "example_mcp_wether.resources_servers.example_mcp_weather.port=8000"},
			"gymkit serve: config: command line: example_mcp_wether.resources_servers.example_mcp_weather.port: no instance example_mcp_wether in the config (its instances: example_mcp_weather, example_session_state_mgmt_resources_server, math_advanced_calculations, my_go_env, workplace_assistant); did you mean `example_mcp_weather`?\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
				if v == "" {
					os.Unsetenv(k)
				}
			}
			t.Chdir(tree.ServerFolder("example_mcp_weather"))
			code, stdout, stderr := gymkit(t, tt.args...)
			if code != 2 || stdout != "" || stderr != tt.want {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 2 and:\n%s", code, stdout, stderr, tt.want)
			}
		})
	}
}

// Overrides on the command line apply after the dict.
func TestServeNemoOverride(t *testing.T) {
	tree := launchertest.NewTree(t)
	c := launchertest.Captures(t)[0]
	dict := launchertest.FreePorts(t, c.Dict(t, tree))
	t.Setenv(envConfigDict, string(dict))
	t.Setenv(envConfigPath, "example_mcp_weather")
	t.Chdir(tree.ServerFolder("example_mcp_weather"))
	port := closedPort(t)
	ready, stop := serveLive(t, "serve", "--nemo", fmt.Sprintf("example_mcp_weather.resources_servers.example_mcp_weather.port=%d", port),
		"example_mcp_weather.resources_servers.example_mcp_weather.expose_tools_over_mcp=false")
	if want := fmt.Sprintf("example_mcp_weather http://127.0.0.1:%d", port); ready != want {
		t.Errorf("ready line %q, want %q", ready, want)
	}
	if code, _, stderr := stop(); code != 0 {
		t.Errorf("exit %d\n%s", code, stderr)
	}
}
