package framework

import (
	"encoding/json"
	"math/big"
	"reflect"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/framework/internal/schema"
	"github.com/gymkit/gymkit/internal/lax"
	"github.com/gymkit/gymkit/internal/pyjson"
)

// intCases are pydantic 2.13's answers for a lax `int` field. The ones marked
// "golden" are recorded answers of NeMo's Python counter
// (../shared/data/nemo-gym-peer/example_session_state_mgmt_resources_server.jsonl,
// scenario "http"); the others follow pydantic-core's validate_int
// (../shared/spec/python-compat.md).
var intCases = []struct {
	in      string // the JSON value
	want    string // the int's decimal text, when accepted
	errType string // pydantic's error type, when refused
}{
	{`2`, "2", ""},          // golden
	{`"4"`, "4", ""},        // golden
	{`1.0`, "1", ""},        // golden
	{`true`, "1", ""},       // golden
	{`false`, "0", ""},      //
	{`1e3`, "1000", ""},     // golden
	{`" 5 "`, "5", ""},      // golden
	{`"5.0"`, "5", ""},      // golden
	{`-0`, "0", ""},         // golden
	{`-0.0`, "0", ""},       //
	{`"+5"`, "5", ""},       //
	{`"-5"`, "-5", ""},      //
	{`"007"`, "7", ""},      //
	{`"1_000"`, "1000", ""}, //
	{`"5.000"`, "5", ""},    //
	{`-4`, "-4", ""},        //
	{`9223372036854775807`, "9223372036854775807", ""},
	{`9223372036854775808`, "9223372036854775808", ""},                           // 2^63: an int64 field's 422, fine here
	{`-9223372036854775809`, "-9223372036854775809", ""},                         //
	{`123456789012345678901234567890`, "123456789012345678901234567890", ""},     // golden
	{`"-123456789012345678901234567890"`, "-123456789012345678901234567890", ""}, //
	{`1.5`, "", lax.TypeIntFromFloat},                                            // golden
	{`2.5`, "", lax.TypeIntFromFloat},                                            // golden (initial_count)
	{`-0.5`, "", lax.TypeIntFromFloat},                                           //
	{`"abc"`, "", lax.TypeIntParsing},                                            // golden
	{`"true"`, "", lax.TypeIntParsing},                                           // golden
	{`"1e3"`, "", lax.TypeIntParsing},                                            //
	{`"1.5"`, "", lax.TypeIntParsing},                                            //
	{`""`, "", lax.TypeIntParsing},                                               //
	{`"1__0"`, "", lax.TypeIntParsing},                                           //
	{`"0x10"`, "", lax.TypeIntParsing},                                           //
	{`null`, "", lax.TypeIntType},                                                // golden
	{`[1]`, "", lax.TypeIntType},                                                 // golden
	{`{}`, "", lax.TypeIntType},                                                  //
	{`1e30`, "", lax.TypeIntParsingSize},                                         // a float beyond ±2^63, as pydantic's float_as_int
	{`9.3e18`, "", lax.TypeIntParsingSize},
	{`NaN`, "", lax.TypeFiniteNumber},
	{`-Infinity`, "", lax.TypeFiniteNumber},
	{`"` + strings.Repeat("1", 4301) + `"`, "", lax.TypeIntParsingSize},
}

func TestIntUnmarshalPy(t *testing.T) {
	t.Parallel()
	for _, c := range intCases {
		v, err := pyjson.Parse([]byte(c.in))
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		for _, m := range []lax.Mode{lax.ModeHTTP, lax.ModeMCP} {
			x := IntOf(42)
			items := x.UnmarshalPy(v, m)
			switch {
			case c.errType == "" && items != nil:
				t.Errorf("%s (%v): refused %+v, want %s", c.in, m, items, c.want)
			case c.errType == "" && x.String() != c.want:
				t.Errorf("%s (%v): got %s, want %s", c.in, m, x, c.want)
			case c.errType != "" && (len(items) != 1 || items[0].Type != c.errType || len(items[0].Loc) != 0):
				t.Errorf("%s (%v): got %s %+v, want one %s item", c.in, m, x, items, c.errType)
			case c.errType != "" && x.String() != "42":
				t.Errorf("%s (%v): a refusal changed the value to %s", c.in, m, x)
			}
		}
	}
}

type intReq struct {
	Count Int  `json:"count" required:"true"`
	Opt   *Int `json:"opt"`
}

// TestIntInAModel: the items as FastAPI's 422 lists them (loc with the field,
// pydantic's message, the input as received) and *Int as Optional[int].
func TestIntInAModel(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]string{
		`{"count":1.5}`:         `[{"type":"int_from_float","loc":["body","count"],"msg":"Input should be a valid integer, got a number with a fractional part","input":1.5}]`,
		`{"count":"abc"}`:       `[{"type":"int_parsing","loc":["body","count"],"msg":"Input should be a valid integer, unable to parse string as an integer","input":"abc"}]`,
		`{"count":null}`:        `[{"type":"int_type","loc":["body","count"],"msg":"Input should be a valid integer","input":null}]`,
		`{"count":1e30}`:        `[{"type":"int_parsing_size","loc":["body","count"],"msg":"Unable to parse input string as an integer, exceeded maximum size","input":1e+30}]`,
		`{}`:                    `[{"type":"missing","loc":["body","count"],"msg":"Field required","input":{}}]`,
		`{"count":1,"opt":"x"}`: `[{"type":"int_parsing","loc":["body","opt"],"msg":"Input should be a valid integer, unable to parse string as an integer","input":"x"}]`,
	} {
		v, _ := pyjson.Parse([]byte(body))
		_, items := lax.DecodeInto[intReq](v, lax.ModeHTTP)
		got := string(lax.RenderHTTP(items))
		if !strings.HasPrefix(got, `{"detail":`+want) {
			t.Errorf("%s:\n got %s\nwant {\"detail\":%s}", body, got, want)
		}
	}
	v, _ := pyjson.Parse([]byte(`{"count":"123456789012345678901234567890","opt":null}`))
	r, items := lax.DecodeInto[intReq](v, lax.ModeMCP)
	if items != nil || r.Count.String() != "123456789012345678901234567890" || r.Opt != nil {
		t.Errorf("got %+v %v", r, items)
	}
	v, _ = pyjson.Parse([]byte(`{"count":0,"opt":-7}`))
	if r, items = lax.DecodeInto[intReq](v, lax.ModeHTTP); items != nil || r.Opt == nil || !r.Opt.Equal(IntOf(-7)) {
		t.Errorf("got %+v %v", r, items)
	}
}

// TestIntJSON: a bare integer in every writer and through encoding/json
// (session state), both ways.
func TestIntJSON(t *testing.T) {
	t.Parallel()
	big30, _ := ParseInt("-123456789012345678901234567890")
	type resp struct {
		Count Int  `json:"count"`
		Opt   *Int `json:"opt"`
		Zero  Int  `json:"zero"`
	}
	in := resp{Count: big30}
	want := `{"count":-123456789012345678901234567890,"opt":null,"zero":0}`
	for _, style := range []JSONStyle{JSONPydantic, JSONPython} {
		if b, err := MarshalJSON(in, style); err != nil || string(b) != want {
			t.Errorf("MarshalJSON(%v) = %s, %v; want %s", style, b, err, want)
		}
	}
	if b, err := MarshalJSON(in, JSONPythonDumps); err != nil || string(b) != `{"count": -123456789012345678901234567890, "opt": null, "zero": 0}` {
		t.Errorf("JSONPythonDumps: %s, %v", b, err)
	}
	b, err := json.Marshal(in)
	if err != nil || string(b) != want {
		t.Fatalf("json.Marshal = %s, %v", b, err)
	}
	var out resp
	if err := json.Unmarshal(b, &out); err != nil || !out.Count.Equal(big30) || out.Opt != nil || !out.Zero.IsZero() {
		t.Errorf("json.Unmarshal: %+v, %v", out, err)
	}
	for _, bad := range []string{`"3"`, `3.0`, `true`, `{}`} {
		var x Int
		if err := json.Unmarshal([]byte(bad), &x); err == nil {
			t.Errorf("json.Unmarshal(%s) = %s, want an error", bad, x)
		}
	}
	// More than 4300 digits: kept in state, refused in a response as
	// Python's int-to-text conversion refuses it.
	huge, _ := ParseInt(strings.Repeat("9", 4301))
	if b, err := json.Marshal(huge); err != nil || len(b) != 4301 {
		t.Errorf("json.Marshal(4301 digits): %d bytes, %v", len(b), err)
	}
	if _, err := MarshalJSON(resp{Count: huge}, JSONPydantic); err == nil {
		t.Error("MarshalJSON(4301 digits): no error")
	}
}

func TestIntArithmetic(t *testing.T) {
	t.Parallel()
	a, err := ParseInt("123456789012345678901234567890")
	if err != nil {
		t.Fatal(err)
	}
	sum := a.Add(IntOf(1021))
	if sum.String() != "123456789012345678901234568911" { // the golden's get_counter_value
		t.Errorf("sum %s", sum)
	}
	if !sum.Sub(IntOf(1021)).Equal(a) || sum.Cmp(a) != 1 || a.Cmp(sum) != -1 || a.Neg().Sign() != -1 {
		t.Error("Sub, Cmp or Neg")
	}
	max := IntOf(1<<63 - 1)
	if n, ok := max.Add(IntOf(1)).Int64(); ok {
		t.Errorf("2^63 fits an int64: %d", n)
	}
	if n, ok := max.Int64(); !ok || n != 1<<63-1 {
		t.Errorf("Int64 = %d, %v", n, ok)
	}
	var zero Int
	if zero.String() != "0" || !zero.Equal(IntOf(0)) || !zero.Equal(IntFromBig(nil)) || !IntOf(5).Sub(IntOf(5)).Equal(zero) {
		t.Error("the zero Int is not 0")
	}
	b := big.NewInt(7)
	x := IntFromBig(b)
	b.SetInt64(8)
	if x.String() != "7" {
		t.Error("IntFromBig shares its argument")
	}
	x.Big().SetInt64(9)
	if x.String() != "7" {
		t.Error("Big shares the value")
	}
	for _, bad := range []string{"", "-", "+", "1.0", " 1", "1_000", "0x10", "abc"} {
		if _, err := ParseInt(bad); err == nil {
			t.Errorf("ParseInt(%q): no error", bad)
		}
	}
	if x, err := ParseInt("+007"); err != nil || x.String() != "7" {
		t.Errorf("ParseInt(+007) = %s, %v", x, err)
	}
}

// TestIntSchema: pydantic's schema for int and Optional[int].
func TestIntSchema(t *testing.T) {
	t.Parallel()
	type req struct {
		Count Int  `json:"count" required:"true"`
		Opt   *Int `json:"opt"`
	}
	got, err := schema.For(reflect.TypeFor[req]())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"properties":{"count":{"title":"Count","type":"integer"},"opt":{"anyOf":[{"type":"integer"},{"type":"null"}],"title":"Opt"}},"required":["count"],"title":"req","type":"object"}`
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// FuzzIntUnmarshalPy checks the decoder against the int64 field decoder
// (pydantic's same validate_int): wherever an int64 field accepts a value,
// Int gives the same number; where it answers a range error, Int accepts
// the value; any other refusal is the same error type. Accepted values are
// canonical and round-trip through MarshalJSON.
func FuzzIntUnmarshalPy(f *testing.F) {
	for _, c := range intCases {
		f.Add(c.in)
	}
	f.Add(`"  -0012_3.00 "`)
	f.Add(`99999999999999999999999999999999999999`)
	f.Fuzz(func(t *testing.T, in string) {
		v, err := pyjson.Parse([]byte(in))
		if err != nil {
			return
		}
		var x Int
		items := x.UnmarshalPy(v, lax.ModeHTTP)
		n, small := lax.DecodeInto[int64](v, lax.ModeHTTP)
		switch {
		case small == nil:
			if items != nil || x.String() != big.NewInt(n).String() {
				t.Fatalf("%s: int64 %d, Int %s %+v", in, n, x, items)
			}
		case small[0].Type == lax.TypeGreaterThanEqual || small[0].Type == lax.TypeLessThanEqual:
			if items != nil {
				t.Fatalf("%s: Int refused a big int: %+v", in, items)
			}
			if _, ok := x.Int64(); ok {
				t.Fatalf("%s: %s fits an int64 but the int64 field refused it", in, x)
			}
		default:
			if len(items) != 1 || items[0].Type != small[0].Type {
				t.Fatalf("%s: int64 %+v, Int %+v", in, small, items)
			}
			return
		}
		b, err := x.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if s := x.String(); string(b) != s || (s != "0" && strings.TrimLeft(strings.TrimPrefix(s, "-"), "123456789") == strings.TrimPrefix(s, "-")) {
			t.Fatalf("%s: not canonical: %s", in, b)
		}
		var back Int
		if err := back.UnmarshalJSON(b); err != nil || !back.Equal(x) {
			t.Fatalf("%s: round trip %s: %s, %v", in, b, back, err)
		}
	})
}
