// Package lax decodes a parsed JSON value (pyjson.Value) into a Go value the
// way pydantic 2.13 validates a request body in lax mode, and reports failures
// as pydantic's error items, byte-compatible with FastAPI's 422 body and with
// the MCP door's error text.
//
// # Type mapping
//
// A Go type is read as the pydantic type a Python resources server would
// declare:
//
//	string, named string kinds      str (strict: only JSON strings)
//	bool                            bool
//	int, int8..int64, uint..uint64  int (see "Integer ranges")
//	float32, float64                float (float32 rounds to nearest; beyond its range, ±Inf)
//	*T                              Optional[T]: null gives nil, no extra loc segment
//	[]T                             list[T]: item locs are int indexes
//	map[string]T                    dict[str, T]: value locs are the keys
//	struct                          a model (fields by `json` tag, as encoding/json)
//	any, json.RawMessage,           Any: everything is accepted; an `any` receives a
//	pyjson.Value                    pyjson.Value, a RawMessage the compact JSON that
//	                                pydantic's dump_json writes (pyjson.Pydantic)
//
// pyjson.Dict is dict[str, Any] kept in input order. Values stored in any,
// pyjson.Value, pyjson.Dict and pyjson.Extra share memory with the input
// Value; treat them as read-only or copy them.
//
// A type whose pointer implements Unmarshaler decodes itself; RegisterCustom
// plugs other such interfaces in (the extension point for custom field
// types: decimal strings, ids, enums with methods). Other types
// (arrays, []byte, channels, funcs, non-empty interfaces, maps with non-string
// keys, and types implementing json.Unmarshaler or encoding.TextUnmarshaler,
// such as time.Time) are refused by Compile with an error naming the field.
//
// # Models
//
// A struct's fields and tags are resolved once by package model, which the
// encoder (pyjson) and the schema generator read too, so the three agree.
// Struct fields follow encoding/json: exported fields, `json:"name"` renames,
// `json:"-"` skips, embedded structs are flattened with Go's dominance rules.
// Keys match exactly (pydantic is case-sensitive, unlike encoding/json). A
// field is required iff it has the tag `required:"true"` (swaggest's
// convention, read by the schema package too); an absent required field gives
// a "missing" item whose input is the enclosing object. An absent optional
// field gets the value of its `default:"..."` tag when it has one (read as
// swaggest reads it for the schema: raw text for strings, numbers, bools,
// JSON otherwise; checked by Compile), and is otherwise left untouched (its
// zero value when decoding into a fresh value).
//
// Unknown keys are ignored (pydantic's extra="ignore"), unless the struct
// embeds pyjson.Extra (extra="allow": the unknown members are collected in
// input order, a container kept as a lazy Value over a copy of its text,
// which pyjson.Extra parses only when read) or Forbid (extra="forbid": each unknown key gives an
// "extra_forbidden" item, after all field items, in input order).
//
// An optional `enum:"a,b"` tag (or `enum:"[\"a\",\"b\"]"`) on a string field
// makes it a Literal["a", "b"]: any other input gives "literal_error".
//
// # Integer ranges
//
// Python ints are unbounded; Go's are not. A value outside the Go type's range
// is reported as if the field were declared Annotated[int, Field(ge=MIN,
// le=MAX)]: "greater_than_equal" / "less_than_equal" with ctx {"ge": MIN} or
// {"le": MAX}. pydantic's own limit comes first: a float input with |x| >= 2^63
// gives "int_parsing_size" whatever the Go type, as pydantic does. Int gives
// the validated Python int as text for types that keep any size (framework.Int).
//
// # Modes
//
// ModeHTTP reproduces FastAPI (validate_python with from_attributes=True): a
// non-object where a model is expected gives "model_attributes_type". ModeMCP
// reproduces NeMo Gym's MCP door (plain model_validate): "model_type" with ctx
// {"class_name": <Go type name>}.
//
// Plans are compiled once per Go type and cached; Decode does no tag parsing
// and no schema work.
//
// # Decoding from text
//
// Plan.DecodeJSON decodes JSON text straight into the Go value with a
// pyjson.Reader, without the generic tree: its peak memory is the decoded
// value plus copies of the strings and Any subtrees kept. It only succeeds:
// on any error item, duplicate key, syntax error or limit it gives up, and
// the caller decodes the tree (ParseLimited, Decode), so the error items are
// always the tree path's. FuzzDecodeJSON holds the two paths to the same
// values.
//
// # Lazy trees
//
// Decode also takes a lazy tree (pyjson.ParseLazy), the framework's input
// when DecodeJSON gave up. A lazy container whose Go type is a struct,
// slice or map is first decoded from its text by the streaming decoder
// (pyjson.NewLazyReader over the checked span), so the parts of the body
// without a problem cost what DecodeJSON costs; only when that gives up is
// it decoded as a tree, on a zeroed destination, which narrows down to the
// failing part (up to 3 nested give-ups, so the text is read a bounded
// number of times): a container is expanded one level when a struct or map
// decoder reaches it, an array is read item by item (pyjson.EachItem) into
// its slice, and what a decoded value keeps (any,
// pyjson.Value, Dict, Unmarshaler inputs) is materialized in full, so
// nothing lazy reaches the caller (Extra members stay lazy inside the
// Extra, which hands out only parsed trees). Error items keep lazy
// inputs, which the renderers write from their text: a str field given a
// 14 MiB array costs one Value, not 1.8M. FuzzLazyDecode holds the lazy
// and full trees to the same items, renderings and values;
// BenchmarkTypedVsEncodingJSON's lazy-time-x and lazy-peak-x measure the
// lazy path against encoding/json.
package lax
