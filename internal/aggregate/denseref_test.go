package aggregate

// Test oracle: the dense implementation this package used before the sparse
// rewrite (a column x row table, every column described for every frame),
// kept verbatim but for the names (refTable, refColumn, ...) and the int -0
// fix (Python reads -0 as the int 0, which pandas makes 0.0). Its sums are
// pairwiseSum, npSum and npSumCast, the dense transcription of numpy's
// summation. It is quadratic; the tests feed it small inputs only.

import (
	"math"
	"slices"
	"strconv"

	"github.com/gymkit/gymkit/internal/pyjson"
)

// pairwiseSum is numpy's pairwise_sum for float64 (numpy/_core/src/umath/
// loops_utils.h.src): below 8 values a left-to-right loop, up to 128 values
// eight strided accumulators combined as ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7))
// then the remainder left to right, above that a split at half the length
// rounded down to a multiple of 8.
func pairwiseSum(a []float64) float64 {
	n := len(a)
	if n < 8 {
		res := 0.0
		for _, x := range a {
			res += x
		}
		return res
	}
	if n <= pwBlockSize {
		var r [8]float64
		copy(r[:], a[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			r[0] += a[i+0]
			r[1] += a[i+1]
			r[2] += a[i+2]
			r[3] += a[i+3]
			r[4] += a[i+4]
			r[5] += a[i+5]
			r[6] += a[i+6]
			r[7] += a[i+7]
		}
		res := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			res += a[i]
		}
		return res
	}
	n2 := n / 2
	n2 -= n2 % 8
	return pairwiseSum(a[:n2]) + pairwiseSum(a[n2:])
}

// npSum is numpy's add.reduce of a float64 array with no cast: the identity
// 0.0 plus one pairwise call over all n values.
func npSum(a []float64) float64 { return 0.0 + pairwiseSum(a) }

// npSumCast is numpy's add.reduce(dtype=float64) of an int64 array: the cast
// goes through the iterator's buffer, so the pairwise loop sees chunks of at
// most castBufSize values, accumulated in order onto the identity 0.0.
func npSumCast(a []float64) float64 {
	sum := 0.0
	for len(a) > castBufSize {
		sum += pairwiseSum(a[:castBufSize])
		a = a[castBufSize:]
	}
	return sum + pairwiseSum(a)
}

// refTable is pandas' DataFrame.from_records over the numeric records, one row
// per verify response in (task, rollout) order, columns in first-seen order.
type refTable struct {
	n      int
	cols   []*refColumn
	colIdx map[string]int
	fc     refFrameCalc

	// Set by finish: pandas' dtypes.
	allInt     bool // every refColumn int64: max/min stay ints
	nIntCols   int  // columns in the int64 block
	nFloatCols int  // columns in the float64 block
}

func newRefTable(n int) *refTable { return &refTable{n: n, colIdx: map[string]int{}} }

// add records field key of row pos when its value is numeric: a JSON number
// (int or float) or a bool (the int 1 or 0). The grouping keys never get
// statistics.
func (t *refTable) add(pos int, key string, v pyjson.Value) {
	if key == "agent_name" || key == TaskIndexKey || key == RolloutIndexKey {
		return
	}
	var f float64
	var iv int64
	isInt := false
	switch v.Kind {
	case pyjson.Bool:
		isInt = true
		if v.Bool {
			f, iv = 1, 1
		}
	case pyjson.Number:
		f, _ = strconv.ParseFloat(v.Str, 64) // NaN, ±Infinity and 1e400 as Python reads them
		if !v.IsFloat() {
			if x, err := strconv.ParseInt(v.Str, 10, 64); err == nil {
				isInt, iv, f = true, x, float64(x) // the -0 fix
			}
		}
	default:
		return
	}
	ci, ok := t.colIdx[key]
	if !ok {
		c := &refColumn{name: key, vals: make([]float64, t.n), ivals: make([]int64, t.n)}
		for i := range c.vals {
			c.vals[i] = math.NaN()
		}
		ci = len(t.cols)
		t.cols = append(t.cols, c)
		t.colIdx[key] = ci
	}
	c := t.cols[ci]
	c.vals[pos] = f
	if isInt {
		c.ivals[pos] = iv
		c.nInt++
	}
}

// finish settles the dtypes once every row is in: a refColumn is int64 when
// every row holds an int (a missing value makes it float64), and a single
// float64 refColumn makes DataFrame.max/min return float64 for every refColumn.
func (t *refTable) finish() {
	t.allInt = true
	for _, c := range t.cols {
		if c.nInt == t.n {
			t.nIntCols++
		} else {
			t.allInt = false
		}
	}
	t.nFloatCols = len(t.cols) - t.nIntCols
}

// describe is RewardProfiler.describe_dataframe over rows [lo, hi): each
// refColumn's statistics, with the rule that when every std of the frame is NaN
// the columns present in every row of the frame report 0.0.
func (t *refTable) describe(lo, hi int) []refColStats {
	st := make([]refColStats, len(t.cols))
	allStdNaN := true
	for i, c := range t.cols {
		intTyped := c.nInt == t.n
		blockCols := t.nFloatCols
		if intTyped {
			blockCols = t.nIntCols
		}
		st[i] = t.fc.stats(c, lo, hi, intTyped, blockCols)
		if !math.IsNaN(st[i].std) {
			allStdNaN = false
		}
	}
	if allStdNaN {
		for i := range st {
			if st[i].count == hi-lo {
				st[i].std = 0
			}
		}
	}
	return st
}

// appendStats writes a frame's statistics stat-major ("mean/<col>" for every
// refColumn, then max, min, median, std), leaving out NaN entries.
func (t *refTable) appendStats(o *omap, st []refColStats) {
	for s, prefix := range statNames {
		for i, c := range t.cols {
			var f float64
			switch s {
			case 0:
				f = st[i].mean
			case 1:
				f = st[i].max
			case 2:
				f = st[i].min
			case 3:
				f = st[i].median
			case 4:
				f = st[i].std
			}
			if math.IsNaN(f) {
				continue
			}
			v := pyjson.FloatValue(f)
			if t.allInt && (s == 1 || s == 2) {
				iv := st[i].imax
				if s == 2 {
					iv = st[i].imin
				}
				v = intValue(iv)
			}
			o.append(prefix+c.name, v)
		}
	}
}

// refColumn is one statistics field over all records, in (task, rollout) order.
type refColumn struct {
	name  string
	vals  []float64 // NaN = missing (absent, non-numeric or NaN)
	ivals []int64   // exact integer values where the record had a JSON int or bool
	nInt  int       // records holding a JSON int or bool that fits int64
}

// refColStats are one refColumn's statistics over one frame; NaN means "absent".
type refColStats struct {
	mean, max, min, median, std float64
	imax, imin                  int64 // exact max/min of an int-typed refColumn
	count                       int
}

// refFrameCalc holds scratch buffers reused across frames and columns.
type refFrameCalc struct {
	buf   []float64
	sqr   []float64
	valid []float64
}

// stats computes a refColumn's statistics over records [lo, hi) the way pandas
// 2.3 (no bottleneck) computes DataFrame.mean/max/min/median/std over a frame
// whose blocks are laid out one refColumn per contiguous row:
//   - mean: nanmean, NaN slots set to 0.0, summed over all slots (cast
//     through the buffer for int64 columns), divided by the count;
//   - std: nanvar two-pass with ddof=1 on float64 values (ints converted
//     first, so no cast), sqrt; count <= 1 gives NaN;
//   - median: nanmedian as numpy computes it for this block shape;
//   - max/min over the non-missing values.
//
// intTyped says the refColumn is int64 in pandas (every record holds a JSON int
// or bool); blockCols is the number of columns in its dtype block, which
// decides numpy's median code path.
func (fc *refFrameCalc) stats(c *refColumn, lo, hi int, intTyped bool, blockCols int) refColStats {
	n := hi - lo
	vals := c.vals[lo:hi]
	st := refColStats{mean: math.NaN(), max: math.NaN(), min: math.NaN(), median: math.NaN(), std: math.NaN()}

	fc.buf = slices.Grow(fc.buf[:0], n)[:n]
	fc.valid = fc.valid[:0]
	first := true
	for i, x := range vals {
		if math.IsNaN(x) {
			fc.buf[i] = 0
			continue
		}
		fc.buf[i] = x
		fc.valid = append(fc.valid, x)
		st.count++
		if first {
			st.max, st.min = x, x
			first = false
			continue
		}
		// numpy's scalar maximum keeps the running value on ties.
		if x > st.max {
			st.max = x
		}
		if x < st.min {
			st.min = x
		}
	}
	if st.count == 0 {
		return st
	}
	if intTyped {
		iv := c.ivals[lo:hi]
		st.imax, st.imin = iv[0], iv[0]
		for _, x := range iv[1:] {
			st.imax = max(st.imax, x)
			st.imin = min(st.imin, x)
		}
	}
	count := float64(st.count)

	// mean (nanmean): int64 columns are summed with dtype=float64, a cast.
	if intTyped {
		st.mean = npSumCast(fc.buf) / count
	} else {
		st.mean = npSum(fc.buf) / count
	}

	// std (nanstd = sqrt(nanvar), ddof=1, two-pass).
	if st.count > 1 {
		avg := npSum(fc.buf) / count
		fc.sqr = slices.Grow(fc.sqr[:0], n)[:n]
		for i, x := range vals {
			if math.IsNaN(x) {
				fc.sqr[i] = 0
				continue
			}
			d := avg - x
			fc.sqr[i] = d * d
		}
		st.std = math.Sqrt(npSum(fc.sqr) / (count - 1))
	}

	// median (nanmedian).
	slices.Sort(fc.valid)
	k := st.count
	lowHigh := func() (float64, float64) {
		if k%2 == 1 {
			return fc.valid[k/2], fc.valid[k/2]
		}
		return fc.valid[k/2-1], fc.valid[k/2]
	}
	a, b := lowHigh()
	if blockCols > 1 && n < medianSmallRows {
		// numpy.ma.median: sum of [low, high] (the middle value twice for an
		// odd count) divided by 2.
		st.median = (0.0 + (a + b)) / 2
	} else if k%2 == 1 {
		// numpy.median: mean of the middle value.
		st.median = (0.0 + a) / 1
	} else {
		st.median = (0.0 + (a + b)) / 2
	}
	return st
}
