package dateutil

import (
	"fmt"
	"time"

	"github.com/gymkit/gymkit/pycompat"
)

// Options are the arguments of Parse beside the string. The zero Options is
// dateutil.parser.parse's defaults on the wall clock.
type Options struct {
	// Default is the datetime whose fields fill those the string lacks
	// (parse's default=): its year, month, day, hour, minute, second and
	// microsecond, read in its own location. The zero Time means today at
	// midnight by Now, as dateutil's default.
	Default time.Time
	// Now is the clock, read for the zero Default and for two-digit years
	// (within 50 years of Now's year, as parserinfo.convertyear); nil is
	// time.Now. Tests set it.
	Now func() time.Time
}

func (o Options) now() func() time.Time {
	if o.Now == nil {
		return time.Now
	}
	return o.Now
}

// DateTime is a Python datetime.datetime: naive (Aware false: Time is the
// wall clock, in time.UTC) or aware with a fixed UTC offset (Time in a
// time.FixedZone; UTC for "Z", "UTC" and "GMT").
type DateTime struct {
	// Time is the wall clock, with microseconds (nanoseconds for pandas'
	// timestamps built on it).
	Time time.Time
	// Aware is true when the datetime has a tzinfo (a UTC offset).
	Aware bool
}

// String returns str(dt): "2023-12-05 10:00:00", ".500000" with
// microseconds, "+01:00" when aware, as Python writes a datetime.
func (dt DateTime) String() string {
	s := dt.Time.Format("2006-01-02 15:04:05")
	if us := dt.Time.Nanosecond() / 1000; us != 0 {
		s += fmt.Sprintf(".%06d", us)
	}
	if dt.Aware {
		s += dt.Time.Format("-07:00")
	}
	return s
}

// OptInt is an int that may be None: Valid is false for None.
type OptInt struct {
	// Value is the int; 0 when Valid is false.
	Value int
	// Valid is false for None.
	Valid bool
}

// Fields are what dateutil's parser._parse finds in a string, each field
// None (Valid false) when the string does not give it: the calendar and
// clock fields (two-digit years already in the Now's century window),
// Weekday (0 is Monday), AMPM (0 am, 1 pm), the time zone name as written
// (HasTZName) and TZOffset (seconds east of UTC).
type Fields struct {
	// Year, Month, Day, Hour, Minute, Second and Microsecond are the
	// calendar and clock fields found (a two-digit year already moved into
	// the clock's century window).
	Year, Month, Day, Hour, Minute, Second, Microsecond OptInt
	// Weekday is the day of the week named (0 is Monday); AMPM is 0 for am,
	// 1 for pm when given as a word of its own.
	Weekday, AMPM OptInt
	// TZName is the time zone name as written ("UTC", "EST").
	TZName string
	// HasTZName is false when no name was found (Python's None).
	HasTZName bool
	// TZOffset is the UTC offset found, in seconds east of UTC.
	TZOffset OptInt
}

// ParseFields is dateutil's parser._parse(s) (dayfirst, yearfirst and fuzzy
// false): the fields found, and ok false where _parse returns None (a token
// it cannot place). now is the clock for two-digit years (nil is
// time.Now). It is what pandas' dateutil_parse builds its own datetime
// from; Parse builds dateutil's.
func ParseFields(s string, now func() time.Time) (f Fields, ok bool) {
	if now == nil {
		now = time.Now
	}
	res, ok := duParse(s, now)
	if !ok {
		return Fields{}, false
	}
	o := func(x optInt) OptInt { return OptInt{Value: x.v, Valid: x.ok} }
	return Fields{
		Year: o(res.year), Month: o(res.month), Day: o(res.day),
		Hour: o(res.hour), Minute: o(res.minute), Second: o(res.second), Microsecond: o(res.microsecond),
		Weekday: o(res.weekday), AMPM: o(res.ampm),
		TZName: res.tzname, HasTZName: res.hasTzname, TZOffset: o(res.tzoffset),
	}, true
}

// HasDateOrTime reports whether any of year, month, day, hour, minute,
// second and microsecond was found.
func (f Fields) HasDateOrTime() bool {
	return f.Year.Valid || f.Month.Valid || f.Day.Valid || f.Hour.Valid || f.Minute.Valid || f.Second.Valid || f.Microsecond.Valid
}

// Parse is dateutil.parser.parse(s, default=o.Default) of dateutil 2.9 on a
// host whose local time zone is UTC: the fields found replace those of the
// default (a default day past the end of the month found is clipped to it),
// a weekday without a day moves forward to that weekday, and "UTC", "GMT",
// "Z" or a numeric offset make the result aware (other zone names are
// ignored: naive). Its errors are dateutil's ParserError (a ValueError):
// "Unknown string format: s", "String does not contain a date: s", and
// datetime's own texts with ": s" ("day is out of range for month: s"). A
// year beyond 2**31-1 is datetime's OverflowError("signed integer is
// greater than maximum"), which parse lets through. An offset of a day or
// more is kept, as dateutil keeps it (datetime refuses it only when the
// offset is read).
func Parse(s string, o Options) (DateTime, error) {
	now := o.now()
	f, ok := ParseFields(s, now)
	if !ok {
		return DateTime{}, parserError("Unknown string format: " + s)
	}
	if !f.HasDateOrTime() && !f.Weekday.Valid && !f.AMPM.Valid && !f.HasTZName && !f.TZOffset.Valid {
		return DateTime{}, parserError("String does not contain a date: " + s)
	}
	def := o.Default
	if def.IsZero() {
		n := now()
		def = time.Date(n.Year(), n.Month(), n.Day(), 0, 0, 0, 0, time.UTC)
	}
	year, month, day := def.Year(), int(def.Month()), def.Day()
	if f.Year.Valid {
		year = f.Year.Value
	}
	if f.Month.Valid {
		month = f.Month.Value
	}
	if f.Day.Valid {
		day = f.Day.Value
	} else if month >= 1 && month <= 12 && year >= 1 && year <= 9999 && day > DaysIn(year, month) {
		day = DaysIn(year, month)
	}
	hour, minute, sec, us := def.Hour(), def.Minute(), def.Second(), def.Nanosecond()/1000
	if f.Hour.Valid {
		hour = f.Hour.Value
	}
	if f.Minute.Valid {
		minute = f.Minute.Value
	}
	if f.Second.Valid {
		sec = f.Second.Value
	}
	if f.Microsecond.Valid {
		us = f.Microsecond.Value
	}
	if year > 1<<31-1 {
		// datetime.replace's C int conversion, which parse lets through.
		return DateTime{}, pycompat.OverflowError("signed integer is greater than maximum")
	}
	if err := CheckDateTime(year, month, day, hour, minute, sec, us); err != nil {
		return DateTime{}, parserError(err.Error() + ": " + s)
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, us*1000, time.UTC)
	if f.Weekday.Valid && !f.Day.Valid {
		// relativedelta(weekday=...): the next such day on or after.
		cur := (int(t.Weekday()) + 6) % 7 // Monday = 0
		t = t.AddDate(0, 0, (f.Weekday.Value-cur+7)%7)
	}
	return Aware(t, f), nil
}

// Aware applies the time zone of f to the naive wall-clock time t, as
// dateutil's _build_tzaware does on a host whose local zone is UTC: UTC for
// "UTC", "GMT" or a zero offset, a fixed zone for another offset (of any
// size: see Parse), naive otherwise (a zone name it does not know, "EST",
// is ignored).
func Aware(t time.Time, f Fields) DateTime {
	switch {
	case f.HasTZName && (f.TZName == "UTC" || f.TZName == "GMT"):
		return DateTime{Time: t, Aware: true}
	case f.TZOffset.Valid && f.TZOffset.Value == 0:
		return DateTime{Time: t, Aware: true}
	case f.TZOffset.Valid:
		wall := time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.FixedZone("", f.TZOffset.Value))
		return DateTime{Time: wall, Aware: true}
	}
	return DateTime{Time: t}
}

func parserError(msg string) error { return &pycompat.Exception{Class: "ParserError", Msg: msg} }

// DaysIn returns the number of days of month (1-12) in year (proleptic
// Gregorian), as calendar.monthrange.
func DaysIn(year, month int) int {
	if month == 2 && (year%4 == 0 && (year%100 != 0 || year%400 == 0)) {
		return 29
	}
	return [12]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[month-1]
}

// CheckDate is datetime.date's argument check, with its ValueError texts in
// its order: "year 0 is out of range", "month must be in 1..12", "day is
// out of range for month".
func CheckDate(year, month, day int) error {
	if year < 1 || year > 9999 {
		return pycompat.ValueError(fmt.Sprintf("year %d is out of range", year))
	}
	if month < 1 || month > 12 {
		return pycompat.ValueError("month must be in 1..12")
	}
	if day < 1 || day > DaysIn(year, month) {
		return pycompat.ValueError("day is out of range for month")
	}
	return nil
}

// CheckDateTime is datetime.datetime's (and datetime.replace's) argument
// check, in its order: CheckDate, then "hour must be in 0..23", "minute
// must be in 0..59", "second must be in 0..59", "microsecond must be in
// 0..999999".
func CheckDateTime(year, month, day, hour, minute, sec, us int) error {
	if err := CheckDate(year, month, day); err != nil {
		return err
	}
	switch {
	case hour < 0 || hour > 23:
		return pycompat.ValueError("hour must be in 0..23")
	case minute < 0 || minute > 59:
		return pycompat.ValueError("minute must be in 0..59")
	case sec < 0 || sec > 59:
		return pycompat.ValueError("second must be in 0..59")
	case us < 0 || us > 999999:
		return pycompat.ValueError("microsecond must be in 0..999999")
	}
	return nil
}

func cIsDigit(c byte) bool { return c >= '0' && c <= '9' }
