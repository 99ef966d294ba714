package config

import (
	"fmt"
	"slices"
	"time"
)

// toolTimeouts is the type of tool_timeouts: a duration by tool name.
type toolTimeouts = map[string]time.Duration

// timeoutKeys are the timeout keys of a server block; null means the default.
var timeoutKeys = []string{"body_read_timeout", "tool_timeout", "tool_timeouts"}

// dropNullTimeouts deletes the timeout keys set to null from data: null
// means the default.
func dropNullTimeouts(data map[string]any) {
	for _, k := range timeoutKeys {
		if v, ok := data[k]; ok && v == nil {
			delete(data, k)
		}
	}
}

// timeoutProblems reports the timeout values out of range: body_read_timeout
// must be positive, tool_timeout and every tool_timeouts entry at least zero.
func (c *Config) timeoutProblems(bkey string, data map[string]any, fw *Instance, bad map[string]bool) Problems {
	var ps Problems
	if _, ok := data["body_read_timeout"]; ok && !bad["body_read_timeout"] && fw.BodyReadTimeout <= 0 {
		ps = append(ps, c.src.problem(joinKey(bkey, "body_read_timeout"),
			fmt.Sprintf("must be a positive duration such as \"30s\" (or null for the default, 30s), got %v", fw.BodyReadTimeout), ""))
	}
	if !bad["tool_timeout"] && fw.ToolTimeout < 0 {
		ps = append(ps, c.src.problem(joinKey(bkey, "tool_timeout"),
			fmt.Sprintf("must be a duration such as \"30s\", or 0 for no limit, got %v", fw.ToolTimeout), ""))
	}
	names := make([]string, 0, len(fw.ToolTimeouts))
	for name := range fw.ToolTimeouts {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if d := fw.ToolTimeouts[name]; d < 0 {
			ps = append(ps, c.src.problem(joinKey(joinKey(bkey, "tool_timeouts"), name),
				fmt.Sprintf("must be a duration such as \"30s\", or 0 for no limit, got %v", d), ""))
		}
	}
	return ps
}
