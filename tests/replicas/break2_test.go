package replicas

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gymkit/gymkit/internal/testkit/redistest"
	"github.com/gymkit/gymkit/server"
)

// TestForeignValueAtARolloutKey: something other than gymkit wrote a
// rollout's Redis key (a list). That rollout's calls fail on both replicas
// and both doors with a 500 naming the key and saying it is not gymkit's
// state (before: 503 "the rollout state store is unavailable", which an
// agent retries forever while /health/ready says ready); another rollout
// is untouched, the replicas stay ready, and /close_session on the other
// replica clears the key so that the rollout starts over.
func TestForeignValueAtARolloutKey(t *testing.T) {
	url, prefix := redistest.URL(t), redistest.Prefix(t)
	a, b := startReplicaWith(t, url, prefix), startReplicaWith(t, url, prefix)
	rc := redisClient(t, url)
	ro := seed(t, a, 3)
	key := onlyKey(t, rc, prefix)
	other := seed(t, b, 5)
	ctx := context.Background()
	if err := rc.Del(ctx, key).Err(); err != nil {
		t.Fatal(err)
	}
	if err := rc.RPush(ctx, key, "not", "a", "hash").Err(); err != nil {
		t.Fatal(err)
	}
	for _, base := range []string{a, b} {
		code, body, _ := post(t, base, "/increment_counter", ro, map[string]any{"count": 1})
		if code != 500 || !strings.Contains(string(body), "not what gymkit wrote") || !strings.Contains(string(body), key) {
			t.Errorf("HTTP increment on %s: %d %s, want 500 naming %s as not gymkit's", base, code, body, key)
		}
		res, err := mcpClient(t, base, ro.token).CallTool(ctx, &mcp.CallToolParams{Name: "increment_counter", Arguments: map[string]any{"count": 1}})
		if err != nil || !res.IsError || !strings.HasPrefix(mcpText(res), "HTTP 500 from POST /increment_counter: ") || !strings.Contains(mcpText(res), "not what gymkit wrote") {
			t.Errorf("MCP increment on %s: %v %q, want isError HTTP 500 naming the key", base, err, mcpText(res))
		}
		if code, r := readiness(t, base); code != 200 {
			t.Errorf("%s not ready with one foreign key: %+v", base, r)
		}
		if got := count(t, base, other); got != 5 {
			t.Errorf("the other rollout on %s: %d, want 5", base, got)
		}
	}
	if code, body, _ := post(t, b, "/close_session", ro, map[string]any{}); code != 200 {
		t.Fatalf("close_session on B: %d %s", code, body)
	}
	if code, body, _ := post(t, a, "/increment_counter", ro, map[string]any{"count": 2}); code != 200 {
		t.Fatalf("increment on A after the close: %d %s", code, body)
	}
	if got := count(t, a, ro); got != 2 {
		t.Errorf("count after close and +2 = %d, want 2 (a fresh session)", got)
	}
}

// TestHugeWriterIsBounded: a workplace_assistant rollout that sends 200 KB
// email bodies, alternating replicas, hits its change log's 1 MiB bound on
// the sixth: 413 naming the limit on HTTP, isError "HTTP 413" over MCP,
// nothing written; its reads go on, and another rollout's calls on the
// same Redis all succeed meanwhile. Before the bound the log grew by every
// body (4 MB bodies: 20 MB after five), every call carried all of it, and
// both that rollout's and other rollouts' calls failed with 503 timeouts.
func TestHugeWriterIsBounded(t *testing.T) {
	url := redistest.URL(t)
	redis := []string{"session.store=redis", "session.url=" + url, "session.prefix=" + redistest.Prefix(t)}
	a, b := startWorkplace(t, redis...), startWorkplace(t, redis...)
	big, victim := seedRow(t, a, map[string]any{}), seedRow(t, b, map[string]any{})
	body := strings.Repeat("x", 200_000)
	for i := range 7 {
		base := []string{a, b}[i%2]
		code, out, _ := post(t, base, "/email_send_email", big, map[string]any{"recipient": "a@atlas.com", "subject": fmt.Sprint("big-", i), "body": body})
		want := 200
		if i >= 5 {
			want = 413
		}
		if code != want || want == 413 && !strings.Contains(string(out), "change log would hold") {
			t.Errorf("big send %d on %s: %d %.200s, want %d", i, base, code, out, want)
		}
		if code, out, _ := post(t, base, "/email_send_email", victim, map[string]any{"recipient": "v@atlas.com", "subject": fmt.Sprint("victim-", i), "body": "b"}); code != 200 {
			t.Errorf("the other rollout's send %d on %s: %d %.200s", i, base, code, out)
		}
	}
	res, err := mcpClient(t, b, big.token).CallTool(context.Background(), &mcp.CallToolParams{Name: "email_send_email",
		Arguments: map[string]any{"recipient": "a@atlas.com", "subject": "big-mcp", "body": body}})
	if err != nil || !res.IsError || !strings.HasPrefix(mcpText(res), "HTTP 413 from POST /email_send_email: ") {
		t.Errorf("big send over MCP: %v %.200q, want isError HTTP 413", err, mcpText(res))
	}
	code, out, _ := post(t, b, "/email_search_emails", big, map[string]any{"query": "big-", "page_size": 10})
	if code != 200 || !strings.Contains(string(out), `"total_emails":5`) {
		t.Errorf("reads of the bounded rollout: %d ...%s, want its 5 emails", code, out[max(0, len(out)-100):])
	}
	code, out, _ = post(t, a, "/email_search_emails", victim, map[string]any{"query": "victim-", "page_size": 10})
	if code != 200 || !strings.Contains(string(out), `"total_emails":7`) {
		t.Errorf("the other rollout: %d ...%s, want its 7 emails", code, out[max(0, len(out)-100):])
	}
}

// TestStalledRedis: Redis stops answering (CLIENT PAUSE ALL for 4 s: a
// stalled server, not a dead one) while 20 increments of one rollout are
// in flight on one replica. Every one answers 503 naming the store, and
// together: the in-process lock used to make them fail one read timeout
// after another (20 x 500 ms), far past "about dial_timeout +
// read_timeout". /health/ready flips to 503 and back by itself; the count
// is exactly what was committed before.
func TestStalledRedis(t *testing.T) {
	srv := redistest.Start(t)
	prefix := redistest.Prefix(t)
	const readTimeout = 500 * time.Millisecond
	a := startReplicaWith(t, srv.URL(), prefix, "session.read_timeout=500ms", "session.dial_timeout=500ms")
	rc := redisClient(t, srv.URL())
	ro := seed(t, a, 10)
	if err := rc.Do(context.Background(), "CLIENT", "PAUSE", "4000", "ALL").Err(); err != nil {
		t.Fatal(err)
	}
	paused := time.Now()
	var wg sync.WaitGroup
	var out callOutcome
	var mu sync.Mutex
	var slowest time.Duration
	for range 20 {
		wg.Go(func() {
			start := time.Now()
			code, body, _ := post(t, a, "/increment_counter", ro, map[string]any{"count": 1})
			mu.Lock()
			slowest = max(slowest, time.Since(start))
			mu.Unlock()
			out.add(fmt.Sprintf("%d %v", code, strings.Contains(string(body), "state store is unavailable")))
		})
	}
	wg.Wait()
	if out.got["503 true"] != 20 {
		t.Errorf("increments with Redis stalled: %v, want 20 x 503 naming the store", out.got)
	}
	if slowest > 8*readTimeout {
		t.Errorf("the slowest of 20 parallel increments took %v: they failed one after another", slowest)
	}
	if time.Since(paused) < 3*time.Second {
		if code, r := readiness(t, a); code != 503 || r.Reason != "store_unreachable" {
			t.Errorf("ready with Redis stalled: %d %+v, want 503 store_unreachable", code, r)
		}
	}
	waitReady(t, a, 200)
	if got := count(t, a, ro); got != 10 {
		t.Errorf("count after the stall = %d, want 10 (the failed calls wrote nothing)", got)
	}
}

// TestEvictingRedisIsWarned: a Redis whose maxmemory-policy evicts keys
// (allkeys-lru) drops rollouts when it is full, and the rollout silently
// starts over (a counter back at 0 with 200s); the host says so at start.
func TestEvictingRedisIsWarned(t *testing.T) {
	srv := redistest.Start(t)
	if err := redisClient(t, srv.URL()).ConfigSet(context.Background(), "maxmemory-policy", "allkeys-lru").Err(); err != nil {
		t.Fatal(err)
	}
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	var logs bytes.Buffer
	h, err := server.New(context.Background(), server.Options{
		Files: []string{counterConfig},
		Overrides: []string{counterBlock + "session_secret=" + secret, counterBlock + "session.store=redis",
			counterBlock + "session.url=" + srv.URL(), counterBlock + "session.prefix=" + redistest.Prefix(t)},
		WorkDir:   root,
		LookupEnv: func(string) (string, bool) { return "", false },
		Logger:    slog.New(slog.NewTextHandler(&logs, nil)),
		Ready:     io.Discard,
	})
	if err != nil {
		t.Fatal(err)
	}
	_ = h.Close()
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "maxmemory-policy=allkeys-lru") {
		t.Errorf("no warning about the evicting Redis in the start log:\n%s", logs.String())
	}
}

// TestNoLeakAfterShutdown: two counter replicas on one Redis serve calls
// on both doors (and fail some through a Redis outage); once they are shut
// down and the clients closed, the process is back to the goroutines it
// had (no Redis pool, reaper, MCP session or connection left behind).
func TestNoLeakAfterShutdown(t *testing.T) {
	srv := redistest.Start(t)
	prefix := redistest.Prefix(t)
	http.DefaultClient.CloseIdleConnections()
	before := runtime.NumGoroutine()
	func() {
		ctx, cancel := context.WithCancel(context.Background())
		var bases []string
		var done []chan error
		for range 2 {
			root, _ := filepath.Abs(filepath.Join("..", ".."))
			h, err := server.New(ctx, server.Options{
				Files: []string{counterConfig},
				Overrides: []string{counterBlock + "session_secret=" + secret, counterBlock + "session.store=redis",
					counterBlock + "session.url=" + srv.URL(), counterBlock + "session.prefix=" + prefix,
					counterBlock + "session.dial_timeout=300ms", counterBlock + "session.read_timeout=1s", counterBlock + "metrics.enabled=true"},
				WorkDir: root, LookupEnv: func(string) (string, bool) { return "", false },
				Logger: slog.New(slog.DiscardHandler), Ready: io.Discard,
			})
			if err != nil {
				cancel()
				t.Fatal(err)
			}
			ch := make(chan error, 1)
			go func() { ch <- h.Serve(ctx) }()
			bases = append(bases, h.Instances()[0].URL())
			done = append(done, ch)
		}
		ro := seed(t, bases[0], 1)
		var clients []*mcp.ClientSession
		for _, b := range bases {
			c := mcp.NewClient(&mcp.Implementation{Name: "leak-test", Version: "1"}, nil)
			cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: b + "/mcp",
				HTTPClient: &http.Client{Transport: headerTransport{token: ro.token}}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			clients = append(clients, cs)
		}
		var wg sync.WaitGroup
		for i := range 40 {
			wg.Go(func() {
				if i%2 == 0 {
					post(t, bases[i%len(bases)], "/increment_counter", ro, map[string]any{"count": 1})
					return
				}
				_, _ = clients[i%len(bases)].CallTool(context.Background(), &mcp.CallToolParams{Name: "increment_counter", Arguments: map[string]any{"count": 1}})
			})
		}
		wg.Wait()
		srv.Stop()
		for _, b := range bases {
			post(t, b, "/increment_counter", ro, map[string]any{"count": 1})
			get(t, b, "/health/ready")
			get(t, b, "/metrics")
		}
		srv.Restart(t)
		if got := count(t, bases[1], ro); got != 41 {
			t.Errorf("count = %d, want 41", got)
		}
		for _, cs := range clients {
			_ = cs.Close()
		}
		cancel()
		for _, ch := range done {
			if err := <-ch; err != nil {
				t.Errorf("drain: %v", err)
			}
		}
	}()
	http.DefaultClient.CloseIdleConnections()
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()
	deadline := time.Now().Add(pollCeiling)
	for {
		now := runtime.NumGoroutine()
		if now <= before {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("%d goroutines after shutdown, %d before:\n%s", now, before, buf)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestCorruptChangeLog: a workplace_assistant rollout's change log in
// Redis overwritten with garbage, with JSON of another shape, or with a log
// past the bounds (2,000 hand-written sends: replaying it took a replica
// 97 s per 20,000 before the bound). That rollout's calls answer 500 naming
// the change log, at once, on both replicas; another rollout is untouched;
// and /close_session clears it: the rollout's next call answers "Session
// not initialized" and a new seed works.
func TestCorruptChangeLog(t *testing.T) {
	url, prefix := redistest.URL(t), redistest.Prefix(t)
	redis := []string{"session.store=redis", "session.url=" + url, "session.prefix=" + prefix}
	a, b := startWorkplace(t, redis...), startWorkplace(t, redis...)
	rc := redisClient(t, url)
	ctx := context.Background()
	other := seedRow(t, b, map[string]any{})
	if code, out, _ := post(t, b, "/email_send_email", other, map[string]any{"recipient": "o@atlas.com", "subject": "zq-other-rollout", "body": "b"}); code != 200 {
		t.Fatalf("the other rollout's send: %d %s", code, out)
	}
	var long strings.Builder
	long.WriteString(`{"gen":"g","calls":[`)
	for i := range 2000 {
		if i > 0 {
			long.WriteString(",")
		}
		fmt.Fprintf(&long, `{"t":"email_send_email","a":{"recipient":"a@b.co","subject":"s%d","body":"b"}}`, i)
	}
	long.WriteString("]}")
	for _, tt := range []struct{ name, value, want string }{
		{"garbage", "{{{", "decoding state"},
		{"another shape", `{"gen":"g","calls":{"t":1}}`, "decoding state"},
		{"past the bounds", long.String(), "not replayed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ro := seedRow(t, a, map[string]any{})
			if code, out, _ := post(t, a, "/email_send_email", ro, map[string]any{"recipient": "a@atlas.com", "subject": "mine", "body": "b"}); code != 200 {
				t.Fatalf("send: %d %s", code, out)
			}
			var key string
			keys, _ := rc.Keys(ctx, prefix+"*").Result()
			for _, k := range keys {
				if v, _ := rc.HGet(ctx, k, "v:workplace_assistant.changes").Result(); strings.Contains(v, `"mine"`) {
					key = k
				}
			}
			if key == "" {
				t.Fatal("the rollout's key is not in Redis")
			}
			if err := rc.HSet(ctx, key, "v:workplace_assistant.changes", tt.value).Err(); err != nil {
				t.Fatal(err)
			}
			for _, base := range []string{a, b} {
				start := time.Now()
				code, out, _ := post(t, base, "/email_search_emails", ro, map[string]any{"query": "s1"})
				if code != 500 || !strings.Contains(string(out), tt.want) || !strings.Contains(string(out), "workplace") {
					t.Errorf("a call on %s: %d %.300s, want 500 %q", base, code, out, tt.want)
				}
				if d := time.Since(start); d > 5*time.Second {
					t.Errorf("the refusal on %s took %v", base, d)
				}
			}
			code, out, _ := post(t, b, "/email_search_emails", other, map[string]any{"query": "zq-other-rollout"})
			if code != 200 || !strings.Contains(string(out), `"total_emails":1`) {
				t.Errorf("the other rollout: %d %.200s", code, out)
			}
			post(t, b, "/close_session", ro, map[string]any{})
			if code, out, _ := post(t, a, "/email_search_emails", ro, map[string]any{"query": "s1"}); code != 400 || !strings.Contains(string(out), "Session not initialized") {
				t.Errorf("after close_session: %d %.200s, want 400 Session not initialized", code, out)
			}
			if code, out, _ := post(t, a, "/seed_session", ro, map[string]any{}); code != 200 {
				t.Errorf("a new seed after close: %d %s", code, out)
			}
		})
	}
}

// TestExpiredAndForeignRollouts: a workplace_assistant rollout idle past
// session_idle_timeout (2 s) on A answers "Session not initialized" on B,
// on both doors (its cookie and its Redis key both expired), never a 500
// or a stale world; and the cookie and MCP token of a rollout are no
// rollout on a replica of another instance sharing the Redis and the
// secret under another prefix.
func TestExpiredAndForeignRollouts(t *testing.T) {
	url, prefix := redistest.URL(t), redistest.Prefix(t)
	redis := []string{"session.store=redis", "session.url=" + url, "session.prefix=" + prefix, "session_idle_timeout=2s"}
	a, b := startWorkplace(t, redis...), startWorkplace(t, redis...)
	elsewhere := startWorkplace(t, "session.store=redis", "session.url="+url, "session.prefix="+redistest.Prefix(t))
	ro := seedRow(t, a, map[string]any{})
	if code, out, _ := post(t, a, "/email_send_email", ro, map[string]any{"recipient": "a@atlas.com", "subject": "zq-expiring", "body": "b"}); code != 200 {
		t.Fatalf("send on A: %d %s", code, out)
	}
	notSeeded := "Session not initialized. Please call seed_session first."
	search := map[string]any{"query": "zq-expiring"}
	if code, out, _ := post(t, elsewhere, "/email_search_emails", ro, search); code != 400 || !strings.Contains(string(out), notSeeded) {
		t.Errorf("the cookie on another instance's replica: %d %.200s, want 400", code, out)
	}
	res, err := mcpClient(t, elsewhere, ro.token).CallTool(context.Background(), &mcp.CallToolParams{Name: "email_search_emails", Arguments: search})
	if err != nil || !res.IsError || !strings.Contains(mcpText(res), notSeeded) {
		t.Errorf("the token on another instance's replica: %v %q, want isError 400", err, mcpText(res))
	}
	mcpB := mcpClient(t, b, ro.token)
	if code, out, _ := post(t, b, "/email_search_emails", ro, search); code != 200 || !strings.Contains(string(out), `"total_emails":1`) {
		t.Fatalf("the rollout on B: %d %.200s", code, out)
	}
	rc := redisClient(t, url)
	deadline := time.Now().Add(pollCeiling)
	for {
		keys, err := rc.Keys(context.Background(), prefix+"*").Result()
		if err != nil {
			t.Fatal(err)
		}
		if len(keys) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the rollout's key never expired: %v", keys)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if code, out, _ := post(t, b, "/email_search_emails", ro, search); code != 400 || !strings.Contains(string(out), notSeeded) {
		t.Errorf("the expired rollout on B over HTTP: %d %.200s, want 400", code, out)
	}
	res, err = mcpB.CallTool(context.Background(), &mcp.CallToolParams{Name: "email_search_emails", Arguments: search})
	if err != nil || !res.IsError || !strings.Contains(mcpText(res), notSeeded) {
		t.Errorf("the expired rollout on B over MCP: %v %q, want isError 400", err, mcpText(res))
	}
}
