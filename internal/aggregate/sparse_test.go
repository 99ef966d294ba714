package aggregate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/gymkit/gymkit/internal/pyjson"
)

// TestSparsePairwiseSum checks the sparse sums against numpy's dense
// summation over the same slots (missing slots 0.0) bit for bit, at sizes
// around every block boundary, at densities from one value to all of them,
// with signed zeros among the values.
func TestSparsePairwiseSum(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 12))
	sizes := []int{1000, 1023, 4097, 8191, 8192, 8193, 10000, 16384, 16385, 20000, 65537}
	for n := 0; n <= 300; n++ {
		sizes = append(sizes, n)
	}
	densities := []float64{0, 0.001, 0.05, 0.3, 0.7, 0.95, 1}
	for _, n := range sizes {
		for _, d := range densities {
			dense := make([]float64, n)
			var e []slot
			for i := range dense {
				if rng.Float64() >= d {
					continue
				}
				var x float64
				switch rng.IntN(10) {
				case 0:
					x = math.Copysign(0, -1)
				case 1:
					x = 0
				case 2:
					x = float64(rng.IntN(5) - 2)
				default:
					x = (rng.Float64() - 0.5) * math.Pow(10, float64(rng.IntN(12)-4))
				}
				dense[i] = x
				e = append(e, slot{idx: i, v: x})
			}
			if got, want := frameSum(e, n), npSum(dense); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("n=%d density %v: frameSum %x, npSum %x", n, d, math.Float64bits(got), math.Float64bits(want))
			}
			if got, want := frameSumCast(e, n), npSumCast(dense); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("n=%d density %v: frameSumCast %x, npSumCast %x", n, d, math.Float64bits(got), math.Float64bits(want))
			}
		}
	}
	// All-negative-zero frames: numpy's identity +0.0 decides the sign.
	for _, n := range []int{1, 7, 8, 9, 129, 200} {
		dense := make([]float64, n)
		var e []slot
		for i := 0; i < n; i += 3 {
			dense[i] = math.Copysign(0, -1)
			e = append(e, slot{idx: i, v: dense[i]})
		}
		if got, want := frameSum(e, n), npSum(dense); math.Float64bits(got) != math.Float64bits(want) || math.Signbit(got) {
			t.Fatalf("n=%d -0.0 frame: frameSum %v, npSum %v", n, got, want)
		}
	}
}

// corpusColumn describes one generated field.
type corpusColumn struct {
	name    string
	present float64 // probability that an element carries it
	kind    int     // 0 int, 1 float, 2 bool, 3 mixed (incl. specials), 4 large int
	usage   int     // 0 top level, 1 in response.usage, 2 both (usage wins)
}

// randomCorpus builds verify responses with nTasks tasks of random sizes
// (up to maxRollouts), the given fields, in shuffled request order.
func randomCorpus(rng *rand.Rand, nTasks, maxRollouts int, cols []corpusColumn) []pyjson.Value {
	num := func(kind int) pyjson.Value {
		switch kind {
		case 0:
			return intValue(int64(rng.IntN(2001) - 1000))
		case 1:
			return pyjson.FloatValue((rng.Float64() - 0.5) * math.Pow(10, float64(rng.IntN(10)-3)))
		case 2:
			return pyjson.BoolValue(rng.IntN(2) == 0)
		case 4:
			// Large ints: inexact partial sums show the summation order.
			return intValue((rng.Int64N(1<<62) >> rng.IntN(40)) - 1<<40)
		}
		switch rng.IntN(14) {
		case 0:
			return pyjson.NumberValue("NaN")
		case 1:
			return pyjson.NumberValue("-0.0")
		case 2:
			return pyjson.NumberValue("-0")
		case 3:
			return pyjson.NumberValue("0.0")
		case 4:
			return pyjson.NumberValue("123456789012345678901234567890") // beyond int64: a float
		case 5:
			return pyjson.StringValue("x") // not numeric: missing
		case 6:
			return pyjson.NullValue()
		case 7:
			return pyjson.NumberValue("1e300")
		case 8, 9:
			return intValue(int64(rng.IntN(7) - 3))
		}
		return pyjson.FloatValue(float64(rng.IntN(9)-4) / 4)
	}
	var vrs []pyjson.Value
	for task := range nTasks {
		for r := range 1 + rng.IntN(maxRollouts) {
			top := []pyjson.Member{
				{Key: TaskIndexKey, Value: intValue(int64(task))},
				{Key: RolloutIndexKey, Value: intValue(int64(r))},
			}
			var usage []pyjson.Member
			for _, c := range cols {
				if rng.Float64() >= c.present {
					continue
				}
				switch c.usage {
				case 0:
					top = append(top, pyjson.Member{Key: c.name, Value: num(c.kind)})
				case 1:
					usage = append(usage, pyjson.Member{Key: c.name, Value: num(c.kind)})
				default:
					top = append(top, pyjson.Member{Key: c.name, Value: pyjson.StringValue("shadowed")})
					usage = append(usage, pyjson.Member{Key: c.name, Value: num(c.kind)})
				}
			}
			if len(usage) > 0 {
				top = append(top, pyjson.Member{Key: "response", Value: pyjson.ObjectValue(
					pyjson.Member{Key: "usage", Value: pyjson.ObjectValue(usage...)})})
			}
			rng.Shuffle(len(top), func(i, j int) { top[i], top[j] = top[j], top[i] })
			vrs = append(vrs, pyjson.ObjectValue(top...))
		}
	}
	rng.Shuffle(len(vrs), func(i, j int) { vrs[i], vrs[j] = vrs[j], vrs[i] })
	return vrs
}

// randomColumns makes n fields with random presence, type and placement.
func randomColumns(rng *rand.Rand, n int, presence []float64, kinds []int) []corpusColumn {
	cols := make([]corpusColumn, n)
	for i := range cols {
		cols[i] = corpusColumn{
			name:    "f" + strconv.Itoa(i),
			present: presence[rng.IntN(len(presence))],
			kind:    kinds[rng.IntN(len(kinds))],
			usage:   rng.IntN(3),
		}
	}
	return cols
}

// denseStats computes every frame's statistics entries with the dense
// oracle (refTable): per group in task order, then the agent level.
func denseStats(t *testing.T, vrs []pyjson.Value) (groups [][]pyjson.Member, agent []pyjson.Member) {
	t.Helper()
	entries, err := indexRollouts(vrs)
	if err != nil {
		t.Fatal(err)
	}
	sorted, err := sortEntries(entries)
	if err != nil {
		t.Fatal(err)
	}
	tab := newRefTable(len(sorted))
	var bounds []int
	for pos, e := range sorted {
		if pos == 0 || sorted[pos-1].tkey.canon != e.tkey.canon {
			bounds = append(bounds, pos)
		}
		vr := vrs[e.idx]
		_, usage, err := rolloutInfo(vr, e)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range vr.Members {
			v := m.Value
			if uv, ok := usage.Get(m.Key); ok {
				v = uv
			}
			tab.add(pos, m.Key, v)
		}
		for _, m := range usage.Members {
			if _, ok := vr.Get(m.Key); !ok {
				tab.add(pos, m.Key, m.Value)
			}
		}
	}
	tab.finish()
	bounds = append(bounds, len(sorted))
	for g := 0; g+1 < len(bounds); g++ {
		o := newOmap(0)
		tab.appendStats(o, tab.describe(bounds[g], bounds[g+1]))
		groups = append(groups, o.members)
	}
	o := newOmap(0)
	tab.appendStats(o, tab.describe(0, tab.n))
	return groups, o.members
}

// checkAgainstDense compares Compute's statistics entries (values, int/float
// type, key order) with the dense oracle's.
func checkAgainstDense(t *testing.T, vrs []pyjson.Value) {
	t.Helper()
	got, err := Compute(vrs, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	wantGroups, wantAgent := denseStats(t, vrs)
	gl, _ := got.Get(keyGroups)
	if len(gl.Items) != len(wantGroups) {
		t.Fatalf("%d groups, want %d", len(gl.Items), len(wantGroups))
	}
	for g, gv := range gl.Items {
		end := 1
		for end < len(gv.Members) && gv.Members[end].Key != "sample" {
			end++
		}
		if d := diffValues(pyjson.ObjectValue(wantGroups[g]...), pyjson.ObjectValue(gv.Members[1:end]...), fmt.Sprintf("group[%d]", g)); d != "" {
			t.Fatal(d)
		}
	}
	am, _ := got.Get(keyAgent)
	if d := diffValues(pyjson.ObjectValue(wantAgent...), am, "agent_metrics"); d != "" {
		t.Fatal(d)
	}
}

// TestSparseMatchesDense runs random requests through Compute and through the
// dense implementation the package had before (refTable): every statistics
// entry must agree bit for bit, in type and in key order. The shapes cover
// sparse and dense fields, int/float/bool typing (all-int requests too),
// NaN, signed zeros and non-numeric values, usage overrides, groups across the
// 8-, 128- and 600-row boundaries and a frame beyond numpy's 8192-element
// cast buffer.
func TestSparseMatchesDense(t *testing.T) {
	t.Parallel()
	presence := []float64{1, 1, 0.9, 0.5, 0.1, 0.01}
	cases := []struct {
		name                  string
		tasks, rollouts, cols int
		presence              []float64
		kinds                 []int
		seeds                 int
	}{
		{"small mixed", 6, 5, 5, presence, []int{0, 1, 2, 3}, 200},
		{"small all-int", 5, 4, 3, []float64{1}, []int{0, 2, 4}, 50},
		{"many groups", 300, 12, 14, presence, []int{0, 1, 2, 3, 4}, 3},
		{"block boundaries", 12, 300, 8, presence, []int{0, 1, 3}, 3},
		{"median paths", 3, 1300, 4, []float64{1, 0.6}, []int{0, 1}, 2},
		{"all-int large", 40, 300, 3, []float64{1}, []int{0, 2, 4}, 2},
		{"wide sparse", 400, 3, 120, []float64{0.01, 0.003}, []int{0, 1, 3}, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			for seed := range c.seeds {
				rng := rand.New(rand.NewPCG(uint64(seed), 99))
				cols := randomColumns(rng, 1+rng.IntN(c.cols), c.presence, c.kinds)
				checkAgainstDense(t, randomCorpus(rng, 1+rng.IntN(c.tasks), c.rollouts, cols))
			}
		})
	}
	t.Run("beyond the cast buffer", func(t *testing.T) {
		t.Parallel()
		rng := rand.New(rand.NewPCG(5, 6))
		cols := []corpusColumn{
			{name: "i", present: 1, kind: 4}, // int64: mean summed through the cast buffer
			{name: "f", present: 1, kind: 1},
			{name: "h", present: 0.5, kind: 1},
			{name: "s", present: 0.002, kind: 1},
		}
		vrs := randomCorpus(rng, 1, 1, cols)
		for r := 1; r < 9000; r++ {
			vrs = append(vrs, randomCorpus(rng, 1, 1, cols)[0])
			vrs[r].Members[slicesIndex(vrs[r].Members, RolloutIndexKey)].Value = intValue(int64(r))
		}
		checkAgainstDense(t, vrs)
	})
}

func slicesIndex(ms []pyjson.Member, key string) int {
	for i, m := range ms {
		if m.Key == key {
			return i
		}
	}
	return -1
}
