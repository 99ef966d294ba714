package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/config/configtest"
	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/server"
)

type hostile struct{ framework.Base }

type listIn struct {
	Items []string `json:"items"`
}

func (hostile) Routes(r *framework.Router) {
	framework.Intercept(r, func(next framework.Invoker) framework.Invoker {
		return func(ctx context.Context, c *framework.Call) (any, error) {
			switch c.Tool {
			case "refuse_nil":
				return nil, framework.NewError(403, nil)
			case "refuse_errorf":
				return nil, framework.Errorf(403, "%v", nil)
			case "refuse_500":
				return nil, framework.Errorf(500, "ic hunter2")
			}
			return next(ctx, c)
		}
	})
	errs := map[string]error{
		"plain":   errors.New("hunter2"),
		"errorf":  framework.Errorf(500, "hunter2"),
		"badcode": framework.Errorf(999, "hunter2"),
		"zero":    &framework.Error{Detail: "hunter2"},
		"struct":  framework.NewError(500, map[string]string{"pw": "hunter2"}),
		"wrapped": fmt.Errorf("ctx: %w", framework.Errorf(500, "hunter2")),
		"joined":  errors.Join(errors.New("hunter2"), framework.Errorf(500, "x")),
		"header":  &framework.Error{Status: 500, Detail: "hunter2", Header: http.Header{"Retry-After": {"1"}}},
	}
	for name, err := range errs {
		framework.Post(r, "/"+name, func(context.Context, framework.NoBody) (struct{}, error) { return struct{}{}, err })
	}
	framework.Post(r, "/boom", func(context.Context, framework.NoBody) (struct{}, error) { panic("hunter2") })
	for _, n := range []string{"refuse_nil", "refuse_errorf", "refuse_500"} {
		framework.Post(r, "/"+n, func(context.Context, framework.NoBody) (struct{}, error) { return struct{}{}, nil })
	}
	framework.Post(r, "/list", func(_ context.Context, in listIn) (map[string]int, error) {
		return map[string]int{"n": len(in.Items)}, nil
	})
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{Reward: 1}, nil
	})
}

// A masked 500 leaks its detail nowhere (body or headers) on either door,
// interceptor refusals with nil details answer sanely, and hostile
// JSON-string arguments neither crash nor stall the argument repair.
//
// Not parallel: the repair's work is counted in bytes allocated process-wide.
func TestBreakMaskAndRepair(t *testing.T) {
	logs := &syncBuffer{}
	inst, err := server.NewInstance(context.Background(), hostile{}, configtest.Over(config.Instance{Name: "hostile", ServerType: "hostile", Host: "127.0.0.1", ExposeToolsOverMCP: true, MaskInternalErrors: true,
		MCP: config.MCPConfig{CoerceJSONStrings: true}, MaxBodyBytes: 1 << 20,
		SessionSecrets: config.Secrets{"servertest-secret-0123456789abcdef0123"}}), server.InstanceOptions{Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(inst.Handler())
	t.Cleanup(ts.Close)
	post := func(path, body string, hdr ...string) (int, http.Header, string) {
		return postJSON(t, ts, path, body, append([]string{"Accept", mcpAccept}, hdr...)...)
	}
	_, _, seed := post("/seed_session", `{}`)
	var s struct {
		MCP struct{ Headers map[string]string } `json:"mcp"`
	}
	if err := json.Unmarshal([]byte(seed), &s); err != nil {
		t.Fatal(seed, err)
	}
	tok := s.MCP.Headers["X-NeMo-Gym-Session-Token"]
	call := func(name, args string) (int, http.Header, string) {
		return post("/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+name+`","arguments":`+args+`}}`,
			"X-NeMo-Gym-Session-Token", tok)
	}
	leak := func(h http.Header, body string) bool {
		return strings.Contains(body, "hunter2") || strings.Contains(fmt.Sprint(h), "hunter2")
	}
	for _, n := range []string{"plain", "errorf", "badcode", "zero", "struct", "wrapped", "joined", "header", "boom", "refuse_500"} {
		if code, h, body := post("/"+n, `{}`); leak(h, body) || code != 500 {
			t.Errorf("HTTP %s: %d %v %s", n, code, h, body)
		}
		if code, h, body := call(n, `{}`); leak(h, body) || code != 200 || !strings.Contains(body, "Internal error (id ") {
			t.Errorf("MCP %s: %d %v %s", n, code, h, body)
		}
	}
	for _, n := range []string{"refuse_nil", "refuse_errorf"} {
		code, _, body := post("/"+n, `{}`)
		if code != 403 || strings.Contains(body, "Internal error") {
			t.Errorf("HTTP %s: %d %s", n, code, body)
		}
		code, _, body = call(n, `{}`)
		if code != 200 || !strings.Contains(body, `"isError":true`) || !strings.Contains(body, "403") {
			t.Errorf("MCP %s: %d %s", n, code, body)
		}
	}
	// Finding: a tool's panic was logged through slog.Default(), not the
	// instance's Logger (the panic value, often a secret, reached the
	// process's default log and not the configured one).
	if !regexp.MustCompile(`msg="tool panicked" .*tool=boom`).MatchString(logs.String()) {
		t.Errorf("the tool panic is not in the instance's log:\n%.2000s", logs.String())
	}
	q := func(v string) string { b, _ := json.Marshal(v); return string(b) }
	// Each hostile argument gets its right answer (the repaired list's
	// length, or the 422 of the string kept as it was), and the work is
	// bounded by the bytes allocated for the call (a repair that copied or
	// re-parsed per element or per level would allocate far more), not by
	// the time taken, which a loaded machine stretches. "deep valid" is
	// valid JSON but 5000 levels deep: max_json_depth keeps it a string.
	const notList = `HTTP 422 from POST /list: [{\"type\": \"list_type\", \"loc\": [\"items\"], \"msg\": \"Input should be a valid list\", \"input\": `
	for _, tc := range []struct{ name, arg, want string }{
		{"deep open", strings.Repeat("[", 20_000), notList + `\"[[[[`},
		{"deep valid", strings.Repeat("[", 5000) + strings.Repeat("]", 5000), notList + `\"[[[[`},
		{"huge valid", `["` + strings.Repeat("a", 256<<10) + `"]`, `"structuredContent":{"n":1},"isError":false`},
		{"many", "[" + strings.Repeat(`"a",`, 50_000) + `"a"]`, `"structuredContent":{"n":50001},"isError":false`},
		{"ws", strings.Repeat(" ", 64<<10) + `["a"]`, `"structuredContent":{"n":1},"isError":false`},
		{"object", `{"__proto__":1}`, notList + `{\"__proto__\": 1}`},
		{"nested str", q(q(`["a"]`)), notList + `\"\\\"\\\\\\\"[`},
		{"bad unicode", "[\"\xff\"]", `"structuredContent":{"n":1},"isError":false`},
	} {
		args := `{"items":` + q(tc.arg) + `}`
		runtime.GC()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		code, _, body := call("list", args)
		runtime.ReadMemStats(&m1)
		alloc := m1.TotalAlloc - m0.TotalAlloc
		if code != 200 || !strings.Contains(body, tc.want) {
			t.Errorf("repair %s: %d %.300s\nwant 200 with %.200s", tc.name, code, body, tc.want)
		}
		if limit := 128*uint64(len(args)) + 4<<20; alloc > limit {
			t.Errorf("repair %s: %d KB allocated for a %d B call, want < %d KB", tc.name, alloc>>10, len(args), limit>>10)
		}
		t.Logf("repair %s: %d B call, %d KB allocated", tc.name, len(args), alloc>>10)
	}
	if _, _, body := call("list", `{"items":"[\"a\",\"b\"]"}`); !strings.Contains(body, `\"n\":2`) && !strings.Contains(body, `"n":2`) {
		t.Errorf("the plain repair broke: %s", body)
	}
}
