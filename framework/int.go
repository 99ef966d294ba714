package framework

import (
	"errors"
	"math/big"

	"github.com/gymkit/gymkit/internal/lax"
	"github.com/gymkit/gymkit/internal/pyjson"
)

// Int is a Python int: an integer of any size, for request, response and
// session-state fields that a Python resources server declares as `int` and
// whose values may leave the int64 range (a counter, a sum, an id). Use a Go
// int where the Python value is bounded by the task; an int field answers 422
// beyond its range, an Int never does.
//
// The zero Int is 0. Int is a small immutable value: copy it freely, compare
// it with [Int.Cmp] or [Int.Equal] (not ==), and make new ones with [IntOf],
// [IntFromBig], [ParseInt] and the arithmetic methods.
//
// Decoding (request bodies, both the HTTP and the MCP door) is pydantic v2's
// lax `int`, as FastAPI validates the json.loads result:
//
//	accepted                                gives
//	JSON ints of any size, -0               the int (123456789012345678901234567890 exactly; -0 is 0)
//	integral floats within ±2^63: 1.0, 1e3  1, 1000
//	true, false                             1, 0
//	strings: "4", " 5 ", "+5", "5.0",       4, 5, 5, 5,
//	  "007", "1_000"                        7, 1000 (trimmed; ".0…" dropped; underscores between digits)
//
//	refused (422)                           pydantic's item
//	1.5, 2.5                                int_from_float "Input should be a valid integer, got a number with a fractional part"
//	"abc", "true", "1e3", "1.5", ""         int_parsing "Input should be a valid integer, unable to parse string as an integer"
//	null, [1], {}                           int_type "Input should be a valid integer"
//	floats with |x| >= 2^63 (1e30),         int_parsing_size "Unable to parse input string as an integer, exceeded maximum size"
//	  strings of more than 4300 digits
//	NaN, Infinity                           finite_number "Input should be a finite number"
//
// Encoding (response bodies, MCP structuredContent, session state through
// encoding/json) is a bare JSON integer in decimal, as Python writes an int:
// {"count":123456789012345678901234567890}. Its JSON Schema (MCP inputSchema
// and outputSchema) is {"type":"integer"}, pydantic's for int. A *Int field is
// Optional[int]: null gives nil.
type Int struct {
	b *big.Int // nil is 0; never mutated once stored
}

// SessionImmutable marks Int as a value that never changes once made
// (session.Immutable): the memory store's typed session.Update copies an
// Int field by assignment instead of a JSON round trip.
func (Int) SessionImmutable() {}

// IntOf returns n as an Int.
func IntOf(n int64) Int {
	if n == 0 {
		return Int{}
	}
	return Int{big.NewInt(n)}
}

// IntFromBig returns a copy of b as an Int (nil is 0).
func IntFromBig(b *big.Int) Int {
	if b == nil || b.Sign() == 0 {
		return Int{}
	}
	return Int{new(big.Int).Set(b)}
}

// ParseInt parses s, an optional '-' or '+' then decimal digits, exactly.
// It is not pydantic's lax parsing (which request decoding applies): use it
// for constants and trusted text.
func ParseInt(s string) (Int, error) {
	if s == "" || s == "-" || s == "+" {
		return Int{}, errInvalidInt(s)
	}
	digits := s
	if digits[0] == '-' || digits[0] == '+' {
		digits = digits[1:]
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return Int{}, errInvalidInt(s)
		}
	}
	b, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return Int{}, errInvalidInt(s)
	}
	return IntFromBig(b), nil
}

func errInvalidInt(s string) error {
	return errors.New("framework: invalid int " + pyjson.ReprString(s))
}

func (x Int) big() *big.Int {
	if x.b == nil {
		return new(big.Int)
	}
	return x.b
}

// Big returns x as a new *big.Int, which the caller may modify.
func (x Int) Big() *big.Int { return new(big.Int).Set(x.big()) }

// Int64 returns x as an int64; ok is false when x is outside the int64 range.
func (x Int) Int64() (n int64, ok bool) {
	if x.b == nil {
		return 0, true
	}
	if !x.b.IsInt64() {
		return 0, false
	}
	return x.b.Int64(), true
}

// Add returns x + y.
func (x Int) Add(y Int) Int { return wrap(new(big.Int).Add(x.big(), y.big())) }

// Sub returns x - y.
func (x Int) Sub(y Int) Int { return wrap(new(big.Int).Sub(x.big(), y.big())) }

// Neg returns -x.
func (x Int) Neg() Int { return wrap(new(big.Int).Neg(x.big())) }

// Cmp compares x and y: -1 if x < y, 0 if x == y, +1 if x > y.
func (x Int) Cmp(y Int) int { return x.big().Cmp(y.big()) }

// Equal reports whether x == y (Python's ==).
func (x Int) Equal(y Int) bool { return x.Cmp(y) == 0 }

// Sign returns -1, 0 or +1.
func (x Int) Sign() int {
	if x.b == nil {
		return 0
	}
	return x.b.Sign()
}

// IsZero reports whether x is 0.
func (x Int) IsZero() bool { return x.Sign() == 0 }

// String returns x in decimal, as Python's str(int): "-12", "0".
func (x Int) String() string {
	if x.b == nil {
		return "0"
	}
	return x.b.String()
}

func wrap(b *big.Int) Int {
	if b.Sign() == 0 {
		return Int{}
	}
	return Int{b}
}

// MarshalJSON writes x as a bare JSON integer of any length (session state
// keeps every digit). Written in a response, an Int of more than 4300 digits
// fails as Python's int-to-text conversion does (a 500 in both servers).
func (x Int) MarshalJSON() ([]byte, error) { return x.big().Append(nil, 10), nil }

// UnmarshalJSON reads a JSON integer literal (what MarshalJSON writes: for
// session state and Go-side JSON). It is strict: request bodies are decoded
// with pydantic's lax rules instead (see [Int]).
func (x *Int) UnmarshalJSON(data []byte) error {
	v, err := pyjson.Parse(data)
	if err != nil {
		return err
	}
	b, ok := v.BigInt()
	if !ok {
		return errors.New("framework: Int: not a JSON integer: " + string(data))
	}
	*x = wrap(b)
	return nil
}

// UnmarshalPy decodes a request field with pydantic's lax int rules (see
// [Int]); it is how gymkit's body decoder reaches the type, not an API to
// call.
func (x *Int) UnmarshalPy(v pyjson.Value, m lax.Mode) []lax.ErrorItem {
	text, items := lax.Int(v, m)
	if items != nil {
		return items
	}
	b, ok := new(big.Int).SetString(text, 10)
	if !ok { // lax.Int returns canonical decimal text
		panic("framework: Int: lax returned " + text)
	}
	*x = wrap(b)
	return nil
}

// JSONSchemaBytes returns the field's JSON Schema, {"type":"integer"}, for
// the tool schemas gymkit generates.
func (Int) JSONSchemaBytes() ([]byte, error) { return []byte(`{"type":"integer"}`), nil }
