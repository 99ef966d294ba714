package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/config/configtest"
	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/server"
	mathcalc "github.com/gymkit/gymkit/servers/math_advanced_calculations"
	"github.com/gymkit/gymkit/session"
)

// meteredEnv has a tool for every outcome a metric distinguishes.
type meteredEnv struct{ framework.Base }

type needsX struct {
	X int `json:"x" required:"true"`
}

type listArg struct {
	Items []int `json:"items" required:"true"`
}

type countOut struct {
	N int `json:"n"`
}

func (e *meteredEnv) Routes(r *framework.Router) {
	framework.Post(r, "/ok", func(ctx context.Context, _ framework.NoBody) (countOut, error) {
		var n int
		err := session.Update(ctx, "n", func(c *int) error { *c++; n = *c; return nil })
		return countOut{N: n}, err
	})
	framework.Post(r, "/bad", func(context.Context, framework.NoBody) (countOut, error) {
		return countOut{}, framework.Errorf(404, "No such thing")
	})
	framework.Post(r, "/fail", func(context.Context, framework.NoBody) (countOut, error) {
		return countOut{}, errors.New("boom")
	})
	framework.Post(r, "/strict", func(_ context.Context, req needsX) (countOut, error) {
		return countOut{N: req.X}, nil
	})
	framework.Post(r, "/slow", func(ctx context.Context, _ framework.NoBody) (countOut, error) {
		<-ctx.Done()
		return countOut{}, ctx.Err()
	})
	framework.Post(r, "/sum", func(_ context.Context, req listArg) (countOut, error) {
		return countOut{N: len(req.Items)}, nil
	})
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{Reward: 1}, nil
	})
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// startMetered serves srv with metrics on (and MCP, a 300ms tool timeout
// and argument repair), changed by edit.
func startMetered(t *testing.T, srv framework.Server, edit func(*config.Instance)) (*server.Instance, *httptest.Server) {
	t.Helper()
	cfg := configtest.Over(config.Instance{Host: "127.0.0.1", ExposeToolsOverMCP: true, SessionSecrets: config.Secrets{newSecret},
		ToolTimeout: 300 * time.Millisecond, Metrics: config.MetricsConfig{Enabled: true},
		MCP: config.MCPConfig{CoerceJSONStrings: true}})
	if edit != nil {
		edit(&cfg)
	}
	inst, err := server.NewInstance(context.Background(), srv, configtest.Named(cfg, "metered", "metered"), server.InstanceOptions{Logger: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(inst.Handler())
	t.Cleanup(ts.Close)
	return inst, ts
}

// scrape GETs the metrics endpoint and parses the text format.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET %s: %d %s %s", url, resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return fams
}

// sample returns the value of the series of name whose labels include
// want (name=value pairs): a counter's or gauge's value, a histogram's
// sample count; -1 when there is no such series.
func sample(fams map[string]*dto.MetricFamily, name string, want ...string) float64 {
	f := fams[name]
	if f == nil {
		return -1
	}
next:
	for _, m := range f.GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		for _, kv := range want {
			k, v, _ := strings.Cut(kv, "=")
			if have[k] != v {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue()
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount())
		}
	}
	return -1
}

// labelValues returns the values of label among the series of name, sorted.
func labelValues(fams map[string]*dto.MetricFamily, name, label string) []string {
	var out []string
	for _, m := range fams[name].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == label && !slices.Contains(out, l.GetValue()) {
				out = append(out, l.GetValue())
			}
		}
	}
	slices.Sort(out)
	return out
}

func cpost(t *testing.T, url, cookie, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if cookie != "" {
		req.Header.Set("Cookie", cookie)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode, string(b)
}

// sdkSession connects the go-sdk client to /mcp with the rollout's token.
func sdkSession(t *testing.T, url, token string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "metrics-test", Version: "1"}, nil)
	hdr := map[string]string{"X-NeMo-Gym-Session-Token": token}
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url + "/mcp",
		HTTPClient: &http.Client{Transport: headerTransport(hdr)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

type headerTransport map[string]string

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// callSDK calls a tool through the go-sdk client and returns isError.
func callSDK(t *testing.T, cs *mcp.ClientSession, name string, args any) bool {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	return res.IsError
}

// TestMetricsBothDoors: counts, error classes and histograms move on both
// doors for successes, errors, validation errors, timeouts and isError
// results, and seed, verify and the store are counted and timed.
func TestMetricsBothDoors(t *testing.T) {
	t.Parallel()
	_, ts := startMetered(t, &meteredEnv{}, nil)
	before := scrape(t, ts.URL+"/metrics")
	for _, tool := range []string{"ok", "bad", "fail", "strict", "slow", "sum"} {
		for _, door := range []string{"http", "mcp"} {
			if got := sample(before, "gymkit_tool_calls_total", "tool="+tool, "door="+door); got != 0 {
				t.Errorf("before any call: calls{%s,%s} = %v, want a series at 0", tool, door, got)
			}
		}
	}
	cookie, token := seedToken(t, ts)
	for _, c := range []struct {
		path, body string
		code       int
	}{
		{"/ok", `{}`, 200}, {"/ok", `{}`, 200}, {"/bad", `{}`, 404}, {"/fail", `{}`, 500},
		{"/strict", `{}`, 422}, {"/slow", `{}`, 504},
	} {
		if code, body := cpost(t, ts.URL+c.path, cookie, c.body); code != c.code {
			t.Fatalf("POST %s: %d %s, want %d", c.path, code, body, c.code)
		}
	}
	cs := sdkSession(t, ts.URL, token)
	for _, c := range []struct {
		name    string
		args    any
		isError bool
	}{
		{"ok", map[string]any{}, false}, {"fail", map[string]any{}, true}, {"strict", map[string]any{}, true},
		{"slow", map[string]any{}, true}, {"bad", map[string]any{}, true},
		{"sum", map[string]any{"items": "[1,2,3]"}, false}, // repaired (mcp.coerce_json_strings)
	} {
		if got := callSDK(t, cs, c.name, c.args); got != c.isError {
			t.Fatalf("tools/call %s: isError %v, want %v", c.name, got, c.isError)
		}
	}
	if code, body := cpost(t, ts.URL+"/verify", cookie, verifyBody); code != 200 {
		t.Fatalf("verify: %d %s", code, body)
	}
	if code, body := cpost(t, ts.URL+"/ng-rollout/r1/close_session", cookie, `{}`); code != 200 {
		t.Fatalf("close_session: %d %s", code, body)
	}
	fams := scrape(t, ts.URL+"/metrics")
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"gymkit_tool_calls_total", []string{"tool=ok", "door=http"}, 2},
		{"gymkit_tool_calls_total", []string{"tool=ok", "door=mcp"}, 1},
		{"gymkit_tool_calls_total", []string{"tool=fail", "door=mcp"}, 1},
		{"gymkit_tool_calls_total", []string{"tool=sum", "door=http"}, 0},
		{"gymkit_tool_call_duration_seconds", []string{"tool=ok", "door=http"}, 2},
		{"gymkit_tool_call_duration_seconds", []string{"tool=slow", "door=mcp"}, 1},
		{"gymkit_tool_call_errors_total", []string{"tool=bad", "door=http", "class=4xx"}, 1},
		{"gymkit_tool_call_errors_total", []string{"tool=bad", "door=mcp", "class=4xx"}, 1},
		{"gymkit_tool_call_errors_total", []string{"tool=fail", "door=http", "class=5xx"}, 1},
		{"gymkit_tool_call_errors_total", []string{"tool=fail", "door=mcp", "class=5xx"}, 1},
		{"gymkit_tool_call_errors_total", []string{"tool=strict", "door=http", "class=422"}, 1},
		{"gymkit_tool_call_errors_total", []string{"tool=strict", "door=mcp", "class=422"}, 1},
		{"gymkit_tool_call_errors_total", []string{"tool=slow", "door=http", "class=timeout"}, 1},
		{"gymkit_tool_call_errors_total", []string{"tool=slow", "door=mcp", "class=timeout"}, 1},
		{"gymkit_tool_call_errors_total", []string{"tool=ok"}, -1}, // no error series for successes
		{"gymkit_http_requests_total", []string{"route=/seed_session", "code=200"}, 1},
		{"gymkit_http_requests_total", []string{"route=/verify", "code=200"}, 1},
		{"gymkit_http_requests_total", []string{"route=/ok", "code=200"}, 2},
		{"gymkit_http_requests_total", []string{"route=/slow", "code=504"}, 1},
		{"gymkit_http_request_duration_seconds", []string{"route=/seed_session"}, 1},
		{"gymkit_http_request_duration_seconds", []string{"route=/verify"}, 1},
		{"gymkit_mcp_argument_repairs_total", nil, 1},
		{"gymkit_http_requests_total", []string{"route=/close_session", "code=200"}, 1}, // under its rollout prefix
		{"gymkit_http_request_duration_seconds", []string{"route=/close_session"}, 1},
		{"gymkit_sessions_live", nil, 0}, // ok wrote the rollout's state; close_session freed it
		{"gymkit_instance_info", []string{"name=metered", "server_type=metered"}, 1},
		{"gymkit_draining", nil, 0},
		{"gymkit_session_store_errors_total", []string{"op=update"}, 0},
	} {
		if got := sample(fams, c.name, c.labels...); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	// ok wrote state 3 times (2 HTTP, 1 MCP); the slow tool's canceled
	// call wrote nothing; close_session deleted once.
	if got := sample(fams, "gymkit_session_store_duration_seconds", "op=delete"); got != 1 {
		t.Errorf("store delete durations: %v observed, want 1", got)
	}
	if got := sample(fams, "gymkit_session_store_duration_seconds", "op=update"); got != 3 {
		t.Errorf("store update durations: %v observed, want 3", got)
	}
	if got := sample(fams, "go_goroutines"); got <= 0 {
		t.Errorf("go_goroutines = %v: the Go collector is missing", got)
	}
}

const verifyBody = `{"responses_create_params":{"input":"hi"},"response":{"id":"r","created_at":0,"model":"m","object":"response",
"parallel_tool_calls":false,"tool_choice":"auto","tools":[],"output":[]}}`

// dispatchEnv is a dispatcher: every POST /<name> reaches it; its Tools
// hook exposes one tool, known, over MCP.
type dispatchEnv struct{ framework.Base }

func (e *dispatchEnv) Routes(r *framework.Router) {
	framework.Dispatch(r, func(_ context.Context, tool string, _ json.RawMessage) (any, error) {
		if tool != "known" {
			return nil, framework.Errorf(404, "Function %s not found", tool)
		}
		return map[string]int{"n": 1}, nil
	})
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{Reward: 1}, nil
	})
}

func (e *dispatchEnv) Tools(_ []framework.Tool, c *framework.CatchAll) []framework.Tool {
	return []framework.Tool{c.Tool("known", nil, "The one known tool.")}
}

// TestMetricsLabelsBounded: a flood of made-up tool names and paths, on
// both doors, adds no label value: the dispatcher's unknown names count
// under (unregistered), unknown paths under (other), unknown MCP tools
// (answered by the door itself) not at all.
func TestMetricsLabelsBounded(t *testing.T) {
	t.Parallel()
	// No tool timeout: the flood is slow under -race on a loaded machine,
	// and a 504 is not what this test is about.
	_, ts := startMetered(t, &dispatchEnv{}, func(c *config.Instance) { c.ToolTimeout = 0 })
	cookie, token := seedToken(t, ts)
	cs := sdkSession(t, ts.URL, token)
	flood := func(from, to int) {
		for i := from; i < to; i++ {
			if code, _ := cpost(t, fmt.Sprintf("%s/made_up_%d", ts.URL, i), cookie, `{}`); code != 404 {
				t.Fatalf("POST /made_up_%d: %d", i, code)
			}
			if code, _ := cpost(t, fmt.Sprintf("%s/a/b/%d", ts.URL, i), cookie, `{}`); code != 404 {
				t.Fatalf("POST /a/b/%d: %d", i, code)
			}
			if !callSDK(t, cs, fmt.Sprintf("made_up_%d", i), map[string]any{}) {
				t.Fatalf("tools/call made_up_%d: not isError", i)
			}
		}
	}
	series := func(fams map[string]*dto.MetricFamily) int {
		n := 0
		for name, f := range fams {
			if strings.HasPrefix(name, "gymkit_") {
				n += len(f.GetMetric())
			}
		}
		return n
	}
	flood(0, 5)
	small := scrape(t, ts.URL+"/metrics")
	flood(5, 200)
	if callSDK(t, cs, "known", map[string]any{}) {
		t.Fatal("tools/call known: isError")
	}
	cpost(t, ts.URL+"/known", cookie, `{}`)
	big := scrape(t, ts.URL+"/metrics")
	if a, b := series(small), series(big); b > a+4 { // known's own series may appear; nothing per name
		t.Errorf("%d gymkit series after 15 made-up names, %d after 600: labels grow with the names", a, b)
	}
	if got, want := labelValues(big, "gymkit_tool_calls_total", "tool"), []string{"(unregistered)", "known"}; !slices.Equal(got, want) {
		t.Errorf("tool label values %q, want %q", got, want)
	}
	if got := sample(big, "gymkit_tool_calls_total", "tool=(unregistered)", "door=http"); got != 200 {
		t.Errorf("unregistered HTTP calls = %v, want 200", got)
	}
	if got := sample(big, "gymkit_tool_calls_total", "tool=(unregistered)", "door=mcp"); got != 0 {
		t.Errorf("unregistered MCP calls = %v, want 0 (the door answers unknown tools itself)", got)
	}
	if got := sample(big, "gymkit_tool_calls_total", "tool=known", "door=mcp"); got != 1 {
		t.Errorf("known MCP calls = %v, want 1", got)
	}
	if got := sample(big, "gymkit_http_requests_total", "route=(other)", "code=404"); got != 400 {
		t.Errorf("(other) 404s = %v, want 400 (200 made-up tools, 200 made-up paths)", got)
	}
	for _, r := range labelValues(big, "gymkit_http_requests_total", "route") {
		if strings.Contains(r, "made_up") || strings.Contains(r, "/a/b") {
			t.Errorf("route label %q comes from a request", r)
		}
	}
}

// TestMetricsOff: without metrics.enabled there is no endpoint, and GET
// /metrics answers as NeMo's server (404 {"detail":"Not Found"}).
func TestMetricsOff(t *testing.T) {
	t.Parallel()
	_, ts := startMetered(t, &meteredEnv{}, func(c *config.Instance) { c.Metrics = config.MetricsConfig{} })
	resp, err := http.Get(ts.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != 404 || string(b) != `{"detail":"Not Found"}` {
		t.Errorf("GET /metrics without metrics: %d %s, want 404 {\"detail\":\"Not Found\"}", resp.StatusCode, b)
	}
}

// metricsTool has a tool named metrics.
type metricsTool struct{ framework.Base }

func (metricsTool) Routes(r *framework.Router) {
	framework.Post(r, "/metrics", func(context.Context, framework.NoBody) (countOut, error) { return countOut{N: 7}, nil })
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{Reward: 1}, nil
	})
}

// TestMetricsPathCollision: a tool named metrics is a startup error naming
// it while metrics.path is /metrics, and works beside another path.
func TestMetricsPathCollision(t *testing.T) {
	t.Parallel()
	cfg := configtest.Over(config.Instance{Host: "127.0.0.1", Metrics: config.MetricsConfig{Enabled: true}})
	_, err := server.NewInstance(context.Background(), metricsTool{}, configtest.Named(cfg, "m", "m"), server.InstanceOptions{Logger: quietLog()})
	if err == nil || !strings.Contains(err.Error(), `metrics.path "/metrics" is the path of the tool "metrics"`) {
		t.Fatalf("NewInstance: %v, want the collision named", err)
	}
	_, ts := startMetered(t, metricsTool{}, func(c *config.Instance) { c.Metrics.Path = "/gymkit/metrics" })
	if code, body := cpost(t, ts.URL+"/metrics", "", `{}`); code != 200 || body != `{"n":7}` {
		t.Errorf("POST /metrics (the tool): %d %s", code, body)
	}
	if got := sample(scrape(t, ts.URL+"/gymkit/metrics"), "gymkit_tool_calls_total", "tool=metrics", "door=http"); got != 1 {
		t.Errorf("the metrics tool's calls = %v, want 1", got)
	}
}

// TestMetricsPerInstance: two instances in one process keep their own
// registries.
func TestMetricsPerInstance(t *testing.T) {
	t.Parallel()
	_, a := startMetered(t, &meteredEnv{}, nil)
	_, b := startMetered(t, &meteredEnv{}, nil)
	cpost(t, a.URL+"/ok", "", `{}`)
	if got := sample(scrape(t, a.URL+"/metrics"), "gymkit_tool_calls_total", "tool=ok", "door=http"); got != 1 {
		t.Errorf("A: %v calls, want 1", got)
	}
	if got := sample(scrape(t, b.URL+"/metrics"), "gymkit_tool_calls_total", "tool=ok", "door=http"); got != 0 {
		t.Errorf("B: %v calls, want 0 (A's call counted on B)", got)
	}
}

// TestSeedRefusedCounted: a seed answered with an error counts as refused,
// by status.
func TestSeedRefusedCounted(t *testing.T) {
	t.Parallel()
	_, ts := startMetered(t, &meteredEnv{}, func(c *config.Instance) { c.MaxBodyBytes = 64 })
	if code, _ := cpost(t, ts.URL+"/seed_session", "", `{"pad":"`+strings.Repeat("x", 100)+`"}`); code != 413 {
		t.Fatalf("oversized seed: %d, want 413", code)
	}
	cpost(t, ts.URL+"/seed_session", "", `{}`)
	fams := scrape(t, ts.URL+"/metrics")
	if got := sample(fams, "gymkit_seed_session_refused_total", "code=413"); got != 1 {
		t.Errorf("refused seeds{413} = %v, want 1", got)
	}
	if got := sample(fams, "gymkit_http_requests_total", "route=/seed_session", "code=200"); got != 1 {
		t.Errorf("seeds{200} = %v, want 1", got)
	}
}

// TestMetricsAuth: metrics.auth puts the bearer check on the endpoint;
// the health probes stay open even with auth.http.
func TestMetricsAuth(t *testing.T) {
	t.Setenv("METRICS_TEST_KEYS", keyLine("prom", "scrape-key"))
	for _, c := range []struct {
		name             string
		http, metricAuth bool
		wantMetrics      int
	}{
		{"metrics.auth", false, true, 401},
		{"open", false, false, 200},
		{"auth.http", true, false, 401},
	} {
		_, ts := startMetered(t, &meteredEnv{}, func(cfg *config.Instance) {
			cfg.Auth = &config.AuthConfig{HTTP: c.http, APIKeys: &config.APIKeysConfig{Env: "METRICS_TEST_KEYS"}}
			cfg.Metrics.Auth = c.metricAuth
		})
		for path, want := range map[string]int{"/metrics": c.wantMetrics, "/health/live": 200, "/health/ready": 200} {
			resp, err := http.Get(ts.URL + path)
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close()
			if resp.StatusCode != want {
				t.Errorf("%s: GET %s without a token: %d, want %d", c.name, path, resp.StatusCode, want)
			}
		}
		req, _ := http.NewRequest(http.MethodGet, ts.URL+"/metrics", nil)
		req.Header.Set("Authorization", "Bearer scrape-key")
		if resp, _ := do(t, req); resp.StatusCode != 200 {
			t.Errorf("%s: GET /metrics with the key: %d", c.name, resp.StatusCode)
		}
	}
}

// TestMetricsDispatcherEnvironment: a real dispatcher environment
// (math_advanced_calculations, eleven functions through POST /{tool} and
// its Tools hook) labels each function by name on both doors, and any
// other name as (unregistered).
func TestMetricsDispatcherEnvironment(t *testing.T) {
	t.Parallel()
	_, ts := startMetered(t, new(mathcalc.Server), nil)
	cookie, token := seedToken(t, ts)
	if code, body := cpost(t, ts.URL+"/add", cookie, `{"a":1,"b":2}`); code != 200 {
		t.Fatalf("POST /add: %d %s", code, body)
	}
	cpost(t, ts.URL+"/no_such_function", cookie, `{"a":1}`)
	cs := sdkSession(t, ts.URL, token)
	if callSDK(t, cs, "add", map[string]any{"a": 1, "b": 2}) {
		t.Fatal("tools/call add: isError")
	}
	fams := scrape(t, ts.URL+"/metrics")
	for _, c := range []struct {
		labels []string
		want   float64
	}{
		{[]string{"tool=add", "door=http"}, 1},
		{[]string{"tool=add", "door=mcp"}, 1},
		{[]string{"tool=divide", "door=mcp"}, 0},
		{[]string{"tool=(unregistered)", "door=http"}, 1},
	} {
		if got := sample(fams, "gymkit_tool_calls_total", c.labels...); got != c.want {
			t.Errorf("gymkit_tool_calls_total%v = %v, want %v", c.labels, got, c.want)
		}
	}
	if n := len(labelValues(fams, "gymkit_tool_calls_total", "tool")); n != 12 {
		t.Errorf("%d tool label values, want the 11 functions and (unregistered)", n)
	}
}

// TestMetricsConcurrentCalls: parallel calls on both doors (run with
// -race) are all counted, none twice, registered and unregistered alike.
func TestMetricsConcurrentCalls(t *testing.T) {
	t.Parallel()
	// No tool timeout: the flood is slow under -race on a loaded machine,
	// and a 504 is not what this test is about.
	_, ts := startMetered(t, &dispatchEnv{}, func(c *config.Instance) { c.ToolTimeout = 0 })
	cookie, token := seedToken(t, ts)
	cs := sdkSession(t, ts.URL, token)
	const workers, each = 6, 15
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				cpost(t, ts.URL+"/known", cookie, `{}`)
				cpost(t, fmt.Sprintf("%s/other_%d_%d", ts.URL, w, i), cookie, `{}`)
				callSDK(t, cs, "known", map[string]any{})
			}
		})
	}
	wg.Wait()
	fams := scrape(t, ts.URL+"/metrics")
	for _, c := range []struct {
		labels []string
		want   float64
	}{
		{[]string{"tool=known", "door=http"}, workers * each},
		{[]string{"tool=known", "door=mcp"}, workers * each},
		{[]string{"tool=(unregistered)", "door=http"}, workers * each},
	} {
		if got := sample(fams, "gymkit_tool_calls_total", c.labels...); got != c.want {
			t.Errorf("gymkit_tool_calls_total%v = %v, want %v", c.labels, got, c.want)
		}
		if got := sample(fams, "gymkit_tool_call_duration_seconds", c.labels...); got != c.want {
			t.Errorf("gymkit_tool_call_duration_seconds%v count = %v, want %v", c.labels, got, c.want)
		}
	}
	if got := sample(fams, "gymkit_tool_call_errors_total", "tool=(unregistered)", "door=http", "class=4xx"); got != workers*each {
		t.Errorf("unregistered 404s = %v, want %d", got, workers*each)
	}
}
