package config

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// body_read_timeout, tool_timeout and tool_timeouts: decoded as durations
// ("30s" or seconds), null is the default, out-of-range values are problems.
func TestTimeoutKeys(t *testing.T) {
	t.Parallel()
	dir := writeDir(t, map[string]string{"c.yaml": server("a", "body_read_timeout: 5s", "tool_timeout: 1m",
		"tool_timeouts: {run_tests: 10m, get_weather: 2, slow: 0}") +
		server("b", "body_read_timeout: null", "tool_timeout: null", "tool_timeouts: null")})
	c := mustLoad(t, opts(dir, []string{"c.yaml"}))
	a, _ := c.Instance("a")
	want := map[string]time.Duration{"run_tests": 10 * time.Minute, "get_weather": 2 * time.Second, "slow": 0}
	if a.BodyReadTimeout != 5*time.Second || a.ToolTimeout != time.Minute || !reflect.DeepEqual(a.ToolTimeouts, want) {
		t.Errorf("a: body %v, tool %v, per tool %v", a.BodyReadTimeout, a.ToolTimeout, a.ToolTimeouts)
	}
	b, _ := c.Instance("b")
	if b.BodyReadTimeout != DefaultBodyReadTimeout || b.ToolTimeout != 0 || b.ToolTimeouts != nil {
		t.Errorf("b: body %v, tool %v, per tool %v; want the defaults", b.BodyReadTimeout, b.ToolTimeout, b.ToolTimeouts)
	}

	const blk = "w.resources_servers.w"
	for _, tt := range []struct{ line, key, msg string }{
		{"body_read_timeout: 0", blk + ".body_read_timeout", "must be a positive duration"},
		{"body_read_timeout: soon", blk + ".body_read_timeout", `expected a duration like "30s"`},
		{"tool_timeout: -1s", blk + ".tool_timeout", "must be a duration such as \"30s\", or 0 for no limit"},
		{"tool_timeouts: {x: -5}", blk + ".tool_timeouts.x", "or 0 for no limit"},
		{"tool_timeouts: [x]", blk + ".tool_timeouts", "expected a mapping"},
	} {
		t.Run(tt.line, func(t *testing.T) {
			t.Parallel()
			if p, _ := loadProblem(t, server("w", tt.line), tt.key); !strings.Contains(p.Message, tt.msg) {
				t.Errorf("problem %+v, want %q", p, tt.msg)
			}
		})
	}
}
