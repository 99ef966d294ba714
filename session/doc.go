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
// their cookies with each response's. The cookie holds only an opaque
// token; an scs store (github.com/alexedwards/scs/v2) maps it to the
// session id. A request without a usable cookie starts a new session,
// which is stored only once it is used ([ID], [Update]), so that requests
// that never look at their session (health probes, stateless tools, MCP
// calls that carry a token) leave nothing in the store. On
// the MCP door the session token that /seed_session issued carries the id,
// and the door calls [WithID].
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
// map keyed by [ID]; that needs a single replica, or session affinity.
package session
