package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// appModuleWithGo is appModule with the fake go command (fakeGo) in a
// folder of its own, logging to the returned file.
func appModuleWithGo(t *testing.T) (root, fakebin, log string) {
	t.Helper()
	root, fakebin, log = appModule(t), t.TempDir(), filepath.Join(t.TempDir(), "go.log")
	if err := os.WriteFile(filepath.Join(fakebin, "go"), []byte(fakeGo), 0o755); err != nil {
		t.Fatal(err)
	}
	return root, fakebin, log
}

// startApp starts python3 app.py in dir with PATH=pathDir and env; its
// stdout and stderr are returned buffers.
func startApp(t *testing.T, dir, pathDir string, env ...string) (cmd *exec.Cmd, stdout, stderr *syncBuffer) {
	t.Helper()
	cmd = exec.Command(pythonExe(t), "app.py")
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + pathDir, "PYTHONDONTWRITEBYTECODE=1"}, env...)
	stdout, stderr = new(syncBuffer), new(syncBuffer)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return cmd, stdout, stderr
}

// goBuilds waits until the fake go has logged n builds and returns their
// pids.
func goBuilds(t *testing.T, log string, n int) []int {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		b, _ := os.ReadFile(log)
		if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); len(b) > 0 && len(lines) >= n {
			var pids []int
			for _, l := range lines {
				pid, _, _ := strings.Cut(l, " ")
				p, err := strconv.Atoi(pid)
				if err != nil {
					t.Fatalf("go.log: %q", l)
				}
				pids = append(pids, p)
			}
			return pids
		}
		if time.Now().After(deadline) {
			t.Fatalf("go build has not run %d times after 30s", n)
		}
	}
}

// A signal to app.py while go build runs (the launcher's SIGINT, a SIGTERM
// or SIGHUP to app.py alone) stops the build: go and what it started (the
// fake go's sleep) are killed with their process group, and app.py exits
// with 128 + the signal's number, without a traceback and without the
// server.
func TestAppPyStopDuringBuild(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			root, fakebin, log := appModuleWithGo(t)
			cmd, stdout, stderr := startApp(t, filepath.Join(root, "resources_servers", "my_env"), fakebin, "FAKE_GO_SLEEP=60", "FAKE_GO_LOG="+log)
			gopid := goBuilds(t, log, 1)[0]
			t.Cleanup(func() { _ = syscall.Kill(-gopid, syscall.SIGKILL); _ = syscall.Kill(gopid, syscall.SIGKILL) })
			signaled := time.Now()
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 128+int(sig) || stdout.String() != "" || stderr.String() != "" {
				t.Errorf("app.py: %v, stdout %q, stderr %q; want exit status %d and no output", err, stdout.String(), stderr.String(), 128+int(sig))
			}
			if took := waitGone(t, gopid, 10*time.Second).Sub(signaled); took > 5*time.Second { // before: its 60 s
				t.Errorf("go build ended %v after app.py's %v", took, sig)
			}
			for deadline := time.Now().Add(5 * time.Second); groupRuns(gopid); time.Sleep(5 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("go build's process group %d still has processes 5s after app.py's %v", gopid, sig)
				}
			}
			leftovers(t, root)
		})
	}
}

// groupRuns reports whether a process of process group pgid runs, a zombie
// waiting to be reaped aside (Linux: /proc/<pid>/stat, whose fields after
// the command name are the state, the parent and the process group).
func groupRuns(pgid int) bool {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range stats {
		b, err := os.ReadFile(f)
		i := strings.LastIndexByte(string(b), ')')
		if err != nil || i < 0 {
			continue
		}
		fields := strings.Fields(string(b[i+1:]))
		if len(fields) > 2 && fields[0] != "Z" && fields[0] != "X" && fields[2] == strconv.Itoa(pgid) {
			return true
		}
	}
	return false
}

// An app.py that finds the build lock held (a build that hangs) says after
// a few seconds which process holds it, then runs that build's result once
// it is released.
func TestAppPyLockWait(t *testing.T) {
	t.Parallel()
	root, fakebin, log := appModuleWithGo(t)
	lockPath := filepath.Join(root, "bin", ".myenvs.lock")
	mkfile(t, lockPath, "")
	lock, err := os.OpenFile(lockPath, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	if _, err := lock.WriteString(strconv.Itoa(os.Getpid())); err != nil {
		t.Fatal(err)
	}
	cmd, stdout, stderr := startApp(t, filepath.Join(root, "resources_servers", "my_env"), fakebin, "FAKE_GO_LOG="+log)
	want := "app.py (my_env): waiting for the build lock " + lockPath + " (pid " + strconv.Itoa(os.Getpid()) +
		" holds it: another app.py building " + filepath.Join(root, "bin", "myenvs") + ")\n"
	for deadline := time.Now().Add(30 * time.Second); stderr.String() != want; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("app.py's stderr after 30s: %q, want %q", stderr.String(), want)
		}
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_UN); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil || !strings.HasPrefix(stdout.String(), "build ") || stderr.String() != want {
		t.Errorf("app.py: %v, stdout %q, stderr %q; want its build run", err, stdout.String(), stderr.String())
	}
}

// A bin/ app.py cannot write (a read-only checkout, or another user's, as
// here: app.py runs as another user than bin/'s owner) builds nothing: a
// binary there runs as it is after one line saying so, even where an
// earlier build left its lock; without one, one line and exit 1.
func TestAppPyReadOnlyBin(t *testing.T) {
	t.Parallel()
	for _, built := range []bool{true, false} {
		t.Run(fmt.Sprintf("built=%v", built), func(t *testing.T) {
			t.Parallel()
			root, fakebin, log := appModuleWithGo(t)
			bin := filepath.Join(root, "bin")
			if built {
				fakeBinary(t, filepath.Join(bin, "myenvs"), "prebuilt")
				mkfile(t, filepath.Join(bin, ".myenvs.lock"), "")
				mkfile(t, filepath.Join(bin, ".myenvs.build"), "3 ok 1\n")
			} else if err := os.MkdirAll(bin, 0o755); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(pythonExe(t), "app.py")
			cmd.Dir = filepath.Join(root, "resources_servers", "my_env")
			cmd.Env = []string{"PATH=" + fakebin, "PYTHONDONTWRITEBYTECODE=1", "FAKE_GO_LOG=" + log}
			asAnotherUser(t, cmd, bin, []string{root, fakebin}, filepath.Dir(log))
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			if b, _ := os.ReadFile(log); len(b) > 0 {
				t.Errorf("go build ran: %s", b)
			}
			binary := filepath.Join(bin, "myenvs")
			if built {
				wantErr := "app.py (my_env): " + bin + " cannot be written by this user: running " + binary + " as it is, not brought up to date\n"
				if err != nil || stdout.String() != "prebuilt ran as "+binary+" serve --nemo\n" || stderr.String() != wantErr {
					t.Errorf("app.py: %v, stdout %q, stderr %q; want the binary run after %q", err, stdout.String(), stderr.String(), wantErr)
				}
				return
			}
			wantErr := "app.py (my_env): " + bin + " cannot be written by this user, so nothing can be built, and no myenvs binary is built (neither " +
				binary + " nor " + filepath.Join(root, "myenvs") + " exists, and myenvs is not on PATH): build it (go build -o bin/myenvs . in the module root) " +
				"as a user who can write there, or set GYMKIT_BIN to a built binary\n"
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 || stdout.String() != "" || stderr.String() != wantErr {
				t.Errorf("app.py: %v, stdout %q, stderr %q; want exit 1 and %q", err, stdout.String(), stderr.String(), wantErr)
			}
		})
	}
}

// asAnotherUser makes bin a folder cmd cannot write: as root, cmd runs as
// nobody (uid and gid 65534) and every folder of the test on the way to the
// readable folders is opened to it (logs, writable by it); else bin loses its write
// permission until the test ends.
func asAnotherUser(t *testing.T, cmd *exec.Cmd, bin string, readable []string, logs string) {
	t.Helper()
	if os.Geteuid() != 0 {
		if err := os.Chmod(bin, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.Chmod(bin, 0o755) })
		return
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	cmd.Path = nobodysPython(t)
	tmp, err := filepath.EvalSymlinks(os.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range append(readable, logs) {
		if !strings.HasPrefix(dir, tmp+string(filepath.Separator)) {
			t.Fatalf("%s is not under %s", dir, tmp)
		}
		for d := dir; d != tmp; d = filepath.Dir(d) { // the test's folders only
			if err := os.Chmod(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.Chmod(logs, 0o777); err != nil {
		t.Fatal(err)
	}
}

// nobodysPython is a python3 that uid 65534 can run: python3 on PATH's
// interpreter, else the system's.
func nobodysPython(t *testing.T) string {
	t.Helper()
	for _, py := range []string{pythonExe(t), "/usr/bin/python3", "/usr/local/bin/python3"} {
		cmd := exec.Command(py, "-c", "pass")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		if cmd.Run() == nil {
			return py
		}
	}
	t.Fatal("no python3 that uid 65534 can run: this test, run as root, needs one to run app.py as another user than bin/'s owner")
	return ""
}

// launcherGone is the line app.py (or gymkit) prints when the launcher that
// started it had exited before it looked, the leader of its process group.
func launcherGone(leader int, who string) *regexp.Regexp {
	return regexp.MustCompile(who + `the process that started (app\.py|this one) is gone: the leader of its process group \(pid ` + strconv.Itoa(leader) +
		`\) has exited, and the parent is pid \d+: not (starting the server|serving)\n$`)
}

// app.py started after its launcher died (bash starts it 300 ms after the
// launcher, the leader of its process group, exited): one line, exit 1,
// nothing built, no server.
func TestAppPyLauncherGoneAtStart(t *testing.T) {
	t.Parallel()
	root, fakebin, log := appModuleWithGo(t)
	errFile := filepath.Join(t.TempDir(), "stderr")
	env := []string{"PATH=" + fakebin, "PYTHONDONTWRITEBYTECODE=1", "FAKE_GO_LOG=" + log}
	launcher := launcherGroup(t, env, errFile, `( cd "$1" && /bin/sleep 0.3 && exec "$0" app.py ) & exit 0`,
		pythonExe(t), filepath.Join(root, "resources_servers", "my_env"))
	_ = launcher.Wait()
	waitContent(t, errFile, launcherGone(launcher.Process.Pid, `^app\.py \(my_env\): `))
	if b, _ := os.ReadFile(log); len(b) > 0 {
		t.Errorf("go build ran: %s", b)
	}
}

// The break-it tester's launcher: a Python program that starts four gymkit
// servers as NeMo's launcher does (Popen(shell=True, executable=/bin/bash)
// of `cd <folder> && python3 app.py`, the config in the environment) and
// exits at once, while python still starts app.py. No server survives it:
// each says that its launcher is gone (app.py in one line, or gymkit when it
// got that far) and exits.
func TestNemoLauncherDiesWhileSpawning(t *testing.T) {
	t.Parallel()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	gymkitFolder(t, root, "example_mcp_weather")
	logs := t.TempDir()
	launcher := writeFile(t, t.TempDir(), "launcher.py", `import os, subprocess, sys
for i in range(4):
    err = open(os.path.join(sys.argv[1], "server%d.err" % i), "w")
    p = subprocess.Popen("cd resources_servers/example_mcp_weather && python3 app.py", shell=True,
                         executable="/bin/bash", env=dict(os.environ), stdout=subprocess.DEVNULL, stderr=err)
    print(p.pid, flush=True)
`)
	bin := t.TempDir()
	if err := os.Symlink(pythonExe(t), filepath.Join(bin, "python3")); err != nil {
		t.Fatal(err)
	}
	dict := "example_mcp_weather:\n  resources_servers:\n    example_mcp_weather: {entrypoint: app.py, domain: agent, host: 127.0.0.1}\n"
	cmd := exec.Command(pythonExe(t), launcher, logs)
	cmd.Dir = root
	cmd.Env = []string{"PATH=" + bin, "PYTHONDONTWRITEBYTECODE=1", "GYMKIT_BIN=" + os.Args[0], runMainEnv + "=1", raceExitNow,
		envConfigDict + "=" + dict, envConfigPath + "=example_mcp_weather"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // as an interactive shell starts it
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	t.Cleanup(func() {
		if cmd.Process != nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
	})
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("launcher: %v\n%s", err, stderr.String())
	}
	// Usually app.py starts after the launcher exited and says so in one line;
	// on a loaded machine it (or gymkit) may start before, and see the
	// launcher go: app.py's line then names its parent, gymkit stops as at a
	// signal.
	gone := regexp.MustCompile(`^(app\.py \(example_mcp_weather\): the process that started app\.py .*is gone.*: not starting the server\n|` +
		`gymkit serve: --nemo: the process that started this one .*is gone.*: not serving\n|` +
		`(?s:.*msg="stopping at once: no new connections; the requests in flight are cut" cause="the process that started this one .*is gone.*msg=stopped\n))$`)
	pids := strings.Fields(string(out))
	if len(pids) != 4 {
		t.Fatalf("launcher printed %q, want 4 pids", out)
	}
	for i, s := range pids {
		pid, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		waitGone(t, pid, 30*time.Second) // in a few hundred ms; before, never
		errFile := filepath.Join(logs, fmt.Sprintf("server%d.err", i))
		b, _ := os.ReadFile(errFile)
		if !gone.Match(b) {
			t.Errorf("server %d (pid %d) wrote %q, want it to say that its launcher is gone", i, pid, b)
		}
	}
}
