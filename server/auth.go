package server

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/server/internal/authn"
)

// accessLayers returns the function that puts the auth and cors blocks of
// cfg around an instance's handler (the identity when both are absent):
// CORS outermost on the MCP door's paths (preflights carry no
// credentials), then the bearer authentication of /mcp and, with
// auth.http, of every route but GET / (the liveness answer). The
// validators are the API keys, the JWT verifier and srv's
// framework.TokenValidator hook, tried in that order. It reads the key
// files and environment variables at once; the error names the key.
func accessLayers(cfg config.Instance, srv framework.Server, inst *Instance) (func(http.Handler) http.Handler, error) {
	hook, hasHook := srv.(framework.TokenValidator)
	var layers []func(http.Handler) http.Handler
	if a := cfg.Auth; a != nil {
		var vs []authn.Validator
		if a.APIKeys != nil {
			v, err := authn.APIKeys(*a.APIKeys)
			if err != nil {
				return nil, err
			}
			vs = append(vs, v)
		}
		if a.JWT != nil {
			v, err := authn.JWT(*a.JWT)
			if err != nil {
				return nil, err
			}
			vs = append(vs, v)
		}
		if hasHook {
			vs = append(vs, func(ctx context.Context, token string) (any, error) { return hook.ValidateToken(ctx, token) })
		}
		if len(vs) == 0 {
			return nil, errors.New("auth: no validator: set auth.api_keys or auth.jwt, or give the environment a framework.TokenValidator hook")
		}
		realm := a.Realm
		if realm == "" {
			realm = inst.Name
		}
		httpToo := a.HTTP
		metricsAuth := cfg.Metrics.Enabled && cfg.Metrics.Auth
		opts := authn.Options{Realm: realm, Validators: vs, Logger: inst.Logger,
			Protect: func(r *http.Request) bool {
				return isMCPPath(r) || metricsAuth && isMetricsPath(cfg.Metrics, r) || httpToo && !isLiveness(r) && !isHealthProbe(r)
			}}
		layers = append(layers, func(h http.Handler) http.Handler { return authn.Middleware(opts, h) })
	} else if hasHook {
		inst.Logger.Warn("the environment has a framework.TokenValidator hook but the config has no auth block: no request is authenticated")
	}
	if c := cfg.CORS; c != nil {
		opts := authn.CORSOptions{AllowedOrigins: c.AllowedOrigins, MaxAge: c.MaxAge, Applies: isMCPPath}
		layers = append(layers, func(h http.Handler) http.Handler { return authn.CORS(opts, h) })
	}
	return func(h http.Handler) http.Handler {
		for _, l := range layers {
			h = l(h)
		}
		return h
	}, nil
}

// isLiveness reports whether r is GET (or HEAD) /, possibly under
// /ng-rollout/<id>/: the liveness answer, which auth.http leaves open.
func isLiveness(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	p := r.URL.Path
	if rest, ok := strings.CutPrefix(p, "/ng-rollout/"); ok {
		if _, tail, ok := strings.Cut(rest, "/"); ok {
			p = "/" + tail
		}
	}
	return p == "/" || p == ""
}
