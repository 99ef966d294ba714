package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/config/configtest"
	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/server"
)

type leaky struct{ framework.Base }

func (leaky) Routes(r *framework.Router) {
	framework.Post(r, "/query", func(context.Context, framework.NoBody) (struct{}, error) {
		return struct{}{}, errors.New("connect: db password=hunter2")
	})
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{Reward: 1}, nil
	})
}

// A 500's detail (a password) used to reach the client on both doors. With
// the instance's mask_internal_errors on it does not: the client reads an id,
// the log holds the id with the detail; each MCP call is logged as a tool
// call, not only as POST /mcp.
func TestMaskInternalErrorsInstance(t *testing.T) {
	t.Parallel()
	logs := &syncBuffer{}
	inst, err := server.NewInstance(context.Background(), leaky{}, configtest.Over(config.Instance{Name: "leaky", ServerType: "leaky", Host: "127.0.0.1", ExposeToolsOverMCP: true, MaskInternalErrors: true,
		SessionSecrets: config.Secrets{"servertest-secret-0123456789abcdef0123"}}), server.InstanceOptions{Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(inst.Handler())
	t.Cleanup(ts.Close)
	post := func(path, body string, hdr ...string) (int, string) {
		code, _, b := postJSON(t, ts, path, body, append([]string{"Accept", mcpAccept}, hdr...)...)
		return code, b
	}
	_, seed := post("/seed_session", `{}`)
	var s struct {
		MCP struct{ Headers map[string]string } `json:"mcp"`
	}
	if err := json.Unmarshal([]byte(seed), &s); err != nil {
		t.Fatal(seed, err)
	}
	tok := s.MCP.Headers["X-NeMo-Gym-Session-Token"]

	id := regexp.MustCompile(`Internal error \(id ([0-9a-f]{16})\)`)
	code, body := post("/query", `{}`)
	m := id.FindStringSubmatch(body)
	if code != 500 || m == nil || !strings.HasPrefix(body, `"Internal error`) || strings.Contains(body, "hunter2") {
		t.Errorf("HTTP: %d %s", code, body)
	}
	code, body = post("/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"query","arguments":{}}}`,
		"X-NeMo-Gym-Session-Token", tok)
	m2 := id.FindStringSubmatch(body)
	if code != 200 || m2 == nil || !strings.Contains(body, `HTTP 500 from POST /query: Internal error (id `) || strings.Contains(body, "hunter2") {
		t.Errorf("MCP: %d %s", code, body)
	}
	out := logs.String()
	for _, m := range [][]string{m, m2} {
		if m != nil && !regexp.MustCompile(`msg="internal error masked" .*error_id=`+m[1]+` .*hunter2`).MatchString(out) {
			t.Errorf("no log line with id %s and the detail:\n%s", m[1], out)
		}
	}
	if !regexp.MustCompile(`msg="tool call" .*tool=query door=mcp session=\S+ status=500 duration=`).MatchString(out) {
		t.Errorf("no tool call line for the MCP call:\n%s", out)
	}
}
