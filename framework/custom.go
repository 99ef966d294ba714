package framework

import (
	"errors"
	"reflect"

	"github.com/gymkit/gymkit/internal/lax"
	"github.com/gymkit/gymkit/internal/pyjson"
)

// CustomField is implemented, on the pointer, by a field type of your own
// that validates itself: a decimal kept as text, an id with a format, an
// enum with methods. A request field (either door), a nested field, a list
// item or a map value of such a type is handed to DecodeField instead of
// gymkit's usual rules, and its JSON Schema (MCP inputSchema and
// outputSchema, /openapi.json) is what JSONSchemaBytes returns.
//
//	type OrderID string
//
//	func (id *OrderID) DecodeField(v framework.Value) error {
//		if v.Kind != framework.KindString || !strings.HasPrefix(v.Str, "ord-") {
//			return errors.New("an order id is a string ord-<digits>")
//		}
//		*id = OrderID(v.Str)
//		return nil
//	}
//	func (*OrderID) JSONSchemaBytes() ([]byte, error) {
//		return []byte(`{"type":"string","pattern":"^ord-[0-9]+$"}`), nil
//	}
//
// DecodeField receives the field's JSON value as parsed (on the HTTP door
// the body's, on the MCP door the tools/call arguments'), stores the result
// in the receiver and returns nil, or an error that becomes one item of the
// 422 answer (over MCP the isError text "HTTP 422 from POST /<tool>: ..."),
// located at the field (["body", "amount"] on HTTP, ["amount"] over MCP):
//
//   - a *[FieldError] gives its Type and Msg, as a pydantic type of your own
//     would (e.g. {"type": "decimal_parsing", "msg": "Input should be a
//     valid decimal"});
//   - any other error is what pydantic makes of a validator raising
//     ValueError(err.Error()) (python-compat §3, "ctx of custom-validator
//     errors"): {"type": "value_error", "msg": "Value error, <err>", "input":
//     <the value>, "ctx": {"error": {}}}.
//
// A null value reaches DecodeField like any other, except for a pointer
// field (*T), which null sets to nil (Optional[T]). v and its members may
// share memory with the request: its strings are safe to keep, its
// Items and Members slices are not (copy them). DecodeField is called on a
// fresh zero value for every request, concurrently for many requests; it
// must not panic (a panic is the tool's: a 500).
//
// JSONSchemaBytes returns the type's JSON Schema as JSON (an object); it is
// read once, when the schemas are generated, on a zero value. gymkit
// normalises it as it does its own types' schemas.
//
// Encoding (response bodies, MCP structuredContent, session state) is not
// part of CustomField: a type that appears in answers or session state
// implements json.Marshaler (and json.Unmarshaler for session state) too,
// as [Int] does. Types with UnmarshalJSON or UnmarshalText alone (such as
// time.Time) are refused at startup in request types: wrap them in a type
// implementing CustomField. A type embedding a CustomField implements it
// too (Go promotes the methods), so it is decoded as that field, not as a
// struct of its own.
type CustomField interface {
	DecodeField(v Value) error
	JSONSchemaBytes() ([]byte, error)
}

// FieldError is the error a [CustomField]'s DecodeField returns to choose
// the pydantic error item of the 422 answer: Type is the item's "type"
// (pydantic's names when the rule is pydantic's, e.g. "string_type";
// "value_error" when empty) and Msg its "msg", verbatim. Error returns Msg.
type FieldError struct {
	Type string
	Msg  string
}

// Error returns e.Msg.
func (e *FieldError) Error() string { return e.Msg }

func init() {
	lax.RegisterCustom(reflect.TypeFor[CustomField](), decodeCustom)
}

// decodeCustom is CustomField's adapter for lax.
func decodeCustom(ptr any, v pyjson.Value, _ lax.Mode) []lax.ErrorItem {
	err := ptr.(CustomField).DecodeField(v)
	if err == nil {
		return nil
	}
	var fe *FieldError
	if errors.As(err, &fe) && fe != nil {
		typ := fe.Type
		if typ == "" {
			typ = "value_error"
		}
		return []lax.ErrorItem{{Type: typ, Msg: fe.Msg, Input: v}}
	}
	return []lax.ErrorItem{{Type: "value_error", Msg: "Value error, " + err.Error(), Input: v,
		Ctx: []pyjson.Member{{Key: "error", Value: pyjson.ObjectValue()}}}}
}
