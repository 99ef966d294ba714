//go:build linux

package nemolaunch

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// shipped maps the instance names of the recorded configs to gymkit's shipped server types.
var shipped = map[string]string{
	"example_mcp_weather":                         "example_mcp_weather",
	"example_session_state_mgmt_resources_server": "example_session_state_mgmt",
	"math_advanced_calculations":                  "math_advanced_calculations",
	"workplace_assistant":                         "workplace_assistant",
}

// roleEnv makes the test binary a stand-in for NeMo's launcher (see TestMain and runParent).
const roleEnv = "GYMKIT_NEMOLAUNCH_ROLE"

// prSetChildSubreaper is prctl's PR_SET_CHILD_SUBREAPER (linux/prctl.h).
const prSetChildSubreaper = 36

func TestMain(m *testing.M) {
	if os.Getenv(roleEnv) == "parent" {
		runParent()
		return
	}
	// Orphans of this process's descendants become its children: a server whose parent the
	// test SIGKILLs can then be waited for.
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		fmt.Fprintln(os.Stderr, "nemolaunch: prctl(PR_SET_CHILD_SUBREAPER):", errno)
		os.Exit(1)
	}
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// parentSpec is what the stand-in launcher starts: os.StartProcess(Path, Argv) in Dir with
// exactly Env, stdin /dev/null, stdout and stderr appended to the files Stdout and Stderr.
type parentSpec struct {
	Path           string
	Argv, Env      []string
	Dir            string
	Stdout, Stderr string
}

// runParent is the stand-in for NeMo's launcher: it starts the server of the spec file named by
// its first argument, prints "pid <pid>" on stdout, waits for it, prints "exit <how>" ("status
// N" or "signal <name>") and exits 0. Like the launcher, it survives SIGINT and SIGTERM (Ctrl-C
// interrupts its whole process group); unlike it, it sends no signal of its own.
func runParent() {
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "nemolaunch parent:", err)
		os.Exit(1)
	}
	signal.Notify(make(chan os.Signal, 1), syscall.SIGINT, syscall.SIGTERM)
	b, err := os.ReadFile(os.Args[1])
	if err != nil {
		fail(err)
	}
	var s parentSpec
	if err := json.Unmarshal(b, &s); err != nil {
		fail(err)
	}
	stdin, err := os.Open(os.DevNull)
	if err != nil {
		fail(err)
	}
	stdout, err := os.OpenFile(s.Stdout, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		fail(err)
	}
	stderr, err := os.OpenFile(s.Stderr, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		fail(err)
	}
	p, err := os.StartProcess(s.Path, s.Argv, &os.ProcAttr{Dir: s.Dir, Env: s.Env, Files: []*os.File{stdin, stdout, stderr}})
	if err != nil {
		fail(err)
	}
	fmt.Printf("pid %d\n", p.Pid)
	st, err := p.Wait()
	if err != nil {
		fail(err)
	}
	fmt.Printf("exit %s\n", describe(st.Sys().(syscall.WaitStatus)))
	os.Exit(0)
}

// describe is a wait status as "status N" or "signal <name>".
func describe(ws syscall.WaitStatus) string {
	if ws.Signaled() {
		return "signal " + ws.Signal().String()
	}
	return "status " + strconv.Itoa(ws.ExitStatus())
}

// repoRoot is the repository's root folder.
func repoRoot(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate the repository")
	}
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// sharedData is ../shared/data beside the repository.
func sharedData(t testing.TB) string { return filepath.Join(repoRoot(t), "..", "shared", "data") }

var (
	buildOnce sync.Once
	buildDir  string // removed by TestMain
	buildBin  string
	buildErr  error
)

// gymkitBinary builds cmd/gymkit once per test run, into a temporary folder, and returns its
// path.
func gymkitBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "nemolaunch-bin-")
		if buildErr != nil {
			return
		}
		buildBin = filepath.Join(buildDir, "gymkit")
		cmd := exec.Command("go", "build", "-o", buildBin, "./cmd/gymkit")
		cmd.Dir = repoRoot(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ./cmd/gymkit: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildBin
}

var (
	pythonOnce sync.Once
	pythonPath string
	pythonErr  error
)

// realPython is the interpreter python3 runs (links and version shims resolved), which the
// tree's peer_venv/bin/python links to.
func realPython(t testing.TB) string {
	t.Helper()
	pythonOnce.Do(func() {
		out, err := exec.Command("python3", "-c", "import os, sys; print(os.path.realpath(sys.executable))").Output()
		pythonPath, pythonErr = strings.TrimSpace(string(out)), err
		if err != nil {
			pythonErr = fmt.Errorf("python3, which runs app.py as NeMo's launcher does: %v", err)
		}
	})
	if pythonErr != nil {
		t.Fatal(pythonErr)
	}
	return pythonPath
}

// appSource returns the app.py that the server folder of serverType holds.
type appSource func(t testing.TB, serverType string) []byte

// appPy is the app.py the harness lays out: the repository's own (cli/layout_test.go holds it
// equal to what `gymkit new` renders).
var appPy appSource = shippedAppPy

// shippedAppPy is the repository's resources_servers/<serverType>/app.py.
func shippedAppPy(t testing.TB, serverType string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "resources_servers", serverType, "app.py"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// record is one server process of a recorded launch (a <instance>.json of a capture folder).
type record struct {
	Instance string            `json:"instance_NEMO_GYM_CONFIG_PATH"`
	Argv     []string          `json:"argv"`
	Cwd      string            `json:"cwd"`
	EnvOrder []string          `json:"env_order"`
	Env      map[string]string `json:"env"`
	Dict     string            `json:"nemo_gym_config_dict"`
	Assigned []any             `json:"assigned_host_port"`

	ServerType string `json:"-"` // gymkit's server type for Instance
}

// capture is one recorded launch: its folder and the records of the environments replayed.
type capture struct {
	name, dir string
	records   []record // by instance name
}

// captures reads every folder of ../shared/data/nemo-launcher/captures, with the records of
// the instances of types (instance name -> server type) that the launch had; every launch had
// the four shipped environments.
func captures(t testing.TB, types map[string]string) []capture {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(sharedData(t), "nemo-launcher", "captures", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no captures in %s (err %v): the shared data is missing", filepath.Join(sharedData(t), "nemo-launcher"), err)
	}
	var out []capture
	for _, dir := range dirs {
		c := capture{name: filepath.Base(dir), dir: dir}
		for _, inst := range slices.Sorted(mapKeys(types)) {
			b, err := os.ReadFile(filepath.Join(dir, inst+".json"))
			if _, ok := shipped[inst]; !ok && errors.Is(err, fs.ErrNotExist) {
				continue // not in this launch's config
			}
			if err != nil {
				t.Fatal(err)
			}
			var r record
			if err := json.Unmarshal(b, &r); err != nil {
				t.Fatalf("%s/%s.json: %v", dir, inst, err)
			}
			if r.Instance != inst || len(r.EnvOrder) != len(r.Env) || r.Dict == "" || len(r.Assigned) != 2 {
				t.Fatalf("%s/%s.json: not a recorded process (instance %q, %d names in env_order, %d in env)", dir, inst, r.Instance, len(r.EnvOrder), len(r.Env))
			}
			r.ServerType = types[inst]
			c.records = append(c.records, r)
		}
		out = append(out, c)
	}
	return out
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// tree is a temporary folder laid out as the recording's machine was, for one launch.
type tree struct {
	root         string            // the temporary folder
	placeholders *strings.Replacer // the recording's placeholders -> folders of root
	ports        map[int]int       // recorded port -> free port
	captureRoot  string            // what <CAPTURE_ROOT> stands for
	bin          string            // the binary laid out as capture/root/bin/<name>
}

// treeOptions say what newTree lays out besides the folders.
type treeOptions struct {
	data bool      // the workplace_assistant data, under each server folder and capture/root
	app  appSource // app.py; nil means appPy
	// binName is the binary's name under capture/root/bin (default "gymkit"), bin its source
	// (default the gymkit binary built for this run).
	binName, bin string
}

// newTree lays out the tree of capture c: folders, app.py, requirements.txt, the binary, a
// python, data, and decoys where the dict's config_paths and env.yaml would be read.
func newTree(t *testing.T, c capture, o treeOptions) *tree {
	t.Helper()
	root := t.TempDir()
	tr := &tree{root: root, captureRoot: filepath.Join(root, "capture"), ports: map[int]int{}}
	tr.placeholders = strings.NewReplacer(
		"<CAPTURE_ROOT>", tr.captureRoot,
		"<NEMO_GYM>", filepath.Join(root, "nemo_gym"),
		"<PEER_VENV>", filepath.Join(root, "peer_venv"),
		"<HOME>", filepath.Join(root, "home"),
		"<TMP>", filepath.Join(root, "tmp"),
	)
	for _, d := range []string{"nemo_gym", "home", "tmp", "peer_venv/bin", "capture/root/bin", "capture/elsewhere"} {
		mkdir(t, filepath.Join(root, d))
	}
	if err := os.Symlink(realPython(t), filepath.Join(root, "peer_venv", "bin", "python")); err != nil {
		t.Fatal(err)
	}
	if o.binName == "" {
		o.binName, o.bin = "gymkit", gymkitBinary(t)
	}
	tr.bin = o.bin
	if err := os.Symlink(o.bin, filepath.Join(tr.captureRoot, "root", "bin", o.binName)); err != nil {
		t.Fatal(err)
	}
	if o.app == nil {
		o.app = appPy
	}
	if o.data {
		copyWorkplaceData(t, filepath.Join(tr.captureRoot, "root", "data", "shared", "workplace_assistant"))
	}
	dict := c.records[0].Dict
	for _, r := range c.records {
		folder := tr.placeholders.Replace(r.Cwd)
		writeFile(t, filepath.Join(folder, "app.py"), string(o.app(t, r.ServerType)), 0o755)
		writeFile(t, filepath.Join(folder, "requirements.txt"), "", 0o644)
		if o.data {
			copyWorkplaceData(t, filepath.Join(folder, "data", "shared", "workplace_assistant"))
		}
		// gymkit reads neither the dict's config_paths nor env.yaml: decoys stand there.
		for _, p := range configPaths(dict) {
			p = tr.placeholders.Replace(p)
			if !filepath.IsAbs(p) {
				p = filepath.Join(folder, p) // where a reader resolving against the cwd looks
			}
			writeFile(t, p, decoy, 0o644)
		}
		writeFile(t, filepath.Join(folder, "env.yaml"), decoy, 0o644)
	}
	return tr
}

// decoy is what stands at the paths gymkit must never read: text that is not YAML.
const decoy = "{ gymkit must never read this file: [\n"

// configPaths returns the dict's config_paths list, as NeMo wrote it (a block list of plain
// scalars).
func configPaths(dict string) []string {
	_, rest, ok := strings.Cut(dict, "\nconfig_paths:\n")
	if !ok {
		return nil
	}
	var out []string
	for _, line := range strings.Split(rest, "\n") {
		p, ok := strings.CutPrefix(line, "- ")
		if !ok {
			break
		}
		out = append(out, p)
	}
	return out
}

// portRef finds the ports of a dict: a server block's or the head server's "port: N", an item
// of disallowed_ports, and the port of a loopback URL or address (policy_base_url).
var portRef = regexp.MustCompile(`(?m)(^ +port: |^- |127\.0\.0\.1:)(\d+)`)

// mapPorts returns dict with every recorded port replaced by a port that was free a moment
// ago, the same recorded port by the same free one in every process of the launch.
func (tr *tree) mapPorts(t *testing.T, dict string) string {
	t.Helper()
	var out strings.Builder
	last := 0
	for _, m := range portRef.FindAllStringSubmatchIndex(dict, -1) {
		old, _ := strconv.Atoi(dict[m[4]:m[5]])
		if old == 0 { // ray_head_node_address: 127.0.0.1:0
			continue
		}
		if _, ok := tr.ports[old]; !ok {
			tr.ports[old] = tr.freePort(t)
		}
		out.WriteString(dict[last:m[4]])
		out.WriteString(strconv.Itoa(tr.ports[old]))
		last = m[5]
	}
	out.WriteString(dict[last:])
	return out.String()
}

// freePort returns a loopback port that was free a moment ago and that no recorded port maps
// to yet.
func (tr *tree) freePort(t *testing.T) int {
	t.Helper()
	for {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		p := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		taken := false
		for _, v := range tr.ports {
			taken = taken || v == p
		}
		if !taken {
			return p
		}
	}
}

// env is the environment of record r's process in this tree: the recorded variables in their
// recorded order, placeholders and ports mapped, NEMO_GYM_CONFIG_DICT the recorded dict.
func (tr *tree) env(t *testing.T, r record) []string {
	t.Helper()
	out := make([]string, 0, len(r.EnvOrder))
	for _, k := range r.EnvOrder {
		v, ok := r.Env[k]
		if !ok {
			t.Fatalf("%s: %s is in env_order but not in env", r.Instance, k)
		}
		if k == "NEMO_GYM_CONFIG_DICT" {
			v = tr.mapPorts(t, tr.placeholders.Replace(r.Dict))
		} else {
			v = tr.placeholders.Replace(v)
		}
		out = append(out, k+"="+v)
	}
	return out
}

// lookPath finds name as bash would on the PATH of env.
func lookPath(t *testing.T, env []string, name string) string {
	t.Helper()
	for _, kv := range env {
		if path, ok := strings.CutPrefix(kv, "PATH="); ok {
			for _, dir := range filepath.SplitList(path) {
				p := filepath.Join(dir, name)
				if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
					return p
				}
			}
		}
	}
	t.Fatalf("no %s on the recorded PATH", name)
	return ""
}

// server is one server process of a replayed launch, under its stand-in launcher.
type server struct {
	instance, serverType string
	folder               string // its working directory
	host                 string
	port                 int
	mcp                  bool // its block says expose_tools_over_mcp: true
	env                  []string
	stdout, stderr       string // files
	parent               *exec.Cmd
	pid                  int  // the server's (python's, then gymkit's once app.py execs it)
	exited               bool // known to have exited (then pid may belong to another process)

	lines     chan string // the parent's stdout lines after "pid N"; closed at its end
	parentErr error       // the parent's exit, once lines is closed
}

// start starts the server of record r in tree tr under a new stand-in launcher, in its own
// process group, and returns once the server process exists.
func (tr *tree) start(t *testing.T, r record) *server {
	t.Helper()
	s := &server{instance: r.Instance, serverType: r.ServerType, folder: tr.placeholders.Replace(r.Cwd), env: tr.env(t, r)}
	var dict map[string]any
	if err := yaml.Unmarshal([]byte(r.Dict), &dict); err != nil {
		t.Fatalf("%s: the recorded dict: %v", r.Instance, err)
	}
	block := dict
	for _, k := range []string{r.Instance, "resources_servers", s.serverType} {
		block, _ = block[k].(map[string]any)
	}
	if block == nil {
		t.Fatalf("%s: the recorded dict has no %s.resources_servers.%s block", r.Instance, r.Instance, s.serverType)
	}
	s.mcp = block["expose_tools_over_mcp"] == true
	s.host, _ = r.Assigned[0].(string)
	recorded, _ := r.Assigned[1].(float64)
	s.port = tr.ports[int(recorded)]
	if s.host == "" || s.port == 0 {
		t.Fatalf("%s: recorded address %v is not among the dict's ports", r.Instance, r.Assigned)
	}
	logs := filepath.Join(tr.root, "logs")
	mkdir(t, logs)
	s.stdout, s.stderr = filepath.Join(logs, r.Instance+".stdout"), filepath.Join(logs, r.Instance+".stderr")
	argv := append([]string{"python"}, r.Argv...) // the recorder saw sys.argv = ["app.py"]
	spec, err := json.Marshal(parentSpec{Path: lookPath(t, s.env, "python"), Argv: argv, Env: s.env, Dir: s.folder, Stdout: s.stdout, Stderr: s.stderr})
	if err != nil {
		t.Fatal(err)
	}
	specFile := filepath.Join(logs, r.Instance+".spec.json")
	writeFile(t, specFile, string(spec), 0o644)
	s.parent = exec.Command(os.Args[0], specFile)
	// GORACE: a stand-in built with -race (make test) would sleep 1 s at exit.
	s.parent.Env = append(os.Environ(), roleEnv+"=parent", "GORACE=atexit_sleep_ms=0")
	s.parent.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	s.parent.Stderr = os.Stderr
	out, err := s.parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.parent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !s.exited && s.pid != 0 {
			_ = syscall.Kill(s.pid, syscall.SIGKILL)
		}
		_ = s.parent.Process.Kill()
		for range s.lines {
		}
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(s.pid, &ws, syscall.WNOHANG, nil) // reaped here when it outlived its parent
	})
	r1 := bufio.NewReader(out)
	first, err := r1.ReadString('\n')
	if _, serr := fmt.Sscanf(first, "pid %d\n", &s.pid); err != nil || serr != nil {
		t.Fatalf("%s: the stand-in launcher said %q (%v)", r.Instance, first, err)
	}
	s.lines = make(chan string, 4)
	go func() {
		defer close(s.lines)
		for {
			l, err := r1.ReadString('\n')
			if l != "" {
				s.lines <- strings.TrimSuffix(l, "\n")
			}
			if err != nil {
				s.parentErr = s.parent.Wait()
				return
			}
		}
	}()
	return s
}

// logs returns what the server wrote on stderr so far.
func (s *server) logs() string {
	b, _ := os.ReadFile(s.stderr)
	return string(b)
}

// readyLines returns the lines the server wrote on stdout so far.
func (s *server) readyLines() []string {
	b, _ := os.ReadFile(s.stdout)
	if len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// wantReady is the ready line of the server's own instance: with " mcp=<url>/mcp" when its
// block in the dict says expose_tools_over_mcp: true.
func (s *server) wantReady() string {
	url := "http://" + net.JoinHostPort(s.host, strconv.Itoa(s.port))
	if s.mcp {
		return s.instance + " " + url + " mcp=" + url + "/mcp"
	}
	return s.instance + " " + url
}

// waitReady waits (60 s at most) until the server has printed its own ready line; it fails the
// test when the server exits first.
func (s *server) waitReady(t *testing.T) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if slices.Contains(s.readyLines(), s.wantReady()) {
			return
		}
		select {
		case l, ok := <-s.lines:
			t.Fatalf("%s exited before its ready line (%s, %v); stdout %q, stderr:\n%s", s.instance, l, ok, s.readyLines(), s.logs())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: no ready line %q after 60s; stdout %q, stderr:\n%s", s.instance, s.wantReady(), s.readyLines(), s.logs())
		}
	}
}

// waitParentReport waits (30 s at most) for the stand-in launcher's "exit ..." line: how the
// server it started ended.
func (s *server) waitParentReport(t *testing.T) string {
	t.Helper()
	select {
	case l, ok := <-s.lines:
		if !ok || !strings.HasPrefix(l, "exit ") {
			t.Fatalf("%s: the stand-in launcher said %q (%v)", s.instance, l, s.parentErr)
		}
		s.exited = true
		return strings.TrimPrefix(l, "exit ")
	case <-time.After(30 * time.Second):
		t.Fatalf("%s: still running 30s later; stderr:\n%s", s.instance, s.logs())
		return ""
	}
}

// listeners returns the loopback addresses the process pid listens on (TCP, IPv4 and IPv6),
// from its socket descriptors and /proc/<pid>/net/tcp{,6}.
func listeners(t *testing.T, pid int) []string {
	t.Helper()
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatal(err)
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		target, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if inode, ok := strings.CutPrefix(target, "socket:["); ok {
			inodes[strings.TrimSuffix(inode, "]")] = true
		}
	}
	var out []string
	for _, table := range []string{"tcp", "tcp6"} {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/%s", pid, table))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) < 10 || f[3] != "0A" || !inodes[f[9]] { // 0A: LISTEN
				continue
			}
			out = append(out, hexAddr(f[1]))
		}
	}
	slices.Sort(out)
	return out
}

// hexAddr reads /proc/net/tcp's "0100007F:3039" as "127.0.0.1:12345".
func hexAddr(s string) string {
	h, p, _ := strings.Cut(s, ":")
	port, _ := strconv.ParseUint(p, 16, 16)
	raw := make(net.IP, len(h)/2)
	for i := range raw {
		b, _ := strconv.ParseUint(h[2*i:2*i+2], 16, 8)
		raw[i] = byte(b)
	}
	for i := 0; i+4 <= len(raw); i += 4 { // each 32-bit word is in host (little-endian) order
		raw[i], raw[i+1], raw[i+2], raw[i+3] = raw[i+3], raw[i+2], raw[i+1], raw[i]
	}
	return net.JoinHostPort(raw.String(), strconv.FormatUint(port, 10))
}

// copyWorkplaceData copies NeMo Gym's workplace_assistant csv_data and tools.json into dst.
func copyWorkplaceData(t *testing.T, dst string) {
	t.Helper()
	src := filepath.Join(sharedData(t), "nemo-gym", "workplace_assistant")
	err := filepath.WalkDir(filepath.Join(src, "csv_data"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		return copyFile(p, filepath.Join(dst, rel))
	})
	if err == nil {
		err = copyFile(filepath.Join(src, "tools.json"), filepath.Join(dst, "tools.json"))
	}
	if err != nil {
		t.Fatalf("copying the workplace_assistant data: %v", err)
	}
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func writeFile(t testing.TB, path, content string, mode os.FileMode) {
	t.Helper()
	mkdir(t, filepath.Dir(path))
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

func mkdir(t testing.TB, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}
