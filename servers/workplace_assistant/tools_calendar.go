package workplace

import (
	"sort"

	"github.com/gymkit/gymkit/pycompat"
	"github.com/gymkit/gymkit/pycompat/pandas"
	"github.com/gymkit/gymkit/pycompat/pyval"
)

// The calendar and analytics toolkits (spec sections 4.3 and 4.4).

var (
	eventGetFields    = []string{"event_id", "event_name", "participant_email", "event_start", "duration"}
	eventUpdateFields = []string{"event_name", "participant_email", "event_start", "duration"}
	plotValues        = []string{"total_visits", "session_duration_seconds", "user_engaged", "visits_direct",
		"visits_referral", "visits_search_engine", "visits_social_media"}
	plotTypes = []string{"bar", "line", "scatter", "histogram"}
)

const invalidEventID = "Invalid event ID format. Expected 8-digit ID."

func init() {
	const cls, pre = "CalendarTool", "calendar_"
	defTool(cls, pre, "get_event_information_by_id", []string{"event_id", "field"}, getEventInformation)
	defTool(cls, pre, "search_events", []string{"query", "time_min", "time_max", "page", "page_size"}, searchEvents)
	defTool(cls, pre, "create_event", []string{"event_name", "participant_email", "event_start", "duration"}, createEvent)
	defTool(cls, pre, "delete_event", []string{"event_id"}, deleteEvent)
	defTool(cls, pre, "update_event", []string{"event_id", "field", "new_value"}, updateEvent)

	const acls, apre = "AnalyticsTool", "analytics_"
	defTool(acls, apre, "get_visitor_information_by_id", []string{"visitor_id"}, getVisitorInformation)
	defTool(acls, apre, "create_plot", []string{"time_min", "time_max", "value_to_plot", "plot_type"}, createPlot)
	defTool(acls, apre, "total_visits_count", []string{"time_min", "time_max"}, totalVisitsCount)
	defTool(acls, apre, "engaged_users_count", []string{"time_min", "time_max"}, engagedUsersCount)
	defTool(acls, apre, "traffic_source_count", []string{"time_min", "time_max", "traffic_source"}, trafficSourceCount)
	defTool(acls, apre, "get_average_session_duration", []string{"time_min", "time_max"}, averageSessionDuration)
}

func getEventInformation(w *world, a args) (value, error) {
	id, field := a.get("event_id", vNone()), a.get("field", vNone())
	switch {
	case !pyval.Truthy(id):
		return vStr("Event ID not provided."), nil
	case !pyval.Truthy(field):
		return vStr("Field not provided."), nil
	case !validEventID(id):
		return vStr(invalidEventID), nil
	case !inList(field, eventGetFields...):
		return vStr("Invalid field. Available fields are: " + joinNames(eventGetFields)), nil
	}
	t := w.get(tCalendar)
	for _, r := range t.Rows() {
		if pyval.Equal(&r[cID], &id) {
			var o object
			o.add(field.Str, outValue(r[t.Col(field.Str)]))
			return o.value(), nil
		}
	}
	return vStr("Event not found."), nil
}

// parseBound parses a time bound; ok is false when pandas raised ValueError
// (the tool's own message), other exceptions propagate.
func parseBound(v value) (pandas.Timestamp, bool, error) {
	ts, err := pandas.ToTimestamp(v)
	if err != nil {
		if pycompat.IsInstance(err, "ValueError") {
			return ts, false, nil
		}
		return ts, false, err
	}
	return ts, true, nil
}

func searchEvents(w *world, a args) (value, error) {
	query := a.get("query", vStr(""))
	timeMin, timeMax := a.get("time_min", vNone()), a.get("time_max", vNone())
	page, pageSize := a.get("page", vInt(1)), a.get("page_size", vInt(5))
	var tmin, tmax pandas.Timestamp
	if pyval.Truthy(timeMin) {
		ts, ok, err := parseBound(timeMin)
		if err != nil {
			return value{}, err
		}
		if !ok {
			return vStr("Invalid time_min format. Expected YYYY-MM-DD HH:MM:SS."), nil
		}
		tmin = ts
	}
	if pyval.Truthy(timeMax) {
		ts, ok, err := parseBound(timeMax)
		if err != nil {
			return value{}, err
		}
		if !ok {
			return vStr("Invalid time_max format. Expected YYYY-MM-DD HH:MM:SS."), nil
		}
		tmax = ts
	}
	t := w.get(tCalendar)
	byName, err := t.Column(cName).StrContains(query, false)
	if err != nil {
		return value{}, err
	}
	byEmail, err := t.Column(cEmail).StrContains(query, false)
	if err != nil {
		return value{}, err
	}
	var events []int
	for i := range t.Rows() {
		if byName[i] == pandas.True || byEmail[i] == pandas.True { // na=False
			events = append(events, i)
		}
	}
	filter := func(bound pandas.Timestamp, op string) error {
		var out []int
		for _, i := range events {
			ts, err := pandas.ToTimestamp(t.At(i, cStart))
			if err != nil {
				return err
			}
			ok, err := ts.Compare(op, bound)
			if err != nil {
				return err
			}
			if ok {
				out = append(out, i)
			}
		}
		events = out
		return nil
	}
	if pyval.Truthy(timeMin) {
		if err := filter(tmin, ">="); err != nil {
			return value{}, err
		}
	}
	if pyval.Truthy(timeMax) {
		if err := filter(tmax, "<="); err != nil {
			return value{}, err
		}
	}
	if len(events) == 0 {
		return vStr("No events found."), nil
	}
	// events.sort(key=Timestamp(event_start), reverse=True): stable.
	keys := make([]pandas.Timestamp, len(events))
	for k, i := range events {
		ts, err := pandas.ToTimestamp(t.At(i, cStart))
		if err != nil {
			return value{}, err
		}
		keys[k] = ts
	}
	if len(keys) > 1 {
		naive, aware := false, false
		for _, k := range keys {
			if !k.IsNaT() {
				naive, aware = naive || !k.Aware(), aware || k.Aware()
			}
		}
		if naive && aware {
			return value{}, pycompat.TypeError("Cannot compare tz-naive and tz-aware timestamps")
		}
	}
	perm := make([]int, len(events))
	for i := range perm {
		perm[i] = i
	}
	sort.SliceStable(perm, func(x, y int) bool {
		c, ok, _ := keys[perm[y]].Cmp(keys[perm[x]])
		return ok && c < 0
	})
	sorted := make([]int, len(events))
	for k, p := range perm {
		sorted[k] = events[p]
	}
	pg, err := paginate(len(sorted), page, pageSize)
	if err != nil {
		return value{}, err
	}
	lo, hi, err := pg.slice(len(sorted))
	if err != nil {
		return value{}, err
	}
	return pageObject("events", records(t, sorted[lo:hi]), "total_events", len(sorted), pg, pageSize), nil
}

// checkDuration is the reference's int(duration) validation; msg is the
// tool's message when the duration is refused.
func checkDuration(v value) (msg string, err error) {
	n, err := pyval.Int(v)
	if err != nil {
		if pycompat.IsInstance(err, "ValueError") {
			return "Invalid duration format. Expected a number of minutes.", nil
		}
		return "", err
	}
	if n.Sign() <= 0 {
		return "Duration must be a positive number of minutes.", nil
	}
	return "", nil
}

func createEvent(w *world, a args) (value, error) {
	name, email := a.get("event_name", vNone()), a.get("participant_email", vNone())
	start, duration := a.get("event_start", vNone()), a.get("duration", vNone())
	switch {
	case !pyval.Truthy(name):
		return vStr("Event name not provided."), nil
	case !pyval.Truthy(email):
		return vStr("Participant email not provided."), nil
	case !pyval.Truthy(start):
		return vStr("Event start not provided."), nil
	case !pyval.Truthy(duration):
		return vStr("Event duration not provided."), nil
	}
	if _, ok, err := parseBound(start); err != nil {
		return value{}, err
	} else if !ok {
		return vStr("Invalid event_start format. Expected YYYY-MM-DD HH:MM:SS."), nil
	}
	if msg, err := checkDuration(duration); err != nil {
		return value{}, err
	} else if msg != "" {
		return vStr(msg), nil
	}
	low, err := lowerValue(email)
	if err != nil {
		return value{}, err
	}
	id, err := nextID(w.get(tCalendar).Column(cID), true)
	if err != nil {
		return value{}, err
	}
	// pd.concat without ignore_index: the new row's label is 0.
	w.mut(tCalendar).Append([]value{vStr(id), name, low, start, duration}, 0)
	return vStr(id), nil
}

func deleteEvent(w *world, a args) (value, error) {
	id := a.get("event_id", vNone())
	switch {
	case !pyval.Truthy(id):
		return vStr("Event ID not provided."), nil
	case !validEventID(id):
		return vStr(invalidEventID), nil
	}
	if !w.get(tCalendar).Column(cID).Contains(id) {
		return vStr("Event not found."), nil
	}
	t := w.mut(tCalendar)
	t.Keep(func(i int) bool { return !pyval.Equal(&t.Row(i)[cID], &id) })
	return vStr("Event deleted successfully."), nil
}

func updateEvent(w *world, a args) (value, error) {
	id, field, nv := a.get("event_id", vNone()), a.get("field", vNone()), a.get("new_value", vNone())
	switch {
	case !pyval.Truthy(id) || !pyval.Truthy(field) || !pyval.Truthy(nv):
		return vStr("Event ID, field, or new value not provided."), nil
	case !validEventID(id):
		return vStr(invalidEventID), nil
	case !inList(field, eventUpdateFields...):
		return vStr("Invalid field. Available fields are: " + joinNames(eventUpdateFields)), nil
	}
	switch field.Str {
	case "event_start":
		if _, ok, err := parseBound(nv); err != nil {
			return value{}, err
		} else if !ok {
			return vStr("Invalid event_start format. Expected YYYY-MM-DD HH:MM:SS."), nil
		}
	case "duration":
		if msg, err := checkDuration(nv); err != nil {
			return value{}, err
		} else if msg != "" {
			return vStr(msg), nil
		}
	}
	if !w.get(tCalendar).Column(cID).Contains(id) {
		return vStr("Event not found."), nil
	}
	if field.Str == "participant_email" {
		var err error
		if nv, err = lowerValue(nv); err != nil {
			return value{}, err
		}
	}
	t := w.mut(tCalendar)
	c := t.Col(field.Str)
	for i := range t.Rows() {
		if pyval.Equal(&t.Row(i)[cID], &id) {
			t.Set(i, c, nv)
		}
	}
	return vStr("Event updated successfully."), nil
}

// --- analytics ---

func getVisitorInformation(w *world, a args) (value, error) {
	id := a.get("visitor_id", vNone())
	if !pyval.Truthy(id) {
		return vStr("Visitor ID not provided."), nil
	}
	t := w.analytics()
	m, err := t.Column(aVisitor).Eq(id)
	if err != nil {
		return value{}, err
	}
	idx := rowsWhere(allRows(t), m)
	if len(idx) == 0 {
		return vStr("Visitor not found."), nil
	}
	return records(t, idx), nil
}

func createPlot(w *world, a args) (value, error) {
	tmin, tmax := a.get("time_min", vNone()), a.get("time_max", vNone())
	what, kind := a.get("value_to_plot", vNone()), a.get("plot_type", vNone())
	switch {
	case !pyval.Truthy(tmin):
		return vStr("Start date not provided."), nil
	case !pyval.Truthy(tmax):
		return vStr("End date not provided."), nil
	case !inList(what, plotValues...):
		return vStr("Value to plot must be one of 'total_visits', 'session_duration_seconds', 'user_engaged', 'visits_direct', 'visits_referral', 'visits_search_engine', 'visits_social_media'"), nil
	case !inList(kind, plotTypes...):
		return vStr("Plot type must be one of 'bar', 'line', 'scatter', or 'histogram'"), nil
	}
	path := "plots/" + pyval.Str(tmin) + "_" + pyval.Str(tmax) + "_" + what.Str + "_" + kind.Str + ".png"
	t := w.mut(tPlots)
	t.Append([]value{vStr(path)}, t.Len()) // .loc[len(df)] = [...]
	return vStr(path), nil
}

// visitsInRange applies the reference's string bounds on date_of_visit.
func visitsInRange(t *table, tmin, tmax value) ([]int, error) {
	idx := allRows(t)
	if pyval.Truthy(tmin) {
		m, err := t.ColumnAt(aDate, idx).Compare(">=", tmin)
		if err != nil {
			return nil, err
		}
		idx = rowsWhere(idx, m)
	}
	if pyval.Truthy(tmax) {
		m, err := t.ColumnAt(aDate, idx).Compare("<=", tmax)
		if err != nil {
			return nil, err
		}
		idx = rowsWhere(idx, m)
	}
	return idx, nil
}

// groupByDate sums f over the rows of each date_of_visit, in ascending key
// order (groupby(...).sum().to_dict()).
func groupByDate(t *table, idx []int, f func(i int) float64, asFloat bool, mean bool) value {
	type agg struct {
		sum   float64
		count int
	}
	groups := map[string]*agg{}
	var keys []string
	for _, i := range idx {
		k := pyval.Str(&t.Row(i)[aDate])
		g, ok := groups[k]
		if !ok {
			g = &agg{}
			groups[k] = g
			keys = append(keys, k)
		}
		g.sum += f(i)
		g.count++
	}
	sort.Strings(keys)
	var o object
	for _, k := range keys {
		g := groups[k]
		switch {
		case mean:
			o.add(k, pyval.FloatValue(g.sum/float64(g.count)))
		case asFloat:
			o.add(k, pyval.FloatValue(g.sum))
		default:
			o.add(k, vInt(int(g.sum)))
		}
	}
	if o == nil {
		o = object{}
	}
	return o.value()
}

func totalVisitsCount(w *world, a args) (value, error) {
	t := w.analytics()
	idx, err := visitsInRange(t, a.get("time_min", vNone()), a.get("time_max", vNone()))
	if err != nil {
		return value{}, err
	}
	return groupByDate(t, idx, func(int) float64 { return 1 }, false, false), nil
}

func engagedUsersCount(w *world, a args) (value, error) {
	t := w.analytics()
	idx, err := visitsInRange(t, a.get("time_min", vNone()), a.get("time_max", vNone()))
	if err != nil {
		return value{}, err
	}
	return groupByDate(t, idx, func(i int) float64 {
		if pyval.Truthy(&t.Row(i)[aEngaged]) {
			return 1
		}
		return 0
	}, false, false), nil
}

func trafficSourceCount(w *world, a args) (value, error) {
	t := w.analytics()
	idx, err := visitsInRange(t, a.get("time_min", vNone()), a.get("time_max", vNone()))
	if err != nil {
		return value{}, err
	}
	source := a.get("traffic_source", vNone())
	if !pyval.Truthy(source) {
		return groupByDate(t, idx, func(int) float64 { return 1 }, false, false), nil
	}
	m, err := t.ColumnAt(aSource, idx).Eq(source)
	if err != nil {
		return value{}, err
	}
	pos := map[int]int{}
	for k, i := range idx {
		pos[i] = k
	}
	return groupByDate(t, idx, func(i int) float64 {
		if m[pos[i]] {
			return 1
		}
		return 0
	}, false, false), nil
}

func averageSessionDuration(w *world, a args) (value, error) {
	tmin, tmax := a.get("time_min", vNone()), a.get("time_max", vNone())
	t := w.analytics()
	idx, err := visitsInRange(t, tmin, tmax)
	if err != nil {
		return value{}, err
	}
	if !pyval.Truthy(tmin) && !pyval.Truthy(tmax) {
		// data is the session's own table: astype(float) converts it for the
		// rest of the session.
		w.analyticsConverted = true
		t = w.analytics()
	}
	return groupByDate(t, idx, func(i int) float64 {
		f, _ := cellFloat(t.At(i, aDuration))
		return f
	}, true, true), nil
}

// cellFloat is float(cell) for the analytics durations.
func cellFloat(v value) (float64, bool) {
	f, err := pyval.Float(v)
	return f, err == nil
}
