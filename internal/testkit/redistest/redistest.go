// Package redistest gives tests a real Redis: the shared one named by
// GYMKIT_REDIS_URL, or one the test starts itself from the redis-server on
// PATH (to stop and restart it mid-test).
//
//	func TestSomething(t *testing.T) {
//		url := redistest.URL(t) // skips, or fails under GYMKIT_REQUIRE_REDIS=1
//		st, _ := session.NewRedisStore(session.RedisOptions{URL: url, Prefix: redistest.Prefix(t)})
//		...
//	}
//
// Without GYMKIT_REDIS_URL these tests skip with a message that says how to
// run them (make redis-test); with GYMKIT_REQUIRE_REDIS=1 (CI's .ci/run) they
// fail instead, so a CI without Redis cannot pass silently.
package redistest

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"
)

// HowTo is the message of a skipped Redis test.
const HowTo = "no Redis: set GYMKIT_REDIS_URL=redis://127.0.0.1:<port>/0 to run the Redis tests (`make redis-test` starts a redis-server on a free port and runs them; .ci/run sets GYMKIT_REQUIRE_REDIS=1 so they fail there instead of skipping)"

func missing(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("GYMKIT_REQUIRE_REDIS") == "1" {
		t.Fatalf("GYMKIT_REQUIRE_REDIS=1 but %s", why)
	}
	t.Skip(HowTo + " (" + why + ")")
}

// URL returns GYMKIT_REDIS_URL, or skips the test (fails it under
// GYMKIT_REQUIRE_REDIS=1) when it is unset.
func URL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("GYMKIT_REDIS_URL")
	if u == "" {
		missing(t, "GYMKIT_REDIS_URL is unset")
	}
	return u
}

// Prefix returns a key prefix of the test's own ("gymkit-test:<random>:"),
// so that tests sharing one Redis never see each other's keys.
func Prefix(t testing.TB) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "gymkit-test:" + hex.EncodeToString(b[:]) + ":"
}

// Server is a redis-server process the test started (see [Start]): it can
// be stopped and started again on the same port.
type Server struct {
	Port int
	dir  string
	mu   sync.Mutex
	cmd  *exec.Cmd
}

// URL is the server's redis:// URL.
func (s *Server) URL() string { return "redis://127.0.0.1:" + strconv.Itoa(s.Port) + "/0" }

// Start starts a redis-server from PATH on a free loopback port, with an
// append-only file synced on every write (so that a kill and [Server.Restart]
// keep every committed write, as a production Redis with AOF does), and stops
// it when the test ends. It skips (fails under
// GYMKIT_REQUIRE_REDIS=1) when GYMKIT_REDIS_URL is unset or there is no
// redis-server on PATH.
func Start(t testing.TB) *Server {
	t.Helper()
	URL(t)
	if _, err := exec.LookPath("redis-server"); err != nil {
		missing(t, "there is no redis-server on PATH (apt-get install redis-server)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	s := &Server{Port: port, dir: t.TempDir()}
	s.Restart(t)
	t.Cleanup(s.Stop)
	return s
}

// Restart starts the server again (after Stop) on the same port and waits
// until it answers PING with PONG (it answers LOADING while it reads its
// append-only file back).
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	cmd := exec.Command("redis-server", "--port", strconv.Itoa(s.Port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "yes", "--appendfsync", "always", "--dir", s.dir)
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting redis-server: %v", err)
	}
	s.cmd = cmd
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := ping(s.Port)
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-server on port %d did not start: %v", s.Port, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop kills the server (SIGKILL: an outage, not a shutdown) and waits for it
// to exit. It is idempotent.
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
}

// ping sends PING and wants +PONG.
func ping(port int) error {
	c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 200*time.Millisecond)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	buf := make([]byte, 64)
	n, err := c.Read(buf)
	if err != nil {
		return err
	}
	if string(buf[:n]) != "+PONG\r\n" {
		return fmt.Errorf("PING answered %q", buf[:n])
	}
	return nil
}
