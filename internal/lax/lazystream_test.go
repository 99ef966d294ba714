package lax

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/internal/pyjson"
)

// Deep nests the streamWorthy kinds (struct, slice, map, pointer) under
// one another, with kept values (any, pyjson.Value, Extra members) inside
// them: the shape of a verify body's response.output[].token_ids.
type Deep struct {
	ID   int       `json:"id" required:"true"`
	Resp deepResp  `json:"resp"`
	Opt  *deepResp `json:"opt"`
}

type deepResp struct {
	Out  []deepItem          `json:"out"`
	Ptrs []*deepItem         `json:"ptrs"`
	ByID map[string]deepItem `json:"by_id"`
	Open Open                `json:"open"`
	Val  pyjson.Value        `json:"val"`
}

type deepItem struct {
	Name string  `json:"name"`
	IDs  []int   `json:"ids"`
	Meta any     `json:"meta"`
	Grid [][]int `json:"grid"`
}

// attempts counts the streaming attempts on lazy spans (streamHook).
type attempts struct {
	ok, gaveUp int
	bytes      int // the spans' lengths, summed
}

// watch sets streamHook for the rest of the test, which must not be
// parallel (the hook is a package variable).
func watch(t *testing.T) *attempts {
	a := &attempts{}
	streamHook = func(span int, ok bool) {
		if ok {
			a.ok++
		} else {
			a.gaveUp++
		}
		a.bytes += span
	}
	t.Cleanup(func() { streamHook = nil })
	return a
}

// TestLazyStreamGivesUp: inputs on which the streaming attempt on a lazy
// span gives up part way (an item deep inside an array inside an object,
// a duplicate key inside a nested object, a null, a bad map value) give
// exactly the full tree's items, 422 renderings and values, and the
// attempts made are the ones the narrowing promises (the siblings of the
// failing container still stream). Not parallel: it watches streamHook.
func TestLazyStreamGivesUp(t *testing.T) {
	for _, tc := range []struct {
		name       string
		typ        reflect.Type
		body       string
		items      int // the error items expected
		ok, gaveUp int // the attempts expected
	}{
		{
			name: "item deep in an array in an object",
			typ:  reflect.TypeFor[Deep](),
			body: `{"id": 1, "resp": {"out": [{"name": "a", "ids": [1, 2]}, {"name": "b", "ids": [1, "x", 3], "grid": [[1], [2, "y"]]}, {"ids": [4], "meta": {"k": [1]}}], "val": [1, {"a": 2}]}}`,
			// resp, out and out[1] give up; out[0] and out[2]
			// stream; inside out[1] (3 give-ups up) the tree decodes.
			items: 2, ok: 2, gaveUp: 3,
		},
		{
			name:  "item in an array of pointers",
			typ:   reflect.TypeFor[Deep](),
			body:  `{"id": 1, "resp": {"ptrs": [null, {"name": "a"}, {"name": 5}], "by_id": {"k": {"ids": []}}}}`,
			items: 1, ok: 2, gaveUp: 3, // resp, ptrs, ptrs[2] give up; ptrs[1], by_id stream
		},
		{
			name:  "duplicate key inside a nested object",
			typ:   reflect.TypeFor[Deep](),
			body:  `{"id": 1, "resp": {"out": [{"name": "a", "ids": [1], "name": "b"}, {"ids": [2]}], "open": {"a": 1, "z": [1, {"y": 2}]}}}`,
			items: 0, ok: 2, gaveUp: 3, // resp, out, out[0] give up; out[1] and open stream
		},
		{
			name: "duplicate key of an object's container",
			typ:  reflect.TypeFor[Deep](),
			body: `{"id": 1, "opt": {"out": [{"ids": ["x"]}], "out": [{"ids": [3]}]}, "resp": {"by_id": {"a": {"name": "1"}, "a": {"ids": [2]}}}}`,
			// resp streams (a map keeps a duplicate's last value, as the
			// tree does); opt gives up (its first out), then its out,
			// the last one, streams.
			items: 0, ok: 2, gaveUp: 1,
		},
		{
			name:  "bad map value",
			typ:   reflect.TypeFor[Outer](),
			body:  `{"id": 1, "maybe": null, "nested": {"a": [1], "b": [2, "z"], "c": []}, "list": [{"name": "n", "tags": ["t"]}]}`,
			items: 1, ok: 3, gaveUp: 2, // nested, nested.b give up; nested.a, nested.c, list stream
		},
		{
			name:  "null and missing inside recursion",
			typ:   reflect.TypeFor[Node](),
			body:  `{"val": 1, "children": [{"val": 2, "children": [null, {"val": 3}]}, {"children": [{"val": 4}]}]}`,
			items: 1, ok: 2, gaveUp: 2, // children, children[1] give up
		},
		{
			name:  "everything streams",
			typ:   reflect.TypeFor[Deep](),
			body:  `{"id": 1, "resp": {"out": [{"name": "a", "ids": [1, "2", 3.0], "meta": [{"k": null}]}], "ptrs": [null], "by_id": {}, "open": {"x": {"y": []}}, "val": {"v": [1]}}}`,
			items: 0, ok: 1, gaveUp: 0,
		},
	} {
		for _, mode := range []Mode{ModeHTTP, ModeMCP} {
			a := watch(t)
			items := checkLazyDecode(t, tc.typ, []byte(tc.body), mode)
			streamHook = nil
			if len(items) != tc.items {
				t.Errorf("%s (%v): %d items, want %d: %s", tc.name, mode, len(items), tc.items, RenderMCP(items))
			}
			// checkLazyDecode decodes the lazy tree once; the tree's
			// decode attempts nothing (it holds no lazy value).
			if a.ok != tc.ok || a.gaveUp != tc.gaveUp {
				t.Errorf("%s (%v): %d attempts streamed, %d gave up; want %d, %d", tc.name, mode, a.ok, a.gaveUp, tc.ok, tc.gaveUp)
			}
		}
	}
}

// TestLazyStreamLinear: a recursive type nested 300 deep with a bad value
// at the bottom, below a large array, makes every level's streaming
// attempt read down to it; the attempts stop after maxStreamRetries nested
// give-ups, so the text they read stays within (maxStreamRetries+1) times
// the body, not 300 times, and the items are still the tree's.
func TestLazyStreamLinear(t *testing.T) {
	const depth = 300
	body := strings.Repeat(`{"val": 1, "children": [`, depth) +
		`{"val": 1, "children": [` + strings.Repeat(`{"val": 2}, `, 2000) + `{"val": "x"}]}` +
		strings.Repeat(`]}`, depth)
	a := watch(t)
	items := checkLazyDecodeLim(t, reflect.TypeFor[Node](), []byte(body), ModeHTTP, pyjson.Limits{})
	if len(items) != 1 || items[0].Type != TypeIntParsing || len(items[0].Loc) != 2*depth+3 {
		t.Fatalf("items %s", RenderMCP(items))
	}
	if a.gaveUp != maxStreamRetries || a.bytes > (maxStreamRetries+1)*len(body) {
		t.Fatalf("%d attempts gave up, %d read %d bytes of a %d-byte body", a.gaveUp, a.ok+a.gaveUp, a.bytes, len(body))
	}
}

// TestLazyStreamLimits: a limit exceeded only inside a nested container is
// ParseLazy's error (the spans are checked under the document's limits
// when they are made: the fallback never decodes such a body), exactly
// ParseLimited's; a body exactly at the limits streams its spans without
// meeting them again (the Reader over a span counts nothing twice).
func TestLazyStreamLimits(t *testing.T) {
	items := `[` + strings.Repeat(`{"ids": [1, 2]}, `, 9) + `{"ids": [1, 2]}]`
	body := `{"id": 1, "resp": {"out": ` + items + `}}`     // 1 + 1 + 1 + 1 + 10*(1+3) = 44 elements, 5 deep
	grid := `{"id": 1, "resp": {"out": [{"grid": [[1]]}]}}` // 8 elements, 6 deep
	for _, tc := range []struct {
		body string
		lim  pyjson.Limits
		kind pyjson.LimitKind // 0: within the limits
	}{
		{body, pyjson.Limits{MaxElements: 44}, 0},
		{body, pyjson.Limits{MaxElements: 43}, pyjson.LimitElements},
		{body, pyjson.Limits{MaxElements: 44, MaxDepth: 5}, 0},
		{body, pyjson.Limits{MaxDepth: 4}, pyjson.LimitDepth},
		{grid, pyjson.Limits{MaxDepth: 6, MaxElements: 8}, 0},
		{grid, pyjson.Limits{MaxDepth: 5}, pyjson.LimitDepth},
		{grid, pyjson.Limits{MaxElements: 7}, pyjson.LimitElements},
	} {
		_, ferr := pyjson.ParseLimited([]byte(tc.body), tc.lim)
		lz, lerr := pyjson.ParseLazy([]byte(tc.body), tc.lim)
		var le *pyjson.LimitError
		if tc.kind != 0 {
			if !errors.As(lerr, &le) || le.Kind != tc.kind || ferr == nil || lerr.Error() != ferr.Error() {
				t.Errorf("%s %+v: ParseLazy %v, ParseLimited %v, want a limit %d error", tc.body, tc.lim, lerr, ferr, tc.kind)
			}
			continue
		}
		if ferr != nil || lerr != nil {
			t.Fatalf("%s %+v: ParseLimited %v, ParseLazy %v", tc.body, tc.lim, ferr, lerr)
		}
		a := watch(t)
		got := reflect.New(reflect.TypeFor[Deep]()).Elem()
		plan, _ := Compile(got.Type())
		if its := plan.Decode(lz, got, ModeHTTP); len(its) > 0 || a.ok != 1 || a.gaveUp != 0 {
			t.Errorf("%s %+v: items %s, %d attempts streamed, %d gave up", tc.body, tc.lim, RenderMCP(its), a.ok, a.gaveUp)
		}
		streamHook = nil
		checkLazyDecode(t, got.Type(), []byte(tc.body), ModeHTTP)
	}
}

// TestLazyStreamIntoExisting: decoding a lazy tree into a value that is
// not zero (fields the body does not name are left as they are) gives
// what the full tree gives: a lazy container whose destination is not
// zero is decoded as a tree, never streamed over what it holds.
func TestLazyStreamIntoExisting(t *testing.T) {
	plan, err := Compile(reflect.TypeFor[Deep]())
	if err != nil {
		t.Fatal(err)
	}
	// resp's duplicate key would make its streaming attempt give up,
	// and the zeroing after it would lose Val.
	body := []byte(`{"id": 2, "resp": {"out": [{"ids": [1]}], "out": [{"ids": [2]}]}, "opt": {"by_id": {"k": {}}}}`)
	old := func() Deep {
		return Deep{Resp: deepResp{Val: pyjson.StringValue("kept")}, Opt: &deepResp{Out: []deepItem{{Name: "old"}}}}
	}
	full, _ := pyjson.Parse(body)
	lz, _ := pyjson.ParseLazy(body, pyjson.Limits{})
	want, got := old(), old()
	a := watch(t)
	if its := plan.Decode(full, reflect.ValueOf(&want).Elem(), ModeHTTP); len(its) > 0 {
		t.Fatal(RenderMCP(its))
	}
	if its := plan.Decode(lz, reflect.ValueOf(&got).Elem(), ModeHTTP); len(its) > 0 {
		t.Fatal(RenderMCP(its))
	}
	if !reflect.DeepEqual(got, want) || got.Resp.Val.Str != "kept" || got.Opt.Out[0].Name != "old" {
		t.Fatalf("lazy %+v\ntree %+v", got, want)
	}
	// resp's and opt's targets are not zero: their fields stream instead.
	if a.gaveUp != 0 || a.ok != 2 {
		t.Fatalf("%d attempts streamed, %d gave up", a.ok, a.gaveUp)
	}
}
