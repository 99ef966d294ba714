package workplace

import (
	"container/list"
	"errors"
	"sync"
	"time"
)

// worldStore keeps the changed worlds of rollout sessions in process memory,
// keyed by session id (a world holds pointers and is not serializable, so it
// cannot live in the session state store: a deployment needs one replica, or
// session affinity).
//
// Only changed worlds are kept: a seeded session whose tools have only read
// runs on a fresh world over the shared base tables, which costs nothing to
// rebuild (the seed itself is a marker in the session state, see
// Workplace.seed). The store is bounded by the estimated bytes of its worlds
// (maxBytes, world.bytes) and optionally by their number (maxWorlds); when a
// new world would pass either limit it is refused (errStoreFull), never by
// evicting another rollout's world. Worlds leave the store at verify
// (drop), after maxIdle without a call, or by Release. Idle worlds are swept
// on every add and lookup (there is no background goroutine), so an idle
// server keeps its last worlds until its next request.
type worldStore struct {
	mu        sync.Mutex
	byID      map[string]*list.Element
	lru       *list.List // front: most recently used
	maxIdle   time.Duration
	maxWorlds int   // 0: no count limit
	maxBytes  int64 // 0: no byte limit
	bytes     int64 // the sum of the entries' sizes
	now       func() time.Time
	expired   uint64
	refused   uint64
}

// storeEntry is one kept world; size is the world's estimate when it was
// last accounted.
type storeEntry struct {
	id   string
	w    *world
	last time.Time
	size int64
}

// errStoreFull is add's answer when a new world would pass a limit; limit
// names the config key.
type errStoreFull struct{ limit string }

func (e *errStoreFull) Error() string { return "world store full: " + e.limit }

func newWorldStore(maxIdle time.Duration, maxWorlds int, maxBytes int64, now func() time.Time) *worldStore {
	return &worldStore{byID: map[string]*list.Element{}, lru: list.New(),
		maxIdle: maxIdle, maxWorlds: maxWorlds, maxBytes: maxBytes, now: now}
}

// add keeps w, a newly changed world, under id. If the session already has
// a world (a parallel call of the rollout changed its world first), add
// keeps nothing and returns that world, for the caller to run its call on.
// If w would pass max_live_worlds or max_world_bytes, add keeps nothing and
// returns an *errStoreFull.
func (s *worldStore) add(id string, w *world) (existing *world, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	s.sweepLocked(now)
	if el, ok := s.byID[id]; ok {
		e := el.Value.(*storeEntry)
		e.last = now
		s.lru.MoveToFront(el)
		return e.w, nil
	}
	size := w.size.Load()
	switch {
	case s.maxWorlds > 0 && s.lru.Len() >= s.maxWorlds:
		s.refused++
		return nil, &errStoreFull{"max_live_worlds"}
	case s.maxBytes > 0 && s.bytes+size > s.maxBytes:
		s.refused++
		return nil, &errStoreFull{"max_world_bytes"}
	}
	s.byID[id] = s.lru.PushFront(&storeEntry{id: id, w: w, last: now, size: size})
	s.bytes += size
	return nil, nil
}

// get returns the session's world, marking it used, or nil.
func (s *worldStore) get(id string) *world {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	s.sweepLocked(now)
	el, ok := s.byID[id]
	if !ok {
		return nil
	}
	e := el.Value.(*storeEntry)
	e.last = now
	s.lru.MoveToFront(el)
	return e.w
}

// resize accounts w's current size (after a write) if it is still the
// session's world. A world already kept may grow past max_world_bytes: the
// limit refuses new worlds, it never fails a live rollout's call.
func (s *worldStore) resize(id string, w *world) {
	s.mu.Lock()
	defer s.mu.Unlock()
	el, ok := s.byID[id]
	if !ok {
		return
	}
	e := el.Value.(*storeEntry)
	if e.w != w {
		return
	}
	size := w.size.Load()
	s.bytes += size - e.size
	e.size = size
}

// Release frees the session's world, if it has one: verify calls it, and so
// may a session's close hook. It is safe for concurrent use, and does
// nothing for a session without a kept world.
func (s *worldStore) Release(sessionID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if el, ok := s.byID[sessionID]; ok {
		s.removeLocked(el)
	}
}

// drop is Release (the seed and verify's name for it).
func (s *worldStore) drop(id string) { s.Release(id) }

// stats returns the number of worlds kept and their estimated bytes.
func (s *worldStore) stats() (worlds int, bytes int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lru.Len(), s.bytes
}

func (s *worldStore) sweepLocked(now time.Time) {
	if s.maxIdle <= 0 {
		return
	}
	for el := s.lru.Back(); el != nil; el = s.lru.Back() {
		if now.Sub(el.Value.(*storeEntry).last) <= s.maxIdle {
			return
		}
		s.removeLocked(el)
		s.expired++
	}
}

func (s *worldStore) removeLocked(el *list.Element) {
	e := el.Value.(*storeEntry)
	s.lru.Remove(el)
	delete(s.byID, e.id)
	s.bytes -= e.size
}

// isStoreFull reports whether err is add's refusal, and which limit.
func isStoreFull(err error) (limit string, ok bool) {
	var f *errStoreFull
	if errors.As(err, &f) {
		return f.limit, true
	}
	return "", false
}
