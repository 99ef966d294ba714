package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"sync/atomic"
	"time"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/session"
)

// The health endpoints every instance serves (GET or HEAD; other methods
// reach the routes as before). They are served outside the session
// middleware (no Set-Cookie) and are never behind the bearer auth of the
// auth block, since orchestrators' probes carry no token. Their names have
// a "/" inside, so no tool ([A-Za-z0-9_-]+) can take them; a tool named
// health is POST /health and unaffected. docs/operations.md documents them.
const (
	// livePath answers 200 {"status":"live"} while the process serves.
	livePath = "/health/live"
	// readyPath answers 200 {"status":"ready"} when the instance can take
	// rollouts, 503 otherwise (see [Instance.Ready]).
	readyPath = "/health/ready"
)

// ReadyPingTimeout bounds the session store's Ping in a readiness check:
// a store that does not answer within it is not ready.
const ReadyPingTimeout = time.Second

// StorePinger is the optional interface of a session.StateStore that can
// tell whether it is reachable (a Redis store). Ping returns nil when the
// store answers, an error otherwise; it must honour ctx's deadline and be
// safe for concurrent use. A store without Ping (the memory store) is
// always reachable.
type StorePinger interface {
	Ping(ctx context.Context) error
}

// Readiness is the answer of GET /health/ready, as JSON:
//
//	{"status":"ready"}
//	{"status":"unavailable","reason":"draining"}
//	{"status":"unavailable","reason":"store_unreachable","store":"redisstore.Store","detail":"ping failed"}
//
// Status is "ready" (HTTP 200) or "unavailable" (HTTP 503). Reason is ""
// when ready, "draining" while the instance shuts down ([Instance.Drain]),
// "store_unreachable" when the session store's Ping failed or took longer
// than [ReadyPingTimeout]. Store names the store's Go type (package.Type)
// and Detail says "ping failed" or "ping timed out after 1s" for an
// unreachable store; the store's own error is logged (at Warn, when
// readiness changes), not answered, since the endpoint is open.
type Readiness struct {
	// Status is "ready" or "unavailable".
	Status string `json:"status"`
	// Reason is "draining" or "store_unreachable"; "" (omitted) when ready.
	Reason string `json:"reason,omitempty"`
	// Store is the unreachable store's Go type; "" (omitted) otherwise.
	Store string `json:"store,omitempty"`
	// Detail is "ping failed" or "ping timed out after 1s"; "" (omitted) otherwise.
	Detail string `json:"detail,omitempty"`
}

// health is an instance's readiness state, for logging transitions.
type health struct {
	unready atomic.Bool // the last check was not ready
}

// Drain marks the instance as draining: from then on GET /health/ready
// answers 503 {"status":"unavailable","reason":"draining"} and
// gymkit_draining is 1, so that a load balancer stops sending it new
// rollouts while the requests in flight finish. [Host.Serve] calls it on
// every instance when its context is done, before it stops accepting
// connections. It cannot be undone; it is safe for concurrent use.
func (in *Instance) Drain() { in.draining.Store(true) }

// Draining reports whether [Instance.Drain] was called.
func (in *Instance) Draining() bool { return in.draining.Load() }

// Ready checks whether the instance can take rollouts: not draining, and a
// session store that answers its Ping ([StorePinger]) within
// [ReadyPingTimeout] (a store without Ping is reachable). It is what GET
// /health/ready answers; it logs a warning when the instance becomes
// unready (with the store's error) and an Info record when it is ready
// again. Safe for concurrent use.
func (in *Instance) Ready(ctx context.Context) Readiness {
	if in.Draining() {
		return Readiness{Status: "unavailable", Reason: "draining"}
	}
	store := baseStore(in.Sessions.State())
	if p, ok := store.(StorePinger); ok {
		pctx, cancel := context.WithTimeout(ctx, ReadyPingTimeout)
		err := p.Ping(pctx)
		if err == nil && pctx.Err() != nil {
			err = pctx.Err()
		}
		cancel()
		if err != nil {
			r := Readiness{Status: "unavailable", Reason: "store_unreachable", Store: storeName(store), Detail: "ping failed"}
			if errors.Is(err, context.DeadlineExceeded) {
				r.Detail = "ping timed out after " + ReadyPingTimeout.String()
			}
			if !in.health.unready.Swap(true) {
				in.Logger.Warn("not ready: the session store is unreachable", "store", r.Store, "error", err)
			}
			return r
		}
	}
	if in.health.unready.Swap(false) {
		in.Logger.Info("ready again: the session store answers", "store", storeName(store))
	}
	return Readiness{Status: "ready"}
}

// storeName is the Go type of a store without the pointer: "session.MemoryStore".
func storeName(s session.StateStore) string {
	t := reflect.TypeOf(s)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return "nil"
	}
	return t.String()
}

// opsRoutes serves the health endpoints and, when m is set, the metrics
// endpoint, on GET and HEAD; every other request goes to next.
func opsRoutes(in *Instance, m *instanceMetrics, next http.Handler) http.Handler {
	var metrics http.Handler
	if m != nil {
		metrics = m.handler(in.Logger)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			next.ServeHTTP(w, r)
			return
		}
		switch p := r.URL.Path; {
		case p == livePath:
			writeHealth(w, http.StatusOK, `{"status":"live"}`)
		case p == readyPath:
			rd := in.Ready(r.Context())
			code := http.StatusOK
			if rd.Status != "ready" {
				code = http.StatusServiceUnavailable
			}
			writeHealth(w, code, rd.json())
		case metrics != nil && p == m.path:
			metrics.ServeHTTP(w, r)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// json is r's JSON form.
func (r Readiness) json() string {
	b, _ := json.Marshal(r) // strings only: cannot fail
	return string(b)
}

func writeHealth(w http.ResponseWriter, code int, body string) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_, _ = w.Write([]byte(body))
}

// isHealthProbe reports whether r is a GET or HEAD of a health endpoint, which
// the auth block never protects.
func isHealthProbe(r *http.Request) bool {
	return (r.Method == http.MethodGet || r.Method == http.MethodHead) && (r.URL.Path == livePath || r.URL.Path == readyPath)
}

// isMetricsPath reports whether r is for the metrics endpoint of cfg.
func isMetricsPath(cfg config.MetricsConfig, r *http.Request) bool {
	return r.URL.Path == cfg.Path
}
