package pandas

import (
	"fmt"
	"testing"
	"time"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/pycompat"
	"github.com/gymkit/gymkit/pycompat/pyval"
)

// format renders a Timestamp for comparison: wall clock, nanoseconds and,
// when tz-aware, the offset.
func format(ts Timestamp) string {
	if ts.nat {
		return "NaT"
	}
	s := time.Unix(ts.sec, ts.nsec).UTC().Format("2006-01-02 15:04:05.000000000")
	if ts.aware {
		s += fmt.Sprintf(" %+d", ts.off)
	}
	return s
}

func TestTimestampAccepted(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{"2023-12-05", "2023-12-05 00:00:00.000000000"},
		{"2023-12-05 10:00", "2023-12-05 10:00:00.000000000"},
		{"2023-12-05T10:00", "2023-12-05 10:00:00.000000000"},
		{"2023-12-05 10", "2023-12-05 10:00:00.000000000"},
		{"2023-12-05 10:00:00", "2023-12-05 10:00:00.000000000"},
		{"2023-12-05T10:00:00", "2023-12-05 10:00:00.000000000"},
		{"2023-12-05 10:00:00.5", "2023-12-05 10:00:00.500000000"},
		{"2023-12-05 10:00:00.123456789123", "2023-12-05 10:00:00.123456789"},
		{"20231205", "2023-12-05 00:00:00.000000000"},
		{"20231205T1000", "2023-12-05 10:00:00.000000000"},
		{"2023/12/05", "2023-12-05 00:00:00.000000000"},
		{"2023/12/05 10:00", "2023-12-05 10:00:00.000000000"},
		{"12/05/2023", "2023-12-05 00:00:00.000000000"},
		{"13/05/2023", "2023-05-13 00:00:00.000000000"},
		{"05.12.2023", "2023-05-12 00:00:00.000000000"},
		{"Dec 5, 2023", "2023-12-05 00:00:00.000000000"},
		{"5 December 2023", "2023-12-05 00:00:00.000000000"},
		{"Dec 2023 5", "2023-12-05 00:00:00.000000000"},
		{"December 2023", "2023-12-01 00:00:00.000000000"},
		{"Dec 2023", "2023-12-01 00:00:00.000000000"},
		{"2023-12", "2023-12-01 00:00:00.000000000"},
		{"2023", "2023-01-01 00:00:00.000000000"},
		{"2023-2-5", "2023-02-05 00:00:00.000000000"},
		{"2023-12-5 9:00", "2023-12-05 09:00:00.000000000"},
		{" 2023-12-05 ", "2023-12-05 00:00:00.000000000"},
		{"2023-12-05 10:00:00 PM", "2023-12-05 22:00:00.000000000"},
		{"2023-12-05 10:00 pm", "2023-12-05 22:00:00.000000000"},
		{"2023-12-05 10am", "2023-12-05 10:00:00.000000000"},
		{"2023-12-05 10:00:00 EST", "2023-12-05 10:00:00.000000000"},
		{"10am", "0001-01-01 10:00:00.000000000"},
		{"2023-12-21T00:00:00Z", "2023-12-21 00:00:00.000000000 +0"},
		{"2023-12-05 10:00:00+01:00", "2023-12-05 10:00:00.000000000 +3600"},
		{"2023-12-05T10:00-0530", "2023-12-05 10:00:00.000000000 -19800"},
		{"2023-12-05 10:00:00 UTC", "2023-12-05 10:00:00.000000000 +0"},
		{"2023Q2", "2023-04-01 00:00:00.000000000"},
		{"Tuesday 2023-12-05", "2023-12-05 00:00:00.000000000"},
		{"NaT", "NaT"},
		{"nan", "NaT"},
	}
	for _, c := range cases {
		ts, err := parseTimestampString(c.in, time.Now)
		if err != nil {
			t.Errorf("Timestamp(%q): %v, want %s", c.in, err, c.want)
			continue
		}
		if got := format(ts); got != c.want {
			t.Errorf("Timestamp(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestTimestampWallClock(t *testing.T) {
	t.Parallel()
	before := time.Now()
	ts, err := parseTimestampString("10:00", time.Now)
	after := time.Now()
	if err != nil {
		t.Fatal(err)
	}
	got := format(ts)
	if got != before.Format("2006-01-02")+" 10:00:00.000000000" && got != after.Format("2006-01-02")+" 10:00:00.000000000" {
		t.Errorf("Timestamp(10:00) = %s, want today at 10:00", got)
	}
	for _, s := range []string{"now", "today"} {
		ts, err := parseTimestampString(s, time.Now)
		if err != nil || ts.aware {
			t.Fatalf("Timestamp(%s): %v", s, err)
		}
		w := time.Unix(ts.sec, ts.nsec).UTC()
		lo := time.Date(before.Year(), before.Month(), before.Day(), before.Hour(), before.Minute(), before.Second(), 0, time.UTC)
		if w.Before(lo) || w.Sub(lo) > time.Minute {
			t.Errorf("Timestamp(%s) = %s, want the local wall clock near %s", s, w, before)
		}
	}
}

func TestTimestampRejected(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in        framework.Value
		want      string
		typeError bool
	}{
		{framework.StringValue("abc"), "Unknown datetime string format, unable to parse: abc", false},
		{framework.StringValue("tomorrow"), "Unknown datetime string format, unable to parse: tomorrow", false},
		{framework.StringValue("yesterday"), "Unknown datetime string format, unable to parse: yesterday", false},
		{framework.StringValue("noon"), "Unknown datetime string format, unable to parse: noon", false},
		{framework.StringValue("not a date"), "Unknown datetime string format, unable to parse: not a date", false},
		{framework.StringValue("Tuesday"), "Unable to parse datetime string: Tuesday", false},
		{framework.StringValue("2023-02-30"), "day is out of range for month: 2023-02-30", false},
		{framework.StringValue("2023-12-05 25:00"), "hour must be in 0..23: 2023-12-05 25:00", false},
		{framework.StringValue("2023-13-01"), "month must be in 1..12: 2023-13-01", false},
		{framework.StringValue("0"), "day is out of range for month: 0", false},
		{framework.StringValue("5"), `Given date string "5" not likely a datetime`, false},
		{framework.StringValue("13/13/2023"), "Invalid date specified (13/13)", false},
		{framework.StringValue("2023Q5"), "Incorrect quarterly string is given, quarter must be between 1 and 4: 2023Q5", false},
		{framework.StringValue("10:00 xyz"), "Unknown string format: 10:00 xyz", false},
		{framework.BoolValue(true), "Cannot convert input [True] of type <class 'bool'> to Timestamp", true},
		{framework.ArrayValue(framework.NumberValue("1")), "Cannot convert input [[1]] of type <class 'list'> to Timestamp", true},
	}
	for _, c := range cases {
		_, err := toTimestamp(c.in, time.Now)
		if err == nil {
			t.Errorf("Timestamp(%s) parsed, want %q", pyval.Repr(c.in), c.want)
			continue
		}
		if err.Error() != c.want || pycompat.IsInstance(err, "ValueError") == c.typeError {
			t.Errorf("Timestamp(%s): %v (ValueError %v), want %q (ValueError %v)", pyval.Repr(c.in), err, pycompat.IsInstance(err, "ValueError"), c.want, !c.typeError)
		}
	}
}

func TestTimestampFromNumbers(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		lit, want string
	}{
		{"5", "1970-01-01 00:00:00.000000005"},
		{"1701770400000000000", "2023-12-05 10:00:00.000000000"},
		{"1.9", "1970-01-01 00:00:00.000000001"},
		{"-1", "1969-12-31 23:59:59.999999999"},
	} {
		ts, err := toTimestamp(framework.NumberValue(c.lit), time.Now)
		if err != nil || format(ts) != c.want {
			t.Errorf("Timestamp(%s) = %s, %v; want %s", c.lit, format(ts), err, c.want)
		}
	}
}

func TestTimestampComparisons(t *testing.T) {
	t.Parallel()
	naive, _ := parseTimestampString("2023-12-05 10:00:00", time.Now)
	aware, _ := parseTimestampString("2023-12-05T10:00:00Z", time.Now)
	plus1, _ := parseTimestampString("2023-12-05T11:00:00+01:00", time.Now)
	if _, err := naive.Compare(">=", aware); err == nil || err.Error() != "Cannot compare tz-naive and tz-aware timestamps" {
		t.Errorf("naive >= aware: %v", err)
	}
	if ge, err := aware.Compare(">=", plus1); err != nil || !ge {
		t.Errorf("10:00Z >= 11:00+01:00: %v %v", ge, err)
	}
	nat, _ := parseTimestampString("NaT", time.Now)
	if ge, err := nat.Compare(">=", aware); err != nil || ge {
		t.Errorf("NaT >= x: %v %v", ge, err)
	}
}

func TestTimestampAPI(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   any
		want string
	}{
		{"2023-12-05 10:00:00.5", "2023-12-05 10:00:00.500000"},
		{"2023-12-05T10:00:00.123456789+01:00", "2023-12-05 10:00:00.123456789+01:00"},
		{"2023-12-05", "2023-12-05 00:00:00"},
		{nil, "NaT"},
		{"NaT", "NaT"},
		{1701770400000000000, "2023-12-05 10:00:00"},
		{1.5, "1970-01-01 00:00:00.000000001"},
	} {
		ts, err := ToTimestamp(c.in)
		if err != nil || ts.String() != c.want {
			t.Errorf("Timestamp(%v) = %s, %v; want %s", c.in, ts, err, c.want)
		}
	}
	if _, err := ToTimestamp(true); err == nil || err.Error() != "Cannot convert input [True] of type <class 'bool'> to Timestamp" {
		t.Errorf("Timestamp(True): %v", err)
	}
	a, _ := ParseTimestamp("2023-12-05T10:00:00Z")
	b, _ := ParseTimestamp("2023-12-05T11:00:00+01:00")
	if eq, err := a.Compare("==", b); err != nil || !eq || !a.Aware() || a.IsNaT() {
		t.Errorf("10:00Z == 11:00+01:00: %v %v", eq, err)
	}
	if ne, _ := NaT.Compare("!=", NaT); !ne {
		t.Error("NaT != NaT is True")
	}
	if _, err := a.Compare("<>", b); err == nil {
		t.Error("an unknown operator")
	}
	if got := b.Time().Format(time.RFC3339); got != "2023-12-05T11:00:00+01:00" {
		t.Errorf("Time() = %s", got)
	}
	if d1, ok := a.Day(); !ok || d1 != 19696 {
		t.Errorf("Day() = %d, %v", d1, ok)
	}
}

// FuzzParseTimestamp: every string is a Timestamp, NaT, or refused with
// one of pandas' ValueErrors (or OverflowError); never a panic.
func FuzzParseTimestamp(f *testing.F) {
	for _, s := range []string{"2023-12-05", "2023-12-05T10:00-0530", "12/05/2023", "13/05/2023", "2023Q2", "Dec 2023",
		"10:00", "Tuesday 2023-12-05", "not a date", "5", "0", "2023-02-30", "20231205T1000", " 2023-12-05 ", "NaT"} {
		f.Add(s)
	}
	now := func() time.Time { return time.Date(2026, 6, 15, 12, 0, 0, 0, time.UTC) }
	f.Fuzz(func(t *testing.T, s string) {
		ts, err := parseTimestampString(s, now)
		if err != nil {
			if !pycompat.IsInstance(err, "ValueError") && !pycompat.IsInstance(err, "OverflowError") {
				t.Fatalf("%q: %T %v", s, err, err)
			}
			return
		}
		_ = ts.String()
	})
}
