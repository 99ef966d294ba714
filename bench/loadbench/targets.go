package loadbench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/go-chi/chi/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gymkit/gymkit/server"
	_ "github.com/gymkit/gymkit/servers/all" // registers the shipped server types
)

// The server kinds a target process serves (the -target value of the
// driver's own binary). Every kind but KindWorkplace and KindWeather serves
// the counter tool of example_session_state_mgmt: increment_counter
// {"count":n} answering {"success":true}, get_counter_value answering
// {"count":n}, a per-rollout counter in session state.
const (
	// KindChi is a bare chi router with encoding/json: a cookie names the
	// rollout, a mutex-guarded map holds the counters. No gymkit code.
	KindChi = "chi"
	// KindSDK is a bare go-sdk MCP server (stateless, JSON answers,
	// mcp.StreamableHTTPHandler) with the same two tools; the X-Rollout
	// request header names the rollout. No gymkit code.
	KindSDK = "sdk"
	// KindCounter is gymkit serving servers/example_session_state_mgmt's
	// shipped config: the HTTP door and the MCP door of one instance.
	KindCounter = "counter"
	// KindCounterSDK is KindCounter with mcp.lean: false: its MCP door
	// serves every request through the go-sdk (the baseline of the lean
	// path, docs/mcp.md "Transport").
	KindCounterSDK = "counter-sdkonly"
	// KindWeather is gymkit serving servers/example_mcp_weather (its
	// get_weather appends every call to the rollout's session state).
	KindWeather = "weather"
	// KindWorkplace is gymkit serving servers/workplace_assistant with NeMo
	// Gym's data (../shared/data/nemo-gym/workplace_assistant).
	KindWorkplace = "workplace"
)

// Kinds are every server kind, in the order the driver starts them.
var Kinds = []string{KindChi, KindCounter, KindCounterSDK, KindSDK, KindWeather, KindWorkplace}

// The Redis kinds serve the counter like KindCounter, with its state in the
// Redis named by GYMKIT_REDIS_URL (session.store: redis, a fixed
// session_secret shared by both, and the key prefix in RedisPrefixEnv): two
// replicas of one instance. The driver starts them only when
// GYMKIT_REDIS_URL is set (make bench runs under .ci/with-redis.sh).
const (
	KindCounterRedis  = "counter-redis"
	KindCounterRedis2 = "counter-redis-2"
)

// RedisKinds are the Redis kinds, in the order the driver starts them.
var RedisKinds = []string{KindCounterRedis, KindCounterRedis2}

// RedisPrefixEnv names the environment variable that gives the Redis kinds
// their key prefix (the driver sets one per run, the same for both).
const RedisPrefixEnv = "GYMKIT_LOADBENCH_REDIS_PREFIX"

// redisSecret is the Redis replicas' shared instance secret (a benchmark's,
// on loopback).
const redisSecret = "loadbench-redis-secret-0123456789abcdefghijkl"

// RolloutHeader names the rollout on the bare go-sdk target (it has no
// sessions of its own in stateless mode).
const RolloutHeader = "X-Rollout"

// Target is one built server: its handler, and for the gymkit kinds the
// host that owns it (its listener is bound by server.New).
type Target struct {
	Kind    string // one of Kinds or RedisKinds
	Handler http.Handler
	// Host is the gymkit host (nil for chi and sdk). Serve it, or Close it
	// when only Handler is used.
	Host *server.Host
	// Cookie is the session cookie's name on the HTTP doors ("" for sdk).
	Cookie string
	// Logs counts the warnings and errors the instance logged.
	Logs *LogCounter
}

// Build builds the server of kind; root is the module root (configs and
// the ../shared data resolve against it). The gymkit kinds are built as
// gymkit serve builds them (server.New on the shipped config) with a
// logger that drops Info records (the per-request log lines) and counts
// warnings and errors.
func Build(ctx context.Context, kind, root string) (*Target, error) {
	switch kind {
	case KindChi:
		return &Target{Kind: kind, Handler: newChiCounter(), Cookie: chiCookie, Logs: new(LogCounter)}, nil
	case KindSDK:
		return &Target{Kind: kind, Handler: newSDKCounter(), Logs: new(LogCounter)}, nil
	}
	var files, overrides []string
	switch kind {
	case KindCounter:
		files = []string{"servers/example_session_state_mgmt/configs/example_session_state_mgmt.yaml"}
	case KindCounterSDK:
		files = []string{"servers/example_session_state_mgmt/configs/example_session_state_mgmt.yaml"}
		overrides = []string{"example_session_state_mgmt_resources_server.resources_servers.example_session_state_mgmt.mcp.lean=false"}
	case KindCounterRedis, KindCounterRedis2:
		url := os.Getenv("GYMKIT_REDIS_URL")
		if url == "" {
			return nil, fmt.Errorf("loadbench: %s needs GYMKIT_REDIS_URL", kind)
		}
		prefix := os.Getenv(RedisPrefixEnv)
		if prefix == "" {
			prefix = "gymkit-loadbench:"
		}
		blk := "example_session_state_mgmt_resources_server.resources_servers.example_session_state_mgmt."
		files = []string{"servers/example_session_state_mgmt/configs/example_session_state_mgmt.yaml"}
		overrides = []string{blk + "session_secret=" + redisSecret, blk + "session.store=redis",
			blk + "session.url=" + url, blk + "session.prefix=" + prefix}
	case KindWeather:
		files = []string{"servers/example_mcp_weather/configs/example_mcp_weather.yaml"}
	case KindWorkplace:
		data := filepath.Join(root, "..", "shared", "data", "nemo-gym", "workplace_assistant")
		files = []string{"servers/workplace_assistant/configs/workplace_assistant.yaml"}
		overrides = []string{
			"workplace_assistant.resources_servers.workplace_assistant.data_dir=" + filepath.Join(data, "csv_data"),
			"workplace_assistant.resources_servers.workplace_assistant.tools_file=" + filepath.Join(data, "tools.json"),
		}
	default:
		return nil, fmt.Errorf("loadbench: unknown target kind %q", kind)
	}
	logs := new(LogCounter)
	h, err := server.New(ctx, server.Options{
		Files: files, Overrides: overrides, WorkDir: root,
		LookupEnv: func(string) (string, bool) { return "", false },
		Logger:    slog.New(logs),
		Ready:     io.Discard,
	})
	if err != nil {
		return nil, fmt.Errorf("loadbench: %s: %w", kind, err)
	}
	ins := h.Instances()
	if len(ins) != 1 {
		h.Close()
		return nil, fmt.Errorf("loadbench: %s: %d instances, want 1", kind, len(ins))
	}
	return &Target{Kind: kind, Handler: ins[0].Handler(), Host: h, Logs: logs}, nil
}

// LogCounter is a slog.Handler that drops records below Warn and counts
// the others; the first error is kept.
type LogCounter struct {
	Warnings, Errors atomic.Int64 // records at Warn, and at Error or above
	mu               sync.Mutex
	first            string
}

// Enabled reports level >= Warn.
func (l *LogCounter) Enabled(_ context.Context, level slog.Level) bool {
	return level >= slog.LevelWarn
}

// Handle counts r.
func (l *LogCounter) Handle(_ context.Context, r slog.Record) error {
	if r.Level < slog.LevelError {
		l.Warnings.Add(1)
		return nil
	}
	l.Errors.Add(1)
	l.mu.Lock()
	if l.first == "" {
		l.first = r.Message
		r.Attrs(func(a slog.Attr) bool { l.first += " " + a.String(); return true })
	}
	l.mu.Unlock()
	return nil
}

// WithAttrs returns l.
func (l *LogCounter) WithAttrs([]slog.Attr) slog.Handler { return l }

// WithGroup returns l.
func (l *LogCounter) WithGroup(string) slog.Handler { return l }

// FirstError is the first error logged, "" if none.
func (l *LogCounter) FirstError() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.first
}

// counters is the per-rollout state of the bare targets.
type counters struct {
	mu sync.Mutex
	m  map[string]*int64
}

func (c *counters) add(rollout string, n int64) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.m[rollout]
	if p == nil {
		if c.m == nil {
			c.m = map[string]*int64{}
		}
		p = new(int64)
		c.m[rollout] = p
	}
	*p += n
	return *p
}

func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

const chiCookie = "session"

type countArgs struct {
	Count *int64 `json:"count"`
}

// newChiCounter is the floor of the HTTP door: chi, encoding/json, a cookie
// and a map. /seed_session sets the cookie; the tools need it (400
// otherwise) and a count (422 otherwise).
func newChiCounter() http.Handler {
	var state counters
	writeJSON := func(w http.ResponseWriter, status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
	rollout := func(w http.ResponseWriter, r *http.Request) (string, bool) {
		c, err := r.Cookie(chiCookie)
		if err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"detail": "Session not initialized"})
			return "", false
		}
		return c.Value, true
	}
	r := chi.NewRouter()
	r.Post("/seed_session", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			InitialCount int64 `json:"initial_count"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			writeJSON(w, http.StatusUnprocessableEntity, map[string]string{"detail": err.Error()})
			return
		}
		id := newID()
		state.add(id, body.InitialCount)
		http.SetCookie(w, &http.Cookie{Name: chiCookie, Value: id, Path: "/", HttpOnly: true})
		writeJSON(w, http.StatusOK, struct{}{})
	})
	r.Post("/increment_counter", func(w http.ResponseWriter, r *http.Request) {
		id, ok := rollout(w, r)
		if !ok {
			return
		}
		var args countArgs
		if err := json.NewDecoder(r.Body).Decode(&args); err != nil || args.Count == nil {
			writeJSON(w, http.StatusUnprocessableEntity, map[string]string{"detail": "count is required"})
			return
		}
		state.add(id, *args.Count)
		writeJSON(w, http.StatusOK, map[string]bool{"success": true})
	})
	r.Post("/get_counter_value", func(w http.ResponseWriter, r *http.Request) {
		id, ok := rollout(w, r)
		if !ok {
			return
		}
		writeJSON(w, http.StatusOK, map[string]int64{"count": state.add(id, 0)})
	})
	return r
}

// newSDKCounter is the floor of the MCP door: the go-sdk's stateless JSON
// Streamable HTTP handler with the counter's two tools; arguments are
// decoded with encoding/json, the answer is the result's text and its
// structuredContent, as gymkit's door answers.
func newSDKCounter() http.Handler {
	var state counters
	srv := mcp.NewServer(&mcp.Implementation{Name: "bare", Version: "1"}, nil)
	result := func(v any) *mcp.CallToolResult {
		b, _ := json.Marshal(v)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}, StructuredContent: v}
	}
	fail := func(msg string) *mcp.CallToolResult {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
	}
	rolloutOf := func(req *mcp.CallToolRequest) string {
		if req.Extra == nil {
			return ""
		}
		return req.Extra.Header.Get(RolloutHeader)
	}
	srv.AddTool(&mcp.Tool{Name: "increment_counter",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"count":{"type":"integer"}},"required":["count"]}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args countArgs
			if err := json.Unmarshal(req.Params.Arguments, &args); err != nil || args.Count == nil {
				return fail("count is required"), nil
			}
			state.add(rolloutOf(req), *args.Count)
			return result(map[string]bool{"success": true}), nil
		})
	srv.AddTool(&mcp.Tool{Name: "get_counter_value", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return result(map[string]int64{"count": state.add(rolloutOf(req), 0)}), nil
		})
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
}

// ModuleRoot walks up from the working directory to the directory holding
// go.mod.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("loadbench: no go.mod above the working directory")
		}
		dir = parent
	}
}
