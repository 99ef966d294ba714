// Package authn is gymkit's bearer authentication and CORS layer (the auth
// and cors blocks of a server block, see config.AuthConfig and
// config.CORSConfig): the built-in token validators (hashed API keys, JWT
// through github.com/golang-jwt/jwt/v5), the middleware that answers 401
// before anything else reads a request, and the CORS middleware of the MCP
// door. It is internal: package server builds it from an instance's config.
package authn

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/gymkit/gymkit/framework/host"
)

// The 401 bodies, as MCP clients expect them (docs/mcp.md, "Bearer
// authentication and CORS: the auth and cors blocks").
const (
	// MissingBody answers a request without a bearer token.
	MissingBody = `{"error":"Missing bearer token"}`
	// InvalidBody answers a request whose token every validator refused.
	InvalidBody = `{"error":"Invalid or unauthorized token"}`
)

// A Validator maps a bearer token (never empty) to its principal (non-nil),
// or refuses it with an error whose text may be logged (it never contains
// the token).
type Validator func(ctx context.Context, token string) (principal any, err error)

// Options configure [Middleware].
type Options struct {
	// Realm is the realm parameter of WWW-Authenticate.
	Realm string
	// Validators are tried in order; the first to accept a token wins.
	// At least one.
	Validators []Validator
	// Protect reports the requests that need a token; nil: all.
	Protect func(r *http.Request) bool
	// Logger receives one warning per refused request (method, path,
	// reason; never the token). nil: slog.Default().
	Logger *slog.Logger
}

// Middleware returns the bearer-authentication layer: a protected request
// without "Authorization: Bearer <token>" (scheme in any case) is answered
// 401 [MissingBody], one whose token no validator accepts 401
// [InvalidBody], both with Content-Type application/json and
// WWW-Authenticate: Bearer realm="<realm>" (RFC 6750; error="invalid_token"
// for the second), without calling next. An accepted request goes on with
// its principal in the context (host.WithPrincipal).
func Middleware(opts Options, next http.Handler) http.Handler {
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	realm := strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(opts.Realm)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if opts.Protect != nil && !opts.Protect(r) {
			next.ServeHTTP(w, r)
			return
		}
		token, ok := bearer(r.Header.Values("Authorization"))
		if !ok {
			log.Warn("auth: request refused: missing bearer token", "method", r.Method, "path", r.URL.Path, "remote", r.RemoteAddr)
			unauthorized(w, `Bearer realm="`+realm+`"`, MissingBody)
			return
		}
		var errs []error
		for _, v := range opts.Validators {
			p, err := v(r.Context(), token)
			if err == nil && p != nil {
				next.ServeHTTP(w, r.WithContext(host.WithPrincipal(r.Context(), p)))
				return
			}
			if err == nil {
				err = errors.New("the validator returned no principal")
			}
			errs = append(errs, err)
		}
		log.Warn("auth: request refused: invalid bearer token", "method", r.Method, "path", r.URL.Path,
			"remote", r.RemoteAddr, "error", errors.Join(errs...).Error())
		unauthorized(w, `Bearer realm="`+realm+`", error="invalid_token", error_description="Invalid or unauthorized token"`, InvalidBody)
	})
}

// bearer returns the token of the one Authorization header, if it is
// "Bearer <token>" (the scheme in any case, RFC 7235).
func bearer(values []string) (string, bool) {
	if len(values) != 1 {
		return "", false
	}
	scheme, token, ok := strings.Cut(strings.TrimSpace(values[0]), " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return "", false
	}
	return token, true
}

func unauthorized(w http.ResponseWriter, challenge, body string) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("WWW-Authenticate", challenge)
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusUnauthorized)
	_, _ = w.Write([]byte(body))
}
