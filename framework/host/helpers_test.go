package host_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/gymkit/gymkit/framework"
)

// post sends one JSON POST to an App's handler and prints status and body.
func post(h http.Handler, path, body string) {
	req := httptest.NewRequest("POST", path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	b, _ := io.ReadAll(rec.Body)
	fmt.Println(rec.Code, string(b))
}

type AddRequest struct {
	A int `json:"a" required:"true"`
	B int `json:"b" required:"true"`
}

type AddResponse struct {
	Sum int `json:"sum"`
}

// audited is framework's ExampleIntercept server: an audit interceptor
// outermost, then one that refuses drop_tables to anyone but an admin.
type audited struct{ framework.Base }

func (s *audited) Routes(r *framework.Router) {
	framework.Post(r, "/add", func(_ context.Context, req AddRequest) (AddResponse, error) {
		return AddResponse{Sum: req.A + req.B}, nil
	})
	framework.Post(r, "/drop_tables", func(context.Context, framework.NoBody) (struct{}, error) {
		return struct{}{}, nil
	})
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
