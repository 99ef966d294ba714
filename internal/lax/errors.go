package lax

import (
	"math"
	"strconv"

	"github.com/gymkit/gymkit/internal/pyjson"
)

// ErrorItem is one pydantic error item, as pydantic-core's
// ValidationError.errors() lists it.
//
// Loc holds string keys and int indexes, without FastAPI's "body" prefix (the
// renderers add it where the wire has it); an empty Loc is the value itself.
// Input is the offending value as received (for "missing", the enclosing
// object). Ctx is nil when pydantic gives no ctx, otherwise its members in
// pydantic's order.
type ErrorItem struct {
	Type  string
	Loc   []any
	Msg   string
	Input pyjson.Value
	Ctx   []pyjson.Member
}

// The pydantic error types this package produces, with their messages as
// pydantic-core 2.46 (pydantic 2.13) renders them for Python input
// [src: pydantic-core/src/errors/types.rs › message_template_python].
const (
	TypeMissing             = "missing"
	TypeExtraForbidden      = "extra_forbidden"
	TypeModelType           = "model_type"
	TypeModelAttributesType = "model_attributes_type"
	TypeStringType          = "string_type"
	TypeIntType             = "int_type"
	TypeIntParsing          = "int_parsing"
	TypeIntFromFloat        = "int_from_float"
	TypeIntParsingSize      = "int_parsing_size"
	TypeFiniteNumber        = "finite_number"
	TypeFloatType           = "float_type"
	TypeFloatParsing        = "float_parsing"
	TypeBoolType            = "bool_type"
	TypeBoolParsing         = "bool_parsing"
	TypeListType            = "list_type"
	TypeDictType            = "dict_type"
	TypeLiteralError        = "literal_error"
	TypeGreaterThanEqual    = "greater_than_equal"
	TypeLessThanEqual       = "less_than_equal"
)

const (
	msgMissing             = "Field required"
	msgExtraForbidden      = "Extra inputs are not permitted"
	msgModelTypePrefix     = "Input should be a valid dictionary or instance of "
	msgModelAttributesType = "Input should be a valid dictionary or object to extract fields from"
	msgStringType          = "Input should be a valid string"
	msgIntType             = "Input should be a valid integer"
	msgIntParsing          = "Input should be a valid integer, unable to parse string as an integer"
	msgIntFromFloat        = "Input should be a valid integer, got a number with a fractional part"
	msgIntParsingSize      = "Unable to parse input string as an integer, exceeded maximum size"
	msgFiniteNumber        = "Input should be a finite number"
	msgFloatType           = "Input should be a valid number"
	msgFloatParsing        = "Input should be a valid number, unable to parse string as a number"
	msgBoolType            = "Input should be a valid boolean"
	msgBoolParsing         = "Input should be a valid boolean, unable to interpret input"
	msgListType            = "Input should be a valid list"
	msgDictType            = "Input should be a valid dictionary"
	msgLiteralPrefix       = "Input should be "
	msgGEPrefix            = "Input should be greater than or equal to "
	msgLEPrefix            = "Input should be less than or equal to "
)

// simpleMsg maps the ctx-less error types to their fixed messages.
var simpleMsg = map[string]string{
	TypeMissing:             msgMissing,
	TypeExtraForbidden:      msgExtraForbidden,
	TypeModelAttributesType: msgModelAttributesType,
	TypeStringType:          msgStringType,
	TypeIntType:             msgIntType,
	TypeIntParsing:          msgIntParsing,
	TypeIntFromFloat:        msgIntFromFloat,
	TypeIntParsingSize:      msgIntParsingSize,
	TypeFiniteNumber:        msgFiniteNumber,
	TypeFloatType:           msgFloatType,
	TypeFloatParsing:        msgFloatParsing,
	TypeBoolType:            msgBoolType,
	TypeBoolParsing:         msgBoolParsing,
	TypeListType:            msgListType,
	TypeDictType:            msgDictType,
}

// MissingBody returns the item FastAPI reports for an absent, empty or null
// request body: {"type":"missing","loc":[],"msg":"Field required","input":null}.
// The HTTP renderer turns its empty Loc into ["body"]. It holds even when every
// field is optional.
func MissingBody() ErrorItem {
	return ErrorItem{Type: TypeMissing, Loc: []any{}, Msg: msgMissing, Input: pyjson.NullValue()}
}

// rangeItem builds the ge/le item for an int outside the Go type's range;
// bound is the decimal text of the violated bound.
func rangeItem(low bool, bound string, in pyjson.Value) ErrorItem {
	if low {
		return ErrorItem{Type: TypeGreaterThanEqual, Msg: msgGEPrefix + bound, Input: in,
			Ctx: []pyjson.Member{{Key: "ge", Value: pyjson.NumberValue(bound)}}}
	}
	return ErrorItem{Type: TypeLessThanEqual, Msg: msgLEPrefix + bound, Input: in,
		Ctx: []pyjson.Member{{Key: "le", Value: pyjson.NumberValue(bound)}}}
}

func modelTypeItem(className string, in pyjson.Value) ErrorItem {
	return ErrorItem{Type: TypeModelType, Msg: msgModelTypePrefix + className, Input: in,
		Ctx: []pyjson.Member{{Key: "class_name", Value: pyjson.StringValue(className)}}}
}

func literalItem(expected string, in pyjson.Value) ErrorItem {
	return ErrorItem{Type: TypeLiteralError, Msg: msgLiteralPrefix + expected, Input: in,
		Ctx: []pyjson.Member{{Key: "expected", Value: pyjson.StringValue(expected)}}}
}

// intBounds returns the range of a signed integer of the given size as
// decimal text.
func intBounds(bits int) (lo, hi string) {
	return strconv.FormatInt(math.MinInt64>>(64-bits), 10), strconv.FormatInt(math.MaxInt64>>(64-bits), 10)
}

// uintBound returns the largest unsigned integer of the given size as
// decimal text.
func uintBound(bits int) string {
	return strconv.FormatUint(math.MaxUint64>>(64-bits), 10)
}
