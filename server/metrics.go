package server

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/framework/host"
	"github.com/gymkit/gymkit/session"
)

// UnregisteredTool is the tool label of a tool call whose name is not one
// of the instance's registered tools (a dispatcher's path segment that no
// Tools hook names): names sent by clients never become label values, so a
// flood of made-up names adds no series. Tool names match [A-Za-z0-9_-]+,
// so no real tool has this name.
const UnregisteredTool = "(unregistered)"

// OtherRoute is the route label of an HTTP request for none of the
// instance's routes (a path no tool, no gymkit route and no endpoint has).
const OtherRoute = "(other)"

// Histogram buckets, in seconds. Tool calls may take minutes (a sandboxed
// test run); store operations take microseconds (memory) to milliseconds
// (Redis).
var (
	callBuckets  = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300}
	storeBuckets = []float64{.00001, .000025, .00005, .0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1}
)

// doors are the values of the door label, indexed by framework.Door.
var doors = [...]string{framework.DoorHTTP: "http", framework.DoorMCP: "mcp"}

// Store operation label values, indexed by the op constants.
const (
	opGet = iota
	opUpdate
	opDelete
	opSweep
	numOps
)

var opNames = [numOps]string{"get", "update", "delete", "sweep"}

// instanceMetrics are one instance's Prometheus metrics, in a registry of
// their own (several instances in one process never share a series). Every
// label value comes from the instance's configuration and registry, never
// from a request. It is safe for concurrent use once NewInstance returned.
type instanceMetrics struct {
	reg  *prometheus.Registry
	path string // the metrics endpoint (metrics.path)

	toolCalls  *prometheus.CounterVec   // tool, door
	toolErrors *prometheus.CounterVec   // tool, door, class
	toolDur    *prometheus.HistogramVec // tool, door
	httpReqs   *prometheus.CounterVec   // route, code
	httpDur    *prometheus.HistogramVec // route
	seedRefuse *prometheus.CounterVec   // code
	storeDur   [numOps]prometheus.Observer
	storeErrs  [numOps]prometheus.Counter

	tools  map[string]*toolSeries // by registered tool name; read-only after setTools
	routes map[string]string      // path (without rollout prefix) -> route label
	other  *toolSeries            // UnregisteredTool's series
}

// toolSeries are the pre-resolved series of one tool label, per door.
type toolSeries struct {
	name  string
	calls [2]prometheus.Counter
	dur   [2]prometheus.Observer
}

// newInstanceMetrics makes the registry of one instance with the Go runtime
// and process collectors and gymkit's metrics (docs/operations.md).
func newInstanceMetrics(name, serverType string, cfg config.MetricsConfig, draining func() bool) *instanceMetrics {
	m := &instanceMetrics{reg: prometheus.NewRegistry(), path: cfg.Path}
	m.toolCalls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "gymkit_tool_calls_total",
		Help: "Tool calls that reached the tool's interceptors, by tool and door (http: POST /<tool>, mcp: tools/call), whatever their outcome.",
	}, []string{"tool", "door"})
	m.toolErrors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "gymkit_tool_call_errors_total",
		Help: "Tool calls answered with an error, by tool, door and class: 422 (validation), timeout (504, tool_timeout), 4xx (other client errors), 5xx (server errors). Over MCP each is an isError result.",
	}, []string{"tool", "door", "class"})
	m.toolDur = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "gymkit_tool_call_duration_seconds",
		Help:    "Duration of tool calls through the interceptors, by tool and door, in seconds.",
		Buckets: callBuckets,
	}, []string{"tool", "door"})
	m.httpReqs = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "gymkit_http_requests_total",
		Help: "HTTP requests answered by the instance, by route (the path without /ng-rollout/<id>/, for gymkit's routes and the registered tools; (other) for any other path) and status code.",
	}, []string{"route", "code"})
	m.httpDur = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "gymkit_http_request_duration_seconds",
		Help:    "Duration of HTTP requests until the handler returned, by route, in seconds.",
		Buckets: callBuckets,
	}, []string{"route"})
	m.seedRefuse = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "gymkit_seed_session_refused_total",
		Help: "POST /seed_session requests answered with a status >= 400 (no rollout started), by status code.",
	}, []string{"code"})
	storeDur := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "gymkit_session_store_duration_seconds",
		Help:    "Duration of the session state store's operations (get, update, delete, sweep), in seconds; update includes the state's decoding and encoding.",
		Buckets: storeBuckets,
	}, []string{"op"})
	storeErrs := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "gymkit_session_store_errors_total",
		Help: "Session state store operations that failed in the store (not errors of the caller's update function), by op.",
	}, []string{"op"})
	for op := range numOps {
		m.storeDur[op] = storeDur.WithLabelValues(opNames[op])
		m.storeErrs[op] = storeErrs.WithLabelValues(opNames[op])
	}
	info := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "gymkit_instance_info",
		Help:        "Always 1: the instance's name and server type.",
		ConstLabels: prometheus.Labels{"name": name, "server_type": serverType},
	})
	info.Set(1)
	drain := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "gymkit_draining",
		Help: "1 once the instance is draining (shutting down: /health/ready answers 503), else 0.",
	}, func() float64 {
		if draining() {
			return 1
		}
		return 0
	})
	m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.toolCalls, m.toolErrors, m.toolDur, m.httpReqs, m.httpDur, m.seedRefuse, storeDur, storeErrs, info, drain)
	return m
}

// setTools fixes the label values: the registered tools (app's typed tools
// and the names the server's Tools hook exposes) and the HTTP routes. It
// fails when a tool's path is the metrics path, and when the Tools hook
// panicked.
func (m *instanceMetrics) setTools(app *host.App, mcp bool) error {
	names := map[string]bool{}
	for _, t := range app.Tools() {
		names[t.Name] = true
	}
	exposed, err := app.ExposedTools()
	if err != nil {
		return err
	}
	for _, t := range exposed {
		names[t.Name] = true
	}
	m.tools = map[string]*toolSeries{}
	m.routes = map[string]string{"/": "/", "/seed_session": "/seed_session", "/verify": "/verify",
		"/aggregate_metrics": "/aggregate_metrics", "/close_session": "/close_session", "/reverify_mode": "/reverify_mode",
		"/mcp": "/mcp", "/mcp/": "/mcp", livePath: livePath, readyPath: readyPath, m.path: m.path}
	for name := range names {
		if "/"+name == m.path {
			return fmt.Errorf("metrics.path %q is the path of the tool %q: set metrics.path to another path, such as /gymkit/metrics", m.path, name)
		}
		m.tools[name] = m.series(name, mcp)
		m.routes["/"+name] = "/" + name
	}
	m.other = &toolSeries{name: UnregisteredTool} // its series appear on first use...
	if app.CatchAll() != nil {
		m.other = m.series(UnregisteredTool, mcp) // ...or at once for a dispatcher, which takes any name
	}
	return nil
}

// series resolves the series of one tool label. Those of the MCP door are
// made (and shown at 0) only when the instance exposes MCP; otherwise they
// stay nil (see observeCall).
func (m *instanceMetrics) series(name string, mcp bool) *toolSeries {
	s := &toolSeries{name: name}
	for d, door := range doors {
		if framework.Door(d) == framework.DoorMCP && !mcp {
			continue
		}
		s.calls[d] = m.toolCalls.WithLabelValues(name, door)
		s.dur[d] = m.toolDur.WithLabelValues(name, door)
	}
	return s
}

// observeCall records one tool call as the interceptor sees it: the tool's name as the call carried it, the door, the status
// the door answers (HTTP status; over MCP the status of the isError text)
// and the duration through the interceptors.
func (m *instanceMetrics) observeCall(tool string, door framework.Door, status int, d time.Duration) {
	s := m.tools[tool]
	if s == nil {
		s = m.other
	}
	if s == nil { // before setTools: the App is being built, no call is served
		return
	}
	di := int(door) & 1
	if s.calls[di] != nil {
		s.calls[di].Inc()
		s.dur[di].Observe(d.Seconds())
	} else { // a series made on first use (unregistered names of a server without a dispatcher)
		m.toolCalls.WithLabelValues(s.name, doors[di]).Inc()
		m.toolDur.WithLabelValues(s.name, doors[di]).Observe(d.Seconds())
	}
	if class := errorClass(status); class != "" {
		m.toolErrors.WithLabelValues(s.name, doors[di], class).Inc()
	}
}

// errorClass is the class label of a tool call's status: "" for a success
// (below 400), "422" (validation), "timeout" (504: tool_timeout), "4xx",
// "5xx".
func errorClass(status int) string {
	switch {
	case status < 400:
		return ""
	case status == http.StatusUnprocessableEntity:
		return "422"
	case status == http.StatusGatewayTimeout:
		return "timeout"
	case status < 500:
		return "4xx"
	}
	return "5xx"
}

// interceptor is the host interceptor (host.Options.Interceptors)
// that feeds every tool call into the metrics: it runs outside the
// environment's interceptors on both doors, so their refusals count, and
// records the tool's name as the call carries it, the door, the status the
// door answers (host.StatusCode) and the duration through the
// environment's interceptors and the tool.
func (m *instanceMetrics) interceptor() framework.Interceptor {
	return func(next framework.Invoker) framework.Invoker {
		return func(ctx context.Context, c *framework.Call) (any, error) {
			start := time.Now()
			res, err := next(ctx, c)
			status := http.StatusOK
			if err != nil {
				status = host.StatusCode(err, c.Door)
			}
			m.observeCall(c.Tool, c.Door, status, time.Since(start))
			return res, err
		}
	}
}

// route is the route label of a request path.
func (m *instanceMetrics) route(p string) string {
	if rest, ok := strings.CutPrefix(p, "/ng-rollout/"); ok {
		if _, tail, ok := strings.Cut(rest, "/"); ok {
			p = "/" + tail
		}
	}
	if r, ok := m.routes[p]; ok {
		return r
	}
	if strings.HasPrefix(p, "/mcp/") {
		return "/mcp"
	}
	return OtherRoute
}

// observeHTTP counts and times every request of the instance (outermost,
// so that the host's own answers, 401, 408, 413 and 503, count too).
func (m *instanceMetrics) observeHTTP(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rw := &recordingWriter{ResponseWriter: w}
		defer func() {
			status := rw.status
			if status == 0 {
				status = http.StatusOK
			}
			route := m.route(r.URL.Path)
			code := codeText(status)
			m.httpReqs.WithLabelValues(route, code).Inc()
			m.httpDur.WithLabelValues(route).Observe(time.Since(start).Seconds())
			if route == "/seed_session" && status >= 400 {
				m.seedRefuse.WithLabelValues(code).Inc()
			}
		}()
		next.ServeHTTP(rw, r)
	})
}

// codes are the code label values of the statuses 100 to 599.
var codes = func() (out [500]string) {
	for i := range out {
		out[i] = strconv.Itoa(100 + i)
	}
	return out
}()

// codeText is the code label of an HTTP status, without allocating.
func codeText(status int) string {
	if status >= 100 && status < 600 {
		return codes[status-100]
	}
	return strconv.Itoa(status)
}

// handler serves the registry in the Prometheus exposition formats.
func (m *instanceMetrics) handler(log *slog.Logger) http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{
		ErrorLog:      slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		ErrorHandling: promhttp.ContinueOnError,
	})
}

// watchStore registers the gauges read from the store at scrape time: live
// sessions, when the store can count them (a session.MemoryStore's Len).
func (m *instanceMetrics) watchStore(store session.StateStore) {
	if l, ok := store.(interface{ Len() int }); ok {
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "gymkit_sessions_live",
			Help: "Rollout sessions holding state in the session store (memory store: not expired; read at scrape time).",
		}, func() float64 { return float64(l.Len()) }))
	}
}

// watchRepairs registers the MCP door's argument repair count
// (mcp.coerce_json_strings), read at scrape time.
func (m *instanceMetrics) watchRepairs(repairs func() uint64) {
	m.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "gymkit_mcp_argument_repairs_total",
		Help: "tools/call arguments the MCP door decoded from JSON strings (mcp.coerce_json_strings), one per repaired field.",
	}, func() float64 { return float64(repairs()) }))
}

// meteredStore is the session.StateStore decorator that times every
// operation and counts the store's failures. Sweep passes through to a
// session.Sweeper (0, nil otherwise); Unwrap returns the store it wraps.
// Build it with newMeteredStore, which keeps a typed store typed.
type meteredStore struct {
	inner session.StateStore
	m     *instanceMetrics
}

// meteredTypedStore is meteredStore over a session.TypedStore (the memory
// store): session.Update's typed path (no JSON round trip of the state)
// goes through UpdateTyped, timed as an update.
type meteredTypedStore struct {
	*meteredStore
	typed session.TypedStore
}

// newMeteredStore returns inner timed by m: a session.TypedStore stays one.
func newMeteredStore(inner session.StateStore, m *instanceMetrics) session.StateStore {
	ms := &meteredStore{inner: inner, m: m}
	if ts, ok := inner.(session.TypedStore); ok {
		return &meteredTypedStore{meteredStore: ms, typed: ts}
	}
	return ms
}

// UpdateTyped implements session.TypedStore: it times update as an
// update. Its errors are the caller's (see session.TypedStore), so none
// counts as a store failure, as none of the same errors does on the byte
// path (they come from Update's fn there).
func (s *meteredTypedStore) UpdateTyped(ctx context.Context, update func(*session.MemoryStore) error) error {
	start := time.Now()
	defer func() { s.done(opUpdate, start, false) }() // timed even when fn panics
	return s.typed.UpdateTyped(ctx, update)
}

// Unwrap returns the wrapped store.
func (s *meteredStore) Unwrap() session.StateStore { return s.inner }

func (s *meteredStore) done(op int, start time.Time, failed bool) {
	s.m.storeDur[op].Observe(time.Since(start).Seconds())
	if failed {
		s.m.storeErrs[op].Inc()
	}
}

func (s *meteredStore) Get(ctx context.Context, sessionID, key string) ([]byte, bool, error) {
	start := time.Now()
	v, ok, err := s.inner.Get(ctx, sessionID, key)
	s.done(opGet, start, err != nil)
	return v, ok, err
}

func (s *meteredStore) Update(ctx context.Context, sessionID, key string, fn func(old []byte, ok bool) ([]byte, error)) error {
	start := time.Now()
	var fnErr error
	err := s.inner.Update(ctx, sessionID, key, func(old []byte, ok bool) ([]byte, error) {
		v, err := fn(old, ok)
		fnErr = err
		return v, err
	})
	s.done(opUpdate, start, err != nil && err != fnErr) //nolint:errorlint // identity: the store returns fn's error unchanged
	return err
}

func (s *meteredStore) Delete(ctx context.Context, sessionID string) error {
	start := time.Now()
	err := s.inner.Delete(ctx, sessionID)
	s.done(opDelete, start, err != nil)
	return err
}

// Sweep implements session.Sweeper.
func (s *meteredStore) Sweep(ctx context.Context) (int, error) {
	sw, ok := s.inner.(session.Sweeper)
	if !ok {
		return 0, nil
	}
	start := time.Now()
	n, err := sw.Sweep(ctx)
	s.done(opSweep, start, err != nil)
	return n, err
}

// baseStore returns the store under the host's decorators.
func baseStore(s session.StateStore) session.StateStore {
	for {
		switch u := s.(type) {
		case *meteredStore:
			s = u.inner
		case *meteredTypedStore:
			s = u.inner
		default:
			return s
		}
	}
}
