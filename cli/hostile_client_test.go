package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
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
