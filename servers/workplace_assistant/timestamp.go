package workplace

import (
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

// pd.Timestamp(value), as pandas 2.2 builds it (spec section 3.4): the ISO
// 8601 fast path of np_datetime_strings.c, then pandas' parse_datetime_string
// (its "looks like a datetime" test, bare times, MM/DD/YYYY forms, quarters
// and month abbreviations), then dateutil's parser, with the error texts of
// each step.

// timestamp is a parsed pd.Timestamp: NaT, or a wall-clock time with an
// optional fixed UTC offset (tz-aware).
type timestamp struct {
	nat   bool
	aware bool
	off   int64 // seconds east of UTC, when aware
	sec   int64 // wall-clock seconds since 1970-01-01 00:00:00 (proleptic Gregorian)
	nsec  int64 // 0..999999999
}

// nowFunc is the wall clock for "now", "today" and bare times.
var nowFunc = time.Now

func tsFromCivil(y, mo, d, h, mi, s int, nsec int64) timestamp {
	t := time.Date(y, time.Month(mo), d, h, mi, s, 0, time.UTC)
	return timestamp{sec: t.Unix(), nsec: nsec}
}

func tsFromTime(t time.Time) timestamp {
	wall := time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, time.UTC)
	return timestamp{sec: wall.Unix(), nsec: int64(t.Nanosecond())}
}

// instant returns the comparable (seconds, nanoseconds).
func (t timestamp) instant() (int64, int64) {
	if t.aware {
		return t.sec - t.off, t.nsec
	}
	return t.sec, t.nsec
}

// cmpTS compares a and b. ok is false if either is NaT (every comparison is
// then False); comparing a naive and an aware timestamp raises TypeError.
func cmpTS(a, b timestamp) (int, bool, error) {
	if a.nat || b.nat {
		return 0, false, nil
	}
	if a.aware != b.aware {
		return 0, false, pycompat.TypeError("Cannot compare tz-naive and tz-aware timestamps")
	}
	as, an := a.instant()
	bs, bn := b.instant()
	switch {
	case as < bs || (as == bs && an < bn):
		return -1, true, nil
	case as == bs && an == bn:
		return 0, true, nil
	}
	return 1, true, nil
}

// tsGE and tsLE are a >= b and a <= b.
func tsGE(a, b timestamp) (bool, error) {
	c, ok, err := cmpTS(a, b)
	return ok && c >= 0, err
}

func tsLE(a, b timestamp) (bool, error) {
	c, ok, err := cmpTS(a, b)
	return ok && c <= 0, err
}

// date returns the wall-clock date as a comparable day number (Timestamp.date()).
// ok is false for NaT.
func (t timestamp) date() (int64, bool) {
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

// parseTimestamp is pd.Timestamp(v) for a JSON value.
func parseTimestamp(v value) (timestamp, error) {
	switch v.Kind {
	case framework.KindNull:
		return timestamp{nat: true}, nil
	case framework.KindString:
		return parseTimestampString(v.Str)
	case framework.KindNumber:
		if v.IsFloat() {
			f, _ := v.Float()
			if math.IsNaN(f) {
				return timestamp{nat: true}, nil
			}
			if math.IsInf(f, 0) || math.Abs(f) >= 9.3e18 {
				return timestamp{}, pycompat.OverflowError("cannot convert float infinity to integer")
			}
			return tsFromNanos(int64(f)), nil
		}
		n, ok := v.Int()
		if !ok {
			b, _ := v.BigInt()
			return timestamp{}, pycompat.ValueError(fmt.Sprintf("Out of bounds nanosecond timestamp: %s", b.String()))
		}
		if n == math.MinInt64 { // NPY_NAT
			return timestamp{nat: true}, nil
		}
		return tsFromNanos(n), nil
	}
	return timestamp{}, pycompat.TypeError("Cannot convert input [" + pyval.Str(v) + "] of type <class '" + pyval.TypeName(v) + "'> to Timestamp")
}

func tsFromNanos(n int64) timestamp {
	sec := floorDiv(n, 1e9)
	return timestamp{sec: sec, nsec: n - sec*1e9}
}

var natStrings = map[string]bool{"NaT": true, "nat": true, "NAT": true, "nan": true, "NaN": true, "NAN": true}

// parseTimestampString is convert_str_to_tsobject.
func parseTimestampString(s string) (timestamp, error) {
	if s == "" || natStrings[s] {
		return timestamp{nat: true}, nil
	}
	switch s {
	case "now", "today":
		return tsFromTime(nowFunc()), nil
	}
	if ts, ok := parseISO8601(s); ok {
		return ts, nil
	}
	return parseDatetimeString(s)
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
func parseISO8601(s string) (timestamp, bool) {
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
		return timestamp{}, false
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
	finish := func() (timestamp, bool) {
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
			return timestamp{}, false
		}
		i++
		if i >= len(s) || !cIsDigit(s[i]) {
			return timestamp{}, false
		}
	}
	// month
	month = int(s[i] - '0')
	i++
	if cIsDigit(at(i)) {
		month = month*10 + int(s[i]-'0')
		i++
	} else if sep == 0 {
		return timestamp{}, false
	}
	if month < 1 || month > 12 {
		return timestamp{}, false
	}
	if i >= len(s) {
		if sep == 0 {
			return timestamp{}, false
		}
		return finish()
	}
	if sep != 0 {
		if s[i] != sep || len(s)-i == 1 {
			return timestamp{}, false
		}
		i++
	}
	// day
	if !cIsDigit(at(i)) {
		return timestamp{}, false
	}
	day = int(s[i] - '0')
	i++
	if cIsDigit(at(i)) {
		day = day*10 + int(s[i]-'0')
		i++
	} else if sep == 0 {
		return timestamp{}, false
	}
	if day < 1 || day > daysPerMonth[leap][month-1] {
		return timestamp{}, false
	}
	if i >= len(s) {
		return finish()
	}
	if (s[i] != 'T' && s[i] != ' ') || len(s)-i == 1 {
		return timestamp{}, false
	}
	i++
	// hours
	if !cIsDigit(at(i)) {
		return timestamp{}, false
	}
	hour = int(s[i] - '0')
	i++
	hour2 := false
	if cIsDigit(at(i)) {
		hour2 = true
		hour = hour*10 + int(s[i]-'0')
		i++
		if hour >= 24 {
			return timestamp{}, false
		}
	}
	if i >= len(s) {
		if !hour2 {
			return timestamp{}, false
		}
		return finish()
	}
	hmsSep := false
	if s[i] == ':' {
		hmsSep = true
		i++
		if i >= len(s) || !cIsDigit(s[i]) {
			return timestamp{}, false
		}
	} else if !cIsDigit(s[i]) {
		if !hour2 {
			return timestamp{}, false
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
			return timestamp{}, false
		}
	} else if !hmsSep {
		return timestamp{}, false
	}
	if i >= len(s) {
		return finish()
	}
	switch {
	case hmsSep && s[i] == ':':
		i++
		if i >= len(s) || !cIsDigit(s[i]) {
			return timestamp{}, false
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
			return timestamp{}, false
		}
	} else if !hmsSep {
		return timestamp{}, false
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
func isoTimezone(s string, i int, finish func() (timestamp, bool)) (timestamp, bool) {
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
				return timestamp{}, false
			}
		case len(s)-i >= 1 && cIsDigit(s[i]):
			oh = int(s[i] - '0')
			i++
		default:
			return timestamp{}, false
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
					return timestamp{}, false
				}
			case len(s)-i >= 1 && cIsDigit(s[i]):
				om = int(s[i] - '0')
				i++
			default:
				return timestamp{}, false
			}
		}
		off := int64(oh*3600 + om*60)
		if neg {
			off = -off
		}
		ts.aware, ts.off = true, off
	default:
		return timestamp{}, false
	}
	for i < len(s) && cIsSpace(s[i]) {
		i++
	}
	if i != len(s) {
		return timestamp{}, false
	}
	return ts, true
}

// --- parse_datetime_string ---

func dateParseError(msg string) error { return &pycompat.Exception{Class: "DateParseError", Msg: msg} }

// tsFromDateTime is the timestamp of a datetime; an offset of a day or
// more is refused.
func tsFromDateTime(dt dateutil.DateTime) (timestamp, error) {
	ts := tsFromTime(dt.Time)
	if dt.Aware {
		_, off := dt.Time.Zone()
		if off <= -86400 || off >= 86400 {
			return timestamp{}, pycompat.ValueError(fmt.Sprintf("Offset must be strictly between -timedelta(hours=24) and timedelta(hours=24), got %d", off))
		}
		ts.aware, ts.off = true, int64(off)
	}
	return ts, nil
}

// dateutilParse is pandas' dateutil_parse with the default 0001-01-01
// (pandas/_libs/tslibs/parsing.pyx): dateutil's parser._parse, then the
// fields over the default, with pandas' error texts.
func dateutilParse(s string) (timestamp, error) {
	f, ok := dateutil.ParseFields(s, nowFunc)
	if !ok {
		return timestamp{}, dateParseError("Unknown datetime string format, unable to parse: " + s)
	}
	if !f.HasDateOrTime() {
		return timestamp{}, dateParseError("Unable to parse datetime string: " + s)
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
		return timestamp{}, &pycompat.Exception{Class: "OutOfBoundsDatetime", Msg: `Parsing "` + s + `" to datetime overflows`}
	}
	if err := dateutil.CheckDateTime(year, month, day, hour, minute, sec, us); err != nil {
		return timestamp{}, dateParseError(err.Error() + ": " + s)
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, us*1000, time.UTC)
	if f.Weekday.Valid && !f.Day.Valid {
		// relativedelta(weekday=...): the next such day on or after.
		cur := (int(t.Weekday()) + 6) % 7 // Monday = 0
		t = t.AddDate(0, 0, (f.Weekday.Value-cur+7)%7)
	}
	return tsFromDateTime(dateutil.Aware(t, f))
}

func parseDatetimeString(s string) (timestamp, error) {
	if !looksLikeDatetime(s) {
		return timestamp{}, pycompat.ValueError(`Given date string "` + s + `" not likely a datetime`)
	}
	if timePat(s) {
		// dateutil.parser.parse with today's midnight as the default.
		dt, err := dateutil.Parse(s, dateutil.Options{Now: nowFunc})
		if pycompat.IsInstance(err, "OverflowError") {
			// As the path below answers it (pandas' text).
			return timestamp{}, &pycompat.Exception{Class: "OutOfBoundsDatetime", Msg: `Parsing "` + s + `" to datetime overflows`}
		}
		if err != nil {
			return timestamp{}, err
		}
		return tsFromDateTime(dt)
	}
	if ts, ok, err := parseDelimitedDate(s); err != nil || ok {
		return ts, err
	}
	if ts, ok, err := parseDateAbbr(s); err != nil || ok {
		return ts, err
	}
	return dateutilParse(s)
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
func parseDelimitedDate(str string) (timestamp, bool, error) {
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
			return timestamp{}, false, nil
		}
		month, year = parse2(b), parse4(b[3:])
	default:
		return timestamp{}, false, nil
	}
	if month < 0 || day < 0 || year < 1000 {
		return timestamp{}, false, nil
	}
	if 1 <= month && month <= 31 && 1 <= day && day <= 31 && (month <= 12 || day <= 12) {
		if month > 12 && canSwap {
			day, month = month, day
		}
		if err := dateutil.CheckDate(year, month, day); err != nil {
			return timestamp{}, false, err
		}
		return tsFromCivil(year, month, day, 0, 0, 0, 0), true, nil
	}
	return timestamp{}, false, dateParseError(fmt.Sprintf("Invalid date specified (%d/%d)", month, day))
}

var monthAbbrs = []string{"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"}

// parseDateAbbr is pandas' _parse_dateabbr_string with default 0001-01-01
// and no frequency: a year alone, quarters (2Q2005, 2005Q1, ...), then the
// strptime formats %Y-%m, %b %Y and %b-%Y.
func parseDateAbbr(s string) (timestamp, bool, error) {
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
	return timestamp{}, false, nil
}

func parseQuarter(u string) (timestamp, bool, error) {
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
		return timestamp{}, false, nil
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
				return timestamp{}, false, nil
			}
			year = 2000 + y
		case n == 6 || (n == 7 && r[i+1] == '-'):
			y, ok := atoi(string(r[n-4:]))
			if !ok {
				return timestamp{}, false, nil
			}
			year = y
		default:
			return timestamp{}, false, nil
		}
	case i == 2 || i == 3:
		if n == 4 || (n == 5 && r[i-1] == '-') {
			quarter = digitOr(b[len(b)-1], -1)
			y, ok := atoi(string(r[:2]))
			if !ok {
				return timestamp{}, false, nil
			}
			year = 2000 + y
		} else {
			return timestamp{}, false, nil
		}
	case i == 4 || i == 5:
		if n == 6 || (n == 7 && r[i-1] == '-') {
			quarter = digitOr(b[len(b)-1], -1)
			y, ok := atoi(string(r[:4]))
			if !ok {
				return timestamp{}, false, nil
			}
			year = y
		} else {
			return timestamp{}, false, nil
		}
	}
	if quarter < 1 || quarter > 4 {
		return timestamp{}, false, dateParseError("Incorrect quarterly string is given, quarter must be between 1 and 4: " + u)
	}
	month := (quarter-1)*3 + 1
	if err := dateutil.CheckDate(year, month, 1); err != nil {
		return timestamp{}, false, nil // ValueError from replace: caught, fall through
	}
	return tsFromCivil(year, month, 1, 0, 0, 0, 0), true, nil
}

// strptimeMonth tries datetime.strptime with "%Y-%m", "%b %Y" and "%b-%Y".
func strptimeMonth(u string) (timestamp, bool) {
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
	return timestamp{}, false
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
