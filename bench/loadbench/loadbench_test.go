package loadbench

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gymkit/gymkit/mcpexpose"
)

// targetEnv makes the test binary a target process (see TestMain).
const targetEnv = "LOADBENCH_TARGET"

func TestMain(m *testing.M) {
	if kind := os.Getenv(targetEnv); kind != "" {
		root, err := ModuleRoot()
		if err != nil {
			os.Exit(1)
		}
		os.Exit(TargetMain(kind, root))
	}
	os.Exit(m.Run())
}

func moduleRoot(tb testing.TB) string {
	tb.Helper()
	root, err := ModuleRoot()
	if err != nil {
		tb.Fatal(err)
	}
	return root
}

// TestRunSmoke runs the whole driver briefly (1 client, 300 ms a point,
// every target in its own process, the weather and rollout measurements
// tiny): every scenario must make calls, every answer must be right, the
// report must hold every row and ratio. With GYMKIT_REDIS_URL the Redis
// scenarios run too (two replica processes on that Redis, each client's
// calls alternating between them, the count checked on the second);
// without it the report must say they were skipped.
func TestRunSmoke(t *testing.T) {
	var out, log bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	err := Run(ctx, Config{
		Target: func(kind string) ([]string, []string) {
			return []string{os.Args[0], "-test.run=^$"}, []string{targetEnv + "=" + kind, "GORACE=atexit_sleep_ms=0"}
		},
		Root: moduleRoot(t), Clients: []int{1}, Duration: 300 * time.Millisecond, Rounds: 1,
		WeatherRollouts: 1, WeatherCalls: 5, RolloutRepeats: 1, Settle: 100 * time.Millisecond, Out: &out, Log: &log,
	})
	if err != nil {
		t.Fatalf("Run: %v\nlog:\n%s", err, log.String())
	}
	report := out.String()
	redis := os.Getenv("GYMKIT_REDIS_URL") != ""
	isRedis := func(name string) bool {
		return slices.Contains([]string{ScenarioRedisHTTP, ScenarioRedisHTTP2, ScenarioRedisMCP, ScenarioRedisMCP2}, name)
	}
	if redis {
		for _, want := range []string{"gymkit HTTP redis 2 replicas / gymkit HTTP | 1 |", "gymkit MCP redis 2 replicas / gymkit MCP | 1 |"} {
			if !strings.Contains(report, want) {
				t.Errorf("report lacks %q:\n%s", want, report)
			}
		}
	} else if !strings.Contains(report, "Skipped: GYMKIT_REDIS_URL is unset") {
		t.Errorf("without GYMKIT_REDIS_URL the report should say the Redis scenarios were skipped:\n%s", report)
	}
	for _, name := range ScenarioNames {
		if isRedis(name) && !redis {
			if strings.Contains(report, "| "+name+" |") {
				t.Errorf("a row for %q without GYMKIT_REDIS_URL", name)
			}
			continue
		}
		m := regexp.MustCompile(`(?m)^\| ` + regexp.QuoteMeta(name) + ` \| 1 \| (\d+) \|.*\| (\d+) \| \d+ → \d+ \|`).FindStringSubmatch(report)
		if m == nil {
			t.Errorf("no row for %q in the report:\n%s", name, report)
			continue
		}
		if rate, _ := strconv.Atoi(m[1]); rate == 0 {
			t.Errorf("%s: 0 calls/s", name)
		}
		if m[2] != "0" {
			t.Errorf("%s: %s errors", name, m[2])
		}
	}
	for _, want := range []string{
		"gymkit MCP / HTTP calls/s, 1 client", "gymkit HTTP / bare chi p99, 1 client",
		"weather HTTP: call 5 / call 1", "weather MCP: call 5 / call 1",
		"workplace seed real row / {} server CPU per seed, 1 client", "workplace rollouts/s, MCP / HTTP",
		"No errors",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	t.Logf("log:\n%s", log.String())
}

// TestRunTargetFails: a target that cannot start is an error naming it,
// and nothing is left running.
func TestRunTargetFails(t *testing.T) {
	err := Run(context.Background(), Config{
		Target: func(kind string) ([]string, []string) {
			return []string{os.Args[0], "-test.run=^$"}, []string{targetEnv + "=no-such-kind"}
		},
		Root: moduleRoot(t), Clients: []int{1}, Duration: time.Millisecond, Rounds: 1,
		WeatherCalls: -1, RolloutRepeats: -1, Scenarios: []string{ScenarioChi}, Out: io.Discard,
	})
	if err == nil || !strings.Contains(err.Error(), "exited before serving") || !strings.Contains(err.Error(), "no-such-kind") {
		t.Fatalf("err = %v, want the target's exit with its message", err)
	}
}

// TestChecks: the driver's answer checks catch wrong statuses, wrong
// bodies, JSON-RPC errors, isError results and wrong counts.
func TestChecks(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(newChiCounter())
	defer ts.Close()
	sdk := httptest.NewServer(newSDKCounter())
	defer sdk.Close()
	ctx := context.Background()
	hc := ts.Client()
	cookie, _, err := seed(ctx, hc, ts.URL, `{"initial_count":0}`)
	if err != nil {
		t.Fatal(err)
	}
	ck := map[string]string{"Cookie": cookie}
	rollout := mcpHeaders(RolloutHeader, "r1")
	tests := []struct {
		name, url, body string
		hdr             map[string]string
		want            string
		ok              bool
	}{
		{"increment", ts.URL + "/increment_counter", incBody, ck, incWant, true},
		{"no cookie: 400", ts.URL + "/increment_counter", incBody, nil, incWant, false},
		{"no count: 422", ts.URL + "/increment_counter", `{}`, ck, incWant, false},
		{"wrong body", ts.URL + "/get_counter_value", `{}`, ck, incWant, false},
		{"mcp increment", sdk.URL, mcpCall(1, "increment_counter", incBody), rollout, incWant, true},
		{"mcp isError", sdk.URL, mcpCall(1, "increment_counter", `{}`), rollout, "count", false},
		{"mcp unknown tool: JSON-RPC error", sdk.URL, mcpCall(1, "nope", `{}`), rollout, "", false},
	}
	for _, tc := range tests {
		_, err := expect(ctx, hc, tc.url, tc.body, tc.hdr, tc.want)
		if (err == nil) != tc.ok {
			t.Errorf("%s: err = %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
	// One increment so far on each rollout.
	b, err := expect(ctx, hc, ts.URL+"/get_counter_value", `{}`, ck, "count")
	if err != nil || countIs(b, 1) != nil || countIs(b, 2) == nil {
		t.Errorf("chi count: %s %v", b, err)
	}
	b, err = expect(ctx, hc, sdk.URL, mcpCall(2, "get_counter_value", `{}`), rollout, "count")
	if err != nil || countIs(b, 1) != nil || countIs(b, 11) == nil {
		t.Errorf("sdk count: %s %v", b, err)
	}
}

func TestStats(t *testing.T) {
	t.Parallel()
	ms := func(xs ...int) []time.Duration {
		var out []time.Duration
		for _, x := range xs {
			out = append(out, time.Duration(x)*time.Millisecond)
		}
		return out
	}
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = time.Duration(i+1) * time.Millisecond
	}
	tests := []struct {
		name   string
		sorted []time.Duration
		q      int
		want   time.Duration
	}{
		{"empty", nil, 50, 0},
		{"one", ms(7), 99, 7 * time.Millisecond},
		{"p50 of 100", hundred, 50, 50 * time.Millisecond},
		{"p99 of 100", hundred, 99, 99 * time.Millisecond},
		{"p100 of 100", hundred, 100, 100 * time.Millisecond},
	}
	for _, tc := range tests {
		if got := pct(tc.sorted, tc.q); got != tc.want {
			t.Errorf("%s: pct = %v, want %v", tc.name, got, tc.want)
		}
	}
	if got := median([]float64{3, 1, 2}); got != 2 {
		t.Errorf("median odd = %v", got)
	}
	if got := median(ms(4, 1, 3, 2)); got != 2500*time.Microsecond {
		t.Errorf("median even = %v", got)
	}
	if got := median[int](nil); got != 0 {
		t.Errorf("median empty = %v", got)
	}
}

func TestProcCPU(t *testing.T) {
	t.Parallel()
	cpu, threads, err := procCPU(os.Getpid())
	if err != nil || cpu <= 0 || threads < 1 {
		t.Fatalf("procCPU(self) = %v, %d, %v", cpu, threads, err)
	}
	if _, _, err := procCPU(1 << 30); err == nil {
		t.Fatal("procCPU of no process: no error")
	}
}

// ---- benchmarks: the four counter handlers in process ----

// benchDoor is one door of a built target: the request of one counter
// increment and what its answer must hold.
type benchDoor struct {
	h    http.Handler
	path string
	body string
	hdr  http.Header
	want string // "" means the increment's {"success":true}
}

func (d benchDoor) serve(tb testing.TB) {
	req := httptest.NewRequest(http.MethodPost, d.path, strings.NewReader(d.body))
	req.Header = d.hdr
	req.Host = "127.0.0.1" // the go-sdk refuses other hosts (DNS rebinding protection)
	rec := httptest.NewRecorder()
	d.h.ServeHTTP(rec, req)
	want := d.want
	if want == "" {
		want = incWant
	}
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), want) || strings.Contains(rec.Body.String(), `"isError":true`) {
		tb.Fatalf("%s: %d %s", d.path, rec.Code, rec.Body)
	}
}

// handlerSeed seeds a rollout by a direct handler call and returns its
// cookie and token.
func handlerSeed(tb testing.TB, h http.Handler, body string) (cookie, token string) {
	req := httptest.NewRequest(http.MethodPost, "/seed_session", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Host = "127.0.0.1"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	cs := rec.Result().Cookies()
	if rec.Code != 200 || len(cs) != 1 {
		tb.Fatalf("seed: %d %s", rec.Code, rec.Body)
	}
	m := regexp.MustCompile(`"` + mcpexpose.TokenHeader + `":"([^"]+)"`).FindStringSubmatch(rec.Body.String())
	if m != nil {
		token = m[1]
	}
	return cs[0].Name + "=" + cs[0].Value, token
}

func buildTarget(tb testing.TB, kind string) *Target {
	tb.Helper()
	t, err := Build(context.Background(), kind, moduleRoot(tb))
	if err != nil {
		tb.Fatal(err)
	}
	if t.Host != nil {
		tb.Cleanup(func() { t.Host.Close() })
	}
	return t
}

// jsonHdr is a JSON request's header with the key/value pairs kv.
func jsonHdr(kv ...string) http.Header {
	h := http.Header{"Content-Type": {"application/json"}}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

func counterDoors(tb testing.TB) map[string]benchDoor {
	chi := buildTarget(tb, KindChi)
	sdk := buildTarget(tb, KindSDK)
	gk := buildTarget(tb, KindCounter)
	chiCookie, _ := handlerSeed(tb, chi.Handler, `{"initial_count":0}`)
	gkCookie, token := handlerSeed(tb, gk.Handler, `{"initial_count":0}`)
	call := mcpCall(2, "increment_counter", incBody)
	return map[string]benchDoor{
		"chi":         {h: chi.Handler, path: "/increment_counter", body: incBody, hdr: jsonHdr("Cookie", chiCookie)},
		"gymkit_http": {h: gk.Handler, path: "/increment_counter", body: incBody, hdr: jsonHdr("Cookie", gkCookie)},
		"sdk": {h: sdk.Handler, path: "/", body: call, hdr: jsonHdr("Accept", mcpAccept, "Mcp-Protocol-Version", mcpProtocol,
			RolloutHeader, "bench")},
		"gymkit_mcp": {h: gk.Handler, path: mcpexpose.URLPath, body: call, hdr: jsonHdr("Accept", mcpAccept, "Mcp-Protocol-Version", mcpProtocol,
			mcpexpose.TokenHeader, token)},
	}
}

// TestCounterDoors: the benchmarks' four doors answer the increment (so
// that a benchmark never measures an error path).
func TestCounterDoors(t *testing.T) {
	for name, d := range counterDoors(t) {
		t.Run(name, func(t *testing.T) { d.serve(t) })
	}
}

// BenchmarkCounter compares one counter increment (a rollout's session
// state, {"count":1} -> {"success":true}) through, in process (direct
// ServeHTTP, no network):
//
//	chi:         a bare chi router with encoding/json (the HTTP floor);
//	gymkit_http: gymkit's HTTP door (example_session_state_mgmt);
//	sdk:         a bare go-sdk stateless JSON server (the MCP floor);
//	gymkit_mcp:  gymkit's MCP door on the same instance.
//
//	go test -run '^$' -bench Counter -benchmem ./bench/loadbench
func BenchmarkCounter(b *testing.B) {
	doors := counterDoors(b)
	for _, name := range []string{"chi", "gymkit_http", "sdk", "gymkit_mcp"} {
		d := doors[name]
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				d.serve(b)
			}
		})
	}
}

// BenchmarkWorkplaceSeed compares a fresh workplace_assistant seed with
// {} and with the first real row of NeMo Gym's example.jsonl (16.6 KB).
func BenchmarkWorkplaceSeed(b *testing.B) {
	wp := buildTarget(b, KindWorkplace)
	row, err := firstLine(moduleRoot(b) + "/../shared/data/nemo-gym/workplace_assistant/example.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct{ name, body string }{{"empty", `{}`}, {"row", string(row)}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(tc.body)))
			for b.Loop() {
				handlerSeed(b, wp.Handler, tc.body)
			}
		})
	}
}

// BenchmarkWorkplaceCall compares one workplace_assistant tool call (a
// directory search of a rollout seeded with the real row) on the two
// doors, in process: the MCP door of a 27-tool instance against the
// counter's 2 tools above.
func BenchmarkWorkplaceCall(b *testing.B) {
	wp := buildTarget(b, KindWorkplace)
	row, err := firstLine(moduleRoot(b) + "/../shared/data/nemo-gym/workplace_assistant/example.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	cookie, token := handlerSeed(b, wp.Handler, string(row))
	doors := []struct {
		name string
		d    benchDoor
	}{
		{"http", benchDoor{h: wp.Handler, path: "/" + wpTool, body: wpArgs, want: wpWant,
			hdr: jsonHdr("Cookie", cookie)}},
		{"mcp", benchDoor{h: wp.Handler, path: mcpexpose.URLPath, body: mcpCall(2, wpTool, wpArgs), want: wpWant,
			hdr: jsonHdr("Accept", mcpAccept, "Mcp-Protocol-Version", mcpProtocol, mcpexpose.TokenHeader, token)}},
	}
	for _, tc := range doors {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				tc.d.serve(b)
			}
		})
	}
}
