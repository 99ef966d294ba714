package framework_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/framework"
)

// BenchmarkToolCallHandler measures one typed tool call through App.Handler
// (routing, body read, Python-JSON parse, lax decode, handler, encode), with
// BenchmarkBaselineHandler as the same-run baseline: a hand-written net/http
// handler using encoding/json (no coercions, no pydantic errors).
func BenchmarkToolCallHandler(b *testing.B) {
	app, err := framework.Build(context.Background(), new(adder), framework.Options{})
	if err != nil {
		b.Fatal(err)
	}
	benchHandler(b, app.Handler(), "/add", `{"a":12,"b":30}`)
}

func BenchmarkBaselineHandler(b *testing.B) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req AddRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), 422)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(AddResponse{Sum: req.A + req.B})
	})
	benchHandler(b, h, "/add", `{"a":12,"b":30}`)
}

func benchHandler(b *testing.B, h http.Handler, path, body string) {
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest("POST", path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 200 {
			b.Fatalf("%d %s", rec.Code, rec.Body)
		}
	}
}
