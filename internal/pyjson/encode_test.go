package pyjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/netip"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestFloatStyles(t *testing.T) {
	t.Parallel()
	// python-compat 4.5, small-servers 0 and 3.4, plus edges.
	tests := []struct {
		f        float64
		python   string
		pydantic string
	}{
		{1.0, "1.0", "1.0"},
		{0, "0.0", "0.0"},
		{math.Copysign(0, -1), "-0.0", "-0.0"},
		{1e15, "1000000000000000.0", "1000000000000000.0"},
		{1e16, "1e+16", "1e+16"},
		{1e-05, "1e-05", "0.00001"},
		{0.0001, "0.0001", "0.0001"},
		{1e-06, "1e-06", "1e-6"},
		{1.5e-07, "1.5e-07", "1.5e-7"},
		{1e100, "1e+100", "1e+100"},
		{1e-100, "1e-100", "1e-100"},
		{4096, "4096.0", "4096.0"},
		{-3, "-3.0", "-3.0"},
		{0.5, "0.5", "0.5"},
		{9.9, "9.9", "9.9"},
		{7.2, "7.2", "7.2"},
		{0.28366218546322625, "0.28366218546322625", "0.28366218546322625"},
		{-142.64940296754523, "-142.64940296754523", "-142.64940296754523"},
		{12054.673528305822, "12054.673528305822", "12054.673528305822"},
		{2.718281828459045, "2.718281828459045", "2.718281828459045"},
		{-0.7182818284590451, "-0.7182818284590451", "-0.7182818284590451"},
		{1.9852338425251217, "1.9852338425251217", "1.9852338425251217"},
		{123456789012345678, "1.2345678901234568e+17", "1.2345678901234568e+17"},
		{9999999999999998, "9999999999999998.0", "9999999999999998.0"},
		{1234567890123456.8, "1234567890123456.8", "1234567890123456.8"},
		{0.00012345, "0.00012345", "0.00012345"},
		{0.000012345, "1.2345e-05", "0.000012345"},
		{1.2345e-6, "1.2345e-06", "1.2345e-6"},
		{5e-324, "5e-324", "5e-324"},
		{math.MaxFloat64, "1.7976931348623157e+308", "1.7976931348623157e+308"},
		{1e21, "1e+21", "1e+21"},
		{1e22, "1e+22", "1e+22"},
		{-1e16, "-1e+16", "-1e+16"},
		{1.5e300, "1.5e+300", "1.5e+300"},
		{100, "100.0", "100.0"},
		{1e-4, "0.0001", "0.0001"},
	}
	for _, tt := range tests {
		t.Run(tt.python, func(t *testing.T) {
			t.Parallel()
			if got := string(AppendFloat(nil, tt.f, 64, PythonFloats)); got != tt.python {
				t.Errorf("PythonFloats: got %s, want %s", got, tt.python)
			}
			if got := string(AppendFloat(nil, tt.f, 64, PydanticFloats)); got != tt.pydantic {
				t.Errorf("PydanticFloats: got %s, want %s", got, tt.pydantic)
			}
			b, err := Marshal(tt.f, Pydantic)
			if err != nil || string(b) != tt.pydantic {
				t.Errorf("Marshal Pydantic: %s %v", b, err)
			}
			b, err = Marshal(tt.f, Python)
			if err != nil || string(b) != tt.python {
				t.Errorf("Marshal Python: %s %v", b, err)
			}
		})
	}
}

func TestFloatRoundTripRandom(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 30000; i++ {
		var f float64
		switch i % 4 {
		case 0:
			f = math.Float64frombits(r.Uint64())
		case 1:
			f = r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20))
		case 2:
			f = float64(r.Int64N(1<<53)) / math.Pow(10, float64(r.IntN(20)))
		default:
			f = float64(float32(r.Float64() * 1000))
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		for _, style := range []FloatStyle{PydanticFloats, PythonFloats} {
			s := string(AppendFloat(nil, f, 64, style))
			back, err := strconv.ParseFloat(s, 64)
			if err != nil || math.Float64bits(back) != math.Float64bits(f) {
				t.Fatalf("%v (%x) style %d: %s does not round-trip", f, math.Float64bits(f), style, s)
			}
			if !strings.ContainsAny(s, ".e") {
				t.Fatalf("%v: %s is not in float form", f, s)
			}
			// The digits are the shortest ones, as strconv's.
			want := strconv.FormatFloat(f, 'e', -1, 64)
			if digits(s) != digits(want) {
				t.Fatalf("%v: digits of %s differ from %s", f, s, want)
			}
		}
	}
}

// digits returns the significant digits of a float text.
func digits(s string) string {
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		s = s[:i]
	}
	s = strings.NewReplacer("-", "", ".", "").Replace(s)
	s = strings.TrimLeft(s, "0")
	s = strings.TrimRight(s, "0")
	return s
}

func TestFloat32(t *testing.T) {
	t.Parallel()
	b, err := Marshal([]float32{0.1, 3, 1e-7, 16777216, 1e20, 123456789012, -0.0}, Pydantic)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `[0.1,3.0,1e-7,16777216.0,1e+20,123456790000.0,0.0]`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

func TestNaNModes(t *testing.T) {
	t.Parallel()
	in := []any{math.NaN(), math.Inf(1), math.Inf(-1), NumberValue("NaN"), NumberValue("Infinity"),
		NumberValue("-Infinity"), NumberValue("1e400"), NumberValue("-1e400"), float32(math.Inf(1))}
	tests := []struct {
		mode NaNMode
		want []string // per item; an error text when it starts with "!"
	}{
		{NaNAsNull, []string{"null", "null", "null", "null", "null", "null", "null", "null", "null"}},
		{NaNLiteral, []string{"NaN", "Infinity", "-Infinity", "NaN", "Infinity", "-Infinity", "Infinity", "-Infinity", "Infinity"}},
		{NaNError, []string{"!nan", "!inf", "!-inf", "!nan", "!inf", "!-inf", "!inf", "!-inf", "!inf"}},
	}
	for _, tt := range tests {
		for i, x := range in {
			b, err := Marshal(x, Options{NaN: tt.mode})
			want := tt.want[i]
			if strings.HasPrefix(want, "!") {
				var fe *FloatRangeError
				if !errors.As(err, &fe) || err.Error() != "Out of range float values are not JSON compliant: "+want[1:] {
					t.Errorf("mode %d item %d: got %s, %v", tt.mode, i, b, err)
				}
				continue
			}
			if err != nil || string(b) != want {
				t.Errorf("mode %d item %d: got %s, %v; want %s", tt.mode, i, b, err, want)
			}
		}
	}
}

func TestStringEscapes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in    string
		raw   string
		ascii string
	}{
		{"", `""`, `""`},
		{"plain", `"plain"`, `"plain"`},
		{"\"\\\n\r\t\b\f", `"\"\\\n\r\t\b\f"`, `"\"\\\n\r\t\b\f"`},
		{"\x00\x01\x1f", `"\u0000\u0001\u001f"`, `"\u0000\u0001\u001f"`},
		{"<>&/'", `"<>&/'"`, `"<>&/'"`},
		{"\x7f", "\"\x7f\"", `"\u007f"`},
		{"\u2028\u2029", "\"\u2028\u2029\"", `"\u2028\u2029"`},
		{"é", `"é"`, `"\u00e9"`},
		{"\u00ff\u0100\uABCD", "\"\u00ff\u0100\uABCD\"", `"\u00ff\u0100\uabcd"`},
		{"😀", `"😀"`, `"\ud83d\ude00"`},
		{"\U0010FFFF", "\"\U0010FFFF\"", `"\udbff\udfff"`},
		{"a\xffb", "\"a\uFFFDb\"", `"a\ufffdb"`},
		{"\xed\xa0\x80", "\"\uFFFD\uFFFD\uFFFD\"", `"\ufffd\ufffd\ufffd"`},
		{strings.Repeat("abcdefg\"", 5), `"` + strings.Repeat(`abcdefg\"`, 5) + `"`, `"` + strings.Repeat(`abcdefg\"`, 5) + `"`},
		{"0123456789abcdef\x7f", "\"0123456789abcdef\x7f\"", `"0123456789abcdef\u007f"`},
		{"01234567é9abcdef", `"01234567é9abcdef"`, `"01234567\u00e99abcdef"`},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			t.Parallel()
			if got := string(appendString(nil, tt.in, false)); got != tt.raw {
				t.Errorf("raw: got %s, want %s", got, tt.raw)
			}
			if got := string(appendString(nil, tt.in, true)); got != tt.ascii {
				t.Errorf("ascii: got %s, want %s", got, tt.ascii)
			}
			b, err := Marshal(tt.in, PythonDumps)
			if err != nil || string(b) != tt.ascii {
				t.Errorf("PythonDumps: %s %v", b, err)
			}
		})
	}
}

func TestLayouts(t *testing.T) {
	t.Parallel()
	v, err := Parse([]byte(`{"a":[1,2,{}],"b":{"x":null,"é":[]},"c":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		o    Options
		want string
	}{
		{Pydantic, `{"a":[1,2,{}],"b":{"x":null,"é":[]},"c":[]}`},
		{Python, `{"a":[1,2,{}],"b":{"x":null,"é":[]},"c":[]}`},
		{PythonDumps, `{"a": [1, 2, {}], "b": {"x": null, "\u00e9": []}, "c": []}`},
		{Options{Indent: 2}, "{\n  \"a\": [\n    1,\n    2,\n    {}\n  ],\n  \"b\": {\n    \"x\": null,\n    \"é\": []\n  },\n  \"c\": []\n}"},
		{Options{Indent: 4, SpacedSeparators: true, EnsureASCII: true}, "{\n    \"a\": [\n        1,\n        2,\n        {}\n    ],\n    \"b\": {\n        \"x\": null,\n        \"\\u00e9\": []\n    },\n    \"c\": []\n}"},
	}
	for _, tt := range tests {
		b, err := Marshal(v, tt.o)
		if err != nil || string(b) != tt.want {
			t.Errorf("%+v:\n got %s (%v)\nwant %s", tt.o, b, err, tt.want)
		}
		// Reflection takes the same layout path.
		var x any
		if err := json.Unmarshal([]byte(`{"a":[1,2,{}],"b":{"x":null,"é":[]},"c":[]}`), &x); err != nil {
			t.Fatal(err)
		}
		b, err = Marshal(x, tt.o) // float64 numbers this time
		if want := strings.NewReplacer("1,", "1.0,", "2,", "2.0,").Replace(tt.want); err != nil || string(b) != want {
			t.Errorf("%+v any:\n got %s (%v)\nwant %s", tt.o, b, err, want)
		}
	}
}

func TestValueNumbersEncoding(t *testing.T) {
	t.Parallel()
	tests := []struct {
		lit, pydantic, python string
	}{
		{"0", "0", "0"},
		{"-0", "0", "0"},
		{"123456789012345678901234567890", "123456789012345678901234567890", "123456789012345678901234567890"},
		{"1e5", "100000.0", "100000.0"},
		{"1E5", "100000.0", "100000.0"},
		{"-0.0", "-0.0", "-0.0"},
		{"1.50", "1.5", "1.5"},
		{"3.0", "3.0", "3.0"},
		{"1e16", "1e+16", "1e+16"},
		{"0.00001", "0.00001", "1e-05"},
		{"1e-400", "0.0", "0.0"},
		{"1.0000000000000000000001", "1.0", "1.0"},
	}
	for _, tt := range tests {
		v := NumberValue(tt.lit)
		for _, c := range []struct {
			o    Options
			want string
		}{{Pydantic, tt.pydantic}, {Python, tt.python}} {
			b, err := Marshal(v, c.o)
			if err != nil || string(b) != c.want {
				t.Errorf("%s: got %s %v, want %s", tt.lit, b, err, c.want)
			}
		}
	}
	for _, lit := range []string{"", "01", "+1", "0x10", "1.", ".5", "nan", "1e", "- 1"} {
		_, err := Marshal(NumberValue(lit), Pydantic)
		var ie *InvalidNumberError
		if !errors.As(err, &ie) || ie.Literal != lit {
			t.Errorf("%q: got %v", lit, err)
		}
	}
	b, err := Marshal([]json.Number{"1", "2.50", "-0"}, Python)
	if err != nil || string(b) != `[1,2.5,0]` {
		t.Errorf("json.Number: %s %v", b, err)
	}
}

type textKey struct{ a, b int }

func (k textKey) MarshalText() ([]byte, error) { return []byte(fmt.Sprintf("%d-%d", k.a, k.b)), nil }

type jsonM struct{ v string }

func (m jsonM) MarshalJSON() ([]byte, error) {
	return []byte(`{"custom":` + strconv.Quote(m.v) + `}`), nil
}

type ptrJSONM struct{ n int }

func (m *ptrJSONM) MarshalJSON() ([]byte, error) {
	return []byte(`"ptr` + strconv.Itoa(m.n) + `"`), nil
}

type failing struct{}

func (failing) MarshalJSON() ([]byte, error) { return nil, errors.New("boom") }

type upper string

type ptrText string

func (p *ptrText) MarshalText() ([]byte, error) { return []byte("<" + string(*p) + ">"), nil }

func (u upper) MarshalText() ([]byte, error) { return []byte(strings.ToUpper(string(u))), nil }

type Embedded struct {
	E1 int    `json:"e1"`
	X  string `json:"x"` // shadowed by Outer.X
}

type embeddedPtr struct {
	P1 int
}

type Outer struct {
	X string `json:"x"`
	Embedded
	*embeddedPtr
	Named    Embedded `json:"named"`
	Skip     int      `json:"-"`
	Dash     int      `json:"-,"`
	Omit     string   `json:"omit,omitempty"`
	OmitZero struct {
		A int
	} `json:",omitzero"`
	OmitTime   time.Time `json:"t,omitzero"`
	unexported int
	Untagged   bool
}

func TestStructs(t *testing.T) {
	t.Parallel()
	o := Outer{X: "outer", Embedded: Embedded{E1: 1, X: "inner"}, Named: Embedded{E1: 2}, Skip: 9, Dash: 3, unexported: 4}
	b, err := Marshal(o, Pydantic)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"x":"outer","e1":1,"named":{"e1":2,"x":""},"-":3,"Untagged":false}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	std, _ := json.Marshal(o)
	if string(std) != want {
		t.Fatalf("encoding/json disagrees: %s", std)
	}
	o.embeddedPtr = &embeddedPtr{P1: 5}
	o.Omit = "o"
	o.OmitZero.A = 1
	b, err = Marshal(&o, Pydantic)
	want = `{"x":"outer","e1":1,"P1":5,"named":{"e1":2,"x":""},"-":3,"omit":"o","OmitZero":{"A":1},"Untagged":false}`
	if err != nil || string(b) != want {
		t.Fatalf("got  %s %v\nwant %s", b, err, want)
	}
}

type conflictA struct{ Name string }
type conflictB struct{ Name string }
type conflictTagged struct {
	Name string `json:"Name"`
}
type conflicts struct {
	conflictA
	conflictB // Name conflicts at the same depth: dropped
	Other     int
}
type tagWins struct {
	conflictA
	conflictTagged // the tagged one wins
}

func TestStructConflicts(t *testing.T) {
	t.Parallel()
	for _, v := range []any{conflicts{conflictA{"a"}, conflictB{"b"}, 1}, tagWins{conflictA{"a"}, conflictTagged{"t"}}} {
		b, err := Marshal(v, Pydantic)
		std, _ := json.Marshal(v)
		if err != nil || string(b) != string(std) {
			t.Errorf("%T: got %s %v, encoding/json %s", v, b, err, std)
		}
	}
}

type withExtra struct {
	A string `json:"a"`
	B *int   `json:"b,omitempty"`
	Extra
}

type withExtraPtr struct {
	A      int `json:"a"`
	*Extra `json:"ignored_tag"`
}

type withDeepExtra struct {
	Z int `json:"z"`
	withExtra
}

func TestExtra(t *testing.T) {
	t.Parallel()
	members := []Member{
		{Key: "a", Value: StringValue("dup")}, // the struct wrote "a"
		{Key: "b", Value: NumberValue("2")},   // "b" was omitted: written
		{Key: "x", Value: ArrayValue(BoolValue(true))},
		{Key: "Members", Value: NullValue()},
	}
	tests := []struct {
		v    any
		want string
	}{
		{withExtra{A: "s", Extra: ExtraOf(members...)}, `{"a":"s","b":2,"x":[true],"Members":null}`},
		{&withExtra{A: "s"}, `{"a":"s"}`},
		{withExtraPtr{A: 1}, `{"a":1}`},
		{withExtraPtr{A: 1, Extra: ptrTo(ExtraOf(members[2:3]...))}, `{"a":1,"x":[true]}`},
		{withDeepExtra{Z: 1, withExtra: withExtra{A: "s", Extra: ExtraOf(members[:3]...)}}, `{"z":1,"a":"s","b":2,"x":[true]}`},
		{map[string]Extra{"k": ExtraOf(members[2:3]...)}, `{"k":{"x":[true]}}`},
		{Extra{}, `{}`},
		{struct{ E Extra }{ExtraOf(members[:1]...)}, `{"E":{"a":"dup"}}`},
		{Dict{Members: members[2:3]}, `{"x":[true]}`},
		{struct {
			D  Dict  `json:"d,omitempty"`
			P  *Dict `json:"p"`
			D2 Dict  `json:"d2"`
		}{}, `{"p":null,"d2":{}}`},
	}
	for _, tt := range tests {
		b, err := Marshal(tt.v, Pydantic)
		if err != nil || string(b) != tt.want {
			t.Errorf("%T:\n got %s %v\nwant %s", tt.v, b, err, tt.want)
		}
	}
	// Many fields: the written-key set spills past 64 bits.
	fields := []reflect.StructField{{Name: "Extra", Type: reflect.TypeFor[Extra](), Anonymous: true}}
	for i := range 70 {
		fields = append(fields, reflect.StructField{Name: fmt.Sprintf("F%d", i), Type: reflect.TypeFor[int](), Tag: reflect.StructTag(fmt.Sprintf(`json:"f%d,omitempty"`, i))})
	}
	sv := reflect.New(reflect.StructOf(fields)).Elem()
	sv.Field(0).Set(reflect.ValueOf(ExtraOf(Member{Key: "f69", Value: NumberValue("1")}, Member{Key: "f68", Value: NumberValue("2")})))
	sv.Field(70).SetInt(7) // f69
	b, err := Marshal(sv.Interface(), Pydantic)
	if err != nil || string(b) != `{"f69":7,"f68":2}` {
		t.Errorf("wide struct: %s %v", b, err)
	}
}

func ptrTo[T any](v T) *T { return &v }

type node struct {
	Name string `json:"name"`
	Next *node  `json:"next"`
}

type selfPtr *selfPtr

func TestCycles(t *testing.T) {
	t.Parallel()
	n := &node{Name: "a"}
	n.Next = n
	if _, err := Marshal(n, Pydantic); !errors.Is(err, ErrEncodeTooDeep) {
		t.Errorf("struct cycle: %v", err)
	}
	m := map[string]any{}
	m["self"] = m
	if _, err := Marshal(m, Pydantic); !errors.Is(err, ErrEncodeTooDeep) {
		t.Errorf("map cycle: %v", err)
	}
	s := []any{nil}
	s[0] = s
	if _, err := Marshal(s, Pydantic); !errors.Is(err, ErrEncodeTooDeep) {
		t.Errorf("slice cycle: %v", err)
	}
	var p selfPtr
	p = &p
	if _, err := Marshal(p, Pydantic); !errors.Is(err, ErrEncodeTooDeep) {
		t.Errorf("pointer cycle: %v", err)
	}
	// A finite deep chain within the limit is fine.
	var head *node
	for i := 0; i < MaxDepth; i++ {
		head = &node{Name: "x", Next: head}
	}
	if _, err := Marshal(head, Pydantic); err != nil {
		t.Errorf("deep chain: %v", err)
	}
	// Any parsed Value fits, even inside a response.
	deep, err := Parse([]byte(strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Marshal(map[string]any{"a": []any{&deep}}, Python); err != nil {
		t.Errorf("deep value: %v", err)
	}
}

type allKinds struct {
	B    bool
	I    int
	I8   int8
	I16  int16
	I32  int32
	I64  int64
	U    uint
	U8   uint8
	U16  uint16
	U32  uint32
	U64  uint64
	UP   uintptr
	F32  float32
	F64  float64
	S    string
	Bs   []byte
	NilS []int
	NilM map[string]int
	NilP *int
	NilI any
	Arr  [2]int
	Str  upper
	V    Value
	PV   *Value
	Raw  json.RawMessage
	Raw0 json.RawMessage
	Num  json.Number
	M    jsonM
	PM   ptrJSONM
	Addr netip.Addr
	Map  map[textKey]int
	IntM map[int]string
	Any  any
}

func TestAllKinds(t *testing.T) {
	t.Parallel()
	pv := ArrayValue(NumberValue("1e2"))
	v := allKinds{
		B: true, I: -1, I8: -8, I16: -16, I32: -32, I64: math.MinInt64, U: 1, U8: 8, U16: 16, U32: 32,
		U64: math.MaxUint64, UP: 7, F32: 1.5, F64: 2, S: "s", Bs: []byte("hi"), Arr: [2]int{1, 2},
		Str: "up", V: StringValue("v"), PV: &pv, Raw: json.RawMessage(`{"r": 1}`), Num: "1.0",
		M: jsonM{"m"}, PM: ptrJSONM{3}, Addr: netip.MustParseAddr("10.0.0.1"),
		Map:  map[textKey]int{{2, 1}: 1, {1, 2}: 2},
		IntM: map[int]string{10: "ten", 9: "nine", -1: "neg"},
		Any:  map[string]any{"z": 1, "a": []any{nil, true, "x", 1.0, int64(5), json.Number("7")}},
	}
	want := `{"B":true,"I":-1,"I8":-8,"I16":-16,"I32":-32,"I64":-9223372036854775808,"U":1,"U8":8,"U16":16,` +
		`"U32":32,"U64":18446744073709551615,"UP":7,"F32":1.5,"F64":2.0,"S":"s","Bs":"aGk=","NilS":[],"NilM":{},` +
		`"NilP":null,"NilI":null,"Arr":[1,2],"Str":"UP","V":"v","PV":[100.0],"Raw":{"r":1},"Raw0":null,"Num":1.0,` +
		`"M":{"custom":"m"},"PM":"ptr3","Addr":"10.0.0.1","Map":{"1-2":2,"2-1":1},"IntM":{"-1":"neg","10":"ten","9":"nine"},` +
		`"Any":{"a":[null,true,"x",1.0,5,7],"z":1}}`
	for _, x := range []any{v, &v} {
		b, err := Marshal(x, Pydantic)
		if err != nil || string(b) != want {
			t.Errorf("%T:\n got %s %v\nwant %s", x, b, err, want)
		}
	}
	b, err := Marshal([]any{ptrJSONM{1}, &ptrJSONM{2}, (*ptrJSONM)(nil), (*jsonM)(nil), (*upper)(nil),
		map[string]ptrJSONM{"k": {4}}, ptrText("t"), map[string]ptrText{"k": "u"}}, Pydantic)
	// Pointer-receiver methods are honoured everywhere (encoding/json skips
	// them for values that are not addressable).
	if err != nil || string(b) != `["ptr1","ptr2",null,null,null,{"k":"ptr4"},"<t>",{"k":"<u>"}]` {
		t.Errorf("marshalers in interfaces: %s %v", b, err)
	}
}

func TestEncodeErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		v    any
		want string
	}{
		{make(chan int), "pyjson: unsupported type: chan int"},
		{func() {}, "pyjson: unsupported type: func()"},
		{complex(1, 2), "pyjson: unsupported type: complex128"},
		{struct{ C complex64 }{}, "pyjson: unsupported type: complex64"},
		{map[float64]int{1: 1}, "pyjson: unsupported type: map[float64]int"},
		{[]any{1, make(chan int)}, "pyjson: unsupported type: chan int"},
		{failing{}, "pyjson: error calling MarshalJSON for type pyjson.failing: boom"},
		{Value{Kind: 9}, "pyjson: invalid Value kind 9"},
	}
	for _, tt := range tests {
		_, err := Marshal(tt.v, Pydantic)
		if err == nil || err.Error() != tt.want {
			t.Errorf("%T: got %v, want %s", tt.v, err, tt.want)
		}
	}
	var ue *UnsupportedTypeError
	if _, err := Marshal(make(chan int), Pydantic); !errors.As(err, &ue) || ue.Type.Kind() != reflect.Chan {
		t.Errorf("not an UnsupportedTypeError: %v", err)
	}
	// Append leaves dst as it was on error.
	dst := []byte("prefix")
	out, err := Append(dst, []any{"x", math.NaN()}, Python)
	if err == nil || string(out) != "prefix" {
		t.Errorf("Append on error: %q %v", out, err)
	}
	out, err = Append(dst, []any{"x"}, Python)
	if err != nil || string(out) != `prefix["x"]` {
		t.Errorf("Append: %q %v", out, err)
	}
}

// randomValue builds a random Value tree, wide enough to cross the parser's
// slab chunk sizes.
func randomValue(r *rand.Rand, depth int) Value {
	k := r.IntN(10)
	if depth > 3 {
		k = r.IntN(6)
	}
	switch k {
	case 0:
		return NullValue()
	case 1:
		return BoolValue(r.IntN(2) == 0)
	case 2:
		return NumberValue(strconv.FormatInt(r.Int64()>>r.IntN(64), 10))
	case 3:
		f := math.Float64frombits(r.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return NumberValue("NaN")
		}
		return NumberValue(strconv.FormatFloat(f, 'g', -1, 64))
	case 4, 5:
		runes := []rune{'a', '"', '\\', '\n', 0, 0x1f, 0x7f, 'é', '\u2028', '😀', 0xFFFD, '/', '<'}
		var sb strings.Builder
		for range r.IntN(12) {
			sb.WriteRune(runes[r.IntN(len(runes))])
		}
		return StringValue(sb.String())
	case 6, 7:
		n := r.IntN(5)
		if depth <= 1 && r.IntN(6) == 0 {
			n = r.IntN(700)
		}
		items := make([]Value, n)
		for i := range items {
			items[i] = randomValue(r, depth+1)
		}
		return ArrayValue(items...)
	default:
		n := r.IntN(5)
		if depth <= 1 && r.IntN(6) == 0 {
			n = r.IntN(400)
		}
		var ms []Member
		seen := map[string]bool{}
		for i := 0; i < n; i++ {
			k := "k" + strconv.Itoa(r.IntN(2*n+1))
			if seen[k] {
				continue
			}
			seen[k] = true
			ms = append(ms, Member{Key: k, Value: randomValue(r, depth+1)})
		}
		return ObjectValue(ms...)
	}
}

// canonical maps a Value to what Python would hold: floats re-read.
func canonical(v Value) Value {
	switch v.Kind {
	case Number:
		if v.IsFloat() {
			f, _ := v.Float()
			if math.IsNaN(f) {
				return NumberValue("NaN")
			}
			return NumberValue(strconv.FormatFloat(f, 'g', -1, 64))
		}
		if v.Str == "-0" {
			return NumberValue("0")
		}
	case Array:
		items := make([]Value, len(v.Items))
		for i := range items {
			items[i] = canonical(v.Items[i])
		}
		return ArrayValue(items...)
	case Object:
		ms := make([]Member, len(v.Members))
		for i, m := range v.Members {
			ms[i] = Member{Key: m.Key, Value: canonical(m.Value)}
		}
		return ObjectValue(ms...)
	}
	return v
}

func TestRoundTripRandom(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	opts := []Options{
		{NaN: NaNLiteral}, PythonDumps, {Floats: PythonFloats, NaN: NaNLiteral, Indent: 3},
		{NaN: NaNLiteral, EnsureASCII: true},
	}
	for i := 0; i < 120; i++ {
		v := randomValue(r, 0)
		for _, o := range opts {
			b, err := Marshal(v, o)
			if err != nil {
				t.Fatal(err)
			}
			back, err := Parse(b)
			if err != nil {
				t.Fatalf("%s: %v", b, err)
			}
			if !equalValues(canonical(back), canonical(v)) {
				t.Fatalf("round trip with %+v changed\n%s\n%s", o, Repr(v), Repr(back))
			}
			if !Valid(b) {
				t.Fatal("Valid rejected our output")
			}
			// Writing again gives the same bytes.
			b2, err := Marshal(back, o)
			if err != nil || string(b2) != string(b) {
				t.Fatalf("second write differs:\n%s\n%s", b, b2)
			}
		}
	}
}

func TestConcurrentEncoderCache(t *testing.T) {
	t.Parallel()
	type leaf struct {
		N int `json:"n"`
	}
	type tree struct {
		L    leaf    `json:"l"`
		Kids []*tree `json:"kids"`
	}
	v := &tree{Kids: []*tree{{L: leaf{1}}, {L: leaf{2}, Kids: []*tree{{}}}}}
	want := `{"l":{"n":0},"kids":[{"l":{"n":1},"kids":[]},{"l":{"n":2},"kids":[{"l":{"n":0},"kids":[]}]}]}`
	done := make(chan string)
	for range 8 {
		go func() {
			b, err := Marshal(v, Pydantic)
			if err != nil {
				done <- err.Error()
				return
			}
			done <- string(b)
		}()
	}
	for range 8 {
		if got := <-done; got != want {
			t.Errorf("got %s", got)
		}
	}
}

func TestValueFieldsAddressableOrNot(t *testing.T) {
	t.Parallel()
	type holder struct {
		S   Value    `json:"s"`
		A   Value    `json:"a"`
		O   Value    `json:"o"`
		Arr [2]Value `json:"arr"`
		N   Value    `json:"n,omitempty"`
		F   Value    `json:"f"`
	}
	obj, err := Parse([]byte(`{"k":[1,{"z":"é"}],"e":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	h := holder{
		S:   StringValue("s"),
		A:   ArrayValue(NumberValue("1E2"), BoolValue(true)),
		O:   obj,
		Arr: [2]Value{NumberValue("-0"), ObjectValue()},
		F:   NumberValue("NaN"),
	}
	want := `{"s":"s","a":[100.0,true],"o":{"k":[1,{"z":"é"}],"e":{}},"arr":[0,{}],"f":null}`
	for _, x := range []any{h, &h, []holder{h}[0], map[string]holder{"h": h}["h"]} {
		b, err := Marshal(x, Pydantic)
		if err != nil || string(b) != want {
			t.Errorf("%T: got %s %v", x, b, err)
		}
	}
	b, err := Marshal(map[string]Value{"b": obj, "a": StringValue("x")}, Pydantic)
	if err != nil || string(b) != `{"a":"x","b":{"k":[1,{"z":"é"}],"e":{}}}` {
		t.Errorf("map of Values: %s %v", b, err)
	}
}

// TestAllocations is not parallel: testing.AllocsPerRun forbids it.
func TestAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items at random under the race detector")
	}
	h := struct {
		S Value    `json:"s"`
		A Value    `json:"a"`
		M []Member `json:"m"`
	}{S: StringValue("s"), A: ArrayValue(NumberValue("1.5"), ObjectValue(Member{Key: "k", Value: NullValue()}))}
	var x any = h
	buf := make([]byte, 0, 1024)
	if n := testing.AllocsPerRun(100, func() {
		if _, err := Append(buf[:0], x, Pydantic); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("Append of a struct with Values: %v allocations", n)
	}
	body := []byte(`{"a":[1,2,3],"b":{"c":"d","e":[true,null]},"s":"plain"}`)
	if n := testing.AllocsPerRun(100, func() {
		if _, err := Parse(body); err != nil {
			t.Fatal(err)
		}
	}); n > 3 { // the string copy, one Value slab, one Member slab
		t.Errorf("Parse: %v allocations", n)
	}
	if n := testing.AllocsPerRun(100, func() { Valid(body) }); n != 0 {
		t.Errorf("Valid: %v allocations", n)
	}
}

// TestPythonFloatRepr: Python's repr() of a float (str() is the same), the
// texts of aggregate_metrics' messages; the finite ones parse back to the
// same float.
func TestPythonFloatRepr(t *testing.T) {
	t.Parallel()
	tests := []struct {
		f    float64
		want string
	}{
		{0, "0.0"}, {math.Copysign(0, -1), "-0.0"}, {1, "1.0"}, {-2.5, "-2.5"},
		{0.1, "0.1"}, {1e16, "1e+16"}, {1e15, "1000000000000000.0"}, {123456789012345678, "1.2345678901234568e+17"},
		{0.0001, "0.0001"}, {0.00001, "1e-05"}, {1.5e-7, "1.5e-07"}, {1e100, "1e+100"},
		{5.199999999999999, "5.199999999999999"}, {math.Inf(1), "inf"}, {math.Inf(-1), "-inf"}, {math.NaN(), "nan"},
		{9007199254740994, "9007199254740994.0"}, {math.MaxFloat64, "1.7976931348623157e+308"}, {5e-324, "5e-324"},
	}
	for _, tc := range tests {
		if got := string(AppendFloat(nil, tc.f, 64, PythonFloats)); got != tc.want {
			t.Errorf("AppendFloat(%v, PythonFloats) = %s, want %s", tc.f, got, tc.want)
		}
		if !math.IsNaN(tc.f) && !math.IsInf(tc.f, 0) {
			back, err := strconv.ParseFloat(tc.want, 64)
			if err != nil || math.Float64bits(back) != math.Float64bits(tc.f) {
				t.Errorf("%s does not round-trip", tc.want)
			}
		}
	}
}

// TestFloatValue: FloatValue's literal is the float's repr, or the
// non-finite literals, and reads back as a float.
func TestFloatValue(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{0, "0.0"}, {math.Copysign(0, -1), "-0.0"}, {3, "3.0"}, {1e-5, "1e-05"}, {1e16, "1e+16"},
		{math.NaN(), "NaN"}, {math.Inf(1), "Infinity"}, {math.Inf(-1), "-Infinity"},
	} {
		v := FloatValue(tc.f)
		if v.Kind != Number || v.Str != tc.want || !v.IsFloat() {
			t.Errorf("FloatValue(%v) = %+v, want the float literal %s", tc.f, v, tc.want)
		}
		if back, ok := v.Float(); !ok || (back != tc.f && !math.IsNaN(tc.f)) || math.Signbit(back) != math.Signbit(tc.f) {
			t.Errorf("FloatValue(%v) reads back as %v, %v", tc.f, back, ok)
		}
	}
}
