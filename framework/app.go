package framework

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/go-chi/chi/v5"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/framework/internal/hostlink"
	"github.com/gymkit/gymkit/internal/bodyio"
	"github.com/gymkit/gymkit/internal/lax"
	"github.com/gymkit/gymkit/internal/pyjson"
)

// buildOptions are framework/host's Options (documented there), as build
// reads them.
type buildOptions struct {
	Name               string
	Config             *config.Instance // nil: config.Defaults()
	Logger             *slog.Logger
	SharedSessionState bool
	AfterSeed          func(ctx context.Context, body *SeedBody, result []byte) ([]byte, error)
	NormalizeToolName  func(name string) string
	CloseSession       func(ctx context.Context) error
	Interceptors       []Interceptor
}

// app is one built server instance (framework/host's App): its routes
// compiled once, ready to serve plain HTTP (handler) and to be exposed over
// MCP by the host. It is immutable and safe for concurrent use after build
// returns.
type app struct {
	srv      Server
	name     string
	log      *slog.Logger
	tools    []*Tool
	catchAll *dispatcher
	seed     *Tool
	verify   *verifyRoute
	mw       []func(http.Handler) http.Handler
	handler  http.Handler
	opts     buildOptions
	// The framework keys the App reads: close_session and
	// mask_internal_errors (tool_timeout(s) are the tools', max_json_* are
	// jsonLimits).
	closeSession, mask bool
	// The Tools hook's answer or its panic, from its one call (exposedTools).
	exposedOnce sync.Once
	exposed     []Tool
	exposedErr  error

	jsonLimits pyjson.Limits // resolved: both positive
}

// build is framework/host's Build (documented there).
func build(ctx context.Context, srv Server, opts buildOptions) (*app, error) {
	if srv == nil {
		return nil, errors.New("framework: Build(nil)")
	}
	cfg := config.Defaults()
	if opts.Config != nil {
		cfg = *opts.Config
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	if b, ok := srv.(baseSetter); ok {
		b.setBase(opts.Name, log, opts.SharedSessionState)
	}
	if p, ok := srv.(Provisioner); ok {
		if err := p.Provision(ctx); err != nil {
			return nil, fmt.Errorf("server %s: provision: %w", describe(srv, opts.Name), err)
		}
	}
	r := &Router{}
	srv.Routes(r)
	if r.verify == nil {
		r.errorf("no /verify route: register one with framework.Verify")
	}
	if err := errors.Join(r.errs...); err != nil {
		return nil, fmt.Errorf("server %s: %w", describe(srv, opts.Name), err)
	}
	limits, err := newToolLimits(cfg.ToolTimeout, cfg.ToolTimeouts, r.tools, r.catchAll != nil)
	if err != nil {
		return nil, fmt.Errorf("server %s: %w", describe(srv, opts.Name), err)
	}
	for i, ic := range opts.Interceptors {
		if ic == nil {
			return nil, fmt.Errorf("server %s: Options.Interceptors[%d] is nil", describe(srv, opts.Name), i)
		}
	}
	chain, err := composeChain(log, append(slices.Clip(opts.Interceptors), r.interceptors...))
	if err != nil {
		return nil, fmt.Errorf("server %s: Intercept: %w", describe(srv, opts.Name), err)
	}
	hooks := &callHooks{chain: chain, mask: cfg.MaskInternalErrors, log: log}
	if et, ok := srv.(ErrorTexter); ok {
		hooks.text = et
	}
	for _, t := range r.tools {
		t.limits, t.hooks = limits, hooks
	}
	if r.catchAll != nil {
		r.catchAll.limits, r.catchAll.hooks = limits, hooks
	}
	a := &app{srv: srv, name: opts.Name, log: log, tools: r.tools, catchAll: r.catchAll,
		seed: r.seed, verify: r.verify, mw: r.middleware, opts: opts,
		closeSession: cfg.CloseSession, mask: cfg.MaskInternalErrors,
		jsonLimits: pyjson.Limits{MaxDepth: cfg.MaxJSONDepth, MaxElements: cfg.MaxJSONElements}}
	if a.seed == nil {
		a.seed = defaultSeed()
	}
	a.handler = a.buildHandler()
	return a, nil
}

func describe(srv Server, name string) string {
	if name != "" {
		return fmt.Sprintf("%q (%T)", name, srv)
	}
	return fmt.Sprintf("%T", srv)
}

// harvested returns copies of the typed tools ([Post]) in registration
// order: the "harvested" list a Tools hook receives.
func (a *app) harvested() []Tool {
	out := make([]Tool, len(a.tools))
	for i, t := range a.tools {
		out[i] = *t
	}
	return out
}

// catchAllMinter returns the dispatcher's tool minter, or nil without
// [Dispatch].
func (a *app) catchAllMinter() *CatchAll {
	if a.catchAll == nil {
		return nil
	}
	return &CatchAll{d: a.catchAll}
}

// exposedTools returns the answer of the server's Tools hook
// ([ToolsProvider]), the only place the hook is called: once, the first
// time an App's exposed tools are asked for, the answer (or the error) kept
// for every later ask. It is what the MCP door exposes, what the metrics
// label and what /openapi.json lists of a dispatcher's tools. Without a
// hook it is the typed tools. A panic in the hook is the error "the Tools
// hook panicked: <value>".
func (a *app) exposedTools() ([]Tool, error) {
	a.exposedOnce.Do(func() {
		harvested := a.harvested()
		tp, ok := a.srv.(ToolsProvider)
		if !ok {
			a.exposed = harvested
			return
		}
		defer func() {
			if p := recover(); p != nil {
				a.exposed, a.exposedErr = nil, fmt.Errorf("the Tools hook panicked: %v", p)
			}
		}()
		a.exposed = tp.Tools(harvested, a.catchAllMinter())
	})
	return slices.Clone(a.exposed), a.exposedErr
}

func (a *app) buildHandler() http.Handler {
	mux := chi.NewMux()
	mux.Get("/", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, 200, []byte(`{"status":"ok"}`))
	})
	mux.Get("/reverify_mode", func(w http.ResponseWriter, _ *http.Request) {
		mode := "unknown"
		if rm, ok := a.srv.(ReverifyModer); ok {
			mode = rm.ReverifyMode()
		}
		b, _ := pyjson.Marshal(mode, pyjson.Python)
		writeJSON(w, 200, b)
	})
	mux.Post("/seed_session", a.seedHandler)
	mux.Post("/verify", a.verifyHandler)
	mux.Post("/aggregate_metrics", a.aggregateHandler)
	mux.Post("/close_session", a.closeHandler)
	for _, t := range a.tools {
		mux.Post(t.path, a.toolHandler(t, ""))
	}
	if a.catchAll != nil {
		t := &Tool{Name: "{tool}", path: "/{tool}", invoke: a.catchAll.invoke, catchAll: true, limits: a.catchAll.limits, hooks: a.catchAll.hooks}
		mux.Post("/{tool}", a.toolHandler(t, "tool"))
	}
	mux.NotFound(func(w http.ResponseWriter, r *http.Request) {
		if loc, ok := slashRedirect(mux, r); ok {
			w.Header().Set("Location", loc)
			w.WriteHeader(http.StatusTemporaryRedirect)
			return
		}
		writeJSON(w, 404, []byte(`{"detail":"Not Found"}`))
	})
	mux.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		// Starlette answers with the methods of the first route that matched
		// the path: a static route (registered first) before the catch-all.
		var static, param []string
		for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
			rctx := chi.NewRouteContext()
			if mux.Match(rctx, m, r.URL.Path) {
				if strings.Contains(rctx.RoutePattern(), "{") {
					param = append(param, m)
				} else {
					static = append(static, m)
				}
			}
		}
		if len(static) == 0 {
			static = param
		}
		w.Header().Set("Allow", strings.Join(static, ", "))
		writeJSON(w, 405, []byte(`{"detail":"Method Not Allowed"}`))
	})
	var h http.Handler = mux
	for i := len(a.mw) - 1; i >= 0; i-- {
		h = a.mw[i](h)
	}
	return hostlink.StripRolloutPrefix(a.recoverer(h))
}

// slashRedirect implements Starlette's redirect_slashes: a path that matches
// a route (with any method) only with its trailing slash flipped is
// redirected (307) there.
func slashRedirect(mux *chi.Mux, r *http.Request) (string, bool) {
	p := r.URL.Path
	if p == "/" || p == "" {
		return "", false
	}
	var alt string
	if strings.HasSuffix(p, "/") {
		alt = strings.TrimSuffix(p, "/")
	} else {
		alt = p + "/"
	}
	matched := false
	for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
		if mux.Match(chi.NewRouteContext(), m, alt) {
			matched = true
			break
		}
	}
	if !matched {
		return "", false
	}
	u := url.URL{Scheme: "http", Host: r.Host, Path: alt, RawQuery: r.URL.RawQuery}
	if r.TLS != nil {
		u.Scheme = "https"
	}
	return u.String(), true
}

// recoverer turns a panic outside a tool invocation (e.g. in middleware) or
// a runtime.Goexit into NeMo's 500. When the response was already started it
// cannot be replaced: the connection is aborted instead (http.ErrAbortHandler)
// so that the client never takes a truncated body for a complete one.
func (a *app) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tw := &trackingWriter{ResponseWriter: w}
		done := false
		defer func() {
			if done {
				return
			}
			p := recover()
			if p == http.ErrAbortHandler {
				panic(p)
			}
			if tw.started {
				a.log.ErrorContext(r.Context(), "panic after the response started; aborting the connection", "path", r.URL.Path, "panic", p)
				panic(http.ErrAbortHandler)
			}
			var err error = &panicError{value: p}
			if p == nil {
				// runtime.Goexit: the goroutine ends after the deferred calls,
				// so write and flush the answer now; net/http then closes the
				// connection.
				err = &panicError{value: "runtime.Goexit called"}
				w.Header().Set("Connection", "close")
			}
			a.writeError(w, r, err)
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
		}()
		next.ServeHTTP(tw, r)
		done = true
	})
}

// trackingWriter records whether the response has started.
type trackingWriter struct {
	http.ResponseWriter
	started bool
}

func (t *trackingWriter) WriteHeader(code int) {
	if code >= 200 {
		t.started = true
	}
	t.ResponseWriter.WriteHeader(code)
}

func (t *trackingWriter) Write(b []byte) (int, error) {
	t.started = true
	return t.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (t *trackingWriter) Unwrap() http.ResponseWriter { return t.ResponseWriter }

func (t *trackingWriter) Flush() {
	t.started = true
	if f, ok := t.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// RolloutID returns the rollout id of a request that arrived under the
// /ng-rollout/<id>/ prefix (NeMo's observability runs, contract a.2), or "".
func RolloutID(ctx context.Context) string { return hostlink.RolloutID(ctx) }

// isJSONContentType is Starlette/FastAPI's test: maintype "application" and
// subtype "json" or "*+json" (python-compat 4.2).
func isJSONContentType(ct string) bool {
	if ct == "" {
		return false
	}
	mt, _, _ := strings.Cut(ct, ";")
	mt = strings.ToLower(strings.TrimSpace(mt))
	main, sub, ok := strings.Cut(mt, "/")
	if !ok || main != "application" {
		return false
	}
	return sub == "json" || strings.HasSuffix(sub, "+json")
}

// errContentType is NeMo's answer to a body sent without a JSON
// Content-Type (see readBody).
var errContentType = errors.New("TypeError('Object of type bytes is not JSON serializable')")

// readBody reads and parses a request body as FastAPI does for a body model:
// empty -> 422 missing; non-JSON content type -> NeMo's 500; invalid JSON ->
// 422 json_invalid; bad UTF-8 or too deep -> 400; JSON null -> 422 missing.
//
// The body is returned checked but not parsed (nil for JSON null): a typed
// request decodes straight from its text.
func readBody(r *http.Request, lim pyjson.Limits) (*body, []byte, error) {
	raw, err := bodyio.ReadAll(r.Body, r.ContentLength)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, nil, Errorf(http.StatusRequestEntityTooLarge, "Request body too large: limit is %d bytes", mbe.Limit)
		}
		// A body reader that knows the answer (the host's body read
		// deadline: a 408) fails with an *Error.
		var fe *Error
		if errors.As(err, &fe) {
			return nil, nil, fe
		}
		return nil, nil, Errorf(400, "There was an error parsing the body")
	}
	if len(raw) == 0 {
		return nil, nil, &ValidationError{items: []lax.ErrorItem{lax.MissingBody()}}
	}
	if !isJSONContentType(r.Header.Get("Content-Type")) {
		// FastAPI leaves the body as bytes; NeMo's validation handler then
		// fails to print them and its exception middleware answers 500
		// (python-compat 4.1, 4.2).
		return nil, nil, errContentType
	}
	kind, err := pyjson.CheckKind(raw, lim)
	if err != nil {
		if fe := jsonLimitError(err); fe != nil {
			return nil, nil, fe
		}
		var se *pyjson.SyntaxError
		if errors.As(err, &se) {
			return nil, nil, &ValidationError{items: []lax.ErrorItem{{
				Type: "json_invalid", Loc: []any{se.Pos}, Msg: "JSON decode error",
				Input: pyjson.Value{Kind: pyjson.Object},
				Ctx:   []pyjson.Member{{Key: "error", Value: pyjson.StringValue(se.Msg)}},
			}}}
		}
		return nil, nil, Errorf(400, "There was an error parsing the body")
	}
	if kind == pyjson.Null {
		return nil, nil, &ValidationError{items: []lax.ErrorItem{lax.MissingBody()}}
	}
	return textBody(raw, lim, kind), raw, nil
}

// toolHandler serves one tool (or the seed route) on the HTTP door. param
// names the chi URL parameter holding the tool name (catch-all), or "".
func (a *app) toolHandler(t *Tool, param string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var args *body
		var raw []byte
		if !t.noBody {
			var err error
			if args, raw, err = readBody(r, a.jsonLimits); err != nil {
				a.writeError(w, r, err)
				return
			}
		} else {
			// The body is ignored, but reading it lets net/http notice a
			// client that goes away (the request context is then canceled).
			_, _ = io.Copy(io.Discard, r.Body)
		}
		name := t.Name
		if param != "" {
			name = chi.URLParam(r, param) // decoded: routing runs on URL.Path
		}
		tt := *t
		tt.Name = name
		res, err := tt.call(context.WithValue(r.Context(), doorKey{}, DoorHTTP), args, raw)
		if err != nil {
			a.writeError(w, r, err)
			return
		}
		a.writeResult(w, r, res)
	}
}

// seedHandler serves POST /seed_session. The body is read and checked once
// (readBody); the seed's decoder, AfterSeed and the hooks AfterSeed calls
// share it, and its tree is built only if one of them needs all of it.
func (a *app) seedHandler(w http.ResponseWriter, r *http.Request) {
	var args *body
	var raw []byte
	var seedBody *SeedBody
	if !a.seed.noBody {
		var err error
		if args, raw, err = readBody(r, a.jsonLimits); err != nil {
			a.writeError(w, r, err)
			return
		}
		if a.opts.AfterSeed != nil {
			seedBody = seedBodyFor(raw, args)
		}
	} else if a.opts.AfterSeed != nil {
		// The hook wants the body even when the handler ignores it; NeMo
		// parses the raw bytes as JSON whatever the Content-Type (an
		// unparseable or non-object body becomes {}, contract d.3).
		seedBody = &SeedBody{}
		if b, err := bodyio.ReadAll(r.Body, r.ContentLength); err == nil {
			if kind, err := pyjson.CheckKind(b, a.jsonLimits); err == nil {
				seedBody = seedBodyOf(b, a.jsonLimits, kind)
			}
		}
	}
	res, err := a.seed.call(context.WithValue(r.Context(), doorKey{}, DoorHTTP), args, raw)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	b, err := pyjson.Marshal(res, pyjson.Pydantic)
	if err != nil {
		a.writeError(w, r, fmt.Errorf("encoding the response: %w", err))
		return
	}
	if a.opts.AfterSeed != nil {
		if b, err = a.opts.AfterSeed(r.Context(), seedBody, b); err != nil {
			a.writeError(w, r, err)
			return
		}
	}
	writeJSON(w, 200, b)
}

// closeHandler serves POST /close_session: it reads and discards any body,
// calls the environment's SessionCloser hook, then Options.CloseSession,
// and answers {} (200). The first error answers the close instead (as
// writeError renders it); the host's part runs even when the hook failed,
// so the rollout's state is freed either way and a retry calls the hook
// again.
func (a *app) closeHandler(w http.ResponseWriter, r *http.Request) {
	if !a.closeSession {
		writeJSON(w, 404, []byte(`{"detail":"Not Found"}`))
		return
	}
	_, _ = io.Copy(io.Discard, r.Body)
	ctx := context.WithValue(r.Context(), doorKey{}, DoorHTTP)
	var err error
	if c, ok := a.srv.(SessionCloser); ok {
		err = c.Close(ctx)
	}
	if a.opts.CloseSession != nil {
		if herr := a.opts.CloseSession(ctx); err == nil {
			err = herr
		}
	}
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	writeJSON(w, 200, []byte(`{}`))
}

func (a *app) writeResult(w http.ResponseWriter, r *http.Request, res any) {
	b, err := pyjson.Marshal(res, pyjson.Pydantic)
	if err != nil {
		a.writeError(w, r, fmt.Errorf("encoding the response: %w", err))
		return
	}
	writeJSON(w, 200, b)
}

func (a *app) writeError(w http.ResponseWriter, r *http.Request, err error) {
	contentType := errors.Is(err, errContentType)
	if a.mask {
		// Tool calls are masked by their policy already (settled); this
		// covers the other routes and panics outside a tool.
		err = maskError(r.Context(), a.log, err, "path", r.URL.Path)
	}
	st := statusOf(err, false) // the MCP text of a 422 is not written here
	if st.Code >= 500 {
		// A 5xx the handler chose (Errorf) is an answer, not a fault: warn.
		// Anything else (a plain error, a panic) is logged as an error.
		level := slog.LevelError
		var fe *Error
		if errors.As(err, &fe) {
			level = slog.LevelWarn
		}
		attrs := []any{"path", r.URL.Path, "status", st.Code, "error", err}
		if contentType {
			level = slog.LevelWarn
			attrs = append(attrs, "hint", "the body was not read: send Content-Type: application/json (NeMo answers this 500 too)")
		}
		a.log.Log(r.Context(), level, "request failed", attrs...)
	}
	if st.unhandled {
		omitSessionCookie(w)
	}
	var fe *Error
	if errors.As(err, &fe) && fe != nil {
		for k, v := range fe.Header {
			w.Header()[http.CanonicalHeaderKey(k)] = v
		}
	}
	writeJSON(w, st.Code, st.Body)
}

func writeJSON(w http.ResponseWriter, code int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(code)
	_, _ = w.Write(body)
}

func (a *app) verifyHandler(w http.ResponseWriter, r *http.Request) {
	v, _, err := readBody(r, a.jsonLimits)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	t := Tool{Name: "verify", invoke: func(ctx context.Context, _ string, args *body, _ []byte) (any, error) {
		return a.verify.invoke(ctx, args, a.opts.NormalizeToolName)
	}}
	res, err := t.call(r.Context(), v, nil)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	a.writeResult(w, r, res)
}
