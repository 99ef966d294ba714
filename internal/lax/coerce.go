package lax

import (
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/gymkit/gymkit/internal/pyjson"
)

// This file reproduces pydantic-core's lax scalar coercions for Python input
// (FastAPI validates the json.loads result in Python mode). Sources, in the
// pydantic repository at v2.13.x (pydantic-core 2.46):
//   - pydantic-core/src/input/input_python.rs › validate_int, validate_float,
//     validate_bool, validate_str;
//   - pydantic-core/src/input/shared.rs › str_as_int, clean_int_str,
//     strip_leading_zeros, strip_underscores, str_as_float, float_as_int,
//     str_as_bool, int_as_bool;
//   - jiter crates/jiter/src/number_decoder.rs › NumberInt::from_bytes,
//     IntParse::parse (the strict first attempt and its 4300-character limit).

// pyInt is a Python int in decimal text: an optional '-' then digits without
// leading zeros ("0" for zero; never "-0").
type pyInt string

// intFromLiteral normalises a JSON int literal to a pyInt ("-0" → "0").
// ok is false for text that is not a JSON int.
func intFromLiteral(lit string) (pyInt, bool) {
	if !isJSONInt(lit) {
		return "", false
	}
	if lit == "-0" {
		return "0", true
	}
	return pyInt(lit), true
}

// isJSONInt reports whether s is exactly -?(0|[1-9][0-9]*).
func isJSONInt(s string) bool {
	i := 0
	if i < len(s) && s[0] == '-' {
		i++
	}
	if i >= len(s) {
		return false
	}
	if s[i] == '0' {
		return i+1 == len(s)
	}
	for ; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// float64Literal parses a JSON number literal (or NaN/Infinity/-Infinity) the
// way Python's float() does for json.loads: correctly rounded, overflow to
// ±inf. ok is false for text that is not a number literal.
func float64Literal(lit string) (float64, bool) {
	switch lit {
	case "NaN":
		return math.NaN(), true
	case "Infinity":
		return math.Inf(1), true
	case "-Infinity":
		return math.Inf(-1), true
	}
	if !isRustFloat(lit) {
		return 0, false
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && !isRangeErr(err) {
		return 0, false
	}
	return f, true
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// intToFloat converts a Python int to float like int.__float__: correctly
// rounded; ok is false when the result would overflow (Python raises
// OverflowError, which pydantic reports as float_type).
func intToFloat(n pyInt) (float64, bool) {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		return 0, false
	}
	if f == 0 {
		f = 0 // int 0 is float 0.0, never -0.0
	}
	return f, true
}

// floatAsInt is pydantic-core's float_as_int: the error type for a float
// that is not an exact int within i64, else the int.
func floatAsInt(f float64) (int64, string) {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return 0, TypeFiniteNumber
	case math.Mod(f, 1) != 0:
		return 0, TypeIntFromFloat
	case -(1<<63) < f && f < 1<<63: // (i64::MIN as f64) < f < (i64::MAX as f64)
		return int64(f), ""
	}
	return 0, TypeIntParsingSize
}

// strAsInt is pydantic-core's str_as_int: the Python int a string denotes, or
// the error type (int_parsing, or int_parsing_size for an over-long literal).
func strAsInt(s string) (pyInt, string) {
	// First attempt: jiter's strict JSON int, whose only distinct failure is
	// a digit run ending beyond 4300 characters (NumberOutOfRange).
	if n, ok := intFromLiteral(s); ok {
		if len(s) > 4300 {
			return "", TypeIntParsingSize
		}
		return n, ""
	}
	if jiterIntOutOfRange(s) {
		return "", TypeIntParsingSize
	}
	c, ok := cleanIntStr(s)
	if !ok {
		return "", TypeIntParsing
	}
	n, ok := intFromLiteral(c)
	if !ok || len(c) > 4300 {
		return "", TypeIntParsing
	}
	return n, ""
}

// jiterIntOutOfRange reports whether jiter's IntParse fails on s with
// NumberOutOfRange: s starts like a JSON int with a nonzero digit and its
// digit run ends after index 4300 (the '-' counts), whatever follows.
func jiterIntOutOfRange(s string) bool {
	i := 0
	if i < len(s) && s[0] == '-' {
		i++
	}
	if i >= len(s) || s[i] < '1' || s[i] > '9' {
		return false
	}
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i > 4300
}

// rustTrim is Rust's str::trim: Unicode White_Space at both ends. Go's
// unicode.IsSpace is the same property.
func rustTrim(s string) string { return strings.TrimFunc(s, unicode.IsSpace) }

// cleanIntStr is pydantic-core's clean_int_str: trim, one leading '+' (not
// followed by '-'), one leading '-' (not followed by '-' or '+'), leading
// zeros, a ".0+" fraction, and underscores between digits. ok is false when
// the string cannot be an int or nothing was changed.
func cleanIntStr(s string) (string, bool) {
	lenBefore := len(s)
	s = rustTrim(s)
	if rest, ok := strings.CutPrefix(s, "+"); ok {
		if strings.HasPrefix(rest, "-") {
			return "", false
		}
		s = rest
	}
	neg := false
	if rest, ok := strings.CutPrefix(s, "-"); ok {
		if strings.HasPrefix(rest, "-") || strings.HasPrefix(rest, "+") {
			return "", false
		}
		neg = true
		s = rest
	}
	s, ok := stripLeadingZeros(s)
	if !ok {
		return "", false
	}
	if i := strings.IndexByte(s, '.'); i >= 0 {
		if dec := s[i+1:]; dec != "" && strings.Trim(dec, "0") == "" {
			s = s[:i]
		}
	}
	sign := ""
	if neg {
		sign = "-"
	}
	if stripped, ok := stripUnderscores(s); ok {
		return sign + stripped, true
	}
	if lenBefore == len(s) {
		return "", false
	}
	return sign + s, true
}

// stripLeadingZeros is pydantic-core's strip_leading_zeros (including its
// quirks: '_' counts as part of the zeros, and a '.' keeps the character
// before it).
func stripLeadingZeros(s string) (string, bool) {
	if s == "" {
		return "", false
	}
	switch c := s[0]; {
	case c == '0':
	case (c >= '1' && c <= '9') || c == '-':
		return s, true
	default:
		return "", false
	}
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '0' || c == '_':
		case (c >= '1' && c <= '9') || c == '-':
			return s[i:], true
		case c == '.':
			return s[i-1:], true
		default:
			return "", false
		}
	}
	return s[len(s)-1:], true
}

// stripUnderscores is pydantic-core's strip_underscores: ok only when s has
// underscores, none leading or trailing and no two in a row.
func stripUnderscores(s string) (string, bool) {
	if !strings.Contains(s, "_") || strings.HasPrefix(s, "_") || strings.HasSuffix(s, "_") || strings.Contains(s, "__") {
		return "", false
	}
	return strings.ReplaceAll(s, "_", ""), true
}

// strAsFloat is pydantic-core's str_as_float: Rust's f64 parser on the
// trimmed string, then on the untrimmed string with underscores removed.
func strAsFloat(s string) (float64, bool) {
	if f, ok := rustParseFloat(rustTrim(s)); ok {
		return f, true
	}
	if stripped, ok := stripUnderscores(s); ok {
		return rustParseFloat(stripped)
	}
	return 0, false
}

// rustParseFloat is Rust's <f64 as FromStr>::from_str:
//
//	Float  ::= Sign? ( 'inf' | 'infinity' | 'nan' | Number )   (words in any case)
//	Number ::= ( Digit+ | Digit+ '.' Digit* | Digit* '.' Digit+ ) Exp?
//	Exp    ::= [eE] Sign? Digit+
//
// Overflow gives ±inf, like Rust. Go's ParseFloat alone would also accept
// underscores, hex floats and other spellings, so the grammar is checked
// first.
func rustParseFloat(s string) (float64, bool) {
	body := s
	neg := false
	if body != "" && (body[0] == '+' || body[0] == '-') {
		neg = body[0] == '-'
		body = body[1:]
	}
	switch {
	case asciiEqualFold(body, "inf"), asciiEqualFold(body, "infinity"):
		if neg {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	case asciiEqualFold(body, "nan"):
		return math.NaN(), true
	}
	if !isRustFloat(s) {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !isRangeErr(err) {
		return 0, false
	}
	return f, true
}

// isRustFloat checks the Number production above, with an optional sign.
func isRustFloat(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	intDigits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		intDigits++
	}
	fracDigits := 0
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			fracDigits++
		}
	}
	if intDigits+fracDigits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		expDigits := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			expDigits++
		}
		if expDigits == 0 {
			return false
		}
	}
	return i == len(s)
}

// asciiEqualFold is Rust's eq_ignore_ascii_case (strings.EqualFold would
// also fold non-ASCII letters such as U+017F and U+212A).
func asciiEqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// strAsBool is pydantic-core's str_as_bool: exact strings, ASCII
// case-insensitive, no trimming. ok is false for any other string
// (bool_parsing).
func strAsBool(s string) (val, ok bool) {
	switch {
	case s == "0", asciiEqualFold(s, "f"), asciiEqualFold(s, "n"), asciiEqualFold(s, "no"),
		asciiEqualFold(s, "off"), asciiEqualFold(s, "false"):
		return false, true
	case s == "1", asciiEqualFold(s, "t"), asciiEqualFold(s, "y"), asciiEqualFold(s, "on"),
		asciiEqualFold(s, "yes"), asciiEqualFold(s, "true"):
		return true, true
	}
	return false, false
}

// Int validates v as a pydantic v2 lax `int` field (validate_int for the
// json.loads result): JSON ints of any size, integral floats within ±2^63
// (1.0, 1e3), bools (true is 1), and strings that str_as_int accepts (" 5 ",
// "+5", "5.0", "1_000", "007"). It returns the int in canonical decimal text
// (an optional '-' then digits without leading zeros; "0" for zero) or, on
// failure, the single error item pydantic gives (int_type, int_parsing,
// int_from_float, int_parsing_size or finite_number) with an empty Loc.
// Python ints are unbounded, so no range error is ever produced; m is
// accepted for symmetry with Unmarshaler (both doors validate ints alike).
func Int(v pyjson.Value, _ Mode) (string, []ErrorItem) {
	small, text, fits, errType := laxInt(&v)
	if errType != "" {
		return "", []ErrorItem{{Type: errType, Loc: []any{}, Msg: simpleMsg[errType], Input: v}}
	}
	if fits {
		return strconv.FormatInt(small, 10), nil
	}
	return string(text), nil
}
