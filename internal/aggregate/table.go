package aggregate

import (
	"math"
	"strconv"

	"github.com/gymkit/gymkit/internal/pyjson"
)

// table is pandas' DataFrame.from_records over the numeric records, one row
// per verify response in (task, rollout) order, columns in first-seen order.
//
// It is stored sparsely: each column keeps only the rows where it is present
// (its cells), so the memory and the work are proportional to the number of
// present values, not to columns x rows. Missing cells are pandas' NaN: the
// statistics code treats them as the 0.0 slots numpy sums (see frameSum).
type table struct {
	n      int
	cols   []*column
	colIdx map[string]int
	fc     frameCalc

	// Set by finish: pandas' dtypes.
	allInt     bool // every column int64: max/min stay ints
	nIntCols   int  // columns in the int64 block
	nFloatCols int  // columns in the float64 block
}

// segment is the part of one column that falls in one frame (task group):
// column col's cells [lo, hi).
type segment struct {
	col    int
	lo, hi int
}

// presizeCols is how many of the first record's fields get room for every
// row up front (at most presizeCols x rows cells of waste when they turn
// out sparse); the other columns grow as they go.
const presizeCols = 16

func newTable(n int) *table { return &table{n: n, colIdx: map[string]int{}} }

// add records field key of row when its value is numeric: a JSON number (int
// or float) or a bool (the int 1 or 0). The grouping keys never get
// statistics. Rows must be added in ascending order, a key at most once per
// row. A NaN creates the column (it counts for the dtypes and the column
// order) but is missing.
func (t *table) add(row int, key string, v pyjson.Value) {
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
			iv = 1
		}
	case pyjson.Number:
		if !v.IsFloat() {
			if x, err := strconv.ParseInt(v.Str, 10, 64); err == nil {
				// Python's int: -0 is 0 (pandas makes it 0.0, not -0.0).
				isInt, iv = true, x
				break
			}
		}
		f, _ = strconv.ParseFloat(v.Str, 64) // NaN, ±Infinity and 1e400 as Python reads them
	default:
		return
	}
	ci, ok := t.colIdx[key]
	if !ok {
		ci = len(t.cols)
		c := &column{name: key}
		if row == 0 && ci < presizeCols {
			// Fields of the first record are usually in every record.
			c.cells = make([]cell, 0, t.n)
		}
		t.cols = append(t.cols, c)
		t.colIdx[key] = ci
	}
	c := t.cols[ci]
	cl := cell{row: int32(row), isInt: isInt, bits: uint64(iv)}
	if !isInt {
		if math.IsNaN(f) {
			return
		}
		cl.bits = math.Float64bits(f)
	} else {
		c.nInt++
	}
	c.cells = append(c.cells, cl)
}

// finish settles the dtypes once every row is in: a column is int64 when
// every row holds an int (a missing value makes it float64), and a single
// float64 column makes DataFrame.max/min return float64 for every column.
// It also builds each column's output keys once.
func (t *table) finish() {
	t.allInt = true
	for _, c := range t.cols {
		if c.nInt == t.n {
			t.nIntCols++
		} else {
			t.allInt = false
		}
		for s, prefix := range statNames {
			c.keys[s] = prefix + c.name
		}
	}
	t.nFloatCols = len(t.cols) - t.nIntCols
}

// groupSegments splits every column at the group boundaries: groups are runs
// of rows, bounds[g] the first row of group g (ascending, bounds[0] = 0).
// It returns, for each group g, segs[start[g]:start[g+1]], the segments of
// the columns present in g in column order. The work is proportional to the
// number of present cells.
func (t *table) groupSegments(bounds []int) (segs []segment, start []int) {
	ng := len(bounds)
	rowGroup := make([]int32, t.n)
	for g := range ng {
		hi := t.n
		if g+1 < ng {
			hi = bounds[g+1]
		}
		for r := bounds[g]; r < hi; r++ {
			rowGroup[r] = int32(g)
		}
	}
	start = make([]int, ng+1)
	for _, c := range t.cols {
		prev := int32(-1)
		for _, cl := range c.cells {
			if g := rowGroup[cl.row]; g != prev {
				start[g+1]++
				prev = g
			}
		}
	}
	for g := range ng {
		start[g+1] += start[g]
	}
	segs = make([]segment, start[ng])
	next := append([]int(nil), start[:ng]...)
	for ci, c := range t.cols {
		for lo := 0; lo < len(c.cells); {
			g := rowGroup[c.cells[lo].row]
			hi := lo + 1
			for hi < len(c.cells) && rowGroup[c.cells[hi].row] == g {
				hi++
			}
			segs[next[g]] = segment{col: ci, lo: lo, hi: hi}
			next[g]++
			lo = hi
		}
	}
	return segs, start
}

// allSegments is the agent-level frame: every column, all of its cells.
func (t *table) allSegments() []segment {
	segs := make([]segment, len(t.cols))
	for i, c := range t.cols {
		segs[i] = segment{col: i, lo: 0, hi: len(c.cells)}
	}
	return segs
}

// describe is RewardProfiler.describe_dataframe over the frame of rows
// [lo, lo+n) whose present columns are segs: each column's statistics, with
// the rule that when every std of the frame is NaN the columns present in
// every row of the frame report 0.0. The frame's other columns are missing in
// every row: all their statistics are NaN (dropped) and they cannot change
// the std rule, so they are not looked at. The result is reused scratch,
// valid until the next call.
func (t *table) describe(segs []segment, lo, n int) []colStats {
	st := t.fc.st[:0]
	allStdNaN := true
	for _, sg := range segs {
		c := t.cols[sg.col]
		intTyped := c.nInt == t.n
		blockCols := t.nFloatCols
		if intTyped {
			blockCols = t.nIntCols
		}
		s := t.fc.stats(c.cells[sg.lo:sg.hi], lo, n, intTyped, blockCols)
		if !math.IsNaN(s.std) {
			allStdNaN = false
		}
		st = append(st, s)
	}
	if allStdNaN {
		for i := range st {
			if st[i].count == n {
				st[i].std = 0
			}
		}
	}
	t.fc.st = st
	return st
}

// appendStats writes a frame's statistics stat-major ("mean/<col>" for every
// present column, then max, min, median, std), leaving out NaN entries.
func (t *table) appendStats(o *omap, segs []segment, st []colStats) {
	for s := range statNames {
		for i, sg := range segs {
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
			o.append(t.cols[sg.col].keys[s], v)
		}
	}
}
