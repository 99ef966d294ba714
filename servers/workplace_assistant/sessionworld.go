package workplace

import (
	"container/list"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/session"
)

// The values of world_state.
const (
	// WorldStateMemory keeps each rollout's changed world in this process
	// (the default): one replica, or session affinity.
	WorldStateMemory = "memory"
	// WorldStateSession keeps each rollout's changes in the session state
	// store (a change log, see changeLog), so that any replica sharing the
	// store (session.store: redis) answers any call of the rollout.
	WorldStateSession = "session"
)

// changesKey is the session state key of a rollout's change log under
// world_state: session.
const changesKey = "workplace_assistant.changes"

// changeLog is what the session state store keeps of a rollout under
// world_state: session, as JSON:
//
//	{"gen":"9f0c...","calls":[{"t":"email_send_email","a":{"recipient":...}}]}
//
// Gen is a random id set by each seed ("" means not seeded, or ended by
// verify or close); Calls are the tool calls that changed the world, in the
// order they were committed, each with its request body as received. The
// world is the base tables with Calls replayed in order (the tools are
// deterministic: no clock, no randomness), and (Gen, len(Calls)) is its
// version: a replica's cached world of that version is the same world.
// Calls that only read are not logged.
type changeLog struct {
	Gen   string       `json:"gen,omitempty"`
	Calls []changeCall `json:"calls,omitempty"`
}

// changeCall is one logged tool call: the tool name and its body.
type changeCall struct {
	Tool string          `json:"t"`
	Args json.RawMessage `json:"a"`
}

// errNoChange ends an Update whose call did not write: nothing is stored.
var errNoChange = errors.New("workplace: the call changed nothing")

// The bounds of one rollout's change log under world_state: session (not
// yet config keys). Every call that writes carries the whole log to and
// from the store, and a replica that has not cached the rollout's world
// replays all of it (each send_email is O(emails), as in the Python tools,
// so a rebuild is quadratic in the number of sends: 20,000 hand-written
// sends took a replica 97 s to rebuild), so one rollout must not grow it
// without bound: before these bounds, a rollout sending 4 MB bodies made
// every later call of its own time out, and made other rollouts' calls on
// the shared Redis fail with 503. A call past either bound answers 413
// {"detail": "... change log would hold N calls and B bytes, over its
// limit ..."} (MCP: isError "HTTP 413 from POST /<tool>: ..."), and writes
// nothing; the rollout's reads and verify go on.
const (
	// DefaultMaxLogCalls is the most calls a log holds (a NeMo rollout makes
	// a few dozen): the call that would be call 1001 is refused with 413.
	DefaultMaxLogCalls = 1000
	// DefaultMaxLogBytes bounds the log's JSON (its calls' bodies and
	// names), 1 MiB, twenty times a long NeMo rollout's: a call that would
	// take it past is refused with 413. (4 MiB was too much: a call carrying
	// a 3 MB log timed out reading it at the default 1 s read_timeout on a
	// loaded 2-core machine.)
	DefaultMaxLogBytes = 1 << 20
)

// logBytes is about the size of l's JSON.
func logBytes(l *changeLog) int {
	n := len(`{"gen":"","calls":[]}`) + len(l.Gen)
	for _, c := range l.Calls {
		n += len(`{"t":"","a":},`) + len(c.Tool) + len(c.Args)
	}
	return n
}

// logFullError refuses a call that would take the rollout's change log past
// c.maxLogCalls or c.maxLogBytes: a 413 naming the limit (HTTP door; the MCP
// door's isError "HTTP 413 from POST /<tool>: ..."). Nothing is written; the
// rollout's world stays as it was, and its reads and verify still work.
func (c *worldCache) logFullError(calls, bytes int) error {
	return framework.Errorf(413, "workplace_assistant (world_state: session): this rollout's change log would hold %d calls and %d bytes, over its limit of %d calls and %d bytes; the call was not applied (the rollout's world is unchanged); verify or close the rollout and seed a new one",
		calls, bytes, c.maxLogCalls, c.maxLogBytes)
}

// full reports whether l is past the bounds.
func (c *worldCache) full(l *changeLog) (calls, bytes int, full bool) {
	calls, bytes = len(l.Calls), logBytes(l)
	return calls, bytes, calls > c.maxLogCalls || bytes > c.maxLogBytes
}

// checkLog refuses to rebuild a log already past the bounds (written by
// something else than this version of the server, or by hand): a plain
// error (NeMo's 500, which drops the cookie: the agent's next call starts a
// new session).
func (c *worldCache) checkLog(l *changeLog) error {
	if n, b, full := c.full(l); full {
		return fmt.Errorf("workplace_assistant: the rollout's change log in the session store holds %d calls and %d bytes, over the limit of %d calls and %d bytes: not replayed; POST /close_session clears it", n, b, c.maxLogCalls, c.maxLogBytes)
	}
	return nil
}

// newGen returns a fresh seed generation id.
func newGen() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// nonNull returns the body's members that are not null (the dispatcher's
// keyword arguments).
func nonNull(body framework.Value) []framework.Member {
	members := make([]framework.Member, 0, len(body.Members))
	for _, m := range body.Members {
		if m.Value.Kind != framework.KindNull {
			members = append(members, m)
		}
	}
	return members
}

// fork returns a world that starts as w and copies any table of w before
// changing it, so that w (a cached world, shared) is never written.
func (w *world) fork() *world {
	w.mu.Lock()
	defer w.mu.Unlock()
	return &world{data: w.data, tables: w.tables, analyticsConverted: w.analyticsConverted}
}

// replayOn runs the logged calls on w, in order. Unlike callTracked it does
// not re-estimate w's size after each call (an O(rows) walk, which made a
// replay quadratic): the caller sets it once.
func replayOn(w *world, calls []changeCall) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, c := range calls {
		body, err := framework.ParseJSON(c.Args)
		if err != nil || body.Kind != framework.KindObject {
			continue // never logged: the dispatcher parsed it
		}
		t, ok := toolByName[c.Tool]
		if !ok {
			continue // never logged: an unknown tool writes nothing
		}
		a, err := t.bind(nonNull(body))
		if err != nil {
			continue
		}
		_, _ = t.fn(w, a)
	}
}

// seedSession is seed under world_state: session: a new generation with an
// empty log (the cached worlds of an earlier seed no longer match).
func (s *Workplace) seedSession(ctx context.Context, id string) error {
	gen := newGen()
	if err := session.Update(ctx, changesKey, func(l *changeLog) error {
		*l = changeLog{Gen: gen}
		return nil
	}); err != nil {
		return err
	}
	s.cache.drop(id)
	return nil
}

// endSession is endRollout under world_state: session: the log is cleared
// (a later call answers "Session not initialized" on every replica) and this
// replica's cached world freed.
func (s *Workplace) endSession(ctx context.Context, id string) error {
	l, _, err := session.Get[changeLog](ctx, changesKey)
	if err == nil && l.Gen != "" {
		err = session.Update(ctx, changesKey, func(l *changeLog) error { *l = changeLog{}; return nil })
	}
	s.cache.drop(id)
	return err
}

// worldAt returns the world of version (gen, len(calls)): the cached one;
// or, when the cache holds an older version of the same generation (other
// calls committed since, on this replica or another), a fork of it with
// the newer calls replayed; or the whole log replayed on the base tables.
// A world built here is cached.
func (s *Workplace) worldAt(id string, l *changeLog) *world {
	n := len(l.Calls)
	w, have := s.cache.get(id, l.Gen, n)
	if w != nil && have == n {
		return w
	}
	if w != nil {
		w = w.fork()
		replayOn(w, l.Calls[have:])
	} else {
		w = s.data.newWorld()
		replayOn(w, l.Calls)
	}
	if n > 0 {
		w.size.Store(w.bytes())
		s.cache.put(id, l.Gen, n, w)
	}
	return w
}

// dispatchSession is dispatch under world_state: session. The call runs on a
// fork of the rollout's world at the version read from the store; a call
// that only read answers from it (one store read). A call that wrote is
// committed by appending it to the log with session.Update: if the log is
// still at the version the call ran on, the fork is the new world;
// otherwise (a parallel call of the rollout, on this replica or another,
// committed first) the call runs again on the newer world, inside the
// Update, so the log and the answers are always in one order.
func (s *Workplace) dispatchSession(ctx context.Context, id, tool string, raw json.RawMessage, members []framework.Member) (any, error) {
	l, _, err := session.Get[changeLog](ctx, changesKey)
	if err != nil {
		return nil, err
	}
	if l.Gen == "" {
		return nil, errNotSeeded
	}
	if err := s.cache.checkLog(&l); err != nil {
		return nil, err
	}
	w := s.worldAt(id, &l).fork()
	out, wrote, callErr := w.callBefore(ctx, tool, members)
	if errors.Is(callErr, context.DeadlineExceeded) {
		return nil, callErr // answered 504 already: nothing is logged
	}
	if !wrote {
		return toolOutput(tool, out, callErr), nil
	}
	// The call ran on version (gen, n). Update may run its function more
	// than once (a store that retries a conflicting write, e.g. the Redis
	// store's compare-and-set), so each run works on its own copies: what
	// one run decided (the world, the answer, the version committed) must
	// not leak into the next, or a retry would cache a world that lacks a
	// parallel call's change under the version that includes it.
	gen, n := l.Gen, len(l.Calls)
	var (
		doneW   *world
		doneOut value
		doneErr error
		doneGen string
		doneN   int
	)
	err = session.Update(ctx, changesKey, func(cur *changeLog) error {
		if cur.Gen == "" {
			return errNotSeeded // verified or closed meanwhile
		}
		if err := s.cache.checkLog(cur); err != nil {
			return err
		}
		rw, rout, rerr := w, out, callErr
		if cur.Gen != gen || len(cur.Calls) != n {
			// Another call committed first: run this one on its world.
			rw = s.worldAt(id, cur).fork()
			var wrote bool
			rout, wrote, rerr = rw.callBefore(ctx, tool, members)
			if errors.Is(rerr, context.DeadlineExceeded) {
				return rerr
			}
			doneOut, doneErr = rout, rerr
			if !wrote {
				return errNoChange
			}
		}
		cur.Calls = append(cur.Calls, changeCall{Tool: tool, Args: raw})
		if n, b, full := s.cache.full(cur); full {
			return s.cache.logFullError(n, b) // nothing written
		}
		doneW, doneOut, doneErr = rw, rout, rerr
		doneGen, doneN = cur.Gen, len(cur.Calls)
		return nil
	})
	switch {
	case errors.Is(err, errNoChange):
		return toolOutput(tool, doneOut, doneErr), nil
	case err != nil:
		return nil, err
	}
	doneW.size.Store(doneW.bytes())
	s.cache.put(id, doneGen, doneN, doneW)
	return toolOutput(tool, doneOut, doneErr), nil
}

// worldCache is a replica's cache of rollout worlds under world_state:
// session, keyed by session id and holding one world per session: the
// world of version (gen, n) of its change log. A lookup of a newer version
// of the same generation (other calls committed since, e.g. on another
// replica) returns it, for the caller to replay the calls since; another
// generation (the rollout was seeded again) misses, and the caller
// rebuilds from the whole log. It is bounded
// by max_world_bytes and max_live_worlds, evicting the least recently used
// world (which loses nothing: the log is in the store), and drops worlds
// idle longer than world_max_idle. Safe for concurrent use.
type worldCache struct {
	mu        sync.Mutex
	byID      map[string]*list.Element
	lru       *list.List // of *cacheEntry, front: most recently used
	maxIdle   time.Duration
	maxWorlds int
	maxBytes  int64
	bytes     int64
	now       func() time.Time
	evicted   uint64

	// maxLogCalls and maxLogBytes bound each rollout's change log
	// (DefaultMaxLogCalls, DefaultMaxLogBytes); read-only after
	// newWorldCache, set by tests.
	maxLogCalls, maxLogBytes int
}

type cacheEntry struct {
	id, gen string
	n       int
	w       *world
	size    int64
	last    time.Time
}

func newWorldCache(maxIdle time.Duration, maxWorlds int, maxBytes int64, now func() time.Time) *worldCache {
	return &worldCache{byID: map[string]*list.Element{}, lru: list.New(),
		maxIdle: maxIdle, maxWorlds: maxWorlds, maxBytes: maxBytes, now: now,
		maxLogCalls: DefaultMaxLogCalls, maxLogBytes: DefaultMaxLogBytes}
}

// get returns the session's cached world if it is of generation gen and
// at most n calls, with its number of calls; otherwise nil.
func (c *worldCache) get(id, gen string, n int) (*world, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	c.sweepLocked(now)
	el, ok := c.byID[id]
	if !ok {
		return nil, 0
	}
	e := el.Value.(*cacheEntry)
	if e.gen != gen || e.n > n {
		return nil, 0
	}
	e.last = now
	c.lru.MoveToFront(el)
	return e.w, e.n
}

// put keeps w as the session's world of version (gen, n), unless the cache
// holds a newer version of the same generation (a parallel call committed
// after this one). It then evicts the least recently used worlds beyond
// the limits (never w itself).
func (c *worldCache) put(id, gen string, n int, w *world) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	c.sweepLocked(now)
	size := w.size.Load()
	if el, ok := c.byID[id]; ok {
		e := el.Value.(*cacheEntry)
		if e.gen == gen && e.n > n {
			return
		}
		c.removeLocked(el)
	}
	c.byID[id] = c.lru.PushFront(&cacheEntry{id: id, gen: gen, n: n, w: w, size: size, last: now})
	c.bytes += size
	for c.lru.Len() > 1 && (c.maxWorlds > 0 && c.lru.Len() > c.maxWorlds || c.maxBytes > 0 && c.bytes > c.maxBytes) {
		c.removeLocked(c.lru.Back())
		c.evicted++
	}
}

// drop frees the session's cached world, if any.
func (c *worldCache) drop(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byID[id]; ok {
		c.removeLocked(el)
	}
}

func (c *worldCache) stats() (int, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len(), c.bytes
}

func (c *worldCache) sweepLocked(now time.Time) {
	if c.maxIdle <= 0 {
		return
	}
	for el := c.lru.Back(); el != nil; el = c.lru.Back() {
		if now.Sub(el.Value.(*cacheEntry).last) <= c.maxIdle {
			return
		}
		c.removeLocked(el)
	}
}

func (c *worldCache) removeLocked(el *list.Element) {
	e := el.Value.(*cacheEntry)
	c.lru.Remove(el)
	delete(c.byID, e.id)
	c.bytes -= e.size
}
