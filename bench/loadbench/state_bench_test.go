package loadbench

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/config/configtest"
	"github.com/gymkit/gymkit/server"
	weather "github.com/gymkit/gymkit/servers/example_mcp_weather"
	"github.com/gymkit/gymkit/session"
)

// bytesOnlyStore is a MemoryStore seen only through the StateStore byte
// interface: session.Update then decodes and re-encodes the whole state at
// every call, as before the memory store kept typed values (and as every
// shared store does). It is the baseline of BenchmarkWeatherState.
type bytesOnlyStore struct{ session.StateStore }

// weatherInstance is an example_mcp_weather instance in process whose
// rollout state lives in store.
func weatherInstance(tb testing.TB, store session.StateStore) *server.Instance {
	tb.Helper()
	name := weather.Name
	sm := session.MustNewManager(session.Options{CookieName: server.CookieName(name, name), State: store,
		Secrets: [][]byte{[]byte("loadbench-secret-0123456789abcdef0123")}})
	inst, err := server.NewInstance(context.Background(), new(weather.Weather), configtest.Over(config.Instance{Name: name, ServerType: name, Host: "127.0.0.1", SessionSecrets: config.Secrets{"loadbench-secret-0123456789abcdef0123"}}), server.InstanceOptions{Sessions: sm})
	if err != nil {
		tb.Fatal(err)
	}
	return inst
}

// meteredWeatherInstance is an example_mcp_weather instance in process with
// metrics.enabled: its rollout state lives in the memory store it makes
// itself, under the host's metrics decorator (timed store operations).
func meteredWeatherInstance(tb testing.TB) *server.Instance {
	tb.Helper()
	name := weather.Name
	inst, err := server.NewInstance(context.Background(), new(weather.Weather), configtest.Over(config.Instance{Name: name, ServerType: name, Host: "127.0.0.1", SessionSecrets: config.Secrets{"loadbench-secret-0123456789abcdef0123"},
		Metrics: config.MetricsConfig{Enabled: true}}), server.InstanceOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	return inst
}

// BenchmarkWeatherState is one get_weather call through the HTTP door of
// example_mcp_weather (in process, direct ServeHTTP) as a rollout's 1st,
// 100th and 1000th call, with state in the memory store (typed values,
// session.Update without JSON) and, as the baseline of the same run, in the
// same store seen through the byte interface only (the JSON round trip of the
// whole state at every call), and with metrics.enabled (the memory store
// under the host's metrics decorator, which forwards the typed path:
// session.TypedStore). The target (docs/performance.md): call 100 within 10%
// of call 1. Each timed call follows an untimed new rollout and a GC, so run
// it with a fixed count (-benchtime 300x): the untimed part is most of the
// wall time. <store>/call100_vs_call1 times call 1 and call 100 of each
// rollout and reports x-call100/call1, the ratio of their medians (both under
// the same load, a loaded machine's outliers left out), with each median
// (call1-ns, call100-ns).
//
//	go test -run '^$' -bench WeatherState -benchmem ./bench/loadbench
func BenchmarkWeatherState(b *testing.B) {
	for _, st := range []struct {
		name string
		inst func() *server.Instance
	}{
		{"typed", func() *server.Instance { return weatherInstance(b, session.NewMemoryStore()) }},
		{"json", func() *server.Instance { return weatherInstance(b, bytesOnlyStore{session.NewMemoryStore()}) }},
		{"metered", func() *server.Instance { return meteredWeatherInstance(b) }},
	} {
		h := st.inst().Handler()
		b.Run(st.name+"/call100_vs_call1", func(b *testing.B) {
			d := benchDoor{h: h, path: "/get_weather", body: `{"city":"Paris"}`,
				want: `"weather":"The weather in Paris is sunny and 72 F."`}
			var t1, t100 []time.Duration
			for b.Loop() {
				cookie, _ := handlerSeed(b, h, `{}`)
				d.hdr = jsonHdr("Cookie", cookie)
				runtime.GC()
				start := time.Now()
				d.serve(b)
				t1 = append(t1, time.Since(start))
				for range 98 {
					d.serve(b)
				}
				runtime.GC()
				start = time.Now()
				d.serve(b)
				t100 = append(t100, time.Since(start))
			}
			m1, m100 := median(t1), median(t100)
			b.ReportMetric(float64(m100)/float64(m1), "x-call100/call1")
			b.ReportMetric(float64(m1.Nanoseconds()), "call1-ns")
			b.ReportMetric(float64(m100.Nanoseconds()), "call100-ns")
		})
		for _, n := range []int{1, 100, 1000} {
			b.Run(fmt.Sprintf("%s/call%d", st.name, n), func(b *testing.B) {
				b.ReportAllocs()
				d := benchDoor{h: h, path: "/get_weather", body: `{"city":"Paris"}`,
					want: `"weather":"The weather in Paris is sunny and 72 F."`}
				for b.Loop() {
					// A new rollout of n-1 calls, untimed; call n is timed.
					b.StopTimer()
					cookie, _ := handlerSeed(b, h, `{}`)
					d.hdr = jsonHdr("Cookie", cookie)
					for range n - 1 {
						d.serve(b)
					}
					runtime.GC() // the setup's garbage is not collected during call n
					b.StartTimer()
					d.serve(b)
				}
			})
		}
	}
}
