package cli

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// measureRows is one row whose ground truth calls the diff server's tool.
const measureRows = `{"responses_create_params":{"input":"measure it"},"ground_truth":[{"name":"measure","arguments":"{\"unit\":\"m\"}"}]}` + "\n"

// diffConfig writes the config of one gymkit_test_diff instance named
// "diff", MCP on, with the given keys of its own, and returns its path.
func diffConfig(t *testing.T, dir, name string, keys ...string) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "diff:\n  resources_servers:\n    %s:\n      domain: other\n      expose_tools_over_mcp: true\n", diffServerType)
	for _, k := range keys {
		b.WriteString("      " + k + "\n")
	}
	return writeFile(t, dir, name, b.String())
}

// fakeServer serves GET / (liveness) and hands every other request to h,
// on a real loopback listener.
func fakeServer(t *testing.T, h http.HandlerFunc) string {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/" {
			w.Write([]byte("{}"))
			return
		}
		h(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

// hang never answers: it waits until the client goes away (the server
// notices a closed connection only once the body has been read).
func hang(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	<-r.Context().Done()
}

// endless answers 200 with a body that never ends (until the client goes
// away).
func endless(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	chunk := []byte(strings.Repeat("[", 64<<10))
	for {
		if _, err := w.Write(chunk); err != nil {
			return
		}
	}
}

// mcpSeed answers the seed with MCP metadata and hands /mcp to h.
func mcpSeed(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/seed_session" {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"mcp":{"server_name":"fake","url_path":"/mcp","transport":"http","headers":{"X-NeMo-Gym-Session-Token":"tok"}}}`))
			return
		}
		h(w, r)
	}
}

// gymkit rollout's client is bounded per request in time and answer size,
// with --url and in process, on both doors: a server that never answers
// and one whose answer never ends each fail the rollout with one error
// naming the row, the failure class and the bound; the run goes on and
// exits 1.
func TestRolloutBounds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rows := writeFile(t, dir, "rows.jsonl", measureRows)
	twoRows := writeFile(t, dir, "two.jsonl", measureRows+strings.Replace(measureRows, "measure it", "again", 1))
	hangCfg := diffConfig(t, dir, "hang.yaml", "hang: true")
	padCfg := diffConfig(t, dir, "pad.yaml", "pad_bytes: 2097152")
	short := []string{"--request-timeout", "300ms"}
	small := []string{"--max-answer-bytes", "1MiB"}

	for _, tc := range []struct {
		name  string
		args  []string
		class string
		want  []string // lines of stderr
	}{
		{"seed never answers", append([]string{"--url", fakeServer(t, hang), "-i", twoRows, "--concurrency", "2"}, short...), "timeout", []string{
			"  task 0 rollout 0: timeout: POST /seed_session: no answer within 300ms (--request-timeout)\n",
			"  task 1 rollout 0: timeout: POST /seed_session: no answer within 300ms (--request-timeout)\n"}},
		{"endless seed answer", append([]string{"--url", fakeServer(t, endless), "-i", rows}, small...), "answer_too_large", []string{
			"  task 0 rollout 0: answer_too_large: POST /seed_session: the answer is larger than 1048576 bytes (--max-answer-bytes)\n"}},
		{"endless seed answer, default bound", []string{"--url", fakeServer(t, endless), "-i", rows}, "answer_too_large", []string{
			"  task 0 rollout 0: answer_too_large: POST /seed_session: the answer is larger than 67108864 bytes (--max-answer-bytes)\n"}},
		{"mcp initialize never answers", append([]string{"--url", fakeServer(t, mcpSeed(hang)), "-i", rows, "--door", "mcp"}, short...), "timeout", []string{
			"  task 0 rollout 0: timeout: MCP initialize at ", "/mcp: POST /mcp initialize: no answer within 300ms (--request-timeout)\n"}},
		{"endless mcp initialize answer", append([]string{"--url", fakeServer(t, mcpSeed(endless)), "-i", rows, "--door", "mcp"}, small...), "answer_too_large", []string{
			"  task 0 rollout 0: answer_too_large: MCP initialize at ", "/mcp: POST /mcp initialize: the answer is larger than 1048576 bytes (--max-answer-bytes)\n"}},
		{"in process, tool never answers, http", append([]string{"-c", hangCfg, "-i", rows}, short...), "timeout", []string{
			"  task 0 rollout 0: timeout: tool call measure: POST /measure: no answer within 300ms (--request-timeout)\n"}},
		{"in process, tool never answers, mcp", append([]string{"-c", hangCfg, "-i", rows, "--door", "mcp"}, short...), "timeout", []string{
			"  task 0 rollout 0: timeout: tool call measure: POST /mcp tools/call measure: no answer within 300ms (--request-timeout)\n"}},
		{"in process, tool answer too large, http", append([]string{"-c", padCfg, "-i", rows}, small...), "answer_too_large", []string{
			"  task 0 rollout 0: answer_too_large: tool call measure: POST /measure: the answer is larger than 1048576 bytes (--max-answer-bytes)\n"}},
		{"in process, tool answer too large, mcp", append([]string{"-c", padCfg, "-i", rows, "--door", "mcp"}, small...), "answer_too_large", []string{
			"  task 0 rollout 0: answer_too_large: tool call measure: POST /mcp tools/call measure: the answer is larger than 1048576 bytes (--max-answer-bytes)\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "out.jsonl")
			start := time.Now()
			code, stdout, stderr := gymkitRun(t, append([]string{"rollout", "-o", out}, tc.args...)...)
			if code != 1 {
				t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr does not contain %q:\n%s", w, stderr)
				}
			}
			if !strings.Contains(stdout, "failed ("+tc.class+": ") {
				t.Errorf("summary does not count %s:\n%s", tc.class, stdout)
			}
			failures, err := os.ReadFile(strings.TrimSuffix(out, ".jsonl") + "_failures.jsonl")
			if err != nil || !strings.Contains(string(failures), `"_ng_failure_class":"`+tc.class+`"`) {
				t.Errorf("failures file (%v):\n%.500s", err, failures)
			}
			if d := time.Since(start); d > 30*time.Second {
				t.Errorf("the run took %v", d)
			}
		})
	}
}

// A server that accepts connections and never answers anything, GET /
// included: one error, exit 1, nothing written.
func TestRolloutSilentServer(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	dir := t.TempDir()
	url := "http://" + ln.Addr().String()
	code, stdout, stderr := gymkitRun(t, "rollout", "--url", url, "-i", writeFile(t, dir, "rows.jsonl", measureRows),
		"-o", filepath.Join(dir, "out", "out.jsonl"), "--request-timeout", "300ms")
	want := "gymkit rollout: cannot reach the instance at " + url + ": no answer to GET / within 300ms\n"
	if code != 1 || stderr != want || strings.Contains(stdout, "rollouts through") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%q\nwant exit 1 and %q", code, stdout, stderr, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
		t.Error("files were written")
	}
}

func TestParseBounds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args    []string
		timeout time.Duration
		max     int64
		err     string
	}{
		{nil, 0, 0, ""},
		{[]string{"--request-timeout", "90s", "--max-answer-bytes", "1000"}, 90 * time.Second, 1000, ""},
		{[]string{"--request-timeout=2m", "--max-answer-bytes=2KiB"}, 2 * time.Minute, 2048, ""},
		{[]string{"--max-answer-bytes", "3MiB"}, 0, 3 << 20, ""},
		{[]string{"--max-answer-bytes", "1GiB"}, 0, 1 << 30, ""},
		{[]string{"--request-timeout", "10"}, 0, 0, `flag --request-timeout: "10" is not a positive duration such as 90s or 10m`},
		{[]string{"--request-timeout", "-1s"}, 0, 0, `flag --request-timeout: "-1s" is not a positive duration such as 90s or 10m`},
		{[]string{"--max-answer-bytes", "0"}, 0, 0, `flag --max-answer-bytes: "0" is not a positive number of bytes (an integer, optionally with a KiB, MiB or GiB suffix)`},
		{[]string{"--max-answer-bytes", "1MB"}, 0, 0, `flag --max-answer-bytes: "1MB" is not a positive number of bytes (an integer, optionally with a KiB, MiB or GiB suffix)`},
		{[]string{"--max-answer-bytes", "9999999999GiB"}, 0, 0, `flag --max-answer-bytes: "9999999999GiB" is not a positive number of bytes (an integer, optionally with a KiB, MiB or GiB suffix)`},
	} {
		a, err := parseRolloutArgs(append([]string{"-c", "a.yaml", "-i", "r.jsonl", "-o", "o.jsonl"}, tc.args...))
		switch {
		case tc.err != "" && (err == nil || err.Error() != tc.err):
			t.Errorf("%q: error %v, want %q", tc.args, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("%q: %v", tc.args, err)
		case tc.err == "" && (a.requestTimeout != tc.timeout || a.maxAnswerBytes != tc.max):
			t.Errorf("%q: timeout %v, max %d; want %v, %d", tc.args, a.requestTimeout, a.maxAnswerBytes, tc.timeout, tc.max)
		}
	}
}
