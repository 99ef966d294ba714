// Package dateutil is dateutil 2.9's date parser (dateutil.parser.parse) for
// Go: the same strings read as the same datetimes, the same ones refused
// with the same texts.
//
//	def := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
//	dt, err := dateutil.Parse("5:50 A.M. on June 13, 1990", dateutil.Options{Default: def})
//	// dt.String() == "1990-06-13 05:50:00"; dt.Aware == false
//	_, err = dateutil.Parse("2023-02-30", dateutil.Options{})
//	// err.Error() == "day is out of range for month: 2023-02-30" (a ParserError, a ValueError)
//
// The tokenizer, the parser info (month and weekday names, "am"/"pm", jump
// words such as "of" and "at", time zone names), the year/month/day
// resolution and the numeric token rules are a port of
// dateutil/parser/_parser.py with dayfirst and yearfirst false and fuzzy
// false. Parse builds the datetime as parser.parse does; ParseFields returns
// what parser._parse found, for callers that build their own (pandas'
// dateutil_parse: pycompat/pandas).
//
// The clock (Options.Now) is read for the default date and for two-digit
// years, as dateutil reads the wall clock; time zones are resolved as on a
// host whose local zone is UTC: "UTC", "GMT", "Z" and numeric offsets give
// an aware datetime, other names ("EST") are ignored, where dateutil makes a
// name equal to one of the host's time.tzname local. tzinfos, ignoretz,
// dayfirst, yearfirst and fuzzy are not here.
//
// Every function is safe for concurrent use.
package dateutil
