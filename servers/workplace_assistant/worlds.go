package workplace

import (
	"container/list"
	"sync"
	"time"
)

// worldStore keeps each rollout session's world in process memory, keyed by
// session id (a world holds pointers and is not serializable, so it cannot
// live in the session state store: a deployment needs one replica, or
// session affinity).
//
// Unlike the Python original, whose worlds are never freed, the store is
// bounded: a world idle for longer than maxIdle is dropped, and beyond
// maxLive worlds the least recently used one is dropped. Expired worlds are
// swept on every seed and every lookup (there is no background goroutine), so
// an idle server keeps its last worlds until its next request. A call on a
// session whose world was dropped answers as an unseeded session does (400,
// "Session not initialized. Please call seed_session first.").
type worldStore struct {
	mu      sync.Mutex
	byID    map[string]*list.Element
	lru     *list.List // front: most recently used
	maxIdle time.Duration
	maxLive int
	now     func() time.Time
	evicted uint64
}

type storeEntry struct {
	id   string
	w    *world
	last time.Time
}

func newWorldStore(maxIdle time.Duration, maxLive int, now func() time.Time) *worldStore {
	return &worldStore{byID: map[string]*list.Element{}, lru: list.New(), maxIdle: maxIdle, maxLive: maxLive, now: now}
}

// put stores w under id, replacing any world the session had.
func (s *worldStore) put(id string, w *world) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	if el, ok := s.byID[id]; ok {
		e := el.Value.(*storeEntry)
		e.w, e.last = w, now
		s.lru.MoveToFront(el)
	} else {
		s.byID[id] = s.lru.PushFront(&storeEntry{id: id, w: w, last: now})
	}
	s.sweepLocked(now)
	for s.maxLive > 0 && s.lru.Len() > s.maxLive {
		s.removeLocked(s.lru.Back())
	}
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

// drop forgets the session's world.
func (s *worldStore) drop(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if el, ok := s.byID[id]; ok {
		s.lru.Remove(el)
		delete(s.byID, id)
	}
}

// live returns the number of worlds held.
func (s *worldStore) live() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lru.Len()
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
	}
}

func (s *worldStore) removeLocked(el *list.Element) {
	s.lru.Remove(el)
	delete(s.byID, el.Value.(*storeEntry).id)
	s.evicted++
}
