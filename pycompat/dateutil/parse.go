package dateutil

import (
	"fmt"
	"math/big"
	"strings"
	"time"
	"unicode"

	"github.com/gymkit/gymkit/pycompat/pystr"
	"github.com/gymkit/gymkit/pycompat/pyval"
)

// This file is a port of dateutil 2.9's dateutil/parser/_parser.py
// (_timelex, parserinfo, _ymd, parser._parse) with dayfirst and yearfirst
// false and fuzzy false; dateutil.go builds the datetime.

// timelexSplit is _timelex.split.
func timelexSplit(s string) []string {
	runes := []rune(s)
	pos := 0
	var charstack []rune
	var tokenstack []string
	eof := false
	isword := unicode.IsLetter
	isnum := pystr.IsDigitChar
	getToken := func() (string, bool) {
		if len(tokenstack) > 0 {
			t := tokenstack[0]
			tokenstack = tokenstack[1:]
			return t, true
		}
		seenletters := false
		var token []rune
		have := false
		state := byte(0)
	loop:
		for !eof {
			var c rune
			if len(charstack) > 0 {
				c, charstack = charstack[0], charstack[1:]
			} else {
				for pos < len(runes) && runes[pos] == 0 {
					pos++
				}
				if pos >= len(runes) {
					eof = true
					break
				}
				c = runes[pos]
				pos++
			}
			switch state {
			case 0:
				token, have = []rune{c}, true
				switch {
				case isword(c):
					state = 'a'
				case isnum(c):
					state = '0'
				case pystr.IsSpaceChar(c):
					token = []rune{' '}
					break loop
				default:
					break loop
				}
			case 'a':
				seenletters = true
				switch {
				case isword(c):
					token = append(token, c)
				case c == '.':
					token = append(token, c)
					state = 'A' // "a."
				default:
					charstack = append(charstack, c)
					break loop
				}
			case '0':
				switch {
				case isnum(c):
					token = append(token, c)
				case c == '.' || (c == ',' && len(token) >= 2):
					token = append(token, c)
					state = 'N' // "0."
				default:
					charstack = append(charstack, c)
					break loop
				}
			case 'A':
				seenletters = true
				switch {
				case c == '.' || isword(c):
					token = append(token, c)
				case isnum(c) && token[len(token)-1] == '.':
					token = append(token, c)
					state = 'N'
				default:
					charstack = append(charstack, c)
					break loop
				}
			case 'N':
				switch {
				case c == '.' || isnum(c):
					token = append(token, c)
				case isword(c) && token[len(token)-1] == '.':
					token = append(token, c)
					state = 'A'
				default:
					charstack = append(charstack, c)
					break loop
				}
			}
		}
		if !have {
			return "", false
		}
		tok := string(token)
		if (state == 'A' || state == 'N') && (seenletters || strings.Count(tok, ".") > 1 ||
			strings.HasSuffix(tok, ".") || strings.HasSuffix(tok, ",")) {
			parts := splitKeep(tok)
			tok = parts[0]
			for _, p := range parts[1:] {
				if p != "" {
					tokenstack = append(tokenstack, p)
				}
			}
		}
		if state == 'N' && !strings.Contains(tok, ".") {
			tok = strings.ReplaceAll(tok, ",", ".")
		}
		return tok, true
	}
	var out []string
	for {
		t, ok := getToken()
		if !ok {
			break
		}
		out = append(out, t)
	}
	return out
}

// splitKeep is re.split("([.,])", s).
func splitKeep(s string) []string {
	var out []string
	last := 0
	for i, r := range s {
		if r == '.' || r == ',' {
			out = append(out, s[last:i], string(r))
			last = i + 1
		}
	}
	return append(out, s[last:])
}

// parserinfo tables (lower-cased keys).
var (
	duJump = map[string]bool{" ": true, ".": true, ",": true, ";": true, "-": true, "/": true, "'": true,
		"at": true, "on": true, "and": true, "ad": true, "m": true, "t": true, "of": true,
		"st": true, "nd": true, "rd": true, "th": true}
	duWeekdays = map[string]int{"mon": 0, "monday": 0, "tue": 1, "tuesday": 1, "wed": 2, "wednesday": 2,
		"thu": 3, "thursday": 3, "fri": 4, "friday": 4, "sat": 5, "saturday": 5, "sun": 6, "sunday": 6}
	duMonths = map[string]int{"jan": 1, "january": 1, "feb": 2, "february": 2, "mar": 3, "march": 3,
		"apr": 4, "april": 4, "may": 5, "jun": 6, "june": 6, "jul": 7, "july": 7, "aug": 8, "august": 8,
		"sep": 9, "sept": 9, "september": 9, "oct": 10, "october": 10, "nov": 11, "november": 11,
		"dec": 12, "december": 12}
	duHMS     = map[string]int{"h": 0, "hour": 0, "hours": 0, "m": 1, "minute": 1, "minutes": 1, "s": 2, "second": 2, "seconds": 2}
	duAMPM    = map[string]int{"am": 0, "a": 0, "pm": 1, "p": 1}
	duUTCZone = map[string]bool{"utc": true, "gmt": true, "z": true}
)

func lookup[T any](m map[string]T, s string) (T, bool) {
	v, ok := m[strings.ToLower(s)]
	return v, ok
}

// optInt is an int that may be None.
type optInt struct {
	v  int
	ok bool
}

func some(v int) optInt { return optInt{v, true} }

type duResult struct {
	year, month, day, weekday, ampm   optInt
	hour, minute, second, microsecond optInt
	tzname                            string
	hasTzname                         bool
	tzoffset                          optInt
	centurySpecified                  bool
}

// ymd is dateutil's _ymd.
type ymd struct {
	vals                      []int
	centurySpecified          bool
	ystridx, mstridx, dstridx int // -1: unset
}

func newYMD() *ymd { return &ymd{ystridx: -1, mstridx: -1, dstridx: -1} }

var errDU = fmt.Errorf("dateutil: cannot parse")

// appendStr is _ymd.append for a token.
func (y *ymd) appendStr(s string, label byte) error {
	isDigits := s != ""
	for _, r := range s {
		if !pystr.IsDigitChar(r) {
			isDigits = false
		}
	}
	if isDigits && len([]rune(s)) > 2 {
		y.centurySpecified = true
		label = 'Y'
	}
	n, err := pyval.ParseInt(s)
	if err != nil || !n.IsInt64() {
		return errDU
	}
	return y.add(int(n.Int64()), label)
}

// appendNum is _ymd.append for a number (a Decimal or an int).
func (y *ymd) appendNum(v *big.Rat, label byte) error {
	if v.Cmp(big.NewRat(100, 1)) > 0 {
		y.centurySpecified = true
		label = 'Y'
	}
	n := ratTrunc(v)
	if !n.IsInt64() {
		return errDU
	}
	return y.add(int(n.Int64()), label)
}

func (y *ymd) add(v int, label byte) error {
	y.vals = append(y.vals, v)
	switch label {
	case 'M':
		if y.mstridx >= 0 {
			return errDU
		}
		y.mstridx = len(y.vals) - 1
	case 'D':
		if y.dstridx >= 0 {
			return errDU
		}
		y.dstridx = len(y.vals) - 1
	case 'Y':
		if y.ystridx >= 0 {
			return errDU
		}
		y.ystridx = len(y.vals) - 1
	}
	return nil
}

func (y *ymd) couldBeDay(v *big.Rat) bool {
	if y.dstridx >= 0 {
		return false
	}
	maxDay := 31
	if y.mstridx >= 0 {
		month := y.vals[y.mstridx]
		if month < 1 || month > 12 {
			return false
		}
		year := 2000
		if y.ystridx >= 0 {
			year = y.vals[y.ystridx]
		}
		maxDay = DaysIn(year, month)
	}
	return v.Cmp(big.NewRat(1, 1)) >= 0 && v.Cmp(big.NewRat(int64(maxDay), 1)) <= 0
}

// resolve is _ymd.resolve_ymd(yearfirst=False, dayfirst=False).
func (y *ymd) resolve() (year, month, day optInt, err error) {
	n := len(y.vals)
	strids := map[byte]int{}
	if y.ystridx >= 0 {
		strids['y'] = y.ystridx
	}
	if y.mstridx >= 0 {
		strids['m'] = y.mstridx
	}
	if y.dstridx >= 0 {
		strids['d'] = y.dstridx
	}
	if (n == len(strids) && n > 0) || (n == 3 && len(strids) == 2) {
		if n == 3 && len(strids) == 2 {
			used := map[int]bool{}
			for _, v := range strids {
				used[v] = true
			}
			for _, k := range []byte{'y', 'm', 'd'} {
				if _, ok := strids[k]; !ok {
					for x := 0; x < 3; x++ {
						if !used[x] {
							strids[k] = x
						}
					}
				}
			}
		}
		get := func(k byte) optInt {
			if i, ok := strids[k]; ok {
				return some(y.vals[i])
			}
			return optInt{}
		}
		return get('y'), get('m'), get('d'), nil
	}
	v := y.vals
	mi := y.mstridx
	switch {
	case n > 3:
		return year, month, day, errDU
	case n == 1 || (mi >= 0 && n == 2):
		var other int
		if mi >= 0 {
			month = some(v[mi])
			idx := mi - 1
			if idx < 0 {
				idx += n // Python's negative index
			}
			other = v[idx]
		} else {
			other = v[0]
		}
		if n > 1 || mi < 0 {
			if other > 31 {
				year = some(other)
			} else {
				day = some(other)
			}
		}
	case n == 2:
		switch {
		case v[0] > 31:
			year, month = some(v[0]), some(v[1])
		case v[1] > 31:
			month, year = some(v[0]), some(v[1])
		default:
			month, day = some(v[0]), some(v[1])
		}
	case n == 3:
		switch mi {
		case 0:
			if v[1] > 31 {
				month, year, day = some(v[0]), some(v[1]), some(v[2])
			} else {
				month, day, year = some(v[0]), some(v[1]), some(v[2])
			}
		case 1:
			if v[0] > 31 {
				year, month, day = some(v[0]), some(v[1]), some(v[2])
			} else {
				day, month, year = some(v[0]), some(v[1]), some(v[2])
			}
		case 2:
			if v[1] > 31 {
				day, year, month = some(v[0]), some(v[1]), some(v[2])
			} else {
				year, day, month = some(v[0]), some(v[1]), some(v[2])
			}
		default:
			switch {
			case v[0] > 31 || y.ystridx == 0:
				year, month, day = some(v[0]), some(v[1]), some(v[2])
			case v[0] > 12:
				day, month, year = some(v[0]), some(v[1]), some(v[2])
			default:
				month, day, year = some(v[0]), some(v[1]), some(v[2])
			}
		}
	}
	return year, month, day, nil
}

// parseDecimal is Decimal(s) for a numeric token; ok is false for anything
// else (and for nan/inf, which dateutil refuses).
func parseDecimal(s string) (*big.Rat, bool) {
	var b strings.Builder
	for _, r := range s {
		if d, ok := pystr.DecimalValue(r); ok {
			b.WriteByte(byte('0' + d))
		} else {
			b.WriteRune(r)
		}
	}
	t := b.String()
	if t == "" || strings.ContainsAny(t, "eE_ \t") {
		// Tokens never hold exponents or underscores; refuse them rather than
		// guess.
		return nil, false
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !(cIsDigit(c) || c == '.' || ((c == '+' || c == '-') && i == 0)) {
			return nil, false
		}
	}
	if strings.Count(t, ".") > 1 || t == "." {
		return nil, false
	}
	if strings.HasSuffix(t, ".") {
		t += "0"
	}
	if strings.HasPrefix(t, ".") {
		t = "0" + t
	}
	r, ok := new(big.Rat).SetString(t)
	return r, ok
}

func ratTrunc(v *big.Rat) *big.Int {
	return new(big.Int).Quo(v.Num(), v.Denom())
}

// ratFrac is v % 1 (Python Decimal semantics for a non-negative value).
func ratFrac(v *big.Rat) *big.Rat {
	return new(big.Rat).Sub(v, new(big.Rat).SetInt(ratTrunc(v)))
}

func ratInt(v *big.Rat) (int, bool) {
	n := ratTrunc(v)
	if !n.IsInt64() {
		return 0, false
	}
	return int(n.Int64()), true
}

// isFloatToken reports whether Python's float() accepts the token.
func isFloatToken(s string) bool {
	switch strings.ToLower(strings.TrimLeft(s, "+-")) {
	case "nan", "inf", "infinity":
		return true
	}
	_, ok := parseDecimal(s)
	return ok
}

// duParse is parser._parse; ok is false where it returns (None, None).
func duParse(s string, now func() time.Time) (duResult, bool) {
	var res duResult
	l := timelexSplit(s)
	y := newYMD()
	n := len(l)
	idxOK := func(i int) bool { return i >= 0 && i < n }
	for i := 0; i < n; i++ {
		tok := l[i]
		switch {
		case isFloatToken(tok):
			var ok bool
			if i, ok = duNumericToken(l, i, y, &res); !ok {
				return res, false
			}
		case func() bool { _, ok := lookup(duWeekdays, tok); return ok }():
			wd, _ := lookup(duWeekdays, tok)
			res.weekday = some(wd)
		case func() bool { _, ok := lookup(duMonths, tok); return ok }():
			m, _ := lookup(duMonths, tok)
			if y.add(m, 'M') != nil {
				return res, false
			}
			if i+1 < n {
				if l[i+1] == "-" || l[i+1] == "/" {
					sep := l[i+1]
					if !idxOK(i+2) || y.appendStr(l[i+2], 0) != nil {
						return res, false
					}
					if i+3 < n && l[i+3] == sep {
						if !idxOK(i+4) || y.appendStr(l[i+4], 0) != nil {
							return res, false
						}
						i += 2
					}
					i += 2
				} else if i+4 < n && l[i+1] == " " && l[i+3] == " " && strings.ToLower(l[i+2]) == "of" {
					if allPyDigits(l[i+4]) {
						v, err := pyval.ParseInt(l[i+4])
						if err != nil || !v.IsInt64() {
							return res, false
						}
						yr := convertYear(int(v.Int64()), false, now)
						if y.appendStr(fmt.Sprint(yr), 'Y') != nil {
							return res, false
						}
					}
					i += 4
				}
			}
		case func() bool { _, ok := lookup(duAMPM, tok); return ok }():
			ap, _ := lookup(duAMPM, tok)
			if !res.hour.ok || res.hour.v < 0 || res.hour.v > 12 {
				return res, false // "No hour specified" / "Invalid hour": ValueError
			}
			res.hour = some(adjustAMPM(res.hour.v, ap))
			res.ampm = some(ap)
		case couldBeTzname(&res, tok):
			res.tzname, res.hasTzname = tok, true
			res.tzoffset = tzoffsetOf(tok)
			if i+1 < n && (l[i+1] == "+" || l[i+1] == "-") {
				if l[i+1] == "+" {
					l[i+1] = "-"
				} else {
					l[i+1] = "+"
				}
				res.tzoffset = optInt{}
				if duUTCZone[strings.ToLower(tok)] {
					res.tzname, res.hasTzname = "", false
				}
			}
		case res.hour.ok && (tok == "+" || tok == "-"):
			signal := -1
			if tok == "+" {
				signal = 1
			}
			if !idxOK(i + 1) {
				return res, false
			}
			next := []rune(l[i+1])
			var ho, mo int
			var ok1, ok2 bool
			switch {
			case len(next) == 4:
				ho, ok1 = atoiPy(string(next[:2]))
				mo, ok2 = atoiPy(string(next[2:]))
			case i+2 < n && l[i+2] == ":":
				if !idxOK(i + 3) {
					return res, false
				}
				ho, ok1 = atoiPy(l[i+1])
				mo, ok2 = atoiPy(l[i+3])
				i += 2
			case len(next) <= 2:
				ho, ok1 = atoiPy(string(next))
				mo, ok2 = 0, true
			default:
				return res, false
			}
			if !ok1 || !ok2 {
				return res, false
			}
			res.tzoffset = some(signal * (ho*3600 + mo*60))
			if i+5 < n && duJump[strings.ToLower(l[i+2])] && l[i+3] == "(" && l[i+5] == ")" &&
				len([]rune(l[i+4])) >= 3 && couldBeTzname(&duResult{hour: res.hour, tzname: res.tzname, hasTzname: res.hasTzname}, l[i+4]) {
				res.tzname, res.hasTzname = l[i+4], true
				i += 4
			}
			i++
		case duJump[strings.ToLower(tok)]:
		default:
			return res, false
		}
	}
	yr, mo, dy, err := y.resolve()
	if err != nil {
		return res, false
	}
	res.centurySpecified = y.centurySpecified
	res.year, res.month, res.day = yr, mo, dy
	// parserinfo.validate
	if res.year.ok {
		if res.year.v < 0 {
			return res, false
		}
		res.year.v = convertYear(res.year.v, res.centurySpecified, now)
	}
	if (res.tzoffset.ok && res.tzoffset.v == 0 && !res.hasTzname) || (res.hasTzname && (res.tzname == "Z" || res.tzname == "z")) {
		res.tzname, res.hasTzname = "UTC", true
		res.tzoffset = some(0)
	} else if res.tzoffset.ok && res.tzoffset.v != 0 && res.hasTzname && duUTCZone[strings.ToLower(res.tzname)] {
		res.tzoffset = some(0)
	}
	return res, true
}

func allPyDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !pystr.IsDigitChar(r) {
			return false
		}
	}
	return true
}

func atoiPy(s string) (int, bool) {
	v, err := pyval.ParseInt(s)
	if err != nil || !v.IsInt64() {
		return 0, false
	}
	return int(v.Int64()), true
}

func adjustAMPM(hour, ampm int) int {
	if hour < 12 && ampm == 1 {
		return hour + 12
	}
	if hour == 12 && ampm == 0 {
		return 0
	}
	return hour
}

func couldBeTzname(res *duResult, tok string) bool {
	if !res.hour.ok || res.hasTzname || res.tzoffset.ok || len([]rune(tok)) > 5 {
		return false
	}
	upper := tok != ""
	for _, r := range tok {
		if r < 'A' || r > 'Z' {
			upper = false
		}
	}
	switch tok {
	case "UTC", "GMT", "Z", "z":
		return true
	}
	return upper
}

func tzoffsetOf(name string) optInt {
	switch name {
	case "UTC", "GMT", "Z", "z":
		return some(0)
	}
	return optInt{}
}

// convertYear is parserinfo.convertyear: two-digit years within 50 years of
// the current one.
func convertYear(year int, centurySpecified bool, now func() time.Time) int {
	if year < 100 && !centurySpecified {
		thisYear := now().Year()
		century := thisYear / 100 * 100
		year += century
		if year >= thisYear+50 {
			year -= 100
		} else if year < thisYear-50 {
			year += 100
		}
	}
	return year
}

func duHMSOf(tok string) (int, bool) { return lookup(duHMS, tok) }

// findHMSIdx is parser._find_hms_idx (allow_jump=True).
func findHMSIdx(idx int, l []string) int {
	n := len(l)
	if idx+1 < n {
		if _, ok := duHMSOf(l[idx+1]); ok {
			return idx + 1
		}
	}
	if idx+2 < n && l[idx+1] == " " {
		if _, ok := duHMSOf(l[idx+2]); ok {
			return idx + 2
		}
	}
	if idx > 0 {
		if _, ok := duHMSOf(l[idx-1]); ok {
			return idx - 1
		}
	}
	if 1 < idx && idx == n-1 && l[idx-1] == " " {
		if _, ok := duHMSOf(l[idx-2]); ok {
			return idx - 2
		}
	}
	return -1
}

// parseMinSec is parser._parse_min_sec.
func parseMinSec(v *big.Rat) (optInt, optInt, bool) {
	m, ok := ratInt(v)
	if !ok {
		return optInt{}, optInt{}, false
	}
	var sec optInt
	if f := ratFrac(v); f.Sign() != 0 {
		s, _ := ratInt(new(big.Rat).Mul(f, big.NewRat(60, 1)))
		sec = some(s)
	}
	return some(m), sec, true
}

// parseMS is parser._parsems.
func parseMS(s string) (optInt, optInt, bool) {
	if !strings.Contains(s, ".") {
		v, ok := atoiPy(s)
		return some(v), some(0), ok
	}
	parts := strings.Split(s, ".")
	if len(parts) != 2 {
		return optInt{}, optInt{}, false
	}
	i, ok1 := atoiPy(parts[0])
	f := parts[1]
	for len([]rune(f)) < 6 {
		f += "0"
	}
	f = string([]rune(f)[:6])
	us, ok2 := atoiPy(f)
	return some(i), some(us), ok1 && ok2
}

// duNumericToken is parser._parse_numeric_token; it returns the new index.
func duNumericToken(l []string, idx int, y *ymd, res *duResult) (int, bool) {
	valueRepr := l[idx]
	value, ok := parseDecimal(valueRepr)
	if !ok {
		return idx, false
	}
	lenLi := len([]rune(valueRepr))
	n := len(l)
	s := []rune(valueRepr)
	switch {
	case len(y.vals) == 3 && (lenLi == 2 || lenLi == 4) && !res.hour.ok &&
		(idx+1 >= n || (l[idx+1] != ":" && func() bool { _, ok := duHMSOf(l[idx+1]); return !ok }())):
		h, ok := atoiPy(string(s[:2]))
		if !ok {
			return idx, false
		}
		res.hour = some(h)
		if lenLi == 4 {
			m, ok := atoiPy(string(s[2:]))
			if !ok {
				return idx, false
			}
			res.minute = some(m)
		}
	case lenLi == 6 || (lenLi > 6 && strings.ContainsRune(valueRepr, '.') && len([]rune(valueRepr[:strings.IndexRune(valueRepr, '.')])) == 6):
		if len(y.vals) == 0 && !strings.Contains(valueRepr, ".") {
			if y.appendStr(string(s[:2]), 0) != nil || y.appendStr(string(s[2:4]), 0) != nil || y.appendStr(string(s[4:]), 0) != nil {
				return idx, false
			}
		} else {
			h, ok1 := atoiPy(string(s[:2]))
			m, ok2 := atoiPy(string(s[2:4]))
			sec, us, ok3 := parseMS(string(s[4:]))
			if !ok1 || !ok2 || !ok3 {
				return idx, false
			}
			res.hour, res.minute, res.second, res.microsecond = some(h), some(m), sec, us
		}
	case lenLi == 8 || lenLi == 12 || lenLi == 14:
		if y.appendStr(string(s[:4]), 'Y') != nil || y.appendStr(string(s[4:6]), 0) != nil || y.appendStr(string(s[6:8]), 0) != nil {
			return idx, false
		}
		if lenLi > 8 {
			h, ok1 := atoiPy(string(s[8:10]))
			m, ok2 := atoiPy(string(s[10:12]))
			if !ok1 || !ok2 {
				return idx, false
			}
			res.hour, res.minute = some(h), some(m)
			if lenLi > 12 {
				sec, ok := atoiPy(string(s[12:]))
				if !ok {
					return idx, false
				}
				res.second = some(sec)
			}
		}
	case findHMSIdx(idx, l) >= 0:
		hmsIdx := findHMSIdx(idx, l)
		var hms int
		if hmsIdx > idx {
			hms, _ = duHMSOf(l[hmsIdx])
			idx = hmsIdx
		} else {
			hms, _ = duHMSOf(l[hmsIdx])
			hms++
		}
		switch hms {
		case 0:
			h, ok := ratInt(value)
			if !ok {
				return idx, false
			}
			res.hour = some(h)
			if f := ratFrac(value); f.Sign() != 0 {
				m, _ := ratInt(new(big.Rat).Mul(f, big.NewRat(60, 1)))
				res.minute = some(m)
			}
		case 1:
			m, sec, ok := parseMinSec(value)
			if !ok {
				return idx, false
			}
			res.minute, res.second = m, sec
		case 2:
			sec, us, ok := parseMS(valueRepr)
			if !ok {
				return idx, false
			}
			res.second, res.microsecond = sec, us
		}
	case idx+2 < n && l[idx+1] == ":":
		h, ok := ratInt(value)
		if !ok {
			return idx, false
		}
		res.hour = some(h)
		v2, ok := parseDecimal(l[idx+2])
		if !ok {
			return idx, false
		}
		m, sec, ok := parseMinSec(v2)
		if !ok {
			return idx, false
		}
		res.minute, res.second = m, sec
		if idx+4 < n && l[idx+3] == ":" {
			sec, us, ok := parseMS(l[idx+4])
			if !ok {
				return idx, false
			}
			res.second, res.microsecond = sec, us
			idx += 2
		}
		idx += 2
	case idx+1 < n && (l[idx+1] == "-" || l[idx+1] == "/" || l[idx+1] == "."):
		sep := l[idx+1]
		if y.appendStr(valueRepr, 0) != nil {
			return idx, false
		}
		if idx+2 < n && !duJump[strings.ToLower(l[idx+2])] {
			if allPyDigits(l[idx+2]) {
				if y.appendStr(l[idx+2], 0) != nil {
					return idx, false
				}
			} else if m, ok := lookup(duMonths, l[idx+2]); ok {
				if y.add(m, 'M') != nil {
					return idx, false
				}
			} else {
				return idx, false
			}
			if idx+3 < n && l[idx+3] == sep {
				if idx+4 >= n {
					return idx, false
				}
				if m, ok := lookup(duMonths, l[idx+4]); ok {
					if y.add(m, 'M') != nil {
						return idx, false
					}
				} else if y.appendStr(l[idx+4], 0) != nil {
					return idx, false
				}
				idx += 2
			}
			idx++
		}
		idx++
	case idx+1 >= n || duJump[strings.ToLower(l[idx+1])]:
		if idx+2 < n {
			if ap, ok := lookup(duAMPM, l[idx+2]); ok {
				h, ok := ratInt(value)
				if !ok {
					return idx, false
				}
				res.hour = some(adjustAMPM(h, ap))
				idx++
				return idx + 1, true
			}
		}
		if y.appendNum(value, 0) != nil {
			return idx, false
		}
		idx++
	case func() bool { _, ok := lookup(duAMPM, l[idx+1]); return ok }() &&
		value.Sign() >= 0 && value.Cmp(big.NewRat(24, 1)) < 0:
		ap, _ := lookup(duAMPM, l[idx+1])
		h, _ := ratInt(value)
		res.hour = some(adjustAMPM(h, ap))
		idx++
	case y.couldBeDay(value):
		if y.appendNum(value, 0) != nil {
			return idx, false
		}
	default:
		return idx, false
	}
	return idx, true
}
