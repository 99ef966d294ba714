// Package server hosts gymkit instances: it builds each configured instance
// (its framework.App, its rollout sessions and, later, its /mcp endpoint),
// binds it and drains it on shutdown.
package server

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/session"
)

// DefaultMaxBodyBytes is the request body limit when an instance sets none:
// 16 MiB. A larger body is answered 413.
const DefaultMaxBodyBytes int64 = 16 << 20

// InstanceOptions configure [NewInstance].
type InstanceOptions struct {
	// Name is the instance name (top-level YAML key). Required.
	Name string
	// ServerType is the registered server type (the key under
	// resources_servers). Required.
	ServerType string
	// MaxBodyBytes limits request bodies; 0 means DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// Sessions overrides the session manager (tests, shared stores). Nil: a
	// memory-backed manager with the cookie <ServerType>___<Name>.
	Sessions *session.Manager
	// Logger for the instance; nil is slog.Default().
	Logger *slog.Logger
}

// Instance is one built, not yet bound, resources server instance.
type Instance struct {
	Name       string
	ServerType string
	App        *framework.App
	Sessions   *session.Manager
	handler    http.Handler
}

// CookieName returns the session cookie name of an instance:
// "<server type>___<instance name>" (contract b, with gymkit's server type in
// place of the Python class name).
func CookieName(serverType, name string) string { return serverType + "___" + name }

// NewInstance builds srv's App (framework.Build, which runs Provision) and wraps
// it with the session and body-limit layers. srv must already hold its
// decoded config.
func NewInstance(ctx context.Context, srv framework.Server, opts InstanceOptions) (*Instance, error) {
	if opts.Name == "" || opts.ServerType == "" {
		return nil, fmt.Errorf("server: instance name and server type are required")
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	log = log.With("instance", opts.Name)
	app, err := framework.Build(ctx, srv, framework.Options{Name: opts.Name, Logger: log})
	if err != nil {
		return nil, fmt.Errorf("instance %q (server type %q): %w", opts.Name, opts.ServerType, err)
	}
	sm := opts.Sessions
	if sm == nil {
		sm = session.NewManager(session.Options{CookieName: CookieName(opts.ServerType, opts.Name)})
	}
	limit := opts.MaxBodyBytes
	if limit <= 0 {
		limit = DefaultMaxBodyBytes
	}
	inst := &Instance{Name: opts.Name, ServerType: opts.ServerType, App: app, Sessions: sm}
	// Sessions outermost: even a 413 carries the session cookie.
	inst.handler = sm.Middleware(limitBody(limit, app.Handler()))
	return inst, nil
}

// Handler returns the instance's complete HTTP handler.
func (in *Instance) Handler() http.Handler { return in.handler }

func limitBody(n int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
