package aggregate

import (
	"math"
	"strconv"

	"github.com/gymkit/gymkit/internal/pyjson"
)

// Error is an exception that NeMo Gym's Python implementation of
// /aggregate_metrics raises for the same input. Under Gym's exception
// middleware it becomes a 500 whose body is the JSON string of Error(), which
// is Python's repr of the exception, e.g. KeyError('_ng_rollout_index').
type Error struct {
	// Type is the Python exception class name ("KeyError", "ValueError",
	// "AttributeError", "TypeError").
	Type string
	// Message is the exception's single argument.
	Message string
}

// Error returns Python's repr of the exception: Type(repr(Message)).
func (e *Error) Error() string { return e.Type + "(" + pyjson.ReprString(e.Message) + ")" }

func pyErr(typ, msg string) *Error { return &Error{Type: typ, Message: msg} }

// intValue returns an int Number Value.
func intValue(i int64) pyjson.Value { return pyjson.NumberValue(strconv.FormatInt(i, 10)) }

// pyTypeName is the name of the Python type json.loads produces for v.
func pyTypeName(v pyjson.Value) string {
	switch v.Kind {
	case pyjson.Null:
		return "NoneType"
	case pyjson.Bool:
		return "bool"
	case pyjson.Number:
		if v.IsFloat() {
			return "float"
		}
		return "int"
	case pyjson.String:
		return "str"
	case pyjson.Array:
		return "list"
	case pyjson.Object:
		return "dict"
	}
	return "object"
}

// truthy is Python's bool() of the value json.loads produces for v.
func truthy(v pyjson.Value) bool {
	switch v.Kind {
	case pyjson.Null:
		return false
	case pyjson.Bool:
		return v.Bool
	case pyjson.Number:
		f, _ := strconv.ParseFloat(v.Str, 64)
		return f != 0 || math.IsNaN(f)
	case pyjson.String:
		return v.Str != ""
	case pyjson.Array:
		return len(v.Items) > 0
	case pyjson.Object:
		return len(v.Members) > 0
	}
	return false
}

// pyStr is Python's str() of a scalar index value (int, float, bool, str), as
// f"{task}:{rollout}" renders it: a str as it is, anything else as its repr.
func pyStr(v pyjson.Value) string {
	if v.Kind == pyjson.String {
		return v.Str
	}
	return pyjson.Repr(v)
}
