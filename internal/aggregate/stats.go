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

// sparsePairwiseSum is numpy's pairwise_sum for float64 (numpy/_core/src/
// umath/loops_utils.h.src) over n slots of which only those in e (slot
// indices relative to base, ascending, all in [base, base+n)) are present;
// every other slot is 0.0. numpy's algorithm: below 8 values a left-to-right
// loop from 0.0; up to 128 values eight strided accumulators r[j] (seeded
// with x[j], then x[j+8], ... for the complete blocks of 8) combined as
// ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)), then the remainder left to right;
// above 128 a split at half the length rounded down to a multiple of 8. This
// follows that block structure exactly (it depends on n alone), skips empty
// halves, and inside a block adds only the present values to their
// accumulators (seeded with 0.0).
//
// Skipping a 0.0 slot (or adding one more) can change the result only in
// the sign of a zero: x + 0.0 == x for every x but -0.0, and a zero's sign
// never changes a nonzero or NaN result of later additions. So the result
// equals numpy's up to the sign of a zero result; frameSum adds it to
// numpy's identity +0.0, which makes the two bit-identical. The tests check
// it against pairwiseSum, a dense transcription of numpy's code.
func sparsePairwiseSum(e []slot, base, n int) float64 {
	if len(e) == 0 {
		return 0
	}
	if n < 8 {
		res := 0.0
		for _, x := range e {
			res += x.v
		}
		return res
	}
	if n <= pwBlockSize {
		var r [8]float64
		full := base + n - n%8
		k := 0
		for ; k < len(e) && e[k].idx < full; k++ {
			r[(e[k].idx-base)%8] += e[k].v
		}
		res := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; k < len(e); k++ {
			res += e[k].v
		}
		return res
	}
	n2 := n / 2
	n2 -= n2 % 8
	m := searchSlots(e, base+n2)
	return sparsePairwiseSum(e[:m], base, n2) + sparsePairwiseSum(e[m:], base+n2, n-n2)
}

// searchSlots returns the number of slots in e with idx < idx.
func searchSlots(e []slot, idx int) int {
	lo, hi := 0, len(e)
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if e[h].idx < idx {
			lo = h + 1
		} else {
			hi = h
		}
	}
	return lo
}

// frameSum is numpy's add.reduce of a float64 array with no cast (the
// identity 0.0 plus one pairwise call over all n slots: numpy 2.3 does not
// chunk reductions that need no cast) over a frame of n slots holding the
// values e and 0.0 everywhere else.
func frameSum(e []slot, n int) float64 { return 0.0 + sparsePairwiseSum(e, 0, n) }

// frameSumCast is numpy's add.reduce(dtype=float64) of an int64 array over
// a frame of n slots holding the values e and 0.0 everywhere else: the cast
// goes through the iterator's buffer, so the pairwise loop sees chunks of
// castBufSize slots, accumulated in order onto the identity 0.0 (chunks with
// no value add 0.0 and are skipped).
func frameSumCast(e []slot, n int) float64 {
	sum := 0.0
	for len(e) > 0 {
		base := e[0].idx - e[0].idx%castBufSize
		size := min(castBufSize, n-base)
		m := searchSlots(e, base+size)
		sum += sparsePairwiseSum(e[:m], base, size)
		e = e[m:]
	}
	return sum
}

// slot is one present value of a frame at its slot index (row - first row).
type slot struct {
	idx int
	v   float64
}

// cell is one present value of a column: its row in (task, rollout) order
// and its value, a JSON int or bool as its exact int64 (pandas' int64; as
// float64 it converts rounding to nearest, as Go does) or a float's bits.
type cell struct {
	row   int32
	isInt bool
	bits  uint64
}

// f is the cell's value as float64.
func (c cell) f() float64 {
	if c.isInt {
		return float64(int64(c.bits))
	}
	return math.Float64frombits(c.bits)
}

// i is an int cell's exact value.
func (c cell) i() int64 { return int64(c.bits) }

// column is one statistics field: its present values in row order.
type column struct {
	name  string
	keys  [len(statNames)]string // statNames[s] + name
	cells []cell                 // rows ascending; absent rows are missing (NaN)
	nInt  int                    // cells holding a JSON int or bool that fits int64
}

// colStats are one column's statistics over one frame; NaN means "absent".
type colStats struct {
	mean, max, min, median, std float64
	imax, imin                  int64 // exact max/min of an int-typed column
	count                       int
}

// frameCalc holds scratch buffers reused across frames and columns.
type frameCalc struct {
	vals  []slot
	sqr   []slot
	valid []float64
	st    []colStats
}

// stats computes a column's statistics over the frame of rows [lo, lo+n),
// given the column's cells in that frame, the way pandas 2.3 (no bottleneck)
// computes DataFrame.mean/max/min/median/std over a frame whose blocks are
// laid out one column per contiguous row:
//   - mean: nanmean, NaN slots set to 0.0, summed over all n slots (cast
//     through the buffer for int64 columns), divided by the count;
//   - std: nanvar two-pass with ddof=1 on float64 values (ints converted
//     first, so no cast), sqrt; count <= 1 gives NaN;
//   - median: nanmedian as numpy computes it for this block shape;
//   - max/min over the non-missing values.
//
// The work is proportional to the number of cells (times log n for the
// pairwise sums' block structure), not to n.
//
// intTyped says the column is int64 in pandas (every record holds a JSON int
// or bool); blockCols is the number of columns in its dtype block, which
// decides numpy's median code path.
func (fc *frameCalc) stats(cells []cell, lo, n int, intTyped bool, blockCols int) colStats {
	st := colStats{mean: math.NaN(), max: math.NaN(), min: math.NaN(), median: math.NaN(), std: math.NaN()}
	if len(cells) == 0 {
		return st
	}
	st.count = len(cells)

	fc.vals = fc.vals[:0]
	fc.valid = fc.valid[:0]
	st.max, st.min = cells[0].f(), cells[0].f()
	for _, c := range cells {
		x := c.f()
		fc.vals = append(fc.vals, slot{idx: int(c.row) - lo, v: x})
		fc.valid = append(fc.valid, x)
		// numpy's scalar maximum keeps the running value on ties.
		if x > st.max {
			st.max = x
		}
		if x < st.min {
			st.min = x
		}
	}
	if intTyped {
		st.imax, st.imin = cells[0].i(), cells[0].i()
		for _, c := range cells[1:] {
			st.imax = max(st.imax, c.i())
			st.imin = min(st.imin, c.i())
		}
	}
	count := float64(st.count)

	// mean (nanmean): int64 columns are summed with dtype=float64, a cast.
	if intTyped {
		st.mean = frameSumCast(fc.vals, n) / count
	} else {
		st.mean = frameSum(fc.vals, n) / count
	}

	// std (nanstd = sqrt(nanvar), ddof=1, two-pass).
	if st.count > 1 {
		avg := frameSum(fc.vals, n) / count
		fc.sqr = fc.sqr[:0]
		for _, x := range fc.vals {
			d := avg - x.v
			fc.sqr = append(fc.sqr, slot{idx: x.idx, v: d * d})
		}
		st.std = math.Sqrt(frameSum(fc.sqr, n) / (count - 1))
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
