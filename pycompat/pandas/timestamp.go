package pandas

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/pycompat"
	"github.com/gymkit/gymkit/pycompat/dateutil"
	"github.com/gymkit/gymkit/pycompat/pyval"
)

// This file is pd.Timestamp(value) as pandas 2.2 builds it: the ISO 8601
// fast path of pandas/_libs/src/vendored/numpy/datetime/np_datetime_strings.c,
// then parse_datetime_string of pandas/_libs/tslibs/parsing.pyx (its "looks
// like a datetime" test, bare times, MM/DD/YYYY forms, quarters and month
// abbreviations), then dateutil's parser (pycompat/dateutil), with the
// error texts of each step.

// Timestamp is a pd.Timestamp: NaT, or a wall-clock time with nanoseconds,
// naive or tz-aware with a fixed UTC offset. The zero Timestamp is
// 1970-01-01 00:00:00, naive. It is a plain value, safe to share.
type Timestamp struct {
	nat   bool
	aware bool
	off   int64 // seconds east of UTC, when aware
	sec   int64 // wall-clock seconds since 1970-01-01 00:00:00 (proleptic Gregorian)
	nsec  int64 // 0..999999999
}

// NaT is pd.NaT, the missing Timestamp.
var NaT = Timestamp{nat: true}

func tsFromCivil(y, mo, d, h, mi, s int, nsec int64) Timestamp {
	t := time.Date(y, time.Month(mo), d, h, mi, s, 0, time.UTC)
	return Timestamp{sec: t.Unix(), nsec: nsec}
}

func tsFromTime(t time.Time) Timestamp {
	wall := time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, time.UTC)
	return Timestamp{sec: wall.Unix(), nsec: int64(t.Nanosecond())}
}

// IsNaT reports whether t is NaT.
func (t Timestamp) IsNaT() bool { return t.nat }

// Aware reports whether t is tz-aware (has a UTC offset).
func (t Timestamp) Aware() bool { return t.aware }

// Time returns t's wall clock as a time.Time: in a time.FixedZone of its
// offset when aware, in time.UTC when naive; the zero Time for NaT.
func (t Timestamp) Time() time.Time {
	if t.nat {
		return time.Time{}
	}
	w := time.Unix(t.sec, t.nsec).UTC()
	if !t.aware {
		return w
	}
	return time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), w.Nanosecond(), time.FixedZone("", int(t.off)))
}

// String returns str(t): "2023-12-05 10:00:00", the fraction when not zero
// (".500000", or nanoseconds when below microseconds), "+01:00" when aware;
// "NaT".
func (t Timestamp) String() string {
	if t.nat {
		return "NaT"
	}
	w := t.Time()
	s := w.Format("2006-01-02 15:04:05")
	switch {
	case t.nsec%1000 != 0:
		s += fmt.Sprintf(".%09d", t.nsec)
	case t.nsec != 0:
		s += fmt.Sprintf(".%06d", t.nsec/1000)
	}
	if t.aware {
		s += w.Format("-07:00")
	}
	return s
}

// instant returns the comparable (seconds, nanoseconds).
func (t Timestamp) instant() (int64, int64) {
	if t.aware {
		return t.sec - t.off, t.nsec
	}
	return t.sec, t.nsec
}

// Cmp compares t with u: -1, 0 or 1. ok is false when either is NaT (every
// comparison is then False); a naive and an aware Timestamp are Python's
// TypeError("Cannot compare tz-naive and tz-aware timestamps").
func (t Timestamp) Cmp(u Timestamp) (c int, ok bool, err error) {
	if t.nat || u.nat {
		return 0, false, nil
	}
	if t.aware != u.aware {
		return 0, false, pycompat.TypeError("Cannot compare tz-naive and tz-aware timestamps")
	}
	as, an := t.instant()
	bs, bn := u.instant()
	switch {
	case as < bs || (as == bs && an < bn):
		return -1, true, nil
	case as == bs && an == bn:
		return 0, true, nil
	}
	return 1, true, nil
}

// Compare returns Python's t op u for op "<", "<=", ">", ">=", "==" or "!=":
// False with NaT on either side (True for "!="), Cmp's TypeError for a naive
// and an aware Timestamp. Another op is a Go error.
func (t Timestamp) Compare(op string, u Timestamp) (bool, error) {
	c, ok, err := t.Cmp(u)
	if err != nil {
		return false, err
	}
	switch op {
	case "<":
		return ok && c < 0, nil
	case "<=":
		return ok && c <= 0, nil
	case ">":
		return ok && c > 0, nil
	case ">=":
		return ok && c >= 0, nil
	case "==":
		return ok && c == 0, nil
	case "!=":
		return !ok || c != 0, nil
	}
	return false, errors.New("pandas: unknown comparison operator " + strconv.Quote(op))
}

// Day returns t.date() as a day number (days since 1970-01-01 of the wall
// clock), for comparing dates; ok is false for NaT.
func (t Timestamp) Day() (int64, bool) {
	if t.nat {
		return 0, false
	}
	return floorDiv(t.sec, 86400), true
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// ToTimestamp is pd.Timestamp(v) for a Python object (see pycompat/pyval;
// a framework.Value is read as json.loads reads it): None and a float NaN
// are NaT; an int is nanoseconds since the epoch (a float is truncated to
// them); a str is parsed as ParseTimestamp parses it. Other types are
// TypeError("Cannot convert input [True] of type <class 'bool'> to
// Timestamp"); an int beyond the int64 range is ValueError("Out of bounds
// nanosecond timestamp: ..."), a float beyond it or infinite
// OverflowError("cannot convert float infinity to integer"). The clock of
// "now", "today" and bare times is time.Now.
func ToTimestamp(v any) (Timestamp, error) { return toTimestamp(v, time.Now) }

func toTimestamp(o any, now func() time.Time) (Timestamp, error) {
	v, ok := o.(framework.Value)
	if p, isPtr := o.(*framework.Value); isPtr && p != nil {
		v, ok = *p, true
	}
	if !ok {
		// Another Python object, as the Value json.loads would give (o is
		// not stored: a framework.Value argument need not be copied to the
		// heap).
		switch pyval.TypeName(o) {
		case "NoneType":
			v = framework.NullValue()
		case "str":
			v = framework.StringValue(pyval.Str(o))
		case "int":
			n, _ := pyval.Int(o)
			v = framework.NumberValue(n.String())
		case "float":
			f, _ := pyval.Float(o)
			v = pyval.FloatValue(f)
		default:
			return Timestamp{}, pycompat.TypeError("Cannot convert input [" + pyval.Str(o) + "] of type <class '" + pyval.TypeName(o) + "'> to Timestamp")
		}
	}
	switch v.Kind {
	case framework.KindNull:
		return NaT, nil
	case framework.KindString:
		return parseTimestampString(v.Str, now)
	case framework.KindNumber:
		if v.IsFloat() {
			f, _ := v.Float()
			if math.IsNaN(f) {
				return NaT, nil
			}
			if math.IsInf(f, 0) || math.Abs(f) >= 9.3e18 {
				return Timestamp{}, pycompat.OverflowError("cannot convert float infinity to integer")
			}
			return tsFromNanos(int64(f)), nil
		}
		n, ok := v.Int()
		if !ok {
			b, _ := v.BigInt()
			return Timestamp{}, pycompat.ValueError(fmt.Sprintf("Out of bounds nanosecond timestamp: %s", b.String()))
		}
		if n == math.MinInt64 { // NPY_NAT
			return NaT, nil
		}
		return tsFromNanos(n), nil
	}
	return Timestamp{}, pycompat.TypeError("Cannot convert input [" + pyval.Str(v) + "] of type <class '" + pyval.TypeName(v) + "'> to Timestamp")
}

// ParseTimestamp is pd.Timestamp(s) for a str: "", "NaT", "nan" and their
// spellings are NaT; "now" and "today" the wall clock (time.Now); then the
// ISO 8601 forms pandas reads itself (every separator and unpadded form it
// accepts, fractions, "Z" and offsets), pandas' parse_datetime_string
// (bare times on today's date, MM/DD/YYYY with the day-first fallback,
// quarters, "%b %Y" forms) and dateutil's parser. Its errors are pandas'
// and dateutil's ValueErrors with their texts ("Unknown datetime string
// format, unable to parse: abc", `Given date string "5" not likely a
// datetime`, "day is out of range for month: 2023-02-30").
func ParseTimestamp(s string) (Timestamp, error) { return parseTimestampString(s, time.Now) }

func tsFromNanos(n int64) Timestamp {
	sec := floorDiv(n, 1e9)
	return Timestamp{sec: sec, nsec: n - sec*1e9}
}

var natStrings = map[string]bool{"NaT": true, "nat": true, "NAT": true, "nan": true, "NaN": true, "NAN": true}

// parseTimestampString is convert_str_to_tsobject.
func parseTimestampString(s string, now func() time.Time) (Timestamp, error) {
	if s == "" || natStrings[s] {
		return NaT, nil
	}
	switch s {
	case "now", "today":
		return tsFromTime(now()), nil
	}
	if ts, ok := parseISO8601(s); ok {
		return ts, nil
	}
	return parseDatetimeString(s, now)
}

// --- the ISO 8601 fast path (pandas' parse_iso_8601_datetime) ---

func cIsSpace(c byte) bool { return c == ' ' || (c >= '\t' && c <= '\r') }
func cIsDigit(c byte) bool { return c >= '0' && c <= '9' }

var daysPerMonth = [2][12]int{
	{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31},
	{31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31},
}

func isLeap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

// parseISO8601 reports ok=false whenever pandas' C parser fails (out-of-range
// fields included), so that the caller falls back to the slow path as pandas
// does.
func parseISO8601(s string) (Timestamp, bool) {
	i := 0
	at := func(k int) byte { // the C code reads the NUL terminator
		if k < len(s) {
			return s[k]
		}
		return 0
	}
	for i < len(s) && cIsSpace(s[i]) {
		i++
	}
	neg := false
	if at(i) == '-' {
		neg = true
		i++
	}
	if i >= len(s) {
		return Timestamp{}, false
	}
	year, month, day := 0, 1, 1
	hour, minute, sec := 0, 0, 0
	var nsec int64
	if len(s)-i >= 4 && cIsDigit(s[i]) && cIsDigit(s[i+1]) && cIsDigit(s[i+2]) && cIsDigit(s[i+3]) {
		year = int(s[i]-'0')*1000 + int(s[i+1]-'0')*100 + int(s[i+2]-'0')*10 + int(s[i+3]-'0')
		i += 4
	}
	if neg {
		year = -year
	}
	leap := 0
	if isLeap(year) {
		leap = 1
	}
	finish := func() (Timestamp, bool) {
		return tsFromCivil(year, month, day, hour, minute, sec, nsec), true
	}
	if i >= len(s) {
		return finish()
	}
	var sep byte
	if !cIsDigit(s[i]) {
		switch s[i] {
		case '-', '.', '/', '\\', ' ':
			sep = s[i]
		default:
			return Timestamp{}, false
		}
		i++
		if i >= len(s) || !cIsDigit(s[i]) {
			return Timestamp{}, false
		}
	}
	// month
	month = int(s[i] - '0')
	i++
	if cIsDigit(at(i)) {
		month = month*10 + int(s[i]-'0')
		i++
	} else if sep == 0 {
		return Timestamp{}, false
	}
	if month < 1 || month > 12 {
		return Timestamp{}, false
	}
	if i >= len(s) {
		if sep == 0 {
			return Timestamp{}, false
		}
		return finish()
	}
	if sep != 0 {
		if s[i] != sep || len(s)-i == 1 {
			return Timestamp{}, false
		}
		i++
	}
	// day
	if !cIsDigit(at(i)) {
		return Timestamp{}, false
	}
	day = int(s[i] - '0')
	i++
	if cIsDigit(at(i)) {
		day = day*10 + int(s[i]-'0')
		i++
	} else if sep == 0 {
		return Timestamp{}, false
	}
	if day < 1 || day > daysPerMonth[leap][month-1] {
		return Timestamp{}, false
	}
	if i >= len(s) {
		return finish()
	}
	if (s[i] != 'T' && s[i] != ' ') || len(s)-i == 1 {
		return Timestamp{}, false
	}
	i++
	// hours
	if !cIsDigit(at(i)) {
		return Timestamp{}, false
	}
	hour = int(s[i] - '0')
	i++
	hour2 := false
	if cIsDigit(at(i)) {
		hour2 = true
		hour = hour*10 + int(s[i]-'0')
		i++
		if hour >= 24 {
			return Timestamp{}, false
		}
	}
	if i >= len(s) {
		if !hour2 {
			return Timestamp{}, false
		}
		return finish()
	}
	hmsSep := false
	if s[i] == ':' {
		hmsSep = true
		i++
		if i >= len(s) || !cIsDigit(s[i]) {
			return Timestamp{}, false
		}
	} else if !cIsDigit(s[i]) {
		if !hour2 {
			return Timestamp{}, false
		}
		return isoTimezone(s, i, finish)
	}
	// minutes
	minute = int(s[i] - '0')
	i++
	if cIsDigit(at(i)) {
		minute = minute*10 + int(s[i]-'0')
		i++
		if minute >= 60 {
			return Timestamp{}, false
		}
	} else if !hmsSep {
		return Timestamp{}, false
	}
	if i >= len(s) {
		return finish()
	}
	switch {
	case hmsSep && s[i] == ':':
		i++
		if i >= len(s) || !cIsDigit(s[i]) {
			return Timestamp{}, false
		}
	case !hmsSep && cIsDigit(s[i]):
	default:
		return isoTimezone(s, i, finish)
	}
	// seconds
	sec = int(s[i] - '0')
	i++
	if cIsDigit(at(i)) {
		sec = sec*10 + int(s[i]-'0')
		i++
		if sec >= 60 {
			return Timestamp{}, false
		}
	} else if !hmsSep {
		return Timestamp{}, false
	}
	if i < len(s) && s[i] == '.' {
		i++
		// up to 18 fractional digits (us, ps, as); nanoseconds keep 9.
		nd := 0
		for k := 0; k < 18 && i < len(s) && cIsDigit(s[i]); k++ {
			if nd < 9 {
				nsec = nsec*10 + int64(s[i]-'0')
				nd++
			}
			i++
		}
		for ; nd < 9; nd++ {
			nsec *= 10
		}
	}
	return isoTimezone(s, i, finish)
}

// isoTimezone parses the optional zone after the time.
func isoTimezone(s string, i int, finish func() (Timestamp, bool)) (Timestamp, bool) {
	for i < len(s) && cIsSpace(s[i]) {
		i++
	}
	if i >= len(s) {
		return finish()
	}
	ts, _ := finish()
	switch s[i] {
	case 'Z':
		ts.aware, ts.off = true, 0
		i++
	case '+', '-':
		neg := s[i] == '-'
		i++
		var oh, om int
		switch {
		case len(s)-i >= 2 && cIsDigit(s[i]) && cIsDigit(s[i+1]):
			oh = int(s[i]-'0')*10 + int(s[i+1]-'0')
			i += 2
			if oh >= 24 {
				return Timestamp{}, false
			}
		case len(s)-i >= 1 && cIsDigit(s[i]):
			oh = int(s[i] - '0')
			i++
		default:
			return Timestamp{}, false
		}
		if i < len(s) {
			if s[i] == ':' {
				i++
			}
			switch {
			case len(s)-i >= 2 && cIsDigit(s[i]) && cIsDigit(s[i+1]):
				om = int(s[i]-'0')*10 + int(s[i+1]-'0')
				i += 2
				if om >= 60 {
					return Timestamp{}, false
				}
			case len(s)-i >= 1 && cIsDigit(s[i]):
				om = int(s[i] - '0')
				i++
			default:
				return Timestamp{}, false
			}
		}
		off := int64(oh*3600 + om*60)
		if neg {
			off = -off
		}
		ts.aware, ts.off = true, off
	default:
		return Timestamp{}, false
	}
	for i < len(s) && cIsSpace(s[i]) {
		i++
	}
	if i != len(s) {
		return Timestamp{}, false
	}
	return ts, true
}

// --- parse_datetime_string ---

func dateParseError(msg string) error { return &pycompat.Exception{Class: "DateParseError", Msg: msg} }

// tsFromDateTime is the Timestamp of a datetime; an offset of a day or
// more is refused.
func tsFromDateTime(dt dateutil.DateTime) (Timestamp, error) {
	ts := tsFromTime(dt.Time)
	if dt.Aware {
		_, off := dt.Time.Zone()
		if off <= -86400 || off >= 86400 {
			return Timestamp{}, pycompat.ValueError(fmt.Sprintf("Offset must be strictly between -timedelta(hours=24) and timedelta(hours=24), got %d", off))
		}
		ts.aware, ts.off = true, int64(off)
	}
	return ts, nil
}

// dateutilParse is pandas' dateutil_parse with the default 0001-01-01
// (pandas/_libs/tslibs/parsing.pyx): dateutil's parser._parse, then the
// fields over the default, with pandas' error texts.
func dateutilParse(s string, now func() time.Time) (Timestamp, error) {
	f, ok := dateutil.ParseFields(s, now)
	if !ok {
		return Timestamp{}, dateParseError("Unknown datetime string format, unable to parse: " + s)
	}
	if !f.HasDateOrTime() {
		return Timestamp{}, dateParseError("Unable to parse datetime string: " + s)
	}
	field := func(o dateutil.OptInt, def int) int {
		if o.Valid {
			return o.Value
		}
		return def
	}
	year, month, day := field(f.Year, 1), field(f.Month, 1), field(f.Day, 1)
	hour, minute, sec, us := field(f.Hour, 0), field(f.Minute, 0), field(f.Second, 0), field(f.Microsecond, 0)
	if year > 1<<31-1 || year < -(1<<31) {
		return Timestamp{}, &pycompat.Exception{Class: "OutOfBoundsDatetime", Msg: `Parsing "` + s + `" to datetime overflows`}
	}
	if err := dateutil.CheckDateTime(year, month, day, hour, minute, sec, us); err != nil {
		return Timestamp{}, dateParseError(err.Error() + ": " + s)
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, us*1000, time.UTC)
	if f.Weekday.Valid && !f.Day.Valid {
		// relativedelta(weekday=...): the next such day on or after.
		cur := (int(t.Weekday()) + 6) % 7 // Monday = 0
		t = t.AddDate(0, 0, (f.Weekday.Value-cur+7)%7)
	}
	return tsFromDateTime(dateutil.Aware(t, f))
}

func parseDatetimeString(s string, now func() time.Time) (Timestamp, error) {
	if !looksLikeDatetime(s) {
		return Timestamp{}, pycompat.ValueError(`Given date string "` + s + `" not likely a datetime`)
	}
	if timePat(s) {
		// dateutil.parser.parse with today's midnight as the default.
		dt, err := dateutil.Parse(s, dateutil.Options{Now: now})
		if pycompat.IsInstance(err, "OverflowError") {
			// As the path below answers it (pandas' text).
			return Timestamp{}, &pycompat.Exception{Class: "OutOfBoundsDatetime", Msg: `Parsing "` + s + `" to datetime overflows`}
		}
		if err != nil {
			return Timestamp{}, err
		}
		return tsFromDateTime(dt)
	}
	if ts, ok, err := parseDelimitedDate(s); err != nil || ok {
		return ts, err
	}
	if ts, ok, err := parseDateAbbr(s); err != nil || ok {
		return ts, err
	}
	return dateutilParse(s, now)
}

// looksLikeDatetime is pandas' _does_string_look_like_datetime.
func looksLikeDatetime(s string) bool {
	if s == "" {
		return true
	}
	if s[0] == '0' {
		return true
	}
	switch s {
	case "a", "A", "m", "M", "p", "P", "t", "T":
		return false
	}
	if f, ok := xstrtod(s); ok {
		return f >= 1000
	}
	return true
}

// xstrtod is pandas' float parser with the settings of that test: leading
// and trailing white space, a sign, digits, '.', an exponent; the whole
// string must be used.
func xstrtod(s string) (float64, bool) {
	i := 0
	for i < len(s) && cIsSpace(s[i]) {
		i++
	}
	start := i
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && cIsDigit(s[i]) {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && cIsDigit(s[i]) {
			i++
			digits++
		}
	}
	if digits == 0 {
		return 0, false
	}
	end := i
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		k := j
		for k < len(s) && cIsDigit(s[k]) {
			k++
		}
		if k > j {
			end = k
		}
	}
	num := s[start:end]
	i = end
	for i < len(s) && cIsSpace(s[i]) {
		i++
	}
	if i != len(s) {
		return 0, false
	}
	f, _ := strconv.ParseFloat(num, 64) // overflow gives ±Inf, as strtod
	return f, true
}

// timePat is pandas' _TIMEPAT: ^([01]?[0-9]|2[0-3]):([0-5][0-9])
func timePat(s string) bool {
	i := 0
	switch {
	case len(s) >= 2 && (s[0] == '0' || s[0] == '1') && cIsDigit(s[1]):
		i = 2
	case len(s) >= 2 && s[0] == '2' && s[1] >= '0' && s[1] <= '3':
		i = 2
	case len(s) >= 1 && cIsDigit(s[0]):
		i = 1
	default:
		return false
	}
	return len(s) >= i+3 && s[i] == ':' && s[i+1] >= '0' && s[i+1] <= '5' && cIsDigit(s[i+2])
}

func isDelimiter(c byte) bool { return c == ' ' || c == '/' || c == '-' || c == '.' }

func digitOr(c byte, def int) int {
	if cIsDigit(c) {
		return int(c - '0')
	}
	return def
}

func parse1(b []byte) int { return digitOr(b[0], -1) }
func parse2(b []byte) int { return digitOr(b[0], -10)*10 + digitOr(b[1], -100) }
func parse4(b []byte) int {
	return digitOr(b[0], -10)*1000 + digitOr(b[1], -100)*100 + digitOr(b[2], -1000)*10 + digitOr(b[3], -10000)
}

// parseDelimitedDate is pandas' _parse_delimited_date (dayfirst=False).
func parseDelimitedDate(str string) (Timestamp, bool, error) {
	b := []byte(str)
	var month, day, year int
	day = 1
	canSwap := false
	switch {
	case len(b) == 10 && isDelimiter(b[2]) && isDelimiter(b[5]):
		month, day, year, canSwap = parse2(b), parse2(b[3:]), parse4(b[6:]), true
	case len(b) == 9 && isDelimiter(b[1]) && isDelimiter(b[4]):
		month, day, year, canSwap = parse1(b), parse2(b[2:]), parse4(b[5:]), true
	case len(b) == 9 && isDelimiter(b[2]) && isDelimiter(b[4]):
		month, day, year, canSwap = parse2(b), parse1(b[3:]), parse4(b[5:]), true
	case len(b) == 8 && isDelimiter(b[1]) && isDelimiter(b[3]):
		month, day, year, canSwap = parse1(b), parse1(b[2:]), parse4(b[4:]), true
	case len(b) == 7 && isDelimiter(b[2]):
		if b[2] == '.' {
			return Timestamp{}, false, nil
		}
		month, year = parse2(b), parse4(b[3:])
	default:
		return Timestamp{}, false, nil
	}
	if month < 0 || day < 0 || year < 1000 {
		return Timestamp{}, false, nil
	}
	if 1 <= month && month <= 31 && 1 <= day && day <= 31 && (month <= 12 || day <= 12) {
		if month > 12 && canSwap {
			day, month = month, day
		}
		if err := dateutil.CheckDate(year, month, day); err != nil {
			return Timestamp{}, false, err
		}
		return tsFromCivil(year, month, day, 0, 0, 0, 0), true, nil
	}
	return Timestamp{}, false, dateParseError(fmt.Sprintf("Invalid date specified (%d/%d)", month, day))
}

var monthAbbrs = []string{"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"}

// parseDateAbbr is pandas' _parse_dateabbr_string with default 0001-01-01
// and no frequency: a year alone, quarters (2Q2005, 2005Q1, ...), then the
// strptime formats %Y-%m, %b %Y and %b-%Y.
func parseDateAbbr(s string) (Timestamp, bool, error) {
	u := strings.ToUpper(s)
	n := len([]rune(u))
	if n == 4 {
		if y, err := pyval.ParseInt(u); err == nil && y.IsInt64() && y.Int64() >= 1 && y.Int64() <= 9999 {
			return tsFromCivil(int(y.Int64()), 1, 1, 0, 0, 0, 0), true, nil
		}
	}
	if n >= 4 && n <= 7 {
		ts, ok, err := parseQuarter(u)
		if err != nil || ok {
			return ts, ok, err
		}
	}
	if ts, ok := strptimeMonth(u); ok {
		return ts, true, nil
	}
	return Timestamp{}, false, nil
}

func parseQuarter(u string) (Timestamp, bool, error) {
	r := []rune(u)
	n := len(r)
	i := -1
	for k := 1; k < 6 && k < n; k++ {
		if r[k] == 'Q' {
			i = k
			break
		}
	}
	if i < 0 {
		return Timestamp{}, false, nil
	}
	b := []byte(u)
	atoi := func(s string) (int, bool) {
		v, err := pyval.ParseInt(s)
		if err != nil || !v.IsInt64() {
			return 0, false
		}
		return int(v.Int64()), true
	}
	quarter, year := -1, -1
	switch {
	case i == 1:
		quarter = parse1(b)
		switch {
		case n == 4 || (n == 5 && r[i+1] == '-'):
			y, ok := atoi(string(r[n-2:]))
			if !ok {
				return Timestamp{}, false, nil
			}
			year = 2000 + y
		case n == 6 || (n == 7 && r[i+1] == '-'):
			y, ok := atoi(string(r[n-4:]))
			if !ok {
				return Timestamp{}, false, nil
			}
			year = y
		default:
			return Timestamp{}, false, nil
		}
	case i == 2 || i == 3:
		if n == 4 || (n == 5 && r[i-1] == '-') {
			quarter = digitOr(b[len(b)-1], -1)
			y, ok := atoi(string(r[:2]))
			if !ok {
				return Timestamp{}, false, nil
			}
			year = 2000 + y
		} else {
			return Timestamp{}, false, nil
		}
	case i == 4 || i == 5:
		if n == 6 || (n == 7 && r[i-1] == '-') {
			quarter = digitOr(b[len(b)-1], -1)
			y, ok := atoi(string(r[:4]))
			if !ok {
				return Timestamp{}, false, nil
			}
			year = y
		} else {
			return Timestamp{}, false, nil
		}
	}
	if quarter < 1 || quarter > 4 {
		return Timestamp{}, false, dateParseError("Incorrect quarterly string is given, quarter must be between 1 and 4: " + u)
	}
	month := (quarter-1)*3 + 1
	if err := dateutil.CheckDate(year, month, 1); err != nil {
		return Timestamp{}, false, nil // ValueError from replace: caught, fall through
	}
	return tsFromCivil(year, month, 1, 0, 0, 0, 0), true, nil
}

// strptimeMonth tries datetime.strptime with "%Y-%m", "%b %Y" and "%b-%Y".
func strptimeMonth(u string) (Timestamp, bool) {
	// %Y-%m
	if len(u) >= 6 && len(u) <= 7 && u[4] == '-' && allDigits(u[:4]) {
		if m, ok := strptimeM(u[5:]); ok {
			if y := atoiDigits(u[:4]); y >= 1 {
				return tsFromCivil(y, m, 1, 0, 0, 0, 0), true
			}
		}
	}
	for _, sep := range []string{" ", "-"} {
		for mi, abbr := range monthAbbrs {
			rest, ok := strings.CutPrefix(u, abbr)
			if !ok {
				continue
			}
			if sep == " " {
				// A space in the format matches one or more white space characters.
				t := strings.TrimLeft(rest, " \t\n\r\f\v")
				if t == rest {
					continue
				}
				rest = t
			} else if rest, ok = strings.CutPrefix(rest, "-"); !ok {
				continue
			}
			if len(rest) == 4 && allDigits(rest) {
				if y := atoiDigits(rest); y >= 1 {
					return tsFromCivil(y, mi+1, 1, 0, 0, 0, 0), true
				}
			}
		}
	}
	return Timestamp{}, false
}

// strptimeM is %m: 1[0-2]|0[1-9]|[1-9], the whole rest.
func strptimeM(s string) (int, bool) {
	switch {
	case len(s) == 2 && s[0] == '1' && s[1] >= '0' && s[1] <= '2':
		return 10 + int(s[1]-'0'), true
	case len(s) == 2 && s[0] == '0' && s[1] >= '1' && s[1] <= '9':
		return int(s[1] - '0'), true
	case len(s) == 1 && s[0] >= '1' && s[0] <= '9':
		return int(s[0] - '0'), true
	}
	return 0, false
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !cIsDigit(s[i]) {
			return false
		}
	}
	return true
}

func atoiDigits(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}
