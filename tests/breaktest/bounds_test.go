package breaktest

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/server/servertest"
)

// Bounded error reports (internal/lax/limits.go): pydantic lists
// every error item, each with its input, and NeMo's output-item union gives
// 115 of them for one bad item, so an unbounded 422 costs thousands of times
// its body. Before the bound, 10,000 bad output items (a 110 KB body) took
// 35 s, 3.4 GB of heap and answered 157 MB; one bad item holding a 1 MiB
// string answered 77 MB. gymkit reports the first lax.MaxItems items in
// pydantic's order, at most ~4 MiB of them, and a last "too_many_errors"
// item.

const (
	maxItems = 1000 // lax.MaxItems
	cutType  = `"type":"too_many_errors","loc":["body"],"msg":"Further errors not shown: gymkit reports at most 1000 error items and about 4 MiB of them","input":null}`
)

// costOf posts body to path and returns the answer, the wall time and the
// bytes allocated meanwhile (the test server runs in process).
func costOf(t *testing.T, ts *servertest.Server, path, body string) (*servertest.Response, time.Duration, uint64) {
	t.Helper()
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	st := time.Now()
	res := ts.Rollout().Post(path, body)
	el := time.Since(st)
	runtime.ReadMemStats(&m1)
	return res, el, m1.TotalAlloc - m0.TotalAlloc
}

func verifyWithOutput(items string, n int) string {
	out := strings.TrimSuffix(strings.Repeat(items+",", n), ",")
	return `{"responses_create_params":{"input":"hi"},"response":` + strings.Replace(okResponseJSON(), `"output":[]`, `"output":[`+out+`]`, 1) + `}`
}

func detailLen(t *testing.T, body []byte) int {
	t.Helper()
	v, err := framework.ParseJSON(body)
	if err != nil {
		t.Fatalf("422 body is not JSON: %v", err)
	}
	d, _ := v.Get("detail")
	if d.Kind != framework.KindArray {
		t.Fatalf("no detail list in %s", trunc(body))
	}
	return len(d.Items)
}

// TestBoundsVerifyManyBadOutputItems: 10,000 bad output items answer the
// first 1000 items and the cut item, fast and in bounded memory.
func TestBoundsVerifyManyBadOutputItems(t *testing.T) {
	ts := servertest.New(t, &breakEnv{}, servertest.Options{})
	one := ts.Rollout().Post("/verify", verifyWithOutput(`{"type":5}`, 1))
	if n := detailLen(t, one.Body); one.Status != 422 || n < 50 || n >= maxItems || strings.Contains(string(one.Body), "too_many_errors") {
		t.Fatalf("one bad item: %d with %d items, want 422 with one item per union member and no cut: %s", one.Status, n, trunc(one.Body))
	}
	body := verifyWithOutput(`{"type":5}`, 10000)
	res, el, alloc := costOf(t, ts, "/verify", body)
	want(t, "10k bad items", res.Status, res.Header, res.Body, 422, "")
	if n := detailLen(t, res.Body); n != maxItems+1 {
		t.Errorf("10k bad items: %d detail items, want %d", n, maxItems+1)
	}
	if !strings.HasSuffix(string(res.Body), `{`+cutType+`]}`) {
		t.Errorf("10k bad items: no cut item at the end: ...%s", res.Body[max(0, len(res.Body)-300):])
	}
	// The shown items are pydantic's first ones: item 0's, then item 1's...
	if !strings.HasPrefix(string(res.Body), strings.TrimSuffix(string(one.Body), "]}")+",") {
		t.Errorf("10k bad items: the first items differ from one bad item's")
	}
	t.Logf("10k bad output items: body %d B, answer %d B, %v, %d MB allocated", len(body), len(res.Body), el, alloc>>20)
	if alloc > 64<<20 || len(res.Body) > 1<<20 {
		t.Errorf("10k bad items: %d MB allocated, %d B answer; want < 64 MB and < 1 MiB", alloc>>20, len(res.Body))
	}
}

// TestBoundsVerifyHugeBadInput: one bad output item holding a 1 MiB string
// is repeated in most of its 115 items; the answer stops near 4 MiB.
func TestBoundsVerifyHugeBadInput(t *testing.T) {
	ts := servertest.New(t, &breakEnv{}, servertest.Options{})
	body := verifyWithOutput(`{"type":5,"x":"`+strings.Repeat("a", 1<<20)+`"}`, 1)
	res, el, alloc := costOf(t, ts, "/verify", body)
	want(t, "1 MiB bad item", res.Status, res.Header, res.Body, 422, "")
	if !strings.HasSuffix(string(res.Body), `{`+cutType+`]}`) {
		t.Errorf("1 MiB bad item: no cut item at the end")
	}
	t.Logf("1 MiB bad item: answer %d B (was 77 MB), %v, %d MB allocated", len(res.Body), el, alloc>>20)
	if len(res.Body) > 4<<20+2<<20 || alloc > 128<<20 {
		t.Errorf("1 MiB bad item: answer %d B, %d MB allocated; want < 6 MiB and < 128 MB", len(res.Body), alloc>>20)
	}
	// A single item bigger than the budget is still shown whole.
	body = `{"responses_create_params":{"input":"hi","max_output_tokens":"` + strings.Repeat("1", 6<<20) + `"},"response":` + okResponseJSON() + `}`
	res = ts.Rollout().Post("/verify", body)
	if res.Status != 422 || detailLen(t, res.Body) != 1 || len(res.Body) < 6<<20 {
		t.Errorf("6 MiB int string: %d, %d B", res.Status, len(res.Body))
	}
}

// TestBoundsVerifyValidLongTrajectory: a valid response of 10,000 output
// items costs little beyond its echo (union members tried before the match
// used to record their items and allocate their dumps: 258 MB for 1 MB).
func TestBoundsVerifyValidLongTrajectory(t *testing.T) {
	ts := servertest.New(t, &breakEnv{}, servertest.Options{})
	for _, item := range []string{
		`{"type":"function_call","name":"f","arguments":"{}","call_id":"c","id":"i","status":"completed"}`,
		`{"id":"m","type":"message","role":"assistant","status":"completed","content":[{"type":"output_text","annotations":[],"text":"hello"}]}`,
	} {
		body := verifyWithOutput(item, 10000)
		res, el, alloc := costOf(t, ts, "/verify", body)
		want(t, "10k valid items", res.Status, res.Header, res.Body, 200, "")
		t.Logf("10k valid items: body %d B, %v, %d MB allocated", len(body), el, alloc>>20)
		if alloc > 100*uint64(len(body)) {
			t.Errorf("10k valid items: %d MB allocated for a %d B body", alloc>>20, len(body))
		}
	}
}

// TestBoundsVerifyUnionListsAndExtras: the cap holds inside unions (input is
// str | list[item union]) and for unknown keys of extra="forbid" models: the
// answer has the first 1000 items and the cut item, and the work is bounded
// by the bytes allocated (not by the time taken, which a loaded machine
// stretches).
func TestBoundsVerifyUnionListsAndExtras(t *testing.T) {
	ts := servertest.New(t, &breakEnv{}, servertest.Options{})
	var keys strings.Builder
	for i := range 100000 {
		keys.WriteString(`,"k` + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + itoa(i) + `":1`)
	}
	for label, body := range map[string]string{
		"100k bad input items": `{"responses_create_params":{"input":[` + strings.TrimSuffix(strings.Repeat(`5,`, 100000), ",") + `]},"response":` + okResponseJSON() + `}`,
		"100k extra keys":      `{"responses_create_params":{"input":"hi"` + keys.String() + `},"response":` + okResponseJSON() + `}`,
		"both models bad":      `{"responses_create_params":{"input":"hi"` + keys.String() + `},"response":` + strings.Replace(okResponseJSON(), `"output":[]`, `"output":[`+strings.TrimSuffix(strings.Repeat(`1,`, 5000), ",")+`]`, 1) + `}`,
	} {
		res, el, alloc := costOf(t, ts, "/verify", body)
		want(t, label, res.Status, res.Header, res.Body, 422, "")
		if n := detailLen(t, res.Body); n != maxItems+1 {
			t.Errorf("%s: %d items, want %d", label, n, maxItems+1)
		}
		t.Logf("%s: body %d B, answer %d B, %v, %d MB allocated", label, len(body), len(res.Body), el, alloc>>20)
		if len(res.Body) > 4<<20+1<<20 || alloc > 256<<20 {
			t.Errorf("%s: answer %d B, %d MB allocated; want < 5 MiB and < 256 MB", label, len(res.Body), alloc>>20)
		}
	}
}

// TestBoundsTypedDecoder: the typed request decoder holds the same cap (a
// list of 100,000 bad models was 8 MB and 4.6 s).
func TestBoundsTypedDecoder(t *testing.T) {
	ts := servertest.New(t, &breakEnv{}, servertest.Options{})
	body := `{"ss":[` + strings.TrimSuffix(strings.Repeat("{},", 100000), ",") + `]}`
	res, el, alloc := costOf(t, ts, "/kinds", body)
	want(t, "100k bad models", res.Status, res.Header, res.Body, 422, "")
	if n := detailLen(t, res.Body); n != maxItems+1 {
		t.Errorf("100k bad models: %d items, want %d", n, maxItems+1)
	}
	if !strings.HasPrefix(string(res.Body), `{"detail":[{"type":"missing","loc":["body","ss",0,"a"],"msg":"Field required","input":{}},`) {
		t.Errorf("100k bad models: %s", trunc(res.Body))
	}
	t.Logf("100k bad models: answer %d B, %v, %d MB allocated", len(res.Body), el, alloc>>20)
	if alloc > 128<<20 {
		t.Errorf("100k bad models: %d MB allocated, want < 128 MB", alloc>>20)
	}
}

func itoa(i int) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + i%10)}, b...)
		if i /= 10; i == 0 {
			return string(b)
		}
	}
}
