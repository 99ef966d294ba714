package lax

import (
	"reflect"
	"testing"

	"github.com/gymkit/gymkit/internal/pyjson"
)

// checkLazyDecode decodes body's lazy tree (pyjson.ParseLazy, the
// framework's fallback after DecodeJSON gave up) and its full tree, and
// fails unless both give the same items, the same 422 renderings and the
// same decoded value (which must hold no lazy value). It returns the
// items (nil when the body does not parse).
func checkLazyDecode(t *testing.T, typ reflect.Type, body []byte, mode Mode) []ErrorItem {
	t.Helper()
	return checkLazyDecodeLim(t, typ, body, mode, pyjson.Limits{MaxDepth: 64, MaxElements: 10_000})
}

// checkLazyDecodeLim is checkLazyDecode within lim.
func checkLazyDecodeLim(t *testing.T, typ reflect.Type, body []byte, mode Mode, lim pyjson.Limits) []ErrorItem {
	t.Helper()
	full, err := pyjson.ParseLimited(body, lim)
	lz, lerr := pyjson.ParseLazy(body, lim)
	if (err == nil) != (lerr == nil) {
		t.Fatalf("%q: ParseLimited %v, ParseLazy %v", body, err, lerr)
	}
	if err != nil {
		return nil
	}
	plan, err := Compile(typ)
	if err != nil {
		t.Fatal(err)
	}
	want, got := reflect.New(typ).Elem(), reflect.New(typ).Elem()
	wi := plan.Decode(full, want, mode)
	gi := plan.Decode(lz, got, mode)
	if w, g := RenderMCP(wi), RenderMCP(gi); w != g {
		t.Fatalf("%v %q (%v): items\ntree %s\nlazy %s", typ, body, mode, w, g)
	}
	w, werr := RenderHTTPStrict(wi)
	g, gerr := RenderHTTPStrict(gi)
	if string(w) != string(g) || (werr == nil) != (gerr == nil) {
		t.Fatalf("%v %q: HTTP 422\ntree %s (%v)\nlazy %s (%v)", typ, body, w, werr, g, gerr)
	}
	if len(wi) == 0 {
		if canonical(got) != canonical(want) {
			t.Fatalf("%v %q:\nlazy %#v\ntree %#v", typ, body, got.Interface(), want.Interface())
		}
		// NaN (never DeepEqual to itself) is the one allowed difference.
		materializeExtras(got)
		materializeExtras(want)
		if !reflect.DeepEqual(got.Interface(), want.Interface()) && !hasNaN(body) {
			t.Fatalf("%v %q: lazy value %#v differs from the tree's %#v", typ, body, got.Interface(), want.Interface())
		}
	}
	return gi
}

func hasNaN(b []byte) bool {
	for i := 0; i+2 < len(b); i++ {
		if b[i] == 'N' && b[i+1] == 'a' && b[i+2] == 'N' {
			return true
		}
	}
	return false
}

func TestLazyDecodeMatchesTree(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		`{"id": 1, "maybe": null, "inner": {"name": "n"}, "list": [{"name": "x", "tags": []}, {"name": 3}]}`,
		`{"id": [1, 2, [3]], "inner": [], "list": {"a": 1}}`,
		`{"a": 1, "b": "x", "c": true, "d": [1, {"e": 2}]}`,
		`{"raw": {"b": 1e5, "a": [1, {"c": 2}]}, "any": [1, "x", [2]], "val": {"k": [NaN]}, "obj": {"k": {"j": []}}, "dict": {"a": [true]}, "slice": [[1], {"a": 2}]}`,
		`{"s": ["x"], "b": {"y": 1}, "i": [1], "l": [1, [2], {"a": 3}, "4", 5.5], "ls": [1, ["x"], "y"], "m": {"a": [1], "b": "x", "a": 2}, "nm": {"k": ["v"]}}`,
		`{"val": 1, "children": [{"val": [2]}, {"val": 3, "children": [{"val": "x"}]}]}`,
		`{"a": [1, 2], "b": [3, "x", [4]], "a": ["y"]}`,
		`{"color": ["red"], "temp": {"c": [1]}}`,
		`{"a": 1, "x": {"y": [1, 2]}, "x": {"z": 3}, "w": [{"q": 1, "q": 2}]}`,
		`[1, 2]`, `{"list": [` + "1, " + `{"name": ["n"], "tags": [1, [2]]}]}`,
	} {
		for _, typ := range streamTypes {
			for _, mode := range []Mode{ModeHTTP, ModeMCP} {
				checkLazyDecode(t, typ, []byte(body), mode)
			}
		}
	}
}

// FuzzLazyDecode is the differential fuzz of the lazy tree against the
// full tree in the tree decoder: same items, same 422 bytes, same values.
//
//	go test -run '^$' -fuzz FuzzLazyDecode ./internal/lax/
func FuzzLazyDecode(f *testing.F) {
	for _, s := range []string{
		`{"id": [1], "inner": {"name": ["n"]}, "list": [{"name": "x", "tags": [1]}]}`,
		`{"raw": {"b": [1e5]}, "any": [[1], "x"], "val": [NaN], "obj": {"k": {}}, "dict": {"a": [true]}}`,
		`{"s": [1], "l": [1, [2.0], "3"], "m": {"a": ["nan"]}, "a": {"a": 1, "a": [2]}}`,
		`{"val": 1, "children": [{"val": [2]}]}`, `{"a": [1, 2], "b": [[]]}`,
		`{"id": 1, "resp": {"out": [{"name": "a", "ids": [1, "x"], "name": 2}, {"grid": [[1], [null]], "meta": {"a": [1]}}], "open": {"z": [1]}}}`,
		`{"id": 1, "opt": {"ptrs": [null, {"ids": []}], "by_id": {"k": {"ids": [1]}, "k": {}}, "val": [{"a": [1]}]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, typ := range streamTypes {
			checkLazyDecode(t, typ, body, ModeHTTP)
			checkLazyDecode(t, typ, body, ModeMCP)
		}
	})
}

// materializeExtras parses in place the members of every pyjson.Extra
// reachable in v (a settable value), which a decoder keeps as text, so that
// values decoded by different paths compare with reflect.DeepEqual.
func materializeExtras(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			materializeExtras(v.Elem())
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			materializeExtras(v.Index(i))
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			materializeExtras(e)
			v.SetMapIndex(k, e)
		}
	case reflect.Struct:
		if v.Type() == extraType {
			x := v.Addr().Interface().(*pyjson.Extra)
			pyjson.SetExtraMembers(x, x.Members())
			return
		}
		for i := range v.NumField() {
			if f := v.Field(i); f.CanSet() {
				materializeExtras(f)
			}
		}
	}
}
