package keylock

import (
	"sync"
	"testing"
	"time"
)

// TestSameKeyIsSerialized: 8 goroutines × 1000 unsynchronized increments
// of one counter under one key lose none (and -race sees no race).
func TestSameKeyIsSerialized(t *testing.T) {
	var m Map
	n := 0
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 1000 {
				m.Lock("s1")
				n++
				m.Unlock("s1")
			}
		})
	}
	wg.Wait()
	if n != 8000 {
		t.Errorf("counter = %d, want 8000", n)
	}
	if got := m.Len(); got != 0 {
		t.Errorf("Len after every Unlock = %d, want 0 (no entry kept)", got)
	}
}

// TestOtherKeysDoNotWait: while "a" is held, Lock("b") returns; Lock("a")
// waits until "a" is unlocked.
func TestOtherKeysDoNotWait(t *testing.T) {
	var m Map
	m.Lock("a")
	done := make(chan struct{})
	go func() {
		m.Lock("b")
		m.Unlock("b")
		close(done)
	}()
	<-done // would hang (and the test time out) if "b" waited for "a"

	got := make(chan struct{})
	go func() {
		m.Lock("a")
		close(got)
		m.Unlock("a")
	}()
	// Not a timing assertion: the second holder must not get "a" before it
	// is unlocked, however long that takes.
	for !waiting(&m, "a", 2) {
		time.Sleep(time.Millisecond)
	}
	select {
	case <-got:
		t.Fatal("a second Lock(\"a\") returned while \"a\" was held")
	default:
	}
	m.Unlock("a")
	<-got
	if l := m.Len(); l != 0 {
		t.Errorf("Len at the end = %d, want 0", l)
	}
}

// waiting reports whether key has refs holders and waiters.
func waiting(m *Map, key string, refs int) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.locks[key] != nil && m.locks[key].refs == refs
}

// TestUnlockUnlockedPanics: Unlock of a key nobody holds panics, as
// sync.Mutex does.
func TestUnlockUnlockedPanics(t *testing.T) {
	var m Map
	defer func() {
		if recover() == nil {
			t.Error("Unlock of an unlocked key did not panic")
		}
	}()
	m.Unlock("x")
}
