package framework

import (
	"github.com/gymkit/gymkit/internal/lax"
	"github.com/gymkit/gymkit/internal/pyjson"
)

// Value is one JSON value as Python's json.loads sees it: objects keep key
// order, numbers keep their literal text (so int vs float is lexical and big
// ints are exact). The zero Value is JSON null. Use it for fields that take
// any JSON ("Any" in pydantic) and for ordered results; a [CustomField]
// receives one. Values a request decodes share memory with it: treat them
// as read-only (strings are safe to keep; copy Items and Members to change
// them). A Value is safe for concurrent reads.
//
// Value is an alias (of gymkit's internal JSON layer), so go doc lists its
// fields and methods here rather than below:
//
//	type Value struct {
//		Kind    Kind     // KindNull (the zero Value), KindBool, KindNumber, KindString, KindArray, KindObject
//		Bool    bool     // KindBool
//		Str     string   // KindString: the decoded text; KindNumber: the literal as received
//		                 // ("3", "3.0", "1e3", "-0", "123456789012345678901234567890", "NaN", "Infinity")
//		Items   []Value  // KindArray
//		Members []Member // KindObject: in input order, keys unique (duplicate keys: last value
//		                 // wins at the first position, as Python's dict)
//	}
//
//	// Get returns the member value for key and whether it exists; valid on
//	// any Value (non-objects have no members).
//	func (v Value) Get(key string) (Value, bool)
//	// IsFloat reports whether a number literal is a Python float: it
//	// contains '.', 'e' or 'E', or is NaN, Infinity or -Infinity.
//	func (v Value) IsFloat() bool
//	// Float converts a number as Python's float() would (NaN and ±Infinity
//	// literals give NaN and ±Inf, 1e400 gives ±Inf); ok is false for
//	// non-numbers and for integers beyond the float64 range.
//	func (v Value) Float() (f float64, ok bool)
//	// Int returns an integer literal as an int64; ok is false for
//	// non-numbers, float literals ("3.0", "1e3") and integers outside the
//	// int64 range (use BigInt).
//	func (v Value) Int() (int64, bool)
//	// BigInt returns an integer literal of any size as a new *big.Int; ok
//	// is false (nil) for non-numbers and float literals.
//	func (v Value) BigInt() (*big.Int, bool)
//	// MarshalJSON writes v as pydantic's dump_json does ([JSONPydantic]),
//	// so encoding/json writes a Value as JSON, not as a Go struct.
//	func (v Value) MarshalJSON() ([]byte, error)
//	// UnmarshalJSON parses data as [ParseJSON] does.
//	func (v *Value) UnmarshalJSON(data []byte) error
//
// Build values with [StringValue], [NumberValue], [BoolValue], [ArrayValue],
// [ObjectValue] and [NullValue], or parse them with [ParseJSON].
type Value = pyjson.Value

// Member is one key of an object Value: {Key string; Value Value}.
type Member = pyjson.Member

// Constructors of Values.
var (
	// ExtraOf returns an [Extra] holding the members in order; a key given
	// twice keeps its first position and its last value. The Values are
	// used as given, not copied.
	ExtraOf = pyjson.ExtraOf
	// NullValue returns JSON null.
	NullValue = pyjson.NullValue
	// BoolValue returns a JSON bool.
	BoolValue = pyjson.BoolValue
	// StringValue returns a JSON string.
	StringValue = pyjson.StringValue
	// NumberValue returns a JSON number from its literal text, e.g. "3" or
	// "2.5" (not checked: a bad literal fails when the value is written).
	NumberValue = pyjson.NumberValue
	// ArrayValue returns a JSON array of the items.
	ArrayValue = pyjson.ArrayValue
	// ObjectValue returns a JSON object of the members, in order (keys are
	// not de-duplicated).
	ObjectValue = pyjson.ObjectValue
)

// Kind is the JSON type of a Value (an alias: its one method is
// String() string, the kind's name: "null", "bool", "number", "string",
// "array", "object").
type Kind = pyjson.Kind

// The JSON kinds.
const (
	KindNull   = pyjson.Null
	KindBool   = pyjson.Bool
	KindNumber = pyjson.Number
	KindString = pyjson.String
	KindArray  = pyjson.Array
	KindObject = pyjson.Object
)

// Extra, embedded in a request struct, collects the unknown top-level keys of
// the body in input order, keys unique (pydantic extra="allow"; a duplicate
// key keeps its first position and its last value, as Python's dict);
// embedded in a response struct, its members are written after the struct's
// own fields (keys the struct wrote are skipped). A verify request and
// response that both embed it echo the unknown keys (NeMo's extra="allow"
// verify models; see [VerifyResponse]): a response whose Extra the handler
// left as the zero Extra ("unset") receives the echo; one it set (with
// ExtraOf, Set, Delete, Clear, or by assigning the request's Extra) is
// written as it is, so a cleared Extra answers no extra keys.
//
// An extra key's value is kept as the JSON text it arrived as and parsed
// only when it is read, so a large key the environment does not read costs
// about its size, not a tree of [Value]s (72 bytes per JSON value): a 14 MiB
// extra array in a /verify body peaks the server at about 3x the body
// (tests/breaktest TestBodyMemoryBounded). Each read parses it again.
// Extra is an alias (of gymkit's internal JSON layer); its methods:
//
//	// Len returns the number of members; Keys their keys in order (a new
//	// slice, nil when none); Has whether key is one, without parsing it.
//	func (e Extra) Len() int
//	func (e Extra) Keys() []string
//	func (e Extra) Has(key string) bool
//	// Get returns key's value as a full tree (parsed on each call: keep
//	// the result) and whether key is a member.
//	func (e Extra) Get(key string) (Value, bool)
//	// All yields each key and its value as Get returns it, in order;
//	// Members returns them as a new slice (changing it does not change e).
//	func (e Extra) All() iter.Seq2[string, Value]
//	func (e Extra) Members() []Member
//	// Set sets key's value (at its position, or appended last); Delete
//	// removes key and reports whether it was there; Clear removes every
//	// key. Set and Delete copy the members (O(Len)): a copy of the Extra
//	// made before is not changed. All three leave e set.
//	func (e *Extra) Set(key string, v Value)
//	func (e *Extra) Delete(key string) bool
//	func (e *Extra) Clear()
//	// IsSet reports whether e was made by ExtraOf, Set, Delete, Clear or
//	// a decoder (or copied from one that was): not the zero Extra.
//	func (e Extra) IsSet() bool
//
// Its one field, Kept, is there for encoding/json: a struct embedding
// Extra round-trips through encoding/json (session state), the members
// written as the key "extra" (an object, omitted for the zero Extra);
// gymkit's own encoders write the members in the enclosing object and
// never that key. Use the methods, not Kept.
//
// Embedded, these methods are promoted to the enclosing struct (req.Get("k")
// is req.Extra.Get("k")) unless the struct declares the name itself. Reads
// are safe for concurrent use; Set and Delete are writes to the struct.
// Build one with [ExtraOf].
type Extra = pyjson.Extra

// ForbidExtra, embedded in a request struct, makes unknown keys a 422
// extra_forbidden error (pydantic extra="forbid").
type ForbidExtra = lax.Forbid

// JSONStyle selects one of Python's JSON writers.
type JSONStyle uint8

const (
	// JSONPydantic is pydantic-core's dump_json, which FastAPI uses for typed
	// 200 bodies: compact, raw UTF-8, floats like 1.0, 1e+16, 0.00001, 1e-6;
	// NaN and infinities as null (python-compat 4.5).
	JSONPydantic JSONStyle = iota
	// JSONPython is Starlette's JSONResponse (error bodies, MCP text): compact,
	// raw UTF-8, Python float repr (1e-05, 1e+16); NaN is an error.
	JSONPython
	// JSONPythonDumps is json.dumps with its defaults (the MCP 422 detail):
	// ", " and ": " separators, ensure_ascii, NaN written as NaN.
	JSONPythonDumps
)

func (s JSONStyle) options() pyjson.Options {
	switch s {
	case JSONPython:
		return pyjson.Python
	case JSONPythonDumps:
		return pyjson.PythonDumps
	}
	return pyjson.Pydantic
}

// MarshalJSON writes v as the chosen Python writer would: structs in field
// order (json tags honoured), maps with sorted keys, Values in their own
// order, float64 always as a float (3.0), no HTML escaping. It returns an error
// for values JSON cannot hold (channels, functions, cycles) and, in
// JSONPython, for NaN and infinities.
func MarshalJSON(v any, style JSONStyle) ([]byte, error) { return pyjson.Marshal(v, style.options()) }

// ParseJSON parses data as Python's json.loads does (NaN and Infinity
// literals, duplicate keys last-wins, big ints exact). A syntax error's text
// is CPython's json.JSONDecodeError message with its position ("Expecting
// value: line 1 column 1 (char 0)"); the other failures are invalid UTF-8,
// arrays and objects nested deeper than 1000 levels and an integer literal
// of more than 4300 digits.
func ParseJSON(data []byte) (Value, error) { return pyjson.Parse(data) }
