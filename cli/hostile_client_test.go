package cli

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	rl "github.com/gymkit/gymkit/rollout"
)

// gymkit compare's --report is opened before anything runs: the --input or --allow file is
// refused (it used to be overwritten), so is a file that cannot be written (it used to be
// found only after the whole run), and a new report file is removed again when the run stops
// before a report.
func TestCompareReportFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rows := writeFile(t, dir, "rows.jsonl", measureRows)
	allow := writeFile(t, dir, "allow.yaml", floatAllow)
	cfg := diffConfig(t, dir, "gymkit.yaml")
	closed := "http://127.0.0.1:" + strconv.Itoa(closedPort(t))
	file := writeFile(t, dir, "file", "")
	for _, tc := range []struct {
		name   string
		report string
		code   int
		want   string // stderr, whole or (code 1) a part
	}{
		{"the input", rows, 2, "gymkit compare: --report " + rows + " is the --input file: the report would overwrite it\n"},
		{"the input, by another name", filepath.Join(dir, ".", "x", "..", "rows.jsonl"), 2,
			"gymkit compare: --report " + filepath.Join(dir, ".", "x", "..", "rows.jsonl") + " is the --input file: the report would overwrite it\n"},
		{"the allow-list", allow, 2, "gymkit compare: --report " + allow + " is the --allow file: the report would overwrite it\n"},
		{"under a file", filepath.Join(file, "r.json"), 2, "gymkit compare: --report: mkdir " + file + ": not a directory\n"},
		{"a new file, no report", filepath.Join(dir, "new", "r.json"), 1, "gymkit compare: reference: cannot reach the instance at " + closed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := gymkitRun(t, "compare", "--reference", closed, "-c", cfg, "-i", rows, "--allow", allow, "--report", tc.report)
			if code != tc.code || !strings.Contains(stderr, tc.want) || (tc.code == 2 && stderr != tc.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d and:\n%s\nstdout:\n%s", code, stderr, tc.code, tc.want, stdout)
			}
			for path, content := range map[string]string{rows: measureRows, allow: floatAllow} {
				if b, err := os.ReadFile(path); err != nil || string(b) != content {
					t.Errorf("%s was changed: %q, %v", path, b, err)
				}
			}
			if tc.code == 1 {
				if _, err := os.Stat(tc.report); !os.IsNotExist(err) {
					t.Errorf("the report file the run created is still there: %v", err)
				}
			}
		})
	}
}

// An allow-list rule that gives a key twice is refused: YAML keeps the last, so `path:
// $.nothing` then `path: $` allowed every difference without a word.
func TestAllowListDuplicateKey(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	allow := writeFile(t, dir, "allow.yaml", "- route: \"*\"\n  path: $.nothing\n  path: $\n  reason: one\n  reason: two\n")
	code, _, stderr := gymkitRun(t, "compare", "--reference", "http://127.0.0.1:1", "-c", diffConfig(t, dir, "g.yaml"),
		"-i", writeFile(t, dir, "rows.jsonl", measureRows), "--allow", allow)
	want := "gymkit compare: allow-list: " + allow + ":3: path is given twice in this rule (first at line 2): a rule has one route, one path or header, one reason\n" +
		allow + ":5: reason is given twice in this rule (first at line 4): a rule has one route, one path or header, one reason\n"
	if code != 2 || stderr != want {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 2 and:\n%s", code, stderr, want)
	}
}

// The client's flags are capped where a larger value would bound nothing or take the
// machine: --max-answer-bytes at 1GiB (9223372036854775807 used to overflow the bound),
// --num-repeats so that a run makes at most 1,000,000 rollouts (100000000 repeats of one row
// used to build every rollout up front until memory ran out). Each is refused at once,
// exit 2.
func TestClientFlagCaps(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rows := writeFile(t, dir, "rows.jsonl", measureRows)
	twoRows := writeFile(t, dir, "two.jsonl", twoMeasureRows)
	out := filepath.Join(dir, "out.jsonl")
	cfg := diffConfig(t, dir, "g.yaml")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"rollout", "-c", cfg, "-i", rows, "-o", out, "--max-answer-bytes", "9223372036854775807"},
			`gymkit rollout: flag --max-answer-bytes: "9223372036854775807" is more than 1GiB, the largest answer bound (an answer is held in memory, parsed)`},
		{[]string{"compare", "--reference", "http://127.0.0.1:1", "-c", cfg, "-i", rows, "--max-answer-bytes", "2GiB"},
			`gymkit compare: flag --max-answer-bytes: "2GiB" is more than 1GiB, the largest answer bound (an answer is held in memory, parsed)`},
		{[]string{"rollout", "-c", cfg, "-i", rows, "-o", out, "--num-repeats", "100000000"},
			"gymkit rollout: flag --num-repeats: 100000000 repeats of one row are more than the 1000000 rollouts a run makes"},
		{[]string{"rollout", "-c", cfg, "-i", twoRows, "-o", out, "--num-repeats", "600000"},
			"gymkit rollout: input " + twoRows + ": 2 rows × 600000 repeats is 1200000 rollouts; a run makes at most 1000000 (lower --num-repeats, or split the input)\n"},
	} {
		start := time.Now()
		code, stdout, stderr := gymkitRun(t, tc.args...)
		if code != 2 || !strings.HasPrefix(stderr, tc.want) || strings.Contains(stderr, "serving in process") || time.Since(start) > 5*time.Second {
			t.Errorf("%q: exit %d after %v, stderr:\n%s\nwant exit 2 and:\n%s\nstdout:\n%s", tc.args, code, time.Since(start), stderr, tc.want, stdout)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%q: %s was written", tc.args, out)
		}
	}
}

// gymkit rollout --url --door mcp against an instance that does not serve MCP stops at the
// first seed answer without an "mcp" key, with one error, exit 2, as it does with --config
// (it used to fail every rollout, one by one).
func TestRolloutURLDoorMCPWithoutMCP(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	e, err := rl.Start(context.Background(), rl.EmbedOptions{Files: []string{diffConfig(t, dir, "ref.yaml")},
		Overrides: []string{"diff.resources_servers." + diffServerType + ".expose_tools_over_mcp=false"}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	url := e.URL
	var rows strings.Builder
	for range 20 {
		rows.WriteString(measureRows)
	}
	code, stdout, stderr := gymkitRun(t, "rollout", "--url", url, "--door", "mcp", "-i", writeFile(t, dir, "rows.jsonl", rows.String()),
		"-o", filepath.Join(dir, "out.jsonl"))
	want := "gymkit rollout: --door mcp: the instance at " + url + ` does not serve MCP: its /seed_session answer has no "mcp" key (set expose_tools_over_mcp: true in its config, or use --door http)` + "\n"
	if code != 2 || stderr != want {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 2 and:\n%s\nstdout:\n%s", code, stderr, want, stdout)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "out_failures.jsonl")); err != nil || len(b) != 0 {
		t.Errorf("failures file: %q, %v; want it empty", b, err)
	}
}

// compare's line per rollout counts the steps by outcome, allowed ones apart from different
// ones (it used to say "2 of 3 steps different" with one of them allowed).
func TestCompareRolloutLineCountsAllowedApart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ref := startDiff(t, "int_value: true")
	allow := writeFile(t, dir, "allow.yaml", "- route: POST /measure\n  path: $.value\n  reason: the reference writes 1\n")
	code, stdout, stderr := gymkitRun(t, "compare", "--reference", ref, "-c", diffConfig(t, dir, "g.yaml"),
		"-i", writeFile(t, dir, "rows.jsonl", measureRows), "--allow", allow)
	want := "task 0 rollout 0 (line 1): 3 steps: 1 different, 1 allowed, 1 equal\n"
	if code != 1 || !strings.Contains(stdout, want) {
		t.Errorf("exit %d, stdout:\n%s\nwant exit 1 and the line\n%s\nstderr:\n%s", code, stdout, want, stderr)
	}
}
