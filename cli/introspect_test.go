package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/internal/buildinfo"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/")

// toolsServerType is a test-only server type with five tools (one of them a
// dict body, one keeping extra keys) and a session
// hook that narrows MCP to the seed body's "allowed" list.
const toolsServerType = "gymkit_test_tools"

func init() { framework.Register(toolsServerType, func() framework.Server { return new(toolsServer) }) }

type toolsServer struct{ framework.Base }

type alphaRequest struct {
	Name  string   `json:"name" required:"true" description:"who to greet"`
	Times int      `json:"times" default:"1"`
	Tags  []string `json:"tags"`
}

type openRequest struct {
	Name string `json:"name" required:"true"`
	framework.Extra
}

type okResponse struct {
	OK bool `json:"ok"`
}

func (s *toolsServer) Routes(r *framework.Router) {
	h := func(context.Context, alphaRequest) (okResponse, error) { return okResponse{true}, nil }
	framework.Post(r, "/alpha", h, framework.Description("Greet someone.\nTwice if asked."))
	framework.Post(r, "/beta", h, framework.Description("Beta."))
	framework.Post(r, "/gamma", h)
	framework.Post(r, "/delta", func(context.Context, framework.Object) (okResponse, error) { return okResponse{true}, nil },
		framework.Description("Takes any JSON object."))
	framework.Post(r, "/epsilon", func(context.Context, openRequest) (okResponse, error) { return okResponse{true}, nil },
		framework.Description("A name and any other keys."))
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{}, nil
	})
}

func (s *toolsServer) AllowedToolsForSession(_ context.Context, seed json.RawMessage) ([]string, error) {
	var body struct {
		Allowed []string `json:"allowed"`
	}
	_ = json.Unmarshal(seed, &body)
	return body.Allowed, nil
}

func toolsConfig(t *testing.T, extra string) string {
	t.Helper()
	return writeFile(t, t.TempDir(), "tools.yaml", "tools_inst:\n  resources_servers:\n    "+toolsServerType+":\n      domain: other\n"+extra)
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// gymkit tools, plain and --json, with and without a seed: golden output.
func TestToolsGolden(t *testing.T) {
	t.Parallel()
	cfg := toolsConfig(t, "      expose_tools_over_mcp: true\n")
	seedFile := writeFile(t, t.TempDir(), "seed.json", `{"allowed":["gamma","alpha"]}`)
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"tools.txt", nil},
		{"tools.json", []string{"--json"}},
		{"tools_seed.txt", []string{"--seed", `{"allowed":["gamma","alpha"]}`}},
		{"tools_seed.json", []string{"--seed=@" + seedFile, "--json"}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			code, stdout, stderr := gymkitRun(t, append([]string{"tools", "--config", cfg}, tc.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			golden(t, tc.golden, stdout)
		})
	}
	// With MCP off the list is the same, and says so.
	code, stdout, _ := gymkitRun(t, "tools", "--config", toolsConfig(t, ""))
	if code != 0 || !strings.Contains(stdout, "(expose_tools_over_mcp is false: the instance serves them over HTTP only)\n") {
		t.Errorf("mcp off: exit %d\n%s", code, stdout)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--seed", "{"}, 2, "gymkit tools: --seed: not a JSON document"},
		{[]string{"--seed", "@/nonexistent/seed.json"}, 2, "gymkit tools: --seed: open /nonexistent/seed.json"},
		{[]string{"--instance", "tool_inst"}, 2, `no instance "tool_inst" in the configuration; its instances: tools_inst (did you mean "tools_inst"?)`},
	} {
		code, _, stderr := gymkitRun(t, append([]string{"tools", "--config", cfg}, tc.args...)...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want %d, %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}

// gymkit check: every class of problem, all reported at once; exit 0 only
// when serve would start.
func TestCheck(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	weather := exampleConfig(t, "example_mcp_weather")
	redisAddr := "127.0.0.1:" + strconv.Itoa(closedPort(t))
	redisBlock := "library:\n  resources_servers:\n    example_mcp_weather:\n      domain: other\n      session:\n        store: redis\n        url: redis://" + redisAddr + "/0\n"
	noSecret := writeFile(t, dir, "redis-nosecret.yaml", redisBlock)
	withSecret := writeFile(t, dir, "redis.yaml", redisBlock+"      session_secret: 0123456789abcdef0123456789abcdef\n")
	for _, tc := range []struct {
		name  string
		files []string
		args  []string
		code  int
		want  []string
	}{
		{"ok", []string{weather}, nil, 0, []string{"ok example_mcp_weather (example_mcp_weather) 127.0.0.1:auto 1 tool, mcp on\n"}},
		{"ok port", []string{weather}, []string{"example_mcp_weather.resources_servers.example_mcp_weather.port=8123"}, 0, []string{"127.0.0.1:8123 "}},
		{"unreadable file", []string{filepath.Join(dir, "missing.yaml")}, nil, 2, []string{"missing.yaml"}},
		{"yaml syntax", []string{writeFile(t, dir, "bad.yaml", "a: [\n")}, nil, 2, []string{"bad.yaml"}},
		{"unknown type", []string{writeFile(t, dir, "type.yaml", "x:\n  resources_servers:\n    example_mcp_wether:\n      domain: other\n")}, nil, 2,
			[]string{"example_mcp_wether", "example_mcp_weather", `blank-import the package that calls framework.Register("example_mcp_wether", ...) in your main package`}},
		{"unknown server key and bad framework key, both", []string{weather}, []string{
			"example_mcp_weather.resources_servers.example_mcp_weather.default_cty=Paris",
			"example_mcp_weather.resources_servers.example_mcp_weather.max_body_bytes=lots"}, 2,
			[]string{"gymkit check: 2 problems; gymkit serve would not start:\n", "default_cty", "max_body_bytes"}},
		{"interpolation", []string{weather}, []string{"example_mcp_weather.resources_servers.example_mcp_weather.domain=${nope}"}, 2, []string{"nope"}},
		{"missing domain", []string{writeFile(t, dir, "nodomain.yaml", "x:\n  resources_servers:\n    "+toolsServerType+": {}\n")}, nil, 2, []string{"domain"}},
		{"weak secret (build refusal)", []string{weather}, []string{"example_mcp_weather.resources_servers.example_mcp_weather.session_secret=short"}, 1, []string{"session_secret"}},
		{"no config", nil, nil, 2, []string{"--config FILE is required"}},
		{"redis without session_secret, said once", []string{noSecret}, nil, 2,
			[]string{"gymkit check: 1 problem; gymkit serve would not start:\n\t" + noSecret + ":6: library.resources_servers.example_mcp_weather.session.store: redis needs session_secret set"}},
		{"redis store that does not answer", []string{withSecret}, nil, 0,
			[]string{"ok library (example_mcp_weather) 127.0.0.1:auto 1 tool, session store redis at " + redisAddr + ": does not answer (serve starts; calls that read or write rollout state answer 503 until it does)\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := []string{"check"}
			for _, f := range tc.files {
				args = append(args, "--config", f)
			}
			code, stdout, stderr := gymkitRun(t, append(args, tc.args...)...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stdout+stderr, w) {
					t.Errorf("output does not contain %q\nstdout:\n%s\nstderr:\n%s", w, stdout, stderr)
				}
			}
		})
	}
}

// gymkit check counts the tools tools/list lists: for a dispatcher (no typed
// tool) those its Tools hook exposes, as many as gymkit tools prints,
// narrowed by mcp.tools, the same with MCP off.
func TestCheckCountsListedTools(t *testing.T) {
	t.Parallel()
	math := exampleConfig(t, "math_advanced_calculations")
	const key = "math_advanced_calculations.resources_servers.math_advanced_calculations."
	code, stdout, stderr := gymkitRun(t, "tools", "--config", math, "--json")
	var list struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(stdout), &list); code != 0 || err != nil || len(list.Tools) != 11 {
		t.Fatalf("gymkit tools: exit %d, %d tools (%v), want 11\n%s\n%s", code, len(list.Tools), err, stdout, stderr)
	}
	for _, tc := range []struct {
		name      string
		overrides []string
		want      string
	}{
		{"mcp on", nil, "ok math_advanced_calculations (math_advanced_calculations) 127.0.0.1:auto 11 tools, mcp on\n"},
		{"mcp off", []string{key + "expose_tools_over_mcp=false"}, "ok math_advanced_calculations (math_advanced_calculations) 127.0.0.1:auto 11 tools\n"},
		{"mcp.tools", []string{key + "mcp.tools=[add, cos]"}, "ok math_advanced_calculations (math_advanced_calculations) 127.0.0.1:auto 2 tools, mcp on\n"},
		{"mcp.tools, mcp off", []string{key + "mcp.tools=[add]", key + "expose_tools_over_mcp=false"},
			"ok math_advanced_calculations (math_advanced_calculations) 127.0.0.1:auto 1 tool\n"},
	} {
		code, stdout, stderr := gymkitRun(t, append([]string{"check", "--config", math}, tc.overrides...)...)
		if code != 0 || stdout != tc.want {
			t.Errorf("%s: exit %d, stdout %q, want 0 and %q\n%s", tc.name, code, stdout, tc.want, stderr)
		}
	}
}

// NeMo's long instance name example_session_state_mgmt_resources_server
// makes both of the counter's tools long over MCP: the start says so once,
// naming them, not once per tool.
func TestLongToolNamesWarnedOnce(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := gymkitRun(t, "check", "--config", exampleConfig(t, "example_session_state_mgmt"), "--log-level", "warn")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	var long []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, "long") {
			long = append(long, l)
		}
	}
	const want = `level=WARN msg="MCP tool names are long: clients that prefix tools (mcp__<instance>__<tool>) may reject them" ` +
		`instance=example_session_state_mgmt_resources_server door=mcp count=2 tools="get_counter_value, increment_counter" ` +
		`longest=mcp__example_session_state_mgmt_resources_server__get_counter_value length=67 limit=64`
	if len(long) != 1 || !strings.HasSuffix(long[0], want) {
		t.Errorf("long-name warnings:\n%s\nwant one ending in\n%s", strings.Join(long, "\n"), want)
	}
}

// gymkit config prints the merged, resolved YAML with secrets masked.
func TestConfigDump(t *testing.T) {
	t.Parallel()
	cfg := writeFile(t, t.TempDir(), "c.yaml", "city: Paris\nw:\n  resources_servers:\n    example_mcp_weather:\n      domain: other\n      session_secret: s3cr3t-s3cr3t-s3cr3t-s3cr3t-s3cr3t-xyz\n      default_city: ${city}\n      max_tokens: 5\npolicy_api_key: sk-123\nmy_agent:\n  responses_api_agents:\n    simple_agent:\n      tokens: [t1, t2]\n")
	code, stdout, stderr := gymkitRun(t, "config", "--config", cfg, "w.resources_servers.example_mcp_weather.expose_tools_over_mcp=true")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := `city: Paris
my_agent:
  responses_api_agents:
    simple_agent:
      tokens:
        - <redacted>
        - <redacted>
policy_api_key: <redacted>
w:
  resources_servers:
    example_mcp_weather:
      default_city: Paris
      domain: other
      expose_tools_over_mcp: true
      max_tokens: 5
      session_secret: <redacted>
`
	if stdout != want {
		t.Errorf("got\n%s\nwant\n%s", stdout, want)
	}
	if strings.Contains(stdout, "s3cr3t") {
		t.Error("the secret was printed")
	}
}

func TestTypesAndVersion(t *testing.T) {
	t.Parallel()
	code, stdout, _ := gymkitRun(t, "types")
	if code != 0 || !strings.Contains(stdout, "example_mcp_weather\nexample_session_state_mgmt\n") || !strings.Contains(stdout, toolsServerType+"\n") {
		t.Errorf("types: exit %d\n%s", code, stdout)
	}
	want := "gymkit " + buildinfo.Version()
	for _, args := range [][]string{{"--version"}, {"serve", "--version"}, {"rollout", "-c", "x.yaml", "--version"}, {"check", "--version"}, {"tools", "--version"}, {"new", "--version"}, {"types", "--version"}} {
		code, stdout, stderr := gymkitRun(t, args...)
		if code != 0 || !strings.HasPrefix(stdout, want) || stderr != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %q...", args, code, stdout, stderr, want)
		}
	}
}

// The MCP door's serverInfo.version is the version --version prints.
func TestServerInfoVersion(t *testing.T) {
	t.Parallel()
	cfg := toolsConfig(t, "      expose_tools_over_mcp: true\n")
	a, err := parseIntroArgs([]string{"--config", cfg}, true)
	if err != nil {
		t.Fatal(err)
	}
	c, err := load(a, newLogger(os.Stderr, "text", 8))
	if err != nil {
		t.Fatal(err)
	}
	ci, _ := c.Instance("tools_inst")
	inst, err := buildOne(context.Background(), ci, newLogger(os.Stderr, "text", 8))
	if err != nil {
		t.Fatal(err)
	}
	code, body, _ := inproc(inst.Handler(), "/mcp", []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`),
		map[string][]string{"Accept": {"application/json, text/event-stream"}})
	var ans struct {
		Result struct {
			ServerInfo struct{ Name, Version string } `json:"serverInfo"`
		} `json:"result"`
	}
	if err := json.Unmarshal(body, &ans); code != 200 || err != nil || ans.Result.ServerInfo.Version != buildinfo.Version() {
		t.Errorf("initialize: %d %s; want serverInfo.version %q", code, body, buildinfo.Version())
	}
	_ = fmt.Sprint()
}
