package aggregate

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/gymkit/gymkit/internal/pyjson"
)

// wideInput is n verify responses {"_ng_task_index":i,"_ng_rollout_index":0,
// "k<i>":1}: n groups, n columns, one present cell per column.
func wideInput(n int) []pyjson.Value {
	vrs := make([]pyjson.Value, n)
	for i := range vrs {
		vrs[i] = pyjson.ObjectValue(
			pyjson.Member{Key: TaskIndexKey, Value: intValue(int64(i))},
			pyjson.Member{Key: RolloutIndexKey, Value: intValue(0)},
			pyjson.Member{Key: "k" + strconv.Itoa(i), Value: intValue(1)},
		)
	}
	return vrs
}

func BenchmarkComputeWide(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		if n > 10000 && testing.Short() {
			continue
		}
		vrs := wideInput(n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Compute(vrs, Hooks{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// computeAllocs runs Compute once and returns the result, the bytes it
// allocated and the time it took. Callers must not run in parallel with
// other tests, or their allocations count too.
func computeAllocs(t *testing.T, vrs []pyjson.Value) (pyjson.Value, uint64, time.Duration) {
	t.Helper()
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	start := time.Now()
	res, err := Compute(vrs, Hooks{})
	el := time.Since(start)
	runtime.ReadMemStats(&m1)
	if err != nil {
		t.Fatal(err)
	}
	return res, m1.TotalAlloc - m0.TotalAlloc, el
}

// TestWideColumns: n verify responses each with a numeric key of its own (n
// groups x n fields, one value per field) used to build an n x n table and
// describe every field for every group: n = 3000 allocated 4.5 GiB, n =
// 100000 (a 3.5 MB body) OOM-killed the process. The work must now follow
// the present values: per-element cost flat from n = 1000 to n = 10000, and
// well under a second (even with -race) at n = 10000.
func TestWideColumns(t *testing.T) {
	// Not parallel: it measures allocations.
	perElem := map[int]uint64{}
	for _, n := range []int{1000, 10000} {
		res, alloc, el := computeAllocs(t, wideInput(n))
		t.Logf("n=%d: %v, %d KiB allocated (%d B per element)", n, el, alloc>>10, alloc/uint64(n))
		perElem[n] = alloc / uint64(n)
		if alloc > 256<<20 {
			t.Errorf("n=%d: allocated %d MiB", n, alloc>>20)
		}
		gl, _ := res.Get(keyGroups)
		if len(gl.Items) != n {
			t.Fatalf("n=%d: %d groups", n, len(gl.Items))
		}
		for i, g := range gl.Items {
			k := "k" + strconv.Itoa(i)
			want := `{"_ng_task_index":` + strconv.Itoa(i) + `,"mean/` + k + `":1.0,"max/` + k + `":1.0,"min/` + k + `":1.0,"median/` + k + `":1.0,"std/` + k + `":0.0,"sample":{"agent_ref":{"name":"agent"}},"num_rollouts":1,"expected_num_rollouts":1,"missing_num_rollouts":0,"reward_profile_completion_pct":100.0,"rollout_infos":[{"rollout_id":"` + strconv.Itoa(i) + `:0","_ng_task_index":` + strconv.Itoa(i) + `,"_ng_rollout_index":0,"` + k + `":1}]}`
			if got := encode(t, g); got != want {
				t.Fatalf("n=%d group %d:\n got  %s\n want %s", n, i, got, want)
			}
		}
		// Agent level: every field has one value, so no std (every std is
		// NaN and no field is present in every row).
		am, _ := res.Get(keyAgent)
		if len(am.Members) != 4*n {
			t.Fatalf("n=%d: %d agent_metrics entries, want %d", n, len(am.Members), 4*n)
		}
		for s, prefix := range []string{"mean/", "max/", "min/", "median/"} {
			for i := range n {
				m := am.Members[s*n+i]
				if m.Key != prefix+"k"+strconv.Itoa(i) || m.Value.Str != "1.0" {
					t.Fatalf("n=%d: agent_metrics entry %d is %s=%s", n, s*n+i, m.Key, m.Value.Str)
				}
			}
		}
	}
	if perElem[10000] > 2*perElem[1000] {
		t.Errorf("allocation per element grows with n: %d B at n=1000, %d B at n=10000", perElem[1000], perElem[10000])
	}
}

// TestWideColumnsDense checks a small wide request, and wide requests whose
// groups hold several rollouts and share some fields, against the dense
// oracle.
func TestWideColumnsDense(t *testing.T) {
	t.Parallel()
	checkAgainstDense(t, wideInput(300))
	rng := rand.New(rand.NewPCG(21, 22))
	var vrs []pyjson.Value
	for i := range 600 {
		ms := []pyjson.Member{
			{Key: TaskIndexKey, Value: intValue(int64(i / 3))},
			{Key: RolloutIndexKey, Value: intValue(int64(i % 3))},
			{Key: "own" + strconv.Itoa(i), Value: pyjson.FloatValue(rng.Float64())},
			{Key: "task" + strconv.Itoa(i/3), Value: intValue(int64(rng.IntN(100)))},
		}
		if i%5 == 0 {
			ms = append(ms, pyjson.Member{Key: "shared", Value: pyjson.FloatValue(rng.NormFloat64())})
		}
		vrs = append(vrs, pyjson.ObjectValue(ms...))
	}
	rng.Shuffle(len(vrs), func(i, j int) { vrs[i], vrs[j] = vrs[j], vrs[i] })
	checkAgainstDense(t, vrs)
}

// wideRecord is one verify response with n top-level numeric keys and n
// usage keys, half of them the same names (usage wins for those).
func wideRecord(n, rollout int) pyjson.Value {
	top := []pyjson.Member{
		{Key: TaskIndexKey, Value: intValue(0)},
		{Key: RolloutIndexKey, Value: intValue(int64(rollout))},
	}
	var usage []pyjson.Member
	for i := range n {
		top = append(top, pyjson.Member{Key: "t" + strconv.Itoa(i), Value: intValue(int64(i))})
		name := "u" + strconv.Itoa(i)
		if i%2 == 0 {
			name = "t" + strconv.Itoa(i)
		}
		usage = append(usage, pyjson.Member{Key: name, Value: pyjson.FloatValue(float64(i) / 2)})
	}
	top = append(top, pyjson.Member{Key: "response", Value: pyjson.ObjectValue(
		pyjson.Member{Key: "usage", Value: pyjson.ObjectValue(usage...)})})
	return pyjson.ObjectValue(top...)
}

// TestWideRecord: one element with many keys, in usage and at top level, is
// merged in linear time (the merge looked each key up by a linear scan of
// the other object) and gives the dense oracle's result.
func TestWideRecord(t *testing.T) {
	checkAgainstDense(t, []pyjson.Value{wideRecord(40, 1), wideRecord(30, 0)})
	vrs := []pyjson.Value{wideRecord(50000, 0)}
	res, alloc, el := computeAllocs(t, vrs)
	t.Logf("one record with 2 x 50000 keys: %v, %d MiB (speed is measured by BenchmarkComputeWide, not asserted)", el, alloc>>20)
	am, _ := res.Get(keyAgent)
	// 75000 fields: mean, max, min, median each, std 0.0 (the one row has them all).
	if len(am.Members) != 5*75000 {
		t.Fatalf("%d agent_metrics entries", len(am.Members))
	}
	if v, _ := am.Get("mean/t2"); v.Str != "1.0" { // usage's 2/2 replaces the top-level 2
		t.Errorf("mean/t2 = %s", v.Str)
	}
	if v, _ := am.Get("mean/t3"); v.Str != "3.0" {
		t.Errorf("mean/t3 = %s", v.Str)
	}
}

// TestIntNegativeZero: Python reads the JSON int -0 as 0, which pandas turns
// into 0.0 (not -0.0) where max/min are float64.
func TestIntNegativeZero(t *testing.T) {
	t.Parallel()
	got, err := Compute(mustParseArray(t, `[{"_ng_task_index":0,"_ng_rollout_index":0,"a":-0,"b":1.5}]`), Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	am, _ := got.Get(keyAgent)
	for _, k := range []string{"mean/a", "max/a", "min/a", "median/a", "std/a"} {
		if v, _ := am.Get(k); v.Str != "0.0" {
			t.Errorf("%s = %s, want 0.0", k, v.Str)
		}
	}
	got, err = Compute(mustParseArray(t, `[{"_ng_task_index":0,"_ng_rollout_index":0,"a":-0}]`), Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	am, _ = got.Get(keyAgent)
	if v, _ := am.Get("max/a"); v.Str != "0" {
		t.Errorf("all-int max/a = %s, want 0", v.Str)
	}
}

// TestOutputLimit: a result of more statistics than the limit is refused
// with a MemoryError before any is computed; the limit itself is allowed.
func TestOutputLimit(t *testing.T) {
	// Not parallel: it lowers the package limit.
	defer func(l int64) { statEntryLimit = l }(statEntryLimit)
	vrs := wideInput(100) // 100 (group, field) pairs + 100 fields, 5 statistics each
	statEntryLimit = 1000
	if _, err := Compute(vrs, Hooks{}); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
	statEntryLimit = 999
	_, err := Compute(vrs, Hooks{})
	var pe *Error
	if !errors.As(err, &pe) || pe.Type != "MemoryError" {
		t.Fatalf("over the limit: %v, want a MemoryError", err)
	}
	const want = `MemoryError('aggregate_metrics would produce 1000 statistics (100 (task, field) pairs and 100 fields, 5 statistics each), more than the limit of 999')`
	if err.Error() != want {
		t.Errorf("error %s\nwant %s", err, want)
	}
}
