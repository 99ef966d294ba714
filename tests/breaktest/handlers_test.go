package breaktest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gymkit/gymkit/server/servertest"
)

// TestHandlerGoexit: a handler that calls runtime.Goexit (t.FailNow, a
// library doing it) gets no response at all: the connection is closed. NeMo's
// aiohttp client retries a ServerDisconnectedError without limit (contract
// a.7), so the agent loops on that tool forever. Expected: a 500 JSON-string
// body without the session cookie, like a panic (Starlette sends none).
func TestHandlerGoexit(t *testing.T) {
	ts := servertest.New(t, &breakEnv{}, servertest.Options{})
	req, _ := http.NewRequest("POST", ts.URL+"/goexit", strings.NewReader(`{}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST /goexit: no HTTP response at all: %v (want a 500 JSON-string body)", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	want(t, "/goexit", resp.StatusCode, resp.Header, b, 500, "")
}

// TestHandlerClientDisconnect: the client hangs up mid-call (once its
// handler runs); the handler's context must be cancelled (the handler
// would otherwise wait 10 s and not count) and no goroutine may be left
// behind. Waits are polls with a 30 s ceiling, not targets.
func TestHandlerClientDisconnect(t *testing.T) {
	for _, path := range []string{"/slow_body", "/slow"} {
		t.Run(path, func(t *testing.T) { clientDisconnect(t, path) })
	}
}

func clientDisconnect(t *testing.T, path string) {
	env := &breakEnv{}
	ts := servertest.New(t, env, servertest.Options{})
	before := runtime.NumGoroutine()
	for i := 0; i < 20; i++ {
		c, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}", path)
		eventually(t, "the handler started", func() bool { return env.slowStarted.Load() == int64(i+1) })
		c.Close()
	}
	eventually(t, "20 handlers saw their context cancelled", func() bool { return env.slowDone.Load() == 20 })
	var after int
	eventually(t, "goroutines back to the baseline", func() bool {
		after = runtime.NumGoroutine()
		return after <= before+5
	})
	t.Logf("%d of 20 handlers saw their context cancelled; goroutines %d -> %d", env.slowDone.Load(), before, after)
}

// TestBodyFraming: chunked bodies, oversize chunked bodies, a short body
// with a larger Content-Length (closed early), and Expect: 100-continue.
func TestBodyFraming(t *testing.T) {
	ts := servertest.New(t, &breakEnv{}, servertest.Options{Config: "max_body_bytes: 1024"})
	chunk := func(parts ...string) string {
		var b strings.Builder
		for _, p := range parts {
			fmt.Fprintf(&b, "%x\r\n%s\r\n", len(p), p)
		}
		b.WriteString("0\r\n\r\n")
		return b.String()
	}
	head := "POST /value HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
	res := rawDo(t, ts, head+chunk(`{"a":`, `[1,2`, `]}`))
	want(t, "chunked", res.Status, res.Header, res.Body, 200, `{"a":[1,2]}`)

	res = rawDo(t, ts, head+chunk(`{"a":"`+strings.Repeat("x", 2000)+`"}`))
	want(t, "chunked over limit", res.Status, res.Header, res.Body, 413, `{"detail":"Request body too large: limit is 1024 bytes"}`)

	res = rawDo(t, ts, rawReq("POST", "/value", jsonCT, []byte(`{"a":"`+strings.Repeat("x", 2000)+`"}`)))
	want(t, "content-length over limit", res.Status, res.Header, res.Body, 413, `{"detail":"Request body too large: limit is 1024 bytes"}`)

	exact := []byte(`{"a":"` + strings.Repeat("x", 1024-8) + `"}`)
	res = rawDo(t, ts, rawReq("POST", "/value", jsonCT, exact))
	want(t, "body of exactly the limit", res.Status, res.Header, res.Body, 200, string(exact))
	res = rawDo(t, ts, head+chunk(string(exact[:500]), string(exact[500:])))
	want(t, "chunked body of exactly the limit", res.Status, res.Header, res.Body, 200, string(exact))
	res = rawDo(t, ts, head+chunk(string(exact[:500]), string(exact[500:]), " "))
	want(t, "chunked body one over the limit", res.Status, res.Header, res.Body, 413, "")

	res = rawDo(t, ts, "POST /value HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: 1024\r\nExpect: 100-continue\r\n\r\n"+`{"a":1}`+strings.Repeat(" ", 1017))
	want(t, "expect 100-continue", res.Status, res.Header, res.Body, 200, `{"a":1}`)

	// Declared length larger than what is sent, then the client half-closes.
	c, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /value HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"a\":1}")
	c.(*net.TCPConn).CloseWrite()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err == nil {
		b, _ := io.ReadAll(resp.Body)
		t.Logf("truncated body: %d %s (cookies %d)", resp.StatusCode, b, len(resp.Header.Values("Set-Cookie")))
		if resp.StatusCode != 400 {
			t.Errorf("truncated body: status %d, want 400 There was an error parsing the body", resp.StatusCode)
		}
	} else {
		t.Logf("truncated body: %v", err)
	}
	_ = context.Background
}
