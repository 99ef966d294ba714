package config

import (
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/internal/testkit/syncbuf"
)

// writeDir writes files (name -> YAML) into a fresh temporary directory and returns it.
func writeDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func envMap(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// opts are LoadOptions for files in dir with a fixed environment and a silent logger.
func opts(dir string, files []string, overrides ...string) LoadOptions {
	return LoadOptions{Files: files, Overrides: overrides, WorkDir: dir, LookupEnv: envMap(nil), Logger: quiet}
}

func mustLoad(t *testing.T, o LoadOptions) *Config {
	t.Helper()
	c, err := Load(o)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return c
}

// problemsOf returns the Problems inside err, failing the test when err is not one.
func problemsOf(t *testing.T, err error) Problems {
	t.Helper()
	var ps Problems
	if !errors.As(err, &ps) {
		t.Fatalf("error %v (%T) is not Problems", err, err)
	}
	return ps
}

// findProblem returns the problem about key, failing the test when there is none.
func findProblem(t *testing.T, ps Problems, key string) Problem {
	t.Helper()
	for _, p := range ps {
		if p.Key == key {
			return p
		}
	}
	t.Fatalf("no problem for key %q in:\n%v", key, ps)
	return Problem{}
}

// loadProblem writes yaml as c.yaml into a fresh directory, loads it, and
// returns the problem Load reports about key, with Load's error; it fails
// the test when Load does not fail with Problems, reports more than one
// problem, or none about key.
func loadProblem(t *testing.T, yaml, key string) (Problem, error) {
	t.Helper()
	dir := writeDir(t, map[string]string{"c.yaml": yaml})
	_, err := Load(opts(dir, []string{"c.yaml"}))
	ps := problemsOf(t, err)
	if len(ps) != 1 {
		t.Fatalf("want one problem, got:\n%v", err)
	}
	return findProblem(t, ps, key), err
}

// problemCase is a row of a problem table: one line of server block w
// (key w.resources_servers.w), the key of the one problem it makes, a part
// of that problem's message, and its suggestion ("" for none).
type problemCase struct {
	name, line, key, message, suggest string
}

// testProblems runs each case as a parallel subtest: loading the line
// makes exactly one problem, about the case's key, whose message holds the
// case's message and whose suggestion is the case's.
func testProblems(t *testing.T, cases []problemCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, _ := loadProblem(t, server("w", tt.line), tt.key)
			if !strings.Contains(p.Message, tt.message) || p.Suggestion != tt.suggest {
				t.Errorf("problem = %+v\nwant message %q, suggestion %q", p, tt.message, tt.suggest)
			}
		})
	}
}

func lookup(t *testing.T, c *Config, key string) any {
	t.Helper()
	v, err := c.Lookup(key)
	if err != nil {
		t.Fatalf("Lookup(%q): %v", key, err)
	}
	return v
}

// server is a minimal valid instance block; extra lines are indented under the server type.
func server(name string, extra ...string) string {
	var b strings.Builder
	b.WriteString(name + ":\n  resources_servers:\n    " + name + ":\n      domain: agent\n")
	for _, l := range extra {
		b.WriteString("      " + l + "\n")
	}
	return b.String()
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer = syncbuf.Buffer

// want fails the test when got, the value at key, is not wantValue.
func want(t *testing.T, key, got, wantValue string) {
	t.Helper()
	if got != wantValue {
		t.Errorf("%s = %q, want %q", key, got, wantValue)
	}
}
