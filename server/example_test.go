package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/server"
	weather "github.com/gymkit/gymkit/servers/example_mcp_weather"
)

// An extension mounts a route beside an instance's routes and announces it on
// the ready line; the MCP door mounts /mcp the same way.
func ExampleExtension() {
	health := server.Extension{Name: "health", Mount: func(inst *server.Instance, next http.Handler) (http.Handler, error) {
		inst.Announce("health", "/healthz")
		mux := http.NewServeMux()
		mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, "%s has %d tools", inst.Name, len(inst.App.Tools()))
		})
		mux.Handle("/", next) // everything else: the instance's routes
		return mux, nil
	}}
	cfg := config.Defaults() // or an instance of config.Load
	cfg.Name, cfg.ServerType = "example_mcp_weather", weather.Name
	in, err := server.NewInstance(context.Background(), new(weather.Weather), cfg, server.InstanceOptions{Extensions: []server.Extension{health}})
	if err != nil {
		fmt.Println(err)
		return
	}
	ts := httptest.NewServer(in.Handler())
	defer ts.Close()

	resp, _ := http.Get(ts.URL + "/healthz")
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(string(body), resp.Header.Values("Set-Cookie")[0][:len("example_mcp_weather___example_mcp_weather=")])

	resp, _ = http.Post(ts.URL+"/get_weather", "application/json", strings.NewReader(`{"city":"Paris"}`))
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.StatusCode, string(body))
	fmt.Println(in.Endpoints())
	// Output:
	// example_mcp_weather has 1 tools example_mcp_weather___example_mcp_weather=
	// 200 {"weather":"The weather in Paris is sunny and 72 F."}
	// [{health /healthz}]
}
