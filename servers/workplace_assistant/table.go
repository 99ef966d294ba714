package workplace

import (
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/pycompat/pandas"
	"github.com/gymkit/gymkit/pycompat/pyval"
)

// A table is one of the reference's pandas DataFrames (pycompat/pandas:
// named columns, rows of cells, one integer index label per row; labels are
// compared by verify, spec section 2.2). Tables are copy-on-write: the parsed
// base tables are shared by every world; a world clones a table (its row list
// and labels, not the rows) the first time it changes it, and Set copies the
// row it changes. A table is never modified once another world may see it.
type table = pandas.Table

// record returns row i as a JSON object in column order (to_dict records),
// as the reference's JSON answer shows it (outValue).
func record(t *table, i int) value {
	cols := t.Columns()
	row := t.Row(i)
	ms := make(object, len(cols))
	for c, name := range cols {
		ms[c].Key = name
		ms[c].Value = outValue(row[c])
	}
	return ms.value()
}

// The five tables a world can change, in the order verify compares them
// (calendar, emails, plots, project tasks, CRM).
const (
	tCalendar = iota
	tEmails
	tPlots
	tTasks
	tCRM
	nTables
)

// Column indexes, checked against the CSV headers at load time.
const (
	eID, eBox, eAddr, eSubject, eSent, eBody = 0, 1, 2, 3, 4, 5

	cID, cName, cEmail, cStart, cDuration = 0, 1, 2, 3, 4

	aDate, aVisitor, aViews, aDuration, aSource, aEngaged = 0, 1, 2, 3, 4, 5

	tkID, tkName, tkEmail, tkList, tkDue, tkBoard = 0, 1, 2, 3, 4, 5

	crmID, crmAssigned, crmName, crmEmail, crmPhone, crmLastContact, crmProduct, crmStatus, crmFollowUp, crmNotes = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9
)

var tableColumns = [nTables][]string{
	tCalendar: {"event_id", "event_name", "participant_email", "event_start", "duration"},
	tEmails:   {"email_id", "inbox/outbox", "sender/recipient", "subject", "sent_datetime", "body"},
	tPlots:    {"file_path"},
	tTasks:    {"task_id", "task_name", "assigned_to_email", "list_name", "due_date", "board"},
	tCRM: {"customer_id", "assigned_to_email", "customer_name", "customer_email", "customer_phone",
		"last_contact_date", "product_interest", "status", "follow_up_by", "notes"},
}

var analyticsColumns = []string{"date_of_visit", "visitor_id", "page_views", "session_duration_seconds", "traffic_source", "user_engaged"}

// dataset is the parsed CSV data, loaded once and shared read-only by every
// world.
type dataset struct {
	base      [nTables]*table
	analytics *table // read-only; user_engaged is a bool
	directory *table // raw/email_addresses.csv: one column, email_address
	// searchText holds, for each base email row (keyed by its first cell),
	// the lower-cased "subject body sender/recipient" that email search scans.
	searchText map[*value]string
	// analyticsFloat is analytics with session_duration_seconds as floats,
	// what a world sees after analytics_get_average_session_duration without
	// bounds converted its table (spec section 4.4). Built lazily.
	analyticsFloatOnce sync.Once
	analyticsFloat     *table
	// baseRows holds the first cell of every row of the five base tables,
	// so that a world's memory estimate skips the rows it shares.
	baseRows map[*value]struct{}
}

// loadDataset reads dir/processed/*.csv and dir/raw/email_addresses.csv with
// pandas read_csv(dtype=str) semantics: every cell a string, an empty field a
// missing value, white space kept.
func loadDataset(dir string) (*dataset, error) {
	d := &dataset{}
	files := [nTables]string{
		tCalendar: "calendar_events.csv",
		tEmails:   "emails.csv",
		tTasks:    "project_tasks.csv",
		tCRM:      "customer_relationship_manager_data.csv",
	}
	for i, f := range files {
		if i == tPlots {
			d.base[i] = pandas.NewTable(tableColumns[tPlots]...)
			continue
		}
		t, err := readTable(filepath.Join(dir, "processed", f), pandas.CSVOptions{}, tableColumns[i])
		if err != nil {
			return nil, err
		}
		d.base[i] = t
	}
	a, err := readTable(filepath.Join(dir, "processed", "analytics_data.csv"), pandas.CSVOptions{}, analyticsColumns)
	if err != nil {
		return nil, err
	}
	for _, r := range a.Rows() {
		r[aEngaged] = vBool(isStr(r[aEngaged]) && r[aEngaged].Str == "True") // the table is not shared yet
	}
	d.analytics = a

	d.directory, err = readTable(filepath.Join(dir, "raw", "email_addresses.csv"), pandas.CSVOptions{Names: []string{"email_address"}}, nil)
	if err != nil {
		return nil, err
	}
	d.baseRows = map[*value]struct{}{}
	for _, t := range d.base {
		for _, r := range t.Rows() {
			d.baseRows[&r[0]] = struct{}{}
		}
	}
	d.searchText = map[*value]string{}
	for _, r := range d.base[tEmails].Rows() {
		d.searchText[&r[0]] = emailSearchText(r)
	}
	return d, nil
}

// readTable reads a CSV file as read_csv(path, dtype=str) does
// (pandas.ReadCSV) and checks its header against want (nil: no check).
func readTable(path string, o pandas.CSVOptions, want []string) (*table, error) {
	f, err := config.Path(path).Open(0) // a regular file of at most config.MaxDataFileBytes
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := pandas.ReadCSV(f, o)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if want != nil && !slices.Equal(t.Columns(), want) {
		return nil, fmt.Errorf("%s: header %q, want %q", path, t.Columns(), want)
	}
	return t, nil
}

// floatAnalytics returns the analytics table with session_duration_seconds
// converted by astype(float).
func (d *dataset) floatAnalytics() *table {
	d.analyticsFloatOnce.Do(func() {
		t := d.analytics.Clone()
		for i := range t.Len() {
			if f, ok := pyFloatOf(t.At(i, aDuration)); ok {
				t.Set(i, aDuration, pyval.FloatValue(f))
			}
		}
		d.analyticsFloat = t
	})
	return d.analyticsFloat
}

// pyFloatOf is float(s) for the numeric strings of the analytics data.
func pyFloatOf(v value) (float64, bool) {
	if !isStr(v) {
		return 0, false
	}
	f, err := pyval.ParseFloat(v.Str)
	return f, err == nil
}

// world is one rollout's copy of the workplace: the reference's five tool
// objects with their DataFrames. Its tables start as the shared base tables
// and are copied on first write. A world is used by one call at a time (mu).
type world struct {
	mu     sync.Mutex
	data   *dataset
	tables [nTables]*table
	owned  [nTables]bool
	// analyticsConverted records the side effect of
	// analytics_get_average_session_duration without bounds.
	analyticsConverted bool
	// writes counts the calls of mut (every write goes through it), so
	// that a caller can tell whether a tool call wrote.
	writes uint64
	// size is the world's estimated memory (see bytes), kept by the world
	// store's user after each write; read by the store without mu.
	size atomic.Int64
}

// newWorld returns a fresh world: no copying, just references to the base
// tables.
func (d *dataset) newWorld() *world {
	return &world{data: d, tables: d.base}
}

// get returns table t for reading.
func (w *world) get(t int) *table { return w.tables[t] }

// mut returns table t for writing, copying it on the first write.
func (w *world) mut(t int) *table {
	w.writes++
	if !w.owned[t] {
		w.tables[t] = w.tables[t].Clone()
		w.owned[t] = true
	}
	return w.tables[t]
}

// analytics returns the analytics table as this world sees it.
func (w *world) analytics() *table {
	if w.analyticsConverted {
		return w.data.floatAnalytics()
	}
	return w.data.analytics
}

// changed reports whether a tool has changed the world: a table copied for
// writing, or the analytics conversion. An unchanged world is the shared
// base and needs no keeping. Call it with mu held (or before the world is
// shared).
func (w *world) changed() bool {
	return w.analyticsConverted || slices.Contains(w.owned[:], true)
}

// Sizes used by the world memory estimate.
const (
	valueSize  = int64(unsafe.Sizeof(value{}))
	memberSize = int64(unsafe.Sizeof(framework.Member{}))
	rowSize    = int64(unsafe.Sizeof([]value(nil)))
	labelSize  = int64(unsafe.Sizeof(int(0)))
	tableSize  = int64(unsafe.Sizeof(table{}))
	// worldOverhead is a kept world's fixed cost: the world itself, its
	// store entry, list element and map entry with the session id.
	worldOverhead = int64(unsafe.Sizeof(world{})+unsafe.Sizeof(storeEntry{})) + 48 + 128
)

// bytes estimates the memory this world holds beyond the shared base
// tables, from its actual copied tables: for each table it owns, the row
// list and labels (their capacity) and every row that is not a base row
// (copied by a cell update, or added), with the cells' strings and nested
// JSON values, plus worldOverhead. A copied row's unchanged strings are
// shared with the base but counted, so the estimate errs high. Call it
// with mu held.
func (w *world) bytes() int64 {
	n := worldOverhead
	for t, tab := range w.tables {
		if tab == w.data.base[t] {
			continue // shared: not copied by this world (nor by the world it was forked from)
		}
		n += tableSize + int64(cap(tab.Rows()))*rowSize + int64(cap(tab.Labels()))*labelSize
		for _, r := range tab.Rows() {
			if len(r) == 0 || w.data.isBaseRow(&r[0]) {
				continue
			}
			n += int64(cap(r)) * valueSize
			for _, v := range r {
				n += valueBytes(v)
			}
		}
	}
	return n
}

// valueBytes is the memory a cell holds beyond its value struct: its
// string and, for a JSON list or object, the items and members.
func valueBytes(v value) int64 {
	n := int64(len(v.Str))
	if v.Items != nil {
		n += int64(cap(v.Items)) * valueSize
		for _, it := range v.Items {
			n += valueBytes(it)
		}
	}
	if v.Members != nil {
		n += int64(cap(v.Members)) * memberSize
		for _, m := range v.Members {
			n += int64(len(m.Key)) + valueBytes(m.Value)
		}
	}
	return n
}

// isBaseRow reports whether first is the first cell of a row of one of
// the parsed base tables (shared by every world, so not a world's cost).
func (d *dataset) isBaseRow(first *value) bool {
	_, ok := d.baseRows[first]
	return ok
}
