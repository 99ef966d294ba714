package aggregate

import (
	"math"
	"strconv"

	"github.com/gymkit/gymkit/framework/internal/pyjson"
)

// table is pandas' DataFrame.from_records over the numeric records, one row
// per verify response in (task, rollout) order, columns in first-seen order.
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

func newTable(n int) *table { return &table{n: n, colIdx: map[string]int{}} }

// add records field key of row pos when its value is numeric: a JSON number
// (int or float) or a bool (the int 1 or 0). The grouping keys never get
// statistics.
func (t *table) add(pos int, key string, v pyjson.Value) {
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
				isInt, iv = true, x
			}
		}
	default:
		return
	}
	ci, ok := t.colIdx[key]
	if !ok {
		c := &column{name: key, vals: make([]float64, t.n), ivals: make([]int64, t.n)}
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

// finish settles the dtypes once every row is in: a column is int64 when
// every row holds an int (a missing value makes it float64), and a single
// float64 column makes DataFrame.max/min return float64 for every column.
func (t *table) finish() {
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
// column's statistics, with the rule that when every std of the frame is NaN
// the columns present in every row of the frame report 0.0.
func (t *table) describe(lo, hi int) []colStats {
	st := make([]colStats, len(t.cols))
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
// column, then max, min, median, std), leaving out NaN entries.
func (t *table) appendStats(o *omap, st []colStats) {
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
			v := floatValue(f)
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
