package server

import (
	"log/slog"
	"net/http"
	"time"
)

// logRequests logs one Info record "request" per request once the handler
// has returned: method, path (as received), status, bytes (of the response
// body) and duration. log carries the instance attribute.
func logRequests(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rw := &recordingWriter{ResponseWriter: w}
		defer func() {
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
