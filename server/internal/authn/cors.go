package authn

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// CORS answers for the MCP door: the methods and request headers a
// browser may use on /mcp, and the answer headers its script may read.
const (
	// AllowMethods is Access-Control-Allow-Methods: what the door answers
	// (GET and DELETE with its 405, so that a browser client sees it).
	AllowMethods = "POST, GET, DELETE, OPTIONS"
	// AllowHeaders is Access-Control-Allow-Headers.
	AllowHeaders = "Content-Type, Accept, Authorization, Mcp-Session-Id, Mcp-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID, X-NeMo-Gym-Session-Token"
	// ExposeHeaders is Access-Control-Expose-Headers.
	ExposeHeaders = "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate"
)

// CORSOptions configure [CORS].
type CORSOptions struct {
	// AllowedOrigins are the allowed origins ("*": any), any case.
	AllowedOrigins []string
	// MaxAge is Access-Control-Max-Age (whole seconds).
	MaxAge time.Duration
	// Applies reports the requests CORS is answered on (the MCP door's);
	// the others go to next untouched.
	Applies func(r *http.Request) bool
}

// CORS returns the CORS layer: on the requests opts.Applies selects, a
// preflight (OPTIONS with Origin and Access-Control-Request-Method) from
// an allowed origin is answered 204 with the Access-Control-Allow-*
// headers and Max-Age, one from another origin 403 {"error":"Origin not
// allowed"} without them; any other request from an allowed origin gets
// Access-Control-Allow-Origin (the origin echoed) and -Expose-Headers on
// its answer, Vary: Origin always. It must sit outside the bearer
// authentication: browsers send preflights without credentials, and a 401
// is readable by the script only with these headers.
func CORS(opts CORSOptions, next http.Handler) http.Handler {
	anyOrigin := false
	allowed := map[string]bool{}
	for _, o := range opts.AllowedOrigins {
		if o == "*" {
			anyOrigin = true
		}
		allowed[strings.ToLower(strings.TrimSpace(o))] = true
	}
	maxAge := strconv.FormatInt(int64(opts.MaxAge/time.Second), 10)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if opts.Applies != nil && !opts.Applies(r) {
			next.ServeHTTP(w, r)
			return
		}
		origin := r.Header.Get("Origin")
		preflight := r.Method == http.MethodOptions && origin != "" && r.Header.Get("Access-Control-Request-Method") != ""
		h := w.Header()
		h.Add("Vary", "Origin")
		ok := origin != "" && (anyOrigin || allowed[strings.ToLower(origin)])
		switch {
		case preflight && !ok:
			h.Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			_, _ = w.Write([]byte(`{"error":"Origin not allowed"}`))
			return
		case preflight:
			h.Add("Vary", "Access-Control-Request-Method")
			h.Add("Vary", "Access-Control-Request-Headers")
			h.Set("Access-Control-Allow-Origin", origin)
			h.Set("Access-Control-Allow-Methods", AllowMethods)
			h.Set("Access-Control-Allow-Headers", AllowHeaders)
			h.Set("Access-Control-Max-Age", maxAge)
			w.WriteHeader(http.StatusNoContent)
			return
		case ok:
			h.Set("Access-Control-Allow-Origin", origin)
			h.Set("Access-Control-Expose-Headers", ExposeHeaders)
		}
		next.ServeHTTP(w, r)
	})
}
