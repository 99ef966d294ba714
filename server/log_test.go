package server

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
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
		var logs bytes.Buffer
		h := logRequests(slog.New(slog.NewTextHandler(&logs, nil)).With("instance", "i"), tt.handler)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("POST", "/ng-rollout/r1/tool", nil))
		want := "msg=request instance=i method=POST path=/ng-rollout/r1/tool " + tt.want + " duration="
		if !strings.Contains(logs.String(), want) {
			t.Errorf("%s: log %q, want it to contain %q", tt.name, logs.String(), want)
		}
		if rec.Flushed != tt.flushed {
			t.Errorf("%s: flushed %v, want %v", tt.name, rec.Flushed, tt.flushed)
		}
	}
}
