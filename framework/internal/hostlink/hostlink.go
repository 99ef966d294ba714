// Package hostlink is the bridge between package framework, which keeps the
// implementation of an App, and package framework/host, the public API of
// the programs that host environments. framework imports it and fills its
// function variables in an init function; host imports both and wraps them
// with framework's types. It never imports framework (framework imports
// it), so framework's types appear here as any, and host asserts them back.
//
// What both sides share without framework's types is implemented here: the
// principal, the MCP client and the rollout id of a request context, and
// the /ng-rollout/<id>/ prefix stripping.
package hostlink

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/gymkit/gymkit/config"
)

// Set by package framework's init.
var (
	// Build is framework's Build: srv is a framework.Server.
	Build func(ctx context.Context, srv any, opts Options) (App, error)
	// Lookup returns the framework.Factory registered under name.
	Lookup func(name string) (any, error)
	// Names returns the registered server type names, sorted.
	Names func() []string
	// StatusCode is the status the MCP door (mcp) or the HTTP door answers
	// for err.
	StatusCode func(err error, mcp bool) int
	// MCPErrorText is the MCP door's isError text of a failed call of tool.
	MCPErrorText func(err error, tool string) string
	// CheckJSON checks data as the HTTP door checks a body, within the
	// limits (zero: the defaults).
	CheckJSON func(data []byte, maxDepth, maxElements int) error
	// AggregateMetrics is /aggregate_metrics' computation: srv is a
	// framework.Server, the values and the result framework.Values.
	AggregateMetrics func(ctx context.Context, srv any, verifyResponses any) (any, error)
)

// Options are framework/host's Options, with framework's types as any.
type Options struct {
	Name               string
	Config             *config.Instance
	Logger             *slog.Logger
	SharedSessionState bool
	// AfterSeed is a func(context.Context, *framework.SeedBody, []byte) ([]byte, error), or nil.
	AfterSeed         any
	NormalizeToolName func(name string) string
	CloseSession      func(ctx context.Context) error
	// Interceptors is a []framework.Interceptor, or nil.
	Interceptors any
}

// App is a built framework App, with framework's types as any.
type App interface {
	Server() any                // a framework.Server
	Tools() any                 // a []framework.Tool
	CatchAll() any              // a *framework.CatchAll, nil without Dispatch
	ExposedTools() (any, error) // a []framework.Tool
	Name() string
	HasMiddleware() bool
	Handler() http.Handler
	SeedSessionSchema() json.RawMessage
	VerifySchemas() (request, response json.RawMessage)
	MaskError(ctx context.Context, err error, attrs ...any) error
}

type principalKey struct{}

// WithPrincipal returns a copy of ctx carrying the principal p.
func WithPrincipal(ctx context.Context, p any) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalOf returns the principal WithPrincipal put in ctx, or nil.
func PrincipalOf(ctx context.Context) any { return ctx.Value(principalKey{}) }

// MCPClient is the MCP client of one tools/call, as framework calls it
// (framework/host's MCPClient, adapted).
type MCPClient interface {
	Progress(ctx context.Context, progress, total float64, message string) error
	Log(ctx context.Context, level, logger string, data any) error
	Elicit(ctx context.Context, message string, schema json.RawMessage) (action string, content json.RawMessage, err error)
	ConfirmTimeout() time.Duration
}

type mcpClientKey struct{}

// WithMCPClient returns a copy of ctx carrying c; a nil c returns ctx.
func WithMCPClient(ctx context.Context, c MCPClient) context.Context {
	if c == nil {
		return ctx
	}
	return context.WithValue(ctx, mcpClientKey{}, c)
}

// MCPClientOf returns the MCP client in ctx, or nil.
func MCPClientOf(ctx context.Context) MCPClient {
	c, _ := ctx.Value(mcpClientKey{}).(MCPClient)
	return c
}

var rolloutIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

type rolloutKey struct{}

// RolloutID returns the rollout id StripRolloutPrefix recorded in ctx, or "".
func RolloutID(ctx context.Context) string {
	s, _ := ctx.Value(rolloutKey{}).(string)
	return s
}

// StripRolloutPrefix rewrites /ng-rollout/<id>/<rest> to /<rest> and
// records <id> for RolloutID; it clears URL.RawPath so that routing sees the
// decoded path (see framework/host's StripRolloutPrefix).
func StripRolloutPrefix(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rest, ok := strings.CutPrefix(r.URL.Path, "/ng-rollout/")
		var id, tail string
		if ok {
			var found bool
			id, tail, found = strings.Cut(rest, "/")
			ok = found && rolloutIDPattern.MatchString(id)
		}
		if !ok && r.URL.RawPath == "" {
			next.ServeHTTP(w, r)
			return
		}
		r2 := new(http.Request)
		*r2 = *r
		u := *r.URL
		u.RawPath = ""
		if ok {
			u.Path = "/" + tail
			r2 = r2.WithContext(context.WithValue(r.Context(), rolloutKey{}, id))
		}
		r2.URL = &u
		next.ServeHTTP(w, r2)
	})
}
