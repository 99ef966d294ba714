// Package session gives each rollout that an agent runs against a resources
// server its own session: an id that stays the same on every call of the
// rollout, on both doors (HTTP and MCP), and typed state kept under it.
//
//	m := session.NewManager(session.Options{CookieName: "example_session_state_mgmt___counter"})
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
// Middleware hands down). The cookie holds only an opaque
// token; an scs store (github.com/alexedwards/scs/v2) maps it to the
// session id. A request without a usable cookie starts a new session, and
// the last cookie of the name counts when a request carries several, as
// with Starlette.
//
// Every cookie handed out names its session on every later request until
// the session expires, as NeMo Gym's signed cookies do, even when the response that
// carried it never looked at its session (the default /seed_session) and
// the agent then replays it on several tool calls at once: a new session is
// stored before its response's headers are sent. Requests that never
// confirm their session (health probes, stateless tools, MCP calls that
// carry a token, clients that drop cookies) leave an entry that expires
// after min(lifetime, 1 hour); the first [Update] under a session, or the
// first request that replays its cookie, extends it to the full lifetime.
// [ID] and [Get] neither store nor extend anything. See
// [Manager.Middleware].
//
// On the MCP door the session token that /seed_session issued carries the
// id, and the door calls [WithID].
//
// A session id is a random UUID (version 4) in lower-case hyphenated form,
// like Python's str(uuid.uuid4()); see [NewID].
//
// # State
//
// Per-rollout state lives in a [StateStore] keyed by session id, not in the
// cookie or the scs store. [Get] and [Update] read and change one value,
// JSON-encoded, under a key of the caller's choice; Update is atomic per
// session and key, so parallel tool calls of one rollout lose nothing. The
// default store, [MemoryStore], keeps state in process memory and drops a
// session's state after it has been idle for the session lifetime (14 days
// by default); a shared store such as Redis can implement StateStore so
// that replicas are interchangeable.
//
// State that cannot be serialized (open files, a simulated world with
// pointers) can instead be kept by the environment in its own memory, in a
// map keyed by [ID]; that needs a single replica, or session affinity. Such a
// session is confirmed by the first replay of its cookie (ID does not
// confirm it), so that replay must come within the hour of provisional
// expiry described above.
package session
