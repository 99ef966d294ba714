// Package pandas is the part of pandas 2.2 (and of numpy under it) that
// NeMo Gym's table-backed servers use, with pandas' results and error
// texts: a DataFrame of object columns read as read_csv(dtype=str) reads a
// file, Series operations (str.contains, str.lower, ==, <, max, in
// .values), pd.Timestamp, and the order of sort_values(ascending=False).
//
//	t, err := pandas.ReadCSV(f, pandas.CSVOptions{})      // pd.read_csv(f, dtype=str)
//	hits, err := t.Column(t.Col("subject")).StrContains(q, false)
//	keep, err := pandas.Mask(hits)                         // df[mask]: NA raises as pandas does
//	ts, err := pandas.ToTimestamp("Dec 5, 2023 10am")      // pd.Timestamp(...)
//	order := pandas.SortDescending(n, less)                // sort_values(ascending=False), ties as numpy orders them
//
// A Table's cells are framework.Values, the objects json.loads builds (a
// str, a number, None for a missing cell, a list or dict a tool stored):
// comparisons, equality and truthiness are Python's (pycompat/pyval),
// patterns are Python's re (pycompat/pyre), dates are parsed by pandas'
// own parser and then dateutil's (pycompat/dateutil). Tables are
// copy-on-write, so a server can keep one parsed base table and give each
// rollout a cheap clone of it.
//
// Only object dtype is here: no numeric columns, no NaN arithmetic, no
// groupby or merge; the Series operations are those of an object column.
// ToTimestamp and ParseTimestamp read the wall clock (time.Now) for "now",
// "today", a bare time and two-digit years, as pandas does; time zone names
// are resolved as on a UTC host (see pycompat/dateutil).
package pandas
