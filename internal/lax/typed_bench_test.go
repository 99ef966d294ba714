package lax

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gymkit/gymkit/internal/pyjson"
	"github.com/gymkit/gymkit/internal/testkit/benchutil"
)

type intsBody struct {
	IDs []int `json:"ids" required:"true"`
}

type stringsBody struct {
	Items []string `json:"items" required:"true"`
}

type textBody struct {
	Text string `json:"text" required:"true"`
}

// verifyBody is a typed view of a NeMo verify body, as a resources server
// declares it: the response's output items with their token ids.
type verifyBody struct {
	ResponsesCreateParams struct {
		Input any `json:"input"`
		Tools []struct {
			Type        string         `json:"type"`
			Name        string         `json:"name"`
			Description string         `json:"description"`
			Parameters  map[string]any `json:"parameters"`
		} `json:"tools"`
	} `json:"responses_create_params" required:"true"`
	Response struct {
		ID        string  `json:"id"`
		CreatedAt float64 `json:"created_at"`
		Model     string  `json:"model"`
		Output    []struct {
			Type               string    `json:"type"`
			ID                 string    `json:"id"`
			Name               string    `json:"name"`
			CallID             string    `json:"call_id"`
			Arguments          string    `json:"arguments"`
			Output             string    `json:"output"`
			Status             string    `json:"status"`
			Role               string    `json:"role"`
			Content            []any     `json:"content"`
			PromptTokenIDs     []int     `json:"prompt_token_ids"`
			GenerationTokenIDs []int     `json:"generation_token_ids"`
			GenerationLogProbs []float64 `json:"generation_log_probs"`
		} `json:"output"`
	} `json:"response" required:"true"`
	GroundTruth any `json:"ground_truth"`
}

// BenchmarkTypedVsEncodingJSON decodes request bodies into a typed request
// three ways in the same run and reports the first two as ratios to the
// third, encoding/json.Unmarshal into the same Go type:
//
//   - stream (DecodeJSON, the path the framework takes): time-x, peak-x;
//   - tree (ParseLimited then Decode, the path before the typed
//     decoder): tree-time-x, tree-peak-x;
//   - lazy (ParseLazy then Decode, the framework's path when the stream
//     gives up, and /verify's): lazy-time-x, lazy-peak-x;
//
// with stream-MB-peak, tree-MB-peak, lazy-MB-peak, std-MB-peak and body-MB. Peak is the
// growth of the live heap during one decode (sampled every 100 µs from a
// collected heap, result kept alive); the body itself is not counted. The
// bodies: the 14 MiB array of 7M ints, an array of 2M short strings, the
// 15 MiB string of "<>&" escapes, a real workplace_assistant verify body
// (../shared/data/nemo-gym) and the same with a training run's token ids
// and log probabilities.
func BenchmarkTypedVsEncodingJSON(b *testing.B) {
	workplace := realVerifyBody(b, false)
	tokens := realVerifyBody(b, true)
	for _, tc := range []struct {
		name string
		typ  reflect.Type
		body func() []byte
	}{
		{"ints-14MiB", reflect.TypeFor[intsBody](), func() []byte { return []byte(`{"ids":[` + strings.Repeat("1,", 7_000_000) + "1]}") }},
		{"strings-2M", reflect.TypeFor[stringsBody](), func() []byte { return []byte(`{"items":[` + strings.Repeat(`"tok",`, 2_000_000) + `"end"]}`) }},
		{"string-escaped-15MiB", reflect.TypeFor[textBody](), func() []byte {
			return []byte(`{"text":"` + strings.Repeat(`\u003c\u003e\u0026`, 15<<20/18) + `"}`)
		}},
		{"verify-workplace", reflect.TypeFor[verifyBody](), func() []byte { return workplace }},
		{"verify-tokens", reflect.TypeFor[verifyBody](), func() []byte { return tokens }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			body := tc.body()
			if body == nil {
				b.Skip("../shared/data/nemo-gym is not beside the module")
			}
			plan, err := Compile(tc.typ)
			if err != nil {
				b.Fatal(err)
			}
			lim := pyjson.Limits{MaxElements: 10_000_000}
			stream := func() (any, error) {
				dst := reflect.New(tc.typ)
				if !plan.DecodeJSON(body, lim, dst.Elem(), ModeHTTP) {
					return nil, fmt.Errorf("stream gave up")
				}
				return dst.Interface(), nil
			}
			via := func(parse func([]byte, pyjson.Limits) (pyjson.Value, error)) func() (any, error) {
				return func() (any, error) {
					v, err := parse(body, lim)
					if err != nil {
						return nil, err
					}
					dst := reflect.New(tc.typ)
					if items := plan.Decode(v, dst.Elem(), ModeHTTP); len(items) > 0 {
						return nil, fmt.Errorf("%s", RenderMCP(items))
					}
					return dst.Interface(), nil
				}
			}
			tree, lazy := via(pyjson.ParseLimited), via(pyjson.ParseLazy)
			std := func() (any, error) {
				dst := reflect.New(tc.typ)
				err := json.Unmarshal(body, dst.Interface())
				return dst.Interface(), err
			}
			for _, f := range []func() (any, error){stream, tree, lazy, std} {
				if _, err := f(); err != nil {
					b.Fatal(err)
				}
			}
			ts := alternate(b, stream, tree, lazy, std)
			tStream, tTree, tLazy, tStd := ts[0], ts[1], ts[2], ts[3]
			b.StopTimer()
			pStream, pTree, pLazy, pStd := peakOf(stream), peakOf(tree), peakOf(lazy), peakOf(std)
			b.ReportMetric(float64(tStream)/float64(tStd), "time-x")
			b.ReportMetric(float64(pStream)/float64(pStd), "peak-x")
			b.ReportMetric(float64(tTree)/float64(tStd), "tree-time-x")
			b.ReportMetric(float64(pTree)/float64(pStd), "tree-peak-x")
			b.ReportMetric(float64(tLazy)/float64(tStd), "lazy-time-x")
			b.ReportMetric(float64(pLazy)/float64(pStd), "lazy-peak-x")
			b.ReportMetric(float64(pStream)/(1<<20), "stream-MB-peak")
			b.ReportMetric(float64(pTree)/(1<<20), "tree-MB-peak")
			b.ReportMetric(float64(pLazy)/(1<<20), "lazy-MB-peak")
			b.ReportMetric(float64(pStd)/(1<<20), "std-MB-peak")
			b.ReportMetric(float64(len(body))/(1<<20), "body-MB")
			b.SetBytes(int64(len(body)))
		})
	}
}

// peakOf runs f once from a collected heap and returns the peak growth of
// the heap's live objects while it ran.
func peakOf(f func() (any, error)) uint64 {
	peak, _ := benchutil.Peak(f)
	return peak
}

// realVerifyBody is pyjson's BenchmarkVsEncodingJSON body
// (benchutil.VerifyBody): a workplace_assistant verify body, with a
// training run's token ids when tokens is set. Nil without the data.
func realVerifyBody(b *testing.B, tokens bool) []byte { return benchutil.VerifyBody(b, tokens) }

type cityBody struct {
	City string `json:"city" required:"true"`
}

// BenchmarkEchoVsEncodingJSON is a 422 that echoes a large input (a str
// field given a 14 MiB array of ints, or an object holding the 15 MiB
// escaped string), decoded and rendered (RenderHTTP) two ways, against
// encoding/json reading the body as a generic tree and writing it back
// (what echoing the input costs it) in the same run:
//
//   - lazy (ParseLazy, Decode, RenderHTTP: the framework's path): time-x,
//     peak-x;
//   - tree (ParseLimited, Decode, RenderHTTP: the path before the lazy
//     trees): tree-time-x, tree-peak-x;
//
// with lazy-MB-peak, tree-MB-peak, std-MB-peak and body-MB. Peak is the
// growth of the live heap during one run (the body not counted, the
// answer kept alive).
func BenchmarkEchoVsEncodingJSON(b *testing.B) {
	for _, tc := range []struct {
		name string
		body func() []byte
	}{
		{"ints-14MiB", func() []byte { return []byte(`{"city":[` + strings.Repeat("1234567,", 14<<20/8) + "1]}") }},
		{"string-escaped-15MiB", func() []byte {
			return []byte(`{"city":{"text":"` + strings.Repeat(`\u003c\u003e\u0026`, 15<<20/18) + `"}}`)
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			body := tc.body()
			plan, err := Compile(reflect.TypeFor[cityBody]())
			if err != nil {
				b.Fatal(err)
			}
			lim := pyjson.Limits{MaxElements: 10_000_000}
			via := func(parse func([]byte, pyjson.Limits) (pyjson.Value, error)) func() (any, error) {
				return func() (any, error) {
					v, err := parse(body, lim)
					if err != nil {
						return nil, err
					}
					items := plan.Decode(v, reflect.New(plan.Type()).Elem(), ModeHTTP)
					if len(items) != 1 {
						return nil, fmt.Errorf("%d items", len(items))
					}
					return RenderHTTP(items), nil
				}
			}
			lazy, tree := via(pyjson.ParseLazy), via(pyjson.ParseLimited)
			std := func() (any, error) {
				var x any
				if err := json.Unmarshal(body, &x); err != nil {
					return nil, err
				}
				return json.Marshal(x)
			}
			a, err := lazy()
			if err != nil {
				b.Fatal(err)
			}
			if t, err := tree(); err != nil || !bytes.Equal(a.([]byte), t.([]byte)) {
				b.Fatalf("the lazy and tree 422s differ (%v)", err)
			}
			if _, err := std(); err != nil {
				b.Fatal(err)
			}
			ts := alternate(b, lazy, tree, std)
			tLazy, tTree, tStd := ts[0], ts[1], ts[2]
			b.StopTimer()
			pLazy, pTree, pStd := peakOf(lazy), peakOf(tree), peakOf(std)
			b.ReportMetric(float64(tLazy)/float64(tStd), "time-x")
			b.ReportMetric(float64(pLazy)/float64(pStd), "peak-x")
			b.ReportMetric(float64(tTree)/float64(tStd), "tree-time-x")
			b.ReportMetric(float64(pTree)/float64(pStd), "tree-peak-x")
			b.ReportMetric(float64(pLazy)/(1<<20), "lazy-MB-peak")
			b.ReportMetric(float64(pTree)/(1<<20), "tree-MB-peak")
			b.ReportMetric(float64(pStd)/(1<<20), "std-MB-peak")
			b.ReportMetric(float64(len(body))/(1<<20), "body-MB")
			b.SetBytes(int64(len(body)))
		})
	}
}

// alternate runs fs in turn at every b.Loop iteration (so that the machine's
// load falls on all of them alike) and returns each one's total time.
func alternate(b *testing.B, fs ...func() (any, error)) []time.Duration {
	total := make([]time.Duration, len(fs))
	for b.Loop() {
		for i, f := range fs {
			t0 := time.Now()
			_, _ = f()
			total[i] += time.Since(t0)
		}
	}
	return total
}
