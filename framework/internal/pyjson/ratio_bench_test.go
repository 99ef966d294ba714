package pyjson

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"
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
// and as \u003c\u003e\u0026 escapes) of issue 10's break-it pass, a real
// workplace_assistant verify body (a ../shared/data/nemo-gym row with a
// response of tool calls), and the same body with the token ids and log
// probabilities a training run's model server adds (a real NeMo verify body
// of an RL rollout). This records the baseline of issue 10's rewrite
// (typed decoding without a generic tree).
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
func peakOf(f func() (any, error)) (peak, alloc uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	base := read()
	high := base
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(100 * time.Microsecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				high = max(high, read())
			}
		}
	})
	v, _ := f()
	high = max(high, read())
	close(stop)
	wg.Wait()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(v)
	return max(high, read()) - base, after.TotalAlloc - before.TotalAlloc
}

// realVerifyBody returns a workplace_assistant verify body: the largest row
// of ../shared/data/nemo-gym/workplace_assistant/example.jsonl with the
// response a model gives (function calls for the tools the row offers,
// their outputs, a final message); with tokens, every output item also
// carries the prompt_token_ids, generation_token_ids and
// generation_log_probs of a training run (a 16k-token prompt per turn). Nil
// without the data.
func realVerifyBody(b *testing.B, tokens bool) []byte {
	f, err := os.Open("../../../../shared/data/nemo-gym/workplace_assistant/example.jsonl")
	if err != nil {
		return nil
	}
	defer f.Close()
	var row []byte
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		if len(sc.Bytes()) > len(row) {
			row = bytes.Clone(sc.Bytes())
		}
	}
	var m map[string]any
	if err := json.Unmarshal(row, &m); err != nil {
		b.Fatal(err)
	}
	ids := func(n, seed int) []int {
		out := make([]int, n)
		for i := range out {
			out[i] = (i*7919 + seed*104729) % 151000
		}
		return out
	}
	logprobs := func(n int) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = -float64(i%97) / 1234.5678
		}
		return out
	}
	var output []any
	for i := range 8 {
		call := map[string]any{"type": "function_call", "name": "email_search_emails", "call_id": fmt.Sprintf("call_%d", i),
			"arguments": `{"query": "Task Update on Develop prototype for report generation", "page": ` + fmt.Sprint(i) + `}`,
			"id":        fmt.Sprintf("fc_%d", i), "status": "completed"}
		out := map[string]any{"type": "function_call_output", "call_id": fmt.Sprintf("call_%d", i),
			"output": `{"emails": [{"email_id": "00000057", "sender": "carlos.rodriguez@atlas.com", "subject": "Task Update on Develop prototype for report generation", "sent_datetime": "2023-11-28T11:01:00", "body": "Hi team, the prototype is on track."}]}`}
		if tokens {
			call["prompt_token_ids"] = ids(16000+200*i, i)
			call["generation_token_ids"] = ids(60, i+1)
			call["generation_log_probs"] = logprobs(60)
		}
		output = append(output, call, out)
	}
	msg := map[string]any{"type": "message", "role": "assistant", "id": "msg_1", "status": "completed",
		"content": []any{map[string]any{"type": "output_text", "text": "I replied to Carlos: Thanks for the update - I will get back to you tomorrow.", "annotations": []any{}}}}
	if tokens {
		msg["prompt_token_ids"] = ids(18000, 9)
		msg["generation_token_ids"] = ids(40, 10)
		msg["generation_log_probs"] = logprobs(40)
	}
	m["response"] = map[string]any{"id": "resp_1", "created_at": 1735689600.0, "model": "policy", "object": "response",
		"output": append(output, msg), "parallel_tool_calls": false, "tool_choice": "auto", "tools": []any{}}
	body, err := json.Marshal(m)
	if err != nil {
		b.Fatal(err)
	}
	return body
}
