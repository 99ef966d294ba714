// Package session gives each rollout that an agent runs against a resources
// server its own session: an id that stays the same on every call of the
// rollout, on both doors (HTTP and MCP), and typed state kept under it.
//
//	m := session.MustNewManager(session.Options{CookieName: "example_session_state_mgmt___counter"})
//
//	mux := http.NewServeMux()
//	mux.HandleFunc("POST /increment_counter", func(w http.ResponseWriter, r *http.Request) {
//		var n int
//		err := session.Update(r.Context(), "count", func(count *int) error {
//			*count++
//			n = *count
//			return nil
//		})
//		if err != nil {
//			http.Error(w, err.Error(), http.StatusInternalServerError)
//			return
//		}
//		fmt.Fprintf(w, `{"count":%d}`, n)
//	})
//	log.Fatal(http.ListenAndServe("127.0.0.1:8080", m.Middleware(mux)))
//
// Environments built on gymkit's framework package do not write this: the
// host builds the Manager and mounts its middleware, and tools just call
// [ID], [Get] and [Update] with the context they are given.
//
// # Sessions and their cookie
//
// On the HTTP door a session travels in a cookie, as NeMo Gym's agents
// expect: [Manager.Middleware] reads it, and sets it on every response,
// exactly once, errors and panics included, because the agents replace
// their cookies with each response's. The one exception is Python's
// unhandled-exception answer (the framework's JSON-string 500), which
// carries none, as Starlette's does (see OmitSessionCookie on the writer
// Middleware hands down). A request without a usable cookie starts a new
// session, and the last cookie of the name counts when a request carries
// several, as with Starlette.
//
// The cookie carries the session id itself, signed, as NeMo Gym's
// itsdangerous cookie carries its session: the id, the time the session
// started, the time the cookie was signed, and an HMAC-SHA256 of them (and
// of the cookie name) under a key derived from the instance secret
// ([Options.Secrets], the instance's session_secret; [DeriveKey]), in 84
// base64url characters of which exactly
// one spelling verifies. So any replica with the secret reads it without a
// store, a replayed cookie names the same session on every request (several
// at once included), a forged, altered or foreign cookie starts a new
// session, and a request that writes no state (health probes, stateless
// tools, MCP calls that carry a token, clients that drop cookies, the
// default /seed_session) stores nothing at all: cookieless traffic of any
// rate holds no memory. The secrets are a list, for rotation: the first
// signs, all verify.
//
// Expiry: a session ends [Options.Lifetime] after it started (14 days by
// default, Starlette's Max-Age, which every answer's cookie carries), or
// earlier after [Options.IdleTimeout] without a request (1 hour by
// default): the server then refuses its cookie and the next request starts
// a new session. A response re-signs the cookie once it is older than 1% of
// IdleTimeout (echoing it unchanged before), keeping its start time. State
// expires in its store: the default store drops a session's state after
// IdleTimeout without a Get or Update (see below), and [Manager.Sweep],
// which the host calls periodically, frees it without waiting for a
// request. [ID] and [Get] store nothing; [Keep] is a no-op
// kept for older callers.
//
// On the MCP door the session token that /seed_session issued carries the
// id, and the door calls [WithID].
//
// A session id is a random UUID (version 4) in lower-case hyphenated form,
// like Python's str(uuid.uuid4()); see [NewID].
//
// # State
//
// Per-rollout state lives in a [StateStore] keyed by session id, never in
// the cookie. [Get] and [Update] read and change one value, JSON-encoded,
// under a key of the caller's choice; Update is atomic per session and key,
// so parallel tool calls of one rollout lose nothing, and the first Update
// of a session is what creates its state. The default store,
// [MemoryStore], is gymkit's own (sharded, a lock per key), keeps state in
// process memory and drops a session's state after it has been idle (no
// Get, no Update) for the idle timeout. [SCSStore] keeps the state in
// any scs store (github.com/alexedwards/scs/v2: memstore, redisstore, ...;
// [Options.Store]), one entry per session that wrote state, expiring
// IdleTimeout after its last write in the scs store itself (a Get does not
// extend it); it is atomic within
// one process. What scs cannot express, a cookie on every answer with the
// state stored only when written, is gymkit's code in [Manager.Middleware].
//
// For several replicas, session/redisstore keeps the state in Redis or
// Valkey (the instance config's session.store: redis): Update stays atomic
// per session and key across processes, the idle timeout and the lifetime
// are the keys' TTLs, and a store outage surfaces as errors wrapping
// [ErrStoreUnavailable], which the framework answers 503 (docs/deployment.md).
//
// State that cannot be serialized (open files, a simulated world with
// pointers) can instead be kept by the environment in its own memory, in a
// map keyed by [ID]; that needs a single replica, or session affinity. The
// id of such a session needs no confirming: its cookie, or its MCP token,
// names it as long as it comes back within the lifetime.
package session
