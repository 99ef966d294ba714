package session

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
)

// StateStore keeps per-rollout state: values of a few bytes to a few
// megabytes, each under a (session id, key) pair, serialized by the caller
// ([Get] and [Update] use encoding/json). It is deliberately small so that a
// shared store (Redis) can implement it: the memory store is
// [NewMemoryStore].
//
// Implementations must be safe for concurrent use, and must make Update
// atomic per (session id, key): concurrent Updates of one pair behave as if
// run one after the other, so none is lost. Updates of different pairs, and
// above all of different sessions, should not wait for each other.
// Implementations must not keep or modify the byte slices they are given
// beyond what each method says.
type StateStore interface {
	// Get returns the value stored under (sessionID, key). ok is false, and
	// err nil, if there is none (never set, deleted, or expired with its
	// session). err is for store failures only. The caller owns the
	// returned slice.
	Get(ctx context.Context, sessionID, key string) (value []byte, ok bool, err error)

	// Update replaces the value under (sessionID, key) with the value fn
	// computes from the current one (old and ok as Get would return them;
	// old must not be modified or kept after fn returns). Returning a nil
	// value deletes the key. If fn returns an error, nothing is written and
	// Update returns that error unchanged.
	//
	// fn may be called more than once, with newer old values, by a store
	// that retries on a conflicting write (optimistic concurrency), so it
	// must have no effect other than computing the new value. The store
	// owns the returned slice: fn must not use it after returning it. fn
	// must not call Update for the same (sessionID, key): that may
	// deadlock.
	Update(ctx context.Context, sessionID, key string, fn func(old []byte, ok bool) (value []byte, err error)) error

	// Delete removes all state of sessionID. It is not an error if there is
	// none.
	Delete(ctx context.Context, sessionID string) error
}

// TypedStore is a [StateStore] that keeps [Update]'s values as Go values
// rather than JSON: a [MemoryStore], or a decorator of one (metrics,
// tracing) that forwards UpdateTyped to the store it wraps. Update calls
// UpdateTyped instead of the byte method Update, so that a decorated
// memory store keeps the typed path (no JSON round trip of the whole
// state at every Update); a decorator that does not implement TypedStore
// hides it (Update then goes through bytes, as with a shared store).
type TypedStore interface {
	StateStore
	// UpdateTyped runs update exactly once, with the MemoryStore that
	// keeps the values, and returns update's error unchanged. update is
	// one whole [Update] of one key (its fn included; it may panic with
	// fn's panic). Its errors are all the caller's (fn's error, a value
	// that does not decode or encode, [ErrDeadline]): a MemoryStore has no
	// failure of its own, so a decorator counting store failures counts
	// none here. A decorator may time update; it must not call it twice,
	// nor from another goroutine after UpdateTyped returned.
	UpdateTyped(ctx context.Context, update func(*MemoryStore) error) error
}

// Get returns the value stored under key for the rollout session of ctx,
// decoded from JSON into a T. ok is false, with the zero T and a nil error,
// if there is no value (never set, or its session expired; see
// [NewMemoryStore]). The returned value is the caller's own copy: changing
// it changes nothing stored; use [Update] for that.
//
// Get returns [ErrNoSession] if ctx carries no session, the error of
// [Update] for a T with an unexported field, the store's error if
// the store fails, and an error naming the key and T if the stored JSON does
// not decode into a T. It is safe for concurrent use.
func Get[T any](ctx context.Context, key string) (value T, ok bool, err error) {
	s := scopeFrom(ctx)
	if s == nil {
		return value, false, ErrNoSession
	}
	if err := stateTypeError[T](); err != nil {
		return value, false, err
	}
	b, ok, err := s.m.state.Get(ctx, s.id, key)
	if err != nil || !ok {
		return value, false, err
	}
	if err := json.Unmarshal(b, &value); err != nil {
		var zero T
		return zero, false, fmt.Errorf("session: decoding state %q as %v: %w", key, reflect.TypeFor[T](), err)
	}
	return value, true, nil
}

// Update changes the value stored under key for the rollout session of ctx:
// it decodes the current value from JSON into a T (the zero T if there is
// none), calls fn with a pointer to it, and stores the changed T as JSON.
// If fn returns an error, nothing is stored and Update returns that error
// unchanged (so errors.Is and errors.As see it).
//
// The stored form is T's encoding/json encoding, with every store, so only
// what survives JSON is kept: exported fields (or a type's own MarshalJSON
// and UnmarshalJSON), with interface values coming back as JSON's generic
// types (map[string]any, float64, ...). fn's T is its own while fn runs:
// it is made afresh for each call; fn must not keep it, or anything it
// points into, after returning (with the memory store it becomes the
// stored value).
//
// Update is atomic per session and key: concurrent Updates of one key in one
// rollout never lose a change (100 goroutines each adding 1 to a counter
// leave it at exactly 100), while Updates of other keys and other sessions
// do not wait for it. fn runs while the key is locked, so keep it short; it
// must not call Update for the same key (that deadlocks with the memory
// store), but may call [Get] (which returns the value before this Update).
// A shared store may call fn more than once when writes conflict, each time
// with a fresh T, so fn should only compute the new value; the memory store
// calls it exactly once.
//
// The memory store ([MemoryStore], the default, also behind a decorator
// that is a [TypedStore], such as the host's metrics) keeps the T itself, not its
// JSON: fn gets a copy of the stored T (copy-on-write: slices and maps
// copied, strings shared, a slice of reference-free elements in one
// memmove; the parts JSON would change, such as pointers, interfaces and
// types with their own MarshalJSON, through a JSON round trip), and the
// changed copy replaces it only if fn succeeds, so a failing or panicking
// fn, or a missed deadline, leaves the stored value as it was. Appending to
// a long list thus costs a memory copy instead of a JSON decoding and
// encoding of all of it. The value is encoded only where bytes are needed:
// by [Get] (so Get's copy is a JSON round trip: nothing it returns reaches
// the stored value), by the store's own Get and Update, and by Update of
// another type of the same key, which behaves as through JSON. Where JSON
// would change a string (invalid UTF-8 becomes U+FFFD), fn sees it as the
// previous fn left it, and Get sees its JSON. A shared store
// (session/redisstore) stores JSON bytes at every Update.
//
// The first Update under a session is what creates its state in the store:
// until then a session costs no memory (see [Manager.Middleware]).
//
// Under a tool call's deadline ([WithWriteDeadline], the framework's
// tool_timeout), an Update whose fn returns at or after the deadline, or
// after the call was answered as timed out, writes nothing and returns
// [ErrDeadline].
//
// Update returns [ErrNoSession] if ctx carries no session, an error naming
// T and the field if T has an unexported field that JSON would drop (every
// Update and Get of such a T, nothing read or written), the store's
// error if the store fails, and
// an error naming the key and T if the stored JSON does not decode into a T
// or the new T does not encode (a NaN float, a channel, ...). It is safe for
// concurrent use.
func Update[T any](ctx context.Context, key string, fn func(*T) error) error {
	s := scopeFrom(ctx)
	if s == nil {
		return ErrNoSession
	}
	if err := stateTypeError[T](); err != nil {
		return err
	}
	lock := guardLock{guards: guardsFrom(ctx)}
	defer lock.unlock()
	if ts, ok := s.m.state.(TypedStore); ok {
		return ts.UpdateTyped(ctx, func(ms *MemoryStore) error {
			return updateTyped(ms, s.id, key, &lock, fn)
		})
	}
	return s.m.state.Update(ctx, s.id, key, func(old []byte, ok bool) ([]byte, error) {
		lock.unlock() // a store that calls fn again: fn runs unguarded
		var v T
		if ok {
			if err := json.Unmarshal(old, &v); err != nil {
				return nil, fmt.Errorf("session: decoding state %q as %v: %w", key, reflect.TypeFor[T](), err)
			}
		}
		if err := fn(&v); err != nil {
			return nil, err
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("session: encoding state %q (%v): %w", key, reflect.TypeFor[T](), err)
		}
		// Under a write deadline (WithWriteDeadline): checked last, and held
		// until the store has committed b, so that the timeout's answer
		// never precedes a write.
		if err := lock.check(); err != nil {
			return nil, err
		}
		return b, nil
	})
}
