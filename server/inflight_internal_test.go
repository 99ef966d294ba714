package server

import (
	"context"
	"sync"
	"testing"
	"time"
)

// The byte budget: FIFO, bounded waits, everything given back.
func TestByteBudget(t *testing.T) {
	t.Parallel()
	b := newByteBudget(100)
	ctx := context.Background()
	soon := func(d time.Duration) time.Time { return time.Now().Add(d) }
	if !b.acquire(ctx, 60, soon(0)) || b.acquire(ctx, 50, soon(50*time.Millisecond)) {
		t.Fatal("60 then 50 of 100: the second must time out")
	}
	if b.acquire(ctx, 101, soon(time.Second)) {
		t.Fatal("more than the budget was granted")
	}
	// A large waiter is served before a small one that came after it. Each
	// waiter is seen queued before the next one starts (polled, with a 30 s
	// ceiling), and their waits are long, so the order is the arrival order
	// however loaded the machine.
	waiting := func(n int) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Millisecond) {
			b.mu.Lock()
			got := b.waiters.Len()
			b.mu.Unlock()
			if got == n {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d waiters after 30 s, want %d", got, n)
			}
		}
	}
	var order []int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i, n := range []int64{95, 10} { // 10 would fit beside the 60 held, but waits its turn
		wg.Add(1)
		go func() {
			defer wg.Done()
			if b.acquire(ctx, n, soon(time.Minute)) {
				mu.Lock()
				order = append(order, i)
				mu.Unlock()
				b.release(n)
			}
		}()
		waiting(i + 1) // arrival order
	}
	b.release(60)
	wg.Wait()
	if len(order) != 2 || order[0] != 0 {
		t.Errorf("grant order %v, want [0 1] (FIFO)", order)
	}
	// A canceled wait gives up at once.
	b.acquire(ctx, 100, soon(0))
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if b.acquire(cctx, 1, soon(time.Minute)) {
		t.Error("a canceled wait was granted")
	}
	b.release(100)
	if n := b.inUse(); n != 0 {
		t.Errorf("in use %d after everything was given back", n)
	}
}
