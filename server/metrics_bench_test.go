package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/config/configtest"
	"github.com/gymkit/gymkit/server"
)

// BenchmarkMetricsOverhead measures the per-call cost of metrics.enabled:
// the same tool call (POST /ok, which updates the rollout's state) on an
// instance with metrics off and on, interleaved call by call in one loop so
// that both see the same machine load. It reports each variant's ns/call
// their difference (extra-ns/call), their ratio (on-x: on / off) and the
// allocations metrics add to a call (extra-allocs/call, measured apart). Run:
//
//	go test -run '^$' -bench MetricsOverhead -count 5 ./server/
func BenchmarkMetricsOverhead(b *testing.B) {
	for _, door := range []string{"http", "mcp"} {
		b.Run(door, func(b *testing.B) {
			var calls [2]func()
			for i, on := range []bool{false, true} {
				cfg := configtest.Over(config.Instance{Host: "127.0.0.1", ExposeToolsOverMCP: true, SessionSecrets: config.Secrets{newSecret},
					Metrics: config.MetricsConfig{Enabled: on}})
				inst, err := server.NewInstance(context.Background(), &meteredEnv{}, configtest.Named(cfg, "bench", "bench"), server.InstanceOptions{Logger: quietLog()})
				if err != nil {
					b.Fatal(err)
				}
				ts := httptest.NewServer(inst.Handler())
				cookie, token := seedToken(b, ts)
				ts.Close()
				h := inst.Handler()
				calls[i] = benchCall(b, h, door, cookie, token)
			}
			// Allocations are not disturbed by the machine's load: count them
			// apart, on each variant alone.
			offAllocs, onAllocs := testing.AllocsPerRun(200, calls[0]), testing.AllocsPerRun(200, calls[1])
			var spent [2]time.Duration
			n := 0
			for b.Loop() {
				for k := range 2 {
					i := (n + k) % 2 // alternate which variant goes first
					start := time.Now()
					calls[i]()
					spent[i] += time.Since(start)
				}
				n++
			}
			off, on := float64(spent[0])/float64(n), float64(spent[1])/float64(n)
			b.ReportMetric(off, "off-ns/call")
			b.ReportMetric(on, "on-ns/call")
			b.ReportMetric(on-off, "extra-ns/call")
			b.ReportMetric(on/off, "on-x")
			b.ReportMetric(offAllocs, "off-allocs/call")
			b.ReportMetric(onAllocs-offAllocs, "extra-allocs/call")
		})
	}
}

// benchCall returns a function that makes one call of /ok through h on the
// door, in the rollout of cookie (HTTP) or token (MCP), failing b on any
// answer but a success.
func benchCall(b *testing.B, h http.Handler, door, cookie, token string) func() {
	const msg = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ok","arguments":{}}}`
	return func() {
		var req *http.Request
		if door == "http" {
			req = httptest.NewRequest(http.MethodPost, "/ok", strings.NewReader(`{}`))
			req.Header.Set("Cookie", cookie)
		} else {
			req = httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(msg))
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("X-NeMo-Gym-Session-Token", token)
		}
		req.Host = "127.0.0.1" // the door's DNS-rebinding check
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 200 || (door == "mcp" && !strings.Contains(rec.Body.String(), `"isError":false`)) {
			b.Fatalf("%s call: %d %s", door, rec.Code, rec.Body.String())
		}
	}
}
