package replicas

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/gymkit/gymkit/internal/testkit/redistest"
	"github.com/gymkit/gymkit/server"
)

// pollCeiling bounds every wait for a state change (readiness flipping, a
// key expiring): long, so that a loaded machine never fails a test that
// would pass; the assertions are on the state reached, not on the time.
const pollCeiling = 90 * time.Second

// startReplicaWith serves the counter on a free port with its state in the
// Redis at url under prefix, with extra overrides of the counter's block
// (e.g. "metrics.enabled=true"), and returns its base URL; the replica
// drains when the test ends.
func startReplicaWith(t *testing.T, url, prefix string, extra ...string) string {
	t.Helper()
	overrides := []string{
		counterBlock + "session_secret=" + secret,
		counterBlock + "session.store=redis",
		counterBlock + "session.url=" + url,
		counterBlock + "session.prefix=" + prefix,
		counterBlock + "session.dial_timeout=300ms",
		counterBlock + "session.read_timeout=2s",
	}
	for _, e := range extra {
		overrides = append(overrides, counterBlock+e)
	}
	return serveConfig(t, counterConfig, overrides)
}

// serveConfig serves the config file (relative to the module root) with
// the overrides on a free port, and returns the first instance's base URL;
// the host drains when the test ends.
func serveConfig(t *testing.T, file string, overrides []string) string {
	t.Helper()
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	ctx, cancel := context.WithCancel(context.Background())
	h, err := server.New(ctx, server.Options{
		Files:     []string{file},
		Overrides: overrides,
		WorkDir:   root,
		LookupEnv: func(string) (string, bool) { return "", false },
		Logger:    slog.New(slog.DiscardHandler),
		Ready:     io.Discard,
	})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- h.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("drain: %v", err)
		}
	})
	return h.Instances()[0].URL()
}

// twoReplicas starts a private Redis (redistest.Start) and two replicas of
// the counter on it under one fresh key prefix, each with the extra
// overrides, and returns the Redis, the prefix and the replicas' base URLs.
func twoReplicas(t *testing.T, extra ...string) (srv *redistest.Server, prefix, a, b string) {
	t.Helper()
	srv = redistest.Start(t)
	prefix = redistest.Prefix(t)
	a = startReplicaWith(t, srv.URL(), prefix, extra...)
	b = startReplicaWith(t, srv.URL(), prefix, extra...)
	return srv, prefix, a, b
}

// get answers GET base+path: status and body.
func get(t *testing.T, base, path string) (int, []byte) {
	t.Helper()
	res, err := http.Get(base + path)
	if err != nil {
		t.Fatalf("GET %s%s: %v (the replica is down?)", base, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

// readiness is GET /health/ready, decoded.
func readiness(t *testing.T, base string) (int, server.Readiness) {
	t.Helper()
	code, body := get(t, base, "/health/ready")
	var r server.Readiness
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("GET %s/health/ready: %d %q: %v", base, code, body, err)
	}
	return code, r
}

// waitReady polls /health/ready on base until it answers want.
func waitReady(t *testing.T, base string, want int) server.Readiness {
	t.Helper()
	deadline := time.Now().Add(pollCeiling)
	for {
		code, r := readiness(t, base)
		if code == want {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s/health/ready still %d %+v, want %d", base, code, r, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// metric sums the samples of the Prometheus text exposition of base's
// /metrics whose name is name and whose labels contain every one of labels
// (each `key="value"`).
func metric(t *testing.T, base, name string, labels ...string) float64 {
	t.Helper()
	code, body := get(t, base, "/metrics")
	if code != 200 {
		t.Fatalf("GET %s/metrics: %d %s", base, code, body)
	}
	var sum float64
	sc := bufio.NewScanner(strings.NewReader(string(body)))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		series, value, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		n, lbls, _ := strings.Cut(series, "{")
		if n != name {
			continue
		}
		match := true
		for _, l := range labels {
			match = match && strings.Contains(lbls, l)
		}
		if !match {
			continue
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			t.Fatalf("%s: bad sample %q", name, line)
		}
		sum += v
	}
	return sum
}

func live(t *testing.T, base string) {
	t.Helper()
	if code, body := get(t, base, "/health/live"); code != 200 || !strings.Contains(string(body), `"live"`) {
		t.Errorf("GET %s/health/live: %d %s, want 200 live", base, code, body)
	}
}

// TestHealthAndMetricsThroughAnOutage: two replicas with metrics.enabled on
// one Redis. Both are ready; while Redis is down /health/ready answers 503
// store_unreachable naming the Redis store, /health/live stays 200, tool
// calls on both doors fail, and /metrics counts the store errors and the
// tool call errors of each door; once Redis is back both are ready again by
// themselves and calls succeed, with nothing written by the failed calls.
func TestHealthAndMetricsThroughAnOutage(t *testing.T) {
	srv, _, a, b := twoReplicas(t, "metrics.enabled=true")
	replicas := []string{a, b}
	ro := seed(t, a, 3)
	mcpA, mcpB := mcpClient(t, a, ro.token), mcpClient(t, b, ro.token)

	for _, base := range replicas {
		if code, r := readiness(t, base); code != 200 || r.Status != "ready" {
			t.Fatalf("%s ready before the outage: %d %+v", base, code, r)
		}
		live(t, base)
	}
	type counts struct{ store, httpErr, mcpErr float64 }
	snapshot := func(base string) counts {
		return counts{
			store:   metric(t, base, "gymkit_session_store_errors_total"),
			httpErr: metric(t, base, "gymkit_tool_call_errors_total", `tool="increment_counter"`, `door="http"`, `class="5xx"`),
			mcpErr:  metric(t, base, "gymkit_tool_call_errors_total", `tool="increment_counter"`, `door="mcp"`, `class="5xx"`),
		}
	}
	before := map[string]counts{a: snapshot(a), b: snapshot(b)}

	srv.Stop()
	for _, base := range replicas {
		r := waitReady(t, base, http.StatusServiceUnavailable)
		if r.Status != "unavailable" || r.Reason != "store_unreachable" || r.Store != "redisstore.Store" || r.Detail == "" {
			t.Errorf("%s ready with Redis down: %+v, want unavailable store_unreachable naming redisstore.Store", base, r)
		}
		live(t, base)
	}
	for i, cs := range []*mcp.ClientSession{mcpA, mcpB} {
		base := replicas[i]
		if code, body, _ := post(t, base, "/increment_counter", ro, map[string]any{"count": 100}); code != http.StatusServiceUnavailable {
			t.Errorf("HTTP increment on %s with Redis down: %d %s, want 503", base, code, body)
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "increment_counter", Arguments: map[string]any{"count": 100}})
		if err != nil || !res.IsError || !strings.Contains(mcpText(res), "state store is unavailable") {
			t.Errorf("MCP increment on %s with Redis down: %v %q, want isError naming the store", base, err, mcpText(res))
		}
	}
	for _, base := range replicas {
		live(t, base)
		now := snapshot(base)
		was := before[base]
		if now.store <= was.store {
			t.Errorf("%s: gymkit_session_store_errors_total %v -> %v, want it to grow during the outage", base, was.store, now.store)
		}
		if now.httpErr < was.httpErr+1 || now.mcpErr < was.mcpErr+1 {
			t.Errorf("%s: increment_counter 5xx errors http %v -> %v, mcp %v -> %v; want +1 on each door",
				base, was.httpErr, now.httpErr, was.mcpErr, now.mcpErr)
		}
	}

	srv.Restart(t)
	for _, base := range replicas {
		if r := waitReady(t, base, http.StatusOK); r.Status != "ready" || r.Reason != "" {
			t.Errorf("%s ready after the outage: %+v", base, r)
		}
		live(t, base)
	}
	if code, body, _ := post(t, b, "/increment_counter", ro, map[string]any{"count": 1}); code != 200 {
		t.Fatalf("HTTP increment on B after the outage: %d %s", code, body)
	}
	if got := count(t, a, ro); got != 4 {
		t.Errorf("count on A after the outage = %d, want 3 + 1 (the failed calls wrote nothing)", got)
	}
}

// redisClient is a plain go-redis client on the test's Redis, to look at
// the keys the replicas wrote.
func redisClient(t *testing.T, url string) *redis.Client {
	t.Helper()
	o, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(o)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// onlyKey is the one key under prefix (the rollout's state).
func onlyKey(t *testing.T, rc *redis.Client, prefix string) string {
	t.Helper()
	keys, err := rc.Keys(context.Background(), prefix+"*").Result()
	if err != nil || len(keys) != 1 {
		t.Fatalf("keys under %q: %v %v, want the one rollout's", prefix, keys, err)
	}
	return keys[0]
}

func pttl(t *testing.T, rc *redis.Client, key string) time.Duration {
	t.Helper()
	d, err := rc.PTTL(context.Background(), key).Result()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestIdleTimeoutIsARedisTTL: with session_idle_timeout 6s the rollout's
// key in Redis carries a TTL of at most 6s; a read on replica B (not the
// replica that wrote it) refreshes it; once no replica touches the rollout,
// Redis itself drops the key, and both replicas then see a fresh session.
func TestIdleTimeoutIsARedisTTL(t *testing.T) {
	idle := 6 * time.Second
	srv, prefix, a, b := twoReplicas(t, "session_idle_timeout=6s")
	rc := redisClient(t, srv.URL())

	ro := seed(t, a, 5)
	if code, body, _ := post(t, a, "/increment_counter", ro, map[string]any{"count": 2}); code != 200 {
		t.Fatalf("increment on A: %d %s", code, body)
	}
	key := onlyKey(t, rc, prefix)
	if d := pttl(t, rc, key); d <= 0 || d > idle {
		t.Fatalf("PTTL %s after a write = %v, want in (0, %v]", key, d, idle)
	}
	// Wait (polling) until the TTL has run down past half, then read on B:
	// the read is activity, and B's store sets the TTL back to the idle timeout.
	deadline := time.Now().Add(pollCeiling)
	for pttl(t, rc, key) > idle/2 {
		if time.Now().After(deadline) {
			t.Fatal("the TTL never ran down")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if got := count(t, b, ro); got != 7 {
		t.Fatalf("count on B = %d, want 5 + 2", got)
	}
	if d := pttl(t, rc, key); d <= idle/2 || d > idle {
		t.Errorf("PTTL after a read on B = %v, want it refreshed into (%v, %v]", d, idle/2, idle)
	}
	// Nobody touches the rollout: Redis expires the key by itself.
	deadline = time.Now().Add(pollCeiling)
	for {
		n, err := rc.Exists(context.Background(), key).Result()
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("key %s still in Redis (PTTL %v)", key, pttl(t, rc, key))
		}
		time.Sleep(200 * time.Millisecond)
	}
	if got := count(t, b, ro); got != 0 {
		t.Errorf("count on B after the idle expiry = %d, want 0 (a fresh session)", got)
	}
}

// TestLifetimeCapsTheRedisTTL: with session_lifetime 1m and an idle timeout
// of 1h, the key's TTL never reaches past the first write + 1m: a read on B
// does not extend it.
func TestLifetimeCapsTheRedisTTL(t *testing.T) {
	srv, prefix, a, b := twoReplicas(t, "session_lifetime=1m")
	rc := redisClient(t, srv.URL())

	ro := seed(t, a, 1)
	if code, body, _ := post(t, a, "/increment_counter", ro, map[string]any{"count": 1}); code != 200 {
		t.Fatalf("increment on A: %d %s", code, body)
	}
	key := onlyKey(t, rc, prefix)
	first := pttl(t, rc, key)
	if first <= 0 || first > time.Minute {
		t.Fatalf("PTTL after a write = %v, want in (0, 1m]", first)
	}
	if got := count(t, b, ro); got != 2 {
		t.Fatalf("count on B = %d, want 2", got)
	}
	if d := pttl(t, rc, key); d <= 0 || d > first {
		t.Errorf("PTTL after a read on B = %v, want it not extended past %v", d, first)
	}
}

// TestCloseSeenOnEveryDoorOfB: /close_session on A ends the rollout's
// state for B's HTTP door and B's MCP door (same token), and removes the
// rollout's key from Redis.
func TestCloseSeenOnEveryDoorOfB(t *testing.T) {
	srv, prefix, a, b := twoReplicas(t)
	rc := redisClient(t, srv.URL())

	ro := seed(t, a, 9)
	mcpB := mcpClient(t, b, ro.token)
	if got := count(t, b, ro); got != 9 {
		t.Fatalf("count on B = %d, want 9", got)
	}
	onlyKey(t, rc, prefix)
	if code, body, _ := post(t, a, "/close_session", ro, map[string]any{}); code != 200 {
		t.Fatalf("close_session on A: %d %s", code, body)
	}
	if keys, err := rc.Keys(context.Background(), prefix+"*").Result(); err != nil || len(keys) != 0 {
		t.Errorf("keys after close on A: %v %v, want none", keys, err)
	}
	res, err := mcpB.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_counter_value", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("MCP get_counter_value on B: %v %q", err, mcpText(res))
	}
	var out struct{ Count int }
	if err := json.Unmarshal([]byte(mcpText(res)), &out); err != nil || out.Count != 0 {
		t.Errorf("MCP count on B after close on A = %q, want 0 (a fresh session)", mcpText(res))
	}
	if got := count(t, b, ro); got != 0 {
		t.Errorf("HTTP count on B after close on A = %d, want 0", got)
	}
}
