// Package benchutil holds what gymkit's ratio benchmarks share: the peak
// heap growth of one call, the report of a figure as a ratio to a baseline
// measured in the same run, and the real NeMo verify bodies they decode.
// It is for _test.go files only (it imports testing).
//
//	var tOurs, tStd time.Duration
//	for b.Loop() {
//		t0 := time.Now()
//		_, _ = ours()
//		t1 := time.Now()
//		_, _ = std()
//		tOurs += t1.Sub(t0)
//		tStd += time.Since(t1)
//	}
//	b.StopTimer()
//	pOurs, _ := benchutil.Peak(ours)
//	pStd, _ := benchutil.Peak(std)
//	benchutil.ReportRatio(b, float64(tOurs), float64(tStd), "time-x")
//	benchutil.ReportRatio(b, float64(pOurs), float64(pStd), "peak-x")
//	benchutil.ReportMB(b, pOurs, "ours-MB-peak")
package benchutil

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"
)

// sampleEvery is how often Peak samples the live heap while f runs.
const sampleEvery = 100 * time.Microsecond

// Peak runs f once from a collected heap (runtime.GC first) and returns the
// peak growth of the heap's live objects while it ran, in bytes (the
// runtime/metrics figure /memory/classes/heap/objects:bytes, sampled every
// 100 µs from another goroutine and once more when f returns, minus its
// value before f), and the bytes f allocated (the growth of
// runtime.MemStats.TotalAlloc). The value f returns is kept alive until the
// last sample, so that what f built counts; its error is ignored (a
// benchmark checks f once before measuring). Peak is not meant to run
// concurrently with other work: everything the process allocates meanwhile
// counts.
func Peak(f func() (any, error)) (peak, alloc uint64) {
	// Two readers, one for the sampler and one for this goroutine: a
	// metrics.Sample slice must not be read into from two at once.
	read, sampleRead := heapReader(), heapReader()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	base := read()
	// The sampler owns its high-water mark until it stops; wg.Wait orders
	// its last write before the read below.
	high := base
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(sampleEvery)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				high = max(high, sampleRead())
			}
		}
	})
	v, _ := f()
	last := read()
	close(stop)
	wg.Wait()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(v)
	return max(high, last, read()) - base, after.TotalAlloc - before.TotalAlloc
}

// heapReader returns a function that reads the bytes of the heap's live
// objects (runtime/metrics /memory/classes/heap/objects:bytes) without
// allocating; one goroutine at a time may call it.
func heapReader() func() uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	return func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
}

// PeakDuring is [Peak] for a function that returns nothing (what it keeps
// alive is its own business): the peak growth of the live heap while f
// ran, in bytes.
func PeakDuring(f func()) uint64 {
	peak, _ := Peak(func() (any, error) { f(); return nil, nil })
	return peak
}

// ReportRatio reports num/den as the benchmark metric unit, by convention
// a name ending in "-x" ("time-x", "peak-x"): the figure of the code under
// test against a baseline measured in the same run, so that the ratio, not
// the machine, is what a reader compares. A zero den gives +Inf or NaN, as
// float division does.
func ReportRatio(b *testing.B, num, den float64, unit string) {
	b.ReportMetric(num/den, unit)
}

// ReportMB reports n bytes in MiB (n / 2^20) as the benchmark metric unit,
// by convention a name ending in "-MB" or "-MB-peak".
func ReportMB[N ~int | ~int64 | ~uint64](b *testing.B, n N, unit string) {
	b.ReportMetric(float64(n)/(1<<20), unit)
}

// moduleRoot is the directory of the go.mod above the working directory
// (go test runs a test in its package's directory), or "" if there is none.
func moduleRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// VerifyBody returns a real workplace_assistant verify body, as NeMo's
// agent sends POST /verify: the largest row of
// ../shared/data/nemo-gym/workplace_assistant/example.jsonl (beside the
// module root) with the response a model gives (8 function calls to
// email_search_emails for the tools the row offers, their outputs, a final
// assistant message); with tokens, every output item also carries the
// prompt_token_ids, generation_token_ids and generation_log_probs of a
// training run (a 16k-token prompt per turn, deterministic values). It
// returns nil when the data is not there (the caller skips) and fails tb
// when the row is not JSON.
func VerifyBody(tb testing.TB, tokens bool) []byte {
	tb.Helper()
	f, err := os.Open(filepath.Join(moduleRoot(), "..", "shared", "data", "nemo-gym", "workplace_assistant", "example.jsonl"))
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
		tb.Fatal(err)
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
		tb.Fatal(err)
	}
	return body
}
