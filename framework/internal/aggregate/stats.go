package aggregate

import (
	"math"
	"slices"
)

// pwBlockSize is numpy's PW_BLOCKSIZE: blocks up to this size are summed with
// eight accumulators.
const pwBlockSize = 128

// castBufSize is numpy's default ufunc buffer size (elements): a reduction
// that must cast (int64 summed as float64) is fed to the pairwise loop in
// chunks of at most this many elements.
const castBufSize = 8192

// medianSmallRows is the row count below which numpy's nanmedian over a 2-D
// block goes through numpy.ma.median (np.lib nanfunctions _nanmedian_small).
const medianSmallRows = 600

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

// column is one statistics field over all records, in (task, rollout) order.
type column struct {
	name  string
	vals  []float64 // NaN = missing (absent, non-numeric or NaN)
	ivals []int64   // exact integer values where the record had a JSON int or bool
	nInt  int       // records holding a JSON int or bool that fits int64
}

// colStats are one column's statistics over one frame; NaN means "absent".
type colStats struct {
	mean, max, min, median, std float64
	imax, imin                  int64 // exact max/min of an int-typed column
	count                       int
}

// frameCalc holds scratch buffers reused across frames and columns.
type frameCalc struct {
	buf   []float64
	sqr   []float64
	valid []float64
}

// stats computes a column's statistics over records [lo, hi) the way pandas
// 2.3 (no bottleneck) computes DataFrame.mean/max/min/median/std over a frame
// whose blocks are laid out one column per contiguous row:
//   - mean: nanmean, NaN slots set to 0.0, summed over all slots (cast
//     through the buffer for int64 columns), divided by the count;
//   - std: nanvar two-pass with ddof=1 on float64 values (ints converted
//     first, so no cast), sqrt; count <= 1 gives NaN;
//   - median: nanmedian as numpy computes it for this block shape;
//   - max/min over the non-missing values.
//
// intTyped says the column is int64 in pandas (every record holds a JSON int
// or bool); blockCols is the number of columns in its dtype block, which
// decides numpy's median code path.
func (fc *frameCalc) stats(c *column, lo, hi int, intTyped bool, blockCols int) colStats {
	n := hi - lo
	vals := c.vals[lo:hi]
	st := colStats{mean: math.NaN(), max: math.NaN(), min: math.NaN(), median: math.NaN(), std: math.NaN()}

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
