package session

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/alexedwards/scs/v2"

	"github.com/gymkit/gymkit/session/internal/keylock"
)

// SCSStore is a [StateStore] that keeps per-rollout state in an scs store
// (github.com/alexedwards/scs/v2: memstore, redisstore, any scs.Store or
// scs.CtxStore), so that the stores written for scs serve gymkit's state,
// with their own expiry: all the state of one session is one entry, under
// the key "gymkit-state:<session id>", holding a JSON object of its keys
// (values base64-encoded), committed with the expiry now + idle on every
// write. A session that nothing has written under has no entry.
//
// Update is atomic per session (and so per session and key) within one
// process: Updates of one session run one at a time (a per-session lock,
// held while fn runs and the entry is read and written back), and Updates
// of other sessions do not wait for them. An scs store has no
// compare-and-swap, so two processes writing the same session's state at
// once may lose one write: with several replicas, route a rollout to one
// replica (session affinity), or use a StateStore that is atomic in the
// shared store. fn is called exactly once per Update; it may call Get, but
// must not call Update for the same session (any key): that deadlocks.
//
// The idle expiry counts from the last Update (a Get does not extend it, to
// cost no write). Make it with [NewSCSStore]; the zero SCSStore is not
// usable. An SCSStore is safe for concurrent use.
type SCSStore struct {
	store scs.Store
	idle  time.Duration
	now   func() time.Time

	locks keylock.Map // serializes the Updates of one session
}

// scsPrefix is the key prefix of the entries of an SCSStore.
const scsPrefix = "gymkit-state:"

// NewSCSStore returns an SCSStore over store (required: it panics on nil)
// whose entries expire idle after their last write; idle <= 0 means
// entries do not expire (they are committed with an expiry 100 years
// ahead).
func NewSCSStore(store scs.Store, idle time.Duration) *SCSStore {
	if store == nil {
		panic("session: NewSCSStore with a nil scs.Store")
	}
	return &SCSStore{store: store, idle: idle, now: time.Now}
}

func (s *SCSStore) find(ctx context.Context, sessionID string) (map[string][]byte, error) {
	var b []byte
	var found bool
	var err error
	if cs, ok := s.store.(scs.CtxStore); ok {
		b, found, err = cs.FindCtx(ctx, scsPrefix+sessionID)
	} else {
		b, found, err = s.store.Find(scsPrefix + sessionID)
	}
	if err != nil {
		return nil, fmt.Errorf("session: scs store: %w", err)
	}
	if !found {
		return nil, nil
	}
	var m map[string][]byte
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("session: scs store: malformed state entry of session %s: %w", sessionID, err)
	}
	return m, nil
}

// Get implements [StateStore]: one Find in the scs store.
func (s *SCSStore) Get(ctx context.Context, sessionID, key string) ([]byte, bool, error) {
	m, err := s.find(ctx, sessionID)
	if err != nil {
		return nil, false, err
	}
	v, ok := m[key]
	if !ok || v == nil {
		return nil, false, nil
	}
	return v, true, nil
}

// Update implements [StateStore]: one Find and one Commit (or Delete, when
// the session's last key is deleted) in the scs store, under the session's
// lock.
func (s *SCSStore) Update(ctx context.Context, sessionID, key string, fn func(old []byte, ok bool) ([]byte, error)) error {
	s.locks.Lock(sessionID)
	defer s.locks.Unlock(sessionID)
	m, err := s.find(ctx, sessionID)
	if err != nil {
		return err
	}
	old, ok := m[key]
	v, err := fn(old, ok && old != nil)
	if err != nil {
		return err
	}
	if v == nil {
		if !ok {
			return nil
		}
		delete(m, key)
	} else {
		if m == nil {
			m = make(map[string][]byte, 1)
		}
		m[key] = v
	}
	if len(m) == 0 {
		return s.Delete(ctx, sessionID)
	}
	b, err := json.Marshal(m)
	if err != nil { // a map of byte slices always encodes
		return fmt.Errorf("session: scs store: %w", err)
	}
	expiry := s.now().Add(s.idle)
	if s.idle <= 0 {
		expiry = s.now().AddDate(100, 0, 0)
	}
	if cs, ok := s.store.(scs.CtxStore); ok {
		err = cs.CommitCtx(ctx, scsPrefix+sessionID, b, expiry)
	} else {
		err = s.store.Commit(scsPrefix+sessionID, b, expiry)
	}
	if err != nil {
		return fmt.Errorf("session: scs store: %w", err)
	}
	return nil
}

// Delete implements [StateStore]: one Delete in the scs store.
func (s *SCSStore) Delete(ctx context.Context, sessionID string) error {
	var err error
	if cs, ok := s.store.(scs.CtxStore); ok {
		err = cs.DeleteCtx(ctx, scsPrefix+sessionID)
	} else {
		err = s.store.Delete(scsPrefix + sessionID)
	}
	if err != nil {
		return fmt.Errorf("session: scs store: %w", err)
	}
	return nil
}
