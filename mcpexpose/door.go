package mcpexpose

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/framework/host"
	"github.com/gymkit/gymkit/internal/buildinfo"
	"github.com/gymkit/gymkit/session"
)

// Wire constants of the NeMo Gym contract (d.3).
const (
	// TokenHeader is the HTTP header that carries the session token on
	// tools/call and tools/list.
	TokenHeader = "X-NeMo-Gym-Session-Token"
	// URLPath is the path the door is served at, and the url_path of the
	// "mcp" seed key.
	URLPath = "/mcp"
	// SeedKey is the key the door adds to a /seed_session answer.
	SeedKey = "mcp"
)

// Options configure [New].
type Options struct {
	// Config is the instance's configuration: loaded by config.Load, or
	// config.Defaults() with Name set; its values are used as they are.
	// Required, with its Name. The door reads:
	//   - Name, the instance name: the MCP server name (serverInfo.name by
	//     default, the "server_name" of the seed key), bound into every
	//     session token, and the prefix verify-time normalization strips
	//     (mcp__<Name>__); ServerType only appears in logs and startup
	//     errors;
	//   - Host: a loopback host (localhost, 127.0.0.0/8, [::1]) turns on
	//     DNS-rebinding protection: a request whose Host (or Origin, when
	//     present) is neither a loopback name nor in mcp_allowed_hosts is
	//     refused with 403;
	//   - MCPAllowedHosts (mcp_allowed_hosts): further Host/Origin names
	//     that the DNS-rebinding check accepts, for proxies: "name" accepts
	//     any port, "name:port" that port only, "*" any host; a non-empty
	//     list turns the check on whatever address the instance binds;
	//   - CORS.AllowedOrigins (cors.allowed_origins): origins that the
	//     DNS-rebinding check accepts in Origin, as the CORS layer in front
	//     of the door allows their browsers; they do not turn the check on,
	//     and Host is still checked;
	//   - MaxBodyBytes (413 beyond, as a JSON-RPC error), MaxJSONDepth and
	//     MaxJSONElements (413 beyond, naming the key) for /mcp bodies;
	//   - MCP, the mcp block: mcp.tools (an allow-list: a tool it does not
	//     name is absent from tools/list and answered by tools/call exactly
	//     as a nonexistent one, and is never put in a session token; names
	//     that are not exposed tools are ignored, and logged once by
	//     Attach, a warning naming each with the closest exposed name; a
	//     session token's allow-list narrows it further), mcp.server_info
	//     (the initialize answer's serverInfo and instructions),
	//     mcp.coerce_json_strings (argument repair: a top-level field whose
	//     input schema asks for an array or an object, and not a string,
	//     and whose value is a string starting with [ or { that parses as
	//     JSON gets the decoded value before validation; each repair is
	//     logged at debug and counted, [Door.ArgumentRepairs]), mcp.stateful
	//     (MCP sessions: initialize answers an Mcp-Session-Id that later
	//     requests echo, GET opens the session's stream, DELETE ends it; a
	//     session belongs to the principal of its initialize,
	//     framework.PrincipalOf, and any other principal's request with its
	//     id, an unknown id and an idled out one answer 404 -32600 "session
	//     not found"; tools can then ask the client, framework.Elicit and
	//     framework.Confirm, and notifications/cancelled cancels a running
	//     call's context; a tools/call without a session token runs in a
	//     rollout session of the MCP session's own; a session lives in this
	//     process only), mcp.session_idle_timeout,
	//     mcp.max_sessions_per_principal (one more initialize answers 429
	//     with Retry-After), mcp.confirm_timeout and mcp.lean (false: every
	//     request is served through the go-sdk; true, a stateless door
	//     answers the common requests itself, one tools/call, tools/list,
	//     initialize or ping, and notifications/initialized, of the shapes
	//     agents send, with the same bytes, and hands everything else to the
	//     go-sdk, see docs/mcp.md, Transport; a stateful door always serves
	//     through the go-sdk).
	Config *config.Instance
	// Secret signs the session tokens: the instance's session_secret (its
	// first entry, when it is a list; mcp_token_secret is its older name).
	// The token key is session.DeriveKey(Secret, "gymkit/mcpexpose session
	// token v1"), distinct from the session cookie's key. Use at least 32
	// random bytes (the host refuses weaker ones, see session.CheckSecret;
	// New does not judge), and the same secret on every replica of an
	// instance. Nil or empty: a random secret for this process, with a
	// warning, so tokens stop working when the process restarts and are not
	// valid on other replicas.
	Secret []byte
	// OldSecrets are earlier secrets whose tokens still verify (the rest of
	// the session_secret list), for rotation: tokens are minted under
	// Secret only. Empty entries are ignored; nil: none.
	OldSecrets [][]byte
	// Sessions is the instance's session manager: the door runs every tool
	// call in the session its token names (session.WithID). Required.
	Sessions *session.Manager
	// Logger receives startup warnings, failed calls (5xx) and recovered
	// panics, with the attribute door=mcp; give it the instance's logger
	// (which carries the instance name). Nil: slog.Default().
	Logger *slog.Logger
}

// Door serves one instance's tools over MCP: Streamable HTTP on the
// official go-sdk, stateless with JSON answers by default (a call whose tool
// reports progress is streamed, see framework.ReportProgress), stateful with
// mcp.stateful. Make it with [New] before
// host.Build (its [Door.AfterSeed] and [Door.NormalizeToolName] are
// Build options), then [Door.Attach] the built App before serving, and
// mount [Door.Mount] (or [Door.Handler]) inside the session middleware.
//
// After Attach returns, a Door is immutable and safe for concurrent use.
type Door struct {
	instance   string
	serverType string
	prefix     string // "mcp__<instance>__"
	sessions   *session.Manager
	log        *slog.Logger
	signer     *signer
	maxBody    int64
	jsonLimits host.JSONLimits
	hosts      *hostPolicy // nil: no DNS-rebinding check
	allow      []string    // mcp.tools; nil: every exposed tool
	info       config.MCPServerInfo
	coerce     bool
	repairs    atomic.Uint64 // arguments decoded from JSON strings

	stateful       bool
	mcpSessions    *mcpSessions // stateful only
	confirmTimeout time.Duration
	exchanges      sync.Map // stateful: exchange number -> *exchange, while it is served
	exchangeSeq    atomic.Uint64
	sdkStream      http.Handler      // stateless: the SSE-mode handler for calls with a progress token
	lean           bool              // stateless and mcp.lean: the lean path is on (lean.go)
	initResults    map[string][]byte // lean: the initialize results by protocol version
	leanAnswers    atomic.Uint64     // requests the lean path answered

	app     *host.App
	filter  func(context.Context, *framework.SeedBody) ([]string, error) // nil: every seed is unrestricted
	tools   map[string]*exposed
	sorted  []*exposed // exposed tools sorted by name
	listAll []byte     // the unrestricted tools/list result, pre-rendered
	unknown string     // ". Available tools: ['a', 'b']"
	sdk     http.Handler
}

// exposed is one tool as the door serves it.
type exposed struct {
	tool      framework.Tool
	sdkTool   *mcp.Tool
	json      []byte          // the tools/list entry, pre-rendered
	hasOutput bool            // an outputSchema is declared
	repair    map[string]bool // fields whose JSON-string values are decoded (CoerceJSONStrings)
}

// New returns a Door for one instance. It fails if Instance or Sessions is
// missing. It logs a warning when Secret is empty (see [Options.Secret]).
// The Door serves nothing until [Door.Attach].
func New(opts Options) (*Door, error) {
	if opts.Config == nil || opts.Config.Name == "" {
		return nil, errors.New("mcpexpose: Options.Config is required: the config.Instance of the instance, with its Name")
	}
	if opts.Sessions == nil {
		return nil, errors.New("mcpexpose: Options.Sessions is required")
	}
	cfg := opts.Config
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	secret := opts.Secret
	if len(secret) == 0 {
		secret = session.RandomSecret()
		log.Warn("session_secret / mcp_token_secret is unset: MCP session tokens are signed with a random per-process secret; "+
			"they stop working when this process restarts and are not valid on other replicas",
			"door", "mcp")
	}
	secrets := [][]byte{secret}
	for _, old := range opts.OldSecrets {
		if len(old) > 0 {
			secrets = append(secrets, old)
		}
	}
	d := &Door{
		instance:   cfg.Name,
		serverType: cfg.ServerType,
		prefix:     "mcp__" + cfg.Name + "__",
		sessions:   opts.Sessions,
		log:        log,
		signer:     newSigner(secrets...),
		maxBody:    cfg.MaxBodyBytes,
		jsonLimits: host.JSONLimits{MaxDepth: cfg.MaxJSONDepth, MaxElements: cfg.MaxJSONElements},
		allow:      cfg.MCP.Tools,
		info:       cfg.MCP.ServerInfo,
		coerce:     cfg.MCP.CoerceJSONStrings,

		stateful:       cfg.MCP.Stateful,
		confirmTimeout: cfg.MCP.ConfirmTimeout,
		lean:           !cfg.MCP.Stateful && cfg.MCP.Lean,
	}
	if cfg.MCP.Stateful {
		d.mcpSessions = newMCPSessions(cfg.MCP.SessionIdleTimeout, cfg.MCP.MaxSessionsPerPrincipal)
	}
	if IsLoopback(cfg.Host) || len(cfg.MCPAllowedHosts) > 0 {
		d.hosts = newHostPolicy(cfg.MCPAllowedHosts)
		if cfg.CORS != nil {
			d.hosts.allowOrigins(cfg.CORS.AllowedOrigins)
		}
	}
	return d, nil
}

// NormalizeToolName strips this instance's MCP namespace from a tool name
// as MCP-native agents record it (contract d.7): "mcp__<instance>__<tool>"
// becomes "<tool>"; any other name, another server's prefix included, is
// returned unchanged. Pass it as host.Options.NormalizeToolName, only
// when the instance exposes its tools over MCP.
func (d *Door) NormalizeToolName(name string) string {
	if rest, ok := strings.CutPrefix(name, d.prefix); ok {
		return rest
	}
	return name
}

// NormalizeToolName is the contract's module-level normalize_tool_name
// (d.7): a name that does not start with "mcp__" is unchanged; with a
// serverName, "mcp__<serverName>__" is stripped when present; with an
// empty serverName, everything up to the first "__" after "mcp__" is
// stripped ("mcp__store__ns__tool" → "ns__tool"), and a name with no
// second separator ("mcp__dangling") is unchanged.
func NormalizeToolName(name, serverName string) string {
	rest, ok := strings.CutPrefix(name, "mcp__")
	if !ok {
		return name
	}
	if serverName != "" {
		if tool, ok := strings.CutPrefix(rest, serverName+"__"); ok {
			return tool
		}
		return name
	}
	if _, tool, ok := strings.Cut(rest, "__"); ok {
		return tool
	}
	return name
}

// Attach exposes app's tools: it runs the startup checks, takes the tools
// the server's Tools hook chose (host.App.ExposedTools; the hook is
// framework.ToolsProvider, on the outer server value; default: every typed
// tool) and builds the MCP server. app must have been
// built with this Door's AfterSeed and NormalizeToolName, under the same
// instance name.
//
// Attach refuses, with one error naming every offending route and the
// reason: a server with HTTP middleware (Router.Use; "non-Gym middleware",
// which direct dispatch would skip); a tool name that does not match
// [A-Za-z0-9_-]+ ("does not match"); a reserved name (verify, seed_session,
// aggregate_metrics, mcp; "reserved"); two tools of one name ("Duplicate
// MCP tool name"); a Tool value not made by framework.Post or CatchAll.Tool
// ("cannot be dispatched directly"); an inputSchema or outputSchema that
// is not a JSON object schema ("type": "object"); a panicking Tools hook.
// It logs a warning (containing "catch-all") when the server has a
// Dispatch route but no exposed tool dispatches through it, and once
// (naming the tools) when mcp__<instance>__<tool> is longer than 64
// characters for any exposed tool.
//
// A nil or empty Tools answer exposes nothing: /mcp still answers and the
// seed still carries the "mcp" key. Attach must return before the door
// serves; it can be called once.
func (d *Door) Attach(app *host.App) error {
	if app == nil {
		return errors.New("mcpexpose: Attach(nil)")
	}
	if d.app != nil {
		return fmt.Errorf("mcpexpose: instance %q: Attach called twice", d.instance)
	}
	if app.Name() != d.instance {
		return fmt.Errorf("mcpexpose: Attach: App of instance %q given to the door of instance %q", app.Name(), d.instance)
	}
	var errs []error
	if app.HasMiddleware() {
		errs = append(errs, errors.New("the server installs non-Gym middleware (Router.Use), which direct MCP dispatch "+
			"would silently skip: wrap tool calls with framework.Intercept instead (it runs on both doors), or set expose_tools_over_mcp: false"))
	}
	tools, err := app.ExposedTools()
	if err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, d.check(tools)...)
	if len(errs) > 0 {
		what := fmt.Sprintf("instance %q", d.instance)
		if d.serverType != "" {
			what += fmt.Sprintf(" (server type %q)", d.serverType)
		}
		return fmt.Errorf("mcpexpose: %s cannot expose its tools over MCP: %w", what, errors.Join(errs...))
	}
	if err := d.build(app, tools); err != nil {
		return fmt.Errorf("mcpexpose: instance %q: %w", d.instance, err)
	}
	return nil
}

// Tools returns the exposed tools, sorted by name (what an unrestricted
// tools/list shows): the Tools hook's answer narrowed by mcp.tools. It
// is nil before Attach.
func (d *Door) Tools() []framework.Tool {
	if d.sorted == nil {
		return nil
	}
	out := make([]framework.Tool, len(d.sorted))
	for i, e := range d.sorted {
		out[i] = e.tool
	}
	return out
}

// Handler returns the /mcp endpoint itself (d), for a host that routes
// /mcp, /mcp/ and /ng-rollout/<id>/mcp to it; [Door.Mount] does that
// routing. Before Attach it answers 503.
func (d *Door) Handler() http.Handler { return d }

// Mount returns a handler that serves /mcp, /mcp/..., and the same under
// /ng-rollout/<id>/ (the prefix stripped, as host.StripRolloutPrefix
// does), with the door, without redirects, and passes every other request
// to next unchanged (typically the body limit around App.Handler). Put the
// session middleware around the result, so that /mcp answers carry the
// session cookie like every other answer.
func (d *Door) Mount(next http.Handler) http.Handler {
	door := host.StripRolloutPrefix(d)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isMCPPath(r.URL.Path) {
			door.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// isMCPPath reports whether p is /mcp or below it, possibly under a valid
// /ng-rollout/<id>/ prefix.
func isMCPPath(p string) bool {
	if rest, ok := strings.CutPrefix(p, "/ng-rollout/"); ok {
		id, tail, found := strings.Cut(rest, "/")
		if !found || !validRolloutID(id) {
			return false
		}
		p = "/" + tail
	}
	return p == URLPath || strings.HasPrefix(p, URLPath+"/")
}

// validRolloutID matches ^[A-Za-z0-9][A-Za-z0-9._-]*$, the rollout ids
// host.StripRolloutPrefix strips.
func validRolloutID(id string) bool {
	if id == "" || !isAlnum(id[0]) {
		return false
	}
	for i := 1; i < len(id); i++ {
		if c := id[i]; !isAlnum(c) && c != '.' && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// gymkitVersion is the gymkit module version in this binary, for
// serverInfo.version: the version gymkit --version prints.
var gymkitVersion = buildinfo.Version

// logAttrs logs msg with the door's attribute (door=mcp) and args. The
// instance attribute is the host logger's.
func (d *Door) logAttrs(ctx context.Context, msg string, level slog.Level, args ...any) {
	d.log.Log(ctx, level, msg, append([]any{"door", "mcp"}, args...)...)
}
