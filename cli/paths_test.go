package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The shipped workplace_assistant config serves as it is from a working directory that is not
// the repository root (here the cli package's folder): its relative data_dir and tools_file
// resolve against its server folder, servers/workplace_assistant/, for check and rollout alike;
// a relative override resolves against the working directory.
func TestShippedConfigFromAnyFolder(t *testing.T) {
	t.Parallel()
	cfg := exampleConfig(t, "workplace_assistant")
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rows := filepath.Join("..", "..", "shared", "data", "nemo-gym", "workplace_assistant", "example.jsonl")
	out := filepath.Join(t.TempDir(), "results.jsonl")
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string // a prefix of stdout
		stderr string // a part of stderr
		after  func(t *testing.T)
	}{
		{"check", []string{"check", "--config", cfg}, 0, "ok workplace_assistant (workplace_assistant) 127.0.0.1:auto ", "", nil},
		{"check, a relative override", []string{"check", "--config", cfg, "workplace_assistant.resources_servers.workplace_assistant.data_dir=csv_data"}, 1, "",
			"provision: data_dir " + filepath.Join(wd, "csv_data") + ": open ", nil},
		{"rollout", []string{"rollout", "--config", cfg, "--input", rows, "--output", out}, 0, "", "", func(t *testing.T) {
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(b), `"reward":1.0`); n != 5 {
				t.Errorf("%d rows with reward 1.0 in %s, want the 5 rows", n, out)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := gymkitRun(t, tt.args...)
			if code != tt.code || !strings.HasPrefix(stdout, tt.stdout) || !strings.Contains(stderr, tt.stderr) {
				t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s\nwant exit %d, stdout starting %q, stderr holding %q", code, stdout, stderr, tt.code, tt.stdout, tt.stderr)
			}
			if tt.after != nil {
				tt.after(t)
			}
		})
	}
}
