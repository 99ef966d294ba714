package rollout_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/rollout"
	"github.com/gymkit/gymkit/server/servertest"
	weather "github.com/gymkit/gymkit/servers/example_mcp_weather"
	counter "github.com/gymkit/gymkit/servers/example_session_state_mgmt"
)

// weatherServer serves example_mcp_weather, MCP on, as instance name.
func weatherServer(t *testing.T, name string) *servertest.Server {
	return servertest.New(t, new(weather.Weather), servertest.Options{Name: name, ServerType: weather.Name, MCP: true})
}

func counterServer(t *testing.T, mcp bool) *servertest.Server {
	return servertest.New(t, new(counter.Counter), servertest.Options{Name: "example_session_state_mgmt_resources_server", ServerType: counter.Name, MCP: mcp})
}

// result is a finished run: its summary, prints and files.
type result struct {
	sum          *rollout.Summary
	err          error
	stdout       string
	paths        rollout.Paths
	results      []framework.Value
	failures     []framework.Value
	materialized []framework.Value
	aggregate    []byte // nil when the file does not exist
}

// collect runs opts (Output defaults to a temporary out.jsonl) and reads the
// files back. Run errors are kept in result.err.
func collect(t *testing.T, opts rollout.Options) result {
	t.Helper()
	if opts.Output == "" {
		opts.Output = filepath.Join(t.TempDir(), "out.jsonl")
	}
	var stdout bytes.Buffer
	opts.Stdout = &stdout
	sum, err := rollout.Run(context.Background(), opts)
	r := result{sum: sum, err: err, stdout: stdout.String(), paths: rollout.PathsFor(opts.Output)}
	if sum == nil {
		return r
	}
	r.results = readJSONL(t, r.paths.Results)
	r.failures = readJSONL(t, r.paths.Failures)
	r.materialized = readJSONL(t, r.paths.Materialized)
	if b, err := os.ReadFile(r.paths.Aggregate); err == nil {
		r.aggregate = b
	}
	return r
}

func readJSONL(t *testing.T, path string) []framework.Value {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []framework.Value
	for i, line := range strings.Split(string(b), "\n") {
		if line == "" {
			if i != strings.Count(string(b), "\n") {
				t.Fatalf("%s: empty line %d", path, i+1)
			}
			continue
		}
		v, err := framework.ParseJSON([]byte(line))
		if err != nil {
			t.Fatalf("%s line %d: %v", path, i+1, err)
		}
		out = append(out, v)
	}
	return out
}

func keys(v framework.Value) []string {
	var ks []string
	for _, m := range v.Members {
		ks = append(ks, m.Key)
	}
	return ks
}

// field returns the value at a dotted path of object keys and array indexes.
func field(t *testing.T, v framework.Value, path ...any) framework.Value {
	t.Helper()
	for _, p := range path {
		switch p := p.(type) {
		case string:
			next, ok := v.Get(p)
			if !ok {
				t.Fatalf("no key %q in %s", p, jsonText(t, v))
			}
			v = next
		case int:
			if p >= len(v.Items) {
				t.Fatalf("no item %d in %s", p, jsonText(t, v))
			}
			v = v.Items[p]
		}
	}
	return v
}

func jsonText(t *testing.T, v framework.Value) string {
	t.Helper()
	b, err := framework.MarshalJSON(v, framework.JSONPydantic)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeRows(t *testing.T, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "rows.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// flaky is a test server whose seed and verify fail on demand (the row's
// "mode"), with tools that echo, answer 418 or block.
type flaky struct {
	framework.Base
	blocked chan struct{} // /block signals here, then waits for the client to go
}

type flakySeed struct {
	Mode string `json:"mode"`
}

type flakyVerifyRequest struct {
	framework.VerifyRequest
	Mode string `json:"mode"`
}

type flakyVerifyResponse struct {
	framework.VerifyResponse
	Calls        int     `json:"calls"`
	FailureClass *string `json:"_ng_failure_class,omitempty"`
	JudgeError   *string `json:"_ng_failure_judge_error,omitempty"`
}

func (s *flaky) Routes(r *framework.Router) {
	framework.Post(r, "/echo", func(_ context.Context, req json.RawMessage) (json.RawMessage, error) { return req, nil })
	framework.Post(r, "/teapot", func(context.Context, framework.NoBody) (struct{}, error) {
		return struct{}{}, framework.Errorf(418, "short and stout")
	})
	framework.Post(r, "/block", func(ctx context.Context, _ framework.NoBody) (struct{}, error) {
		select {
		case s.blocked <- struct{}{}:
		default:
		}
		<-ctx.Done()
		return struct{}{}, ctx.Err()
	})
	framework.SeedSession(r, func(_ context.Context, req flakySeed) (struct{}, error) {
		if req.Mode == "seed_422" {
			return struct{}{}, framework.Errorf(422, "no seed for you")
		}
		return struct{}{}, nil
	})
	framework.Verify(r, func(_ context.Context, req flakyVerifyRequest) (flakyVerifyResponse, error) {
		var resp flakyVerifyResponse
		resp.Calls = len(req.Response.FunctionCalls())
		switch req.Mode {
		case "verify_500":
			return resp, errors.New("kaboom")
		case "judge":
			class, msg := "judge_failed", "judge timed out"
			resp.FailureClass, resp.JudgeError = &class, &msg
			return resp, nil
		}
		resp.Reward = 1.0
		return resp, nil
	})
}

// flakyServer serves flaky behind a handler that drops the connection of
// any POST /hangup (a transport failure).
func flakyServer(t *testing.T) (*httptest.Server, *flaky) {
	srv := &flaky{blocked: make(chan struct{}, 1)}
	ts := servertest.New(t, srv, servertest.Options{Name: "flaky", MCP: true})
	h := ts.Instance.Handler()
	outer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hangup" {
			panic(http.ErrAbortHandler)
		}
		h.ServeHTTP(w, r)
	}))
	outer.Config.ErrorLog = nil
	t.Cleanup(outer.Close)
	return outer, srv
}
