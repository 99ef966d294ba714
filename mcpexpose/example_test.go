package mcpexpose_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/framework"
	fwhost "github.com/gymkit/gymkit/framework/host"
	"github.com/gymkit/gymkit/mcpexpose"
	"github.com/gymkit/gymkit/session"
)

// Greeter is a one-tool environment.
type Greeter struct{ framework.Base }

type GreetRequest struct {
	Name string `json:"name" required:"true"`
}

type GreetResponse struct {
	Greeting string `json:"greeting"`
}

func (g *Greeter) Routes(r *framework.Router) {
	framework.Post(r, "/greet", func(_ context.Context, req GreetRequest) (GreetResponse, error) {
		return GreetResponse{Greeting: "Hello, " + req.Name + "!"}, nil
	}, framework.Description("Greet someone."))
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{Reward: 1}, nil
	})
}

// The host's wiring: the door's seams go into fwhost.Build, Attach runs
// the startup checks, and /mcp is mounted inside the session middleware.
// The rollout seeds over HTTP and calls the tool over MCP with its token.
func Example() {
	ctx := context.Background()
	sm := session.MustNewManager(session.Options{CookieName: "greeter___greeter"})
	cfg := config.Defaults() // or an instance of config.Load
	cfg.Name = "greeter"
	door, err := mcpexpose.New(mcpexpose.Options{
		Config: &cfg, Secret: []byte("use 32 random bytes in production"), Sessions: sm,
	})
	if err != nil {
		panic(err)
	}
	app, err := fwhost.Build(ctx, new(Greeter), fwhost.Options{
		Name: "greeter", AfterSeed: door.AfterSeed, NormalizeToolName: door.NormalizeToolName,
	})
	if err != nil {
		panic(err)
	}
	if err := door.Attach(app); err != nil {
		panic(err)
	}
	srv := httptest.NewServer(sm.Middleware(door.Mount(app.Handler())))
	defer srv.Close()

	// Seed: the answer carries the MCP metadata and the session token.
	resp, err := http.Post(srv.URL+"/seed_session", "application/json", strings.NewReader(`{}`))
	if err != nil {
		panic(err)
	}
	var seed struct {
		MCP struct {
			ServerName string            `json:"server_name"`
			URLPath    string            `json:"url_path"`
			Headers    map[string]string `json:"headers"`
		} `json:"mcp"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&seed)
	resp.Body.Close()
	fmt.Println(seed.MCP.ServerName, seed.MCP.URLPath)

	// tools/call with the token (initialize is optional: the door is stateless).
	req, _ := http.NewRequest("POST", srv.URL+seed.MCP.URLPath, strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set(mcpexpose.TokenHeader, seed.MCP.Headers[mcpexpose.TokenHeader])
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(string(body))
	// Output:
	// greeter /mcp
	// {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"greeting\":\"Hello, Ada!\"}"}],"structuredContent":{"greeting":"Hello, Ada!"},"isError":false}}
}
