package framework_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/config/configtest"
	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/framework/host"
	"github.com/gymkit/gymkit/internal/testkit/benchutil"
)

// BenchmarkToolCallHandler measures one typed tool call through App.Handler
// (routing, body read, Python-JSON parse, lax decode, handler, encode), with
// BenchmarkBaselineHandler as the same-run baseline: a hand-written net/http
// handler using encoding/json (no coercions, no pydantic errors).
func BenchmarkToolCallHandler(b *testing.B) {
	app, err := host.Build(context.Background(), new(adder), host.Options{})
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

type idsServer struct{ framework.Base }

type IDsRequest struct {
	IDs []int `json:"ids" required:"true"`
}

type IDsResponse struct {
	N int `json:"n"`
}

func (s *idsServer) Routes(r *framework.Router) {
	framework.Post(r, "/count", func(_ context.Context, req IDsRequest) (IDsResponse, error) {
		return IDsResponse{N: len(req.IDs)}, nil
	})
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{Reward: 1}, nil
	})
}

// BenchmarkBigBodyVsEncodingJSON sends a 14 MiB body of 7M ints
// ({"ids":[1,1,...]}) to a typed tool through App.Handler, and the same body
// to a hand-written net/http handler decoding it with encoding/json into the
// same request type, in the same run. It reports time-x and peak-x (peak
// heap growth during one request, sampled every 100 µs) as ratios to the
// encoding/json handler, with gymkit-MB-peak, std-MB-peak and body-MB.
func BenchmarkBigBodyVsEncodingJSON(b *testing.B) {
	body := `{"ids":[` + strings.Repeat("1,", 7_000_000) + `1]}`
	app, err := host.Build(context.Background(), new(idsServer), host.Options{Config: new(configtest.Over(config.Instance{MaxJSONElements: 8_000_000}))})
	if err != nil {
		b.Fatal(err)
	}
	ours := app.Handler()
	std := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req IDsRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), 422)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(IDsResponse{N: len(req.IDs)})
	})
	send := func(h http.Handler) {
		req := httptest.NewRequest("POST", "/count", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 200 || !strings.Contains(rec.Body.String(), "7000001") {
			b.Fatalf("%d %.200s", rec.Code, rec.Body)
		}
	}
	var tOurs, tStd time.Duration
	for b.Loop() {
		t0 := time.Now()
		send(ours)
		t1 := time.Now()
		send(std)
		tOurs += t1.Sub(t0)
		tStd += time.Since(t1)
	}
	b.StopTimer()
	pOurs, pStd := benchutil.PeakDuring(func() { send(ours) }), benchutil.PeakDuring(func() { send(std) })
	benchutil.ReportRatio(b, float64(tOurs), float64(tStd), "time-x")
	benchutil.ReportRatio(b, float64(pOurs), float64(pStd), "peak-x")
	benchutil.ReportMB(b, pOurs, "gymkit-MB-peak")
	benchutil.ReportMB(b, pStd, "std-MB-peak")
	benchutil.ReportMB(b, len(body), "body-MB")
	b.SetBytes(int64(len(body)))
}
