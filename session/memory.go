package session

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"reflect"
	"sync"
	"time"
)

// MemoryStore is a [StateStore] that keeps state in process memory. It is
// the default State of a [Manager]. Its state is per process: a server
// behind several replicas needs a shared store, or session affinity.
//
// Sessions are spread over 64 shards, each session has its own lock, and
// each key its own write lock: Updates of one key of one session run one at
// a time, and nothing else waits for them (Get never waits for an Update in
// progress; it returns the last stored value).
//
// A session whose state was neither read nor written for the idle timeout
// (see [WithIdleTimeout]) expires: it reads as empty, and its memory is
// released the next time it is accessed, when its shard is swept, or by
// [MemoryStore.Len] or [MemoryStore.Sweep]. A shard is swept when a new
// session is added to it, at most once per minute (or per idle timeout, if
// shorter), so memory is bounded by the sessions used within the last idle
// timeout plus a minute while sessions keep coming, without any goroutine
// of its own; a host also calls Sweep periodically ([Manager.Sweep]), so
// an instance that goes quiet frees its expired state too.
//
// The zero MemoryStore is not usable; call [NewMemoryStore]. A MemoryStore
// is safe for concurrent use.
type MemoryStore struct {
	idle   time.Duration // <= 0: never expire
	sweep  time.Duration // minimum time between sweeps of a shard
	now    func() time.Time
	seed   maphash.Seed
	shards [memShards]memShard
}

const memShards = 64

type memShard struct {
	mu        sync.Mutex
	sessions  map[string]*memSession
	nextSweep time.Time
	_         [64]byte // keep neighbouring shards' locks off one cache line
}

// memSession is the state of one session.
type memSession struct {
	lastUsed time.Time // guarded by the shard's mu

	mu   sync.Mutex // guards keys and every slot's value
	keys map[string]*memSlot
}

// memSlot is one key of a session. It holds at most one of value (stored
// by [MemoryStore.Update]) and typed (stored by [Update]); both nil:
// absent.
type memSlot struct {
	write sync.Mutex // held by Update while fn runs
	value []byte     // guarded by memSession.mu; immutable once stored
	typed any        // a *T; guarded by memSession.mu; immutable once stored
}

// load returns what slot holds, under ms.mu.
func (ms *memSession) load(slot *memSlot) (value []byte, typed any) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	return slot.value, slot.typed
}

// MemoryOption configures a [MemoryStore].
type MemoryOption func(*MemoryStore)

// WithIdleTimeout sets how long a session's state is kept after it was last
// read or written. The default is [DefaultLifetime] (14 days); a
// [Manager]'s default store uses the Manager's Lifetime. Zero or negative
// means state never expires (memory then grows with every session until it
// is deleted with [MemoryStore.Delete]).
func WithIdleTimeout(d time.Duration) MemoryOption {
	return func(s *MemoryStore) { s.idle = d }
}

// WithClock sets the clock the store reads to expire idle sessions. The
// default is time.Now; tests pass a fake clock. now must be safe for
// concurrent use.
func WithClock(now func() time.Time) MemoryOption {
	return func(s *MemoryStore) { s.now = now }
}

// NewMemoryStore returns an empty MemoryStore configured by opts (by
// default: idle timeout [DefaultLifetime], clock time.Now).
func NewMemoryStore(opts ...MemoryOption) *MemoryStore {
	s := &MemoryStore{idle: DefaultLifetime, now: time.Now, seed: maphash.MakeSeed()}
	for _, o := range opts {
		o(s)
	}
	s.sweep = time.Minute
	if s.idle > 0 && s.idle < s.sweep {
		s.sweep = s.idle
	}
	for i := range s.shards {
		s.shards[i].sessions = make(map[string]*memSession)
	}
	return s
}

func (s *MemoryStore) shard(sessionID string) *memShard {
	return &s.shards[maphash.String(s.seed, sessionID)%memShards]
}

func (s *MemoryStore) expired(ms *memSession, now time.Time) bool {
	return s.idle > 0 && now.Sub(ms.lastUsed) > s.idle
}

// session returns sessionID's live session and marks it used, creating it if
// create is set; otherwise it returns nil if there is none.
func (s *MemoryStore) session(sessionID string, create bool) *memSession {
	now := s.now()
	sh := s.shard(sessionID)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	ms := sh.sessions[sessionID]
	if ms != nil && s.expired(ms, now) {
		delete(sh.sessions, sessionID)
		ms = nil
	}
	if ms == nil {
		if !create {
			return nil
		}
		if s.idle > 0 && !now.Before(sh.nextSweep) {
			s.sweepLocked(sh, now)
		}
		ms = &memSession{keys: make(map[string]*memSlot)}
		sh.sessions[sessionID] = ms
	}
	ms.lastUsed = now
	return ms
}

func (s *MemoryStore) sweepLocked(sh *memShard, now time.Time) {
	for id, ms := range sh.sessions {
		if s.expired(ms, now) {
			delete(sh.sessions, id)
		}
	}
	sh.nextSweep = now.Add(s.sweep)
}

// Get implements [StateStore]. It returns a copy of the stored value: a
// value stored by [Update] is encoded as JSON here (see [Update]), which
// fails only if it does not encode. It does not wait for an Update in
// progress.
func (s *MemoryStore) Get(_ context.Context, sessionID, key string) ([]byte, bool, error) {
	ms := s.session(sessionID, false)
	if ms == nil {
		return nil, false, nil
	}
	ms.mu.Lock()
	var v []byte
	var typed any
	if slot := ms.keys[key]; slot != nil {
		v, typed = slot.value, slot.typed
	}
	ms.mu.Unlock()
	if typed != nil {
		b, err := json.Marshal(typed)
		if err != nil {
			return nil, false, fmt.Errorf("session: encoding state %q (%v): %w", key, reflect.TypeOf(typed).Elem(), err)
		}
		return b, true, nil
	}
	if v == nil {
		return nil, false, nil
	}
	return bytes.Clone(v), true, nil
}

// slot returns the slot of (sessionID, key), creating both.
func (s *MemoryStore) slot(sessionID, key string) (*memSession, *memSlot) {
	ms := s.session(sessionID, true)
	ms.mu.Lock()
	defer ms.mu.Unlock()
	slot := ms.keys[key]
	if slot == nil {
		slot = new(memSlot)
		ms.keys[key] = slot
	}
	return ms, slot
}

// updateTyped is [Update] on a MemoryStore: no JSON unless the key holds
// bytes or another type. fn gets a copy of the stored *T made by T's plan
// (see clone.go), and the copy is stored, after the encoding check and
// lock's deadline check, only if fn succeeds; a panic in fn propagates
// with nothing stored. Called exactly once per Update, with only the
// key's write lock held.
func updateTyped[T any](s *MemoryStore, sessionID, key string, lock *guardLock, fn func(*T) error) error {
	ms, slot := s.slot(sessionID, key)
	slot.write.Lock()
	defer slot.write.Unlock()
	old, typed := ms.load(slot)
	p := planOf(reflect.TypeFor[T]())
	v := new(T)
	if cur, ok := typed.(*T); ok {
		if err := p.copyTo(reflect.ValueOf(v).Elem(), reflect.ValueOf(cur).Elem()); err != nil {
			return fmt.Errorf("session: decoding state %q as %v: %w", key, reflect.TypeFor[T](), err)
		}
	} else {
		if typed != nil { // stored by Update of another type: as through JSON
			b, err := json.Marshal(typed)
			if err != nil {
				return fmt.Errorf("session: encoding state %q (%v): %w", key, reflect.TypeOf(typed).Elem(), err)
			}
			old = b
		}
		if old != nil {
			if err := json.Unmarshal(old, v); err != nil {
				return fmt.Errorf("session: decoding state %q as %v: %w", key, reflect.TypeFor[T](), err)
			}
		}
	}
	if err := fn(v); err != nil {
		return err
	}
	if err := p.valid(reflect.ValueOf(v).Elem()); err != nil {
		return fmt.Errorf("session: encoding state %q (%v): %w", key, reflect.TypeFor[T](), err)
	}
	if err := lock.check(); err != nil {
		return err
	}
	ms.mu.Lock()
	slot.value, slot.typed = nil, v
	ms.mu.Unlock()
	return nil
}

// Update implements [StateStore]. It calls fn exactly once, holding only
// the write lock of (sessionID, key), and fails only with fn's error (or,
// for a value stored by [Update] that no longer encodes, an encoding
// error). A value stored by [Update] is given to fn as its JSON encoding.
func (s *MemoryStore) Update(_ context.Context, sessionID, key string, fn func(old []byte, ok bool) ([]byte, error)) error {
	ms, slot := s.slot(sessionID, key)
	slot.write.Lock()
	defer slot.write.Unlock()
	old, typed := ms.load(slot)
	if typed != nil { // stored by [Update]: fn sees its JSON
		b, err := json.Marshal(typed)
		if err != nil {
			return fmt.Errorf("session: encoding state %q (%v): %w", key, reflect.TypeOf(typed).Elem(), err)
		}
		old = b
	}
	v, err := fn(old, old != nil)
	if err != nil {
		return err
	}
	ms.mu.Lock()
	slot.value, slot.typed = v, nil
	ms.mu.Unlock()
	return nil
}

// Delete implements [StateStore]. It never fails. An Update of the session
// that is running concurrently may finish after Delete returns; its value is
// not visible afterwards.
func (s *MemoryStore) Delete(_ context.Context, sessionID string) error {
	sh := s.shard(sessionID)
	sh.mu.Lock()
	delete(sh.sessions, sessionID)
	sh.mu.Unlock()
	return nil
}

// Sweeper is implemented by a [StateStore] that keeps expired state until
// it is swept (a [MemoryStore]); [Manager.Sweep] calls it. Sweep removes
// the state of every expired session and returns how many it removed; it
// must be safe for concurrent use with the other methods.
type Sweeper interface {
	Sweep(ctx context.Context) (removed int, err error)
}

var (
	_ Sweeper    = (*MemoryStore)(nil)
	_ TypedStore = (*MemoryStore)(nil)
)

// UpdateTyped implements [TypedStore]: it calls update with s.
func (s *MemoryStore) UpdateTyped(_ context.Context, update func(*MemoryStore) error) error {
	return update(s)
}

// Sweep implements [Sweeper]: it removes every session whose state expired
// (idle for longer than the idle timeout) and returns their number. It
// locks each shard in turn, never for longer than one scan of the shard,
// and never fails. With no idle timeout it removes nothing.
func (s *MemoryStore) Sweep(context.Context) (int, error) {
	if s.idle <= 0 {
		return 0, nil
	}
	now := s.now()
	n := 0
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		before := len(sh.sessions)
		s.sweepLocked(sh, now)
		n += before - len(sh.sessions)
		sh.mu.Unlock()
	}
	return n, nil
}

// Len removes expired sessions and returns the number of sessions that hold
// state (or held it: a session whose keys were all deleted counts until it
// expires or is deleted). It locks each shard in turn; it is meant for
// metrics and tests, not for every request.
func (s *MemoryStore) Len() int {
	now := s.now()
	n := 0
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		if s.idle > 0 {
			s.sweepLocked(sh, now)
		}
		n += len(sh.sessions)
		sh.mu.Unlock()
	}
	return n
}
