package server

import (
	"errors"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/gymkit/gymkit/framework"
)

// MinDrainBytes is the least an instance reads and discards of an oversized
// request body after its 413 (see [Instance.Handler]): with a small
// max_body_bytes, a body up to max_body_bytes + MinDrainBytes still lets
// the client read the 413.
const MinDrainBytes = 4 << 20

// drainLimit is how many bytes of a request body in all an instance with
// body limit n reads before it gives up on an oversized one: twice the
// limit, and at least n + MinDrainBytes.
func drainLimit(n int64) int64 { return max(2*n, n+MinDrainBytes) }

// guardBody is the outermost layer of an instance: the body read deadline
// and the 413 drain.
//
// A request with a body gets a read deadline of timeout from when its
// headers were read (http.ResponseController.SetReadDeadline); it is
// cleared as soon as the body has been read to its end, so a tool that runs
// for minutes afterwards is not limited by it, nor is net/http's check for a
// client that goes away. A body not received in time fails the handler's
// read with a 408 *framework.Error (the HTTP door answers it as is, the MCP
// door with the same 408 and a JSON-RPC error body), and the answer closes the
// connection. A deadline that cannot be set (a ResponseWriter that is not
// net/http's, httptest.ResponseRecorder) is skipped.
//
// After a 413 (from any layer: the body limit, the framework or the MCP
// door), the rest of the body is read and discarded, within the same
// deadline and up to drainLimit bytes in all, before the connection is
// closed, so that a client that sends its whole body before reading the
// answer (Python's http.client, aiohttp) reads the 413 rather than a reset.
// The 413 is flushed first, for clients that read while they send. A
// request that asked for 100-continue is not drained: its client waits for
// the answer before sending the body.
//
// With a budget (max_inflight_body_bytes), the body's first read reserves
// its Content-Length (up to bodyLimit + 1) in it, and a body of unknown
// length reserves as it is read (see inflightChunk); the reservation is
// held until the handler returns, since the body and what is parsed from
// it live that long. A body that finds no room within [InflightWait] fails
// its read with a 503 *framework.Error carrying Retry-After (each door
// answers it in its own form). The drain after a 413 reserves nothing.
func guardBody(timeout time.Duration, bodyLimit int64, budget *byteBudget, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r) // nothing to read; net/http already watches the connection
			return
		}
		rc := http.NewResponseController(w)
		b := &guardedBody{src: r.Body, rc: rc, timeout: timeout}
		if budget != nil {
			b.res = &reservation{budget: budget, ctx: r.Context(), declared: r.ContentLength, limit: bodyLimit}
			defer b.res.releaseAll()
		}
		b.armed = rc.SetReadDeadline(time.Now().Add(timeout)) == nil
		// A copy: net/http must still see its own body in the request it
		// passed, to answer a 100-continue request that was not read (a 413
		// for its declared length, a 404) at once and close, rather than
		// wait for a body its client holds back until the answer.
		r = r.WithContext(r.Context())
		r.Body = b
		gw := &guardWriter{ResponseWriter: w, body: b}
		next.ServeHTTP(gw, r)
		if gw.status == http.StatusRequestEntityTooLarge && !expectsContinue(r) {
			_ = rc.Flush()
			b.drain(drainLimit(bodyLimit), r.ContentLength)
		}
	})
}

func expectsContinue(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Expect"), "100-continue")
}

// guardedBody is a request body under the read deadline. Reads come from
// the handler's goroutine (or, after it returned, guardBody's); mu keeps the
// bookkeeping sound for a handler that reads from another goroutine.
type guardedBody struct {
	src     io.ReadCloser
	rc      *http.ResponseController
	timeout time.Duration
	res     *reservation // nil: no max_inflight_body_bytes

	mu       sync.Mutex
	armed    bool  // the read deadline is set
	read     int64 // bytes read so far
	eof      bool  // the body was read to its end
	timedOut bool  // a read hit the deadline
}

func (b *guardedBody) Read(p []byte) (int, error) {
	if b.res != nil {
		var err error
		if p, err = b.res.reserve(p); err != nil {
			return 0, err
		}
	}
	n, err := b.src.Read(p)
	if b.res != nil {
		b.res.read(n)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.read += int64(n)
	switch {
	case err == io.EOF:
		b.eof = true
		if b.armed {
			// net/http starts watching the connection for the client's
			// going away now: that read must have no deadline.
			b.armed = false
			_ = b.rc.SetReadDeadline(time.Time{})
		}
	case err != nil && errors.Is(err, os.ErrDeadlineExceeded):
		// The deadline stays set: whatever reads the connection next (net/http
		// discarding the rest of the body) fails at once.
		b.timedOut = true
		err = &bodyTimeoutError{framework.Errorf(http.StatusRequestTimeout,
			"Request body not received within %s (body_read_timeout)", b.timeout).(*framework.Error)}
	}
	return n, err
}

// Close closes the underlying body.
func (b *guardedBody) Close() error { return b.src.Close() }

// drain reads and discards the rest of the body, up to limit bytes in all
// (nothing when the declared length says it is longer), under the deadline.
func (b *guardedBody) drain(limit, declared int64) {
	b.mu.Lock()
	done := b.eof || b.timedOut || !b.armed || (declared > limit)
	left := limit - b.read
	b.mu.Unlock()
	if done || left <= 0 {
		return
	}
	if b.res != nil {
		b.res.discard()
	}
	_, _ = io.CopyN(io.Discard, b, left)
}

// failed reports whether a read of the body timed out.
func (b *guardedBody) failed() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.timedOut
}

// bodyTimeoutError is the read error of a body not received in time: the
// 408 *framework.Error for errors.As, os.ErrDeadlineExceeded for errors.Is.
type bodyTimeoutError struct{ fe *framework.Error }

func (e *bodyTimeoutError) Error() string   { return e.fe.Error() }
func (e *bodyTimeoutError) Unwrap() []error { return []error{e.fe, os.ErrDeadlineExceeded} }
func (e *bodyTimeoutError) Timeout() bool   { return true }

// guardWriter records the status of the answer, and makes the answer to a
// request whose body timed out close the connection (the rest of that body
// may still arrive and must not be read as a request), with a write
// deadline so that a client that reads nothing cannot hold the handler.
type guardWriter struct {
	http.ResponseWriter
	body   *guardedBody
	status int
}

func (w *guardWriter) WriteHeader(code int) {
	if w.status == 0 && code >= 200 {
		w.status = code
		if w.body.failed() {
			w.Header().Set("Connection", "close")
			_ = w.body.rc.SetWriteDeadline(time.Now().Add(w.body.timeout))
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *guardWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(p)
}

// Flush passes Flush on.
func (w *guardWriter) Flush() {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *guardWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
