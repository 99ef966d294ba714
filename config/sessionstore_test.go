package config

import (
	"strings"
	"testing"
	"time"
)

const testSecret = "session_secret: 0123456789abcdefghijklmnopqrstuvwxyzABCD"

func TestSessionStoreBlock(t *testing.T) {
	t.Parallel()
	dir := writeDir(t, map[string]string{"c.yaml": server("a", testSecret,
		"session: {store: redis, url: 'redis://user:hunter2@10.0.0.5:6380/2', prefix: 'p:', dial_timeout: 2s, read_timeout: 500ms, pool_size: 8}") +
		server("b") + server("c", "session: null") + server("d", "session: {store: memory}")})
	cfg := mustLoad(t, opts(dir, []string{"c.yaml"}))
	a, _ := cfg.Instance("a")
	want := SessionConfig{Store: "redis", URL: "redis://user:hunter2@10.0.0.5:6380/2", Prefix: "p:",
		DialTimeout: 2 * time.Second, ReadTimeout: 500 * time.Millisecond, PoolSize: 8}
	if a.Session != want {
		t.Errorf("a.Session = %+v, want %+v", a.Session, want)
	}
	if u := a.Raw["session"].(map[string]any)["url"]; u != "redis://user:xxxxx@10.0.0.5:6380/2" {
		t.Errorf("Raw session.url = %v, want the password redacted", u)
	}
	for _, name := range []string{"b", "c", "d"} {
		inst, _ := cfg.Instance(name)
		if inst.Session.Store != "" && inst.Session.Store != SessionStoreMemory {
			t.Errorf("%s: store %q, want memory", name, inst.Session.Store)
		}
	}
}

func TestSessionStoreProblems(t *testing.T) {
	t.Parallel()
	const blk = "w.resources_servers.w"
	for _, tt := range []struct {
		lines        []string
		key, message string
	}{
		{[]string{"session: {store: redis, url: 'redis://127.0.0.1:6379'}"}, "session.store", "redis needs session_secret set"},
		{[]string{testSecret, "session: {store: redis}"}, "session.url", "is required with session.store: redis"},
		{[]string{testSecret, "session: {store: redis, url: 'http://x:1@h'}"}, "session.url", "must be a redis://"},
		{[]string{"session: {store: rdis}"}, "session.store", `unknown store "rdis"`},
		{[]string{"session: {stor: redis}"}, "session.stor", ""},
		{[]string{"session: {read_timeout: -1s}"}, "session.read_timeout", "must be a duration >= 0"},
		{[]string{"session: {pool_size: -2}"}, "session.pool_size", "must be >= 0"},
		{[]string{"session: {dial_timeout: soon}"}, "session.dial_timeout", "expected a duration"},
		{[]string{"session: redis"}, "session", ""},
	} {
		t.Run(strings.Join(tt.lines, ";"), func(t *testing.T) {
			t.Parallel()
			p, err := loadProblem(t, server("w", tt.lines...), blk+"."+tt.key)
			if !strings.Contains(p.Message, tt.message) {
				t.Errorf("problem = %+v, want %q", p, tt.message)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("error shows the password: %v", err)
			}
		})
	}
}
