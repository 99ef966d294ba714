// Package keylock serializes work per key within one process, for the
// session state stores (session.SCSStore locks per session id,
// redisstore.Store per session id and key): a map of mutexes, one per key
// in use, each dropped when its last holder or waiter unlocks it, so that
// a key nobody holds costs nothing and the map does not grow with the
// sessions ever seen.
//
//	var locks keylock.Map
//	locks.Lock(sessionID)
//	defer locks.Unlock(sessionID)
package keylock

import "sync"

// Map is a set of per-key mutexes. Lock(k) waits only for holders of the
// same k; other keys proceed. The zero Map is ready to use; a Map must not
// be copied after first use. It is safe for concurrent use. A Map is not
// reentrant: a holder of k that locks k again deadlocks.
type Map struct {
	mu    sync.Mutex
	locks map[string]*entry // guarded by mu
}

// entry is the mutex of one key, with the number of its holders and
// waiters.
type entry struct {
	mu   sync.Mutex
	refs int // guarded by Map.mu
}

// Lock locks key's mutex, waiting while another caller holds it.
func (m *Map) Lock(key string) {
	m.mu.Lock()
	if m.locks == nil {
		m.locks = make(map[string]*entry)
	}
	l := m.locks[key]
	if l == nil {
		l = new(entry)
		m.locks[key] = l
	}
	l.refs++
	m.mu.Unlock()
	l.mu.Lock()
}

// Unlock unlocks key's mutex, which the caller must hold (a Lock(key)
// before it); unlocking a key that is not locked panics, as for a
// sync.Mutex.
func (m *Map) Unlock(key string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	l := m.locks[key]
	if l == nil {
		panic("keylock: Unlock of an unlocked key")
	}
	l.mu.Unlock()
	if l.refs--; l.refs == 0 {
		delete(m.locks, key)
	}
}

// Len is the number of keys held or waited for now.
func (m *Map) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.locks)
}
