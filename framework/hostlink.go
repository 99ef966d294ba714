package framework

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/gymkit/gymkit/framework/internal/hostlink"
)

// The host's API (package framework/host) reaches the App through
// hostlink: framework keeps the implementation, host the public names.
func init() {
	hostlink.Build = func(ctx context.Context, srv any, o hostlink.Options) (hostlink.App, error) {
		s, _ := srv.(Server)
		opts := buildOptions{Name: o.Name, Config: o.Config, Logger: o.Logger, SharedSessionState: o.SharedSessionState,
			NormalizeToolName: o.NormalizeToolName, CloseSession: o.CloseSession}
		if o.AfterSeed != nil {
			f, ok := o.AfterSeed.(func(context.Context, *SeedBody, []byte) ([]byte, error))
			if !ok {
				return nil, fmt.Errorf("framework: Build: AfterSeed is a %T", o.AfterSeed)
			}
			opts.AfterSeed = f
		}
		if o.Interceptors != nil {
			ics, ok := o.Interceptors.([]Interceptor)
			if !ok {
				return nil, fmt.Errorf("framework: Build: Interceptors is a %T", o.Interceptors)
			}
			opts.Interceptors = ics
		}
		a, err := build(ctx, s, opts)
		if err != nil {
			return nil, err
		}
		return hostApp{a}, nil
	}
	hostlink.Lookup = func(name string) (any, error) { return lookup(name) }
	hostlink.Names = names
	hostlink.StatusCode = func(err error, mcp bool) int {
		d := DoorHTTP
		if mcp {
			d = DoorMCP
		}
		return statusCode(err, d)
	}
	hostlink.MCPErrorText = mcpErrorText
	hostlink.CheckJSON = checkJSON
	hostlink.AggregateMetrics = func(ctx context.Context, srv any, verifyResponses any) (any, error) {
		s, _ := srv.(Server)
		vs, _ := verifyResponses.([]Value)
		return aggregateMetrics(ctx, s, vs)
	}
}

// hostApp is an *app as hostlink shows it.
type hostApp struct{ a *app }

func (h hostApp) Server() any           { return h.a.srv }
func (h hostApp) Name() string          { return h.a.name }
func (h hostApp) Tools() any            { return h.a.harvested() }
func (h hostApp) HasMiddleware() bool   { return len(h.a.mw) > 0 }
func (h hostApp) Handler() http.Handler { return h.a.handler }

func (h hostApp) CatchAll() any {
	if c := h.a.catchAllMinter(); c != nil {
		return c
	}
	return nil
}

func (h hostApp) ExposedTools() (any, error) { return h.a.exposedTools() }

func (h hostApp) SeedSessionSchema() json.RawMessage { return h.a.seedSessionSchema() }

func (h hostApp) VerifySchemas() (request, response json.RawMessage) { return h.a.verifySchemas() }

func (h hostApp) MaskError(ctx context.Context, err error, attrs ...any) error {
	return h.a.maskOutside(ctx, err, attrs...)
}
