package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeGo is a stand-in for the go command on app.py's PATH: `go build -o OUT
// PKG` logs one line (its pid, whether OUT existed, PKG, the folder it ran
// in), waits FAKE_GO_SLEEP seconds, then fails with a compiler-like message
// when FAKE_GO_FAIL is set, else writes OUT: a "binary" that prints which
// build made it, the path it was run as and its arguments.
const fakeGo = `#!/bin/sh
pre=no
[ -e "$3" ] && pre=yes
echo "$$ pre=$pre pkg=$4 cwd=$(pwd)" >> "$FAKE_GO_LOG"
/bin/sleep "${FAKE_GO_SLEEP:-0}"
if [ -n "$FAKE_GO_FAIL" ]; then
	echo "servers/my_env/my_env.go:1:1: syntax error: fake" >&2
	exit 1
fi
printf '#!/bin/sh\necho "build %s ran as $0 $*"\n' "$$" > "$3"
/bin/chmod 755 "$3"
`

// appModule writes a module with gymkit new (example.com/myenvs, binary
// myenvs, environment my_env) and returns its root with links resolved.
func appModule(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "myenvs")
	if code, so, se := gymkitRun(t, "new", "my_env", "--module", "example.com/myenvs", "--dir", root); code != 0 {
		t.Fatalf("gymkit new: exit %d\n%s%s", code, so, se)
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// fakeBinary writes an executable that prints who it is (label) and how it
// was run.
func fakeBinary(t *testing.T, path, label string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\necho \""+label+" ran as $0 $*\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// pythonExe is the interpreter python3 on PATH runs (sys.executable), so
// that it can be started with a PATH of the test's choosing (a pyenv shim
// needs bash on PATH).
var pythonExe = func() func(t *testing.T) string {
	var once sync.Once
	var exe string
	var err error
	return func(t *testing.T) string {
		t.Helper()
		once.Do(func() {
			var out []byte
			out, err = exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
			exe = strings.TrimSpace(string(out))
		})
		if err != nil || exe == "" {
			t.Fatalf("python3 (on PATH) does not run: these tests need it (%v)", err)
		}
		return exe
	}
}()

type appRun struct {
	code           int
	stdout, stderr string
}

// runApp starts n `python3 app.py` at once in dir, as NeMo's launcher starts
// several servers, with PATH holding only pathDir and the extra variables.
func runApp(t *testing.T, n int, dir, pathDir string, env ...string) []appRun {
	t.Helper()
	python := pythonExe(t)
	cmds := make([]*exec.Cmd, n)
	outs := make([]struct{ so, se bytes.Buffer }, n)
	for i := range cmds {
		c := exec.Command(python, "app.py")
		c.Dir = dir
		c.Env = append([]string{"PATH=" + pathDir, "HOME=" + t.TempDir(), "PYTHONDONTWRITEBYTECODE=1"}, env...)
		c.Stdout, c.Stderr = &outs[i].so, &outs[i].se
		cmds[i] = c
	}
	var wg sync.WaitGroup
	runs := make([]appRun, n)
	for i, c := range cmds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := c.Run(); c.ProcessState == nil {
				runs[i].code, runs[i].stderr = -1, err.Error()
				return
			}
			runs[i].code = c.ProcessState.ExitCode()
		}()
	}
	wg.Wait()
	for i := range runs {
		runs[i].stdout, runs[i].stderr = outs[i].so.String(), runs[i].stderr+outs[i].se.String()
	}
	return runs
}

// The generated app.py as NeMo's launcher runs it: in the server folder
// reached through a link, several at once. It finds or builds the binary
// (one build for processes started together; a failed build is one message
// per process and exit 1), and replaces itself with it running serve --nemo.
func TestAppPy(t *testing.T) {
	t.Parallel()
	type env struct {
		root, fakebin, log string
	}
	for _, tc := range []struct {
		name  string
		procs int
		// setup prepares the module and returns the folder app.py runs in and
		// the extra environment.
		setup func(t *testing.T, e env) (dir string, vars []string)
		check func(t *testing.T, e env, runs []appRun, builds []string)
	}{
		{
			name:  "four at once, no binary: one build, all run it",
			procs: 4,
			setup: func(t *testing.T, e env) (string, []string) {
				return filepath.Join(e.root, "resources_servers", "my_env"), []string{"FAKE_GO_SLEEP=2"}
			},
			check: func(t *testing.T, e env, runs []appRun, builds []string) {
				if len(builds) != 1 {
					t.Fatalf("go build ran %d times, want once:\n%s", len(builds), strings.Join(builds, "\n"))
				}
				pid, _, _ := strings.Cut(builds[0], " ")
				if want := pid + " pre=no pkg=. cwd=" + e.root; builds[0] != want {
					t.Errorf("go build: %q, want %q", builds[0], want)
				}
				want := fmt.Sprintf("build %s ran as %s serve --nemo\n", pid, filepath.Join(e.root, "bin", "myenvs"))
				for i, r := range runs {
					if r.code != 0 || r.stdout != want || r.stderr != "" {
						t.Errorf("process %d: exit %d, stdout %q, stderr %q; want %q", i, r.code, r.stdout, r.stderr, want)
					}
				}
				leftovers(t, e.root)
			},
		},
		{
			name:  "four at once, the build fails: one message each, exit 1",
			procs: 4,
			setup: func(t *testing.T, e env) (string, []string) {
				return filepath.Join(e.root, "resources_servers", "my_env"), []string{"FAKE_GO_SLEEP=2", "FAKE_GO_FAIL=1"}
			},
			check: func(t *testing.T, e env, runs []appRun, builds []string) {
				if len(builds) != 1 {
					t.Fatalf("go build ran %d times, want once:\n%s", len(builds), strings.Join(builds, "\n"))
				}
				bin := filepath.Join(e.root, "bin", "myenvs")
				builder := "servers/my_env/my_env.go:1:1: syntax error: fake\napp.py (my_env): `go build -o " + bin + " .` in " + e.root +
					" failed (exit status 1): fix the error above, or set GYMKIT_BIN to a built binary\n"
				waiter := "app.py (my_env): go build of " + bin +
					" failed in another app.py started at the same time (its output is above): fix the error, or set GYMKIT_BIN to a built binary\n"
				var nb, nw int
				for i, r := range runs {
					switch {
					case r.code == 1 && r.stdout == "" && r.stderr == builder:
						nb++
					case r.code == 1 && r.stdout == "" && r.stderr == waiter:
						nw++
					default:
						t.Errorf("process %d: exit %d, stdout %q, stderr %q", i, r.code, r.stdout, r.stderr)
					}
				}
				if nb != 1 || nw != 3 {
					t.Errorf("%d builder messages and %d waiter messages, want 1 and 3", nb, nw)
				}
				if _, err := os.Stat(bin); err == nil {
					t.Errorf("%s exists after a failed build", bin)
				}
				leftovers(t, e.root)
			},
		},
		{
			name:  "a temporary file left by a killed build is removed",
			procs: 1,
			setup: func(t *testing.T, e env) (string, []string) {
				fakeBinary(t, filepath.Join(e.root, "bin", ".myenvs.999999999.tmp"), "stale")
				return filepath.Join(e.root, "resources_servers", "my_env"), nil
			},
			check: func(t *testing.T, e env, runs []appRun, builds []string) {
				if len(builds) != 1 || runs[0].code != 0 || !strings.HasPrefix(runs[0].stdout, "build ") {
					t.Errorf("%+v, builds %q", runs, builds)
				}
				leftovers(t, e.root)
			},
		},
		{
			name:  "a binary already built: go build gets a copy at its output path, so it can keep it",
			procs: 1,
			setup: func(t *testing.T, e env) (string, []string) {
				fakeBinary(t, filepath.Join(e.root, "bin", "myenvs"), "old")
				return filepath.Join(e.root, "resources_servers", "my_env"), nil
			},
			check: func(t *testing.T, e env, runs []appRun, builds []string) {
				if len(builds) != 1 || !strings.Contains(builds[0], " pre=yes ") {
					t.Errorf("go build runs: %q, want one with its output path present", builds)
				}
				if len(runs) != 1 || runs[0].code != 0 || !strings.HasPrefix(runs[0].stdout, "build ") {
					t.Errorf("%+v: want the new build run", runs)
				}
			},
		},
		{
			name:  "a build record dated in the future (a clock set back, an older app.py) is not trusted: built again",
			procs: 1,
			setup: func(t *testing.T, e env) (string, []string) {
				fakeBinary(t, filepath.Join(e.root, "bin", "myenvs"), "old")
				mkfile(t, filepath.Join(e.root, "bin", ".myenvs.build"), "9999999999.000000 ok 1\n")
				return filepath.Join(e.root, "resources_servers", "my_env"), nil
			},
			check: func(t *testing.T, e env, runs []appRun, builds []string) {
				if len(builds) != 1 || runs[0].code != 0 || !strings.HasPrefix(runs[0].stdout, "build ") || runs[0].stderr != "" {
					t.Errorf("%+v, builds %q; want the binary built again and run", runs, builds)
				}
			},
		},
		{
			name:  "bin/myenvs is a directory: one line, exit 1",
			procs: 1,
			setup: func(t *testing.T, e env) (string, []string) {
				if err := os.MkdirAll(filepath.Join(e.root, "bin", "myenvs"), 0o755); err != nil {
					t.Fatal(err)
				}
				return filepath.Join(e.root, "resources_servers", "my_env"), nil
			},
			check: func(t *testing.T, e env, runs []appRun, builds []string) {
				want := "app.py (my_env): " + filepath.Join(e.root, "bin", "myenvs") + " is a directory: remove it (app.py builds the binary there)\n"
				if len(builds) != 0 || runs[0].code != 1 || runs[0].stdout != "" || runs[0].stderr != want {
					t.Errorf("%+v, builds %q; want exit 1 and %q", runs, builds, want)
				}
			},
		},
		{
			name:  "the build record is a directory: one line, exit 1",
			procs: 1,
			setup: func(t *testing.T, e env) (string, []string) {
				if err := os.MkdirAll(filepath.Join(e.root, "bin", ".myenvs.build"), 0o755); err != nil {
					t.Fatal(err)
				}
				return filepath.Join(e.root, "resources_servers", "my_env"), nil
			},
			check: func(t *testing.T, e env, runs []appRun, builds []string) {
				want := "app.py (my_env): " + filepath.Join(e.root, "bin", ".myenvs.build") + " is a directory: remove it (app.py records its builds there)\n"
				if len(builds) != 0 || runs[0].code != 1 || runs[0].stdout != "" || runs[0].stderr != want {
					t.Errorf("%+v, builds %q; want exit 1 and %q", runs, builds, want)
				}
			},
		},
		{
			name:  "go found through an empty PATH entry (the working directory, the server folder): run as that file",
			procs: 1,
			setup: func(t *testing.T, e env) (string, []string) {
				if err := os.Rename(filepath.Join(e.fakebin, "go"), filepath.Join(e.root, "servers", "my_env", "go")); err != nil {
					t.Fatal(err)
				}
				return filepath.Join(e.root, "resources_servers", "my_env"), []string{"PATH=:" + e.fakebin}
			},
			check: func(t *testing.T, e env, runs []appRun, builds []string) {
				if len(builds) != 1 || runs[0].code != 0 || !strings.HasPrefix(runs[0].stdout, "build ") || runs[0].stderr != "" {
					t.Errorf("%+v, builds %q; want the binary built by the folder's go, and run", runs, builds)
				}
			},
		},
		{
			name:  "the folder linked from another root (another depth): links are resolved before the module root",
			procs: 1,
			setup: func(t *testing.T, e env) (string, []string) {
				fakeBinary(t, filepath.Join(e.root, "bin", "myenvs"), "prebuilt")
				other := filepath.Join(t.TempDir(), "a", "b", "resources_servers")
				if err := os.MkdirAll(other, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(filepath.Join(e.root, "servers", "my_env"), filepath.Join(other, "my_env")); err != nil {
					t.Fatal(err)
				}
				if err := os.Remove(filepath.Join(e.fakebin, "go")); err != nil {
					t.Fatal(err)
				}
				return filepath.Join(other, "my_env"), nil
			},
			check: func(t *testing.T, e env, runs []appRun, builds []string) {
				want := "prebuilt ran as " + filepath.Join(e.root, "bin", "myenvs") + " serve --nemo\n"
				if len(builds) != 0 || runs[0].code != 0 || runs[0].stdout != want || runs[0].stderr != "" {
					t.Errorf("%+v, builds %q; want %q", runs, builds, want)
				}
			},
		},
		{
			name:  "app.py itself a link in a folder of another tree: the module root is found from the file it links to",
			procs: 1,
			setup: func(t *testing.T, e env) (string, []string) {
				fakeBinary(t, filepath.Join(e.root, "bin", "myenvs"), "prebuilt")
				folder := filepath.Join(t.TempDir(), "nemo", "resources_servers", "my_env")
				if err := os.MkdirAll(folder, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(filepath.Join(e.root, "servers", "my_env", "app.py"), filepath.Join(folder, "app.py")); err != nil {
					t.Fatal(err)
				}
				if err := os.Remove(filepath.Join(e.fakebin, "go")); err != nil {
					t.Fatal(err)
				}
				return folder, nil
			},
			check: func(t *testing.T, e env, runs []appRun, builds []string) {
				want := "prebuilt ran as " + filepath.Join(e.root, "bin", "myenvs") + " serve --nemo\n"
				if runs[0].code != 0 || runs[0].stdout != want || runs[0].stderr != "" {
					t.Errorf("%+v; want %q", runs, want)
				}
			},
		},
		{
			name:  "no Go, the binary of go build at the module root",
			procs: 1,
			setup: func(t *testing.T, e env) (string, []string) {
				fakeBinary(t, filepath.Join(e.root, "myenvs"), "root")
				if err := os.Remove(filepath.Join(e.fakebin, "go")); err != nil {
					t.Fatal(err)
				}
				return filepath.Join(e.root, "servers", "my_env"), nil
			},
			check: func(t *testing.T, e env, runs []appRun, builds []string) {
				want := "root ran as " + filepath.Join(e.root, "myenvs") + " serve --nemo\n"
				if runs[0].code != 0 || runs[0].stdout != want {
					t.Errorf("%+v; want %q", runs, want)
				}
			},
		},
		{
			name:  "no Go and no binary: one message, exit 1",
			procs: 1,
			setup: func(t *testing.T, e env) (string, []string) {
				if err := os.Remove(filepath.Join(e.fakebin, "go")); err != nil {
					t.Fatal(err)
				}
				return filepath.Join(e.root, "resources_servers", "my_env"), nil
			},
			check: func(t *testing.T, e env, runs []appRun, builds []string) {
				want := "app.py (my_env): no Go toolchain (go is not on PATH) and no myenvs binary: GYMKIT_BIN is unset, neither " +
					filepath.Join(e.root, "bin", "myenvs") + " nor " + filepath.Join(e.root, "myenvs") +
					" exists, and myenvs is not on PATH; build it (go build -o bin/myenvs . in the module root), install Go, or set GYMKIT_BIN\n"
				if runs[0].code != 1 || runs[0].stdout != "" || runs[0].stderr != want {
					t.Errorf("exit %d, stdout %q, stderr %q; want %q", runs[0].code, runs[0].stdout, runs[0].stderr, want)
				}
			},
		},
		{
			name:  "go on PATH but no go.mod at the root (a tree laid out by hand): the binary there, no build",
			procs: 1,
			setup: func(t *testing.T, e env) (string, []string) {
				fakeBinary(t, filepath.Join(e.root, "bin", "myenvs"), "by hand")
				if err := os.Remove(filepath.Join(e.root, "go.mod")); err != nil {
					t.Fatal(err)
				}
				return filepath.Join(e.root, "resources_servers", "my_env"), nil
			},
			check: func(t *testing.T, e env, runs []appRun, builds []string) {
				want := "by hand ran as " + filepath.Join(e.root, "bin", "myenvs") + " serve --nemo\n"
				if len(builds) != 0 || runs[0].code != 0 || runs[0].stdout != want {
					t.Errorf("%+v, builds %q; want %q", runs, builds, want)
				}
			},
		},
		{
			name:  "go on PATH, no go.mod and no binary: one message, exit 1",
			procs: 1,
			setup: func(t *testing.T, e env) (string, []string) {
				if err := os.Remove(filepath.Join(e.root, "go.mod")); err != nil {
					t.Fatal(err)
				}
				return filepath.Join(e.root, "resources_servers", "my_env"), nil
			},
			check: func(t *testing.T, e env, runs []appRun, builds []string) {
				want := "app.py (my_env): no go.mod at " + e.root + " to build from and no myenvs binary: GYMKIT_BIN is unset, neither " +
					filepath.Join(e.root, "bin", "myenvs") + " nor " + filepath.Join(e.root, "myenvs") +
					" exists, and myenvs is not on PATH; build it (go build -o bin/myenvs . in the module root), install Go, or set GYMKIT_BIN\n"
				if len(builds) != 0 || runs[0].code != 1 || runs[0].stderr != want {
					t.Errorf("%+v, builds %q; want %q", runs, builds, want)
				}
			},
		},
		{
			name:  "GYMKIT_BIN: run as it is, never built",
			procs: 1,
			setup: func(t *testing.T, e env) (string, []string) {
				bin := filepath.Join(t.TempDir(), "elsewhere")
				fakeBinary(t, bin, "pinned")
				return filepath.Join(e.root, "resources_servers", "my_env"), []string{"GYMKIT_BIN=" + bin}
			},
			check: func(t *testing.T, e env, runs []appRun, builds []string) {
				if len(builds) != 0 || runs[0].code != 0 || !strings.HasPrefix(runs[0].stdout, "pinned ran as ") || !strings.HasSuffix(runs[0].stdout, "/elsewhere serve --nemo\n") {
					t.Errorf("%+v, builds %q", runs, builds)
				}
			},
		},
		{
			name:  "GYMKIT_BIN not executable: one message, exit 1",
			procs: 1,
			setup: func(t *testing.T, e env) (string, []string) {
				return filepath.Join(e.root, "resources_servers", "my_env"), []string{"GYMKIT_BIN=" + filepath.Join(e.root, "go.mod")}
			},
			check: func(t *testing.T, e env, runs []appRun, builds []string) {
				want := "app.py (my_env): GYMKIT_BIN=" + filepath.Join(e.root, "go.mod") + " is not an executable file\n"
				if len(builds) != 0 || runs[0].code != 1 || runs[0].stderr != want {
					t.Errorf("%+v, builds %q; want %q", runs, builds, want)
				}
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := env{root: appModule(t), fakebin: t.TempDir()}
			e.log = filepath.Join(t.TempDir(), "go.log")
			if err := os.WriteFile(filepath.Join(e.fakebin, "go"), []byte(fakeGo), 0o755); err != nil {
				t.Fatal(err)
			}
			dir, vars := tc.setup(t, e)
			runs := runApp(t, tc.procs, dir, e.fakebin, append(vars, "FAKE_GO_LOG="+e.log)...)
			b, _ := os.ReadFile(e.log)
			var builds []string
			if s := strings.TrimSpace(string(b)); s != "" {
				builds = strings.Split(s, "\n")
			}
			tc.check(t, e, runs, builds)
		})
	}
}

// leftovers fails on temporary files app.py left in the module's bin/.
func leftovers(t *testing.T, root string) {
	t.Helper()
	entries, _ := os.ReadDir(filepath.Join(root, "bin"))
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("bin/%s left behind", e.Name())
		}
	}
}

// A launcher that dies while app.py builds (its parent is gone when the
// build is done) gets no server: app.py exits 1 instead of starting one
// that nothing would stop.
func TestAppPyParentGone(t *testing.T) {
	t.Parallel()
	root := appModule(t)
	fakebin, log := t.TempDir(), filepath.Join(t.TempDir(), "go.log")
	if err := os.WriteFile(filepath.Join(fakebin, "go"), []byte(fakeGo), 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "app.out")
	// sh stays app.py's parent (the "; exit" keeps it from exec'ing python);
	// it is killed while the build sleeps.
	parent := exec.Command("/bin/sh", "-c", `"$0" app.py > "$1" 2>&1; exit $?`, pythonExe(t), out)
	parent.Dir = filepath.Join(root, "resources_servers", "my_env")
	parent.Env = []string{"PATH=" + fakebin, "FAKE_GO_SLEEP=2", "FAKE_GO_LOG=" + log}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	waitFile(t, log) // the build has started
	if err := parent.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = parent.Wait()
	want := "app.py (my_env): the process that started app.py (pid " + strconv.Itoa(parent.Process.Pid) + ") is gone: not starting the server\n"
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, _ := os.ReadFile(out)
		if string(b) == want {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("app.py wrote %q, want %q", b, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
