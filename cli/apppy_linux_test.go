package cli

import (
	"bytes"
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
// each says in one line that its launcher is gone (app.py, or gymkit when
// it got that far) and exits.
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
	exited := time.Now()
	pids := strings.Fields(string(out))
	if len(pids) != 4 {
		t.Fatalf("launcher printed %q, want 4 pids", out)
	}
	for i, s := range pids {
		pid, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		if took := waitGone(t, pid, 10*time.Second).Sub(exited); took > 5*time.Second {
			t.Errorf("server %d (pid %d) exited %v after its launcher", i, pid, took)
		}
		errFile := filepath.Join(logs, fmt.Sprintf("server%d.err", i))
		b, _ := os.ReadFile(errFile)
		if !launcherGone(cmd.Process.Pid, `^app\.py \(example_mcp_weather\): `).Match(b) && !launcherGone(cmd.Process.Pid, `^gymkit serve: --nemo: `).Match(b) {
			t.Errorf("server %d (pid %d) wrote %q, want one line saying that its launcher is gone", i, pid, b)
		}
	}
}
