//go:build linux

package nemolaunch

import (
	"bytes"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/cli"
)

// TestNewModuleUnderLauncher replays the recorded launches, as TestLauncherCaptures does,
// against a module made by `gymkit new my_go_env --module example.com/myenvs --replace
// <this checkout>`: its binary (built with go build) and its app.py. As a user porting the
// recording's my_go_env would, the test gives the generated server the block's keys
// (notes_file, extra_flag) and adds gymkit's shipped environments to main.go, so that the
// module serves the four shipped environments and my_go_env of every launch. Each folder's
// app.py is the module's (the one gymkit new wrote for my_go_env: it names no environment in
// what it runs).
func TestNewModuleUnderLauncher(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds a module with the go command")
	}
	root := filepath.Join(t.TempDir(), "myenvs")
	var stdout, stderr bytes.Buffer
	args := []string{"new", "my_go_env", "--module", "example.com/myenvs", "--dir", root, "--replace", repoRoot(t)}
	if code := cli.Run(t.Context(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("gymkit %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout.String(), stderr.String())
	}
	edit(t, filepath.Join(root, "servers", "my_go_env", "my_go_env.go"), "\tPrefix string `koanf:\"prefix\"`\n",
		"\tPrefix string `koanf:\"prefix\"`\n\tNotesFile string `koanf:\"notes_file\"`\n\tExtraFlag string `koanf:\"extra_flag\"`\n")
	edit(t, filepath.Join(root, "main.go"), "\t_ \"example.com/myenvs/servers/my_go_env\"",
		"\t_ \"example.com/myenvs/servers/my_go_env\"\n\t_ \"github.com/gymkit/gymkit/servers/all\"")
	goCmd(t, root, "mod", "tidy")
	bin := filepath.Join(root, "myenvs")
	goCmd(t, root, "build", "-o", bin, ".")
	app, err := os.ReadFile(filepath.Join(root, "servers", "my_go_env", "app.py"))
	if err != nil {
		t.Fatal(err)
	}

	types := maps.Clone(shipped)
	types["my_go_env"] = "my_go_env"
	replay(t, captures(t, types), treeOptions{data: true, binName: "myenvs", bin: bin,
		app: func(testing.TB, string) []byte { return app }})
}

// edit replaces the one occurrence of old in the file at path by new.
func edit(t *testing.T, path, old, new string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(b), old) != 1 {
		t.Fatalf("%s does not hold %q once:\n%s", path, old, b)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// goCmd runs the go command in dir, allowed to update go.mod and go.sum (GOFLAGS=-mod=mod),
// without cgo.
func goCmd(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
}
