package host

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/framework/internal/hostlink"
)

// Options configure [Build].
type Options struct {
	// Name is the instance name (the top-level YAML key); it is given to
	// Base.InstanceName and used in logs. Zero: "".
	Name string
	// Config is the instance's configuration, loaded by config.Load or
	// built from config.Defaults(). Build reads the framework keys the App
	// serves with: tool_timeout and tool_timeouts (a call still running
	// past its limit is answered 504; a tool_timeouts name that is no typed
	// tool fails Build without a Dispatch route), max_json_depth and
	// max_json_elements (a request body beyond them is answered 413 naming
	// the key), mask_internal_errors and close_session (see
	// config.Instance). Nil: config.Defaults().
	Config *config.Instance
	// Logger receives request errors and recovered panics. Nil: slog.Default().
	Logger *slog.Logger
	// SharedSessionState tells the environment ([framework.Base.SharedSessionState])
	// that its session state store is shared by several processes: the host
	// sets it for session.store: redis (docs/deployment.md), where any
	// replica may answer any call of a rollout, so per-rollout state kept in
	// process memory would differ from replica to replica. Zero: not shared
	// (the memory store, one process).
	SharedSessionState bool
	// AfterSeed, when set, rewrites a successful /seed_session answer. body is
	// the request body as the seed read it ({} when it was not a JSON
	// object), shared with the seed's other hooks: its bytes are not read or
	// checked again, and its tree is built only if a hook asks for it
	// ([framework.SeedBody.Value]; [framework.SeedBody.Get] reads one key
	// without it). result is the encoded answer. An error turns the seed
	// into that error's status (a 500 for a plain error). The MCP door uses
	// it to add the "mcp" key (contract d.3).
	AfterSeed func(ctx context.Context, body *framework.SeedBody, result []byte) ([]byte, error)
	// NormalizeToolName, when set, maps the name of every function_call item
	// of the /verify request's response.output before the verify handler sees
	// it; the answer still echoes the names as received. The MCP door strips
	// mcp__<instance>__ with it (contract d.7).
	NormalizeToolName func(name string) string
	// CloseSession, when set, frees the host's state of the request's
	// rollout session for POST /close_session, after the environment's
	// [framework.SessionCloser] hook (the host deletes the session's state
	// with it). Its error answers the close as a tool error would (a 500
	// for a plain error). Nil: only the hook runs.
	CloseSession func(ctx context.Context) error
	// Interceptors are the host's interceptors: they wrap every tool call
	// of the App on both doors, exactly as the environment's own
	// ([framework.Intercept], same rules for ordering among themselves,
	// panics, timeouts and concurrency), but outside all of the
	// environment's, so that they see every call the environment's
	// interceptors refuse too, with the status its client is answered
	// ([StatusCode]). Only gymkit's per-call log line runs outside them.
	// The first is outermost. A nil entry fails Build. Nil: none. The
	// server package's metrics (gymkit_tool_calls_total and the others,
	// docs/operations.md) are one.
	Interceptors []framework.Interceptor
}

// App is one built server instance: its routes compiled once, ready to serve
// plain HTTP ([App.Handler]) and to be exposed over MCP by the host. It is
// immutable and safe for concurrent use after Build returns.
type App struct {
	a hostlink.App
}

// Build prepares srv to serve: it gives [framework.Base] the instance name
// and logger, runs the [framework.Provisioner] hook (so Routes and Tools may
// use what it loaded), then calls srv.Routes once and compiles the routes.
// srv must already hold its decoded config. Build returns one error listing
// every registration problem (bad paths, unsupported request types,
// duplicates, a second Dispatch) and refuses a server without Verify; a
// Provision error is returned wrapped.
func Build(ctx context.Context, srv framework.Server, opts Options) (*App, error) {
	o := hostlink.Options{Name: opts.Name, Config: opts.Config, Logger: opts.Logger, SharedSessionState: opts.SharedSessionState,
		NormalizeToolName: opts.NormalizeToolName, CloseSession: opts.CloseSession}
	if opts.AfterSeed != nil {
		o.AfterSeed = opts.AfterSeed
	}
	if opts.Interceptors != nil {
		o.Interceptors = opts.Interceptors
	}
	a, err := hostlink.Build(ctx, srv, o)
	if err != nil {
		return nil, err
	}
	return &App{a: a}, nil
}

// Server returns the server value the App was built from.
func (a *App) Server() framework.Server { return a.a.Server().(framework.Server) }

// Name returns the instance name given to Build.
func (a *App) Name() string { return a.a.Name() }

// Tools returns copies of the typed tools ([framework.Post]) in registration
// order: the "harvested" list a Tools hook receives.
func (a *App) Tools() []framework.Tool { return a.a.Tools().([]framework.Tool) }

// CatchAll returns the dispatcher's tool minter, or nil without
// [framework.Dispatch].
func (a *App) CatchAll() *framework.CatchAll {
	c, _ := a.a.CatchAll().(*framework.CatchAll)
	return c
}

// ExposedTools returns copies of the tools the server's Tools hook
// ([framework.ToolsProvider]) chose, in its order, or the typed tools
// without a hook: what the MCP door exposes before mcp.tools narrows it,
// what the metrics label and what /openapi.json lists of a dispatcher's
// tools. A nil or empty answer is returned as the hook gave it (it exposes
// nothing).
//
// The hook is called here only, once per App (the first call; later calls
// return the same answer), and a panic in it is the error "the Tools hook
// panicked: <value>", with no tools: a host that needs the answer (the MCP
// door, the metrics, /openapi.json for a dispatcher) fails its startup with
// it. Safe for concurrent use.
func (a *App) ExposedTools() ([]framework.Tool, error) {
	ts, err := a.a.ExposedTools()
	tools, _ := ts.([]framework.Tool)
	return tools, err
}

// HasMiddleware reports whether the server added HTTP middleware with
// Router.Use (which the MCP door would skip).
func (a *App) HasMiddleware() bool { return a.a.HasMiddleware() }

// Handler returns the instance's HTTP handler: the tool routes, /seed_session,
// /verify, /aggregate_metrics, /close_session (see [framework.SessionCloser]),
// GET / ({"status":"ok"}), GET /reverify_mode, FastAPI's 404/405/307
// answers, /ng-rollout/<id>/ prefix stripping (contract a.2) and panic
// recovery. Session cookies, body limits and /mcp are the host's layers
// around it.
func (a *App) Handler() http.Handler { return a.a.Handler() }

// MaskError applies mask_internal_errors ([Options.Config]) to an error that
// a door answers itself, outside the tool call (the MCP door's encoding
// failures and escaped panics): with masking on, a 500 error becomes one whose
// detail is "Internal error (id <id>)", the id logged with err and attrs
// (slog key-value pairs); any other error, an error already masked or
// mapped by the error policy, and every error with masking off, is
// returned as is (a nil *App masks nothing). Safe for concurrent use.
func (a *App) MaskError(ctx context.Context, err error, attrs ...any) error {
	if a == nil {
		return err
	}
	return a.a.MaskError(ctx, err, attrs...)
}

// SeedSessionSchema returns the JSON Schema of the environment's
// /seed_session body, generated from the request type given to
// [framework.SeedSession] as a tool's inputSchema is (a struct's fields,
// titles, "required"; a dict body's
// {"type":"object","additionalProperties":true}), or nil when the server
// keeps the default seed (any JSON object, NeMo's BaseSeedSessionRequest)
// or takes [framework.NoBody]. The bytes are shared: do not modify them.
// Safe for concurrent use.
func (a *App) SeedSessionSchema() json.RawMessage { return a.a.SeedSessionSchema() }

// VerifySchemas returns the JSON Schemas of the environment's own /verify
// request and response types (those given to [framework.Verify]), generated
// as tool schemas are: the embedded [framework.VerifyRequest]'s
// responses_create_params and response, or [framework.VerifyResponse]'s
// responses_create_params, response and reward, first, then the
// environment's fields. responses_create_params and response are described
// from the Go types' fields only (their full rules are NeMo's models,
// [framework.ResponseCreateParams] and [framework.Response]), and the
// generated schema does not mark reward as required although every answer
// carries it; a host documenting /verify merges NeMo's base models in (the
// server package's /openapi.json does). Either is nil when its type cannot
// be described. The bytes are shared: do not modify them. Safe for
// concurrent use.
func (a *App) VerifySchemas() (request, response json.RawMessage) { return a.a.VerifySchemas() }

// Lookup returns the factory registered under name ([framework.Register]),
// or an error that lists the registered names.
func Lookup(name string) (framework.Factory, error) {
	f, err := hostlink.Lookup(name)
	if err != nil {
		return nil, err
	}
	return f.(framework.Factory), nil
}

// Names returns the registered server type names, sorted.
func Names() []string { return hostlink.Names() }

// AggregateMetrics computes NeMo's /aggregate_metrics answer for a list of
// verify responses (each a JSON object carrying _ng_task_index and
// _ng_rollout_index), with srv's ComputeMetrics and KeyMetrics hooks
// (python-compat section 1). The result is the ordered object
// {"group_level_metrics":[...],"agent_metrics":{...},"key_metrics":{...}}.
// A missing index is an error whose text is Python's, e.g.
// KeyError('_ng_rollout_index') (a 500 on the wire).
func AggregateMetrics(ctx context.Context, srv framework.Server, verifyResponses []framework.Value) (framework.Value, error) {
	v, err := hostlink.AggregateMetrics(ctx, srv, verifyResponses)
	res, _ := v.(framework.Value)
	return res, err
}
