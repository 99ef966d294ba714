package servertest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/server"
	"github.com/gymkit/gymkit/server/servertest"
	examplemcpweather "github.com/gymkit/gymkit/servers/example_mcp_weather"
)

// An external Go client: seed a rollout over HTTP, then call its tools with
// the official go-sdk MCP client, the session token sent by TokenTransport.
func ExampleTokenTransport() {
	cfg := config.Defaults()
	cfg.Name, cfg.ServerType = "example_mcp_weather", examplemcpweather.Name
	cfg.ExposeToolsOverMCP = true
	cfg.SessionSecrets = config.Secrets{"example-secret-0123456789abcdef0123456789"}
	inst, err := server.NewInstance(context.Background(), new(examplemcpweather.Weather), cfg, server.InstanceOptions{})
	if err != nil {
		panic(err)
	}
	ts := httptest.NewServer(inst.Handler())
	defer ts.Close()

	// 1. POST /seed_session: the answer's "mcp" key carries the token.
	resp, err := http.Post(ts.URL+"/seed_session", "application/json", bytes.NewReader([]byte(`{}`)))
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	token := servertest.SeedToken(body)

	// 2. The go-sdk client, with the token on every request.
	hc := &http.Client{Transport: &servertest.TokenTransport{Token: token}}
	client := mcp.NewClient(&mcp.Implementation{Name: "my-agent", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: hc}, nil)
	if err != nil {
		panic(err)
	}
	defer cs.Close()

	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_weather", Arguments: map[string]any{"city": "Paris"}})
	if err != nil {
		panic(err)
	}
	structured, _ := json.Marshal(res.StructuredContent)
	fmt.Println(res.IsError, string(structured))
	// Output:
	// false {"weather":"The weather in Paris is sunny and 72 F."}
}
