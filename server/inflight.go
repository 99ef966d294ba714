package server

import (
	"container/list"
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/gymkit/gymkit/framework"
)

// InflightWait is the longest a request waits for room under its instance's
// max_inflight_body_bytes before it is answered 503 with Retry-After (see
// [Instance.Handler]). It is one budget per request body, whatever the
// number of reservations it takes.
const InflightWait = time.Second

// inflightChunk is the least a body reserves at a time (a body with a
// Content-Length never beyond it); it then reserves half of what it holds
// again, so its reservation is at most about 1.5 times what it read.
const inflightChunk = 64 << 10

// byteBudget is a FIFO weighted semaphore of bytes: the bound on the
// request bodies an instance reads and holds at once. A request waits
// behind the earlier ones (so a large body is not starved by small ones),
// for a bounded time.
type byteBudget struct {
	size int64

	mu      sync.Mutex
	used    int64
	waiters list.List // of *budgetWaiter, in arrival order
}

type budgetWaiter struct {
	n     int64
	ready chan struct{} // closed once granted
}

func newByteBudget(size int64) *byteBudget { return &byteBudget{size: size} }

// acquire reserves n bytes, waiting until deadline (or ctx's end) at most;
// it reports whether it did. n > size never succeeds.
func (b *byteBudget) acquire(ctx context.Context, n int64, deadline time.Time) bool {
	b.mu.Lock()
	if n > b.size {
		b.mu.Unlock()
		return false
	}
	if b.waiters.Len() == 0 && b.used+n <= b.size {
		b.used += n
		b.mu.Unlock()
		return true
	}
	w := &budgetWaiter{n: n, ready: make(chan struct{})}
	e := b.waiters.PushBack(w)
	b.mu.Unlock()

	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-w.ready:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case <-w.ready:
		return true // granted meanwhile: the caller holds it
	default:
	}
	front := b.waiters.Front() == e
	b.waiters.Remove(e)
	if front {
		b.grant() // the next ones may fit now
	}
	return false
}

// release returns n bytes and wakes the waiters that fit.
func (b *byteBudget) release(n int64) {
	if n <= 0 {
		return
	}
	b.mu.Lock()
	b.used -= n
	b.grant()
	b.mu.Unlock()
}

// grant serves waiters in order while the first fits; b.mu is held.
func (b *byteBudget) grant() {
	for e := b.waiters.Front(); e != nil; e = b.waiters.Front() {
		w := e.Value.(*budgetWaiter)
		if b.used+w.n > b.size {
			return
		}
		b.used += w.n
		b.waiters.Remove(e)
		close(w.ready)
	}
}

// inUse returns the bytes reserved now.
func (b *byteBudget) inUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// busyError is the read error of a body that found no room within
// InflightWait: a 503 with Retry-After naming the limit, which the HTTP
// door answers as is and the MCP door as a JSON-RPC error.
func busyError(size int64) *framework.Error {
	return &framework.Error{Status: http.StatusServiceUnavailable,
		Detail: "Server busy: request bodies being read exceed max_inflight_body_bytes (" +
			strconv.FormatInt(size, 10) + " bytes); retry later",
		Header: http.Header{"Retry-After": {strconv.Itoa(int(InflightWait.Seconds()))}}}
}

// reservation is one request body's share of its instance's byteBudget.
// Reads come from one goroutine at a time; mu keeps a handler that reads
// from another goroutine sound.
type reservation struct {
	budget   *byteBudget
	ctx      context.Context
	declared int64 // Content-Length, -1 when unknown
	limit    int64 // max_body_bytes

	mu       sync.Mutex
	deadline time.Time // end of the wait budget, from the first reservation
	held     int64     // reserved
	got      int64     // read
	refused  error     // the 503, once refused
	discards bool      // the 413 drain: reads reserve nothing
}

// reserve makes room for a read into p and returns p, shortened to the
// room held.
func (r *reservation) reserve(p []byte) ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.refused != nil:
		return nil, r.refused
	case r.discards || len(p) == 0:
		return p, nil
	}
	capacity := r.limit + 1 // what a body limit reader reads at most
	if r.declared >= 0 {
		// A known length is reserved as it arrives too, never beyond it
		// (net/http never delivers more): a client that declares a large
		// body and stalls holds what it sent, not what it declared, so a
		// few such connections cannot lock every other client out.
		capacity = min(r.declared, capacity)
	}
	if r.held >= capacity {
		return p, nil // beyond the body limit: its reader refuses it anyway
	}
	if r.held-r.got <= 0 {
		if !r.take(min(max(int64(inflightChunk), r.held/2), capacity-r.held)) {
			return nil, r.refused
		}
	}
	if room := r.held - r.got; int64(len(p)) > room {
		p = p[:room]
	}
	return p, nil
}

// take reserves n more bytes (r.mu held), or records the refusal.
func (r *reservation) take(n int64) bool {
	if n <= 0 {
		return true
	}
	if r.deadline.IsZero() {
		r.deadline = time.Now().Add(InflightWait)
	}
	if !r.budget.acquire(r.ctx, n, r.deadline) {
		r.refused = busyError(r.budget.size)
		return false
	}
	r.held += n
	return true
}

// read records n bytes read.
func (r *reservation) read(n int) {
	r.mu.Lock()
	r.got += int64(n)
	r.mu.Unlock()
}

// discard makes further reads reserve nothing (the 413 drain).
func (r *reservation) discard() {
	r.mu.Lock()
	r.discards = true
	r.mu.Unlock()
}

// releaseAll gives the reservation back (the handler has returned).
func (r *reservation) releaseAll() {
	r.mu.Lock()
	n := r.held
	r.held = 0
	r.discards = true // a read from a goroutine the handler left behind reserves nothing
	r.mu.Unlock()
	r.budget.release(n)
}
