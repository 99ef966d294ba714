package config

import (
	"fmt"
	"reflect"
	"strings"
)

// MetricsConfig is the metrics block of a server block: the instance's
// Prometheus metrics (docs/operations.md lists every metric). Absent or null
// (its defaults, [Defaults]), there is no metrics endpoint and no
// instrumentation, as in NeMo Gym.
//
//	metrics:
//	  enabled: true        # serve GET /metrics and count every call
//	  path: /metrics       # the default
//	  auth: true           # require the auth block's bearer token on it
type MetricsConfig struct {
	// Enabled (metrics.enabled, default false) serves GET <Path> in the
	// Prometheus text format on the instance's own port and instruments the
	// instance: tool calls on both doors, HTTP requests, the session store.
	Enabled bool `koanf:"enabled"`
	// Path (metrics.path; default [DefaultMetricsPath]) is the path of the
	// metrics endpoint: it starts with "/", has no query, and is none of
	// gymkit's own routes (/, /seed_session, /verify, /aggregate_metrics,
	// /close_session, /reverify_mode, /mcp..., /health/..., /ng-rollout/...).
	// A tool of the same name is a startup error of the host.
	Path string `koanf:"path"`
	// Auth (metrics.auth, default false) requires the bearer token of the
	// auth block on the metrics endpoint, even when auth.http is false (with
	// auth.http true it is required anyway). It needs an auth block.
	Auth bool `koanf:"auth"`
}

// reservedMetricsPaths are gymkit's fixed routes, which metrics.path must not take.
var reservedMetricsPaths = []string{"/", "/seed_session", "/verify", "/aggregate_metrics", "/close_session",
	"/reverify_mode", "/mcp", "/docs", "/openapi.json"}

// metricsProblems reports the unknown keys of the metrics block and its
// invalid values. null for the block, or for metrics.path, means absent.
func (c *Config) metricsProblems(bkey string, data map[string]any, fw *Instance, bad map[string]bool) Problems {
	var ps Problems
	problem := func(key, msg string) { ps = append(ps, c.src.problem(joinKey(bkey, key), msg, "")) }
	raw, ok := data["metrics"].(map[string]any)
	if !ok || bad["metrics"] {
		return nil
	}
	Instance{src: c.src}.unknownKeys(&ps, joinKey(bkey, "metrics"), raw, reflect.TypeFor[MetricsConfig](), false)
	if v, ok := raw["path"]; ok && v != nil && !bad["metrics.path"] {
		p := fw.Metrics.Path
		switch {
		case !strings.HasPrefix(p, "/") || p == "/" || strings.ContainsAny(p, "?# \t") || strings.Contains(p, "//"):
			problem("metrics.path", fmt.Sprintf("must be a path such as %q (starting with /, no query), got %q", DefaultMetricsPath, p))
		case isGymkitRoute(p):
			problem("metrics.path", fmt.Sprintf("%q is one of gymkit's own routes: choose another path, such as %q", p, DefaultMetricsPath))
		}
	}
	if fw.Metrics.Auth && fw.Auth == nil && !bad["auth"] {
		problem("metrics.auth", "needs an auth block (auth.api_keys, auth.jwt or the environment's token hook) to check the bearer token")
	}
	return ps
}

// isGymkitRoute reports whether p is one of gymkit's fixed routes or under
// one of its prefixes (/mcp/, /health/, /ng-rollout/).
func isGymkitRoute(p string) bool {
	q := strings.TrimSuffix(p, "/")
	for _, r := range reservedMetricsPaths {
		if q == r || p == r {
			return true
		}
	}
	for _, prefix := range []string{"/mcp/", "/health/", "/ng-rollout/"} {
		if strings.HasPrefix(p, prefix) || q+"/" == prefix {
			return true
		}
	}
	return false
}
