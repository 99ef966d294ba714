package server

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

func TestLogRequests(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		handler http.HandlerFunc
		want    string
		flushed bool
	}{
		{"nothing written", func(http.ResponseWriter, *http.Request) {}, "status=200 bytes=0", false},
		{"status and body", func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusTeapot)
			w.Write([]byte("short"))
		}, "status=418 bytes=5", false},
		{"informational first", func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusEarlyHints)
			w.WriteHeader(http.StatusAccepted)
		}, "status=202 bytes=0", false},
		{"flush", func(w http.ResponseWriter, _ *http.Request) {
			w.(http.Flusher).Flush()
			w.Write([]byte("{}"))
		}, "status=200 bytes=2", true},
	}
	for _, tt := range tests {
		for _, inflight := range []*inflightLog{nil, new(inflightLog)} { // listing the request changes nothing
			var logs bytes.Buffer
			h := logRequests(slog.New(slog.NewTextHandler(&logs, nil)).With("instance", "i"), tt.handler, inflight)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("POST", "/ng-rollout/r1/tool", nil))
			want := "msg=request instance=i method=POST path=/ng-rollout/r1/tool " + tt.want + " duration="
			if !strings.Contains(logs.String(), want) || strings.Count(logs.String(), "\n") != 1 {
				t.Errorf("%s: log %q, want one line containing %q", tt.name, logs.String(), want)
			}
			if rec.Flushed != tt.flushed {
				t.Errorf("%s: flushed %v, want %v", tt.name, rec.Flushed, tt.flushed)
			}
			if inflight != nil && len(inflight.reqs) != 0 {
				t.Errorf("%s: the answered request is still listed in flight", tt.name)
			}
		}
	}
}

// A request in flight when the list is cut is logged once, as cut, and not
// again when its handler returns; a request that starts after the cut is
// logged as cut when it starts, and only then.
func TestInflightLogCut(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer // written under inflight.mu or by the one goroutine running a handler
	var mu sync.Mutex
	log := slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, nil)).With("instance", "i")
	inflight := new(inflightLog)
	entered, release := make(chan struct{}), make(chan struct{})
	h := logRequests(log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/block" {
			close(entered)
			<-release
		}
		w.Write([]byte("{}"))
	}), inflight)
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/before", nil)) // answered: one "request" record
	done := make(chan struct{})
	go func() {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/block", nil))
		close(done)
	}()
	<-entered
	inflight.cut(log)
	close(release)
	<-done
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/after", nil))
	mu.Lock()
	lines := strings.Split(strings.TrimSuffix(logs.String(), "\n"), "\n")
	mu.Unlock()
	want := []string{
		"level=INFO msg=request instance=i method=POST path=/before status=200 bytes=2 duration=",
		`level=WARN msg="request cut" instance=i method=POST path=/block duration=`,
		`level=WARN msg="request cut" instance=i method=GET path=/after duration=`,
	}
	if len(lines) != len(want) {
		t.Fatalf("log lines:\n%s\nwant %d", strings.Join(lines, "\n"), len(want))
	}
	for i, w := range want {
		if _, rest, ok := strings.Cut(lines[i], " "); !ok || !strings.HasPrefix(rest, w) {
			t.Errorf("line %d = %q, want it to start (after the time) with %q", i, lines[i], w)
		}
	}
}

// lockedWriter serializes writes to w with mu.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
