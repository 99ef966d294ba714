package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/config/configtest"
	"github.com/gymkit/gymkit/server"
	"github.com/gymkit/gymkit/session"
)

// pingStore is a memory store with a Ping that fails, or hangs, on demand:
// a store like Redis that can be unreachable.
type pingStore struct {
	*session.MemoryStore
	down atomic.Bool // Ping fails
	hang atomic.Bool // Ping waits for its context
}

func (s *pingStore) Ping(ctx context.Context) error {
	switch {
	case s.hang.Load():
		<-ctx.Done()
		return ctx.Err()
	case s.down.Load():
		return errors.New("dial tcp 10.0.0.7:6379: connect: connection refused")
	}
	return nil
}

var _ server.StorePinger = (*pingStore)(nil)

func getJSON(t *testing.T, url string) (int, http.Header, map[string]string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out map[string]string
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("GET %s: %d %s: not a JSON object of strings", url, resp.StatusCode, b)
	}
	return resp.StatusCode, resp.Header, out
}

// TestHealthReadyFollowsTheStore: /health/ready answers 503 naming the
// store while its Ping fails or hangs past ReadyPingTimeout, and 200 again
// once it answers; /health/live stays 200; gymkit_draining and ready
// follow Drain. The store's own error (an address) is not answered.
func TestHealthReadyFollowsTheStore(t *testing.T) {
	t.Parallel()
	store := &pingStore{MemoryStore: session.NewMemoryStore()}
	sm := session.MustNewManager(session.Options{CookieName: server.CookieName("h", "h"), State: store})
	inst, err := server.NewInstance(context.Background(), &meteredEnv{}, configtest.Over(config.Instance{Name: "h", ServerType: "h", Host: "127.0.0.1", Metrics: config.MetricsConfig{Enabled: true}}), server.InstanceOptions{Sessions: sm, Logger: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(inst.Handler())
	defer ts.Close()
	ready := func(wantCode int, want map[string]string) {
		t.Helper()
		code, hdr, body := getJSON(t, ts.URL+"/health/ready")
		if code != wantCode || len(body) != len(want) {
			t.Fatalf("ready: %d %v, want %d %v", code, body, wantCode, want)
		}
		for k, v := range want {
			if body[k] != v {
				t.Fatalf("ready: %d %v, want %d %v", code, body, wantCode, want)
			}
		}
		if hdr.Get("Content-Type") != "application/json" || hdr.Get("Cache-Control") != "no-store" || hdr.Get("Set-Cookie") != "" {
			t.Errorf("ready headers: %v", hdr)
		}
		if code, _, body := getJSON(t, ts.URL+"/health/live"); code != 200 || body["status"] != "live" {
			t.Errorf("live: %d %v", code, body)
		}
	}
	ready(200, map[string]string{"status": "ready"})
	store.down.Store(true)
	ready(503, map[string]string{"status": "unavailable", "reason": "store_unreachable", "store": "server_test.pingStore", "detail": "ping failed"})
	store.down.Store(false)
	ready(200, map[string]string{"status": "ready"})
	store.hang.Store(true)
	// The probe's own timeout answers (its detail says so): the Ping waits
	// for its context, so without that timeout the probe would never end.
	ready(503, map[string]string{"status": "unavailable", "reason": "store_unreachable", "store": "server_test.pingStore",
		"detail": "ping timed out after 1s"})
	store.hang.Store(false)
	ready(200, map[string]string{"status": "ready"})
	if got := sample(scrape(t, ts.URL+"/metrics"), "gymkit_draining"); got != 0 {
		t.Errorf("gymkit_draining = %v before Drain", got)
	}
	inst.Drain()
	ready(503, map[string]string{"status": "unavailable", "reason": "draining"})
	if got := sample(scrape(t, ts.URL+"/metrics"), "gymkit_draining"); got != 1 {
		t.Errorf("gymkit_draining = %v after Drain, want 1", got)
	}
	// Other methods are not probes: they reach the routes as before.
	if code, body := cpost(t, ts.URL+"/health/ready", "", `{}`); code != 404 || body != `{"detail":"Not Found"}` {
		t.Errorf("POST /health/ready: %d %s, want NeMo's 404", code, body)
	}
}

// TestHealthMemoryStoreAlwaysReady: the memory store has no Ping: ready
// while the instance is not draining, with or without metrics.
func TestHealthMemoryStoreAlwaysReady(t *testing.T) {
	t.Parallel()
	for _, on := range []bool{false, true} {
		_, ts := startMetered(t, &meteredEnv{}, func(c *config.Instance) { c.Metrics.Enabled = on })
		if code, _, body := getJSON(t, ts.URL+"/health/ready"); code != 200 || body["status"] != "ready" {
			t.Errorf("metrics %v: ready %d %v", on, code, body)
		}
		resp, err := http.Head(ts.URL + "/health/live")
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("HEAD /health/live: %d", resp.StatusCode)
		}
	}
}

// TestHostReadyDrainDelay: once gymkit serve's context is done, every
// instance answers /health/ready 503 "draining" for ReadyDrainDelay while
// it still serves rollouts, then stops.
func TestHostReadyDrainDelay(t *testing.T) {
	t.Parallel()
	var ready syncBuffer
	h, err := server.New(context.Background(), server.Options{
		Files:   []string{writeConfig(t, "drained", "metrics: {enabled: true}")},
		WorkDir: t.TempDir(), Logger: quietLog(), Ready: &ready, ReadyDrainDelay: 1500 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	url := h.Instances()[0].URL()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- h.Serve(ctx) }()
	waitForText(t, &ready, regexp.MustCompile(`^drained http://`))
	if code, _, body := getJSON(t, url+"/health/ready"); code != 200 || body["status"] != "ready" {
		t.Fatalf("ready before the drain: %d %v", code, body)
	}
	cancel()
	deadline := time.Now().Add(30 * time.Second) // a ceiling, not a target
	for {
		code, _, body := getJSON(t, url+"/health/ready")
		if code == 503 && body["reason"] == "draining" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ready while draining: %d %v, want 503 draining", code, body)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if code, body := cpost(t, url+"/wait", "", `{}`); code != 200 || body != `{"done":true}` {
		t.Errorf("a call during the drain delay: %d %s, want it served", code, body)
	}
	if got := sample(scrape(t, url+"/metrics"), "gymkit_draining"); got != 1 {
		t.Errorf("gymkit_draining = %v during the drain, want 1", got)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Serve did not return after the drain delay")
	}
}
