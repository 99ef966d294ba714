package config

import (
	"fmt"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// sessionProblems checks the session keys of a server block that were set
// (present and not null): a duration must be positive. bkey is the block's
// dotted path; bad holds the keys that already failed to decode.
func (c *Config) sessionProblems(bkey string, data map[string]any, fw *Instance, bad map[string]bool) Problems {
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

// Session stores (session.store).
const (
	// SessionStoreMemory keeps rollout state in process memory (the default).
	SessionStoreMemory = "memory"
	// SessionStoreRedis keeps rollout state in Redis or Valkey (session.url).
	SessionStoreRedis = "redis"
)

// SessionConfig is the session block of a server block: where the instance keeps its rollout
// state. Its defaults ([Defaults]; the block absent, or null) keep it in process memory, as NeMo
// Gym does. With store: redis, every replica of the instance that has the same url, prefix and
// session_secret serves every rollout (see docs/deployment.md):
//
//	session_secret: ${oc.env:GYMKIT_SECRET}
//	session:
//	  store: redis
//	  url: ${oc.env:REDIS_URL}      # redis://[user:password@]host:6379/0, rediss://..., unix:///path
//	  prefix: "counter:"            # default "gymkit:<instance name>:"
//	  dial_timeout: 1s              # default 1s
//	  read_timeout: 1s              # default 1s, per command
//	  pool_size: 0                  # default: go-redis's, 10 connections per CPU
//
// store: redis requires url and a configured session_secret (a random per-process secret would
// make every other replica refuse the rollout's cookies and tokens). The idle timeout and the
// lifetime of the state in Redis are session_idle_timeout and session_lifetime. The url's
// password is redacted in [Instance.Raw].
type SessionConfig struct {
	// Store (session.store) is memory (default, also for "") or redis.
	Store string `koanf:"store"`
	// URL (session.url) is the Redis server, required with store: redis.
	URL string `koanf:"url"`
	// Prefix (session.prefix) starts every Redis key; Load sets "gymkit:<instance name>:"
	// ([DefaultSessionPrefix]) when the block does not set it.
	Prefix string `koanf:"prefix"`
	// DialTimeout (session.dial_timeout, >= 0; default [DefaultSessionStoreTimeout], 1s, also
	// for 0) bounds connecting to the store.
	DialTimeout time.Duration `koanf:"dial_timeout"`
	// ReadTimeout (session.read_timeout, >= 0; default [DefaultSessionStoreTimeout], 1s, also
	// for 0) bounds each store command.
	ReadTimeout time.Duration `koanf:"read_timeout"`
	// PoolSize (session.pool_size, >= 0; 0 means go-redis's default) bounds the connections.
	PoolSize int `koanf:"pool_size"`
}

// sessionStoreProblems checks the session block: unknown keys (with a suggestion), the store
// name, the url with store: redis, non-negative timeouts and pool size, and that store: redis
// has a configured secret.
func (c *Config) sessionStoreProblems(bkey string, data map[string]any, fw *Instance, bad map[string]bool, secrets Secrets) Problems {
	raw, ok := data["session"].(map[string]any)
	if !ok || bad["session"] {
		return nil
	}
	var ps Problems
	skey := joinKey(bkey, "session")
	Instance{src: c.src}.unknownKeys(&ps, skey, raw, reflect.TypeFor[SessionConfig](), false)
	sc := &fw.Session
	switch sc.Store {
	case "", SessionStoreMemory:
		sc.Store = SessionStoreMemory
	case SessionStoreRedis:
		if sc.URL == "" {
			ps = append(ps, c.src.problem(joinKey(skey, "url"),
				"is required with session.store: redis: the Redis server, such as redis://127.0.0.1:6379/0", ""))
		} else if !strings.HasPrefix(sc.URL, "redis://") && !strings.HasPrefix(sc.URL, "rediss://") && !strings.HasPrefix(sc.URL, "unix://") {
			ps = append(ps, c.src.problem(joinKey(skey, "url"),
				"must be a redis://, rediss:// or unix:// URL, got "+strconv.Quote(redactURL(sc.URL)), ""))
		}
		if len(secrets) == 0 {
			ps = append(ps, c.src.problem(joinKey(skey, "store"),
				"redis needs session_secret set (the same on every replica): with a random per-process secret the other replicas would refuse every rollout's cookie and MCP token", ""))
		}
	default:
		ps = append(ps, c.src.problem(joinKey(skey, "store"),
			fmt.Sprintf("unknown store %q: one of memory, redis", sc.Store), suggest(sc.Store, []string{SessionStoreMemory, SessionStoreRedis})))
	}
	for _, k := range []struct {
		key string
		d   time.Duration
	}{{"dial_timeout", sc.DialTimeout}, {"read_timeout", sc.ReadTimeout}} {
		if k.d < 0 {
			ps = append(ps, c.src.problem(joinKey(skey, k.key), fmt.Sprintf("must be a duration >= 0 such as \"1s\" (0 for the default), got %v", k.d), ""))
		}
	}
	if sc.DialTimeout == 0 {
		sc.DialTimeout = Defaults().Session.DialTimeout
	}
	if sc.ReadTimeout == 0 {
		sc.ReadTimeout = Defaults().Session.ReadTimeout
	}
	if sc.PoolSize < 0 {
		ps = append(ps, c.src.problem(joinKey(skey, "pool_size"), fmt.Sprintf("must be >= 0 (0 for the default), got %d", sc.PoolSize), ""))
	}
	return ps
}

// redactURL replaces the password of a URL with "xxxxx" (u unchanged when it has none or does
// not parse).
func redactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.User == nil {
		return u
	}
	if _, ok := p.User.Password(); !ok {
		return u
	}
	return p.Redacted()
}
