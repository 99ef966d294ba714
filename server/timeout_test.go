package server_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"

	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/config/configtest"
	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/server"
	"github.com/gymkit/gymkit/server/servertest"
	"github.com/gymkit/gymkit/session"
)

// timed is a test server for the timeouts of docs/security.md, "Stall
// connections".
//
//   - /sleep {"ms": n} sleeps n ms, or until its context is done (then it
//     tries a session.Update and reports both errors on ctxErrs).
//   - /stubborn {"ms": n} ignores its context: it sleeps n ms (n < 0:
//     until the test sends on gate), then adds 1 to the counter with
//     session.Update and reports the error on updateErrs (its answer is
//     lost once it timed out).
//   - /count adds 1 to the counter and answers it; /read answers it.
//   - /echo answers its body's length.
type timed struct {
	framework.Base
	ctxErrs    chan error    // the context error and the Update error of /sleep
	updateErrs chan error    // the Update error of /stubborn
	gate       chan struct{} // each send lets one blocked /stubborn go on
	sleeping   chan struct{} // /sleep sends (if there is room) once it runs
}

func newTimed() *timed {
	return &timed{ctxErrs: make(chan error, 8), updateErrs: make(chan error, 8),
		gate: make(chan struct{}), sleeping: make(chan struct{}, 1)}
}

type msRequest struct {
	Ms int `json:"ms"`
}

type countResponse struct {
	Count int `json:"count"`
}

type echoRequest struct {
	Text string `json:"text"`
}

type echoResponse struct {
	Len int `json:"len"`
}

func (s *timed) Routes(r *framework.Router) {
	framework.Post(r, "/sleep", func(ctx context.Context, req msRequest) (countResponse, error) {
		select {
		case s.sleeping <- struct{}{}:
		default:
		}
		select {
		case <-time.After(time.Duration(req.Ms) * time.Millisecond):
			return countResponse{}, nil
		case <-ctx.Done():
			err := session.Update(ctx, "count", func(n *int) error { *n++; return nil })
			s.ctxErrs <- ctx.Err()
			s.ctxErrs <- err
			return countResponse{}, ctx.Err()
		}
	})
	framework.Post(r, "/stubborn", func(ctx context.Context, req msRequest) (countResponse, error) {
		if req.Ms < 0 {
			<-s.gate
		} else {
			time.Sleep(time.Duration(req.Ms) * time.Millisecond)
		}
		var n int
		err := session.Update(ctx, "count", func(c *int) error { *c++; n = *c; return nil })
		s.updateErrs <- err
		return countResponse{Count: n}, nil
	})
	framework.Post(r, "/count", func(ctx context.Context, _ framework.NoBody) (countResponse, error) {
		var n int
		err := session.Update(ctx, "count", func(c *int) error { *c++; n = *c; return nil })
		return countResponse{Count: n}, err
	})
	framework.Post(r, "/read", func(ctx context.Context, _ framework.NoBody) (countResponse, error) {
		n, _, err := session.Get[int](ctx, "count")
		return countResponse{Count: n}, err
	})
	framework.Post(r, "/echo", func(_ context.Context, req echoRequest) (echoResponse, error) {
		return echoResponse{Len: len(req.Text)}, nil
	})
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{Reward: 1}, nil
	})
}

// serveTimed serves a timed instance with cfg (its Host, MCP and secret set
// here) on a loopback server with the Host's header and idle timeouts; ln,
// when not nil, is the listener to serve on.
func serveTimed(t *testing.T, srv *timed, cfg config.Instance, ln net.Listener) *httptest.Server {
	t.Helper()
	cfg.Host, cfg.ExposeToolsOverMCP, cfg.SessionSecrets = "127.0.0.1", true, config.Secrets{newSecret}
	in, err := server.NewInstance(context.Background(), srv, configtest.Named(cfg, "timed", "timed"), server.InstanceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(in.Handler())
	ts.Config.ReadHeaderTimeout = server.ReadHeaderTimeout
	ts.Config.IdleTimeout = server.IdleTimeout
	if ln != nil {
		ts.Listener.Close()
		ts.Listener = ln
	}
	ts.Start()
	t.Cleanup(ts.Close)
	return ts
}

// rawExchange dials addr, writes req, and reads until the server closes
// the connection or 30 s (a ceiling, not a target) have passed; it returns
// what it read and how long the whole exchange took.
func rawExchange(t *testing.T, addr, req string) (string, time.Duration) {
	t.Helper()
	start := time.Now()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatalf("write: %v", err)
	}
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
	b, _ := io.ReadAll(c)
	return string(b), time.Since(start)
}

// mcpCall sends tools/call name with args (JSON text) over the MCP door
// with the go-sdk client and returns the content text and isError.
func mcpCall(t *testing.T, ts *httptest.Server, token, name, args string) (string, bool) {
	t.Helper()
	res := servertest.DialMCP(t, ts.URL, token).CallTool(name, args)
	return res.Text, res.IsError
}

// A client that sends its headers and stalls the body is answered 408 and
// its connection closed after body_read_timeout (never before it; the 408
// says it is body_read_timeout's), on both doors (the MCP door with a
// JSON-RPC error body). The deadline ends
// once the body is read: a tool may run longer than it, on both doors,
// with its context intact.
func TestBodyReadDeadline(t *testing.T) {
	t.Parallel()
	const timeout = 500 * time.Millisecond
	srv := newTimed()
	ts := serveTimed(t, srv, configtest.Over(config.Instance{BodyReadTimeout: timeout}), nil)
	addr := ts.Listener.Addr().String()

	for _, path := range []string{"/echo", "/mcp"} {
		req := "POST " + path + " HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\n" +
			"Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{\"text\":\"abc"
		got, took := rawExchange(t, addr, req)
		if took < timeout {
			t.Errorf("%s: a stalled body was cut off after %v, before body_read_timeout %v", path, took, timeout)
		}
		status, _, _ := strings.Cut(got, "\r\n")
		switch path {
		case "/echo":
			if status != "HTTP/1.1 408 Request Timeout" || !strings.Contains(got, "Connection: close") ||
				!strings.HasSuffix(got, `{"detail":"Request body not received within 500ms (body_read_timeout)"}`) {
				t.Errorf("%s: stalled body answered\n%s", path, got)
			}
		case "/mcp":
			if status != "HTTP/1.1 408 Request Timeout" || !strings.Contains(got, "Connection: close") ||
				!strings.HasSuffix(got, `{"jsonrpc":"2.0","id":"server-error","error":{"code":-32600,"message":"Request body not received within 500ms (body_read_timeout)"}}`) {
				t.Errorf("%s: stalled body answered\n%s", path, got)
			}
		}
	}

	// A body sent in time, then a tool that runs 3x the deadline: 200, and
	// its context was never canceled (the /sleep tool reports it if it was).
	start := time.Now()
	resp, body := post(t, ts.Client(), ts.URL+"/sleep", `{"ms": 1500}`)
	if resp.StatusCode != 200 || time.Since(start) < 1500*time.Millisecond {
		t.Errorf("HTTP /sleep 1500ms under a 500ms body deadline: %d %s after %v", resp.StatusCode, body, time.Since(start))
	}
	_, token := seedToken(t, ts)
	if text, isErr := mcpCall(t, ts, token, "sleep", `{"ms": 1500}`); isErr {
		t.Errorf("MCP sleep 1500ms under a 500ms body deadline: %s", text)
	}
	select {
	case err := <-srv.ctxErrs:
		t.Errorf("a tool's context was canceled after its body was read: %v", err)
	default:
	}

	// A body that trickles in under the deadline is read whole.
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /echo HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 15\r\n\r\n", addr)
	for _, part := range []string{`{"text"`, `:"abcd"}`} {
		time.Sleep(timeout / 10)
		io.WriteString(c, part)
	}
	resp2, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp2.Body)
	if resp2.StatusCode != 200 || string(b) != `{"len":4}` {
		t.Errorf("trickled body: %d %s", resp2.StatusCode, b)
	}
}

// limitListener accepts at most n connections at a time, like a process
// at its file descriptor limit.
type limitListener struct {
	net.Listener
	sem chan struct{}
}

func (l *limitListener) Accept() (net.Conn, error) {
	l.sem <- struct{}{}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.sem
		return nil, err
	}
	return &limitConn{Conn: c, release: func() { <-l.sem }}, nil
}

type limitConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

// TestStalledBodiesDoNotStarve: 250 clients that send headers and stall their
// bodies, against a server that holds at most 200 connections, do not
// make legitimate requests time out: each stalled connection is closed
// after body_read_timeout, and every legitimate request is answered. The
// stalled clients themselves hold their connections for a minute and the
// legitimate ones wait up to 30 s (ceilings, not targets), so only the
// server closing the stalled connections lets them in.
func TestStalledBodiesDoNotStarve(t *testing.T) {
	t.Parallel()
	const (
		timeout = 300 * time.Millisecond
		stalled = 250
		legit   = 20
	)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts := serveTimed(t, newTimed(), configtest.Over(config.Instance{BodyReadTimeout: timeout}),
		&limitListener{Listener: ln, sem: make(chan struct{}, 200)})
	addr := ln.Addr().String()

	var closed atomic.Int32
	var wg sync.WaitGroup
	start := time.Now()
	for range stalled {
		c, err := net.Dial("tcp", addr) // the kernel's backlog takes the ones over 200
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "POST /echo HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{", addr)
		wg.Go(func() {
			_ = c.SetReadDeadline(time.Now().Add(time.Minute))
			if _, err := io.ReadAll(c); err == nil {
				closed.Add(1)
			}
		})
	}
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	var failed atomic.Int32
	var lwg sync.WaitGroup
	for i := range legit {
		lwg.Go(func() {
			body := fmt.Sprintf(`{"text":"%d"}`, i)
			resp, err := client.Post(ts.URL+"/echo", "application/json", strings.NewReader(body))
			if err != nil {
				failed.Add(1)
				t.Errorf("legitimate request %d: %v", i, err)
				return
			}
			defer resp.Body.Close()
			if b, _ := io.ReadAll(resp.Body); resp.StatusCode != 200 || !strings.Contains(string(b), `"len"`) {
				t.Errorf("legitimate request %d: %d %s", i, resp.StatusCode, b)
			}
		})
	}
	lwg.Wait()
	legitTook := time.Since(start)
	wg.Wait()
	t.Logf("%d stalled clients: %d legitimate requests answered within %v; %d stalled connections closed by the server after %v",
		stalled, legit, legitTook.Round(time.Millisecond), closed.Load(), time.Since(start).Round(time.Millisecond))
	if closed.Load() != stalled {
		t.Errorf("%d of %d stalled connections closed by the server", closed.Load(), stalled)
	}
}

// TestTooLargeIsReadable: a client that writes its whole oversized body
// before reading (a raw TCP client, Go's net/http client with a length or
// chunked, Python's http.client) reads the 413, on both doors.
func TestTooLargeIsReadable(t *testing.T) {
	t.Parallel()
	// 8 MiB, and a 15 MiB body: loopback's socket buffers absorb a few MiB
	// that the server never reads, so a smaller body would not show the
	// reset (with this one, a server that does not read it makes a client's
	// write fail with a broken pipe, and Python's http.client then raises
	// instead of reading the answer).
	const limit = 8 << 20
	ts := serveTimed(t, newTimed(), configtest.Over(config.Instance{MaxBodyBytes: limit}), nil)
	addr := ts.Listener.Addr().String()
	big := `{"text":"` + strings.Repeat("x", 15<<20) + `"}`

	const httpDetail = `{"detail":"Request body too large: limit is 8388608 bytes"}`

	for _, path := range []string{"/echo", "/mcp"} {
		want := httpDetail
		if path == "/mcp" {
			want = `"message":"Request body too large: limit is 8388608 bytes"`
		}
		for _, chunked := range []bool{false, true} {
			var body io.Reader = strings.NewReader(big)
			if chunked {
				body = io.MultiReader(body) // no length: chunked
			}
			req, _ := http.NewRequest("POST", ts.URL+path, body)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			resp, err := ts.Client().Do(req)
			if err != nil {
				t.Errorf("Go client %s (chunked %v): %v", path, chunked, err)
				continue
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 413 || !strings.Contains(string(b), want) {
				t.Errorf("Go client %s (chunked %v): %d %s", path, chunked, resp.StatusCode, b)
			}
		}

		// Raw TCP: the whole request written before a byte is read.
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		req := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s",
			path, addr, len(big), big)
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.WriteString(c, req); err != nil {
			t.Errorf("raw client %s: writing the body: %v", path, err)
		}
		got, err := io.ReadAll(c)
		c.Close()
		if err != nil || !strings.HasPrefix(string(got), "HTTP/1.1 413 ") || !strings.Contains(string(got), want) {
			t.Errorf("raw client %s: %v\n%.300s", path, err, got)
		}
	}

	// Beyond the drain limit (twice the limit, at least limit + 4 MiB) the
	// connection is closed without reading it all: the server does not read
	// 64 MiB for nothing. Counted in bytes a raw client that writes the
	// whole body before reading got to send: the drain limit (16 MiB) plus
	// loopback's socket buffers at most, not the 64 MiB (Go's own client
	// stops sending by itself once it has the answer, so it cannot tell).
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	_ = c.SetDeadline(time.Now().Add(30 * time.Second)) // a ceiling, not a target
	fmt.Fprintf(c, "POST /echo HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", addr, 64<<20)
	block := make([]byte, 64<<10)
	sent := 0
	var werr error
	for sent < 64<<20 {
		if _, werr = c.Write(block); werr != nil {
			break
		}
		sent += len(block)
	}
	c.Close()
	if sent >= 48<<20 || werr == nil || errors.Is(werr, os.ErrDeadlineExceeded) {
		t.Errorf("a 64 MiB body beyond the drain limit: the server let the client send %d MiB (%v)", sent>>20, werr)
	} else {
		t.Logf("a 64 MiB body beyond the drain limit: %d MiB sent before the server closed the connection: %v", sent>>20, werr)
	}

	// Python's http.client, which NeMo's tooling uses: it sends the whole
	// body, then reads.
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Log("python3 not found: skipping the http.client check")
		return
	}
	script := `
import http.client, sys
conn = http.client.HTTPConnection(sys.argv[1], timeout=10)
conn.request("POST", sys.argv[2], body=b'{"text":"' + b"x" * (15 << 20) + b'"}',
             headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream"})
r = conn.getresponse()
print(r.status, r.read().decode())
`
	for _, path := range []string{"/echo", "/mcp"} {
		out, err := exec.Command(py, "-c", script, addr, path).CombinedOutput()
		if err != nil || !strings.HasPrefix(string(out), "413 ") {
			t.Errorf("python http.client %s: %v\n%s", path, err, out)
		}
	}
}

// whileBlocked runs call, which makes a call of /stubborn {"ms":-1}, and
// waits for its answer while that handler is held at srv.gate; it then
// reports whether the handler had returned before the answer (it had, if
// its Update error is already on updateErrs), lets the handler go on and
// returns its Update error. A server that waits for the handler never
// answers: after a 30 s ceiling the test fails and the handler is let go.
func whileBlocked(t *testing.T, srv *timed, call func()) (returnedFirst bool, updateErr error) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); call() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Errorf("no answer in 30 s while the handler ignoring its context was blocked: the timeout waits for the handler")
		srv.gate <- struct{}{}
		<-done
		return true, <-srv.updateErrs
	}
	select {
	case err := <-srv.updateErrs:
		return true, err
	default:
	}
	srv.gate <- struct{}{}
	return false, <-srv.updateErrs
}

// TestToolTimeout: tool_timeout and tool_timeouts. A call past its
// limit is answered 504 naming the tool and the limit (HTTP) or the isError
// "HTTP 504 from POST /<tool>: ..." (MCP), without waiting for a handler
// that ignores its context; a handler that watches its context sees it
// canceled; and a session.Update made after the deadline fails and writes
// nothing. A tool whose per-tool limit is 0 runs unlimited.
func TestToolTimeout(t *testing.T) {
	t.Parallel()
	// The default limit is long (2 s) against the quick calls that must
	// stay within it (/count, /read, /stubborn 10 ms); the timed-out calls
	// do not depend on it: /stubborn is held until its 504 has arrived,
	// /sleep waits 5 s against its own 300 ms.
	const limit = 2 * time.Second
	const sleepLimit = 300 * time.Millisecond
	srv := newTimed()
	ts := serveTimed(t, srv, configtest.Over(config.Instance{ToolTimeout: limit,
		ToolTimeouts: map[string]time.Duration{"echo": 0, "sleep": sleepLimit}}), nil)
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar}
	cookie, token := seedToken(t, ts)
	u, _ := http.NewRequest("GET", ts.URL, nil)
	name, value, _ := strings.Cut(cookie, "=")
	jar.SetCookies(u.URL, []*http.Cookie{{Name: name, Value: value}})

	if resp, body := post(t, client, ts.URL+"/count", `{}`); resp.StatusCode != 200 || body != `{"count":1}` {
		t.Fatalf("/count: %d %s", resp.StatusCode, body)
	}

	// HTTP: a handler that ignores its context (it blocks until the test
	// lets it go, then updates the counter): answered 504 while it is still
	// blocked, and its Update once let go fails.
	var resp *http.Response
	var body string
	returned, err := whileBlocked(t, srv, func() { resp, body = post(t, client, ts.URL+"/stubborn", `{"ms": -1}`) })
	if resp.StatusCode != 504 || body != `{"detail":"Tool 'stubborn' timed out after 2s"}` {
		t.Errorf("HTTP /stubborn: %d %s", resp.StatusCode, body)
	}
	if returned {
		t.Errorf("HTTP /stubborn: the 504 waited for the handler")
	}
	if !errors.Is(err, session.ErrDeadline) {
		t.Errorf("session.Update after the deadline: %v, want session.ErrDeadline", err)
	}

	// MCP: the same tool, same rollout (token).
	var text string
	var isErr bool
	returned, err = whileBlocked(t, srv, func() { text, isErr = mcpCall(t, ts, token, "stubborn", `{"ms": -1}`) })
	if !isErr || text != "HTTP 504 from POST /stubborn: Tool 'stubborn' timed out after 2s" {
		t.Errorf("MCP stubborn: isError %v %q", isErr, text)
	}
	if returned {
		t.Errorf("MCP stubborn: the 504 waited for the handler")
	}
	if !errors.Is(err, session.ErrDeadline) {
		t.Errorf("MCP: session.Update after the deadline: %v, want session.ErrDeadline", err)
	}
	if resp, body := post(t, client, ts.URL+"/read", `{}`); body != `{"count":1}` {
		t.Errorf("the counter after two timed-out calls: %d %s, want 1 (nothing written after the deadline)", resp.StatusCode, body)
	}

	// A handler that watches its context: canceled at its own limit (300ms),
	// and its Update from then on fails.
	for _, door := range []string{"http", "mcp"} {
		start := time.Now()
		if door == "http" {
			resp, body = post(t, client, ts.URL+"/sleep", `{"ms": 5000}`)
			if resp.StatusCode != 504 || body != `{"detail":"Tool 'sleep' timed out after 300ms"}` {
				t.Errorf("HTTP /sleep: %d %s", resp.StatusCode, body)
			}
		} else if text, isErr := mcpCall(t, ts, token, "sleep", `{"ms": 5000}`); !isErr ||
			text != "HTTP 504 from POST /sleep: Tool 'sleep' timed out after 300ms" {
			t.Errorf("MCP sleep: isError %v %q", isErr, text)
		}
		if took := time.Since(start); took < sleepLimit {
			t.Errorf("%s sleep answered after %v, before its limit %v", door, took, sleepLimit)
		}
		if err := <-srv.ctxErrs; !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: the handler's context ended with %v, want DeadlineExceeded", door, err)
		}
		if err := <-srv.ctxErrs; !errors.Is(err, session.ErrDeadline) {
			t.Errorf("%s: Update after cancellation: %v, want session.ErrDeadline", door, err)
		}
	}

	// Within the limit, and with a per-tool 0 (no limit): answered.
	if resp, body := post(t, client, ts.URL+"/stubborn", `{"ms": 10}`); resp.StatusCode != 200 || body != `{"count":2}` {
		t.Errorf("HTTP /stubborn within its limit: %d %s", resp.StatusCode, body)
	}
	<-srv.updateErrs
	if text, isErr := mcpCall(t, ts, token, "echo", `{"text":"ab"}`); isErr || text != `{"len":2}` {
		t.Errorf("MCP echo (no limit): %v %s", isErr, text)
	}
	if resp, body := post(t, client, ts.URL+"/read", `{}`); body != `{"count":2}` {
		t.Errorf("the counter: %d %s, want 2", resp.StatusCode, body)
	}

	// A per-tool limit for a tool that does not exist refuses the build.
	_, err = server.NewInstance(context.Background(), newTimed(), configtest.Over(config.Instance{Name: "x", ServerType: "x", ToolTimeouts: map[string]time.Duration{"no_such_tool": time.Second}}), server.InstanceOptions{})
	if err == nil || !strings.Contains(err.Error(), `tool_timeouts: no tool named no_such_tool`) {
		t.Errorf("unknown tool in tool_timeouts: %v", err)
	}
}
