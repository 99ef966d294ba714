// Command conformance-server serves the tools that the official MCP
// conformance suite's server scenarios call (tools-call-with-progress,
// tools-call-elicitation, server-sse-multiple-streams), on gymkit's MCP door
// in stateful mode. It is a test fixture of make e2e (e2e/run.sh builds and
// starts it), not an example to copy, and it is not part of the gymkit
// binary:
//
//	go run ./e2e/conformance-server --config e2e/conformance-server/conformance.yaml
//
// It prints the host's ready line ("<instance> <URL> mcp=<URL>") on stdout
// and serves until SIGINT or SIGTERM.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/server"
)

// Name is the server type of the conformance environment.
const Name = "internal_mcp_conformance"

func init() { framework.Register(Name, func() framework.Server { return new(Conformance) }) }

// Conformance has the conformance suite's tools.
type Conformance struct{ framework.Base }

// ElicitationRequest is test_elicitation's argument.
type ElicitationRequest struct {
	// Message is the text the elicitation/create request shows the user.
	Message string `json:"message" required:"true"`
}

// userInfoSchema is the schema the suite's test_elicitation asks for.
var userInfoSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"username":{"type":"string","description":"User's response"},` +
	`"email":{"type":"string","description":"User's email address"}},"required":["username","email"]}`)

// Routes registers the suite's tools.
func (c *Conformance) Routes(r *framework.Router) {
	// test_tool_with_progress: progress 0, 50 and 100 of 100, ~50 ms apart
	// (the suite's tools-call-with-progress).
	framework.Post(r, "/test_tool_with_progress", func(ctx context.Context, _ framework.NoBody) (string, error) {
		for i, p := range []float64{0, 50, 100} {
			if i > 0 {
				select {
				case <-time.After(50 * time.Millisecond):
				case <-ctx.Done():
					return "", ctx.Err()
				}
			}
			if err := framework.ReportProgress(ctx, p, 100, ""); err != nil {
				return "", err
			}
		}
		return "Progress tool executed", nil
	}, framework.Description("Reports progress 0, 50 and 100 of 100."))
	// test_elicitation: asks the user for a username and an e-mail address
	// (the suite's tools-call-elicitation).
	framework.Post(r, "/test_elicitation", func(ctx context.Context, req ElicitationRequest) (string, error) {
		v, action, err := framework.Elicit[map[string]any](ctx, req.Message, userInfoSchema)
		if err != nil {
			return "", framework.Errorf(400, "%v", err)
		}
		content, _ := json.Marshal(v)
		return fmt.Sprintf("User response: <action: %s, content: %s>", action, content), nil
	}, framework.Description("Asks the user for a username and an e-mail address."))
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{}, nil
	})
}

func main() {
	var configFile string
	flag.StringVar(&configFile, "config", "e2e/conformance-server/conformance.yaml", "the gymkit config file")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := server.Run(ctx, server.Options{Files: []string{configFile}, Overrides: flag.Args(),
		Logger: slog.New(slog.NewTextHandler(os.Stderr, nil)), Ready: os.Stdout})
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance-server:", err)
		os.Exit(1)
	}
}
