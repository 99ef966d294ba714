package workplace

import (
	"math"
	"strconv"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/pycompat/pystr"
	"github.com/gymkit/gymkit/pycompat/pyval"
)

// A tool's arguments, its table cells and its answers are JSON values as
// Python's json.loads sees them; their Python semantics (truthiness, ==,
// ordering, int(), str(), repr() and the exception texts) are
// pycompat/pyval's. This file holds the shorthands the tools use.

// value is one JSON value as Python's json.loads sees it, and one table cell.
// Kind Null is None (and a missing CSV cell); a Number keeps its literal, so
// int and float stay distinct.
type value = framework.Value

// Value constructors.

func vNone() value              { return value{} }
func vStr(s string) value       { return value{Kind: framework.KindString, Str: s} }
func vBool(b bool) value        { return value{Kind: framework.KindBool, Bool: b} }
func vInt(n int) value          { return value{Kind: framework.KindNumber, Str: strconv.Itoa(n)} }
func vList(items []value) value { return value{Kind: framework.KindArray, Items: items} }

// object builds an ordered JSON object.
type object []framework.Member

func (o *object) add(key string, v value) { *o = append(*o, framework.Member{Key: key, Value: v}) }
func (o object) value() value             { return value{Kind: framework.KindObject, Members: o} }

// isStr reports whether v is a Python str.
func isStr(v value) bool { return v.Kind == framework.KindString }

// isFloat reports whether v is a Python float.
func isFloat(v value) bool { return v.Kind == framework.KindNumber && v.IsFloat() }

// outValue returns a cell as the reference's JSON answer shows it: NaN and
// infinities become null (pydantic's ser_json_inf_nan="null"), which is also
// what the MCP door's JSON-mode conversion does.
func outValue(v value) value {
	if v.Kind == framework.KindNumber && v.IsFloat() {
		if f, _ := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			return vNone()
		}
	}
	return v
}

// lowerValue is v.lower() for a str, else the AttributeError.
func lowerValue(v value) (value, error) {
	if !isStr(v) {
		return value{}, pyval.NoAttribute(v, "lower")
	}
	return vStr(pystr.Lower(v.Str)), nil
}

// inList is Python's `v in [literals...]` (== against each string).
func inList(v value, list ...string) bool {
	if v.Kind != framework.KindString {
		return false
	}
	for _, s := range list {
		if v.Str == s {
			return true
		}
	}
	return false
}
