package session

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// ErrDeadline is returned by [Update] when the tool call it runs in has
// passed its deadline (see [WithWriteDeadline]): nothing is written, because
// the client has been, or is about to be, told that the call failed.
// errors.Is(err, context.DeadlineExceeded) is true for it.
var ErrDeadline = fmt.Errorf("session: the tool call's deadline has passed; state not written: %w", context.DeadlineExceeded)

// writeGuard is the write deadline of one tool call. Update holds mu from
// its last check until the store has committed the value, and [expire]
// takes mu, so that once expire has returned no Update under the guard can
// commit, and none is half-way through committing.
type writeGuard struct {
	deadline time.Time
	mu       sync.Mutex
	expired  bool // guarded by mu
}

type guardKey struct{}

// WithWriteDeadline returns a copy of ctx under which every [Update] made at
// or after deadline fails with [ErrDeadline] and writes nothing, and the
// function expire, which makes every later Update fail at once whatever the
// clock says. expire waits for an Update that is committing its value under
// ctx (it holds the guard from its deadline check to the end of the store's
// write), so after expire returns no state is written under ctx any more:
// call it before telling the client the call timed out. expire is
// idempotent and safe for concurrent use.
//
// The framework's per-tool timeout uses it (tool_timeout); the check runs
// inside the store's Update, after fn, under the key's lock. A nested
// WithWriteDeadline adds a second deadline: both are checked. [Get] is not
// affected.
func WithWriteDeadline(ctx context.Context, deadline time.Time) (_ context.Context, expire func()) {
	g := &writeGuard{deadline: deadline}
	guards, _ := ctx.Value(guardKey{}).([]*writeGuard)
	guards = append(guards[:len(guards):len(guards)], g)
	return context.WithValue(ctx, guardKey{}, guards), func() {
		g.mu.Lock()
		g.expired = true
		g.mu.Unlock()
	}
}

// guardsFrom returns the write guards of ctx, outermost first (nil: none).
func guardsFrom(ctx context.Context) []*writeGuard {
	g, _ := ctx.Value(guardKey{}).([]*writeGuard)
	return g
}

// guardLock is the state of one Update's guards: which of them it holds.
type guardLock struct {
	guards []*writeGuard
	held   int // guards[:held] are locked by this Update
}

// check locks every guard (once per Update, even when a store calls fn
// again) and reports ErrDeadline if one has expired or passed its
// deadline. The guards stay locked until unlock.
func (l *guardLock) check() error {
	for ; l.held < len(l.guards); l.held++ {
		l.guards[l.held].mu.Lock()
	}
	now := time.Now()
	for _, g := range l.guards {
		if g.expired || !now.Before(g.deadline) {
			return ErrDeadline
		}
	}
	return nil
}

// unlock releases the guards check locked.
func (l *guardLock) unlock() {
	for i := l.held - 1; i >= 0; i-- {
		l.guards[i].mu.Unlock()
	}
	l.held = 0
}
