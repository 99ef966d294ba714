package framework

import (
	"github.com/gymkit/gymkit/internal/pyjson"
)

// Object is an ordered JSON object for request and response fields: it
// accepts a JSON object (use *Object to also accept null) and is written back
// with its keys in the order received. Other JSON types are a 422 dict_type.
// It is {Members []Member}; Get(key) (Value, bool) looks up a key (a nil
// *Object has none) and Value() returns it as an object [Value].
type Object = pyjson.Dict

// PythonError returns an error whose text is the Python repr of an exception
// of class with message msg, e.g. PythonError("KeyError", "x") is
// KeyError('x'). NeMo writes repr(e) as the 500 body of an unhandled
// exception, so environments use it to match the Python original's 500s.
func PythonError(class, msg string) error {
	return pyError(class + "(" + pyjson.ReprString(msg) + ")")
}

type pyError string

func (e pyError) Error() string { return string(e) }

// PythonTypeName returns the Python type name of the json.loads result of v:
// NoneType, bool, int, float, str, list or dict.
func PythonTypeName(v Value) string {
	switch v.Kind {
	case KindNull:
		return "NoneType"
	case KindBool:
		return "bool"
	case KindNumber:
		if v.IsFloat() {
			return "float"
		}
		return "int"
	case KindString:
		return "str"
	case KindArray:
		return "list"
	}
	return "dict"
}

// PythonRepr returns Python's repr() of the json.loads result of v, e.g.
// {'a': [1, 2.5, True, None], 'b': 'it\'s'} is written
// {'a': [1, 2.5, True, None], 'b': "it's"}: dicts and lists as Python prints
// them, strings quoted as repr quotes them, floats in repr form, nan and inf.
func PythonRepr(v Value) string { return pyjson.Repr(v) }

// PythonReprString returns Python's repr() of a str: single quotes unless
// the text holds a single quote and no double quote, with repr's escapes.
func PythonReprString(s string) string { return pyjson.ReprString(s) }
