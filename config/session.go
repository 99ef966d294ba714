package config

import (
	"fmt"
	"time"
)

// Defaults of the session keys of a server block.
const (
	// DefaultSessionIdleTimeout is session_idle_timeout's default: a rollout
	// session without a request for one hour ends (its cookie is refused and
	// its state is dropped).
	DefaultSessionIdleTimeout = time.Hour
	// DefaultSessionLifetime is session_lifetime's default: 14 days (336h,
	// 1209600 s), the Max-Age of NeMo Gym's (Starlette's) session cookie.
	DefaultSessionLifetime = 14 * 24 * time.Hour
)

// sessionProblems checks the session keys of a server block that were set
// (present and not null): a duration must be positive. bkey is the block's
// dotted path; bad holds the keys that already failed to decode.
func (c *Config) sessionProblems(bkey string, data map[string]any, fw *frameworkConfig, bad map[string]bool) Problems {
	var ps Problems
	for _, k := range []struct {
		key string
		d   time.Duration
	}{{"session_idle_timeout", fw.SessionIdleTimeout}, {"session_lifetime", fw.SessionLifetime}} {
		if _, ok := data[k.key]; ok && !bad[k.key] && k.d <= 0 {
			ps = append(ps, c.src.problem(joinKey(bkey, k.key),
				fmt.Sprintf("must be a positive duration such as \"1h\" or \"336h\" (or null for the default), got %v", k.d), ""))
		}
	}
	return ps
}
