package config

import (
	"strings"
	"testing"
	"time"
)

func TestSessionKeys(t *testing.T) {
	t.Parallel()
	dir := writeDir(t, map[string]string{"c.yaml": server("a", "session_idle_timeout: 30m", "session_lifetime: 48h", "close_session: false") +
		server("b", "session_idle_timeout: null", "session_lifetime: 90", "close_session: null")})
	cfg := mustLoad(t, opts(dir, []string{"c.yaml"}))
	a, _ := cfg.Instance("a")
	if a.SessionIdleTimeout != 30*time.Minute || a.SessionLifetime != 48*time.Hour || a.CloseSession {
		t.Errorf("a: idle %v, lifetime %v, close %v", a.SessionIdleTimeout, a.SessionLifetime, a.CloseSession)
	}
	b, _ := cfg.Instance("b")
	if b.SessionIdleTimeout != DefaultSessionIdleTimeout || b.SessionLifetime != 90*time.Second || !b.CloseSession {
		t.Errorf("b: idle %v, lifetime %v, close %v", b.SessionIdleTimeout, b.SessionLifetime, b.CloseSession)
	}
	if DefaultSessionLifetime.Seconds() != 1209600 || DefaultSessionIdleTimeout != time.Hour {
		t.Errorf("defaults %v, %v", DefaultSessionLifetime, DefaultSessionIdleTimeout)
	}
}

func TestSessionKeyProblems(t *testing.T) {
	t.Parallel()
	const blk = "w.resources_servers.w"
	for _, tt := range []struct{ line, key, message string }{
		{"session_idle_timeout: 0", "session_idle_timeout", "must be a positive duration"},
		{"session_idle_timeout: -1h", "session_idle_timeout", "must be a positive duration"},
		{"session_lifetime: 0s", "session_lifetime", "must be a positive duration"},
		{"session_lifetime: -5", "session_lifetime", "must be a positive duration"},
		{"session_lifetime: forever", "session_lifetime", "expected a duration"},
		{"close_session: maybe", "close_session", "expected true or false"},
	} {
		t.Run(tt.line, func(t *testing.T) {
			t.Parallel()
			p, _ := loadProblem(t, server("w", tt.line), blk+"."+tt.key)
			if !strings.Contains(p.Message, tt.message) {
				t.Errorf("problem = %+v, want %q", p, tt.message)
			}
		})
	}
}
