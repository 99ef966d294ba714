package server_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/server"
	weather "github.com/gymkit/gymkit/servers/example_mcp_weather"
)

// With metrics.enabled, an instance serves its Prometheus metrics at
// /metrics; every instance answers the health probes.
func ExampleInstance_Ready() {
	cfg := config.Defaults()
	cfg.Name, cfg.ServerType = "example_mcp_weather", weather.Name
	cfg.Metrics.Enabled = true
	in, err := server.NewInstance(context.Background(), new(weather.Weather), cfg, server.InstanceOptions{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		fmt.Println(err)
		return
	}
	ts := httptest.NewServer(in.Handler())
	defer ts.Close()
	get := func(path string) (int, string) {
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}

	resp, _ := http.Post(ts.URL+"/get_weather", "application/json", strings.NewReader(`{"city":"Paris"}`))
	resp.Body.Close()
	_, metrics := get("/metrics")
	for _, line := range strings.Split(metrics, "\n") {
		if strings.HasPrefix(line, "gymkit_tool_calls_total") {
			fmt.Println(line)
		}
	}
	fmt.Println(get("/health/live"))
	fmt.Println(get("/health/ready"))
	in.Drain() // what gymkit serve does on SIGTERM
	fmt.Println(get("/health/ready"))
	fmt.Println(in.Ready(context.Background()).Reason)
	// Output:
	// gymkit_tool_calls_total{door="http",tool="get_weather"} 1
	// 200 {"status":"live"}
	// 200 {"status":"ready"}
	// 503 {"status":"unavailable","reason":"draining"}
	// draining
}
