//go:build linux

package cli

import (
	"bufio"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// raceExitNow stops a test binary built with -race (make test) from
// sleeping 1 s at exit (the race detector's atexit_sleep_ms), which the
// gymkit binary does not do: the tests below time the exit.
const raceExitNow = "GORACE=atexit_sleep_ms=0"

// slowDict is a NEMO_GYM_CONFIG_DICT with one instance, "slow", of the
// test-only slow server type on port, beside a Python server gymkit has no
// type for; its /slow tool writes started and waits for a file that is
// never written.
func slowDict(port int, started string) string {
	return fmt.Sprintf(`head_server: {host: 127.0.0.1, port: 11000}
python_env:
  resources_servers:
    some_python_env: {entrypoint: app.py, domain: other, host: 127.0.0.1, port: 1}
slow:
  resources_servers:
    %s:
      entrypoint: app.py
      domain: other
      started_file: %s
      release_file: %s
      host: 127.0.0.1
      port: %d
`, slowServerType, strconv.Quote(started), strconv.Quote(started+".never"), port)
}

// nemoProcess is this test binary running gymkit serve --nemo (see
// TestMain) under NeMo's launcher environment.
type nemoProcess struct {
	cmd    *exec.Cmd
	stderr *syncBuffer
	exited chan struct{} // closed once it has exited; then err is set
	err    error
	url    string
}

// startNemo starts gymkit serve --nemo with the dict and the instance name
// in its environment and waits for its ready line.
func startNemo(t *testing.T, dict, name string, port int) *nemoProcess {
	t.Helper()
	p := &nemoProcess{stderr: new(syncBuffer), exited: make(chan struct{}), url: "http://127.0.0.1:" + strconv.Itoa(port)}
	p.cmd = exec.Command(os.Args[0], "serve", "--nemo")
	p.cmd.Dir = t.TempDir()
	p.cmd.Env = append(os.Environ(), raceExitNow, runMainEnv+"=1", envConfigDict+"="+dict, envConfigPath+"="+name)
	lines := newLineWriter()
	p.cmd.Stdout, p.cmd.Stderr = lines, p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() { _ = p.cmd.Process.Kill(); <-p.exited })
	select {
	case line := <-lines.lines:
		if line != name+" "+p.url {
			t.Fatalf("ready line %q, want %q", line, name+" "+p.url)
		}
	case <-p.exited:
		t.Fatalf("exited before it was ready (%v):\n%s", p.err, p.stderr.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("no ready line after 60s:\n%s", p.stderr.String())
	}
	return p
}

// waitFile waits (30 s at most) until path exists.
func waitFile(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(2 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s was not written within 30s", path)
		}
	}
}

// Under serve --nemo a SIGINT, SIGTERM or SIGHUP stops gymkit at once, with a
// request in flight: it exits 0 within 1 s (NeMo's launcher SIGKILLs it
// after 1 s), the request gets no answer and is logged as cut (instance,
// method, path), and "stopped" is logged once. Ctrl-C's two SIGINTs, 2 ms
// apart (the terminal's, then the launcher's), change nothing.
func TestServeNemoStopsAtOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		signals []syscall.Signal
	}{
		{"one SIGINT", []syscall.Signal{syscall.SIGINT}},
		{"two SIGINTs 2ms apart", []syscall.Signal{syscall.SIGINT, syscall.SIGINT}},
		{"SIGTERM", []syscall.Signal{syscall.SIGTERM}},
		{"SIGTERM then SIGINT", []syscall.Signal{syscall.SIGTERM, syscall.SIGINT}},
		{"SIGHUP (a closed terminal), as SIGTERM", []syscall.Signal{syscall.SIGHUP}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			port := closedPort(t)
			started := filepath.Join(t.TempDir(), "started")
			p := startNemo(t, slowDict(port, started), "slow", port)
			answer := make(chan error, 1)
			go func() {
				resp, err := http.Post(p.url+"/slow", "application/json", strings.NewReader("{}"))
				if err == nil {
					resp.Body.Close()
					err = fmt.Errorf("answered %d", resp.StatusCode)
				} else {
					err = nil
				}
				answer <- err
			}()
			waitFile(t, started)
			first := time.Now()
			for i, sig := range tc.signals {
				if i > 0 {
					time.Sleep(2 * time.Millisecond)
				}
				_ = p.cmd.Process.Signal(sig) // the process may be gone at the second
			}
			select {
			case <-p.exited:
			case <-time.After(30 * time.Second):
				t.Fatalf("still running 30s after the signal:\n%s", p.stderr.String())
			}
			if took := time.Since(first); took > time.Second {
				t.Errorf("exited %v after the first signal, want at most 1s", took)
			}
			if p.err != nil {
				t.Errorf("exit: %v, want status 0\n%s", p.err, p.stderr.String())
			}
			if err := <-answer; err != nil {
				t.Errorf("the request in flight: %v, want no answer", err)
			}
			logs := p.stderr.String()
			// The cause is the first signal gymkit saw: two signals of different
			// kinds pending at once (2 ms apart on a loaded machine) are handed
			// over in signal-number order by Go's runtime.
			var causes []string
			for _, sig := range tc.signals {
				causes = append(causes, regexp.QuoteMeta(sig.String()))
			}
			stopping := regexp.MustCompile(`msg="stopping at once: no new connections; the requests in flight are cut" cause="(` + strings.Join(causes, "|") + `) signal received"`)
			if n := len(stopping.FindAllString(logs, -1)); n != 1 {
				t.Errorf("stderr matches %s %d times, want once:\n%s", stopping, n, logs)
			}
			for _, want := range []string{
				`level=WARN msg="request cut" instance=slow method=POST path=/slow duration=`,
				`level=INFO msg=stopped`,
			} {
				if n := strings.Count(logs, want); n != 1 {
					t.Errorf("stderr holds %q %d times, want once:\n%s", want, n, logs)
				}
			}
			if strings.Contains(logs, "draining") {
				t.Errorf("serve --nemo drained:\n%s", logs)
			}
		})
	}
}

// serve --nemo started with SIGHUP ignored (nohup, which a launcher's
// servers inherit), by itself or through app.py (which keeps it ignored
// for the binary it runs), keeps ignoring it, and still stops at SIGINT.
func TestServeNemoNohup(t *testing.T) {
	t.Parallel()
	for _, viaApp := range []bool{false, true} {
		t.Run(fmt.Sprintf("app.py=%v", viaApp), func(t *testing.T) {
			t.Parallel()
			port := closedPort(t)
			dir := t.TempDir()
			cmd := exec.Command("/bin/sh", "-c", `trap "" HUP; exec "$0" serve --nemo`, os.Args[0])
			if viaApp {
				gymkitFolder(t, dir, "example_mcp_weather")
				cmd = exec.Command("/bin/sh", "-c", `trap "" HUP; cd resources_servers/example_mcp_weather && exec "$0" app.py`, pythonExe(t))
			}
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), raceExitNow, runMainEnv+"=1", "GYMKIT_BIN="+os.Args[0],
				envConfigDict+"="+slowDict(port, filepath.Join(dir, "started")), envConfigPath+"=slow")
			lines, stderr := newLineWriter(), new(syncBuffer)
			cmd.Stdout, cmd.Stderr = lines, stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			t.Cleanup(func() { _ = cmd.Process.Kill() })
			select {
			case <-lines.lines:
			case err := <-exited:
				t.Fatalf("exited before it was ready (%v):\n%s", err, stderr.String())
			case <-time.After(60 * time.Second):
				t.Fatal("no ready line after 60s")
			}
			_ = cmd.Process.Signal(syscall.SIGHUP)
			select {
			case err := <-exited:
				t.Fatalf("SIGHUP, ignored at start, ended it (%v):\n%s", err, stderr.String())
			case <-time.After(300 * time.Millisecond):
			}
			_ = cmd.Process.Signal(syscall.SIGINT)
			select {
			case err := <-exited:
				if err != nil || !strings.Contains(stderr.String(), `cause="interrupt signal received"`) {
					t.Errorf("exit %v after SIGINT, want 0 and the SIGINT as the cause:\n%s", err, stderr.String())
				}
			case <-time.After(30 * time.Second):
				t.Fatal("still running 30s after SIGINT")
			}
		})
	}
}

// After the first SIGINT, serve --nemo ignores the signals that follow,
// where plain serve is ended by a second one. The first SIGINT comes while
// the instance is being built (a Provision that waits for the test), the
// second once the first has been seen (Provision's context is done), and
// the build then finishes: serve --nemo exits 0 without serving, plain
// serve was killed by the second SIGINT.
func TestServeLaterSignals(t *testing.T) {
	t.Parallel()
	for _, nemo := range []bool{true, false} {
		t.Run(fmt.Sprintf("nemo=%v", nemo), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			provision := filepath.Join(dir, "provision")
			port := closedPort(t)
			dict := slowDict(port, filepath.Join(dir, "started")) + "      provision_file: " + strconv.Quote(provision) + "\n"
			cmd := exec.Command(os.Args[0], "serve", "--nemo")
			if !nemo {
				_, block, _ := strings.Cut(dict, "\nslow:\n") // the slow instance alone (no Python server)
				cmd = exec.Command(os.Args[0], "serve", "--config", writeFile(t, dir, "slow.yaml", "slow:\n"+block))
			}
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), raceExitNow, runMainEnv+"=1", envConfigDict+"="+dict, envConfigPath+"=slow")
			var stdout, stderr syncBuffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			t.Cleanup(func() { _ = cmd.Process.Kill() })
			waitFile(t, provision)
			_ = cmd.Process.Signal(syscall.SIGINT)
			waitFile(t, provision+".canceled")
			time.Sleep(50 * time.Millisecond) // Main's handler has also acted on the first signal
			_ = cmd.Process.Signal(syscall.SIGINT)
			if err := os.WriteFile(provision+".release", nil, 0o644); err != nil {
				t.Fatal(err)
			}
			var err error
			select {
			case err = <-exited:
			case <-time.After(30 * time.Second):
				t.Fatalf("still running 30s after the signals:\n%s", stderr.String())
			}
			var ee *exec.ExitError
			killed := errors.As(err, &ee) && ee.Sys().(syscall.WaitStatus).Signaled() && ee.Sys().(syscall.WaitStatus).Signal() == syscall.SIGINT
			switch {
			case nemo && err != nil:
				t.Errorf("serve --nemo: %v, want exit status 0\n%s", err, stderr.String())
			case !nemo && !killed:
				t.Errorf("serve: %v, want killed by the second SIGINT\n%s", err, stderr.String())
			}
			if stdout.String() != "" {
				t.Errorf("stdout %q: a ready line after SIGINT", stdout.String())
			}
		})
	}
}

// Under serve --nemo with NeMo's nemo_gym_log_dir shape, `(cd <folder> &&
// exec gymkit) 2>&1 | tee <log>` run by bash, gymkit's parent is that bash,
// which the launcher SIGKILLs without a SIGINT to gymkit: gymkit exits
// within 1 s of its parent's death, logging why, and tee, the other reader
// of its output, then ends too.
func TestServeNemoParentGone(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal("bash is needed to run NeMo's command shape")
	}
	dir := t.TempDir()
	port := closedPort(t)
	logFile := filepath.Join(dir, "slow.log")
	cmd := exec.Command(bash, "-c", `(cd "$1" && exec "$0" serve --nemo) 2>&1 | tee "$2" >/dev/null`, os.Args[0], dir, logFile)
	cmd.Env = append(os.Environ(), raceExitNow, runMainEnv+"=1", envConfigDict+"="+slowDict(port, filepath.Join(dir, "started")), envConfigPath+"=slow")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	// bash's two children: gymkit (this test binary) and tee.
	self, _ := os.Readlink("/proc/self/exe")
	var gymkitPID, teePID int
	for deadline := time.Now().Add(30 * time.Second); gymkitPID == 0 || teePID == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("bash (pid %d) has no gymkit and tee children after 30s", cmd.Process.Pid)
		}
		gymkitPID, teePID = 0, 0
		for _, pid := range childPIDs(cmd.Process.Pid) {
			switch exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); {
			case exe == self:
				gymkitPID = pid
			case filepath.Base(exe) == "tee":
				teePID = pid
			}
		}
	}
	waitReady := time.Now().Add(60 * time.Second)
	for {
		if resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(port) + "/"); err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(waitReady) {
			b, _ := os.ReadFile(logFile)
			t.Fatalf("gymkit does not answer after 60s:\n%s", b)
		}
		time.Sleep(10 * time.Millisecond)
	}
	killed := time.Now()
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	gone := waitGone(t, gymkitPID, 30*time.Second)
	if took := gone.Sub(killed); took > time.Second {
		t.Errorf("gymkit exited %v after its parent was SIGKILLed, want at most 1s", took)
	}
	waitGone(t, teePID, 30*time.Second) // tee reads to the end of gymkit's output, then ends
	b, _ := os.ReadFile(logFile)
	logs := string(b)
	cause := regexp.MustCompile(`msg="stopping at once: no new connections; the requests in flight are cut" cause="the process that started this one \(pid (\d+)\) is gone: the parent is now pid \d+"`)
	if m := cause.FindStringSubmatch(logs); m == nil || m[1] != strconv.Itoa(cmd.Process.Pid) {
		t.Errorf("the log does not say that bash (pid %d) is gone:\n%s", cmd.Process.Pid, logs)
	}
	if strings.Count(logs, "msg=stopped") != 1 {
		t.Errorf("the log does not say stopped once:\n%s", logs)
	}
}

// With its output gone (the reader of its stdout and stderr pipes closed,
// as when tee is killed), gymkit serve --nemo ends at its next log record,
// killed by SIGPIPE (Go's rule for fds 1 and 2), instead of serving on or
// looping on write errors.
func TestServeNemoOutputClosed(t *testing.T) {
	t.Parallel()
	port := closedPort(t)
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "serve", "--nemo")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), raceExitNow, runMainEnv+"=1", envConfigDict+"="+slowDict(port, filepath.Join(cmd.Dir, "started")), envConfigPath+"=slow")
	cmd.Stdout, cmd.Stderr = outW, outW
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	outW.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	r := bufio.NewReader(outR)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("no ready line: %v", err)
		}
		if strings.HasPrefix(line, "slow http://") {
			break
		}
	}
	outR.Close() // the reader is gone
	url := "http://127.0.0.1:" + strconv.Itoa(port) + "/"
	if resp, err := http.Get(url); err == nil { // logged: the write of the record raises SIGPIPE
		resp.Body.Close()
	}
	select {
	case err = <-exited:
	case <-time.After(30 * time.Second):
		t.Fatal("still running 30s after its output was closed and a request was logged")
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || !ee.Sys().(syscall.WaitStatus).Signaled() || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGPIPE {
		t.Errorf("exit: %v, want killed by SIGPIPE", err)
	}
}

// childPIDs lists the children of pid (Linux: /proc/<pid>/task/*/children).
func childPIDs(pid int) []int {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	var out []int
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		for _, s := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(s); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// waitGone polls until process pid has exited (no /proc entry, or a zombie
// not yet reaped by its new parent) and returns when it saw that; it fails
// the test after limit.
func waitGone(t *testing.T, pid int, limit time.Duration) time.Time {
	t.Helper()
	for deadline := time.Now().Add(limit); ; time.Sleep(2 * time.Millisecond) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if errors.Is(err, os.ErrNotExist) {
			return time.Now()
		}
		// The state is the field after the parenthesized command name.
		if i := strings.LastIndexByte(string(b), ')'); err == nil && i > 0 && strings.HasPrefix(string(b[i:]), ") Z") {
			return time.Now()
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d still running after %v", pid, limit)
		}
	}
}

// A port already in use is one line naming the instance, the port and the
// host, exit status 1, under serve and under serve --nemo.
func TestServePortInUse(t *testing.T) {
	t.Parallel()
	port := holdPort(t)
	cfg := writeFile(t, t.TempDir(), "busy.yaml", fmt.Sprintf("busy:\n  resources_servers:\n    %s:\n      domain: other\n      port: %d\n", slowServerType, port))
	code, stdout, stderr := gymkit(t, "serve", "--config", cfg)
	want := fmt.Sprintf("gymkit serve: instance \"busy\": port %d on 127.0.0.1 is already in use; stop what listens there, or configure another port (without a port, an instance gets a free one)\n", port)
	if code != 1 || stdout != "" || stderr != want {
		t.Errorf("serve: exit %d, stdout %q, stderr %q; want 1 and %q", code, stdout, stderr, want)
	}

	cmd := exec.Command(os.Args[0], "serve", "--nemo")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), runMainEnv+"=1", envConfigDict+"="+slowDict(port, filepath.Join(cmd.Dir, "started")), envConfigPath+"=slow")
	var so, se syncBuffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	want = fmt.Sprintf("gymkit serve: instance \"slow\": port %d on 127.0.0.1 is already in use; NeMo's launcher assigned it (NEMO_GYM_CONFIG_DICT): is a server of an earlier launch still running?\n", port)
	if ee := (*exec.ExitError)(nil); !errors.As(err, &ee) || ee.ExitCode() != 1 || so.String() != "" || se.String() != want {
		t.Errorf("serve --nemo: %v, stdout %q, stderr %q; want exit 1 and %q", err, so.String(), se.String(), want)
	}
}

// --drain-timeout does not apply under --nemo: a usage error that says why.
func TestServeNemoDrainTimeoutRefused(t *testing.T) {
	t.Parallel()
	code, _, stderr := gymkit(t, "serve", "--nemo", "--drain-timeout", "5s")
	if want := "gymkit serve: --drain-timeout does not apply under --nemo: serve --nemo stops at once, since NeMo's launcher kills a server 1s after its SIGINT\n"; code != 2 || stderr != want {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, want)
	}
}

// fillPipe fills the pipe whose ends are r and w (w as the child holds it:
// in blocking mode) until a write on it would block: it writes from a
// goroutine, which ends once r is closed, and returns once the bytes the
// pipe holds have stopped growing near its capacity (a pipe is full when
// its pages are, so it may hold less than its capacity).
func fillPipe(t *testing.T, r, w *os.File) {
	t.Helper()
	go func() { _, _ = w.Write(make([]byte, 1<<20)) }()
	const fGetPipeSz, fionread = 1032, 0x541B
	capacity, _, errno := syscall.Syscall(syscall.SYS_FCNTL, r.Fd(), fGetPipeSz, 0)
	if errno != 0 {
		t.Fatal("F_GETPIPE_SZ:", errno)
	}
	last, since := int32(-1), time.Now()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		var n int32
		if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, r.Fd(), fionread, uintptr(unsafe.Pointer(&n))); errno != 0 {
			t.Fatal("FIONREAD:", errno)
		}
		if n != last {
			last, since = n, time.Now()
		}
		if uintptr(n) >= capacity/2 && time.Since(since) >= 50*time.Millisecond {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the pipe holds %d bytes after 10s, and its capacity is %d", n, capacity)
		}
	}
}

// Once stopping, serve --nemo exits within 900 ms whatever blocks it, with
// status 1 when that deadline ends it (NeMo's launcher SIGKILLs it 1 s after
// its SIGINT; a parent's death is seen by no one): a stderr nobody reads
// (a stopped tee, Ctrl-S), on which the "stopping" record blocks, at a
// SIGINT and when its parent dies; a SIGINT while the configuration is still
// loading (a Provision that does not return).
func TestServeNemoStopDeadline(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal("bash is needed for a parent to kill")
	}
	for _, tc := range []struct {
		name     string
		load     bool // SIGINT during the load, not while serving
		parent   bool // kill the parent (a bash), not SIGINT
		blockLog bool // stderr: a pipe nobody reads, full once the server is ready
	}{
		{name: "SIGINT, stderr blocked", blockLog: true},
		{name: "parent killed, stderr blocked", parent: true, blockLog: true},
		{name: "SIGINT during a slow load", load: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			port := closedPort(t)
			provision := filepath.Join(dir, "provision")
			dict := slowDict(port, filepath.Join(dir, "started"))
			if tc.load {
				dict += "      provision_file: " + strconv.Quote(provision) + "\n"
			}
			cmd := exec.Command(os.Args[0], "serve", "--nemo")
			if tc.parent {
				cmd = exec.Command(bash, "-c", `"$0" serve --nemo; exit $?`, os.Args[0])
			}
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), raceExitNow, runMainEnv+"=1", envConfigDict+"="+dict, envConfigPath+"=slow")
			lines := newLineWriter()
			cmd.Stdout = lines
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			cmd.Stderr = w
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			t.Cleanup(func() { _ = cmd.Process.Kill() })
			pid := cmd.Process.Pid
			if tc.parent {
				for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
					if kids := childPIDs(cmd.Process.Pid); len(kids) == 1 {
						pid = kids[0]
						break
					}
					if time.Now().After(deadline) {
						t.Fatal("bash has not started gymkit after 30s")
					}
				}
				t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
			}
			if tc.load {
				waitFile(t, provision)
			} else {
				select {
				case <-lines.lines:
				case err := <-exited:
					t.Fatalf("exited before it was ready: %v", err)
				case <-time.After(60 * time.Second):
					t.Fatal("no ready line after 60s")
				}
			}
			if tc.blockLog {
				fillPipe(t, r, w)
			}
			first := time.Now()
			if tc.parent {
				_ = cmd.Process.Signal(syscall.SIGKILL)
			} else {
				_ = cmd.Process.Signal(syscall.SIGINT)
			}
			gone := waitGone(t, pid, 30*time.Second)
			// 900 ms (1 s after a parent's death: the watch reads every 100 ms),
			// and the scheduling of a loaded machine; without the deadline it
			// would not exit at all.
			if took := gone.Sub(first); took > 2*time.Second {
				t.Errorf("exited %v after the stop began, want about 900ms", took)
			}
			if !tc.parent {
				var ee *exec.ExitError
				if err := <-exited; !errors.As(err, &ee) || ee.ExitCode() != 1 {
					t.Errorf("exit: %v, want status 1 (the deadline ended it)", err)
				}
			}
		})
	}
}

// launcherGroup starts bash -c script with args as a launcher started from
// an interactive shell: the leader of a process group of its own, whose
// children stay in it. stderr is appended to errFile. The group is killed
// at cleanup.
func launcherGroup(t *testing.T, env []string, errFile, script string, args ...string) *exec.Cmd {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal("bash is needed for a stand-in launcher")
	}
	f, err := os.OpenFile(errFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(bash, append([]string{"-c", script}, args...)...)
	cmd.Env = env
	cmd.Stderr = f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pgid := cmd.Process.Pid
	t.Cleanup(func() { _ = syscall.Kill(-pgid, syscall.SIGKILL); _ = cmd.Wait() })
	return cmd
}

// waitContent waits (30 s at most) until file matches re, and returns its
// content.
func waitContent(t *testing.T, file string, re *regexp.Regexp) string {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile(file)
		if re.Match(b) {
			return string(b)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s does not match %s after 30s:\n%s", file, re, b)
		}
	}
}

// serve --nemo started after its launcher died (NeMo's launcher gone while
// python still runs app.py): its parent is PID 1 or a subreaper, which did
// not start it, and the leader of its process group (the launcher) has
// exited: one line, exit 1, nothing served.
func TestServeNemoLauncherGoneAtStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	port := closedPort(t)
	errFile := filepath.Join(dir, "stderr")
	env := append(os.Environ(), raceExitNow, runMainEnv+"=1", envConfigDict+"="+slowDict(port, filepath.Join(dir, "started")), envConfigPath+"=slow")
	// The launcher starts gymkit's process and exits at once; gymkit starts 300 ms later.
	launcher := launcherGroup(t, env, errFile, `( /bin/sleep 0.3; exec "$0" serve --nemo ) & exit 0`, os.Args[0])
	leader := launcher.Process.Pid
	_ = launcher.Wait()
	re := regexp.MustCompile(`^gymkit serve: --nemo: the process that started this one is gone: the leader of its process group \(pid ` +
		strconv.Itoa(leader) + `\) has exited, and the parent is pid \d+: not serving\n$`)
	waitContent(t, errFile, re)
	if resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(port) + "/"); err == nil {
		resp.Body.Close()
		t.Errorf("port %d answers: gymkit serves", port)
	}
}

// serve --nemo whose parent died before it started while the leader of its
// process group (the launcher) lives on: it serves, watching the leader,
// and stops within 1 s of the leader's death, logging why.
func TestServeNemoWatchesGroupLeader(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	port := closedPort(t)
	errFile, pidFile := filepath.Join(dir, "stderr"), filepath.Join(dir, "pid")
	env := append(os.Environ(), raceExitNow, runMainEnv+"=1", envConfigDict+"="+slowDict(port, filepath.Join(dir, "started")), envConfigPath+"=slow")
	// An intermediate bash starts gymkit's process in the background and
	// exits; the launcher stays.
	launcher := launcherGroup(t, env, errFile,
		`bash -c '( /bin/sleep 0.2; echo $BASHPID > "$1"; exec "$0" serve --nemo ) &' "$0" "$1"; exec /bin/sleep 60`, os.Args[0], pidFile)
	url := "http://127.0.0.1:" + strconv.Itoa(port) + "/"
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if resp, err := http.Get(url); err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(errFile)
			t.Fatalf("gymkit does not answer after 60s:\n%s", b)
		}
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	killed := time.Now()
	if err := launcher.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = launcher.Wait()
	if took := waitGone(t, pid, 30*time.Second).Sub(killed); took > time.Second {
		t.Errorf("gymkit exited %v after its launcher was SIGKILLed, want at most 1s", took)
	}
	logs := waitContent(t, errFile, regexp.MustCompile(`msg=stopped\n`))
	cause := `msg="stopping at once: no new connections; the requests in flight are cut" cause="the process that started this one is gone: the leader of its process group (pid ` +
		strconv.Itoa(launcher.Process.Pid) + `) has exited, and the parent is pid `
	if !strings.Contains(logs, cause) || strings.Count(logs, "msg=stopped") != 1 {
		t.Errorf("the log does not say once that the launcher (pid %d) is gone, then stopped:\n%s", launcher.Process.Pid, logs)
	}
}
