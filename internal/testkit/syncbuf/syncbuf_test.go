package syncbuf

import (
	"strings"
	"sync"
	"testing"
)

// TestConcurrentWriters: 8 writers × 100 lines and a concurrent reader;
// every line arrives whole (-race checks the locking).
func TestConcurrentWriters(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				if n, err := b.Write([]byte("line\n")); n != 5 || err != nil {
					t.Errorf("Write = %d, %v", n, err)
				}
			}
		})
	}
	wg.Go(func() {
		for range 100 {
			_ = b.String()
		}
	})
	wg.Wait()
	if got := b.String(); got != strings.Repeat("line\n", 800) {
		t.Errorf("buffer holds %d bytes, want 800 whole lines", len(got))
	}
}
