package pyjson

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gymkit/gymkit/internal/testkit/benchutil"
)

// BenchmarkVsEncodingJSON parses request bodies with Parse and with
// encoding/json (json.Unmarshal into any, the generic tree it builds) in the
// same run, and reports pyjson's figures as ratios to encoding/json's:
//
//   - time-x: time per parse;
//   - peak-x: peak heap growth during one parse (sampled from
//     runtime/metrics every 100 µs, from a collected heap; the result is
//     kept alive until the end);
//   - alloc-x: bytes allocated by one parse;
//
// with the absolute figures as pyjson-MB-peak, std-MB-peak, body-MB. The
// bodies: the 14 MiB array of 7M ints and the 15 MiB strings of "<>&" (raw,
// and as \u003c\u003e\u0026 escapes) of tests/breaktest, a real
// workplace_assistant verify body (a ../shared/data/nemo-gym row with a
// response of tool calls), and the same body with the token ids and log
// probabilities a training run's model server adds (a real NeMo verify body
// of an RL rollout). It records the baseline of typed decoding without a
// generic tree (docs/performance.md, "Parsing request bodies").
func BenchmarkVsEncodingJSON(b *testing.B) {
	workplace := realVerifyBody(b, false)
	tokens := realVerifyBody(b, true)
	for _, tc := range []struct {
		name string
		body func() []byte
	}{
		{"ints-14MiB", func() []byte { return []byte("[" + strings.Repeat("1,", 7_000_000) + "1]") }},
		{"string-raw-15MiB", func() []byte { return []byte(`{"text":"` + strings.Repeat("<>&", 5<<20) + `"}`) }},
		{"string-escaped-15MiB", func() []byte { return []byte(`{"text":"` + strings.Repeat(`\u003c\u003e\u0026`, 15<<20/18) + `"}`) }},
		{"verify-workplace", func() []byte { return workplace }},
		{"verify-tokens", func() []byte { return tokens }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			body := tc.body()
			if body == nil {
				b.Skip("../shared/data/nemo-gym is not beside the module")
			}
			ours := func() (any, error) { return Parse(body) }
			std := func() (any, error) {
				var x any
				err := json.Unmarshal(body, &x)
				return x, err
			}
			if _, err := ours(); err != nil {
				b.Fatal(err)
			}
			if _, err := std(); err != nil {
				b.Fatal(err)
			}
			var tOurs, tStd time.Duration
			for b.Loop() {
				t0 := time.Now()
				_, _ = ours()
				t1 := time.Now()
				_, _ = std()
				tOurs += t1.Sub(t0)
				tStd += time.Since(t1)
			}
			b.StopTimer()
			peakOurs, allocOurs := peakOf(ours)
			peakStd, allocStd := peakOf(std)
			b.ReportMetric(float64(tOurs)/float64(tStd), "time-x")
			b.ReportMetric(float64(peakOurs)/float64(peakStd), "peak-x")
			b.ReportMetric(float64(allocOurs)/float64(allocStd), "alloc-x")
			b.ReportMetric(float64(peakOurs)/(1<<20), "pyjson-MB-peak")
			b.ReportMetric(float64(peakStd)/(1<<20), "std-MB-peak")
			b.ReportMetric(float64(len(body))/(1<<20), "body-MB")
			b.SetBytes(int64(len(body)))
		})
	}
}

// peakOf runs f once from a collected heap and returns the peak growth of
// the heap's live objects while it ran and the bytes it allocated.
func peakOf(f func() (any, error)) (peak, alloc uint64) { return benchutil.Peak(f) }

// realVerifyBody returns a workplace_assistant verify body, with a
// training run's token ids when tokens is set (benchutil.VerifyBody). Nil
// without the data.
func realVerifyBody(b *testing.B, tokens bool) []byte { return benchutil.VerifyBody(b, tokens) }
