//go:build linux

package nemolaunch

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// exitBound is how soon a server must exit once told to stop: NeMo's launcher SIGKILLs a server
// that has not exited 1 s after its SIGINT.
const exitBound = time.Second

// stopMethod is one way NeMo's launcher, or its death, stops a server.
type stopMethod struct {
	name string
	// send stops s; cause is the cause gymkit logs for it.
	send  func(t *testing.T, s *server)
	cause func(s *server) string
}

var stopMethods = []stopMethod{
	{"one SIGINT", // kill -INT <launcher>: the launcher's shutdown() sends each server one SIGINT
		func(t *testing.T, s *server) { sendSignal(t, s.pid, syscall.SIGINT) },
		func(*server) string { return "interrupt signal received" }},
	{"two SIGINTs 2ms apart", // Ctrl-C: the terminal's, to the launcher's process group, then the launcher's
		func(t *testing.T, s *server) {
			sendSignal(t, -s.parent.Process.Pid, syscall.SIGINT)
			time.Sleep(2 * time.Millisecond)
			_ = syscall.Kill(s.pid, syscall.SIGINT) // the server may be gone already
		},
		func(*server) string { return "interrupt signal received" }},
	{"SIGTERM",
		func(t *testing.T, s *server) { sendSignal(t, s.pid, syscall.SIGTERM) },
		func(*server) string { return "terminated signal received" }},
	{"parent SIGKILLed", // a launcher SIGKILLed or crashed, or the bash of nemo_gym_log_dir's `| tee`
		func(t *testing.T, s *server) { sendSignal(t, s.parent.Process.Pid, syscall.SIGKILL) },
		func(s *server) string {
			return fmt.Sprintf("the process that started this one (pid %d) is gone: the parent is now pid %d", s.parent.Process.Pid, os.Getpid())
		}},
}

func sendSignal(t *testing.T, pid int, sig syscall.Signal) {
	t.Helper()
	if err := syscall.Kill(pid, sig); err != nil {
		t.Fatalf("kill(%d, %v): %v", pid, sig, err)
	}
}

// TestLauncherCaptures replays every recorded launch (see the package documentation): the four
// shipped environments started at once under the launch's recorded environment, each under
// its own stand-in launcher. Each launch is replayed at least once, and at least as many
// times as there are stop methods: in replay k, server i is stopped by stopMethods[(i+k) %
// len(stopMethods)], so every environment is stopped every way. For each server:
//   - the process is gymkit (app.py exec'd the laid out binary with serve --nemo), in its server
//     folder, with exactly the recorded environment;
//   - GET / on its assigned port answers 200 {"status":"ok"} (any answer is ready for the
//     launcher);
//   - it listens on its assigned port only and prints its own ready line only;
//   - it exits within 1 s of being stopped, with status 0, having logged the stop's cause and
//     "stopped" once, and no drain.
func TestLauncherCaptures(t *testing.T) {
	t.Parallel()
	replay(t, captures(t, shipped), treeOptions{data: true})
}

// replay replays the launches caps as TestLauncherCaptures describes, in trees laid out with o.
func replay(t *testing.T, caps []capture, o treeOptions) {
	t.Helper()
	for k := range max(len(caps), len(stopMethods)) {
		c := caps[k%len(caps)]
		t.Run(fmt.Sprintf("%s/replay%d", c.name, k), func(t *testing.T) {
			tr := newTree(t, c, o)
			servers := tr.startAll(t, c)
			for i, s := range servers {
				m := stopMethods[(i+k)%len(stopMethods)]
				t.Run(s.instance, func(t *testing.T) {
					checkServing(t, tr, s)
					t.Run("only its own instance", func(t *testing.T) { checkOwnInstanceOnly(t, tr, s) })
					t.Run("stop: "+m.name, func(t *testing.T) { checkStop(t, s, m) })
				})
			}
		})
	}
}

// startAll starts the four shipped environments of c at once and waits until each has printed
// its ready line.
func (tr *tree) startAll(t *testing.T, c capture) []*server {
	t.Helper()
	var servers []*server
	for _, r := range c.records {
		servers = append(servers, tr.start(t, r))
	}
	for _, s := range servers {
		s.waitReady(t)
	}
	return servers
}

// checkServing checks that s is gymkit, started as NeMo starts it, and answers GET /.
func checkServing(t *testing.T, tr *tree, s *server) {
	t.Helper()
	proc := func(name string) string { return fmt.Sprintf("/proc/%d/%s", s.pid, name) }
	exe, _ := os.Readlink(proc("exe"))
	if want, _ := filepath.EvalSymlinks(tr.bin); exe != want {
		t.Errorf("the process runs %q, want the binary %s (app.py execs it)", exe, want)
	}
	if b, _ := os.ReadFile(proc("cmdline")); !strings.HasSuffix(string(b), "\x00serve\x00--nemo\x00") || strings.Count(string(b), "\x00") != 3 {
		t.Errorf("command line %q, want <binary> serve --nemo", b)
	}
	if cwd, _ := os.Readlink(proc("cwd")); cwd != s.folder {
		t.Errorf("working directory %s, want the server folder %s", cwd, s.folder)
	}
	if b, _ := os.ReadFile(proc("environ")); string(b) != strings.Join(s.env, "\x00")+"\x00" {
		t.Errorf("the environment is not the recorded one, byte for byte:\n got %q\nwant %q", b, strings.Join(s.env, "\x00")+"\x00")
	}
	url := "http://" + net.JoinHostPort(s.host, strconv.Itoa(s.port)) + "/"
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 30 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		t.Errorf("GET %s: %v", url, err)
		return
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != `{"status":"ok"}` {
		t.Errorf("GET %s: %d %s, want 200 {\"status\":\"ok\"}", url, resp.StatusCode, body)
	}
}

// checkOwnInstanceOnly checks that s listens on its assigned port and no other, and printed
// one ready line, its own.
func checkOwnInstanceOnly(t *testing.T, tr *tree, s *server) {
	t.Helper()
	own := net.JoinHostPort(s.host, strconv.Itoa(s.port))
	if got := listeners(t, s.pid); len(got) != 1 || got[0] != own {
		t.Errorf("listens on %v, want only its assigned %s", got, own)
	}
	if lines := s.readyLines(); len(lines) != 1 {
		t.Errorf("stdout %q, want one ready line, %q", lines, s.wantReady())
	}
}

// holdRequest starts a request that stays in flight on s: POST /seed_session with a declared
// body that never comes. It returns once gymkit's handler is reading the body (the server's
// "100 Continue" to the request's "Expect: 100-continue" says so).
func holdRequest(t *testing.T, s *server) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", net.JoinHostPort(s.host, strconv.Itoa(s.port)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "POST /seed_session HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 64\r\nExpect: 100-continue\r\n\r\n", net.JoinHostPort(s.host, strconv.Itoa(s.port)))
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	var got []byte
	buf := make([]byte, 256)
	for !strings.Contains(string(got), "\r\n\r\n") {
		n, err := conn.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			t.Fatalf("the held request: %v after %q", err, got)
		}
	}
	if !strings.HasPrefix(string(got), "HTTP/1.1 100 Continue\r\n") {
		t.Fatalf("the held request got %q, want 100 Continue", got)
	}
	return conn
}

// checkStop stops s by m, with a request in flight, and checks that it exits within exitBound
// with status 0, the request unanswered and logged as cut, the stop's cause and "stopped"
// logged once, and no drain.
func checkStop(t *testing.T, s *server, m stopMethod) {
	t.Helper()
	held := holdRequest(t, s)
	cause := m.cause(s) // before the parent is gone
	sent := time.Now()
	m.send(t, s)
	var how string
	var took time.Duration
	if m.name == "parent SIGKILLed" {
		for range s.lines { // the parent's end
		}
		done := make(chan string, 1)
		go func() {
			// Reparented to this process (a child subreaper), the server is waited for here.
			var ws syscall.WaitStatus
			_, err := syscall.Wait4(s.pid, &ws, 0, nil)
			if err != nil {
				done <- "wait4: " + err.Error()
				return
			}
			done <- describe(ws)
		}()
		select {
		case how = <-done:
			s.exited = true
		case <-time.After(30 * time.Second):
			t.Fatalf("still running 30s after its parent was SIGKILLed; stderr:\n%s", s.logs())
		}
		took = time.Since(sent)
	} else {
		how = s.waitParentReport(t)
		took = time.Since(sent)
	}
	if took > exitBound {
		t.Errorf("exited %v after it was stopped, want at most %v", took, exitBound)
	}
	if how != "status 0" {
		t.Errorf("exit: %s, want status 0; stderr:\n%s", how, s.logs())
	}
	rest, err := io.ReadAll(held)
	if len(rest) != 0 || err != nil && !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("the request in flight got %q (%v), want no answer", rest, err)
	}
	logs := s.logs()
	for _, want := range []string{
		`level=INFO msg="stopping at once: no new connections; the requests in flight are cut" cause="` + cause + `"`,
		`level=WARN msg="request cut" instance=` + s.instance + ` method=POST path=/seed_session duration=`,
		"level=INFO msg=stopped\n",
	} {
		if n := strings.Count(logs, want); n != 1 {
			t.Errorf("stderr holds %q %d times, want once:\n%s", want, n, logs)
		}
	}
	for _, bad := range []string{"draining", "panic", "level=ERROR"} {
		if strings.Contains(logs, bad) {
			t.Errorf("stderr holds %q:\n%s", bad, logs)
		}
	}
}

// TestLauncherWithoutData replays a launch whose data_dir is the recording's relative
// data/shared without laying out the data: workplace_assistant exits (status 1) with one error
// line that names the path data_dir resolves to, under its server folder; the other three
// environments serve and stop at a SIGINT.
func TestLauncherWithoutData(t *testing.T) {
	t.Parallel()
	var c capture
	for _, cc := range captures(t, shipped) {
		if cc.name == "way1_from_root" {
			c = cc
		}
	}
	if c.name == "" {
		t.Fatal("the launch to replay is not recorded")
	}
	if !strings.Contains(c.records[0].Dict, "\ndata_dir: data/shared\n") {
		t.Fatalf("%s: data_dir is not the relative data/shared", c.name)
	}
	tr := newTree(t, c, treeOptions{data: false})
	var servers []*server
	for _, r := range c.records {
		servers = append(servers, tr.start(t, r))
	}
	for _, s := range servers {
		if s.instance != "workplace_assistant" {
			continue
		}
		if how := s.waitParentReport(t); how != "status 1" {
			t.Errorf("workplace_assistant: exit %s, want status 1", how)
		}
		missing := filepath.Join(s.folder, "data", "shared", "workplace_assistant", "csv_data")
		var errLines []string
		for _, l := range strings.Split(s.logs(), "\n") {
			if strings.HasPrefix(l, "gymkit serve: ") {
				errLines = append(errLines, l)
			}
		}
		if len(errLines) != 1 || !regexp.MustCompile(`(^|[\s:=])`+regexp.QuoteMeta(missing)+`([\s:/]|$)`).MatchString(errLines[0]) {
			t.Errorf("workplace_assistant's error lines %q, want one naming %s; stderr:\n%s", errLines, missing, s.logs())
		}
		if lines := s.readyLines(); len(lines) != 0 {
			t.Errorf("workplace_assistant printed %q", lines)
		}
	}
	t.Run("the others serve", func(t *testing.T) {
		for _, s := range servers {
			if s.instance == "workplace_assistant" {
				continue
			}
			s.waitReady(t)
			checkServing(t, tr, s)
			checkStop(t, s, stopMethods[0])
		}
	})
}

// TestLauncherPortTaken replays one server of a launch whose assigned port another process
// holds (a server left from an earlier launch): gymkit exits with status 1 and one error line
// naming the instance, the port and the host.
func TestLauncherPortTaken(t *testing.T) {
	t.Parallel()
	var c capture
	for _, cc := range captures(t, shipped) {
		if cc.name == "way4b_abs_config_four_shipped_abs_data_dir" {
			c = cc
		}
	}
	if c.name == "" {
		t.Fatal("the launch to replay is not recorded")
	}
	tr := newTree(t, c, treeOptions{data: true})
	r := c.records[0] // example_mcp_weather
	tr.env(t, r)      // maps the ports
	recorded, _ := r.Assigned[1].(float64)
	port := tr.ports[int(recorded)]
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	s := tr.start(t, r)
	if how := s.waitParentReport(t); how != "status 1" {
		t.Errorf("exit %s, want status 1", how)
	}
	want := fmt.Sprintf(`gymkit serve: instance %q: port %d on 127.0.0.1 is already in use; NeMo's launcher assigned it (NEMO_GYM_CONFIG_DICT): is a server of an earlier launch still running?`, r.Instance, port)
	var errLines []string
	for _, l := range strings.Split(s.logs(), "\n") {
		if strings.HasPrefix(l, "gymkit serve: ") {
			errLines = append(errLines, l)
		}
	}
	if len(errLines) != 1 || errLines[0] != want {
		t.Errorf("error lines %q, want one: %q; stderr:\n%s", errLines, want, s.logs())
	}
	if lines := s.readyLines(); len(lines) != 0 {
		t.Errorf("stdout %q, want nothing", lines)
	}
}
