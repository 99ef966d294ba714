// Package pyjson is gymkit's JSON layer with Python's semantics: a parser that
// keeps key order, duplicate-key "last wins", the int/float lexical distinction,
// arbitrary-size integers and the NaN/Infinity literals of Python's json.loads,
// and that reports syntax errors with CPython's json.JSONDecodeError messages
// and character positions; and encoders that write JSON the way pydantic-core's
// dump_json (success bodies) or Python's json.dumps (error bodies, MCP text) do.
//
// Everything here is internal; the framework package re-exports what
// environments need.
package pyjson

// Kind is the JSON type of a Value.
type Kind uint8

// The JSON kinds. The zero Kind is Null.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

// String returns the kind's name as Python's json module would call the
// matching Python type ("None", "bool", "int"/"float" are not distinguished
// here: "number"), for error messages.
func (k Kind) String() string {
	switch k {
	case Null:
		return "null"
	case Bool:
		return "bool"
	case Number:
		return "number"
	case String:
		return "string"
	case Array:
		return "array"
	case Object:
		return "object"
	}
	return "invalid"
}

// Value is one parsed JSON value. The zero Value is JSON null.
//
// A Number keeps its literal text in Str exactly as received ("3", "3.0",
// "1e3", "-0", "123456789012345678901234567890", "NaN", "Infinity",
// "-Infinity"), so int vs float is lexical (see IsFloat) and big integers are
// exact. An Object keeps its members in input order with duplicate keys
// collapsed ("last wins" for the value, first position kept, as Python's dict
// does).
type Value struct {
	Kind    Kind
	Bool    bool     // Kind == Bool
	Str     string   // Kind == String: the decoded string; Kind == Number: the literal
	Items   []Value  // Kind == Array
	Members []Member // Kind == Object, in order, keys unique
}

// Member is one key of an Object Value.
type Member struct {
	Key   string
	Value Value
}

// IsFloat reports whether a Number literal is a Python float: it contains
// '.', 'e' or 'E', or is one of NaN, Infinity, -Infinity.
func (v Value) IsFloat() bool {
	if v.Kind != Number {
		return false
	}
	for i := 0; i < len(v.Str); i++ {
		switch v.Str[i] {
		case '.', 'e', 'E', 'N', 'I':
			return true
		}
	}
	return false
}

// Get returns the member value for key and whether it exists. It is valid on
// any Value; non-objects have no members.
func (v Value) Get(key string) (Value, bool) {
	for i := range v.Members {
		if v.Members[i].Key == key {
			return v.Members[i].Value, true
		}
	}
	return Value{}, false
}

// Constructors for building values in Go code.

// NullValue returns JSON null.
func NullValue() Value { return Value{} }

// BoolValue returns a JSON bool.
func BoolValue(b bool) Value { return Value{Kind: Bool, Bool: b} }

// StringValue returns a JSON string.
func StringValue(s string) Value { return Value{Kind: String, Str: s} }

// NumberValue returns a JSON number from its literal text (not checked).
func NumberValue(lit string) Value { return Value{Kind: Number, Str: lit} }

// ArrayValue returns a JSON array.
func ArrayValue(items ...Value) Value { return Value{Kind: Array, Items: items} }

// ObjectValue returns a JSON object; later duplicate keys are not collapsed.
func ObjectValue(members ...Member) Value { return Value{Kind: Object, Members: members} }
