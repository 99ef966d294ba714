package framework

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Server is an environment: a resources server type. Its Routes method
// declares the tools (Post, Dispatch), and optionally SeedSession; Verify is
// required. The framework calls Routes once per instance at startup.
//
// An environment embeds [Base] for the defaults and registers a factory with
// [Register]. Optional behaviour is given by methods of the environment's own
// type (hooks): [ToolsProvider], [SessionToolFilter] (or [SeedToolFilter]), [Provisioner],
// [MetricsComputer], [KeyMetricsProvider], [ReverifyModer], [SessionCloser], [TokenValidator], [ErrorTexter]. The framework finds
// them on the outer value (never through Base's methods), so put an interface
// guard next to each override:
//
//	var _ framework.ToolsProvider = (*Workplace)(nil)
type Server interface {
	Routes(r *Router)
}

// ToolsProvider chooses what the MCP door exposes (NeMo's mcp_tools, contract
// d.2 step 3f). harvested are the typed tools in registration order; catchall
// mints dispatcher tools and is nil without a Dispatch route. Returning nil or
// an empty slice exposes nothing (/mcp stays mounted). Default: harvested.
type ToolsProvider interface {
	Tools(harvested []Tool, catchall *CatchAll) []Tool
}

// SessionToolFilter narrows one rollout's MCP tools (NeMo's
// mcp_allowed_tools_for_session, contract d.3). seedBody is the JSON object
// POSTed to /seed_session ({} when the body was not an object): the bytes
// as received when encoding/json reads them alike, else their encoding
// ([SeedBody.JSON]); the filter must not modify it. A nil slice means
// unrestricted; an empty non-nil slice means nothing is allowed. An error
// fails /seed_session with a 500 (or the status of an [Error]) and no token
// is issued. Default: nil. An environment that reads a few keys of a large
// row implements [SeedToolFilter] instead, which parses nothing else.
type SessionToolFilter interface {
	AllowedToolsForSession(ctx context.Context, seedBody json.RawMessage) ([]string, error)
}

// SeedToolFilter is [SessionToolFilter] given the seed body as the seed
// read it (a [SeedBody], shared with the seed's other hooks) instead of
// JSON text to parse again: seed.Get reads one key of a large dataset row
// without building the tree of the rest. When an environment
// implements it, the MCP door calls AllowedToolsForSeed and never
// AllowedToolsForSession. Its answer means what SessionToolFilter's does:
// nil unrestricted, an empty non-nil slice nothing allowed; an error fails
// /seed_session with a 500 (or the status of an [Error]) and no token is
// issued. It is called once per seed, concurrently for concurrent seeds.
// [Base] does not implement it.
type SeedToolFilter interface {
	AllowedToolsForSeed(ctx context.Context, seed *SeedBody) ([]string, error)
}

// Provisioner runs once after the instance's config is decoded into the
// server value and before it serves (load data, fail fast). An error stops the
// startup naming the instance.
type Provisioner interface {
	Provision(ctx context.Context) error
}

// MetricsComputer is NeMo's compute_metrics for /aggregate_metrics
// (python-compat 1.7). tasks holds the raw verify responses grouped by
// _ng_task_index in ascending order (request order within a task). The result
// must encode as a JSON object (a struct, a Value or an ordered map type): a
// "per_task_metrics" list in it is merged into the matching group entries by
// _ng_task_index; the other keys are merged into agent_metrics (existing keys
// overwritten in place, new keys appended). Default: no extra metrics.
type MetricsComputer interface {
	ComputeMetrics(ctx context.Context, tasks [][]Value) (any, error)
}

// KeyMetricsProvider is NeMo's get_key_metrics: it picks key_metrics from the
// final agent_metrics object. The result must encode as a JSON object.
// Default: every "mean/*" entry in order ([DefaultKeyMetrics]).
type KeyMetricsProvider interface {
	KeyMetrics(ctx context.Context, agentMetrics Value) (any, error)
}

// SessionCloser releases one rollout's resources when the rollout ends:
// POST /close_session calls Close with the rollout's session in ctx
// (session.ID(ctx) names it; its state is still readable with session.Get),
// before the host deletes the session's state. Close must be idempotent and
// safe for concurrent use: it runs for every close, also for a session that
// holds nothing (a second close, a close without a cookie) and for a
// session another replica served. Its error answers the close like a tool's
// error (framework.Errorf's status and detail; a 500 for a plain error); the
// session's state is deleted anyway, and a retry calls Close again. Close
// is not called when a session merely expires (idle timeout, lifetime), nor
// at shutdown: keep a timer of your own for per-rollout resources held in
// process memory. Default: nothing to release.
type SessionCloser interface {
	Close(ctx context.Context) error
}

// ReverifyModer answers GET /reverify_mode: "stateless", "unsupported" or
// "unknown" (the default).
type ReverifyModer interface {
	ReverifyMode() string
}

// Base supplies the defaults of every hook. Embed it in an environment:
//
//	type Weather struct {
//		framework.Base
//		DefaultCity string `koanf:"default_city"`
//	}
//
// Base's methods never call each other or any hook: the framework calls hooks
// on the outer value, so an override on the environment's type always wins.
type Base struct {
	name   string
	logger *slog.Logger
	shared bool
}

// Tools returns harvested unchanged.
func (Base) Tools(harvested []Tool, _ *CatchAll) []Tool { return harvested }

// AllowedToolsForSession returns nil (unrestricted).
func (Base) AllowedToolsForSession(context.Context, json.RawMessage) ([]string, error) {
	return nil, nil
}

// Provision does nothing.
func (Base) Provision(context.Context) error { return nil }

// ComputeMetrics returns no extra metrics.
func (Base) ComputeMetrics(context.Context, [][]Value) (any, error) { return nil, nil }

// KeyMetrics returns [DefaultKeyMetrics] of agentMetrics.
func (Base) KeyMetrics(_ context.Context, agentMetrics Value) (any, error) {
	return DefaultKeyMetrics(agentMetrics), nil
}

// ReverifyMode returns "unknown".
func (Base) ReverifyMode() string { return "unknown" }

// Close releases nothing and returns nil ([SessionCloser]).
func (Base) Close(context.Context) error { return nil }

// InstanceName returns the instance name the host gave this server (the
// top-level YAML key), or "" before startup / outside a host.
func (b *Base) InstanceName() string { return b.name }

// Logger returns the instance's logger (slog.Default() when unset). It is set
// by the host before Provision and is safe for concurrent use.
func (b *Base) Logger() *slog.Logger {
	if b.logger == nil {
		return slog.Default()
	}
	return b.logger
}

// SharedSessionState reports whether the host shares the instance's session
// state store between processes (session.store: redis; see
// docs/deployment.md). An environment that keeps per-rollout
// state in process memory should then keep it in the store instead
// (session.Get / session.Update), or refuse to start: a rollout's calls
// reach any replica. It is set before Provision; false outside a host.
func (b *Base) SharedSessionState() bool { return b.shared }

func (b *Base) setBase(name string, l *slog.Logger, shared bool) {
	b.name, b.logger, b.shared = name, l, shared
}

type baseSetter interface {
	setBase(name string, l *slog.Logger, shared bool)
}

// DefaultKeyMetrics returns the "mean/*" members of agentMetrics, in order
// (NeMo's default get_key_metrics).
func DefaultKeyMetrics(agentMetrics Value) Value {
	out := Value{Kind: KindObject}
	for _, m := range agentMetrics.Members {
		if strings.HasPrefix(m.Key, "mean/") {
			out.Members = append(out.Members, m)
		}
	}
	return out
}

var toolName = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// Factory makes a fresh, zero-configured server value.
type Factory func() Server

var registry = struct {
	sync.RWMutex
	m map[string]Factory
}{m: map[string]Factory{}}

// Register makes a server type available under name, the key under
// resources_servers in an instance's YAML (e.g. "example_mcp_weather").
// Environments call it from init. Register panics if name is empty, if
// factory is nil, or if name is already registered (like database/sql).
// It is safe for concurrent use.
func Register(name string, factory Factory) {
	if name == "" {
		panic("framework: Register with an empty server type name")
	}
	if factory == nil {
		panic("framework: Register(" + name + ") with a nil factory")
	}
	registry.Lock()
	defer registry.Unlock()
	if _, dup := registry.m[name]; dup {
		panic("framework: Register called twice for server type " + name)
	}
	registry.m[name] = factory
}

// lookup is framework/host's Lookup: the factory registered under name, or
// an error that lists the registered names.
func lookup(name string) (Factory, error) {
	registry.RLock()
	defer registry.RUnlock()
	if f, ok := registry.m[name]; ok {
		return f, nil
	}
	return nil, fmt.Errorf("unknown server type %q (registered: %s)", name, strings.Join(namesLocked(), ", "))
}

// names is framework/host's Names: the registered server type names,
// sorted.
func names() []string {
	registry.RLock()
	defer registry.RUnlock()
	return namesLocked()
}

func namesLocked() []string {
	names := make([]string, 0, len(registry.m))
	for n := range registry.m {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
