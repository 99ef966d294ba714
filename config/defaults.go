package config

import "time"

// The defaults of the framework keys of a server block, and of default_host.
// [Defaults] holds them all; these constants name them for documentation and
// messages. A consumer of an [Instance] reads its fields and never defaults
// them again.
const (
	// DefaultHost is the host of an instance without host when the top-level
	// default_host is unset.
	DefaultHost = "127.0.0.1"
	// DefaultMaxBodyBytes is max_body_bytes' default: 16 MiB.
	DefaultMaxBodyBytes = 16 << 20
	// DefaultBodyReadTimeout is body_read_timeout's default: how long a client
	// may take to send a request's body once its headers are read.
	DefaultBodyReadTimeout = 30 * time.Second
	// DefaultMaxJSONDepth is max_json_depth's default and largest value:
	// arrays and objects nested 1000 deep, the JSON parser's own bound
	// (CPython's json.loads accepts somewhat deeper bodies, until its
	// RecursionError). NeMo Gym's real bodies nest 8 levels at most (the
	// goldens, the example rows).
	DefaultMaxJSONDepth = 1000
	// DefaultMaxJSONElements is max_json_elements's default: 2,000,000 JSON
	// values in one request body (a parse stopped there peaks at about 450
	// MB, against 1.7 GB for a 14 MiB body of 7M ints). The largest real
	// NeMo verify body of the goldens and example rows holds about 600
	// values; an RL verify body with token ids and log probabilities holds
	// one value per 3-7 bytes of JSON (8 turns of a 16k-token prompt: 0.9
	// MB, 300k values; 20 turns of 32k tokens, about 1M), and a body of
	// token ids within max_body_bytes' default 16 MiB holds under 2.4M.
	DefaultMaxJSONElements = 2_000_000
	// DefaultMaxInflightBodyBytes is max_inflight_body_bytes's default: 256
	// MiB of request bodies being read or held at once by one instance.
	DefaultMaxInflightBodyBytes = 256 << 20
	// DefaultSessionIdleTimeout is session_idle_timeout's default: a rollout
	// session without a request for one hour ends (its cookie is refused and
	// its state is dropped).
	DefaultSessionIdleTimeout = time.Hour
	// DefaultSessionLifetime is session_lifetime's default: 14 days (336h,
	// 1209600 s), the Max-Age of NeMo Gym's (Starlette's) session cookie.
	DefaultSessionLifetime = 14 * 24 * time.Hour
	// DefaultSessionStoreTimeout is session.dial_timeout's and
	// session.read_timeout's default (also for 0): 1s.
	DefaultSessionStoreTimeout = time.Second
	// DefaultMetricsPath is metrics.path's default: where GET serves the
	// instance's Prometheus metrics.
	DefaultMetricsPath = "/metrics"
	// DefaultJWTLeeway is auth.jwt.leeway's default: the clock skew allowed on
	// a JWT's exp, nbf and iat claims.
	DefaultJWTLeeway = 30 * time.Second
	// DefaultCORSMaxAge is cors.max_age's default: how long a browser may cache
	// a preflight answer (Access-Control-Max-Age).
	DefaultCORSMaxAge = 10 * time.Minute
	// DefaultMCPSessionIdleTimeout is mcp.session_idle_timeout's default
	// (also for 0): a stateful MCP session without a request for 10 minutes
	// (none in flight) ends.
	DefaultMCPSessionIdleTimeout = 10 * time.Minute
	// DefaultMCPMaxSessionsPerPrincipal is mcp.max_sessions_per_principal's
	// default (also for 0): the live stateful MCP sessions of one principal.
	DefaultMCPMaxSessionsPerPrincipal = 100
	// DefaultMCPConfirmTimeout is mcp.confirm_timeout's default (also for 0):
	// how long a tool's framework.Confirm waits for the user's answer before
	// refusing.
	DefaultMCPConfirmTimeout = 60 * time.Second
)

// Defaults returns the framework keys of a server block as they are when the
// block does not set them: the only place their defaults are written. [Load]
// decodes every server block over it; a host or a test that builds an
// Instance without YAML starts from it and sets what it needs:
//
//	inst := config.Defaults()
//	inst.Name, inst.ServerType = "weather", "example_mcp_weather"
//	inst.MaxBodyBytes = 1 << 20
//
// Name and ServerType are empty, and so are the keys without a default
// (domain, port, session_secret, the auth and cors blocks, ...).
// Session.Prefix is empty: Load sets it to [DefaultSessionPrefix] of the
// instance name when the block does not set it. Each call returns a fresh
// value.
func Defaults() Instance {
	return Instance{
		Host:                 DefaultHost,
		MaxBodyBytes:         DefaultMaxBodyBytes,
		SessionIdleTimeout:   DefaultSessionIdleTimeout,
		SessionLifetime:      DefaultSessionLifetime,
		CloseSession:         true,
		OpenAPI:              true,
		BodyReadTimeout:      DefaultBodyReadTimeout,
		MaxJSONDepth:         DefaultMaxJSONDepth,
		MaxJSONElements:      DefaultMaxJSONElements,
		MaxInflightBodyBytes: DefaultMaxInflightBodyBytes,
		MCP: MCPConfig{
			SessionIdleTimeout:      DefaultMCPSessionIdleTimeout,
			MaxSessionsPerPrincipal: DefaultMCPMaxSessionsPerPrincipal,
			ConfirmTimeout:          DefaultMCPConfirmTimeout,
			Lean:                    true,
		},
		Metrics: MetricsConfig{Path: DefaultMetricsPath},
		Session: SessionConfig{
			Store:       SessionStoreMemory,
			DialTimeout: DefaultSessionStoreTimeout,
			ReadTimeout: DefaultSessionStoreTimeout,
		},
	}
}

// DefaultSessionPrefix is session.prefix's default for the instance name:
// "gymkit:<name>:".
func DefaultSessionPrefix(name string) string { return "gymkit:" + name + ":" }
