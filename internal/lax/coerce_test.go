package lax

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/internal/pyjson"
)

// One-field request types for the coercion table.
type (
	strReq struct {
		X string `json:"x" required:"true"`
	}
	intReq struct {
		X int `json:"x" required:"true"`
	}
	int8Req struct {
		X int8 `json:"x" required:"true"`
	}
	uintReq struct {
		X uint `json:"x" required:"true"`
	}
	uint16Req struct {
		X uint16 `json:"x" required:"true"`
	}
	floatReq struct {
		X float64 `json:"x" required:"true"`
	}
	float32Req struct {
		X float32 `json:"x" required:"true"`
	}
	boolReq struct {
		X bool `json:"x" required:"true"`
	}
)

func mustParse(t testing.TB, s string) pyjson.Value {
	t.Helper()
	v, err := pyjson.Parse([]byte(s))
	if err != nil {
		t.Fatalf("pyjson.Parse(%q): %v", s, err)
	}
	return v
}

// dumps renders a Value as Python's json.dumps would, for comparisons.
func dumps(t testing.TB, v pyjson.Value) string {
	t.Helper()
	b, err := pyjson.AppendValue(nil, &v, pyjson.PythonDumps)
	if err != nil {
		t.Fatalf("AppendValue: %v", err)
	}
	return string(b)
}

// coerceRow is one row of python-compat.md §3's table: the JSON text of the
// field "x", and either the decoded value or the error (type, msg, ctx as
// json.dumps text or "").
type coerceRow struct {
	in      string
	want    any // decoded value of X when errType is ""
	errType string
	msg     string
	ctx     string
}

func runCoerce(t *testing.T, typ reflect.Type, rows []coerceRow) {
	t.Helper()
	plan, err := Compile(typ)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		t.Run(row.in, func(t *testing.T) {
			t.Parallel()
			body := `{"x": ` + row.in + `}`
			v := mustParse(t, body)
			for _, mode := range []Mode{ModeHTTP, ModeMCP} {
				dst := reflect.New(typ).Elem()
				items := plan.Decode(v, dst, mode)
				if row.errType == "" {
					if items != nil {
						t.Fatalf("%v: unexpected errors %s", mode, RenderMCP(items))
					}
					got := dst.Field(0).Interface()
					if !sameValue(got, row.want) {
						t.Fatalf("%v: got %#v, want %#v", mode, got, row.want)
					}
					continue
				}
				if len(items) != 1 {
					t.Fatalf("%v: got %d items %s, want one %s", mode, len(items), RenderMCP(items), row.errType)
				}
				it := items[0]
				if it.Type != row.errType || it.Msg != row.msg {
					t.Fatalf("%v: got %q / %q, want %q / %q", mode, it.Type, it.Msg, row.errType, row.msg)
				}
				if !reflect.DeepEqual(it.Loc, []any{"x"}) {
					t.Fatalf("%v: loc %#v", mode, it.Loc)
				}
				wantIn, _ := v.Get("x")
				if got, want := dumps(t, it.Input), dumps(t, wantIn); got != want {
					t.Fatalf("%v: input %s, want %s", mode, got, want)
				}
				gotCtx := ""
				if it.Ctx != nil {
					gotCtx = dumps(t, pyjson.ObjectValue(it.Ctx...))
				}
				if gotCtx != row.ctx {
					t.Fatalf("%v: ctx %s, want %s", mode, gotCtx, row.ctx)
				}
			}
		})
	}
}

func sameValue(got, want any) bool {
	if g, ok := got.(float64); ok {
		w := want.(float64)
		if math.IsNaN(w) {
			return math.IsNaN(g)
		}
		return g == w && math.Signbit(g) == math.Signbit(w)
	}
	return reflect.DeepEqual(got, want)
}

const (
	strType     = "Input should be a valid string"
	intType     = "Input should be a valid integer"
	intParsing  = "Input should be a valid integer, unable to parse string as an integer"
	intFrac     = "Input should be a valid integer, got a number with a fractional part"
	intSize     = "Unable to parse input string as an integer, exceeded maximum size"
	finite      = "Input should be a finite number"
	floatType   = "Input should be a valid number"
	floatParse  = "Input should be a valid number, unable to parse string as a number"
	boolType    = "Input should be a valid boolean"
	boolParsing = "Input should be a valid boolean, unable to interpret input"
)

func TestCoerceStr(t *testing.T) {
	t.Parallel()
	ok := func(in, want string) coerceRow { return coerceRow{in: in, want: want} }
	bad := func(in string) coerceRow { return coerceRow{in: in, errType: "string_type", msg: strType} }
	runCoerce(t, reflect.TypeFor[strReq](), []coerceRow{
		ok(`"abc"`, "abc"),
		ok(`" abc "`, " abc "), // no trimming
		ok(`""`, ""),
		ok(`"h\u00e9\ud83d\ude00"`, "hé😀"),
		bad(`5`), bad(`1.5`), bad(`true`), bad(`null`), bad(`[]`), bad(`["a"]`), bad(`{}`), bad(`NaN`),
	})
}

func TestCoerceInt(t *testing.T) {
	t.Parallel()
	ok := func(in string, want int) coerceRow { return coerceRow{in: in, want: want} }
	bad := func(in, typ, msg string) coerceRow { return coerceRow{in: in, errType: typ, msg: msg} }
	long := `"` + strings.Repeat("1", 4301) + `"`
	runCoerce(t, reflect.TypeFor[intReq](), []coerceRow{
		ok(`3`, 3), ok(`-3`, -3), ok(`-0`, 0), ok(`3.0`, 3), ok(`-0.0`, 0), ok(`1e3`, 1000), ok(`1E3`, 1000),
		ok(`2.5e1`, 25), ok(`true`, 1), ok(`false`, 0),
		ok(`"3"`, 3), ok(`" 3 "`, 3), ok(`"+3"`, 3), ok(`"003"`, 3), ok(`"-0"`, 0), ok(`"-003"`, -3),
		ok(`"\t3\n"`, 3), ok(`"\u00a03"`, 3), ok(`"\u30003"`, 3), // Unicode White_Space trimmed
		ok(`"3.0"`, 3), ok(`"3.00"`, 3), ok(`"0.0"`, 0), ok(`"-0.0"`, 0), ok(`"00.0"`, 0),
		ok(`"1_000"`, 1000), ok(`"1_000.0"`, 1000), ok(`"0_1"`, 1), ok(`"00"`, 0), ok(`"0_0"`, 0),
		ok(`" -0012_3.000 "`, -123), ok(`"+0"`, 0),
		ok(`9223372036854775807`, math.MaxInt64), ok(`-9223372036854775808`, math.MinInt64),
		ok(`"9223372036854775807"`, math.MaxInt64),
		ok(`9.2e18`, 9200000000000000000), ok(`-9.2e18`, -9200000000000000000),
		bad(`3.5`, "int_from_float", intFrac), bad(`-0.5`, "int_from_float", intFrac),
		bad(`1.0000001`, "int_from_float", intFrac),
		bad(`"3.5"`, "int_parsing", intParsing), bad(`"abc"`, "int_parsing", intParsing),
		bad(`""`, "int_parsing", intParsing), bad(`" "`, "int_parsing", intParsing),
		bad(`"1e3"`, "int_parsing", intParsing), bad(`"inf"`, "int_parsing", intParsing),
		bad(`"nan"`, "int_parsing", intParsing),
		bad(`"1__0"`, "int_parsing", intParsing), bad(`"_1"`, "int_parsing", intParsing),
		bad(`"1_"`, "int_parsing", intParsing), bad(`"0_"`, "int_parsing", intParsing),
		bad(`"+-1"`, "int_parsing", intParsing), bad(`"-+1"`, "int_parsing", intParsing),
		bad(`"--1"`, "int_parsing", intParsing), bad(`"++1"`, "int_parsing", intParsing),
		bad(`"-"`, "int_parsing", intParsing), bad(`"+"`, "int_parsing", intParsing),
		bad(`"3."`, "int_parsing", intParsing), bad(`".0"`, "int_parsing", intParsing),
		bad(`"0x10"`, "int_parsing", intParsing), bad(`"1 000"`, "int_parsing", intParsing),
		bad(`"\u0661\u0662"`, "int_parsing", intParsing), bad(`"3.01"`, "int_parsing", intParsing),
		bad(`"1_0.0_0"`, "int_parsing", intParsing),
		bad(`NaN`, "finite_number", finite), bad(`Infinity`, "finite_number", finite),
		bad(`-Infinity`, "finite_number", finite), bad(`1e400`, "finite_number", finite),
		bad(`1e20`, "int_parsing_size", intSize), bad(`-1e20`, "int_parsing_size", intSize),
		bad(`9.3e18`, "int_parsing_size", intSize), bad(`9223372036854775808.0`, "int_parsing_size", intSize),
		bad(`-9223372036854775808.0`, "int_parsing_size", intSize), // (i64::MIN as f64) < x is strict
		bad(long, "int_parsing_size", intSize),
		bad(`"`+strings.Repeat("1", 4301)+`x"`, "int_parsing_size", intSize), // jiter's digit run
		bad(`" `+strings.Repeat("1", 4301)+`"`, "int_parsing", intParsing),   // cleaned: plain failure
		bad(`null`, "int_type", intType), bad(`[]`, "int_type", intType), bad(`[1]`, "int_type", intType),
		bad(`{}`, "int_type", intType),
		// Beyond Go's int64: Python accepts them; gymkit reports the Go range.
		{in: `123456789012345678901234567890`, errType: "less_than_equal",
			msg: "Input should be less than or equal to 9223372036854775807", ctx: `{"le": 9223372036854775807}`},
		{in: `"-123456789012345678901234567890"`, errType: "greater_than_equal",
			msg: "Input should be greater than or equal to -9223372036854775808", ctx: `{"ge": -9223372036854775808}`},
		{in: `9223372036854775808`, errType: "less_than_equal",
			msg: "Input should be less than or equal to 9223372036854775807", ctx: `{"le": 9223372036854775807}`},
		{in: `"` + strings.Repeat("9", 4300) + `"`, errType: "less_than_equal",
			msg: "Input should be less than or equal to 9223372036854775807", ctx: `{"le": 9223372036854775807}`},
	})
}

func TestCoerceIntRanges(t *testing.T) {
	t.Parallel()
	le := func(in, bound string) coerceRow {
		return coerceRow{in: in, errType: "less_than_equal", msg: "Input should be less than or equal to " + bound, ctx: `{"le": ` + bound + `}`}
	}
	ge := func(in, bound string) coerceRow {
		return coerceRow{in: in, errType: "greater_than_equal", msg: "Input should be greater than or equal to " + bound, ctx: `{"ge": ` + bound + `}`}
	}
	t.Run("int8", func(t *testing.T) {
		t.Parallel()
		runCoerce(t, reflect.TypeFor[int8Req](), []coerceRow{
			{in: `127`, want: int8(127)}, {in: `-128`, want: int8(-128)}, {in: `"0127"`, want: int8(127)},
			{in: `true`, want: int8(1)},
			le(`128`, "127"), ge(`-129`, "-128"), le(`"300"`, "127"), le(`300.0`, "127"),
			le(`99999999999999999999999`, "127"), ge(`-99999999999999999999999`, "-128"),
			{in: `1e20`, errType: "int_parsing_size", msg: intSize}, // pydantic's own limit first
		})
	})
	t.Run("uint", func(t *testing.T) {
		t.Parallel()
		runCoerce(t, reflect.TypeFor[uintReq](), []coerceRow{
			{in: `0`, want: uint(0)}, {in: `-0`, want: uint(0)}, {in: `"-0"`, want: uint(0)},
			{in: `18446744073709551615`, want: uint(math.MaxUint64)},
			{in: `"18446744073709551615"`, want: uint(math.MaxUint64)},
			{in: `9.2e18`, want: uint(9200000000000000000)},
			ge(`-1`, "0"), ge(`"-1"`, "0"), ge(`-1.0`, "0"), ge(`-99999999999999999999999`, "0"),
			le(`18446744073709551616`, "18446744073709551615"),
			{in: `1e19`, errType: "int_parsing_size", msg: intSize},
			{in: `"x"`, errType: "int_parsing", msg: intParsing},
		})
	})
	t.Run("uint16", func(t *testing.T) {
		t.Parallel()
		runCoerce(t, reflect.TypeFor[uint16Req](), []coerceRow{
			{in: `65535`, want: uint16(65535)}, le(`65536`, "65535"), ge(`-1`, "0"),
		})
	})
}

func TestCoerceFloat(t *testing.T) {
	t.Parallel()
	ok := func(in string, want float64) coerceRow { return coerceRow{in: in, want: want} }
	parse := func(in string) coerceRow { return coerceRow{in: in, errType: "float_parsing", msg: floatParse} }
	typ := func(in string) coerceRow { return coerceRow{in: in, errType: "float_type", msg: floatType} }
	inf, nan := math.Inf(1), math.NaN()
	runCoerce(t, reflect.TypeFor[floatReq](), []coerceRow{
		ok(`3`, 3), ok(`-0`, 0), ok(`3.5`, 3.5), ok(`-0.0`, math.Copysign(0, -1)), ok(`true`, 1), ok(`false`, 0),
		ok(`1e400`, inf), ok(`-1e400`, -inf), ok(`NaN`, nan), ok(`Infinity`, inf), ok(`-Infinity`, -inf),
		ok(`123456789012345678901234567890`, 1.2345678901234568e29),
		ok(`"3.5"`, 3.5), ok(`" 3.5 "`, 3.5), ok(`"+1.5"`, 1.5), ok(`".5"`, 0.5), ok(`"5."`, 5),
		ok(`"1e3"`, 1000), ok(`"1E+3"`, 1000), ok(`"1.e3"`, 1000), ok(`"1_000.5"`, 1000.5), ok(`"3"`, 3),
		ok(`"-0"`, math.Copysign(0, -1)), ok(`"1e400"`, inf), ok(`"1_0e1_0"`, 1e11),
		ok(`"inf"`, inf), ok(`"-inf"`, -inf), ok(`"+inf"`, inf), ok(`"INF"`, inf), ok(`"infinity"`, inf),
		ok(`"-Infinity"`, -inf), ok(`"iNfInItY"`, inf), ok(`"nan"`, nan), ok(`"NaN"`, nan), ok(`"-nan"`, nan),
		ok(`" nan "`, nan), ok(`"\u00a01.5"`, 1.5),
		parse(`"abc"`), parse(`""`), parse(`"1,5"`), parse(`"."`), parse(`"e5"`), parse(`"1e"`),
		parse(`"0x1p3"`), parse(`"1__0.5"`), parse(`"_1.5"`), parse(`"1.5_"`), parse(`" 1_0.5"`),
		parse(`"infinit"`), parse(`"nana"`), parse(`"1.5f"`), parse(`"--1"`), parse(`"+-1"`),
		typ(`null`), typ(`[]`), typ(`{}`), typ(`[1.5]`),
		typ(`1` + strings.Repeat("0", 400)), // int too large to convert to float
	})
}

func TestCoerceFloat32(t *testing.T) {
	t.Parallel()
	runCoerce(t, reflect.TypeFor[float32Req](), []coerceRow{
		{in: `0.1`, want: float32(0.1)}, {in: `"2.5"`, want: float32(2.5)},
		{in: `1e300`, want: float32(math.Inf(1))}, // rounded like a C cast
	})
}

func TestCoerceBool(t *testing.T) {
	t.Parallel()
	ok := func(in string, want bool) coerceRow { return coerceRow{in: in, want: want} }
	parsing := func(in string) coerceRow { return coerceRow{in: in, errType: "bool_parsing", msg: boolParsing} }
	typ := func(in string) coerceRow { return coerceRow{in: in, errType: "bool_type", msg: boolType} }
	runCoerce(t, reflect.TypeFor[boolReq](), []coerceRow{
		ok(`true`, true), ok(`false`, false),
		ok(`"0"`, false), ok(`"f"`, false), ok(`"n"`, false), ok(`"no"`, false), ok(`"off"`, false),
		ok(`"false"`, false), ok(`"F"`, false), ok(`"NO"`, false), ok(`"Off"`, false), ok(`"FALSE"`, false),
		ok(`"1"`, true), ok(`"t"`, true), ok(`"y"`, true), ok(`"yes"`, true), ok(`"on"`, true),
		ok(`"true"`, true), ok(`"T"`, true), ok(`"YES"`, true), ok(`"On"`, true), ok(`"TrUe"`, true),
		ok(`0`, false), ok(`1`, true), ok(`-0`, false), ok(`0.0`, false), ok(`1.0`, true), ok(`-0.0`, false),
		ok(`1e0`, true),
		parsing(`"2"`), parsing(`" true"`), parsing(`"true "`), parsing(`""`), parsing(`"tru"`),
		parsing(`"ye\u017f"`), parsing(`"00"`), parsing(`"1.0"`),
		parsing(`2`), parsing(`-1`), parsing(`2.0`), parsing(`-1.0`), parsing(`9223372036854775807`),
		parsing(`-9223372036854775808`), parsing(`1e18`),
		typ(`0.5`), typ(`NaN`), typ(`Infinity`), typ(`1e20`), typ(`100000000000000000000`),
		typ(`null`), typ(`[]`), typ(`{}`),
	})
}
