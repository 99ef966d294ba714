package breaktest

// Hostile tests of the tool timeouts (docs/security.md, "Stall
// connections"): calls racing their deadline
// with session.Update on both doors, and many concurrent 504s.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/config/configtest"
	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/server"
	"github.com/gymkit/gymkit/session"
)

// raceEnv's /racer sleeps us microseconds, ignoring its context, then adds
// 1 to the session's counter; /read answers the counter (no limit);
// /blocker ignores its context and returns only once release is closed
// (unblock).
type raceEnv struct {
	framework.Base
	running atomic.Int64 // handlers of /racer and /blocker not yet returned
	release chan struct{}
	once    sync.Once
}

// unblock lets every /blocker handler return; safe to call more than once.
func (e *raceEnv) unblock() { e.once.Do(func() { close(e.release) }) }

// eventually polls cond until it holds and fails the test if it never does
// within a generous ceiling (30 s): the tests wait for behaviour, not speed.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Errorf("%s: still not true after 30 s", what)
			return
		}
	}
}

type racerReq struct {
	Us int `json:"us"`
}

type counterResp struct {
	N   int    `json:"n"`
	Err string `json:"err"`
}

func (e *raceEnv) Routes(r *framework.Router) {
	framework.Post(r, "/racer", func(ctx context.Context, req racerReq) (counterResp, error) {
		e.running.Add(1)
		defer e.running.Add(-1)
		time.Sleep(time.Duration(req.Us) * time.Microsecond)
		var n int
		err := session.Update(ctx, "n", func(c *int) error { *c++; n = *c; return nil })
		if err != nil {
			return counterResp{Err: err.Error()}, nil // ignores the refusal, as a careless tool would
		}
		return counterResp{N: n}, nil
	})
	framework.Post(r, "/blocker", func(ctx context.Context, _ struct{}) (counterResp, error) {
		e.running.Add(1)
		defer e.running.Add(-1)
		<-e.release // ignores ctx, as a careless tool would
		return counterResp{N: 1}, nil
	})
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{}, nil
	})
	framework.Post(r, "/read", func(ctx context.Context, _ struct{}) (counterResp, error) {
		n, _, err := session.Get[int](ctx, "n")
		return counterResp{N: n}, err
	})
}

func serveRace(t *testing.T, cfg config.Instance) (*httptest.Server, *raceEnv) {
	t.Helper()
	env := &raceEnv{release: make(chan struct{})}
	t.Cleanup(env.unblock)
	cfg.Host, cfg.ExposeToolsOverMCP = "127.0.0.1", true
	cfg.SessionSecrets = config.Secrets{"breaktest-timeouts-secret-0123456789abcdef"}
	in, err := server.NewInstance(context.Background(), env, configtest.Named(cfg, "race", "race"), server.InstanceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(in.Handler())
	t.Cleanup(ts.Close)
	return ts, env
}

// TestTimeoutRaceNoWriteAfter504: 400 calls, each in
// its own rollout, half over HTTP and half over MCP, sleep around their
// 5 ms deadline and then write once. A call answered 504 may have written
// before its deadline, but nothing is written under it after the 504: the
// counter read right after the 504 is the counter once every handler has
// returned. Every 200 wrote exactly once.
func TestTimeoutRaceNoWriteAfter504(t *testing.T) {
	t.Parallel()
	const limit = 5 * time.Millisecond
	ts, env := serveRace(t, configtest.Over(config.Instance{ToolTimeout: limit, ToolTimeouts: map[string]time.Duration{"read": 0}}))
	const calls = 400
	type after504 struct {
		c    *wpClient
		seen int
	}
	var (
		mu      sync.Mutex
		late    []after504
		oks     atomic.Int64
		wrote   atomic.Int64 // 504s whose call wrote before its deadline
		refused atomic.Int64 // 200s whose handler saw ErrDeadline (must be 0)
	)
	read := func(c *wpClient) int {
		st, body, _ := c.post(t, "/read", nil, `{}`)
		var r counterResp
		if st != 200 || json.Unmarshal([]byte(body), &r) != nil {
			t.Errorf("/read: %d %s", st, body)
		}
		return r.N
	}
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i := range calls {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			c := seedWP(t, ts.URL)
			us := 3000 + (i*37)%4000 // 3 to 7 ms
			args := `{"us":` + itoa(us) + `}`
			var timedOut bool
			if i%2 == 0 {
				st, body, _ := c.post(t, "/racer", nil, args)
				switch {
				case st == 504 && body == `{"detail":"Tool 'racer' timed out after 5ms"}`:
					timedOut = true
				case st == 200 && strings.Contains(body, `"err":""`):
					oks.Add(1)
				case st == 200:
					refused.Add(1)
				default:
					t.Errorf("HTTP racer: %d %s", st, body)
				}
			} else {
				text, isErr := c.mcpTool(t, "racer", args)
				switch {
				case isErr && text == "HTTP 504 from POST /racer: Tool 'racer' timed out after 5ms":
					timedOut = true
				case !isErr && strings.Contains(text, `"err":""`):
					oks.Add(1)
				case !isErr:
					refused.Add(1)
				default:
					t.Errorf("MCP racer: %s", text)
				}
			}
			if timedOut {
				n := read(c)
				if n > 0 {
					wrote.Add(1)
				}
				mu.Lock()
				late = append(late, after504{c, n})
				mu.Unlock()
			} else if n := read(c); n != 1 {
				t.Errorf("a 200 left the counter at %d", n)
			}
		})
	}
	wg.Wait()
	eventually(t, "every /racer handler returned", func() bool { return env.running.Load() == 0 })
	changed := 0
	for _, l := range late {
		if n := read(l.c); n != l.seen {
			changed++
		}
	}
	t.Logf("%d calls: %d 200, %d 504 (%d of them wrote before the deadline), %d 504s whose state changed afterwards, %d 200s with a refused write",
		calls, oks.Load(), len(late), wrote.Load(), changed, refused.Load())
	if changed > 0 || refused.Load() > 0 {
		t.Errorf("%d rollouts were written after their 504; %d 200s hid a refused write", changed, refused.Load())
	}
	if len(late) == 0 || oks.Load() == 0 {
		t.Logf("no mix of 200s and 504s this time (a loaded machine): %d 200, %d 504", oks.Load(), len(late))
	}
}

// TestManyConcurrent504sReturnToBaseline: 200
// concurrent calls of a tool that ignores its context and blocks until the
// test releases it, under a 20 ms limit, are all answered by the tool
// timeout's own 504 while every handler is still blocked (so no 504 waits
// for its handler: if one did, the calls would never be answered and the
// test fails after a 30 s ceiling), and once the handlers are released and
// have returned the goroutine count comes back to where it started.
func TestManyConcurrent504sReturnToBaseline(t *testing.T) {
	ts, env := serveRace(t, configtest.Over(config.Instance{ToolTimeout: 20 * time.Millisecond, ToolTimeouts: map[string]time.Duration{"read": 0}}))
	c := &wpClient{url: ts.URL}
	c.post(t, "/read", nil, `{}`) // warm the client's connection pool
	plainClient.CloseIdleConnections()
	runtime.GC()
	base := runtime.NumGoroutine()
	const n = 200
	const want504 = `{"detail":"Tool 'blocker' timed out after 20ms"}`
	var wg sync.WaitGroup
	var answered, early atomic.Int64
	for range n {
		wg.Go(func() {
			st, body, _ := (&wpClient{url: ts.URL}).post(t, "/blocker", nil, `{}`)
			if st != 504 || body != want504 {
				t.Errorf("blocked handler: %d %s, want 504 %s", st, body, want504)
			}
			answered.Add(1)
			select {
			case <-env.release:
			default:
				early.Add(1) // answered while the handlers were still blocked
			}
		})
	}
	all := make(chan struct{})
	go func() { wg.Wait(); close(all) }()
	select {
	case <-all:
	case <-time.After(30 * time.Second):
		t.Errorf("%d of %d calls answered in 30 s while their handlers were blocked: the 504 waits for its handler", answered.Load(), n)
	}
	env.unblock()
	<-all
	if early.Load() != n {
		t.Errorf("%d of %d 504s came only once the handlers were released", n-early.Load(), n)
	}
	eventually(t, "every /blocker handler returned", func() bool { return env.running.Load() == 0 })
	var now int
	eventually(t, "goroutines back to the baseline", func() bool {
		plainClient.CloseIdleConnections()
		now = runtime.NumGoroutine()
		return now <= base+5
	})
	t.Logf("%d 504s while the handlers were blocked, goroutines %d before, %d after", early.Load(), base, now)
}

// TestTooLargeHostileClients: with max_body_bytes
// 1 MiB, on both doors, (1) a request that declares 2 MiB and asks for
// 100-continue (curl does for large bodies) is answered 413 without a 100
// Continue and without waiting for the body, and closed, and so is a
// 100-continue request to an unknown path (404); (2) a client that streams a
// chunked body for ever and never reads is cut off (the connection closed by
// the server) after at most the drain limit (limit + 4 MiB) plus socket
// buffers. Found by this pass: (1) waited for body_read_timeout (30 s under
// gymkit serve) before answering, because the body guard replaced the body
// of net/http's own request, which then read the body the client was holding
// back. body_read_timeout is 10 min here and each connection has a 30 s
// deadline, so waiting for the body, or never cutting the client off, ends
// on the client's deadline and fails the test, however loaded the machine.
func TestTooLargeHostileClients(t *testing.T) {
	t.Parallel()
	ts, _ := serveRace(t, configtest.Over(config.Instance{MaxBodyBytes: 1 << 20, BodyReadTimeout: 10 * time.Minute}))
	addr := strings.TrimPrefix(ts.URL, "http://")
	const ceiling = 30 * time.Second
	for _, path := range []string{"/read", "/mcp"} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		_ = c.SetDeadline(time.Now().Add(ceiling))
		fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nExpect: 100-continue\r\nContent-Length: %d\r\n\r\n", path, addr, 2<<20)
		got, err := io.ReadAll(c)
		c.Close()
		if !strings.HasPrefix(string(got), "HTTP/1.1 413 ") || strings.Contains(string(got), "100 Continue") || err != nil {
			t.Errorf("%s, 100-continue: %v: %.200q", path, err, got)
		}
		if path == "/read" {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			_ = c.SetDeadline(time.Now().Add(ceiling))
			fmt.Fprintf(c, "POST /nope HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 1000\r\n\r\n", addr)
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			c.Close()
			if err != nil || resp.StatusCode != 404 {
				t.Errorf("/nope, 100-continue (keep-alive): %v %v", resp, err)
			}
		}

		c, err = net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		_ = c.SetDeadline(time.Now().Add(ceiling))
		fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n", path, addr)
		chunk := fmt.Sprintf("%x\r\n%s\r\n", 64<<10, strings.Repeat("x", 64<<10))
		sent := 0
		var werr error
		for sent < 256<<20 {
			if _, werr = io.WriteString(c, chunk); werr != nil {
				break
			}
			sent += 64 << 10
		}
		c.Close()
		t.Logf("%s: a never-reading chunked client sent %d MiB before being cut off: %v", path, sent>>20, werr)
		if sent >= 256<<20 || werr == nil || errors.Is(werr, os.ErrDeadlineExceeded) {
			t.Errorf("%s: a never-reading client sent %d MiB and was not cut off by the server: %v", path, sent>>20, werr)
		}
	}
}
