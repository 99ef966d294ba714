package server

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sync/atomic"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/framework/host"
	"github.com/gymkit/gymkit/session"
)

// InstanceOptions configure [NewInstance] beyond the instance's
// configuration (its config.Instance): what is not configuration.
type InstanceOptions struct {
	// Sessions overrides the session manager (tests, shared stores). nil
	// means the manager the configuration's session block names, with the
	// cookie [CookieName](ServerType, Name), session_lifetime and
	// session_idle_timeout.
	Sessions *session.Manager
	// Logger receives the instance's request errors, recovered panics and
	// whatever extensions log, with an "instance" attribute added. nil means
	// slog.Default().
	Logger *slog.Logger
	// Extensions add to the instance, in order; see [Extension].
	Extensions []Extension
}

// An Extension adds to every instance a [Host] builds (or to one instance,
// through [InstanceOptions]): it may set the framework's hooks before the
// routes are built, wrap the built routes or mount more routes beside them,
// and announce its endpoints on the ready line with [Instance.Announce]. The
// MCP door (/mcp, when expose_tools_over_mcp is true) is meant to be one:
// Configure sets host.Options.AfterSeed (the "mcp" key of the seed
// answer) and NormalizeToolName, Mount mounts /mcp.
//
// Both functions are optional and are called once per instance, in the order
// of the extensions, before the instance serves and never concurrently with
// requests; inst may be kept for reading (closures that run per request may
// read inst.App, set by then). An error stops the build: [NewInstance]
// returns it wrapped with the instance and extension names.
type Extension struct {
	// Name names the extension in errors ("mcp").
	Name string
	// Configure runs before host.Build, with inst.App still nil: it may
	// set the hooks of opts (AfterSeed, NormalizeToolName). A hook already
	// set by an earlier extension should be chained, not dropped.
	Configure func(inst *Instance, opts *host.Options) error
	// Mount runs after host.Build. next serves everything so far: the
	// App's routes (host.App.Handler, which already strips
	// /ng-rollout/<id>/ prefixes) wrapped by the earlier extensions; the
	// returned handler replaces it. The host then puts two layers around the
	// last one, so every route an extension mounts gets them too: the body
	// limit (413) inside, and the session middleware (the rollout's
	// Set-Cookie on every answer, session.ID in the request context)
	// outermost. Routes mounted here answer under /ng-rollout/<id>/ only if
	// Mount wraps them with host.StripRolloutPrefix.
	Mount func(inst *Instance, next http.Handler) (http.Handler, error)
	// OwnsBody, when set, reports the requests whose body limit the
	// extension enforces itself, with its own 413 answer: the host's limit
	// lets them through. The MCP door owns /mcp (its 413 is a JSON-RPC
	// error, contract d.5). Nil: none.
	OwnsBody func(r *http.Request) bool
}

// ownBody combines the extensions' OwnsBody functions (nil if none has one).
func ownBody(exts []Extension) func(*http.Request) bool {
	var fs []func(*http.Request) bool
	for _, e := range exts {
		if e.OwnsBody != nil {
			fs = append(fs, e.OwnsBody)
		}
	}
	if len(fs) == 0 {
		return nil
	}
	return func(r *http.Request) bool {
		for _, f := range fs {
			if f(r) {
				return true
			}
		}
		return false
	}
}

// Endpoint is a named path of an instance, announced on its ready line as
// " <Name>=<base URL><Path>" (for example " mcp=http://127.0.0.1:8000/mcp").
type Endpoint struct {
	// Name is the ready-line key: a short word without spaces or "=".
	Name string
	// Path is the endpoint's path on the instance, starting with "/".
	Path string
}

// Instance is one built resources-server instance: its App (routes), its
// session manager and its complete HTTP handler. A [Host] binds it to its
// host:port; a test can serve [Instance.Handler] on an httptest.Server.
//
// An Instance is immutable once NewInstance has returned (extensions call
// Announce only while it runs), and safe for concurrent use. Its fields are
// read-only.
type Instance struct {
	// Name is the instance name (the top-level YAML key).
	Name string
	// ServerType is the registered server type (the key under resources_servers).
	ServerType string
	// Config is the instance's configuration (given to NewInstance): every
	// framework key the instance serves with.
	Config config.Instance
	// App is the server's built routes (host.Build).
	App *host.App
	// Sessions is the instance's rollout session manager.
	Sessions *session.Manager
	// Logger is the instance's logger, with its "instance" attribute.
	Logger *slog.Logger

	handler   http.Handler
	secrets   [][]byte // the instance secrets (never empty): the first signs
	endpoints []Endpoint
	url       string // base URL once a Host has bound it

	mcpTools func() []framework.Tool // the MCP door's listed tools; nil without MCP

	draining   atomic.Bool   // Drain was called
	health     health        // readiness transitions, for logging
	mcpRepairs func() uint64 // the MCP door's argument repair count; nil without MCP
	closeStore func() error  // releases the session store the config opened (nil: none)
}

// CookieName returns the session cookie name of an instance:
// "<server type>___<instance name>", e.g.
// "example_mcp_weather___example_mcp_weather". NeMo Gym names its cookie
// "<Python class name>___<instance name>" (get_session_middleware_key in
// nemo_gym/server_utils.py, e.g.
// "ExampleMCPWeatherResourcesServer___example_mcp_weather"): the part after
// "___" is the same, and the server type stands where a Go server has no
// Python class. Agents replay the cookie without reading its name.
func CookieName(serverType, name string) string { return serverType + "___" + name }

// NewInstance builds one instance from its configuration, cfg: loaded by
// config.Load (gymkit serve, rollout, servertest.New) or built from
// config.Defaults() with Name and ServerType set; its values are used as
// they are (NewInstance fills in no default). It makes the session manager,
// runs the extensions' Configure functions, builds srv's App (host.Build,
// which runs the Provision hook and calls Routes), runs the extensions'
// Mount functions in order, and wraps the result in the body limit (except
// for the requests an extension limits itself, see Extension.OwnsBody) and
// then the session middleware (outermost, so that even a 413 carries the
// rollout's cookie). srv must already hold its decoded config
// (config.Instance.Decode). NewInstance binds nothing.
//
// The error names the instance; it is a host.Build error (a route
// registration problem, no /verify, a Provision failure), an extension's
// error, a missing name or server type, or a configuration without its
// defaults (a limit or timeout that is not positive).
func NewInstance(ctx context.Context, srv framework.Server, cfg config.Instance, opts InstanceOptions) (*Instance, error) {
	name, serverType := cfg.Name, cfg.ServerType
	if name == "" || serverType == "" {
		return nil, fmt.Errorf("server: NewInstance: the instance name and server type are required (config.Instance's Name and ServerType)")
	}
	if err := checkDefaults(cfg); err != nil {
		return nil, fmt.Errorf("instance %q (server type %q): %w", name, serverType, err)
	}
	limit, bodyTimeout := cfg.MaxBodyBytes, cfg.BodyReadTimeout
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	log = log.With("instance", name)
	fail := func(ext string, err error) error {
		if ext != "" {
			err = fmt.Errorf("extension %q: %w", ext, err)
		}
		return fmt.Errorf("instance %q (server type %q): %w", name, serverType, err)
	}
	secrets, err := instanceSecrets(cfg, log)
	if err != nil {
		return nil, fail("", err)
	}
	var inst *Instance
	var metrics *instanceMetrics // metrics.enabled: docs/operations.md
	if cfg.Metrics.Enabled {
		metrics = newInstanceMetrics(name, serverType, cfg.Metrics, func() bool { return inst.Draining() })
	}
	sm := opts.Sessions
	var closeStore func() error
	built := false
	defer func() { // a failed build releases the store it opened (no leaked pool)
		if !built && closeStore != nil {
			_ = closeStore()
		}
	}()
	if sm == nil {
		state, closer, err := stateStore(ctx, cfg, log)
		if err != nil {
			return nil, fail("", err)
		}
		closeStore = closer
		sopts := session.Options{CookieName: CookieName(serverType, name), Secrets: secrets,
			Lifetime: cfg.SessionLifetime, IdleTimeout: cfg.SessionIdleTimeout, State: state}
		if sm, err = session.NewManager(sopts); err != nil {
			return nil, fail("", err)
		}
		if metrics != nil { // the store the options chose, timed
			sopts.State = newMeteredStore(sm.State(), metrics)
			if sm, err = session.NewManager(sopts); err != nil {
				return nil, fail("", err)
			}
		}
	}
	inst = &Instance{Name: name, ServerType: serverType, Config: cfg,
		Sessions: sm, Logger: log, secrets: secrets, closeStore: closeStore}
	inflight := max(cfg.MaxInflightBodyBytes, limit+1) // a body at the limit always fits

	// The MCP door goes first among the extensions, when the config asks.
	exts := opts.Extensions
	if inst.Config.ExposeToolsOverMCP {
		exts = append([]Extension{mcpExtension()}, exts...)
	}
	// GET /openapi.json and /docs go last, to see every route.
	if inst.Config.OpenAPI {
		exts = append(slices.Clip(exts), openAPIExtension())
	}
	fopts := host.Options{Name: name, Config: &inst.Config, Logger: log,
		SharedSessionState: opts.Sessions == nil && cfg.Session.Store == config.SessionStoreRedis}
	if metrics != nil {
		metrics.watchStore(baseStore(sm.State()))
		fopts.Interceptors = append(fopts.Interceptors, metrics.interceptor()) // every tool call feeds the metrics
	}
	fopts.CloseSession = func(ctx context.Context) error { return closeSession(ctx, sm) }
	for _, ext := range exts {
		if ext.Configure != nil {
			if err := ext.Configure(inst, &fopts); err != nil {
				return nil, fail(ext.Name, err)
			}
		}
	}
	access, err := accessLayers(cfg, srv, inst)
	if err != nil {
		return nil, fail("", err)
	}
	app, err := host.Build(ctx, srv, fopts)
	if err != nil {
		return nil, fail("", err)
	}
	inst.App = app
	if metrics != nil {
		if err := metrics.setTools(app, inst.Config.ExposeToolsOverMCP); err != nil {
			return nil, fail("", err)
		}
	}
	h := app.Handler()
	for _, ext := range exts {
		if ext.Mount != nil {
			if h, err = ext.Mount(inst, h); err != nil {
				return nil, fail(ext.Name, err)
			}
		}
	}
	if metrics != nil && inst.mcpRepairs != nil {
		metrics.watchRepairs(inst.mcpRepairs)
	}
	inst.handler = access(opsRoutes(inst, metrics, guardBody(bodyTimeout, limit, newByteBudget(inflight), sm.Middleware(limitBody(limit, ownBody(exts), h)))))
	if metrics != nil {
		inst.handler = metrics.observeHTTP(inst.handler)
	}
	built = true
	return inst, nil
}

// checkDefaults refuses a configuration whose limits and timeouts are not
// positive: a config.Instance made without config.Load or config.Defaults(),
// whose zero values would turn a limit off.
func checkDefaults(cfg config.Instance) error {
	for _, k := range []struct {
		key string
		bad bool
	}{
		{"max_body_bytes", cfg.MaxBodyBytes <= 0},
		{"body_read_timeout", cfg.BodyReadTimeout <= 0},
		{"max_inflight_body_bytes", cfg.MaxInflightBodyBytes <= 0},
		{"max_json_depth", cfg.MaxJSONDepth <= 0},
		{"max_json_elements", cfg.MaxJSONElements <= 0},
		{"session_idle_timeout", cfg.SessionIdleTimeout <= 0},
		{"session_lifetime", cfg.SessionLifetime <= 0},
	} {
		if k.bad {
			return fmt.Errorf("%s is not positive: build the config.Instance with config.Load, or start from config.Defaults()", k.key)
		}
	}
	return nil
}

// closeSession is the host's part of POST /close_session: it deletes the
// state of the request's rollout session (after the environment's
// framework.SessionCloser hook ran). A request always has a session (the
// middleware makes one), so a close without a cookie deletes the state of a
// fresh session: nothing.
func closeSession(ctx context.Context, sm *session.Manager) error {
	id := session.ID(ctx)
	if id == "" {
		return nil
	}
	return sm.State().Delete(ctx, id)
}

// Handler returns the instance's complete HTTP handler: its routes, the
// extensions' routes, the body limit, the session middleware and, outermost,
// the body read deadline (body_read_timeout from when the headers were read,
// cleared once the body is read: a body not received in time is answered
// 408 on the HTTP door and the connection closed) and the 413 drain (after
// a 413 the rest of the body is read and discarded, within the deadline and
// up to twice max_body_bytes, at least max_body_bytes + [MinDrainBytes], so
// that a client that writes its whole body before reading sees the 413).
// The bodies being read and held at once are bounded by
// max_inflight_body_bytes (raised to max_body_bytes + 1): a body reserves its
// Content-Length when first read (a chunked body, as it is read) until its
// handler returns; one that finds no room within [InflightWait] is answered
// 503 with Retry-After: 1 ({"detail":"Server busy: ...
// max_inflight_body_bytes ..."}; on /mcp the JSON-RPC error form).
// Request logging and the header timeout belong to the [Host] that serves
// it.
func (in *Instance) Handler() http.Handler { return in.handler }

// Announce adds an endpoint to the instance's ready line (" name=<base
// URL>path", in call order). Only extensions call it, from Configure or
// Mount.
func (in *Instance) Announce(name, path string) {
	in.endpoints = append(in.endpoints, Endpoint{Name: name, Path: path})
}

// Endpoints returns the endpoints announced by extensions, in order (nil when
// there are none).
func (in *Instance) Endpoints() []Endpoint { return slices.Clone(in.endpoints) }

// URL returns the instance's base URL, "http://<host>:<port>" with the
// configured host (IPv6 hosts in brackets) and the bound port, once a [Host]
// has bound it; "" otherwise.
func (in *Instance) URL() string { return in.url }

// readyLine is "<name> <url>" followed by " <endpoint>=<url><path>" for each
// announced endpoint.
func (in *Instance) readyLine() string {
	line := in.Name + " " + in.url
	for _, e := range in.endpoints {
		line += " " + e.Name + "=" + in.url + e.Path
	}
	return line
}

// instanceSecrets returns the instance secrets of cfg (session_secret, or
// its older name mcp_token_secret), first the one that signs. Unset, it is
// one random secret for this process, with a warning when the instance
// exposes MCP (its tokens then die with the process). Each configured
// secret must pass session.CheckSecret, unless allow_weak_secret is true
// (then a warning); the error names the key and the rule, never the secret.
func instanceSecrets(cfg config.Instance, log *slog.Logger) ([][]byte, error) {
	if len(cfg.SessionSecrets) == 0 {
		if cfg.ExposeToolsOverMCP {
			log.Warn("session_secret / mcp_token_secret is unset: the session cookies and MCP session tokens are signed with a random per-process secret; " +
				"they stop working when this process restarts and are not valid on other replicas")
		}
		return [][]byte{session.RandomSecret()}, nil
	}
	out := make([][]byte, len(cfg.SessionSecrets))
	for i, s := range cfg.SessionSecrets {
		out[i] = []byte(s)
		err := session.CheckSecret(out[i])
		if err == nil {
			continue
		}
		key := "session_secret"
		if len(cfg.SessionSecrets) > 1 {
			key = fmt.Sprintf("session_secret[%d]", i)
		}
		if !cfg.AllowWeakSecret {
			return nil, fmt.Errorf("%s (or mcp_token_secret): %w; allow_weak_secret: true accepts it, for development only", key, err)
		}
		log.Warn(key + " (or mcp_token_secret) is weak, accepted because allow_weak_secret is true (development only): " + err.Error())
	}
	return out, nil
}

// limitBody answers 413 at once when the declared Content-Length exceeds n,
// and otherwise caps the body at n bytes (http.MaxBytesReader: framework
// turns the read error into the same 413).
func limitBody(n int64, skip func(*http.Request) bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if skip != nil && skip(r) {
			next.ServeHTTP(w, r)
			return
		}
		if r.ContentLength > n {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			_, _ = fmt.Fprintf(w, `{"detail":"Request body too large: limit is %d bytes"}`, n)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, n)
		next.ServeHTTP(w, r)
	})
}
