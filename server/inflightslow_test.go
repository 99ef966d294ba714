package server_test

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/config/configtest"
)

// TestInflightSlowClientsDoNotLockOthersOut: clients that send a request's
// headers with a large Content-Length and then stall (slowloris on the
// body) must not take max_inflight_body_bytes from everyone else: they
// hold what they sent, not what they declared. Measured with gymkit serve
// and the defaults (16 MiB max_body_bytes, 256 MiB in flight, 30 s
// body_read_timeout): 16 connections that each send headers declaring
// Content-Length: 16777216 and one body byte make every other client's
// /seed_session, tool call, /verify and POST /mcp answer 503 "Server busy"
// for as long as they stall (up to body_read_timeout, and they may
// reconnect), when a declared length was reserved whole on the first read.
func TestInflightSlowClientsDoNotLockOthersOut(t *testing.T) {
	t.Parallel()
	const maxBody = 1 << 20
	ts := serveTimed(t, newTimed(), configtest.Over(config.Instance{MaxBodyBytes: maxBody, MaxInflightBodyBytes: 2 * maxBody}), nil)
	addr := strings.TrimPrefix(ts.URL, "http://")
	for range 2 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{", maxBody)
	}
	time.Sleep(300 * time.Millisecond) // both handlers are reading their bodies
	if resp, got := post(t, ts.Client(), ts.URL+"/echo", `{"text":"abc"}`); resp.StatusCode != 200 || got != `{"len":3}` {
		t.Errorf("another client's small body beside two stalled ones: %d %s, want 200 {\"len\":3}", resp.StatusCode, got)
	}
}
