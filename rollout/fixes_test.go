package rollout_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gymkit/gymkit/rollout"
)

// countingDialer counts the client connections a transport opens and closes.
type countingDialer struct {
	mu           sync.Mutex
	dialed, open int
}

type countedConn struct {
	net.Conn
	d    *countingDialer
	once sync.Once
}

func (c *countedConn) Close() error {
	c.once.Do(func() { c.d.mu.Lock(); c.d.open--; c.d.mu.Unlock() })
	return c.Conn.Close()
}

func (d *countingDialer) client() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	var nd net.Dialer
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := nd.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		d.mu.Lock()
		d.dialed++
		d.open++
		d.mu.Unlock()
		return &countedConn{Conn: c, d: d}, nil
	}
	t.MaxIdleConnsPerHost = 64
	return &http.Client{Transport: t}
}

// Regression: gymkit rollout hung ~5 s after its summary because
// its client kept idle connections to the embedded instance, and the
// instance's drain waited on them. After Run returns, the client has closed
// every connection it opened, and the instance sees none left open.
func TestRunLeavesNoIdleConnection(t *testing.T) {
	t.Parallel()
	for _, door := range []rollout.Door{rollout.DoorHTTP, rollout.DoorMCP} {
		t.Run(string(door), func(t *testing.T) {
			t.Parallel()
			e := start(t, rollout.EmbedOptions{Files: []string{configPath(t, "example_mcp_weather")}})
			var d countingDialer
			r := collect(t, rollout.Options{Input: weatherRows, URL: e.URL, Door: door, Instance: e.Instance.Name,
				Concurrency: 4, NumRepeats: 3, HTTPClient: d.client()})
			if r.err != nil || r.sum.Succeeded != 15 {
				t.Fatalf("err %v, summary %+v", r.err, r.sum)
			}
			d.mu.Lock()
			dialed, open := d.dialed, d.open
			d.mu.Unlock()
			if dialed == 0 || open != 0 {
				t.Fatalf("client side: %d connections dialed, %d still open after Run returned; want 0 open", dialed, open)
			}
			// The instance reads the closes asynchronously; a connection kept
			// idle would stay open for server.IdleTimeout (minutes).
			deadline := time.Now().Add(10 * time.Second)
			for e.OpenConns() != 0 {
				if time.Now().After(deadline) {
					t.Fatalf("instance side: %d client connections still open after Run returned", e.OpenConns())
				}
				time.Sleep(5 * time.Millisecond)
			}
		})
	}
}

// port_range_* places the embedded instance; --port (EmbedOptions.Port)
// chooses its port; the configured port is used by neither.
func TestStartPortChoice(t *testing.T) {
	t.Parallel()
	const path = "example_mcp_weather.resources_servers.example_mcp_weather"
	cfg := []string{configPath(t, "example_mcp_weather")}
	t.Run("port_range", func(t *testing.T) {
		t.Parallel()
		e := start(t, rollout.EmbedOptions{Files: cfg, Overrides: []string{"port_range_low=17100", "port_range_high=17140", path + ".port=17120"}})
		port, _ := strconv.Atoi(e.URL[strings.LastIndex(e.URL, ":")+1:])
		if port < 17100 || port > 17140 || port == 17120 || !strings.HasPrefix(e.URL, "http://127.0.0.1:") {
			t.Fatalf("URL %s: want a loopback port in [17100, 17140] other than the configured 17120", e.URL)
		}
	})
	t.Run("disallowed", func(t *testing.T) {
		t.Parallel()
		e := start(t, rollout.EmbedOptions{Files: cfg, Overrides: []string{"port_range_low=17150", "port_range_high=17152", "disallowed_ports=[17150, 17152]"}})
		if !strings.HasSuffix(e.URL, ":17151") {
			t.Fatalf("URL %s: want port 17151, the only one allowed", e.URL)
		}
	})
	t.Run("port", func(t *testing.T) {
		t.Parallel()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		e := start(t, rollout.EmbedOptions{Files: cfg, Port: port})
		if e.URL != "http://127.0.0.1:"+strconv.Itoa(port) {
			t.Fatalf("URL %s, want port %d", e.URL, port)
		}
		// The port is taken now: a second instance on it is refused, naming it.
		_, err = rollout.Start(context.Background(), rollout.EmbedOptions{Files: cfg, Port: port, WorkDir: t.TempDir()})
		if err == nil || !strings.Contains(err.Error(), strconv.Itoa(port)) {
			t.Fatalf("second instance on port %d: %v", port, err)
		}
	})
}

// An unreachable URL is one error, before any file is written.
func TestRunUnreachable(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close()
	out := filepath.Join(t.TempDir(), "out.jsonl")
	sum, err := rollout.Run(context.Background(), rollout.Options{Input: weatherRows, Output: out, URL: url, Door: rollout.DoorMCP})
	var ue *rollout.UnreachableError
	if sum != nil || !errors.As(err, &ue) || ue.URL != url || !strings.Contains(err.Error(), "cannot reach the instance at "+url+": ") {
		t.Fatalf("summary %+v, err %v", sum, err)
	}
	if _, err := os.Stat(rollout.PathsFor(out).Materialized); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a file was written: %v", err)
	}
}

// recordingTransport keeps the JSON-RPC methods and protocol versions posted
// to /mcp.
type recordingTransport struct {
	mu     sync.Mutex
	bodies []string
}

func (rt *recordingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/mcp") && r.Body != nil {
		b, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			return nil, err
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		rt.mu.Lock()
		rt.bodies = append(rt.bodies, string(b))
		rt.mu.Unlock()
	}
	return http.DefaultTransport.RoundTrip(r)
}

// The MCP client's first request is initialize with 2025-06-18, which the
// door accepts: no server/discover, no fallback round trip.
func TestMCPFirstTryProtocolVersion(t *testing.T) {
	t.Parallel()
	ts := weatherServer(t, "example_mcp_weather")
	rt := &recordingTransport{}
	r := collect(t, rollout.Options{Input: weatherRows, URL: ts.URL, Door: rollout.DoorMCP, Instance: "example_mcp_weather",
		Limit: 1, HTTPClient: &http.Client{Transport: rt}})
	if r.err != nil || r.sum.Succeeded != 1 {
		t.Fatalf("err %v, summary %+v", r.err, r.sum)
	}
	var methods []string
	for _, b := range rt.bodies {
		var msg struct {
			Method string `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"params"`
		}
		if err := json.Unmarshal([]byte(b), &msg); err != nil {
			t.Fatalf("%v: %s", err, b)
		}
		methods = append(methods, msg.Method)
		if msg.Method == "initialize" && msg.Params.ProtocolVersion != rollout.ProtocolVersion {
			t.Errorf("initialize offers %q, want %q", msg.Params.ProtocolVersion, rollout.ProtocolVersion)
		}
	}
	if want := "initialize,notifications/initialized,tools/call"; strings.Join(methods, ",") != want {
		t.Errorf("MCP requests %v, want %s", methods, want)
	}
}
