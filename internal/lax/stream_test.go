package lax

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/internal/pyjson"
)

type Scalars struct {
	S   string             `json:"s"`
	B   bool               `json:"b"`
	I   int                `json:"i"`
	I8  int8               `json:"i8"`
	U   uint16             `json:"u"`
	F   float64            `json:"f"`
	F32 float32            `json:"f32"`
	P   *int               `json:"p"`
	L   []int              `json:"l"`
	LS  []string           `json:"ls"`
	M   map[string]float64 `json:"m"`
	NM  NamedMap           `json:"nm"`
}

// streamTypes are the types the differential tests and the fuzz target
// decode both ways.
var streamTypes = []reflect.Type{
	reflect.TypeFor[Outer](),
	reflect.TypeFor[Strict](),
	reflect.TypeFor[StrictChild](),
	reflect.TypeFor[Open](),
	reflect.TypeFor[OpenPtr](),
	reflect.TypeFor[WithEmbedded](),
	reflect.TypeFor[AnyReq](),
	reflect.TypeFor[EnumReq](),
	reflect.TypeFor[CustomReq](),
	reflect.TypeFor[Node](),
	reflect.TypeFor[Defaults](),
	reflect.TypeFor[Scalars](),
	reflect.TypeFor[map[string][]int](),
	reflect.TypeFor[Deep](),
}

// checkStream decodes body into a fresh typ both ways and fails if the
// streaming decoder claims success where the tree path disagrees (an error,
// items, or a different value). It returns whether the stream succeeded.
func checkStream(t *testing.T, typ reflect.Type, body []byte, mode Mode) bool {
	t.Helper()
	plan, err := Compile(typ)
	if err != nil {
		t.Fatal(err)
	}
	lim := pyjson.Limits{MaxDepth: 64, MaxElements: 10_000}
	got := reflect.New(typ).Elem()
	if !plan.DecodeJSON(body, lim, got, mode) {
		return false
	}
	v, err := pyjson.ParseLimited(body, lim)
	if err != nil {
		t.Fatalf("%v %q: stream succeeded, ParseLimited: %v", typ, body, err)
	}
	want := reflect.New(typ).Elem()
	if items := plan.Decode(v, want, mode); len(items) > 0 {
		t.Fatalf("%v %q: stream succeeded, tree items %s", typ, body, RenderMCP(items))
	}
	if canonical(got) != canonical(want) {
		t.Fatalf("%v %q:\nstream %#v\ntree   %#v", typ, body, got.Interface(), want.Interface())
	}
	return true
}

// canonical writes v with the encoder (json.dumps style: NaN is written,
// and compares equal to itself, unlike in reflect.DeepEqual).
func canonical(v reflect.Value) string {
	b, err := pyjson.Marshal(v.Interface(), pyjson.PythonDumps)
	if err != nil {
		return fmt.Sprintf("error %v", err)
	}
	return string(b)
}

func TestDecodeJSONMatchesTree(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		typ    reflect.Type
		body   string
		stream bool // the fast path must handle it
	}{
		{reflect.TypeFor[Outer](), `{"id": 1, "maybe": null}`, true},
		{reflect.TypeFor[Outer](), ` {"id": "7", "maybe": 3.0, "inner": {"name": "n", "tags": ["a", "b\u00e9"]}, "opt": {"name": "o"},
			"list": [{"name": "x"}], "counts": {"a": 1, "a": 2}, "nested": {"k": [1, 2, 3]}, "zz": [1, {"x": 2}]} `, true},
		{reflect.TypeFor[Outer](), `{"id": 1}`, false},                      // missing "maybe"
		{reflect.TypeFor[Outer](), `{"id": 1, "maybe": 1, "id": 2}`, false}, // duplicate key
		{reflect.TypeFor[Outer](), `{"id": 1.5, "maybe": 1}`, false},        // int_from_float
		{reflect.TypeFor[Outer](), `{"id": 1, "maybe": 1} x`, false},        // extra data
		{reflect.TypeFor[Outer](), `{"id": 1, "maybe": 1,}`, false},         // trailing comma
		{reflect.TypeFor[Outer](), `null`, false},                           // missing body
		{reflect.TypeFor[Outer](), `[]`, false},                             // not an object
		{reflect.TypeFor[Strict](), `{"a": 1, "b": "x"}`, true},
		{reflect.TypeFor[Strict](), `{"a": 1, "c": "x"}`, false}, // extra_forbidden
		{reflect.TypeFor[Open](), `{"a": 1, "x": {"y": [1, 2]}, "z": null}`, true},
		{reflect.TypeFor[Open](), `{"a": 1, "x": 1, "x": 2}`, false}, // duplicate extra key
		{reflect.TypeFor[OpenPtr](), `{"a": 1}`, true},
		{reflect.TypeFor[OpenPtr](), `{"a": 1, "b": true}`, true},
		{reflect.TypeFor[AnyReq](), `{"raw": {"b": 1e5, "a": NaN}, "any": [1, "x"], "val": -Infinity, "obj": {"k": {}}, "opt_o": null, "dict": {"a": [true]}, "slice": [null]}`, true},
		{reflect.TypeFor[EnumReq](), `{"color": "red"}`, true},
		{reflect.TypeFor[Scalars](), `{"s": "\ud83d\ude00\t", "b": "yes", "i": "12", "i8": -128, "u": 65535, "f": "1.5", "f32": 1e40, "p": 1,
			"l": [1, -0, 2.0, "3", true, 123456789012345678], "ls": ["", "x"], "m": {"a": 1, "b": "inf"}, "nm": {"k": "v"}}`, true},
		{reflect.TypeFor[Scalars](), `{"i8": 128}`, false},
		{reflect.TypeFor[Scalars](), `{"l": []}`, true},
		{reflect.TypeFor[Scalars](), `{"l": [1, 2,]}`, false},
		{reflect.TypeFor[Node](), `{"val": 1, "children": [{"val": 2, "children": [{"val": 3}, null]}]}`, true},
		{reflect.TypeFor[Defaults](), `{}`, true},
		{reflect.TypeFor[map[string][]int](), `{"a": [1, 2], "b": []}`, true},
		{reflect.TypeFor[Scalars](), "\xef\xbb\xbf{\"s\": \"bom\"}", true},
		{reflect.TypeFor[Scalars](), `{"s": "` + strings.Repeat(`\u003c`, 100) + `"}`, true},
	} {
		for _, mode := range []Mode{ModeHTTP, ModeMCP} {
			if got := checkStream(t, tc.typ, []byte(tc.body), mode); got != tc.stream {
				t.Errorf("%v %s (%v): stream handled it = %v, want %v", tc.typ, tc.body, mode, got, tc.stream)
			}
		}
	}
}

// FuzzDecodeJSON is the differential fuzz of the two request decoders: for
// every input and every type of streamTypes, in both modes, when the
// streaming decoder succeeds the tree path must parse the same document,
// report no item and produce the same value. It also exercises the tree
// path (Parse, Decode, the 422 rendering) on whatever the input is.
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{
		`{"id": 1, "maybe": null, "inner": {"name": "n"}, "list": [{"name": "x", "tags": []}]}`,
		`{"a": 1, "b": "x", "c": true}`,
		`{"raw": {"b": 1e5}, "any": [1, "x"], "val": NaN, "obj": {"k": {}}, "dict": {"a": [true]}}`,
		`{"s": "\ud800", "b": 1, "i": "1_000", "l": [1, 2.0, "3"], "m": {"a": "nan"}, "p": null}`,
		`{"val": 1, "children": [{"val": 2}]}`,
		`{"a": [1, 2], "b": []}`,
		`{"color": "red", "temp": {"c": 1}}`,
		`{"a":1,"a":2}`, `{"x":[[[[]]]]}`, `nul`, `{"s":"\u00e9\n"}`,
		`{"id": 1, "resp": {"out": [{"name": "a", "ids": [1, 2], "meta": [{}], "grid": [[3]]}], "ptrs": [null], "by_id": {"k": {}}, "open": {"a": 1, "b": [2]}, "val": {"c": 3}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, typ := range streamTypes {
			for _, mode := range []Mode{ModeHTTP, ModeMCP} {
				checkStream(t, typ, body, mode)
			}
			plan, _ := Compile(typ)
			if v, err := pyjson.ParseLimited(body, pyjson.Limits{MaxDepth: 64, MaxElements: 10_000}); err == nil {
				items := plan.Decode(v, reflect.New(typ).Elem(), ModeHTTP)
				_ = RenderMCP(items)
				_, _ = RenderHTTPStrict(items) // may refuse NaN inputs: the door then answers Python's 500
			}
		}
	})
}

// FuzzEncodeRoundTrip holds the encoder to the decoder: a value the decoder
// produced from any input, written by the encoder (Python floats, NaN and
// infinities as literals, as the framework hands arguments to handlers),
// decodes again without an item, and writing that gives the same text.
func FuzzEncodeRoundTrip(f *testing.F) {
	for _, s := range []string{
		`{"id": 1, "maybe": 2, "inner": {"name": "n", "tags": ["\u00e9"]}, "counts": {"a": 1}}`,
		`{"s": "\ud800", "b": "on", "i": "1_000", "f": "-inf", "f32": 1e40, "l": [1, 2.0], "m": {"a": "nan"}}`,
		`{"raw": {"b": 1e5, "a": NaN}, "any": [1e-7, "x"], "val": {"k": -0.0}, "obj": {}, "dict": {"a": [true]}}`,
		`{"a": 1, "x": {"y": [1, 2]}}`, `{"val": 1, "children": [{"val": 2}, null]}`, `{}`,
	} {
		f.Add([]byte(s))
	}
	opts := pyjson.Options{Floats: pyjson.PythonFloats, NaN: pyjson.NaNLiteral}
	f.Fuzz(func(t *testing.T, body []byte) {
		v, err := pyjson.ParseLimited(body, pyjson.Limits{MaxDepth: 64, MaxElements: 10_000})
		if err != nil {
			return
		}
		for _, typ := range streamTypes {
			switch typ {
			case reflect.TypeFor[EnumReq](), reflect.TypeFor[CustomReq]():
				continue // zero enum values and Celsius's struct form do not decode back, by design
			}
			plan, _ := Compile(typ)
			first := reflect.New(typ).Elem()
			if items := plan.Decode(v, first, ModeHTTP); len(items) > 0 {
				continue
			}
			text1, err := pyjson.Marshal(first.Interface(), opts)
			if err != nil {
				t.Fatalf("%v: encoding a decoded value: %v", typ, err)
			}
			v2, err := pyjson.Parse(text1)
			if err != nil {
				t.Fatalf("%v: the encoder wrote %s: %v", typ, text1, err)
			}
			second := reflect.New(typ).Elem()
			if items := plan.Decode(v2, second, ModeHTTP); len(items) > 0 {
				t.Fatalf("%v: %s does not decode back: %s", typ, text1, RenderMCP(items))
			}
			text2, err := pyjson.Marshal(second.Interface(), opts)
			if err != nil || string(text2) != string(text1) {
				t.Fatalf("%v: round trip\n%s\n%s (%v)", typ, text1, text2, err)
			}
			checkStream(t, typ, text1, ModeHTTP)
		}
	})
}
