package mathadvancedcalculations

import (
	"context"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gymkit/gymkit/framework"
)

// VerifyRequest is the /verify body (MultiVerseMathHardVerifyRequest): the
// common fields plus the dataset row's task fields, which are not echoed.
type VerifyRequest struct {
	framework.VerifyRequest
	// GroundTruth is pydantic's list[float] | str: a string holding a JSON
	// list of numbers, as the datasets give it. A real list passes validation
	// but makes json.loads fail (a 500); other types are a 422.
	GroundTruth framework.Value `json:"ground_truth" required:"true"`
	ID          int             `json:"id" required:"true"`
	Depth       int             `json:"depth" required:"true"`
	Breadth     int             `json:"breadth" required:"true"`
}

// VerifyResponse is {"responses_create_params","response","reward"}.
type VerifyResponse struct {
	framework.VerifyResponse
}

// verify rewards 1.0 when every ground-truth value equals (Python ==) the
// float(solution) of some function_call_output item of the response,
// whichever tool produced it and in any order; else 0.0.
func (s *Server) verify(_ context.Context, req VerifyRequest) (VerifyResponse, error) {
	truths, err := groundTruths(req.GroundTruth)
	if err != nil {
		return VerifyResponse{}, err
	}
	outs := outputs(req.Response.Output)
	var resp VerifyResponse
	resp.Reward = 1.0
	for _, gt := range truths {
		if !contains(outs, gt) {
			resp.Reward = 0.0
			break
		}
	}
	return resp, nil
}

// groundTruthUnion decodes ground_truth as pydantic's smart union
// list[float] | str reports it when both members fail: each member's errors
// under a loc segment naming it.
type groundTruthUnion struct {
	GroundTruth struct {
		List []float64 `json:"list[float]" required:"true"`
		Str  string    `json:"str" required:"true"`
	} `json:"ground_truth" required:"true"`
}

type groundTruthList struct {
	List []float64 `json:"list" required:"true"`
}

// groundTruths is `for gt in json.loads(body.ground_truth)`: the items of
// what the string holds (a list's items, a dict's keys, a string's
// characters), or the Python exception the original raises.
func groundTruths(v framework.Value) ([]framework.Value, error) {
	if v.Kind != framework.KindString {
		if _, err := framework.DecodeValue[groundTruthList](framework.Value{Kind: framework.KindObject,
			Members: []framework.Member{{Key: "list", Value: v}}}); err == nil {
			// A valid list[float]: json.loads(list) raises.
			return nil, framework.PythonError("TypeError", "the JSON object must be str, bytes or bytearray, not list")
		}
		_, err := framework.DecodeValue[groundTruthUnion](framework.Value{Kind: framework.KindObject,
			Members: []framework.Member{{Key: "ground_truth", Value: framework.Value{Kind: framework.KindObject,
				Members: []framework.Member{{Key: "list[float]", Value: v}, {Key: "str", Value: v}}}}}})
		return nil, err
	}
	loaded, err := loads(v.Str)
	if err != nil {
		return nil, loadsError(err, v.Str)
	}
	switch loaded.Kind {
	case framework.KindArray:
		return loaded.Items, nil
	case framework.KindObject:
		keys := make([]framework.Value, len(loaded.Members))
		for i, m := range loaded.Members {
			keys[i] = framework.Value{Kind: framework.KindString, Str: m.Key}
		}
		return keys, nil
	case framework.KindString:
		var chars []framework.Value
		for _, r := range loaded.Str {
			chars = append(chars, framework.Value{Kind: framework.KindString, Str: string(r)})
		}
		return chars, nil
	}
	return nil, framework.PythonError("TypeError", "'"+framework.PythonTypeName(loaded)+"' object is not iterable")
}

// loads is json.loads of a Python str. framework.ParseJSON reads bytes the
// way json.loads(bytes) does, so two differences are handled here: a str
// starting with U+FEFF is an error (bytes would skip the BOM), and NUL
// characters must not make it guess UTF-16 (any raw control character is a
// syntax error at the same place, so NUL is swapped for U+0001).
func loads(s string) (framework.Value, error) {
	if strings.HasPrefix(s, "\ufeff") {
		return framework.Value{}, errBOM
	}
	return framework.ParseJSON([]byte(strings.ReplaceAll(s, "\x00", "\x01")))
}

type loadsErr string

func (e loadsErr) Error() string { return string(e) }

const errBOM = loadsErr("Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)")

// loadsError is the Python exception json.loads(s) raises for err, as NeMo
// writes it in a 500 body (repr): JSONDecodeError for syntax errors,
// ValueError for over-long integers, RecursionError for deep nesting
// (CPython's depth limit is higher than the framework's 1000 and depends on
// its C stack, so that last case is approximate).
func loadsError(err error, s string) error {
	msg := err.Error()
	switch {
	case strings.HasPrefix(msg, "Exceeds the limit"):
		return framework.PythonError("ValueError", msg)
	case strings.HasPrefix(msg, "pyjson:"):
		what := "array"
		if t := strings.TrimLeft(s, " \t\n\r"); strings.HasPrefix(t, "{") {
			what = "object"
		}
		return framework.PythonError("RecursionError", "maximum recursion depth exceeded while decoding a JSON "+what+" from a unicode string")
	}
	return framework.PythonError("JSONDecodeError", msg)
}

// output is one entry of the predicted outputs: a float, or None (ok false).
type output struct {
	f  float64
	ok bool
}

// outputs is, for every function_call_output item in order,
// float(json.loads(item.output)["solution"]), or None when any step raises
// (output not a string, not JSON, not an object, no "solution", a solution
// float() refuses such as null).
func outputs(items []framework.OutputItem) []output {
	var outs []output
	for _, it := range items {
		if it.Type != "function_call_output" {
			continue
		}
		var o output
		if it.Output.Kind == framework.KindString {
			if obj, err := loads(it.Output.Str); err == nil && obj.Kind == framework.KindObject {
				if sol, ok := obj.Get("solution"); ok {
					o.f, o.ok = pyFloat(sol)
				}
			}
		}
		outs = append(outs, o)
	}
	return outs
}

// pyFloat is Python's float() of a json.loads value: numbers (an int too
// large for a float fails), bools, and strings float() parses.
func pyFloat(v framework.Value) (float64, bool) {
	switch v.Kind {
	case framework.KindNumber:
		return v.Float()
	case framework.KindBool:
		if v.Bool {
			return 1, true
		}
		return 0, true
	case framework.KindString:
		return floatFromString(v.Str)
	}
	return 0, false
}

// pyFloatSyntax is the grammar float() accepts once white space is stripped
// and underscores are removed: a decimal literal, or inf, infinity, nan in
// any case, with an optional sign (no hex, unlike strconv.ParseFloat).
var pyFloatSyntax = regexp.MustCompile(`^[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|(?i:inf|infinity|nan))$`)

// floatFromString is CPython's float(str): non-ASCII decimal digits become
// ASCII digits and non-ASCII white space a space, then ASCII white space is
// stripped from both ends;
// underscores are allowed only between digits; the rest must match
// pyFloatSyntax. Out-of-range literals give ±inf or ±0, as in Python.
func floatFromString(s string) (float64, bool) {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf: // kept as is: 0x1c-0x1f are not stripped
			b.WriteRune(r)
		case isPySpace(r):
			b.WriteByte(' ')
		case unicode.IsDigit(r):
			b.WriteByte(byte('0' + decimalValue(r)))
		default:
			return 0, false
		}
	}
	t := b.String()
	if strings.Contains(t, "_") {
		var prev byte
		var clean strings.Builder
		for i := 0; i < len(t); i++ {
			c := t[i]
			if c == '_' {
				if !isASCIIDigit(prev) {
					return 0, false
				}
			} else {
				if prev == '_' && !isASCIIDigit(c) {
					return 0, false
				}
				clean.WriteByte(c)
			}
			prev = c
		}
		if prev == '_' {
			return 0, false
		}
		t = clean.String()
	}
	t = strings.Trim(t, " \t\n\v\f\r")
	if !pyFloatSyntax.MatchString(t) {
		return 0, false
	}
	switch strings.ToLower(strings.TrimLeft(t, "+-")) {
	case "inf", "infinity":
		if t[0] == '-' {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	case "nan":
		return math.NaN(), true
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil && !isRangeError(err) {
		return 0, false
	}
	return f, true
}

func isRangeError(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

func isASCIIDigit(c byte) bool { return c >= '0' && c <= '9' }

// decimalValue is the digit value of a Unicode decimal digit (category Nd):
// Nd characters come in runs of ten starting at a zero, and every range of
// the unicode.Nd table starts at one.
func decimalValue(r rune) int {
	for _, rg := range unicode.Nd.R16 {
		if lo, hi := rune(rg.Lo), rune(rg.Hi); r >= lo && r <= hi {
			return int(r-lo) % 10
		}
	}
	for _, rg := range unicode.Nd.R32 {
		if lo, hi := rune(rg.Lo), rune(rg.Hi); r >= lo && r <= hi {
			return int(r-lo) % 10
		}
	}
	return 0
}

// isPySpace reports whether r is white space for Python's str methods
// (Py_UNICODE_ISSPACE).
func isPySpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\v', '\f', '\r', 0x1c, 0x1d, 0x1e, 0x1f, 0x85, 0xa0, 0x1680,
		0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// contains is Python's `gt in outs` for a json.loads value gt and outputs
// that are floats or None: None matches None; ints compare with floats
// exactly; bools are 1 and 0; NaN never matches; strings, lists and dicts
// never equal a float.
func contains(outs []output, gt framework.Value) bool {
	for _, o := range outs {
		if equal(o, gt) {
			return true
		}
	}
	return false
}

func equal(o output, gt framework.Value) bool {
	switch gt.Kind {
	case framework.KindNull:
		return !o.ok
	case framework.KindBool:
		return o.ok && o.f == boolFloat(gt.Bool)
	case framework.KindNumber:
		if !o.ok {
			return false
		}
		if gt.IsFloat() {
			f, ok := gt.Float()
			return ok && f == o.f
		}
		return intEqualsFloat(gt, o.f)
	}
	return false
}

func boolFloat(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// intEqualsFloat is Python's int == float: exact, whatever the int's size.
func intEqualsFloat(n framework.Value, f float64) bool {
	if math.IsInf(f, 0) || math.IsNaN(f) || f != math.Trunc(f) {
		return false
	}
	if i, ok := n.Int(); ok && i > -1<<53 && i < 1<<53 {
		return float64(i) == f
	}
	bi, ok := n.BigInt()
	if !ok {
		return false
	}
	fi, _ := new(big.Float).SetFloat64(f).Int(nil)
	return bi.Cmp(fi) == 0
}
