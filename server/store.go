package server

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/session"
	"github.com/gymkit/gymkit/session/redisstore"
)

// stateStore returns the state store that the instance config's session
// block names (nil for the memory store: the Manager's default) and the
// function that releases it. store: redis needs configured secrets (the
// config loader says so too, for YAML configs): a random per-process
// secret would make every other replica refuse the rollout's cookies and
// tokens. The store is pinged once; a store that does not answer is
// logged, not fatal: calls fail with session.ErrStoreUnavailable until it
// answers. A store whose maxmemory-policy is not noeviction is logged at
// Warn (its evictions lose rollouts).
func stateStore(ctx context.Context, cfg config.Instance, log *slog.Logger) (session.StateStore, func() error, error) {
	sc := cfg.Session
	if sc.Store == config.SessionStoreMemory {
		return nil, nil, nil
	}
	if sc.Store != config.SessionStoreRedis {
		return nil, nil, errors.New("session.store: unknown store " + sc.Store + ": one of memory, redis")
	}
	if len(cfg.SessionSecrets) == 0 {
		return nil, nil, errors.New("session.store: redis needs session_secret set (the same on every replica): with a random per-process secret the other replicas would refuse every rollout's cookie and MCP token")
	}
	prefix, idle, lifetime := sc.Prefix, cfg.SessionIdleTimeout, cfg.SessionLifetime
	st, err := redisstore.New(redisstore.Options{URL: sc.URL, Prefix: prefix,
		IdleTimeout: min(idle, lifetime), Lifetime: lifetime,
		DialTimeout: sc.DialTimeout, ReadTimeout: sc.ReadTimeout, PoolSize: sc.PoolSize})
	if err != nil {
		return nil, nil, errors.New("session.url: " + err.Error())
	}
	pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if err := st.Ping(pctx); err != nil {
		log.Warn("the session store does not answer yet; calls that read or write rollout state fail with 503 until it does", "store", "redis", "addr", st.Addr(), "error", err)
	} else {
		log.Info("session store", "store", "redis", "addr", st.Addr(), "prefix", prefix)
		// A Redis that evicts keys when full drops rollouts' state silently
		// (a counter back at 0, a world "not initialized"): say so at start.
		if p, err := st.EvictionPolicy(pctx); err == nil && p != "noeviction" {
			log.Warn("the session store evicts keys when it is full, which silently loses rollouts' state; set maxmemory-policy noeviction (a full Redis then fails writes with 503)", "store", "redis", "addr", st.Addr(), "maxmemory-policy", p)
		}
	}
	return st, st.Close, nil
}
