package cli

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// gymkitRun runs the CLI in process with a live context and returns its
// exit status, stdout and stderr. The buffers are safe for concurrent use:
// an instance started in process logs on stderr from its own goroutines.
func gymkitRun(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr syncBuffer
	code := Run(context.Background(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// testRows is a row file of the rollout package's testdata.
func testRows(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "rollout", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestParseRolloutArgs(t *testing.T) {
	t.Parallel()
	a, err := parseRolloutArgs([]string{"-c", "a.yaml", "x.y=1", "--input=rows.jsonl", "--config", "b.yaml", "-o", "out.jsonl",
		"--door", "mcp", "++p.q=[a, b]", "--instance=w", "--concurrency", "3", "--limit", "0", "--num-repeats=4",
		"--agent-name", "ag", "--log-level", "debug", "--", "z=2"})
	if err != nil {
		t.Fatal(err)
	}
	want := rolloutArgs{commonFlags: commonFlags{files: []string{"a.yaml", "b.yaml"}, logFormat: "text", logLevel: slog.LevelDebug},
		overrides: []string{"x.y=1", "++p.q=[a, b]", "z=2"}, input: "rows.jsonl",
		output: "out.jsonl", door: "mcp", instance: "w", concurrency: 3, numRepeats: 4, agentName: "ag"}
	if fmt.Sprintf("%+v", a) != fmt.Sprintf("%+v", want) {
		t.Errorf("got  %+v\nwant %+v", a, want)
	}
	a, err = parseRolloutArgs([]string{"--url", "http://127.0.0.1:8000", "-i", "r.jsonl", "-o", "o.jsonl"})
	if err != nil || a.url != "http://127.0.0.1:8000" || a.door != "http" || a.logLevel != slog.LevelError {
		t.Errorf("--url: %+v, %v", a, err)
	}
}

func TestParseRolloutArgsErrors(t *testing.T) {
	t.Parallel()
	base := []string{"-c", "a.yaml", "-i", "r.jsonl", "-o", "o.jsonl"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-c", "a.yaml", "-o", "o.jsonl"}, "--input FILE is required"},
		{[]string{"-c", "a.yaml", "-i", "r.jsonl"}, "--output FILE is required"},
		{[]string{"-i", "r.jsonl", "-o", "o.jsonl"}, "--config FILE is required (or --url URL of a running instance)"},
		{[]string{"--url", "http://h:1", "-i", "r.jsonl", "-o", "o.jsonl", "a=b"}, "key=value overrides need --config FILE"},
		{append(base, "--door", "sse"), `flag --door: "sse" is not a door: http or mcp`},
		{append(base, "--concurrency", "0"), `flag --concurrency: "0" is not a positive integer`},
		{append(base, "--num-repeats=-1"), `flag --num-repeats: "-1" is not a positive integer`},
		{append(base, "--limit", "x"), `flag --limit: "x" is not a positive integer`},
		{append(base, "--url", "127.0.0.1:8000"), `flag --url: "127.0.0.1:8000" is not an http:// or https:// URL`},
		{append(base, "--bogus"), "unknown flag --bogus"},
		{append(base, "--door"), "flag --door needs a value"},
		{append(base, "rows.jsonl"), `unexpected argument "rows.jsonl": did you mean --input rows.jsonl?`},
		{append(base, "b.yaml"), `unexpected argument "b.yaml": did you mean --config b.yaml?`},
		{append(base, "--", "x"), `argument "x" after --: overrides have the form key=value`},
	} {
		if _, err := parseRolloutArgs(tc.args); err == nil || err.Error() != tc.want {
			t.Errorf("%q: error %v, want %q", tc.args, err, tc.want)
		}
	}
}

func TestRolloutHelp(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"rollout", "--help"}, {"help", "rollout"}, {"rollout", "-i", "x", "-h"}} {
		code, stdout, stderr := gymkitRun(t, args...)
		if code != 0 || !strings.Contains(stdout, "Usage: gymkit rollout --config FILE") || stderr != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
	_, stdout, _ := gymkitRun(t, "help")
	if !strings.Contains(stdout, "\trollout  replay dataset rows") {
		t.Errorf("gymkit help does not list rollout:\n%s", stdout)
	}
	code, _, stderr := gymkitRun(t, "rollout", "-c", "a.yaml", "-i", "x")
	if code != 2 || !strings.Contains(stderr, "gymkit rollout: --output FILE is required\nUsage: gymkit rollout") {
		t.Errorf("usage error: exit %d, stderr %q", code, stderr)
	}
}

// gymkit rollout on the weather rows, instance in process, both doors: exit
// 0, the key metrics and the summary on stdout.
func TestRolloutEmbedded(t *testing.T) {
	t.Parallel()
	for _, door := range []string{"http", "mcp"} {
		t.Run(door, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "weather.jsonl")
			code, stdout, stderr := gymkitRun(t, "rollout", "--config", exampleConfig(t, "example_mcp_weather"),
				"--input", testRows(t, "weather_recorded.jsonl"), "--output", out, "--door", door)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			agent := "example_mcp_weather_simple_agent"
			if door == "mcp" {
				agent = "example_mcp_weather_claude_code_agent"
			}
			for _, want := range []string{
				"\nKey metrics for " + agent + ":\n{\n    \"mean/reward\": 1.0,\n",
				"Aggregate metrics: " + strings.TrimSuffix(out, ".jsonl") + "_aggregate_metrics.json\n",
				"gymkit rollout: 5 rollouts through the " + door + " door of example_mcp_weather: 5 succeeded, 0 failed\n",
			} {
				if !strings.Contains(stdout, want) {
					t.Errorf("stdout does not contain %q:\n%s", want, stdout)
				}
			}
			if !strings.HasPrefix(stderr, "gymkit rollout: instance example_mcp_weather (example_mcp_weather) serving in process at http://127.0.0.1:") {
				t.Errorf("stderr %q", stderr)
			}
		})
	}
}

func TestRolloutExitCodes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	counterCfg := exampleConfig(t, "example_session_state_mgmt")
	rows := writeFile(t, dir, "rows.jsonl",
		`{"responses_create_params":{"input":"a"},"initial_count":1,"expected_count":1}`+"\n"+
			`{"responses_create_params":{"input":"b"},"expected_count":1}`+"\n")
	out := filepath.Join(dir, "out", "res.jsonl")

	// A seed 422: exit 1, every file written, the failure listed on stderr.
	code, stdout, stderr := gymkitRun(t, "rollout", "-c", counterCfg, "-i", rows, "-o", out)
	if code != 1 || !strings.Contains(stdout, "gymkit rollout: 2 rollouts through the http door of example_session_state_mgmt_resources_server: 1 succeeded, 1 failed (seed_failed: 1)\n") ||
		!strings.Contains(stderr, "gymkit rollout: 1 rollout failed; it is in "+filepath.Join(dir, "out", "res_failures.jsonl")+":\n  task 1 rollout 0: seed_failed: HTTP 422 from POST /seed_session: ") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, f := range []string{"res.jsonl", "res_failures.jsonl", "res_materialized_inputs.jsonl", "res_aggregate_metrics.json"} {
		if _, err := os.Stat(filepath.Join(dir, "out", f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-c", counterCfg, "-i", rows, "-o", out, "--door", "mcp", "example_session_state_mgmt_resources_server.resources_servers.example_session_state_mgmt.expose_tools_over_mcp=false"},
			`gymkit rollout: --door mcp: instance "example_session_state_mgmt_resources_server" does not serve MCP; set expose_tools_over_mcp: true (override: example_session_state_mgmt_resources_server.resources_servers.example_session_state_mgmt.expose_tools_over_mcp=true)`},
		{[]string{"-c", counterCfg, "-c", exampleConfig(t, "example_mcp_weather"), "-i", rows, "-o", out},
			"gymkit rollout: the configuration has 2 instances (example_mcp_weather, example_session_state_mgmt_resources_server): choose one with --instance NAME"},
		{[]string{"-c", counterCfg, "-i", rows, "-o", out, "example_session_state_mgmt_resources_server.resources_servers.example_session_state_mgmt.colour=1"},
			"colour"},
		{[]string{"-c", counterCfg, "-i", filepath.Join(dir, "missing.jsonl"), "-o", out},
			"gymkit rollout: input " + filepath.Join(dir, "missing.jsonl") + ": no such file or directory"},
		{[]string{"-c", filepath.Join(dir, "missing.yaml"), "-i", rows, "-o", out}, "missing.yaml"},
		{[]string{"-c", counterCfg, "-i", rows, "-o", out, "+num_repeats=4"},
			`gymkit rollout: "+num_repeats=4" is a NeMo collector option, not a config key: here it is the flag --num-repeats N`},
		{[]string{"-c", counterCfg, "-i", dir, "-o", out},
			"gymkit rollout: input " + dir + ": is a directory, not a file of rows"},
		{[]string{"-c", counterCfg, "-i", writeFile(t, dir, "notjson.jsonl", "{\"responses_create_params\":{}}\nnope\n"), "-o", out},
			"gymkit rollout: input " + filepath.Join(dir, "notjson.jsonl") + " line 2: not JSON"},
		{[]string{"-c", counterCfg, "-i", writeFile(t, dir, "empty.jsonl", "\n"), "-o", out},
			"gymkit rollout: input " + filepath.Join(dir, "empty.jsonl") + ": no rows"},
		{append([]string{"-c", counterCfg, "-i", rows, "-o", out, "--url", "http://127.0.0.1:1"}, "--port", "9000"),
			"gymkit rollout: --port is the port of the instance gymkit rollout starts; with --url it serves nothing"},
		{[]string{"-c", counterCfg, "-i", rows, "-o", out, "--port", "70000"},
			`gymkit rollout: flag --port: "70000" is not a port between 1 and 65535`},
	} {
		code, _, stderr := gymkitRun(t, append([]string{"rollout"}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
		// Nothing was started: input and usage errors come first.
		if strings.Contains(stderr, "serving in process") {
			t.Errorf("%q: an instance was started before the error:\n%s", tc.args, stderr)
		}
	}

	// One rollout: singular summary; --port places the instance.
	port := holdPort(t)
	code, _, stderr = gymkitRun(t, "rollout", "-c", counterCfg, "-i", rows, "-o", out, "--limit", "1", "--port", strconv.Itoa(port))
	if code != 1 || !strings.Contains(stderr, "gymkit rollout: serving instance example_session_state_mgmt_resources_server in process: listen tcp 127.0.0.1:"+strconv.Itoa(port)+": ") {
		t.Errorf("--port %d held by the test: exit %d, stderr %q", port, code, stderr)
	}
	code, stdout, stderr = gymkitRun(t, "rollout", "-c", counterCfg, "-i", rows, "-o", out, "--limit", "1")
	if code != 0 || !strings.Contains(stdout, "gymkit rollout: 1 rollout through the http door of example_session_state_mgmt_resources_server: 1 succeeded, 0 failed\n") {
		t.Errorf("--limit 1: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

// An unreachable --url is one clear error, exit 1, nothing written.
func TestRolloutUnreachableURL(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	url := "http://127.0.0.1:" + strconv.Itoa(closedPort(t))
	out := filepath.Join(dir, "out.jsonl")
	code, stdout, stderr := gymkitRun(t, "rollout", "--url", url, "-i", testRows(t, "weather_recorded.jsonl"), "-o", out, "--door", "mcp")
	want := "gymkit rollout: cannot reach the instance at " + url + ": "
	if code != 1 || !strings.HasPrefix(stderr, want) || strings.Count(stderr, "\n") != 1 || strings.Contains(stdout, "rollouts through") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s\nwant exit 1 and one line %q...", code, stdout, stderr, want)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("files written: %v", entries)
	}
}

// closedPort is a loopback port nothing listens on (it was free a moment ago).
func closedPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// gymkit rollout --url against a running gymkit serve: both doors, with and
// without --config (which then only names the instance).
func TestRolloutURLAgainstServe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := exampleConfig(t, "example_mcp_weather")
	cmd := exec.Command(os.Args[0], "serve", "--config", cfg)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), runMainEnv+"=1")
	stdout := newLineWriter()
	var stderr syncBuffer
	cmd.Stdout, cmd.Stderr = stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	var url string
	select {
	case line := <-stdout.lines:
		m := readyLine.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("ready line %q", line)
		}
		url = m[2]
	case <-time.After(20 * time.Second):
		t.Fatalf("no ready line after 20s; stderr:\n%s", stderr.String())
	}

	for _, tc := range []struct {
		args  []string
		agent string
	}{
		{[]string{"--door", "http"}, "simple_agent"},
		{[]string{"--door", "mcp"}, "claude_code_agent"},
		{[]string{"--door", "mcp", "--config", cfg}, "example_mcp_weather_claude_code_agent"},
	} {
		out := filepath.Join(dir, fmt.Sprintf("out%d.jsonl", len(tc.args)))
		args := append([]string{"rollout", "--url", url, "-i", testRows(t, "weather_recorded.jsonl"), "-o", out, "--num-repeats", "2"}, tc.args...)
		code, so, se := gymkitRun(t, args...)
		if code != 0 || !strings.Contains(so, "\nKey metrics for "+tc.agent+":\n{\n    \"mean/reward\": 1.0,") ||
			!strings.Contains(so, ": 10 succeeded, 0 failed\n") {
			t.Errorf("%q: exit %d\nstdout:\n%s\nstderr:\n%s", args, code, so, se)
		}
	}
}

// gymkit rollout warns on stderr, once per row, about each row that has
// nothing to replay, naming the row, its input line and why; the rows are
// still seeded and verified, and scored as the environment scores them.
func TestRolloutWarnsRowsWithNothingToReplay(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	recorded, err := os.ReadFile(testRows(t, "weather_recorded.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(recorded), "\n")
	rows := writeFile(t, dir, "rows.jsonl", strings.Join([]string{
		first, // row 0: a recorded rollout
		`{"responses_create_params":{"input":"a"},"verifier_metadata":{"expected_city":"Paris"}}`,
		`{"responses_create_params":{"input":"b"},"ground_truth":"Paris"}`,
		`{"responses_create_params":{"input":"c"},"response":{"id":"r","output":[{"type":"reasoning","summary":[]}]}}`,
		`{"responses_create_params":{"input":"d"},"response":{"id":"r"},"ground_truth":[{"name":"get_weather","arguments":{"city":"Rome"}}]}`,
		`{"responses_create_params":{"input":"e"},"ground_truth":[{"arguments":{"city":"Rome"}}]}`,
		``, // a blank line: the next row is on line 8
		`{"responses_create_params":{"input":"f"},"response":{"output":"none"},"ground_truth":null}`,
	}, "\n")+"\n")
	out := filepath.Join(dir, "res.jsonl")
	code, stdout, stderr := gymkitRun(t, "rollout", "-c", exampleConfig(t, "example_mcp_weather"), "-i", rows, "-o", out)
	if code != 0 || !strings.Contains(stdout, "7 rollouts through the http door of example_mcp_weather: 7 succeeded, 0 failed") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	const tail = "; it is only seeded and verified, with a response that has no output"
	want := []string{
		`gymkit rollout: warning: row 1 (input line 2) has nothing to replay: it has no recorded "response", and no "ground_truth"` + tail,
		`gymkit rollout: warning: row 2 (input line 3) has nothing to replay: it has no recorded "response", and its "ground_truth" is a string, not a list of {"name", "arguments"} calls` + tail,
		`gymkit rollout: warning: row 3 (input line 4) has nothing to replay: its recorded "response" has an "output" list with no function_call item and no assistant message` + tail,
		`gymkit rollout: warning: row 5 (input line 6) has nothing to replay: it has no recorded "response", and its "ground_truth" list holds no {"name": <string>, "arguments": ...} call` + tail,
		`gymkit rollout: warning: row 6 (input line 8) has nothing to replay: its "response" has no "output" list, and its "ground_truth" is null, not a list of {"name", "arguments"} calls` + tail,
	}
	var got []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "gymkit rollout: warning:") {
			got = append(got, l)
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The warned rows were run all the same: each has its result line.
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n != 7 {
		t.Errorf("%d result lines, want 7", n)
	}
}
