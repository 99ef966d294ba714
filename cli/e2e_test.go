package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestServeEndToEnd starts gymkit serve as a process on both example configs
// and a test-only slow server, reads the ready lines, runs a rollout on each
// example over HTTP, then sends SIGTERM during a slow call: the process stops
// accepting connections, the call completes, and the process exits 0.
func TestServeEndToEnd(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	started, release := filepath.Join(dir, "started"), filepath.Join(dir, "release")
	slowCfg := writeFile(t, dir, "slow.yaml", fmt.Sprintf("slow:\n  resources_servers:\n    %s:\n      domain: other\n      started_file: %s\n      release_file: %s\n",
		slowServerType, strconv.Quote(started), strconv.Quote(release)))

	cmd := exec.Command(os.Args[0], "serve",
		"--config", exampleConfig(t, "example_mcp_weather"),
		"--log-format", "json",
		"-c="+exampleConfig(t, "example_session_state_mgmt"),
		"--config", slowCfg)
	cmd.Dir = dir // no env.yaml here
	cmd.Env = append(os.Environ(), runMainEnv+"=1")
	stdout := newLineWriter()
	var stderr syncBuffer
	cmd.Stdout, cmd.Stderr = stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{}) // closed when gymkit has exited; then waitErr is set
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // a no-op once it has exited
		<-exited
	})
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf(format+"\n--- gymkit stderr:\n%s", append(args, stderr.String())...)
	}

	// The ready lines, in configuration order (by instance name).
	urls := map[string]string{}
	var names []string
	for range 3 {
		select {
		case line := <-stdout.lines:
			m := readyLine.FindStringSubmatch(line)
			if m == nil {
				fail("stdout line %q is not a ready line", line)
			}
			names = append(names, m[1])
			urls[m[1]] = m[2]
			if wantMCP := m[1] != "slow"; (m[4] != "") != wantMCP {
				fail("ready line %q: mcp endpoint shown = %v, want %v (expose_tools_over_mcp)", line, m[4] != "", wantMCP)
			}
		case <-exited:
			fail("gymkit exited before it was ready: %v", waitErr)
		case <-time.After(20 * time.Second):
			fail("no ready line after 20s")
		}
	}
	if want := []string{"example_mcp_weather", "example_session_state_mgmt_resources_server", "slow"}; fmt.Sprint(names) != fmt.Sprint(want) {
		fail("ready lines for %v, want %v", names, want)
	}

	t.Run("example_mcp_weather rollout", func(t *testing.T) {
		ro := newRollout(urls["example_mcp_weather"])
		expectSeed(t, ro, `{"verifier_metadata":{"expected_city":"Paris"}}`, "example_mcp_weather")
		expect(t, ro, "/get_weather", `{"city":"Paris"}`, `{"weather":"The weather in Paris is sunny and 72 F."}`)
		res := verify(t, ro, `{"responses_create_params":{"input":"What is the weather in Paris?"},`+
			`"response":`+responseWith(`{"id":"msg_1","type":"message","role":"assistant","status":"completed","content":[{"type":"output_text","text":"The weather in Paris is sunny and 72 F.","annotations":[]}]}`)+`,`+
			`"verifier_metadata":{"expected_city":"Paris"}}`)
		if res["reward"] != 1.0 || res["tool_call_seen"] != true || res["final_response_mentions_weather"] != true {
			t.Errorf("verify = %v, want reward 1.0 with the tool call seen and the weather mentioned", res)
		}
	})

	t.Run("example_session_state_mgmt_resources_server rollout", func(t *testing.T) {
		ro := newRollout(urls["example_session_state_mgmt_resources_server"])
		expectSeed(t, ro, `{"initial_count":3}`, "example_session_state_mgmt_resources_server")
		expect(t, ro, "/increment_counter", `{"count":1}`, `{"success":true}`)
		expect(t, ro, "/increment_counter", `{"count":2}`, `{"success":true}`)
		expect(t, ro, "/get_counter_value", `{}`, `{"count":6}`)
		res := verify(t, ro, `{"responses_create_params":{"input":"add 1 then add 2"},"response":`+responseWith()+`,"expected_count":6}`)
		if res["reward"] != 1.0 {
			t.Errorf("verify = %v, want reward 1.0", res)
		}
	})

	// SIGTERM during a slow call.
	type answer struct {
		status int
		body   string
		err    error
	}
	slowDone := make(chan answer, 1)
	go func() {
		status, body, err := newRollout(urls["slow"]).post("/slow", `{}`)
		slowDone <- answer{status, body, err}
	}()
	waitFor(t, fail, "the slow call to start", func() bool { _, err := os.Stat(started); return err == nil })
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		fail("SIGTERM: %v", err)
	}
	for _, name := range names {
		host := strings.TrimPrefix(urls[name], "http://")
		waitFor(t, fail, name+" to refuse new connections", func() bool {
			c, err := net.DialTimeout("tcp", host, time.Second)
			if err == nil {
				c.Close()
			}
			return err != nil
		})
	}
	select {
	case a := <-slowDone:
		fail("the slow call ended before it was released: %d %q %v", a.status, a.body, a.err)
	case <-exited:
		fail("gymkit exited during the slow call: %v", waitErr)
	default:
	}
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case a := <-slowDone:
		if a.err != nil || a.status != 200 || a.body != `{"done":true}` {
			fail("slow call during the drain = %d %q %v, want 200 {\"done\":true}", a.status, a.body, a.err)
		}
	case <-time.After(20 * time.Second):
		fail("the slow call did not complete")
	}
	select {
	case <-exited:
		if waitErr != nil {
			fail("gymkit exited with %v, want exit status 0", waitErr)
		}
	case <-time.After(20 * time.Second):
		fail("gymkit did not exit after the drain")
	}

	if extra := stdout.rest(); extra != "" {
		t.Errorf("stdout after the ready lines = %q, want nothing", extra)
	}
	logs := stderr.String()
	for _, want := range []string{
		`"msg":"request","instance":"slow","method":"POST","path":"/slow","status":200,"bytes":13,"duration":`,
		`"msg":"request","instance":"example_mcp_weather","method":"POST","path":"/get_weather","status":200,`,
		`"msg":"draining: no new connections; waiting for the requests in flight","cause":"terminated signal received"`,
		`"msg":"stopped"`,
	} {
		if !strings.Contains(logs, want) {
			t.Errorf("stderr does not contain %s:\n%s", want, logs)
		}
	}
}

// waitFor polls cond every 5ms until it holds, failing after 10s.
func waitFor(t *testing.T, fail func(string, ...any), what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			fail("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// rollout is one rollout's HTTP client: a cookie jar keeps the session
// cookie, replaced by every answer's Set-Cookie, as NeMo's agents do.
type rollout struct {
	base   string
	client *http.Client
}

func newRollout(base string) *rollout {
	jar, _ := cookiejar.New(nil)
	return &rollout{base: base, client: &http.Client{Jar: jar, Timeout: 30 * time.Second}}
}

func (r *rollout) post(path, body string) (int, string, error) {
	resp, err := r.client.Post(r.base+path, "application/json", strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if n := len(resp.Header.Values("Set-Cookie")); err == nil && n != 1 {
		err = fmt.Errorf("%d Set-Cookie headers, want 1", n)
	}
	return resp.StatusCode, string(b), err
}

func expect(t *testing.T, ro *rollout, path, body, want string) {
	t.Helper()
	status, got, err := ro.post(path, body)
	if err != nil || status != 200 || got != want {
		t.Fatalf("POST %s %s = %d %s (%v), want 200 %s", path, body, status, got, err, want)
	}
}

// expectSeed seeds and checks the answer: {} plus the MCP door's "mcp" key
// (contract d.3) naming the instance and carrying a session token.
func expectSeed(t *testing.T, ro *rollout, body, instance string) {
	t.Helper()
	status, got, err := ro.post("/seed_session", body)
	if err != nil || status != 200 {
		t.Fatalf("POST /seed_session %s = %d %s (%v), want 200", body, status, got, err)
	}
	var res struct {
		MCP struct {
			ServerName string            `json:"server_name"`
			URLPath    string            `json:"url_path"`
			Transport  string            `json:"transport"`
			Headers    map[string]string `json:"headers"`
		} `json:"mcp"`
	}
	if err := json.Unmarshal([]byte(got), &res); err != nil {
		t.Fatalf("seed answer %s: %v", got, err)
	}
	if m := res.MCP; m.ServerName != instance || m.URLPath != "/mcp" || m.Transport != "http" || m.Headers["X-NeMo-Gym-Session-Token"] == "" {
		t.Fatalf("seed answer %s: want the mcp key of instance %s with a session token", got, instance)
	}
}

func verify(t *testing.T, ro *rollout, body string) map[string]any {
	t.Helper()
	status, got, err := ro.post("/verify", body)
	if err != nil || status != 200 {
		t.Fatalf("POST /verify = %d %s (%v), want 200", status, got, err)
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(got), &res); err != nil {
		t.Fatalf("verify answer %s: %v", got, err)
	}
	return res
}

// responseWith is a minimal Responses API response with the given output items.
func responseWith(items ...string) string {
	return `{"id":"resp_1","created_at":0,"model":"demo","object":"response","parallel_tool_calls":false,` +
		`"tool_choice":"auto","tools":[],"output":[` + strings.Join(items, ",") + `]}`
}

// lineWriter sends each complete line written to it on lines (buffered);
// lines beyond the buffer are kept for rest.
type lineWriter struct {
	lines chan string
	mu    sync.Mutex
	buf   []byte
	extra []string
}

func newLineWriter() *lineWriter { return &lineWriter{lines: make(chan string, 16)} }

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := strings.IndexByte(string(w.buf), '\n')
		if i < 0 {
			return len(p), nil
		}
		line := string(w.buf[:i])
		w.buf = w.buf[i+1:]
		select {
		case w.lines <- line:
		default:
			w.extra = append(w.extra, line)
		}
	}
}

// rest returns what was written and not yet received from lines.
func (w *lineWriter) rest() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for {
		select {
		case l := <-w.lines:
			out = append(out, l)
			continue
		default:
		}
		break
	}
	return strings.Join(append(append(out, w.extra...), string(w.buf)), "\n")
}
