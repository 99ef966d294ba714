package config

import (
	"testing"
)

func TestMetricsBlock(t *testing.T) {
	t.Parallel()
	dir := writeDir(t, map[string]string{"c.yaml": server("a", "metrics: {enabled: true, path: /internal/metrics, auth: true}",
		"auth: {api_keys: {env: KEYS}}") + server("b", "metrics: null") + server("c") + server("d", "metrics: {enabled: true}")})
	c := mustLoad(t, opts(dir, []string{"c.yaml"}))
	tests := []struct {
		name string
		want MetricsConfig
	}{
		{"a", MetricsConfig{Enabled: true, Path: "/internal/metrics", Auth: true}},
		{"b", MetricsConfig{Path: DefaultMetricsPath}},
		{"c", MetricsConfig{Path: DefaultMetricsPath}},
		{"d", MetricsConfig{Enabled: true, Path: DefaultMetricsPath}},
	}
	for _, tt := range tests {
		if inst, _ := c.Instance(tt.name); inst.Metrics != tt.want {
			t.Errorf("%s.Metrics = %+v, want %+v", tt.name, inst.Metrics, tt.want)
		}
	}
}

func TestMetricsBlockProblems(t *testing.T) {
	t.Parallel()
	const blk = "w.resources_servers.w"
	testProblems(t, []problemCase{
		{"not a mapping", "metrics: true", blk + ".metrics", "expected a map", ""},
		{"unknown key", "metrics: {enable: true}", blk + ".metrics.enable", "unknown key", "enabled"},
		{"enabled not a bool", "metrics: {enabled: yes please}", blk + ".metrics.enabled", "expected true or false", ""},
		{"relative path", "metrics: {path: metrics}", blk + ".metrics.path", "must be a path such as \"/metrics\"", ""},
		{"query", "metrics: {path: '/m?x=1'}", blk + ".metrics.path", "no query", ""},
		{"root", "metrics: {path: /}", blk + ".metrics.path", "must be a path", ""},
		{"a gymkit route", "metrics: {path: /verify}", blk + ".metrics.path", "one of gymkit's own routes", ""},
		{"under /mcp", "metrics: {path: /mcp/metrics}", blk + ".metrics.path", "one of gymkit's own routes", ""},
		{"under /health", "metrics: {path: /health/metrics}", blk + ".metrics.path", "one of gymkit's own routes", ""},
		{"under a rollout prefix", "metrics: {path: /ng-rollout/x/metrics}", blk + ".metrics.path", "one of gymkit's own routes", ""},
		{"auth without an auth block", "metrics: {enabled: true, auth: true}", blk + ".metrics.auth", "needs an auth block", ""},
	})
}
