package aggregate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gymkit/gymkit/internal/pyjson"
)

// refPairwiseSum is a line-by-line transcription of numpy's
// DOUBLE_pairwise_sum (loops_utils.h.src): a base pointer (an index into
// buf), a count and a stride, with the same recursion and unrolling.
func refPairwiseSum(buf []float64, a, n, stride int) float64 {
	at := func(i int) float64 { return buf[a+i*stride] }
	if n < 8 {
		res := 0.
		for i := 0; i < n; i++ {
			res += at(i)
		}
		return res
	} else if n <= 128 {
		var r [8]float64
		r[0] = at(0)
		r[1] = at(1)
		r[2] = at(2)
		r[3] = at(3)
		r[4] = at(4)
		r[5] = at(5)
		r[6] = at(6)
		r[7] = at(7)
		var i int
		for i = 8; i < n-(n%8); i += 8 {
			r[0] += at(i + 0)
			r[1] += at(i + 1)
			r[2] += at(i + 2)
			r[3] += at(i + 3)
			r[4] += at(i + 4)
			r[5] += at(i + 5)
			r[6] += at(i + 6)
			r[7] += at(i + 7)
		}
		res := ((r[0] + r[1]) + (r[2] + r[3])) +
			((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			res += at(i)
		}
		return res
	}
	n2 := n / 2
	n2 -= n2 % 8
	return refPairwiseSum(buf, a, n2, stride) +
		refPairwiseSum(buf, a+n2*stride, n-n2, stride)
}

func TestPairwiseSumMatchesNumpyTranscription(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	sizes := []int{0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 127, 128, 129, 130, 135, 136, 255, 256, 257, 1000, 1023, 4097, 8191, 8192, 8193, 10000, 65537}
	for n := 0; n <= 300; n++ {
		sizes = append(sizes, n)
	}
	differsFromNaive := 0
	for _, n := range sizes {
		// Values of mixed magnitude so that the summation order shows.
		strided := make([]float64, 2*n)
		a := make([]float64, n)
		for i := range a {
			a[i] = (rng.Float64() - 0.5) * math.Pow(10, float64(rng.IntN(12)-4))
			strided[2*i] = a[i]
			strided[2*i+1] = math.NaN() // never read
		}
		want := refPairwiseSum(strided, 0, n, 2)
		got := pairwiseSum(a)
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("n=%d: pairwiseSum %x, numpy transcription %x", n, math.Float64bits(got), math.Float64bits(want))
		}
		naive := 0.0
		for _, x := range a {
			naive += x
		}
		if naive != got {
			differsFromNaive++
		}
	}
	if differsFromNaive == 0 {
		t.Fatal("no size distinguishes pairwise from naive summation: the test data is too tame")
	}
}

// TestPairwiseSumNumpyValues checks sums numpy 1.24 computed for
// x_i = ((31 i^2 + 7 i) mod 1013)/17 - 20 (np.add.reduce, one buffer).
func TestPairwiseSumNumpyValues(t *testing.T) {
	t.Parallel()
	want := map[int]string{
		5:    "-0x1.4969696969696p+5",
		8:    "-0x1.8b4b4b4b4b4b4p+3",
		9:    "-0x1.f878787878787p+4",
		15:   "-0x1.d878787878785p+3",
		100:  "0x1.1907878787878p+10",
		128:  "0x1.600f0f0f0f0f0p+10",
		129:  "0x1.5f1696969696ap+10",
		130:  "0x1.5c34b4b4b4b4cp+10",
		257:  "0x1.3087878787878p+11",
		1000: "0x1.15534b4b4b4b5p+13",
		5000: "0x1.598f0f0f0f0f1p+15",
	}
	for n, w := range want {
		a := make([]float64, n)
		for i := range a {
			a[i] = float64((i*i*31+i*7)%1013)/17.0 - 20.0
		}
		if got := hexFloat(npSum(a)); got != w {
			t.Errorf("n=%d: %s, numpy %s", n, got, w)
		}
	}
}

// TestLargeFrameSummation pins the behaviour above numpy's 8192-element
// buffer: numpy 2.3 honours GROWINNER for reductions that need no cast, so a
// float64 column is one pairwise call over all rows (numpy 1.24 would have
// summed 8192-row chunks: 0x1.1c9c464229964p+3 for column g at 10000 rows
// instead of the 0x1.1c9c464229962p+3 asserted here), while an int64 column
// summed as float64 goes through the cast buffer in 8192-row chunks.
func TestLargeFrameSummation(t *testing.T) {
	t.Parallel()
	const n = 10000
	g := make([]float64, n)
	for i := range g {
		g[i] = float64((i*i*31+i*7+5)%1013)/17.0 - 20.0
	}
	if got := hexFloat(npSum(g) / n); got != "0x1.1c9c464229962p+3" {
		t.Errorf("float mean over %d rows: %s", n, got)
	}
	// Large ints whose partial sums are inexact, so the chunking shows.
	rng := rand.New(rand.NewPCG(3, 4))
	big := make([]float64, n)
	for i := range big {
		big[i] = float64(rng.Int64N(1<<62) >> rng.IntN(40))
	}
	chunked := 0.0 + pairwiseSum(big[:castBufSize]) + pairwiseSum(big[castBufSize:])
	if npSumCast(big) != chunked {
		t.Error("npSumCast does not chunk at the buffer size")
	}
	if npSumCast(big) == npSum(big) {
		t.Error("test data does not distinguish chunked from whole summation")
	}
}

func TestSignedZero(t *testing.T) {
	t.Parallel()
	// numpy's add.reduce starts from the identity +0.0, so a column of -0.0
	// has mean 0.0 (and so has the median, a mean of the middle values).
	got, err := Compute(mustParseArray(t, `[{"_ng_task_index":0,"_ng_rollout_index":0,"a":-0.0}]`), Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	am, _ := got.Get("agent_metrics")
	for _, k := range []string{"mean/a", "median/a"} {
		if v, _ := am.Get(k); v.Str != "0.0" {
			t.Errorf("%s = %s, want 0.0", k, v.Str)
		}
	}
	if v, _ := am.Get("max/a"); v.Str != "-0.0" {
		t.Errorf("max/a = %s, want -0.0", v.Str)
	}
}

// benchInput builds n verify responses shaped like collector output: 8
// rollouts per task, a float reward, two bools, usage with nested details.
func benchInput(n int) []pyjson.Value {
	rng := rand.New(rand.NewPCG(7, 9))
	vrs := make([]pyjson.Value, n)
	for i := range vrs {
		usage := pyjson.ObjectValue(
			pyjson.Member{Key: "input_tokens", Value: intValue(int64(100 + rng.IntN(5000)))},
			pyjson.Member{Key: "input_tokens_details", Value: pyjson.ObjectValue(pyjson.Member{Key: "cached_tokens", Value: intValue(0)})},
			pyjson.Member{Key: "output_tokens", Value: intValue(int64(10 + rng.IntN(500)))},
			pyjson.Member{Key: "total_tokens", Value: intValue(int64(110 + rng.IntN(5500)))},
		)
		vrs[i] = pyjson.ObjectValue(
			pyjson.Member{Key: "reward", Value: pyjson.FloatValue(math.Round(rng.Float64()*100) / 100)},
			pyjson.Member{Key: "terminated", Value: pyjson.BoolValue(rng.IntN(2) == 0)},
			pyjson.Member{Key: "truncated", Value: pyjson.BoolValue(false)},
			pyjson.Member{Key: "info", Value: pyjson.ObjectValue(pyjson.Member{Key: "note", Value: pyjson.StringValue("x")})},
			pyjson.Member{Key: TaskIndexKey, Value: intValue(int64(i / 8))},
			pyjson.Member{Key: RolloutIndexKey, Value: intValue(int64(i % 8))},
			pyjson.Member{Key: "agent_ref", Value: pyjson.ObjectValue(pyjson.Member{Key: "name", Value: pyjson.StringValue("agent")})},
			pyjson.Member{Key: "response", Value: pyjson.ObjectValue(pyjson.Member{Key: "usage", Value: usage})},
		)
	}
	// Request order is not (task, rollout) order.
	rng.Shuffle(len(vrs), func(i, j int) { vrs[i], vrs[j] = vrs[j], vrs[i] })
	return vrs
}

func BenchmarkCompute(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		vrs := benchInput(n)
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
