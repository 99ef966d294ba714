package session

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/alexedwards/scs/v2"
)

// DefaultLifetime is the default [Options.Lifetime]: 14 days (1209600
// seconds), the Max-Age that Starlette's SessionMiddleware gives NeMo Gym's
// session cookie.
const DefaultLifetime = 14 * 24 * time.Hour

// DefaultIdleTimeout is the default [Options.IdleTimeout]: one hour (the
// default world_max_idle of workplace_assistant too).
const DefaultIdleTimeout = time.Hour

// Options configures a [Manager]. Only CookieName is required; every other
// zero value selects the default given in the field's documentation.
type Options struct {
	// CookieName is the name of the session cookie. The host passes
	// "<server type>___<instance name>" (three underscores), so that one agent
	// can carry the cookies of several servers. It must be a valid cookie
	// name (an RFC 7230 token: ASCII letters, digits and
	// !#$%&'*+-.^_`|~; no spaces, "=", ";", ",", quotes or other bytes).
	// Required: NewManager returns an error if it is empty or invalid.
	CookieName string

	// Secrets are the instance secrets (session_secret) that sign and check
	// the session cookies: the first signs every cookie, and a cookie signed
	// under any of them is accepted, so a secret can be rotated by putting
	// the new one first and dropping the old one a Lifetime later. The cookie
	// key of a secret is DeriveKey(secret, "gymkit/session cookie v1"),
	// distinct from the MCP door's token key. Every replica of an instance
	// needs the same list. nil or empty means one random secret for this
	// Manager ([RandomSecret]): cookies then name their session only in this
	// process (the host warns about it; NewManager does not). NewManager
	// returns an error for an empty entry; it does not judge strength (see
	// [CheckSecret], which the host applies). The slices are not kept.
	Secrets [][]byte

	// Lifetime is the absolute lifetime of a rollout session: the cookie's
	// Max-Age (in whole seconds, rounded up; the same on every answer, as
	// Starlette's), and the age, counted from the session's first answer,
	// beyond which the server refuses its cookie however active the
	// session is (the start time is signed inside the cookie and kept by
	// every re-signing). A refused cookie starts a new session, with no
	// state. Zero means DefaultLifetime (14 days, Max-Age=1209600).
	// NewManager returns an error if it is negative.
	Lifetime time.Duration

	// IdleTimeout is how long a rollout session lives without a request:
	// the server refuses a cookie signed longer ago than that (the time of
	// signing is signed inside it), and it is the idle expiry of the
	// default State store (state neither read nor written for IdleTimeout
	// is dropped). A response echoes the request's cookie unchanged while
	// it was signed under the first secret less than 1% of IdleTimeout ago
	// (36 seconds at the default), and re-signs it otherwise, so a rollout
	// whose requests come less than 99% of IdleTimeout apart keeps its
	// session until Lifetime. The cookie's Max-Age stays Lifetime, so the
	// client keeps a cookie that the server may refuse first. Zero means
	// DefaultIdleTimeout (1 hour); a value above Lifetime acts as Lifetime.
	// NewManager returns an error if it is negative.
	IdleTimeout time.Duration

	// Clock is the time source of cookie ages and of the default State
	// store's expiry. nil means time.Now; tests pass a fake clock. It must
	// be safe for concurrent use.
	Clock func() time.Time

	// Secure adds the Secure attribute to the cookie, for servers reached
	// only over HTTPS. The default, false, matches Starlette's
	// https_only=False.
	Secure bool

	// State keeps per-rollout state for [Get] and [Update], keyed by session
	// id. nil means NewSCSStore(Store, IdleTimeout) when Store is set, and
	// otherwise NewMemoryStore(WithIdleTimeout(IdleTimeout),
	// WithClock(Clock)). A State given here keeps its own expiry: give it
	// the same idle timeout.
	State StateStore

	// Store, when State is nil, is an scs store (memstore, redisstore, ...)
	// that keeps the per-rollout state through [NewSCSStore], with an idle
	// expiry of IdleTimeout counted from the last write (the scs store
	// removes expired entries itself: memstore sweeps every minute, Redis
	// expires keys). nil (the default): the state is in a [MemoryStore].
	// The session cookie itself never needs a store.
	Store scs.Store
}

// Manager issues rollout sessions: it gives each request a session id, read
// from the signed session cookie or freshly made, and puts it and the state
// store into the request context (see [Manager.Middleware], [ID], [Get],
// [Update]). Build it with [NewManager]; the zero Manager is not usable. A
// Manager is safe for concurrent use.
type Manager struct {
	name     string
	lifetime time.Duration
	idle     time.Duration // <= lifetime
	attrs    string        // cookie attributes after the value: "; Path=/; Max-Age=...; ..."
	keys     []*cookieKey  // keys[0] signs; all verify
	state    StateStore
	now      func() time.Time // time.Now; replaced in tests
}

// NewManager returns a Manager configured by opts (see [Options] for the
// defaults). The error names the option that is wrong: opts.CookieName
// empty or not a valid cookie name, opts.Lifetime or opts.IdleTimeout
// negative, or an empty entry of opts.Secrets.
func NewManager(opts Options) (*Manager, error) {
	if opts.CookieName == "" {
		return nil, errors.New("session: NewManager: Options.CookieName is required")
	}
	if err := (&http.Cookie{Name: opts.CookieName, Value: "x"}).Valid(); err != nil {
		return nil, fmt.Errorf("session: NewManager: invalid Options.CookieName %q: %w", opts.CookieName, err)
	}
	if opts.Lifetime < 0 {
		return nil, fmt.Errorf("session: NewManager: negative Options.Lifetime %v", opts.Lifetime)
	}
	if opts.IdleTimeout < 0 {
		return nil, fmt.Errorf("session: NewManager: negative Options.IdleTimeout %v", opts.IdleTimeout)
	}
	for i, s := range opts.Secrets {
		if len(s) == 0 {
			return nil, fmt.Errorf("session: NewManager: Options.Secrets[%d] is empty", i)
		}
	}
	m := &Manager{
		name:     opts.CookieName,
		lifetime: opts.Lifetime,
		idle:     opts.IdleTimeout,
		state:    opts.State,
		now:      opts.Clock,
	}
	if m.now == nil {
		m.now = time.Now
	}
	if m.lifetime == 0 {
		m.lifetime = DefaultLifetime
	}
	if m.idle == 0 {
		m.idle = DefaultIdleTimeout
	}
	m.idle = min(m.idle, m.lifetime)
	secrets := opts.Secrets
	if len(secrets) == 0 {
		secrets = [][]byte{RandomSecret()}
	}
	for _, s := range secrets {
		m.keys = append(m.keys, newCookieKey(s))
	}
	if m.state == nil {
		if opts.Store != nil {
			m.state = NewSCSStore(opts.Store, m.idle)
		} else {
			m.state = NewMemoryStore(WithIdleTimeout(m.idle), WithClock(m.now))
		}
	}
	maxAge := int64((m.lifetime + time.Second - 1) / time.Second)
	m.attrs = "; Path=/; Max-Age=" + strconv.FormatInt(maxAge, 10) + "; HttpOnly"
	if opts.Secure {
		m.attrs += "; Secure"
	}
	m.attrs += "; SameSite=Lax"
	return m, nil
}

// MustNewManager is [NewManager] for options written in the program (a
// literal cookie name, as in tests and examples): it panics where
// NewManager returns an error. Options that come from a configuration go
// through NewManager.
func MustNewManager(opts Options) *Manager {
	m, err := NewManager(opts)
	if err != nil {
		panic(err)
	}
	return m
}

// CookieName returns the name of the session cookie ([Options.CookieName]).
func (m *Manager) CookieName() string { return m.name }

// Lifetime returns the absolute lifetime of a session ([Options.Lifetime]
// with its default applied): the cookie's Max-Age.
func (m *Manager) Lifetime() time.Duration { return m.lifetime }

// IdleTimeout returns how long a session lives without a request
// ([Options.IdleTimeout] with its default applied, at most Lifetime).
func (m *Manager) IdleTimeout() time.Duration { return m.idle }

// Sweep removes the expired state of the Manager's State store now, if the
// store can ([Sweeper]; a [MemoryStore] can; an [SCSStore]'s scs store
// expires its entries itself), and returns how many sessions it removed.
// The host calls it periodically (see [Manager.SweepInterval]); it is safe
// for concurrent use.
func (m *Manager) Sweep(ctx context.Context) (int, error) {
	if s, ok := m.state.(Sweeper); ok {
		return s.Sweep(ctx)
	}
	return 0, nil
}

// SweepInterval is how often a host should call [Manager.Sweep]: a tenth
// of the idle timeout, between one second and one minute, so expired state
// is freed within about an idle timeout plus a minute even when no request
// comes.
func (m *Manager) SweepInterval() time.Duration {
	return min(max(m.idle/10, time.Second), time.Minute)
}

// State returns the store that keeps per-rollout state ([Options.State]),
// for instance to delete a finished rollout's state with
// State().Delete(ctx, id).
func (m *Manager) State() StateStore { return m.state }

// Middleware returns a handler that runs next inside the request's rollout
// session.
//
// Before calling next it decides the session: the one named by the request's
// session cookie if one of the Manager's secrets signed it for this cookie
// name less than IdleTimeout ago, for a session that started less than
// Lifetime ago, otherwise a new one with a fresh id ([NewID]): no cookie,
// or a forged, altered, foreign, idle or expired one. When the request
// carries several cookies of the name, the last one counts, as with
// Starlette (whose cookie parser keeps the last value of a name); an
// unusable last one starts a new session even if an earlier one is good.
// The request context given to next carries the id ([ID]) and the state
// store ([Get], [Update]).
//
// Deciding the session costs one HMAC-SHA256 per secret tried and touches no
// store: the cookie carries the session id, signed (see [Options.Secrets]),
// so a replayed cookie names the same session on every request, on any
// replica that has the secrets, however many requests replay it at once,
// and a request that writes no state (a health probe, a stateless tool, an
// MCP call, a client that drops cookies, the default /seed_session) leaves
// nothing behind. State is created by the first [Update] under the session.
//
// Every response gets exactly one Set-Cookie header for the session cookie,
// whatever next does: success or error statuses, writing early, flushing,
// writing nothing at all, or panicking (recovered by an inner middleware, or
// by an outer one that writes its error response to the original
// ResponseWriter), unless next calls OmitSessionCookie on the ResponseWriter
// before the headers are sent (the framework does for Python's
// unhandled-exception 500, which Starlette sends without the cookie). The
// header is set before next runs and checked again just before the headers
// are sent, where any other cookie of the same name that next set is
// dropped. NeMo Gym's agents replace their cookies with each response's, so
// a response without it would lose the rollout. Every response that carries
// the cookie also carries "Vary: Cookie" (added to any Vary the response
// already has, once), and the one without it carries no such Vary: as
// NeMo's answers, whose Starlette SessionMiddleware adds "vary: Cookie"
// where it adds the cookie, on every answer that passes through it (the
// golden replay of tests/peerreplay checks both together). The cookie is
// "<name>=<value>; Path=/; Max-Age=<Lifetime>; HttpOnly; SameSite=Lax" (plus
// "; Secure" with [Options.Secure]); its value is the session id and the
// times the session started and the cookie was signed, signed: 84
// base64url characters, never state. A replayed cookie is echoed unchanged
// while it is recent, and re-signed otherwise (see [Options.IdleTimeout]).
//
// The ResponseWriter given to next supports Unwrap (for
// http.ResponseController), Flush and Hijack. Middleware of a Manager nested
// inside Middleware of the same Manager runs next directly.
func (m *Manager) Middleware(next http.Handler) http.Handler {
	if next == nil {
		panic("session: Middleware with a nil handler")
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s := scopeFrom(r.Context()); s != nil && s.m == m && s.fromCookie {
			next.ServeHTTP(w, r)
			return
		}
		now := m.now()
		id, value, fresh, ok := "", "", false, false
		var started time.Time
		if v, found := cookieValue(r.Header, m.name); found {
			id, started, fresh, ok = m.verifyCookieFresh(v, now)
			if fresh {
				value = v // canonical: the one spelling that verifies
			}
		}
		if !ok {
			id, started = NewID(), now
		}
		if !fresh {
			value = m.signCookie(id, started, now)
		}
		cookie := m.name + "=" + value + m.attrs
		fixCookie(w.Header(), m.name, cookie)
		varyCookie(w.Header(), true)
		sw := &responseWriter{ResponseWriter: w, m: m, cookie: cookie}
		r = r.WithContext(context.WithValue(r.Context(), ctxKey{}, &scope{id: id, m: m, fromCookie: true}))
		returned := false
		defer func() {
			if !returned { // next panicked
				sw.panicked()
			}
		}()
		next.ServeHTTP(sw, r)
		returned = true
		sw.finish()
	})
}

// scope is what a request context carries: the session id and its Manager.
type scope struct {
	id         string
	m          *Manager
	fromCookie bool // made by Middleware (not WithID)
}

// cookieValue returns the value of the last cookie named name in the Cookie
// header lines of h, read as Starlette's cookie_parser reads them: pairs
// split at ";" and at their first "=", name and value trimmed of white
// space, and one pair of double quotes around the value removed; a later
// pair of a name replaces an earlier one. ok is false if there is none.
func cookieValue(h http.Header, name string) (value string, ok bool) {
	for _, line := range h["Cookie"] {
		for line != "" {
			var pair string
			pair, line, _ = strings.Cut(line, ";")
			n, v, found := strings.Cut(pair, "=")
			if !found || strings.TrimSpace(n) != name {
				continue
			}
			v = strings.TrimSpace(v)
			if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
				v = v[1 : len(v)-1]
			}
			value, ok = v, true
		}
	}
	return value, ok
}

// fixCookie makes cookie the only Set-Cookie of h for the cookie name,
// keeping the other cookies; an empty cookie removes every one of the name.
func fixCookie(h http.Header, name, cookie string) {
	vals := h["Set-Cookie"]
	if len(vals) == 1 && vals[0] == cookie {
		return
	}
	kept := make([]string, 0, len(vals)+1)
	for _, v := range vals {
		if n, _, ok := strings.Cut(v, "="); !ok || strings.TrimSpace(n) != name {
			kept = append(kept, v)
		}
	}
	if cookie != "" {
		kept = append(kept, cookie)
	}
	if len(kept) == 0 {
		delete(h, "Set-Cookie")
		return
	}
	h["Set-Cookie"] = kept
}

// varyCookie makes the Vary header of h list Cookie (on), adding a "Cookie"
// line unless a line already lists it or "*"; or removes the "Cookie" lines
// (off), those varyCookie added, leaving other lists alone.
func varyCookie(h http.Header, on bool) {
	vals := h["Vary"]
	if on {
		for _, v := range vals {
			for tok := range strings.SplitSeq(v, ",") {
				if tok = strings.TrimSpace(tok); tok == "*" || strings.EqualFold(tok, "Cookie") {
					return
				}
			}
		}
		h["Vary"] = append(vals, "Cookie")
		return
	}
	if !slices.Contains(vals, "Cookie") {
		return
	}
	kept := slices.DeleteFunc(slices.Clone(vals), func(v string) bool { return v == "Cookie" })
	if len(kept) == 0 {
		delete(h, "Vary")
		return
	}
	h["Vary"] = kept
}

// responseWriter is the ResponseWriter Middleware gives next. It does not
// buffer: it only checks the session cookie at the moment the headers are
// sent.
type responseWriter struct {
	http.ResponseWriter
	m      *Manager
	cookie string
	sent   bool // headers sent or being sent
	omit   bool // OmitSessionCookie: send no session cookie
}

// OmitSessionCookie leaves the session cookie off this response, as Python
// answers an unhandled exception (NeMo's exception middleware, in
// nemo_gym/server_utils.py, sits outside Starlette's SessionMiddleware and
// answers the exceptions that pass through it): the gymkit framework calls
// it before writing such a 500 (host.SessionCookieOmitter). Any
// Set-Cookie of the session's name is removed when the headers are sent,
// and so is the "Vary: Cookie" the middleware added (Starlette adds it
// where it adds the cookie, so NeMo's unhandled-exception 500 carries
// neither). A NeMo agent replaces its cookie jar with the response's
// cookies, so its next request starts a new session, as it does against
// Python (golden: nemo-gym-peer/workplace_assistant.jsonl, "unhandled 500
// mid-rollout, then the next call"). State already written with [Update]
// stays in the store until it expires. It has no effect once the headers
// were sent.
func (w *responseWriter) OmitSessionCookie() {
	if !w.sent {
		w.omit = true
	}
}

// beforeHeaders runs once, before the headers are sent.
func (w *responseWriter) beforeHeaders() {
	if w.sent {
		return
	}
	w.sent = true
	if w.omit {
		fixCookie(w.Header(), w.m.name, "")
		varyCookie(w.Header(), false)
		return
	}
	fixCookie(w.Header(), w.m.name, w.cookie)
	varyCookie(w.Header(), true)
}

// WriteHeader sends the headers with the session cookie. Informational
// (1xx) statuses pass through.
func (w *responseWriter) WriteHeader(code int) {
	if code >= 100 && code <= 199 && code != http.StatusSwitchingProtocols {
		if !w.sent {
			w.ResponseWriter.WriteHeader(code)
		}
		return
	}
	w.beforeHeaders()
	w.ResponseWriter.WriteHeader(code)
}

// Write writes body bytes, sending the headers first if needed.
func (w *responseWriter) Write(p []byte) (int, error) {
	w.beforeHeaders()
	return w.ResponseWriter.Write(p)
}

// Flush implements http.Flusher; it does nothing if the underlying
// ResponseWriter cannot flush.
func (w *responseWriter) Flush() { _ = w.FlushError() }

// FlushError flushes like Flush and reports the error (used by
// http.ResponseController).
func (w *responseWriter) FlushError() error {
	w.beforeHeaders()
	return http.NewResponseController(w.ResponseWriter).Flush()
}

// Hijack implements http.Hijacker when the underlying ResponseWriter can
// hijack.
func (w *responseWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, rw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	w.sent = true
	return c, rw, nil
}

// Unwrap returns the underlying ResponseWriter, for http.ResponseController.
func (w *responseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// finish runs after next returned: a handler that wrote nothing gets its
// (empty 200) response with the cookie.
func (w *responseWriter) finish() { w.beforeHeaders() }

// panicked runs while next's panic unwinds through Middleware: it fixes the
// cookie for whoever recovers and writes to the original ResponseWriter. It
// must not write.
func (w *responseWriter) panicked() { w.beforeHeaders() }
