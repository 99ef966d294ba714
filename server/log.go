package server

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"time"
)

// logRequests logs one Info record "request" per request once the handler
// has returned: method, path (as received), status, bytes (of the response
// body) and duration. log carries the instance attribute. With a non-nil
// inflight, each request is also listed there while it runs, and a request
// that inflight.cut logged is not logged again.
func logRequests(log *slog.Logger, next http.Handler, inflight *inflightLog) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rw := &recordingWriter{ResponseWriter: w}
		id := inflight.add(log, r, start)
		defer func() {
			if !inflight.remove(id) {
				return // cut: logged by inflightLog.cut
			}
			status := rw.status
			if status == 0 {
				status = http.StatusOK // net/http's answer to a handler that wrote nothing
			}
			log.LogAttrs(r.Context(), slog.LevelInfo, "request",
				slog.String("method", r.Method),
				slog.String("path", r.URL.Path),
				slog.Int("status", status),
				slog.Int64("bytes", rw.bytes),
				slog.Duration("duration", time.Since(start)))
		}()
		next.ServeHTTP(rw, r)
	})
}

// inflightLog lists the requests an instance is running, so that a stop
// without drain (Options.StopAtOnce) can log each one it cuts. A nil
// *inflightLog lists nothing. Safe for concurrent use.
type inflightLog struct {
	mu    sync.Mutex
	next  uint64
	reqs  map[uint64]inflightRequest
	isCut bool // cut has run: later requests are logged as cut when they start
}

type inflightRequest struct {
	method, path string
	start        time.Time
}

// add lists r and returns its id (0: not listed, because l is nil or the
// requests were cut already, in which case r is logged as cut now).
func (l *inflightLog) add(log *slog.Logger, r *http.Request, start time.Time) uint64 {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.isCut {
		logCut(log, inflightRequest{r.Method, r.URL.Path, start})
		return 0
	}
	if l.reqs == nil {
		l.reqs = map[uint64]inflightRequest{}
	}
	l.next++
	l.reqs[l.next] = inflightRequest{r.Method, r.URL.Path, start}
	return l.next
}

// remove takes request id off the list; it reports whether the request
// is still to be logged (false once cut logged it).
func (l *inflightLog) remove(id uint64) bool {
	if l == nil {
		return true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.isCut {
		return false
	}
	delete(l.reqs, id)
	return true
}

// cut logs every listed request as cut, in arrival order, and from then on
// logs each new one as cut when it starts.
func (l *inflightLog) cut(log *slog.Logger) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.isCut = true
	ids := make([]uint64, 0, len(l.reqs))
	for id := range l.reqs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		logCut(log, l.reqs[id])
	}
	l.reqs = nil
}

// logCut is the Warn record "request cut" of a request stopped before its
// answer: method, path (as received) and how long it had run.
func logCut(log *slog.Logger, r inflightRequest) {
	log.LogAttrs(context.Background(), slog.LevelWarn, "request cut",
		slog.String("method", r.method),
		slog.String("path", r.path),
		slog.Duration("duration", time.Since(r.start)))
}

// recordingWriter records the status and counts the body bytes of a
// response. It passes Flush on, and Unwrap lets http.ResponseController
// reach the connection's writer for anything else.
type recordingWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *recordingWriter) WriteHeader(code int) {
	if w.status == 0 && code >= 200 { // 1xx answers are not the status
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *recordingWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(p)
	w.bytes += int64(n)
	return n, err
}

func (w *recordingWriter) Flush() {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *recordingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
