package session

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/alexedwards/scs/v2"
	"github.com/alexedwards/scs/v2/memstore"
)

// DefaultLifetime is the default [Options.Lifetime]: 14 days (1209600
// seconds), the Max-Age that Starlette's SessionMiddleware gives NeMo Gym's
// session cookie.
const DefaultLifetime = 14 * 24 * time.Hour

// maxProvisional is how long the store keeps a new session that nothing
// has confirmed yet (no [Update], no replay of its cookie); see
// [Manager.Middleware]. Lifetimes shorter than this apply as they are.
const maxProvisional = time.Hour

// Options configures a [Manager]. Only CookieName is required; every other
// zero value selects the default given in the field's documentation.
type Options struct {
	// CookieName is the name of the session cookie. The host passes
	// "<server type>___<instance name>" (three underscores), so that one agent
	// can carry the cookies of several servers. It must be a valid cookie
	// name (an RFC 7230 token: no spaces, no "=", ";", "," or quotes).
	// Required: NewManager panics if it is empty or invalid.
	CookieName string

	// Lifetime is how long a session is remembered after the last request
	// that carried its cookie, and the cookie's Max-Age (in whole seconds,
	// rounded up). Zero means DefaultLifetime (14 days, Max-Age=1209600).
	// NewManager panics if it is negative.
	//
	// The store entry of a session is re-saved with a fresh expiry when more
	// than 1% of Lifetime has passed since it was last saved, so the server
	// may forget a session up to 1% of Lifetime (3.4 hours at the default)
	// before the client's cookie expires; a cookie the store no longer knows
	// simply starts a new session. A new session that no request has
	// confirmed yet (by [Update], or by replaying its cookie) is kept for
	// only min(Lifetime, 1 hour); see [Manager.Middleware]. Lifetime is also
	// the idle expiry of the default State store.
	Lifetime time.Duration

	// Secure adds the Secure attribute to the cookie, for servers reached
	// only over HTTPS. The default, false, matches Starlette's
	// https_only=False.
	Secure bool

	// Store keeps the mapping from cookie token to session id, the only data
	// a session keeps in scs. It is any scs store (memstore, redisstore, ...);
	// it sees SHA-256 hashes of the tokens, never the tokens themselves.
	// nil means a new scs memstore, which runs one background cleanup
	// goroutine for the life of the process.
	Store scs.Store

	// State keeps per-rollout state for [Get] and [Update], keyed by session
	// id. nil means NewMemoryStore(WithIdleTimeout(Lifetime)).
	State StateStore

	// ErrorFunc writes the response when the session cannot be set up: Store
	// failed while looking the cookie up, or while saving a new session
	// whose id the handler asked for (see [Manager.Middleware]). The
	// session cookie is already in w.Header() when it is called
	// (the incoming cookie, echoed, when there was one), so that a passing
	// store failure does not cost the client its session. nil means a 500
	// response whose body is a JSON string of the error text (NeMo Gym's
	// shape for a server error), logged with slog.Default().
	ErrorFunc func(w http.ResponseWriter, r *http.Request, err error)
}

// Manager issues rollout sessions: it gives each request a session id, read
// from the session cookie or freshly made, and puts it and the state store
// into the request context (see [Manager.Middleware], [ID], [Get],
// [Update]). Build it with [NewManager]; the zero Manager is not usable. A
// Manager is safe for concurrent use.
type Manager struct {
	name        string
	lifetime    time.Duration
	provisional time.Duration // min(lifetime, maxProvisional)
	attrs       string        // cookie attributes after the value: "; Path=/; Max-Age=...; ..."
	store       scs.Store
	state       StateStore
	errorFunc   func(http.ResponseWriter, *http.Request, error)
	now         func() time.Time // time.Now; replaced in tests
}

// NewManager returns a Manager configured by opts (see [Options] for the
// defaults). It panics if opts.CookieName is empty or not a valid cookie
// name, or if opts.Lifetime is negative.
func NewManager(opts Options) *Manager {
	if opts.CookieName == "" {
		panic("session: NewManager: Options.CookieName is required")
	}
	if err := (&http.Cookie{Name: opts.CookieName, Value: "x"}).Valid(); err != nil {
		panic(fmt.Sprintf("session: NewManager: invalid Options.CookieName %q: %v", opts.CookieName, err))
	}
	if opts.Lifetime < 0 {
		panic(fmt.Sprintf("session: NewManager: negative Options.Lifetime %v", opts.Lifetime))
	}
	m := &Manager{
		name:      opts.CookieName,
		lifetime:  opts.Lifetime,
		store:     opts.Store,
		state:     opts.State,
		errorFunc: opts.ErrorFunc,
		now:       time.Now,
	}
	if m.lifetime == 0 {
		m.lifetime = DefaultLifetime
	}
	m.provisional = min(m.lifetime, maxProvisional)
	if m.store == nil {
		m.store = memstore.New()
	}
	if m.state == nil {
		m.state = NewMemoryStore(WithIdleTimeout(m.lifetime))
	}
	if m.errorFunc == nil {
		m.errorFunc = defaultErrorFunc
	}
	maxAge := int64((m.lifetime + time.Second - 1) / time.Second)
	m.attrs = "; Path=/; Max-Age=" + strconv.FormatInt(maxAge, 10) + "; HttpOnly"
	if opts.Secure {
		m.attrs += "; Secure"
	}
	m.attrs += "; SameSite=Lax"
	return m
}

// CookieName returns the name of the session cookie ([Options.CookieName]).
func (m *Manager) CookieName() string { return m.name }

// State returns the store that keeps per-rollout state ([Options.State]),
// for instance to delete a finished rollout's state with
// State().Delete(ctx, id).
func (m *Manager) State() StateStore { return m.state }

// Middleware returns a handler that runs next inside the request's rollout
// session.
//
// Before calling next it decides the session: the one named by the request's
// session cookie if the Store knows that cookie's token, otherwise a new one
// with a fresh id ([NewID]) and a fresh token (no cookie, or a forged,
// unknown or expired one). When the request carries several cookies of the
// name, the last one counts, as with Starlette (whose cookie parser keeps the
// last value of a name). The request context given to next carries the id
// ([ID]) and the state store ([Get], [Update]).
//
// Every response gets exactly one Set-Cookie header for the session cookie,
// whatever next does: success or error statuses, writing early, flushing,
// writing nothing at all, or panicking (recovered by an inner middleware, or
// by an outer one that writes its error response to the original
// ResponseWriter), unless next calls OmitSessionCookie on the ResponseWriter
// before the headers are sent (the framework does for Python's
// unhandled-exception 500, which Starlette sends without the cookie). The header is set before next runs and checked again
// just before the headers are sent, where any other cookie of the same name
// that next set is dropped. NeMo Gym's agents replace their cookies with
// each response's, so a response without it would lose the rollout. The
// cookie is "<name>=<token>; Path=/; Max-Age=<Lifetime>; HttpOnly;
// SameSite=Lax" (plus "; Secure" with [Options.Secure]); its value is an
// opaque random token (32 bytes, base64url), never session data.
//
// Every cookie Middleware hands out names its session from then on, as
// NeMo Gym's signed cookies do: a new session is saved to the Store before
// the response headers are sent, whether or not next used it, so a client
// that replays the cookie of a response that never touched its session (the
// default /seed_session, answering {}) gets that same session on every
// later request, including several requests sent at once and an aiohttp
// retry of a dropped call. To keep memory bounded under cookieless traffic
// (health probes, MCP calls that carry a session token, clients that drop
// cookies), a new session is first saved with a provisional expiry of
// min(Lifetime, 1 hour), and given the full Lifetime the first time it is
// confirmed: by [Update] (state was written under it), or by a request that
// replays its cookie. [ID] and [Get] do not confirm a session and add no
// store write (but for one retry after a failed save, see [ID]), so that
// request logging, say, may call ID on every request at no cost. A session
// whose id was handed out by ID but whose cookie is first replayed after
// the provisional expiry is therefore forgotten (the replay starts a new
// session); state kept with Update is not.
//
// Each new session costs one store write, made with the first of: Update
// (full Lifetime; a failure is Update's error), or the response headers
// being sent (provisional expiry; a second write follows if Update first
// runs after the headers were sent). If the write at the headers fails,
// the response is replaced by [Options.ErrorFunc]'s if next asked for the id
// ([ID]), since it may have handed it out; otherwise the failure is ignored,
// and the cookie, which the store does not know, starts a new session if it
// is replayed. Replaying a known cookie costs one store read, plus a write
// when the expiry must be extended (see [Options.Lifetime]). The
// ResponseWriter given to next supports Unwrap (for http.ResponseController),
// Flush and Hijack.
//
// A Store failure before next runs (looking up the cookie) is answered by
// [Options.ErrorFunc] without calling next; the response echoes the
// request's cookie. Middleware of a Manager nested inside Middleware of the
// same Manager runs next directly.
func (m *Manager) Middleware(next http.Handler) http.Handler {
	if next == nil {
		panic("session: Middleware with a nil handler")
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s := scopeFrom(r.Context()); s != nil && s.m == m && s.fromCookie {
			next.ServeHTTP(w, r)
			return
		}
		s, token, err := m.load(r)
		cookie := m.name + "=" + token + m.attrs
		fixCookie(w.Header(), m.name, cookie)
		sw := &responseWriter{ResponseWriter: w, m: m, r: r, cookie: cookie}
		if err != nil {
			m.errorFunc(sw, r, err)
			sw.finish()
			return
		}
		r = r.WithContext(context.WithValue(r.Context(), ctxKey{}, s))
		sw.r, sw.fresh = r, s.fresh
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

// scope is what a request context carries: the session id and its Manager,
// and for a session Middleware made for this request, what it takes to save
// it.
type scope struct {
	id         string
	m          *Manager
	fromCookie bool          // made by Middleware (not WithID)
	fresh      *freshSession // nil unless the session is new
}

// saveLevel is how far a new session has been saved to the store.
type saveLevel uint8

const (
	unsaved          saveLevel = iota
	savedProvisional           // until now + Manager.provisional
	savedConfirmed             // until now + Manager.lifetime
)

// freshSession is a session Middleware made for this request. It is saved
// to the store before the response headers are sent, provisionally, or for
// the full lifetime as soon as Update writes state under it.
type freshSession struct {
	m     *Manager
	id    string
	token string

	mu      sync.Mutex
	saved   saveLevel
	used    bool // ID handed the id out
	sent    bool // the response headers were sent (or the connection hijacked)
	retried bool // observe retried a failed save after the headers were sent
}

// save saves the session for the full lifetime unless it was already. It is
// what Update calls before touching state.
func (f *freshSession) save(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.saveLocked(ctx, savedConfirmed)
}

func (f *freshSession) saveLocked(ctx context.Context, level saveLevel) error {
	if f.saved >= level {
		return nil
	}
	d := f.m.lifetime
	if level == savedProvisional {
		d = f.m.provisional
	}
	if err := f.m.commit(ctx, f.token, f.id, f.m.now().Add(d)); err != nil {
		return fmt.Errorf("session: saving new session: %w", err)
	}
	f.saved = level
	return nil
}

// observe records that ID handed the id out. It does no I/O, except to
// retry, once and best effort, a save that failed when the headers were
// sent (the id was not handed out then, so nothing reported the failure).
func (f *freshSession) observe(ctx context.Context) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.used = true
	if f.sent && f.saved == unsaved && !f.retried {
		f.retried = true
		_ = f.saveLocked(ctx, savedProvisional)
	}
}

// beforeHeaders is called once, just before the response headers are sent
// (or the connection is hijacked, or next panics): the session must be in
// the store by then, because the client may replay the cookie as soon as it
// has the response, on several connections at once. The error is reported
// only if the id was handed out; otherwise the save is best effort.
func (f *freshSession) beforeHeaders(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sent = true
	if err := f.saveLocked(ctx, savedProvisional); err != nil && f.used {
		return err
	}
	return nil
}

// load decides the request's session. It returns the scope and the cookie
// token to send; on a store error it returns the error and the token to
// echo.
func (m *Manager) load(r *http.Request) (*scope, string, error) {
	ctx := r.Context()
	if token, ok := cookieValue(r.Header, m.name); ok && wellFormedToken(token) {
		id, expires, found, err := m.find(ctx, token)
		if err != nil {
			return nil, token, fmt.Errorf("session: loading session: %w", err)
		}
		if found {
			now := m.now()
			// This also confirms a provisional session on the first
			// replay of its cookie, its expiry being well short of a
			// full lifetime away.
			if now.Add(m.lifetime).Sub(expires) > m.lifetime/100 {
				// Best effort: the session stays valid until its old
				// expiry, and the next request tries again.
				_ = m.commit(ctx, token, id, now.Add(m.lifetime))
			}
			return &scope{id: id, m: m, fromCookie: true}, token, nil
		}
	}
	f := &freshSession{m: m, id: NewID(), token: newToken()}
	return &scope{id: f.id, m: m, fromCookie: true, fresh: f}, f.token, nil
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

// The scs store keeps, for each token, the JSON object
// {"session_id":"<id>","expires":<Unix time in nanoseconds>}: the session
// id and when the entry expires (so that Middleware knows when to refresh
// it). It is written and read by hand, in exactly that form (2-3x faster
// than encoding/json, on every request).
const (
	recordHead = `{"session_id":"`
	recordMid  = `","expires":`
)

func encodeRecord(id string, expires time.Time) []byte {
	b := make([]byte, 0, len(recordHead)+len(id)+len(recordMid)+20+1)
	b = append(b, recordHead...)
	b = append(b, id...)
	b = append(b, recordMid...)
	b = strconv.AppendInt(b, expires.UnixNano(), 10)
	return append(b, '}')
}

// decodeRecord parses what encodeRecord wrote; ok is false for anything
// else.
func decodeRecord(b []byte) (id string, expires time.Time, ok bool) {
	const idLen = 36
	rest, found := bytes.CutPrefix(b, []byte(recordHead))
	if !found || len(rest) < idLen {
		return "", time.Time{}, false
	}
	id, rest = string(rest[:idLen]), rest[idLen:]
	rest, found = bytes.CutPrefix(rest, []byte(recordMid))
	if !found || !validID(id) {
		return "", time.Time{}, false
	}
	num, found := bytes.CutSuffix(rest, []byte("}"))
	if !found {
		return "", time.Time{}, false
	}
	ns, err := strconv.ParseInt(string(num), 10, 64)
	if err != nil {
		return "", time.Time{}, false
	}
	return id, time.Unix(0, ns), true
}

// find looks token up in the store. An entry that is missing, expired or
// malformed is not found (found == false, err == nil); err is for store
// failures only.
func (m *Manager) find(ctx context.Context, token string) (id string, expires time.Time, found bool, err error) {
	key := storeKey(token)
	var b []byte
	if cs, ok := m.store.(scs.CtxStore); ok {
		b, found, err = cs.FindCtx(ctx, key)
	} else {
		b, found, err = m.store.Find(key)
	}
	if err != nil || !found {
		return "", time.Time{}, false, err
	}
	id, expires, ok := decodeRecord(b)
	if !ok || !expires.After(m.now()) {
		return "", time.Time{}, false, nil
	}
	return id, expires, true, nil
}

// commit saves token -> id in the store until expires.
func (m *Manager) commit(ctx context.Context, token, id string, expires time.Time) error {
	b := encodeRecord(id, expires)
	key := storeKey(token)
	if cs, ok := m.store.(scs.CtxStore); ok {
		return cs.CommitCtx(ctx, key, b, expires)
	}
	return m.store.Commit(key, b, expires)
}

// tokenLen is the length of a token: 32 random bytes in unpadded base64url,
// as scs makes them.
const tokenLen = 43

// newToken returns a fresh cookie token.
func newToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand.Read crashes the program instead)
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// wellFormedToken reports whether s could be a token newToken made, so that
// junk (and anything unsafe to echo in a Set-Cookie header) never reaches
// the store.
func wellFormedToken(s string) bool {
	if len(s) != tokenLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// storeKey is the store key of a token: its SHA-256 in unpadded base64url
// (as scs's HashTokenInStore does), so that the store's contents cannot be
// replayed as cookies.
func storeKey(token string) string {
	sum := sha256.Sum256([]byte(token))
	return base64.RawURLEncoding.EncodeToString(sum[:])
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

// errResponseReplaced is what Write returns to a handler whose response
// Middleware replaced with an error response.
var errResponseReplaced = errors.New("session: response replaced by an error response: the new session could not be saved")

// responseWriter is the ResponseWriter Middleware gives next. It does not
// buffer: it only checks the session cookie, and saves a new session, at the
// moment the headers are sent.
type responseWriter struct {
	http.ResponseWriter
	m        *Manager
	r        *http.Request
	cookie   string
	fresh    *freshSession
	sent     bool // headers sent or being sent
	replaced bool // the response is Manager's error response
	omit     bool // OmitSessionCookie: send no session cookie
}

// OmitSessionCookie leaves the session cookie off this response, as Python
// answers an unhandled exception (Starlette's ServerErrorMiddleware sits
// outside NeMo's SessionMiddleware): the gymkit framework calls it before
// writing such a 500 (framework.SessionCookieOmitter). Any Set-Cookie of the
// session's name is removed when the headers are sent, and a new session is
// not saved, since its cookie never reaches the client. A NeMo agent replaces
// its cookie jar with the response's cookies, so its next request starts a
// new session, as it does against Python (golden:
// nemo-gym-peer/workplace_assistant.jsonl, "unhandled 500 mid-rollout, then
// the next call"). State already written with [Update] stays in the store
// until it expires. It has no effect once the headers were sent.
func (w *responseWriter) OmitSessionCookie() {
	if !w.sent {
		w.omit = true
	}
}

// beforeHeaders runs once before the headers are sent and reports whether
// the handler may write (false once the response was replaced).
func (w *responseWriter) beforeHeaders() bool {
	if w.sent {
		return !w.replaced
	}
	w.sent = true
	h := w.Header()
	if w.omit {
		fixCookie(h, w.m.name, "")
		return true
	}
	fixCookie(h, w.m.name, w.cookie)
	if w.fresh == nil {
		return true
	}
	if err := w.fresh.beforeHeaders(w.r.Context()); err != nil {
		w.replaced = true
		clear(h) // the handler's headers (Content-Length, ...) belong to its response, not this one
		ew := &responseWriter{ResponseWriter: w.ResponseWriter, m: w.m, r: w.r, cookie: w.cookie}
		w.m.errorFunc(ew, w.r, err)
		ew.finish()
		return false
	}
	return true
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
	if w.beforeHeaders() {
		w.ResponseWriter.WriteHeader(code)
	}
}

// Write writes body bytes, sending the headers first if needed.
func (w *responseWriter) Write(p []byte) (int, error) {
	if !w.beforeHeaders() {
		return 0, errResponseReplaced
	}
	return w.ResponseWriter.Write(p)
}

// Flush implements http.Flusher; it does nothing if the underlying
// ResponseWriter cannot flush.
func (w *responseWriter) Flush() { _ = w.FlushError() }

// FlushError flushes like Flush and reports the error (used by
// http.ResponseController).
func (w *responseWriter) FlushError() error {
	if !w.beforeHeaders() {
		return errResponseReplaced
	}
	return http.NewResponseController(w.ResponseWriter).Flush()
}

// Hijack implements http.Hijacker when the underlying ResponseWriter can
// hijack. A new session is saved first, best effort.
func (w *responseWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, rw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	w.sent = true
	if w.fresh != nil {
		_ = w.fresh.beforeHeaders(w.r.Context())
	}
	return c, rw, nil
}

// Unwrap returns the underlying ResponseWriter, for http.ResponseController.
func (w *responseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// finish runs after next returned: a handler that wrote nothing gets its
// (empty 200) response with the cookie, or the error response.
func (w *responseWriter) finish() {
	if !w.sent {
		w.beforeHeaders()
	}
}

// panicked runs while next's panic unwinds through Middleware: it fixes the
// cookie for whoever recovers and writes to the original ResponseWriter, and
// saves a new session, best effort. It must not write.
func (w *responseWriter) panicked() {
	if w.sent {
		return
	}
	w.sent = true
	fixCookie(w.Header(), w.m.name, w.cookie)
	if w.fresh != nil {
		_ = w.fresh.beforeHeaders(w.r.Context())
	}
}

// defaultErrorFunc is the default Options.ErrorFunc.
func defaultErrorFunc(w http.ResponseWriter, r *http.Request, err error) {
	slog.Default().ErrorContext(r.Context(), "session store error", "err", err, "method", r.Method, "path", r.URL.Path)
	var body bytes.Buffer
	enc := json.NewEncoder(&body)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(err.Error())
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(body.Len()-1))
	w.WriteHeader(http.StatusInternalServerError)
	_, _ = w.Write(body.Bytes()[:body.Len()-1]) // without the encoder's newline
}
