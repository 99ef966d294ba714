package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/framework/host"
)

// hostLog records what one interceptor saw, in call order.
type hostLog struct {
	mu   sync.Mutex
	seen []string
}

func (l *hostLog) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seen = append(l.seen, s)
}

// recorder returns an interceptor that logs "<name> <tool> <door> <code>"
// after next returns.
func (l *hostLog) recorder(name string) framework.Interceptor {
	return func(next framework.Invoker) framework.Invoker {
		return func(ctx context.Context, c *framework.Call) (any, error) {
			l.add(name + " in " + c.Tool)
			res, err := next(ctx, c)
			l.add(fmt.Sprintf("%s out %s %s %d", name, c.Tool, c.Door, framework.StatusOf(err).CodeFor(c.Door)))
			return res, err
		}
	}
}

// hostGuarded is an environment whose own interceptor refuses /drop.
type hostGuarded struct {
	framework.Base
	log *hostLog
}

func (s *hostGuarded) Routes(r *framework.Router) {
	framework.Post(r, "/add", func(_ context.Context, req AddRequest) (AddResponse, error) {
		return AddResponse{Sum: req.A + req.B}, nil
	})
	framework.Post(r, "/drop", func(context.Context, framework.NoBody) (struct{}, error) {
		return struct{}{}, nil
	})
	framework.Intercept(r, s.log.recorder("env"), func(next framework.Invoker) framework.Invoker {
		return func(ctx context.Context, c *framework.Call) (any, error) {
			if c.Tool == "drop" {
				return nil, framework.Errorf(403, "no")
			}
			return next(ctx, c)
		}
	})
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{Reward: 1}, nil
	})
}

// TestHostInterceptors: Options.Interceptors run outside the environment's,
// first outermost, on both doors, and see the environment's refusals and
// validation errors with the status the client is answered.
func TestHostInterceptors(t *testing.T) {
	t.Parallel()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	cases := []struct {
		name, tool, args string
		door             framework.Door
		want             []string
	}{
		{"http ok", "add", `{"a":1,"b":2}`, framework.DoorHTTP, []string{
			"host1 in add", "host2 in add", "env in add", "env out add http 200", "host2 out add http 200", "host1 out add http 200"}},
		{"mcp ok", "add", `{"a":1,"b":2}`, framework.DoorMCP, []string{
			"host1 in add", "host2 in add", "env in add", "env out add mcp 200", "host2 out add mcp 200", "host1 out add mcp 200"}},
		{"http refused by env", "drop", `{}`, framework.DoorHTTP, []string{
			"host1 in drop", "host2 in drop", "env in drop", "env out drop http 403", "host2 out drop http 403", "host1 out drop http 403"}},
		{"mcp 422", "add", `{"a":"x"}`, framework.DoorMCP, []string{
			"host1 in add", "host2 in add", "env in add", "env out add mcp 422", "host2 out add mcp 422", "host1 out add mcp 422"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := &hostLog{}
			app, err := host.Build(context.Background(), &hostGuarded{log: l}, host.Options{Logger: quiet,
				Interceptors: []framework.Interceptor{l.recorder("host1"), l.recorder("host2")}})
			if err != nil {
				t.Fatal(err)
			}
			if tc.door == framework.DoorHTTP {
				req := httptest.NewRequest("POST", "/"+tc.tool, strings.NewReader(tc.args))
				req.Header.Set("Content-Type", "application/json")
				app.Handler().ServeHTTP(httptest.NewRecorder(), req)
			} else {
				var tool framework.Tool
				for _, tt := range app.Tools() {
					if tt.Name == tc.tool {
						tool = tt
					}
				}
				_, _ = tool.Call(context.Background(), json.RawMessage(tc.args), framework.DoorMCP)
			}
			if got := strings.Join(l.seen, "\n"); got != strings.Join(tc.want, "\n") {
				t.Errorf("interceptors saw\n%s\nwant\n%s", got, strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestHostInterceptorRefuses: a host interceptor's refusal is answered as
// an environment interceptor's would be; seed and verify run none.
func TestHostInterceptorRefuses(t *testing.T) {
	t.Parallel()
	l := &hostLog{}
	deny := func(next framework.Invoker) framework.Invoker {
		return func(ctx context.Context, c *framework.Call) (any, error) {
			l.add("deny " + c.Tool)
			return nil, framework.Errorf(http.StatusTooManyRequests, "Slow down")
		}
	}
	app, err := host.Build(context.Background(), &hostGuarded{log: l}, host.Options{
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Interceptors: []framework.Interceptor{deny}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/add", "/seed_session", "/verify"} {
		body := `{"a":1,"b":2}`
		if p == "/verify" {
			body = `{"responses_create_params":{"input":[]},"response":{"id":"r","created_at":0,"model":"m","object":"response","output":[],"parallel_tool_calls":true,"tool_choice":"auto","tools":[]}}`
		}
		req := httptest.NewRequest("POST", p, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		app.Handler().ServeHTTP(rec, req)
		want := 200
		if p == "/add" {
			want = 429
			if got := rec.Body.String(); got != `{"detail":"Slow down"}` {
				t.Errorf("%s body %s", p, got)
			}
		}
		if rec.Code != want {
			t.Errorf("%s: status %d, want %d (%s)", p, rec.Code, want, rec.Body)
		}
	}
	if got := strings.Join(l.seen, ","); got != "deny add" {
		t.Errorf("interceptor saw %q, want only the tool call", got)
	}
}

func TestHostInterceptorNil(t *testing.T) {
	t.Parallel()
	_, err := host.Build(context.Background(), &hostGuarded{log: &hostLog{}}, host.Options{
		Interceptors: []framework.Interceptor{nil}})
	if err == nil || !strings.Contains(err.Error(), "Options.Interceptors[0] is nil") {
		t.Fatalf("Build error %v, want the nil interceptor named", err)
	}
}

// The host (here a test, in gymkit the server package's metrics) wraps
// every tool call with Options.Interceptors, outside the environment's own
// interceptors: it sees their refusals too.
func ExampleOptions_interceptors() {
	count := func(next framework.Invoker) framework.Invoker {
		return func(ctx context.Context, c *framework.Call) (any, error) {
			res, err := next(ctx, c)
			fmt.Printf("host: %s over %s -> %d\n", c.Tool, c.Door, framework.StatusOf(err).CodeFor(c.Door))
			return res, err
		}
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	app, err := host.Build(context.Background(), new(audited), host.Options{Logger: quiet,
		Interceptors: []framework.Interceptor{count}})
	if err != nil {
		panic(err)
	}
	post(app.Handler(), "/drop_tables", `{}`)
	// Output:
	// audit: drop_tables over http args={} -> <nil>, 403
	// host: drop_tables over http -> 403
	// 403 {"detail":"Only an admin may call drop_tables"}
}
