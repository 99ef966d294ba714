package lax

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gymkit/gymkit/internal/model"
	"github.com/gymkit/gymkit/internal/pyjson"
)

type GetWeatherRequest struct {
	City string `json:"city" required:"true"`
}

type Inner struct {
	Name string   `json:"name" required:"true"`
	Tags []string `json:"tags"`
}

type Outer struct {
	ID     int              `json:"id" required:"true"`
	Inner  Inner            `json:"inner"`
	Opt    *Inner           `json:"opt"`
	List   []Inner          `json:"list"`
	Counts map[string]int   `json:"counts"`
	Nested map[string][]int `json:"nested"`
	Maybe  *int             `json:"maybe" required:"true"`
}

type Strict struct {
	Forbid
	A int    `json:"a" required:"true"`
	B string `json:"b"`
}

type Open struct {
	pyjson.Extra
	A int `json:"a"`
}

type OpenPtr struct {
	*pyjson.Extra
	A int `json:"a"`
}

// A struct embedding another that carries the policy inherits it.
type StrictChild struct {
	Strict
	C bool `json:"c"`
}

// itemsJSON renders items the MCP way (loc without "body", url last), which
// shows every field of every item.
func itemsJSON(items []ErrorItem) string { return RenderMCP(items) }

func decodeOK[T any](t *testing.T, body string, mode Mode) T {
	t.Helper()
	v, items := DecodeInto[T](mustParse(t, body), mode)
	if items != nil {
		t.Fatalf("unexpected errors: %s", itemsJSON(items))
	}
	return v
}

func decodeErr[T any](t *testing.T, body string, mode Mode) string {
	t.Helper()
	_, items := DecodeInto[T](mustParse(t, body), mode)
	if items == nil {
		t.Fatalf("no errors for %s", body)
	}
	return itemsJSON(items)
}

func url(typ string) string { return `"url": "https://errors.pydantic.dev/2.13/v/` + typ + `"` }

func TestNestedLocs(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, body, want string
	}{
		{"missing required and optional absent", `{}`,
			`[{"type": "missing", "loc": ["id"], "msg": "Field required", "input": {}, ` + url("missing") + `}, ` +
				`{"type": "missing", "loc": ["maybe"], "msg": "Field required", "input": {}, ` + url("missing") + `}]`},
		{"nested missing input is the nested object", `{"id": 1, "maybe": null, "inner": {"tags": []}}`,
			`[{"type": "missing", "loc": ["inner", "name"], "msg": "Field required", "input": {"tags": []}, ` + url("missing") + `}]`},
		{"list item of nested list", `{"id": 1, "maybe": 2, "inner": {"name": "a", "tags": ["x", 1, null]}}`,
			`[{"type": "string_type", "loc": ["inner", "tags", 1], "msg": "Input should be a valid string", "input": 1, ` + url("string_type") + `}, ` +
				`{"type": "string_type", "loc": ["inner", "tags", 2], "msg": "Input should be a valid string", "input": null, ` + url("string_type") + `}]`},
		{"list of models", `{"id": 1, "maybe": 2, "list": [{"name": "a"}, {}, 3]}`,
			`[{"type": "missing", "loc": ["list", 1, "name"], "msg": "Field required", "input": {}, ` + url("missing") + `}, ` +
				`{"type": "model_type", "loc": ["list", 2], "msg": "Input should be a valid dictionary or instance of Inner", "input": 3, "ctx": {"class_name": "Inner"}, ` + url("model_type") + `}]`},
		{"dict values", `{"id": 1, "maybe": 2, "counts": {"a": 1, "b": "x", "c": 2.5}}`,
			`[{"type": "int_parsing", "loc": ["counts", "b"], "msg": "Input should be a valid integer, unable to parse string as an integer", "input": "x", ` + url("int_parsing") + `}, ` +
				`{"type": "int_from_float", "loc": ["counts", "c"], "msg": "Input should be a valid integer, got a number with a fractional part", "input": 2.5, ` + url("int_from_float") + `}]`},
		{"dict of lists", `{"id": 1, "maybe": 2, "nested": {"k": [1, "z"], "j": 3}}`,
			`[{"type": "int_parsing", "loc": ["nested", "k", 1], "msg": "Input should be a valid integer, unable to parse string as an integer", "input": "z", ` + url("int_parsing") + `}, ` +
				`{"type": "list_type", "loc": ["nested", "j"], "msg": "Input should be a valid list", "input": 3, ` + url("list_type") + `}]`},
		{"wrong container types", `{"id": [], "maybe": {}, "list": "abc", "counts": [], "inner": null}`,
			`[{"type": "int_type", "loc": ["id"], "msg": "Input should be a valid integer", "input": [], ` + url("int_type") + `}, ` +
				`{"type": "model_type", "loc": ["inner"], "msg": "Input should be a valid dictionary or instance of Inner", "input": null, "ctx": {"class_name": "Inner"}, ` + url("model_type") + `}, ` +
				`{"type": "list_type", "loc": ["list"], "msg": "Input should be a valid list", "input": "abc", ` + url("list_type") + `}, ` +
				`{"type": "dict_type", "loc": ["counts"], "msg": "Input should be a valid dictionary", "input": [], ` + url("dict_type") + `}, ` +
				`{"type": "int_type", "loc": ["maybe"], "msg": "Input should be a valid integer", "input": {}, ` + url("int_type") + `}]`},
		{"optional model given a non-object", `{"id": 1, "maybe": 1, "opt": "x"}`,
			`[{"type": "model_type", "loc": ["opt"], "msg": "Input should be a valid dictionary or instance of Inner", "input": "x", "ctx": {"class_name": "Inner"}, ` + url("model_type") + `}]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := decodeErr[Outer](t, c.body, ModeMCP); got != c.want {
				t.Fatalf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

func TestNestedModesHTTP(t *testing.T) {
	t.Parallel()
	_, items := DecodeInto[Outer](mustParse(t, `{"id": 1, "maybe": 1, "inner": 5, "list": [[]]}`), ModeHTTP)
	want := `{"detail":[{"type":"model_attributes_type","loc":["body","inner"],"msg":"Input should be a valid dictionary or object to extract fields from","input":5},` +
		`{"type":"model_attributes_type","loc":["body","list",0],"msg":"Input should be a valid dictionary or object to extract fields from","input":[]}]}`
	if got := string(RenderHTTP(items)); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestDecodeValues(t *testing.T) {
	t.Parallel()
	got := decodeOK[Outer](t, `{"id": "7", "maybe": null, "inner": {"name": "n", "tags": []}, "opt": {"name": "o"},
		"list": [{"name": "a", "tags": ["t"]}], "counts": {"a": 1.0, "b": true}, "nested": {"k": []}, "unknown": 1}`, ModeHTTP)
	want := Outer{
		ID:     7,
		Inner:  Inner{Name: "n", Tags: []string{}},
		Opt:    &Inner{Name: "o"},
		List:   []Inner{{Name: "a", Tags: []string{"t"}}},
		Counts: map[string]int{"a": 1, "b": 1},
		Nested: map[string][]int{"k": {}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	got = decodeOK[Outer](t, `{"id": 1, "maybe": "5"}`, ModeMCP)
	if got.Maybe == nil || *got.Maybe != 5 || got.List != nil || got.Counts != nil {
		t.Fatalf("got %+v", got)
	}
}

func TestTopLevel(t *testing.T) {
	t.Parallel()
	for _, body := range []string{`[]`, `"city"`, `5`, `true`, `null`} {
		t.Run(body, func(t *testing.T) {
			t.Parallel()
			_, items := DecodeInto[GetWeatherRequest](mustParse(t, body), ModeHTTP)
			want := `{"detail":[{"type":"model_attributes_type","loc":["body"],"msg":"Input should be a valid dictionary or object to extract fields from","input":` + body + `}]}`
			if got := string(RenderHTTP(items)); got != want {
				t.Fatalf("HTTP got %s want %s", got, want)
			}
			_, items = DecodeInto[GetWeatherRequest](mustParse(t, body), ModeMCP)
			wantMCP := `[{"type": "model_type", "loc": [], "msg": "Input should be a valid dictionary or instance of GetWeatherRequest", "input": ` + body +
				`, "ctx": {"class_name": "GetWeatherRequest"}, ` + url("model_type") + `}]`
			if got := RenderMCP(items); got != wantMCP {
				t.Fatalf("MCP got %s want %s", got, wantMCP)
			}
		})
	}
}

func TestExtraForbid(t *testing.T) {
	t.Parallel()
	got := decodeErr[Strict](t, `{"z": 1, "b": 2, "y": [true], "Forbid": {}}`, ModeMCP)
	want := `[{"type": "missing", "loc": ["a"], "msg": "Field required", "input": {"z": 1, "b": 2, "y": [true], "Forbid": {}}, ` + url("missing") + `}, ` +
		`{"type": "string_type", "loc": ["b"], "msg": "Input should be a valid string", "input": 2, ` + url("string_type") + `}, ` +
		`{"type": "extra_forbidden", "loc": ["z"], "msg": "Extra inputs are not permitted", "input": 1, ` + url("extra_forbidden") + `}, ` +
		`{"type": "extra_forbidden", "loc": ["y"], "msg": "Extra inputs are not permitted", "input": [true], ` + url("extra_forbidden") + `}, ` +
		`{"type": "extra_forbidden", "loc": ["Forbid"], "msg": "Extra inputs are not permitted", "input": {}, ` + url("extra_forbidden") + `}]`
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	ok := decodeOK[Strict](t, `{"a": 1, "b": "x"}`, ModeHTTP)
	if ok.A != 1 || ok.B != "x" {
		t.Fatalf("got %+v", ok)
	}
	// Inherited through embedding.
	got = decodeErr[StrictChild](t, `{"a": 1, "c": "yes", "d": null}`, ModeMCP)
	want = `[{"type": "extra_forbidden", "loc": ["d"], "msg": "Extra inputs are not permitted", "input": null, ` + url("extra_forbidden") + `}]`
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestExtraAllow(t *testing.T) {
	t.Parallel()
	got := decodeOK[Open](t, `{"z": 1, "a": "2", "Members": [], "y": {"k": null}}`, ModeHTTP)
	if got.A != 2 {
		t.Fatalf("A = %d", got.A)
	}
	if s := dumps(t, pyjson.ObjectValue(got.Members()...)); s != `{"z": 1, "Members": [], "y": {"k": null}}` {
		t.Fatalf("extra = %s", s)
	}
	none := decodeOK[Open](t, `{"a": 1}`, ModeHTTP)
	if none.Len() != 0 || none.Members() != nil {
		t.Fatalf("extra = %v", none.Members())
	}
	p := decodeOK[OpenPtr](t, `{"a": 1, "b": 2}`, ModeHTTP)
	if p.Extra == nil || p.Len() != 1 || p.Keys()[0] != "b" {
		t.Fatalf("got %+v", p)
	}
	if p := decodeOK[OpenPtr](t, `{"a": 1}`, ModeHTTP); p.Extra != nil {
		t.Fatalf("allocated an empty Extra")
	}
}

type Embedded struct {
	E1 string `json:"e1"`
	E2 string `json:"shadowed"`
}

type EmbeddedPtr struct {
	P1 int `json:"p1" required:"true"`
}

type WithEmbedded struct {
	First string `json:"first"`
	Embedded
	*EmbeddedPtr
	Shadowed int `json:"shadowed"`
	Untagged bool
	Skipped  string `json:"-"`
	Dash     string `json:"-,"`
	private  string //nolint:unused // must be ignored
	Omit     string `json:"omit,omitempty"`
}

func TestEmbedded(t *testing.T) {
	t.Parallel()
	m, err := testModelOf(reflect.TypeFor[WithEmbedded]())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range m.Fields {
		names = append(names, f.Name)
	}
	if got, want := strings.Join(names, ","), "first,e1,p1,shadowed,Untagged,-,omit"; got != want {
		t.Fatalf("fields %s, want %s", got, want)
	}
	got := decodeOK[WithEmbedded](t, `{"first": "f", "e1": "e", "p1": "3", "shadowed": 4, "Untagged": "on", "-": "d", "Skipped": "s", "untagged": false}`, ModeHTTP)
	if got.First != "f" || got.E1 != "e" || got.EmbeddedPtr == nil || got.P1 != 3 || got.Shadowed != 4 ||
		!got.Untagged || got.Dash != "d" || got.Skipped != "" {
		t.Fatalf("got %+v", got)
	}
	items := decodeErr[WithEmbedded](t, `{"first": 1}`, ModeMCP)
	want := `[{"type": "string_type", "loc": ["first"], "msg": "Input should be a valid string", "input": 1, ` + url("string_type") + `}, ` +
		`{"type": "missing", "loc": ["p1"], "msg": "Field required", "input": {"first": 1}, ` + url("missing") + `}]`
	if items != want {
		t.Fatalf("got\n%s\nwant\n%s", items, want)
	}
}

type embeddedHidden struct {
	H int `json:"h"`
}

type Ambiguous struct {
	A1
	A2
	Keep int `json:"keep"`
}

type A1 struct {
	X int
}

type A2 struct {
	X int
}

func TestAmbiguousDropped(t *testing.T) {
	t.Parallel()
	m, err := testModelOf(reflect.TypeFor[Ambiguous]())
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Fields) != 1 || m.Fields[0].Name != "keep" {
		t.Fatalf("fields %+v", m.Fields)
	}
}

type AnyReq struct {
	Raw   json.RawMessage `json:"raw"`
	Any   any             `json:"any"`
	Val   pyjson.Value    `json:"val"`
	Obj   pyjson.Dict     `json:"obj"`
	OptO  *pyjson.Dict    `json:"opt_o"`
	Dict  map[string]any  `json:"dict"`
	Slice []any           `json:"slice"`
}

func TestAnyFields(t *testing.T) {
	t.Parallel()
	got := decodeOK[AnyReq](t, `{"raw": {"b": [1, 1e5, "é", NaN], "a": -0}, "any": 1.50, "val": null, "obj": {"z": 1, "a": 2},
		"opt_o": null, "dict": {"k": [true]}, "slice": [null, "x"]}`, ModeHTTP)
	if string(got.Raw) != `{"b":[1,100000.0,"é",null],"a":0}` {
		t.Fatalf("raw = %s", got.Raw)
	}
	if v, ok := got.Any.(pyjson.Value); !ok || v.Kind != pyjson.Number || v.Str != "1.50" {
		t.Fatalf("any = %#v", got.Any)
	}
	if got.Val.Kind != pyjson.Null || got.OptO != nil {
		t.Fatalf("val/opt_o = %+v / %+v", got.Val, got.OptO)
	}
	if len(got.Obj.Members) != 2 || got.Obj.Members[0].Key != "z" {
		t.Fatalf("obj = %+v", got.Obj)
	}
	if v, ok := got.Dict["k"].(pyjson.Value); !ok || v.Kind != pyjson.Array {
		t.Fatalf("dict = %#v", got.Dict)
	}
	if len(got.Slice) != 2 {
		t.Fatalf("slice = %#v", got.Slice)
	}
	errs := decodeErr[AnyReq](t, `{"obj": [], "dict": "x", "slice": {}}`, ModeMCP)
	want := `[{"type": "dict_type", "loc": ["obj"], "msg": "Input should be a valid dictionary", "input": [], ` + url("dict_type") + `}, ` +
		`{"type": "dict_type", "loc": ["dict"], "msg": "Input should be a valid dictionary", "input": "x", ` + url("dict_type") + `}, ` +
		`{"type": "list_type", "loc": ["slice"], "msg": "Input should be a valid list", "input": {}, ` + url("list_type") + `}]`
	if errs != want {
		t.Fatalf("got\n%s\nwant\n%s", errs, want)
	}
}

type EnumReq struct {
	Color  string  `json:"color" enum:"red,green" required:"true"`
	Shade  *string `json:"shade" enum:"[\"it's\",\"b\",\"c\"]"`
	Single string  `json:"single" enum:"only"`
}

func TestEnum(t *testing.T) {
	t.Parallel()
	got := decodeOK[EnumReq](t, `{"color": "green", "shade": null, "single": "only"}`, ModeHTTP)
	if got.Color != "green" || got.Shade != nil {
		t.Fatalf("got %+v", got)
	}
	errs := decodeErr[EnumReq](t, `{"color": "Red", "shade": 1, "single": null}`, ModeHTTP)
	want := `[{"type": "literal_error", "loc": ["color"], "msg": "Input should be 'red' or 'green'", "input": "Red", "ctx": {"expected": "'red' or 'green'"}, ` + url("literal_error") + `}, ` +
		`{"type": "literal_error", "loc": ["shade"], "msg": "Input should be \"it's\", 'b' or 'c'", "input": 1, "ctx": {"expected": "\"it's\", 'b' or 'c'"}, ` + url("literal_error") + `}, ` +
		`{"type": "literal_error", "loc": ["single"], "msg": "Input should be 'only'", "input": null, "ctx": {"expected": "'only'"}, ` + url("literal_error") + `}]`
	if errs != want {
		t.Fatalf("got\n%s\nwant\n%s", errs, want)
	}
}

// Celsius validates itself.
type Celsius struct{ V float64 }

func (c *Celsius) UnmarshalPy(v pyjson.Value, m Mode) []ErrorItem {
	f, ok := v.Float()
	if v.Kind != pyjson.Number || !ok {
		return []ErrorItem{{Type: "float_type", Loc: []any{"deg"}, Msg: "Input should be a valid number", Input: v}}
	}
	c.V = f
	return nil
}

type CustomReq struct {
	Temps []Celsius `json:"temps"`
}

func TestCustomUnmarshaler(t *testing.T) {
	t.Parallel()
	got := decodeOK[CustomReq](t, `{"temps": [1.5, 2]}`, ModeHTTP)
	if len(got.Temps) != 2 || got.Temps[0].V != 1.5 || got.Temps[1].V != 2 {
		t.Fatalf("got %+v", got)
	}
	errs := decodeErr[CustomReq](t, `{"temps": [1, "x"]}`, ModeHTTP)
	want := `[{"type": "float_type", "loc": ["temps", 1, "deg"], "msg": "Input should be a valid number", "input": "x", ` + url("float_type") + `}]`
	if errs != want {
		t.Fatalf("got %s", errs)
	}
}

type Node struct {
	Val      int     `json:"val" required:"true"`
	Children []*Node `json:"children"`
}

func TestRecursive(t *testing.T) {
	t.Parallel()
	got := decodeOK[Node](t, `{"val": 1, "children": [{"val": 2, "children": [{"val": 3}]}, null]}`, ModeHTTP)
	if got.Children[0].Children[0].Val != 3 || got.Children[1] != nil {
		t.Fatalf("got %+v", got)
	}
	errs := decodeErr[Node](t, `{"val": 1, "children": [{"children": [{"val": "x"}]}]}`, ModeHTTP)
	want := `[{"type": "missing", "loc": ["children", 0, "val"], "msg": "Field required", "input": {"children": [{"val": "x"}]}, ` + url("missing") + `}, ` +
		`{"type": "int_parsing", "loc": ["children", 0, "children", 0, "val"], "msg": "Input should be a valid integer, unable to parse string as an integer", "input": "x", ` + url("int_parsing") + `}]`
	if errs != want {
		t.Fatalf("got\n%s\nwant\n%s", errs, want)
	}
}

func TestNonStructTop(t *testing.T) {
	t.Parallel()
	if got := decodeOK[[]int](t, `[1, "2", 3.0]`, ModeHTTP); !reflect.DeepEqual(got, []int{1, 2, 3}) {
		t.Fatalf("got %v", got)
	}
	if got := decodeOK[map[string]bool](t, `{"a": "yes"}`, ModeHTTP); !got["a"] {
		t.Fatalf("got %v", got)
	}
	if got := decodeOK[*GetWeatherRequest](t, `null`, ModeHTTP); got != nil {
		t.Fatalf("got %v", got)
	}
	errs := decodeErr[[]int](t, `["a"]`, ModeHTTP)
	want := `[{"type": "int_parsing", "loc": [0], "msg": "Input should be a valid integer, unable to parse string as an integer", "input": "a", ` + url("int_parsing") + `}]`
	if errs != want {
		t.Fatalf("got %s", errs)
	}
}

type NamedStr string

type NamedMap map[NamedStr]NamedStr

type Page[T any] struct {
	Items []T `json:"items" required:"true"`
}

func TestNamedAndGeneric(t *testing.T) {
	t.Parallel()
	if got := decodeOK[NamedMap](t, `{"a": "b"}`, ModeHTTP); got["a"] != "b" {
		t.Fatalf("got %v", got)
	}
	errs := decodeErr[Page[Inner]](t, `{"items": [1]}`, ModeMCP)
	if !strings.Contains(errs, `"Input should be a valid dictionary or instance of Inner"`) {
		t.Fatalf("got %s", errs)
	}
	errs = decodeErr[Page[Inner]](t, `1`, ModeMCP)
	if !strings.Contains(errs, `"class_name": "Page[Inner]"`) {
		t.Fatalf("got %s", errs)
	}
	if n := TypeName(reflect.TypeFor[*Page[*Inner]]()); n != "Page[*Inner]" {
		t.Fatalf("TypeName = %s", n)
	}
}

func TestCompileErrors(t *testing.T) {
	t.Parallel()
	type badChan struct {
		C chan int `json:"c"`
	}
	type badNested struct {
		Items []struct {
			When time.Time `json:"when"`
		} `json:"items"`
	}
	type badEnum struct {
		N int `json:"n" enum:"1,2"`
	}
	type badReq struct {
		N int `json:"n" required:"maybe"`
	}
	type badString struct {
		N int `json:"n,string"`
	}
	type badBytes struct {
		B []byte `json:"b"`
	}
	type badKey struct {
		M map[int]string `json:"m"`
	}
	type unexportedEmbed struct {
		*embeddedHidden
	}
	type badExtra struct {
		E pyjson.Extra `json:"e"`
	}
	type twoPolicies struct {
		Forbid
		pyjson.Extra
	}
	type badIface struct {
		E error `json:"e"`
	}
	cases := []struct {
		typ  reflect.Type
		want string
	}{
		{reflect.TypeFor[badChan](), "badChan.c: unsupported type chan int"},
		{reflect.TypeFor[badNested](), "badNested.items[].when: unsupported type time.Time"},
		{reflect.TypeFor[badEnum](), "badEnum.n: the enum tag is only supported on string fields"},
		{reflect.TypeFor[badReq](), `badReq.n: invalid required tag "maybe"`},
		{reflect.TypeFor[badString](), `badString.N: the json ",string" option is not supported`},
		{reflect.TypeFor[badBytes](), "badBytes.b: unsupported type []uint8"},
		{reflect.TypeFor[badKey](), "badKey.m: unsupported map key type int"},
		{reflect.TypeFor[badExtra](), "badExtra.e: pyjson.Extra must be embedded"},
		{reflect.TypeFor[unexportedEmbed](), "unexportedEmbed: embedded pointer to unexported struct"},
		{reflect.TypeFor[twoPolicies](), "twoPolicies: more than one of pyjson.Extra / lax.Forbid"},
		{reflect.TypeFor[badIface](), "badIface.e: unsupported interface type error"},
		{reflect.TypeFor[func()](), "func(): unsupported type func()"},
	}
	for _, c := range cases {
		t.Run(c.typ.String(), func(t *testing.T) {
			t.Parallel()
			_, err := Compile(c.typ)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to contain %q", err, c.want)
			}
			if _, err2 := Compile(c.typ); err2 != err {
				t.Fatalf("error not cached")
			}
		})
	}
}

func TestDecodeIntoExisting(t *testing.T) {
	t.Parallel()
	plan, err := Compile(reflect.TypeFor[Outer]())
	if err != nil {
		t.Fatal(err)
	}
	dst := Outer{ID: 9, Counts: map[string]int{"old": 1}}
	items := plan.Decode(mustParse(t, `{"maybe": 1, "counts": {}}`), reflect.ValueOf(&dst).Elem(), ModeHTTP)
	if len(items) != 1 || items[0].Type != "missing" {
		t.Fatalf("items %s", itemsJSON(items))
	}
	if dst.ID != 9 || len(dst.Counts) != 0 || *dst.Maybe != 1 {
		t.Fatalf("dst %+v", dst)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("no panic for a wrong destination")
		}
	}()
	plan.Decode(pyjson.Value{}, reflect.ValueOf(dst), ModeHTTP)
}

func TestConcurrentCompile(t *testing.T) {
	t.Parallel()
	type fresh struct {
		A []map[string]*Inner `json:"a"`
	}
	done := make(chan *Plan, 8)
	for range 8 {
		go func() {
			p, err := Compile(reflect.TypeFor[fresh]())
			if err != nil {
				t.Error(err)
			}
			done <- p
		}()
	}
	first := <-done
	for range 7 {
		if p := <-done; p != first {
			t.Error("different plans for one type")
		}
	}
}

type Defaults struct {
	Days  int      `json:"days" default:"3"`
	Ratio float64  `json:"ratio" default:"0.5"`
	On    *bool    `json:"on" default:"true"`
	Unit  string   `json:"unit" enum:"c,f" default:"c"`
	Tags  []string `json:"tags" default:"[\"a\"]"`
	Plain int      `json:"plain"`
}

func TestDefaults(t *testing.T) {
	t.Parallel()
	got := decodeOK[Defaults](t, `{}`, ModeHTTP)
	if got.Days != 3 || got.Ratio != 0.5 || got.On == nil || !*got.On || got.Unit != "c" ||
		!reflect.DeepEqual(got.Tags, []string{"a"}) || got.Plain != 0 {
		t.Fatalf("got %+v", got)
	}
	again := decodeOK[Defaults](t, `{}`, ModeHTTP)
	again.Tags[0] = "changed"
	if got.Tags[0] != "a" {
		t.Fatal("default slice shared between decodes")
	}
	got = decodeOK[Defaults](t, `{"days": "7", "on": null, "unit": "f", "tags": []}`, ModeHTTP)
	if got.Days != 7 || got.On != nil || got.Unit != "f" || len(got.Tags) != 0 {
		t.Fatalf("got %+v", got)
	}
	type badDefault struct {
		N int `json:"n" default:"x"`
	}
	type badEnumDefault struct {
		S string `json:"s" enum:"a,b" default:"c"`
	}
	type requiredDefault struct {
		N int `json:"n" required:"true" default:"1"`
	}
	type int8Default struct {
		N int8 `json:"n" default:"300"`
	}
	for typ, want := range map[reflect.Type]string{
		reflect.TypeFor[badDefault]():      `badDefault.n: invalid default tag "x"`,
		reflect.TypeFor[badEnumDefault]():  "badEnumDefault.s: invalid default tag: literal_error",
		reflect.TypeFor[requiredDefault](): "requiredDefault.n: a required field cannot have a default",
		reflect.TypeFor[int8Default]():     "int8Default.n: invalid default tag: less_than_equal",
	} {
		if _, err := Compile(typ); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: err = %v, want %q", typ, err, want)
		}
	}
}

// testModelOf compiles t and returns its shared model.
func testModelOf(t reflect.Type) (*model.Struct, error) {
	if _, err := Compile(t); err != nil {
		return nil, err
	}
	return model.Of(t), nil
}
