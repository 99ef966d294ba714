package dateutil

import (
	"fmt"
	"testing"
	"time"

	"github.com/gymkit/gymkit/pycompat"
)

const noOffset = -1 << 31

// now is the clock of the tests: two-digit years fall in its century window.
func now() time.Time { return time.Date(2026, 6, 15, 12, 0, 0, 0, time.UTC) }

// TestParse: dateutil 2.9.0.post0's parser.parse(s, default=datetime(2024,
// 2, 29, 7, 8, 9, 123456)) of the same strings (its clock in 2026, a UTC
// host): the datetime, its UTC offset when aware, or the exception.
func TestParse(t *testing.T) {
	t.Parallel()
	def := time.Date(2024, 2, 29, 7, 8, 9, 123456000, time.UTC)
	for _, c := range []struct {
		in, class, want string // class "": parsed
		offset          int
	}{
		{"2023-12-05", "", "2023-12-05 07:08:09.123456", noOffset},
		{"Dec 5, 2023", "", "2023-12-05 07:08:09.123456", noOffset},
		{"5 December 2023 10am", "", "2023-12-05 10:08:09.123456", noOffset},
		{"December 2023", "", "2023-12-29 07:08:09.123456", noOffset},
		{"2023", "", "2023-02-28 07:08:09.123456", noOffset},
		{"10:00", "", "2024-02-29 10:00:09.123456", noOffset},
		{"10am", "", "2024-02-29 10:08:09.123456", noOffset},
		{"3pm EST", "", "2024-02-29 15:08:09.123456", noOffset},
		{"Tue", "", "2024-03-05 07:08:09.123456", noOffset},
		{"Tuesday 10:00", "", "2024-03-05 10:00:09.123456", noOffset},
		{"2023-12-05T10:00:00Z", "", "2023-12-05 10:00:00.000000", 0},
		{"2023-12-05 10:00:00+01:00", "", "2023-12-05 10:00:00.000000", 3600},
		{"2023-12-05 10:00 -0530", "", "2023-12-05 10:00:09.123456", -19800},
		{"2023-12-05 10:00 UTC", "", "2023-12-05 10:00:09.123456", 0},
		{"2023-12-05 10:00 GMT+3", "", "2023-12-05 10:00:09.123456", -10800},
		{"12/05/23", "", "2023-12-05 07:08:09.123456", noOffset},
		{"5.12.2023", "", "2023-05-12 07:08:09.123456", noOffset},
		{"2023-02-30", "ParserError", "day is out of range for month: 2023-02-30", noOffset},
		{"2023-12-05 25:00", "ParserError", "hour must be in 0..23: 2023-12-05 25:00", noOffset},
		{"2023-13-01", "ParserError", "month must be in 1..12: 2023-13-01", noOffset},
		{"abc", "ParserError", "Unknown string format: abc", noOffset},
		{"", "ParserError", "String does not contain a date: ", noOffset},
		{" ", "ParserError", "String does not contain a date:  ", noOffset},
		{"AM", "ParserError", "Unknown string format: AM", noOffset},
		{"10h30m", "", "2024-02-29 10:30:09.123456", noOffset},
		{"10h 30m 15s", "", "2024-02-29 10:30:15.000000", noOffset},
		{"Dec", "", "2024-12-29 07:08:09.123456", noOffset},
		{"the 3rd of May 2001", "ParserError", "Unknown string format: the 3rd of May 2001", noOffset},
		{"2001 of May", "", "2001-05-29 07:08:09.123456", noOffset},
		{"1st of Jan", "", "2024-01-01 07:08:09.123456", noOffset},
		{"Jan 1st 99", "", "1999-01-01 07:08:09.123456", noOffset},
		{"99", "", "1999-02-28 07:08:09.123456", noOffset},
		{"0099-01-01", "", "0099-01-01 07:08:09.123456", noOffset},
		{"10:00:00.5", "", "2024-02-29 10:00:00.500000", noOffset},
		{"10:00:00,25", "", "2024-02-29 10:00:00.250000", noOffset},
		{"12am", "", "2024-02-29 00:08:09.123456", noOffset},
		{"12pm", "", "2024-02-29 12:08:09.123456", noOffset},
		{"13pm", "", "2024-02-29 13:08:09.123456", noOffset},
		{"2023-12-05 10:00 +25:00", "", "2023-12-05 10:00:09.123456", 90000},
		{"Thu Sep 25 10:36:28 BRST 2003", "", "2003-09-25 10:36:28.000000", noOffset},
		{"19970902T090000", "", "1997-09-02 09:00:00.000000", noOffset},
		{"1997-09-02 09:00:00.123456789", "", "1997-09-02 09:00:00.123456", noOffset},
		{"March 5th, 2012 at 5:00 PM", "", "2012-03-05 17:00:09.123456", noOffset},
		{"٢٠٢٣-١٢-٠٥", "", "2023-12-05 07:08:09.123456", noOffset},
		{"2023‑12‑05", "ParserError", "Unknown string format: 2023‑12‑05", noOffset},
		{"5:50 A.M. on June 13, 1990", "", "1990-06-13 05:50:09.123456", noOffset},
		{"3rd", "", "2024-02-03 07:08:09.123456", noOffset},
		{"2023 Q1", "ParserError", "Unknown string format: 2023 Q1", noOffset},
		{"99999999999", "OverflowError", "signed integer is greater than maximum", noOffset},
		{"2147483648-01-01", "OverflowError", "signed integer is greater than maximum", noOffset},
		{"Monday, April 1 2024", "", "2024-04-01 07:08:09.123456", noOffset},
		{"1 2 3 4", "ParserError", "Unknown string format: 1 2 3 4", noOffset},
		{"2023/12/05 10:00:00 Z", "", "2023-12-05 10:00:00.000000", 0},
	} {
		dt, err := Parse(c.in, Options{Default: def, Now: now})
		if c.class != "" {
			if err == nil || err.Error() != c.want || !pycompat.IsInstance(err, c.class) {
				t.Errorf("parse(%q) = %v, %v; want %s(%q)", c.in, dt, err, c.class, c.want)
			}
			continue
		}
		if err != nil {
			t.Errorf("parse(%q): %v; want %s", c.in, err, c.want)
			continue
		}
		tm := dt.Time
		got := fmt.Sprintf("%04d-%02d-%02d %02d:%02d:%02d.%06d", tm.Year(), tm.Month(), tm.Day(), tm.Hour(), tm.Minute(), tm.Second(), tm.Nanosecond()/1000)
		off := noOffset
		if dt.Aware {
			_, off = tm.Zone()
		}
		if got != c.want || off != c.offset {
			t.Errorf("parse(%q) = %s (offset %d), want %s (offset %d)", c.in, got, off, c.want, c.offset)
		}
	}
}

func TestParseDefaults(t *testing.T) {
	t.Parallel()
	// The zero Default is today at midnight by Now.
	dt, err := Parse("10:30", Options{Now: now})
	if err != nil || dt.String() != "2026-06-15 10:30:00" || dt.Aware {
		t.Errorf("parse('10:30') = %v, %v", dt, err)
	}
	dt, err = Parse("Jan 1st 99 10:00:00.5 +01:00", Options{Now: now})
	if err != nil || dt.String() != "1999-01-01 10:00:00.500000+01:00" {
		t.Errorf("str = %v, %v", dt, err)
	}
	f, ok := ParseFields("Tuesday", now)
	if !ok || f.HasDateOrTime() || !f.Weekday.Valid || f.Weekday.Value != 1 {
		t.Errorf("fields of Tuesday: %+v, %v", f, ok)
	}
	// parser()._parse("10pm EST"): hour 22, ampm None (the numeric token
	// took it), tzname 'EST'.
	f, ok = ParseFields("10pm EST", now)
	if !ok || f.Hour != (OptInt{22, true}) || f.AMPM.Valid || !f.HasTZName || f.TZName != "EST" || f.TZOffset.Valid {
		t.Errorf("fields of 10pm EST: %+v, %v", f, ok)
	}
	if _, ok := ParseFields("abc", nil); ok {
		t.Error("fields of abc")
	}
}

func TestChecks(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		err  error
		want string
	}{
		{CheckDate(0, 1, 1), "year 0 is out of range"},
		{CheckDate(2023, 13, 1), "month must be in 1..12"},
		{CheckDate(2023, 2, 29), "day is out of range for month"},
		{CheckDate(2024, 2, 29), ""},
		{CheckDateTime(2024, 2, 29, 24, 0, 0, 0), "hour must be in 0..23"},
		{CheckDateTime(2024, 2, 29, 0, 60, 0, 0), "minute must be in 0..59"},
		{CheckDateTime(2024, 2, 29, 0, 0, 60, 0), "second must be in 0..59"},
		{CheckDateTime(2024, 2, 29, 0, 0, 0, 1000000), "microsecond must be in 0..999999"},
	} {
		got := ""
		if c.err != nil {
			got = c.err.Error()
		}
		if got != c.want {
			t.Errorf("%q, want %q", got, c.want)
		}
	}
	if DaysIn(1900, 2) != 28 || DaysIn(2000, 2) != 29 || DaysIn(2023, 12) != 31 {
		t.Error("DaysIn")
	}
}

// FuzzParse: every string is parsed or refused with one of dateutil's
// exceptions, and a parsed datetime is valid and agrees with ParseFields.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"2023-12-05 10:00:00+01:00", "Dec 5, 2023", "10am", "Tuesday", "the 3rd of May 2001",
		"5:50 A.M. on June 13, 1990", "٢٠٢٣-١٢-٠٥", "99999999999", "10h 30m 15s", "1997-09-02 09:00:00.123456789", "12/05/23"} {
		f.Add(s)
	}
	def := time.Date(2024, 2, 29, 7, 8, 9, 123456000, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		dt, err := Parse(s, Options{Default: def, Now: now})
		fields, ok := ParseFields(s, now)
		if err != nil {
			if !pycompat.IsInstance(err, "ValueError") && !pycompat.IsInstance(err, "OverflowError") {
				t.Fatalf("%q: %T %v", s, err, err)
			}
			return
		}
		if !ok {
			t.Fatalf("%q parsed as %v without fields", s, dt)
		}
		tm := dt.Time
		if e := CheckDateTime(tm.Year(), int(tm.Month()), tm.Day(), tm.Hour(), tm.Minute(), tm.Second(), tm.Nanosecond()/1000); e != nil {
			t.Fatalf("%q: an invalid datetime %v: %v", s, dt, e)
		}
		if fields.Year.Valid && fields.Year.Value != tm.Year() {
			t.Fatalf("%q: year %d, fields %+v", s, tm.Year(), fields)
		}
	})
}
