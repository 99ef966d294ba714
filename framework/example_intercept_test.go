package framework_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/framework/host"
)

type audited struct{ framework.Base }

func (s *audited) Routes(r *framework.Router) {
	framework.Post(r, "/add", func(_ context.Context, req AddRequest) (AddResponse, error) {
		return AddResponse{Sum: req.A + req.B}, nil
	})
	framework.Post(r, "/drop_tables", func(context.Context, framework.NoBody) (struct{}, error) {
		return struct{}{}, nil
	})
	// The first interceptor is the outermost: it sees every call, refusals
	// of the second included.
	framework.Intercept(r, func(next framework.Invoker) framework.Invoker {
		return func(ctx context.Context, c *framework.Call) (any, error) {
			res, err := next(ctx, c)
			fmt.Printf("audit: %s over %s args=%s -> %v, %d\n", c.Tool, c.Door, c.Args, res, framework.StatusOf(err).Code)
			return res, err
		}
	}, func(next framework.Invoker) framework.Invoker {
		return func(ctx context.Context, c *framework.Call) (any, error) {
			if c.Tool == "drop_tables" && c.Principal != "admin" {
				return nil, framework.Errorf(403, "Only an admin may call %s", c.Tool)
			}
			return next(ctx, c)
		}
	})
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{Reward: 1}, nil
	})
}

// Interceptors wrap every tool call, on the HTTP door as here and on the MCP
// door alike: this one audits, the next refuses a call.
func ExampleIntercept() {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	app, err := host.Build(context.Background(), new(audited), host.Options{Logger: quiet})
	if err != nil {
		panic(err)
	}
	post(app.Handler(), "/add", `{"a":1,"b":2}`)
	post(app.Handler(), "/drop_tables", `{}`)
	// Output:
	// audit: add over http args={"a":1,"b":2} -> {3}, 200
	// 200 {"sum":3}
	// audit: drop_tables over http args={} -> <nil>, 403
	// 403 {"detail":"Only an admin may call drop_tables"}
}
