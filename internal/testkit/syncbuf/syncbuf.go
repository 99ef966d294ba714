// Package syncbuf is a bytes.Buffer safe for concurrent use, for tests that
// read a log or a stream while a server or a command still writes it.
//
//	var logs syncbuf.Buffer
//	logger := slog.New(slog.NewTextHandler(&logs, nil))
//	// ... serve, with logger ...
//	if !strings.Contains(logs.String(), "listening") { ... }
package syncbuf

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer behind a mutex: Write and String may be called
// from any number of goroutines at once. The zero Buffer is empty and ready
// to use; a Buffer must not be copied after first use.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p to the buffer; it always returns len(p), nil (it panics
// only as bytes.Buffer does, when the buffer cannot grow).
func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns a copy of everything written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
