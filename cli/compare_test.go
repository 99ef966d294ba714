package cli

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	rl "github.com/gymkit/gymkit/rollout"
)

// twoMeasureRows are two rows whose ground truth calls the diff server's
// tool once each: three steps per rollout (seed, measure, verify).
const twoMeasureRows = measureRows + `{"responses_create_params":{"input":"again"},"ground_truth":[{"name":"measure","arguments":"{\"unit\":\"km\"}"}]}` + "\n"

// startDiff serves a gymkit_test_diff instance named "diff", MCP on, with
// the given keys, in process on a loopback port (the real host, real
// HTTP), until the test ends, and returns its URL.
func startDiff(t *testing.T, keys ...string) string {
	t.Helper()
	e, err := rl.Start(context.Background(), rl.EmbedOptions{Files: []string{diffConfig(t, t.TempDir(), "ref.yaml", keys...)},
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e.URL
}

// floatAllow allows the float form of /measure's value wherever it shows,
// on both doors.
const floatAllow = `# the reference writes the value as an int
- route: POST /measure
  path: $.value
  reason: the reference writes 1
- route: POST /mcp tools/call measure
  path: $.result.structuredContent.value
  reason: the reference writes 1
- route: POST /mcp tools/call *
  path: $.result.content[*].text(json).value
  reason: the reference writes 1
- route: POST /verify
  path: $.response.output[*].output(json).value
  reason: the verify answer echoes the tool's output
`

// gymkit compare against two gymkit instances of the diff server, real
// HTTP on both sides, on both doors: identical instances compare equal
// (their MCP tokens, cookies and session ids masked), and each difference
// switched on is reported as such, with exit 1, unless the allow-list
// accepts it.
func TestCompare(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rows := writeFile(t, dir, "rows.jsonl", twoMeasureRows)
	allow := writeFile(t, dir, "allow.yaml", floatAllow)
	allowAll := writeFile(t, dir, "all.yaml", "- route: \"*\"\n  path: $\n  reason: any body\n- route: \"*\"\n  header: :status\n  reason: any status\n")
	shipped, err := filepath.Abs(filepath.Join("..", "docs", "examples", "compare-allow.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	const cookie = "set-cookie: diff: path=/; max-age=3600; httponly; samesite=lax vs diff: path=/; max-age=1209600; httponly; samesite=lax\n"

	type want struct {
		code    int
		summary string   // the summary line's counts, after "2 rollouts, 6 steps: "
		lines   []string // lines of stdout, each whole
	}
	for _, tc := range []struct {
		name   string
		ref    []string // the reference's keys
		gymkit []string // gymkit's keys
		args   []string
		http   want
		mcp    want
	}{
		{name: "identical", ref: []string{"echo_session: true"}, gymkit: []string{"echo_session: true"},
			http: want{0, "6 equal, 0 allowed, 0 different; 0 differences not allowed, 0 allowed", []string{
				"task 0 rollout 0 (line 1): 3 steps equal", "task 1 rollout 0 (line 2): 3 steps equal"}},
			mcp: want{0, "6 equal, 0 allowed, 0 different; 0 differences not allowed, 0 allowed", []string{
				"task 0 rollout 0 (line 1): 3 steps equal", "task 1 rollout 0 (line 2): 3 steps equal"}}},
		{name: "status", ref: []string{"tool_status: 418"},
			http: want{1, "2 equal, 0 allowed, 4 different; 14 differences not allowed, 0 allowed", []string{
				"  step 2 POST /measure: different",
				"    status: 418 vs 200",
				`    body $.detail: "measure refused" vs (absent) (missing)`,
				"    body $.value: (absent) vs 1.0 (extra)",
				"  step 3 POST /verify: different (the requests differ too)",
				`    body $.response.output[1].output(json).detail: "measure refused" vs (absent) (missing)`}},
			mcp: want{1, "2 equal, 0 allowed, 4 different; 8 differences not allowed, 0 allowed", []string{
				"  step 2 POST /mcp tools/call measure: different",
				`    body $.result.content[0].text: "HTTP 418 from POST /measure: measure refused" vs "{\"value\":1.0,\"unit\":\"m\"}" (value)`,
				"    body $.result.isError: true vs false (value)",
				`    body $.result.structuredContent: (absent) vs {"value":1.0,"unit":"m"} (extra)`}}},
		{name: "float form", ref: []string{"int_value: true"},
			http: want{1, "2 equal, 0 allowed, 4 different; 4 differences not allowed, 0 allowed", []string{
				"  step 2 POST /measure: different",
				"    body $.value: 1 vs 1.0 (number form)",
				"  step 3 POST /verify: different (the requests differ too)",
				"    body $.response.output[1].output(json).value: 1 vs 1.0 (number form)"}},
			mcp: want{1, "2 equal, 0 allowed, 4 different; 6 differences not allowed, 0 allowed", []string{
				"    body $.result.content[0].text(json).value: 1 vs 1.0 (number form)",
				"    body $.result.structuredContent.value: 1 vs 1.0 (number form)",
				"    body $.response.output[1].output(json).value: 1 vs 1.0 (number form)"}}},
		{name: "float form allowed", ref: []string{"int_value: true"}, args: []string{"--allow", allow},
			http: want{0, "2 equal, 4 allowed, 0 different; 0 differences not allowed, 4 allowed", []string{
				"  step 2 POST /measure: allowed",
				"    body $.value: 1 vs 1.0 (number form); allowed by " + allow + ":2: the reference writes 1",
				"    body $.response.output[1].output(json).value: 1 vs 1.0 (number form); allowed by " + allow + ":11: the verify answer echoes the tool's output",
				"gymkit compare: allow-list rule " + allow + ":5 allowed no difference",
				"gymkit compare: allow-list rule " + allow + ":8 allowed no difference"}},
			mcp: want{0, "2 equal, 4 allowed, 0 different; 0 differences not allowed, 6 allowed", []string{
				"    body $.result.structuredContent.value: 1 vs 1.0 (number form); allowed by " + allow + ":5: the reference writes 1",
				"    body $.result.content[0].text(json).value: 1 vs 1.0 (number form); allowed by " + allow + ":8: the reference writes 1",
				"gymkit compare: allow-list rule " + allow + ":2 allowed no difference"}}},
		{name: "cookie attribute", ref: []string{"session_lifetime: 1h"},
			http: want{1, "0 equal, 0 allowed, 6 different; 6 differences not allowed, 0 allowed", []string{
				"  step 1 POST /seed_session: different", "    " + strings.TrimSuffix(cookie, "\n"),
				"  step 2 POST /measure: different", "  step 3 POST /verify: different"}},
			mcp: want{1, "0 equal, 0 allowed, 6 different; 6 differences not allowed, 0 allowed", []string{
				"  step 1 POST /seed_session: different", "    " + strings.TrimSuffix(cookie, "\n"),
				"  step 2 POST /mcp tools/call measure: different", "  step 3 POST /verify: different"}}},
		{name: "missing key", gymkit: []string{"drop_note: true"},
			http: want{1, "4 equal, 0 allowed, 2 different; 2 differences not allowed, 0 allowed", []string{
				"  step 3 POST /verify: different", `    body $.note: "measured" vs (absent) (missing)`}},
			mcp: want{1, "4 equal, 0 allowed, 2 different; 2 differences not allowed, 0 allowed", []string{
				"  step 3 POST /verify: different", `    body $.note: "measured" vs (absent) (missing)`}}},
		{name: "clock", ref: []string{"clock: true"}, gymkit: []string{"clock: true"},
			http: want{1, "4 equal, 0 allowed, 2 different; 2 differences not allowed, 0 allowed", []string{
				"  step 3 POST /verify: different"}},
			mcp: want{1, "4 equal, 0 allowed, 2 different; 2 differences not allowed, 0 allowed", []string{
				"  step 3 POST /verify: different"}}},
		{name: "clock allowed by the shipped example", ref: []string{"clock: true"}, gymkit: []string{"clock: true"}, args: []string{"--allow", shipped},
			http: want{0, "4 equal, 2 allowed, 0 different; 0 differences not allowed, 2 allowed", []string{
				"  step 3 POST /verify: allowed",
				"gymkit compare: allow-list rule " + shipped + ":15 allowed no difference",
				"gymkit compare: allow-list rule " + shipped + ":20 allowed no difference",
				"gymkit compare: allow-list rule " + shipped + ":23 allowed no difference"}},
			mcp: want{0, "4 equal, 2 allowed, 0 different; 0 differences not allowed, 2 allowed", []string{
				"  step 3 POST /verify: allowed"}}},
		{name: "no answer, never allowed", ref: []string{"hang: true"}, args: []string{"--request-timeout", "300ms", "--allow", allowAll},
			http: want{1, "2 equal, 0 allowed, 4 different; 4 differences not allowed, 0 allowed", []string{
				"  reference: timeout: tool call measure: POST /measure: no answer within 300ms (--request-timeout)",
				"  step 2 POST /measure: different",
				"    error: POST /measure: no answer within 300ms (--request-timeout) vs answered 200",
				"  step 3 POST /verify: different",
				"    step: (absent) vs POST /verify; the reference's rollout stopped before this step"}},
			mcp: want{1, "2 equal, 0 allowed, 4 different; 4 differences not allowed, 0 allowed", []string{
				"  reference: timeout: tool call measure: POST /mcp tools/call measure: no answer within 300ms (--request-timeout)",
				"    error: POST /mcp tools/call measure: no answer within 300ms (--request-timeout) vs answered 200",
				"    step: (absent) vs POST /verify; the reference's rollout stopped before this step"}}},
	} {
		for _, door := range []string{"http", "mcp"} {
			w := tc.http
			if door == "mcp" {
				w = tc.mcp
			}
			t.Run(tc.name+"/"+door, func(t *testing.T) {
				t.Parallel()
				ref := startDiff(t, tc.ref...)
				cfg := diffConfig(t, t.TempDir(), "gymkit.yaml", tc.gymkit...)
				args := append([]string{"compare", "--reference", ref, "-c", cfg, "-i", rows, "--door", door}, tc.args...)
				code, stdout, stderr := gymkitRun(t, args...)
				if code != w.code {
					t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, w.code, stdout, stderr)
				}
				got := strings.Split(stdout, "\n")
				for _, line := range append(w.lines, "gymkit compare: 2 rollouts, 6 steps: "+w.summary) {
					if !slicesContains(got, line) {
						t.Errorf("stdout has no line %q:\n%s", line, stdout)
					}
				}
				if strings.Contains(stdout, "<TOKEN>") || strings.Contains(stdout, "session_id") {
					t.Errorf("a masked per-rollout value is reported:\n%s", stdout)
				}
				if tc.name == "clock" && !regexp.MustCompile(`\n    body \$\.judge_evaluations\[0\]\.response\.created_at: \d+\.\d+ vs \d+\.\d+ \(value\)\n`).MatchString(stdout) {
					t.Errorf("the clock field is not reported:\n%s", stdout)
				}
				if w.code == 1 && !strings.Contains(stderr, " not in the allow-list, in ") {
					t.Errorf("stderr:\n%s", stderr)
				}
			})
		}
	}
}

func slicesContains(lines []string, line string) bool {
	for _, l := range lines {
		if l == line {
			return true
		}
	}
	return false
}

// The gymkit side can be a running instance (--url), and the report file
// holds the same counts as the summary line.
func TestCompareURL(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rows := writeFile(t, dir, "rows.jsonl", twoMeasureRows)
	ref, gym := startDiff(t), startDiff(t, "int_value: true")
	report := filepath.Join(dir, "out", "report.json")
	code, stdout, stderr := gymkitRun(t, "compare", "--reference", ref, "--url", gym, "-i", rows, "--door", "mcp", "--report", report)
	if code != 1 || !strings.Contains(stdout, "    body $.result.structuredContent.value: 1.0 vs 1 (number form)\n") ||
		!strings.Contains(stdout, "gymkit compare: report written to "+report+"\n") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	var rep struct {
		Instance string `json:"instance"`
		Door     string `json:"door"`
		Summary  struct {
			Steps, Different, Differences int
		} `json:"summary"`
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Instance != "" || rep.Door != "mcp" || rep.Summary.Steps != 6 || rep.Summary.Different != 4 || rep.Summary.Differences != 6 {
		t.Errorf("report %+v", rep)
	}
}

// The JSON report's shape, golden: the differences the diff server makes
// (a float form, a cookie attribute, a missing key; a seed refused by the
// reference: its status and body, and the steps only gymkit sent), one
// kind allowed, one rule unused. The URLs are replaced by REFERENCE and
// GYMKIT.
func TestCompareReportGolden(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rows := writeFile(t, dir, "rows.jsonl", measureRows+
		`{"responses_create_params":{"input":"twice"},"ground_truth":[{"name":"measure","arguments":"{\"unit\":\"m\"}"},{"name":"measure","arguments":"{\"unit\":"}]}`+"\n")
	allow := writeFile(t, dir, "allow.yaml", `- route: "*"
  header: set-cookie
  reason: the reference runs with a one-hour session lifetime
- route: POST /verify
  path: $.judge_evaluations
  reason: never there
`)
	ref := startDiff(t, "int_value: true", "session_lifetime: 1h", "refuse_input: twice")
	cfg := diffConfig(t, dir, "gymkit.yaml", "drop_note: true")
	report := filepath.Join(dir, "report.json")
	code, stdout, stderr := gymkitRun(t, "compare", "--reference", ref, "-c", cfg, "-i", rows, "--allow", allow, "--report", report)
	if code != 1 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	gym := regexp.MustCompile(`serving in process at (http://127\.0\.0\.1:\d+)`).FindStringSubmatch(stderr)
	if gym == nil {
		t.Fatalf("stderr %q", stderr)
	}
	s := strings.NewReplacer(strconv.Quote(ref), `"REFERENCE"`, strconv.Quote(gym[1]), `"GYMKIT"`, dir+"/", "").Replace(string(b))
	golden(t, "compare_report.json", s)
}

func TestParseCompareArgs(t *testing.T) {
	t.Parallel()
	a, err := parseCompareArgs([]string{"--reference", "http://r:1", "-c", "a.yaml", "-i", "rows.jsonl", "--door=mcp", "--allow", "al.yaml",
		"--report", "rep.json", "--instance", "w", "--limit", "3", "--agent-name", "ag", "--port", "9000",
		"--request-timeout", "1m", "--max-answer-bytes", "1KiB", "x.y=1"})
	if err != nil {
		t.Fatal(err)
	}
	if a.reference != "http://r:1" || a.files[0] != "a.yaml" || a.input != "rows.jsonl" || a.door != "mcp" || a.allow != "al.yaml" ||
		a.report != "rep.json" || a.instance != "w" || a.limit != 3 || a.agentName != "ag" || a.port != 9000 ||
		a.requestTimeout.String() != "1m0s" || a.maxAnswerBytes != 1024 || len(a.overrides) != 1 {
		t.Errorf("%+v", a)
	}
	base := []string{"--reference", "http://r:1", "-c", "a.yaml", "-i", "r.jsonl"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-c", "a.yaml", "-i", "r.jsonl"}, "--reference URL (the reference server, e.g. the Python original) is required"},
		{[]string{"--reference", "http://r:1", "-c", "a.yaml"}, "--input FILE is required"},
		{[]string{"--reference", "http://r:1", "-i", "r.jsonl"}, "--config FILE is required (or --url URL of a running gymkit instance)"},
		{[]string{"--reference", "http://r:1", "--url", "http://g:1", "-i", "r.jsonl", "a=b"}, "key=value overrides need --config FILE"},
		{[]string{"--reference", "http://r:1", "--url", "http://g:1", "-i", "r.jsonl", "--port", "9000"}, "--port is the port of the instance gymkit compare starts; with --url it serves nothing"},
		{append(base, "--reference", "r:1"), `flag --reference: "r:1" is not an http:// or https:// URL`},
		{append(base, "--door", "sse"), `flag --door: "sse" is not a door: http or mcp`},
		{append(base, "--limit", "-1"), `flag --limit: "-1" is not a positive integer`},
		{append(base, "--request-timeout", "soon"), `flag --request-timeout: "soon" is not a positive duration such as 90s or 10m`},
		{append(base, "--output", "x"), "unknown flag --output"},
		{append(base, "rows.jsonl"), `unexpected argument "rows.jsonl": did you mean --input rows.jsonl?`},
	} {
		if _, err := parseCompareArgs(tc.args); err == nil || err.Error() != tc.want {
			t.Errorf("%q: error %v, want %q", tc.args, err, tc.want)
		}
	}
}

// Usage, input and allow-list errors exit 2 before anything is started or
// reached; an unreachable reference is one error, exit 1.
func TestCompareExitCodes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rows := writeFile(t, dir, "rows.jsonl", measureRows)
	cfg := diffConfig(t, dir, "gymkit.yaml")
	closed := "http://127.0.0.1:" + strconv.Itoa(closedPort(t))
	badAllow := writeFile(t, dir, "bad.yaml", "- route: POST /verify\n  path: value\n  reason: x\n- route: \"*\"\n  header: vary\n  reason: y\n- path: $.a\n  colour: red\n")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--reference", closed, "-c", cfg, "-i", rows, "--allow", badAllow}, 2,
			"gymkit compare: allow-list: " + badAllow + `:2: path "value": a path starts with "$"` + "\n" +
				badAllow + `:5: header "vary": a rule names :status, content-type or set-cookie` + "\n" +
				badAllow + `:8: unknown key "colour": a rule has route, path or header, and reason` + "\n" +
				badAllow + `:7: the rule has no route ("POST /verify", "*" for every route)` + "\n" +
				badAllow + ":7: the rule has no reason: say why the difference is accepted\n"},
		{[]string{"--reference", closed, "-c", cfg, "-i", rows, "--allow", filepath.Join(dir, "none.yaml")}, 2,
			"gymkit compare: allow-list: open " + filepath.Join(dir, "none.yaml") + ": no such file or directory\n"},
		{[]string{"--reference", closed, "-c", cfg, "-i", filepath.Join(dir, "none.jsonl")}, 2,
			"gymkit compare: input " + filepath.Join(dir, "none.jsonl") + ": no such file or directory\n"},
		{[]string{"--reference", closed, "-c", cfg, "-i", writeFile(t, dir, "bad.jsonl", "[]\n")}, 2,
			"gymkit compare: input " + filepath.Join(dir, "bad.jsonl") + " line 1: not a JSON object\n"},
		{[]string{"--reference", closed, "-c", cfg, "-i", rows, "--door", "mcp", "diff.resources_servers." + diffServerType + ".expose_tools_over_mcp=false"}, 2,
			`gymkit compare: --door mcp: instance "diff" does not serve MCP`},
		{[]string{"--reference", closed, "-c", filepath.Join(dir, "none.yaml"), "-i", rows}, 2, "none.yaml"},
		{[]string{"--reference", closed, "-c", cfg, "-i", rows}, 1, "gymkit compare: reference: cannot reach the instance at " + closed + ": "},
	} {
		code, stdout, stderr := gymkitRun(t, append([]string{"compare"}, tc.args...)...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr:\n%s\nwant %d and %q\nstdout:\n%s", tc.args, code, stderr, tc.code, tc.want, stdout)
		}
		if tc.code == 2 && strings.Contains(stderr, "serving in process") && !strings.Contains(tc.want, "does not serve MCP") {
			t.Errorf("%q: an instance was started before the error:\n%s", tc.args, stderr)
		}
	}
	code, stdout, _ := gymkitRun(t, "compare", "--help")
	if code != 0 || !strings.HasPrefix(stdout, "Usage: gymkit compare --reference URL") {
		t.Errorf("--help: exit %d\n%s", code, stdout)
	}
	_, stdout, _ = gymkitRun(t, "help")
	if !strings.Contains(stdout, "\tcompare  replay rows against a reference server") {
		t.Errorf("gymkit help does not list compare:\n%s", stdout)
	}
}
