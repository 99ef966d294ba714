package framework_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/framework/host"
)

// printClient is an MCPClient that prints what a tool sends, and answers
// every elicitation with answer.
type printClient struct{ answer host.ElicitAnswer }

func (printClient) Progress(_ context.Context, progress, total float64, message string) error {
	fmt.Printf("progress %v/%v %s\n", progress, total, message)
	return nil
}

func (printClient) Log(_ context.Context, level framework.ClientLogLevel, _ string, data any) error {
	b, _ := json.Marshal(data)
	fmt.Printf("log %s %s\n", level, b)
	return nil
}

func (c printClient) Elicit(context.Context, string, json.RawMessage) (host.ElicitAnswer, error) {
	return c.answer, nil
}

func (printClient) ConfirmTimeout() time.Duration { return time.Second }

// On the HTTP door (no MCP client) progress and logs do nothing and Confirm
// refuses with a 403.
func ExampleConfirm() {
	ctx := context.Background()
	fmt.Println(framework.ReportProgress(ctx, 1, 2, "half"), framework.LogToClient(ctx, framework.ClientLogInfo, "hi"))
	err := framework.Confirm(ctx, "Delete everything?")
	fmt.Println(err)
	fmt.Println(errors.Is(err, framework.ErrNotConfirmed), errors.Is(err, framework.ErrElicitationUnavailable), framework.StatusOf(err).Code)

	// The MCP door installs a client; only an explicit accept proceeds.
	yes := host.WithMCPClient(ctx, printClient{host.ElicitAnswer{Action: framework.ElicitAccept, Content: json.RawMessage(`{"confirm":true}`)}})
	no := host.WithMCPClient(ctx, printClient{host.ElicitAnswer{Action: framework.ElicitDecline}})
	fmt.Println(framework.Confirm(yes, "Delete everything?"))
	fmt.Println(framework.Confirm(no, "Delete everything?"))
	// Output:
	// <nil> <nil>
	// not confirmed: the tool was not called over MCP
	// true true 403
	// <nil>
	// not confirmed: the user chose decline
}

// A tool reports progress and logs to the client through its context.
func ExampleReportProgress() {
	ctx := host.WithMCPClient(context.Background(), printClient{})
	for i := 1; i <= 2; i++ {
		_ = framework.ReportProgress(ctx, float64(i), 2, "step")
	}
	_ = framework.LogToClient(ctx, framework.ClientLogWarning, "almost done", "left", 0)
	framework.ClientLogger(ctx).Info("done")
	// Output:
	// progress 1/2 step
	// progress 2/2 step
	// log warning {"left":0,"message":"almost done"}
	// log info {"message":"done"}
}

// Elicit decodes an accepted answer into a Go value.
func ExampleElicit() {
	ctx := host.WithMCPClient(context.Background(),
		printClient{host.ElicitAnswer{Action: framework.ElicitAccept, Content: json.RawMessage(`{"email":"ada@example.com"}`)}})
	schema := json.RawMessage(`{"type":"object","properties":{"email":{"type":"string"}},"required":["email"]}`)
	v, action, err := framework.Elicit[struct {
		Email string `json:"email"`
	}](ctx, "Your e-mail?", schema)
	fmt.Println(v.Email, action, err)
	// Output:
	// ada@example.com accept <nil>
}
