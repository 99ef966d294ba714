package pandas

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/pycompat"
	"github.com/gymkit/gymkit/pycompat/pyre"
	"github.com/gymkit/gymkit/pycompat/pystr"
	"github.com/gymkit/gymkit/pycompat/pyval"
)

// Table is a pandas DataFrame whose columns are all of object dtype, with an
// integer row index (its labels): named columns, rows of cells, one label
// per row. A cell is a framework.Value, the object json.loads builds (Null
// is None, pandas' missing value with a float NaN).
//
// Tables are copy-on-write: Clone copies the row list and the labels, not
// the rows, and Set copies the one row it changes, so a clone costs a few
// slices and the base table, shared by every clone, is never modified by
// them. The zero Table has no columns and no rows. A Table may be read by
// several goroutines at once, but must not be read while it is changed;
// share it by cloning.
type Table struct {
	cols   []string
	rows   [][]framework.Value
	labels []int
}

// NewTable returns an empty table with the columns.
func NewTable(columns ...string) *Table { return &Table{cols: columns} }

// Columns returns the column names, in order (shared: do not modify).
func (t *Table) Columns() []string { return t.cols }

// Col returns the position of column name, or -1.
func (t *Table) Col(name string) int { return slices.Index(t.cols, name) }

// Len returns len(df), the number of rows.
func (t *Table) Len() int { return len(t.rows) }

// At returns the cell of row i (a position, not a label) and column c.
func (t *Table) At(i, c int) framework.Value { return t.rows[i][c] }

// Row returns row i's cells, in column order (shared with the table and its
// clones: do not modify; use Set).
func (t *Table) Row(i int) []framework.Value { return t.rows[i] }

// Rows returns the row list (shared: do not modify; use Set, Append and
// Keep). cap(t.Rows()) is the capacity the table holds.
func (t *Table) Rows() [][]framework.Value { return t.rows }

// Label returns row i's index label.
func (t *Table) Label(i int) int { return t.labels[i] }

// Labels returns the index labels (shared: do not modify).
func (t *Table) Labels() []int { return t.labels }

// Clone returns a copy that shares the rows: changing either afterwards
// (Set, Append, Keep, ResetIndex) does not change the other.
func (t *Table) Clone() *Table {
	return &Table{cols: t.cols, rows: slices.Clone(t.rows), labels: slices.Clone(t.labels)}
}

// Set sets the cell of row i and column c (df.iloc[i, c] = v), copying the
// row first.
func (t *Table) Set(i, c int, v framework.Value) {
	r := slices.Clone(t.rows[i])
	r[c] = v
	t.rows[i] = r
}

// Append adds a row with the given index label; the table keeps row, which
// the caller must not modify afterwards.
func (t *Table) Append(row []framework.Value, label int) {
	t.rows = append(t.rows, row)
	t.labels = append(t.labels, label)
}

// ResetIndex sets the labels to 0..n-1 (reset_index(drop=True), and what
// pd.concat(..., ignore_index=True) gives).
func (t *Table) ResetIndex() {
	for i := range t.labels {
		t.labels[i] = i
	}
}

// Keep keeps the rows for which keep(i) is true, with their labels, in
// order (df[mask]); keep sees the positions before the change.
func (t *Table) Keep(keep func(i int) bool) {
	rows, labels := t.rows[:0:0], t.labels[:0:0]
	for i := range t.rows {
		if keep(i) {
			rows = append(rows, t.rows[i])
			labels = append(labels, t.labels[i])
		}
	}
	t.rows, t.labels = rows, labels
}

// Column returns df.iloc[:, c] as a Series view (nothing copied).
func (t *Table) Column(c int) Series { return Series{t: t, c: c} }

// ColumnAt returns the view of column c over the rows at the positions
// rows, in that order.
func (t *Table) ColumnAt(c int, rows []int) Series { return Series{t: t, idx: rows, c: c} }

// naValues are the cells read_csv reads as missing by default
// (STR_NA_VALUES of pandas/_libs/parsers.pyx, pandas 2).
var naValues = map[string]bool{
	"-1.#IND": true, "1.#QNAN": true, "1.#IND": true, "-1.#QNAN": true, "#N/A N/A": true, "#N/A": true,
	"N/A": true, "n/a": true, "NA": true, "<NA>": true, "#NA": true, "NULL": true, "null": true, "NaN": true,
	"-NaN": true, "nan": true, "-nan": true, "": true, "None": true,
}

// CSVOptions are read_csv's arguments beside dtype=str; the zero value reads
// a header line.
type CSVOptions struct {
	// Names, when set, are the column names and the file has no header
	// line (header=None, names=Names).
	Names []string
}

// ReadCSV is pd.read_csv(r, dtype=str): RFC 4180 records (Go's
// encoding/csv, which reads as pandas' C parser does for standard quoting),
// the first one the header unless o.Names is set, every cell a str kept as
// written (white space and leading zeros included) but pandas' default
// missing-value texts ("", "NA", "NaN", "null", "None", "N/A", ...), which
// are None. The labels are 0..n-1. A record whose number of fields differs
// from the header's is an error (pandas pads short ones); duplicated column
// names are kept as they are (pandas renames them "a.1").
func ReadCSV(r io.Reader, o CSVOptions) (*Table, error) {
	cr := csv.NewReader(r)
	recs, err := cr.ReadAll()
	if err != nil {
		return nil, err
	}
	t := &Table{cols: o.Names}
	if o.Names == nil {
		if len(recs) == 0 {
			return nil, fmt.Errorf("pandas: no columns to parse from file")
		}
		t.cols, recs = recs[0], recs[1:]
	}
	t.rows = make([][]framework.Value, 0, len(recs))
	t.labels = make([]int, 0, len(recs))
	for i, rec := range recs {
		if len(rec) != len(t.cols) {
			return nil, fmt.Errorf("pandas: record %d has %d fields, want %d", i+1, len(rec), len(t.cols))
		}
		row := make([]framework.Value, len(rec))
		for c, s := range rec {
			if !naValues[s] {
				row[c] = framework.StringValue(s)
			}
		}
		t.Append(row, i)
	}
	return t, nil
}

// IsNA is pd.isna of a scalar: None or a float NaN (a framework.Value
// null or NaN literal included).
func IsNA(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case framework.Value:
		return isNA(&x)
	case float64:
		return math.IsNaN(x)
	}
	return false
}

// isNA is IsNA of a cell, read in place.
func isNA(v *framework.Value) bool {
	switch v.Kind {
	case framework.KindNull:
		return true
	case framework.KindNumber:
		if !v.IsFloat() {
			return false
		}
		f, _ := v.Float()
		return math.IsNaN(f)
	}
	return false
}

// at returns a pointer to s.iloc[i], for reading in place.
func (s Series) at(i int) *framework.Value {
	if s.idx != nil {
		return &s.t.rows[s.idx[i]][s.c]
	}
	return &s.t.rows[i][s.c]
}

// Series is a read-only view of one column of a Table (a Series of object
// dtype), over all its rows or over some of them. It stays valid while the
// table is not changed.
type Series struct {
	t   *Table
	idx []int // nil: every row
	c   int
}

// Len returns len(s).
func (s Series) Len() int {
	if s.idx != nil {
		return len(s.idx)
	}
	return len(s.t.rows)
}

// At returns s.iloc[i].
func (s Series) At(i int) framework.Value {
	if s.idx != nil {
		return s.t.rows[s.idx[i]][s.c]
	}
	return s.t.rows[i][s.c]
}

// CheckStr is the validation of s.str: a Series whose non-missing values
// are all numbers, or all bools, has no .str accessor,
// AttributeError("Can only use .str accessor with string values!").
func (s Series) CheckStr() error {
	nums, bools, other := 0, 0, 0
	for i := range s.Len() {
		v := s.at(i)
		switch {
		case isNA(v):
		case v.Kind == framework.KindNumber:
			nums++
		case v.Kind == framework.KindBool:
			bools++
		default:
			other++
		}
	}
	if other == 0 && (nums > 0) != (bools > 0) {
		return pycompat.AttributeError("Can only use .str accessor with string values!")
	}
	return nil
}

// Bool is one entry of a boolean result that may be missing: pandas'
// True, False or NA (a NaN in an object array).
type Bool uint8

// The values of a Bool.
const (
	False Bool = iota
	True
	NA
)

// StrContains is s.str.contains(pat, case=caseSensitive, regex=True): a
// search of the pattern (Python's re: pycompat/pyre; IgnoreCase without
// case) in each cell that is a str, NA for the others. Its errors are
// CheckStr's, TypeError("first argument must be string or compiled
// pattern") for a pat that is not a str, the pattern's re.error and
// pyre.ErrTimeout.
func (s Series) StrContains(pat any, caseSensitive bool) ([]Bool, error) {
	if err := s.CheckStr(); err != nil {
		return nil, err
	}
	p, ok := pat.(string)
	if fv, isValue := pat.(framework.Value); isValue {
		p, ok = fv.Str, fv.Kind == framework.KindString
	}
	if !ok {
		return nil, pycompat.TypeError("first argument must be string or compiled pattern")
	}
	var flags pyre.Flag
	if !caseSensitive {
		flags = pyre.IgnoreCase
	}
	re, err := pyre.Compile(p, flags)
	if err != nil {
		return nil, err
	}
	out := make([]Bool, s.Len())
	for i := range out {
		v := s.At(i)
		if v.Kind != framework.KindString {
			out[i] = NA
			continue
		}
		found, err := re.MatchString(v.Str)
		if err != nil {
			return nil, err
		}
		if found {
			out[i] = True
		}
	}
	return out, nil
}

// Mask turns a boolean result into the indexer df[mask] takes: an NA
// entry is ValueError("Cannot mask with non-boolean array containing NA /
// NaN values").
func Mask(m []Bool) ([]bool, error) {
	out := make([]bool, len(m))
	for i, x := range m {
		if x == NA {
			return nil, pycompat.ValueError("Cannot mask with non-boolean array containing NA / NaN values")
		}
		out[i] = x == True
	}
	return out, nil
}

// lengthsMustMatch is the ValueError of comparing a Series with a list of
// another length.
func lengthsMustMatch(n, m int) error {
	return pycompat.ValueError(fmt.Sprintf("('Lengths must match to compare', (%d,), (%d,))", n, m))
}

// Eq is s == v (object dtype): Python's == (pycompat/pyval) per cell; a
// list v is compared item by item and must have s's length
// (ValueError("('Lengths must match to compare', (3,), (2,))")).
func (s Series) Eq(v any) ([]bool, error) {
	if fv, ok := v.(framework.Value); ok {
		v = &fv // compared in place with each cell
	}
	out := make([]bool, s.Len())
	if l, ok := list(v); ok {
		if len(l) != s.Len() {
			return nil, lengthsMustMatch(s.Len(), len(l))
		}
		for i := range out {
			out[i] = pyval.Equal(s.at(i), l[i])
		}
		return out, nil
	}
	for i := range out {
		out[i] = pyval.Equal(s.at(i), v)
	}
	return out, nil
}

// list returns the items of a list object (a framework array or a
// *pyval.List).
func list(v any) ([]any, bool) {
	var items []framework.Value
	switch x := v.(type) {
	case framework.Value:
		if x.Kind != framework.KindArray {
			return nil, false
		}
		items = x.Items
	case *framework.Value:
		if x == nil || x.Kind != framework.KindArray {
			return nil, false
		}
		items = x.Items
	case *pyval.List:
		return x.Items(), true
	default:
		return nil, false
	}
	out := make([]any, len(items))
	for i := range items {
		out[i] = &items[i]
	}
	return out, true
}

// Contains is v in s.values (numpy's (arr == v).any()): Python's == per
// cell; a list or dict v is never found.
func (s Series) Contains(v any) bool {
	if fv, ok := v.(framework.Value); ok {
		v = &fv // compared in place with each cell
	}
	switch pyval.TypeName(v) {
	case "list", "dict":
		return false
	}
	for i := range s.Len() {
		if pyval.Equal(s.at(i), v) {
			return true
		}
	}
	return false
}

// Compare is s op bound for op "<", "<=", ">" or ">=" on object dtype
// (pandas' scalar_compare): a missing cell gives False; a list bound is
// compared item by item (same length, else Eq's ValueError); a pair Python
// cannot order is its TypeError ("'<' not supported between instances of
// 'str' and 'int'").
func (s Series) Compare(op string, bound any) ([]bool, error) {
	if fv, ok := bound.(framework.Value); ok {
		bound = &fv // compared in place with each cell
	}
	l, isList := list(bound)
	if isList && len(l) != s.Len() {
		return nil, lengthsMustMatch(s.Len(), len(l))
	}
	out := make([]bool, s.Len())
	for i := range out {
		c := s.at(i)
		if isNA(c) {
			continue
		}
		b := bound
		if isList {
			b = l[i]
		}
		ok, err := pyval.Compare(c, op, b)
		if err != nil {
			return nil, err
		}
		out[i] = ok
	}
	return out, nil
}

// negInf is -inf, what numpy's maximum.reduce sees for a missing cell.
var negInf = framework.NumberValue("-Infinity")

// Max is s.max() of an object Series (numpy's maximum.reduce with >=,
// missing cells replaced by -inf); ok is false for an empty Series (NaN).
// A pair Python cannot order is its TypeError.
func (s Series) Max() (v framework.Value, ok bool, err error) {
	if s.Len() == 0 {
		return framework.Value{}, false, nil
	}
	fill := func(v *framework.Value) framework.Value {
		if isNA(v) {
			return negInf
		}
		return *v
	}
	acc := fill(s.at(0))
	for i := 1; i < s.Len(); i++ {
		v := fill(s.at(i))
		ge, err := pyval.Compare(&acc, ">=", &v)
		if err != nil {
			return framework.Value{}, false, err
		}
		if !ge {
			acc = v
		}
	}
	return acc, true, nil
}

// StrLower is s.str.lower(): Python's str.lower() of each str cell
// (pycompat/pystr), missing (Null) for the other cells. Its error is
// CheckStr's.
func (s Series) StrLower() ([]framework.Value, error) {
	if err := s.CheckStr(); err != nil {
		return nil, err
	}
	out := make([]framework.Value, s.Len())
	for i := range out {
		if v := s.At(i); v.Kind == framework.KindString {
			out[i] = framework.StringValue(pystr.Lower(v.Str))
		}
	}
	return out, nil
}
