package pyjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// lazyCases are documents whose lazy tree must write and materialize as
// the parsed tree does: escapes, duplicate keys at every level (the tree
// keeps the first position and the last value), number forms, NaN,
// non-ASCII text and nesting.
var lazyCases = []string{
	`{"a":[1,2.5,"x\u00e9"],"b":{"c":null},"a":7}`,
	`[[1,2,[3,{"k":"v","k":"w"}]],{"x":{"y":{"z":[]}}},{}]`,
	`{"o":{"a":1,"b":2,"a":3},"p":[{"q":1,"q":[1e5,-0,1E400,NaN,Infinity,-Infinity]}]}`,
	`{"s":["<>&\u003c\\\"\/\b\f\n\r\t\u0001", "é☃𝄞", "\ud834\udd1e", "\ud800"]}`,
	`  [ 1 , [ 2 , 3 ] , { "a" : [ ] , "b" : { } } ]  `,
	`{"big":[` + strings.Repeat(`{"k":1},`, 40) + `{"k":2}]}`,
	`{"many":{` + manyKeys(30, false) + `}}`,
	`{"many":{` + manyKeys(30, true) + `}}`,
	`[0.1,1.0,100000000000000000000,123456789012345678901234567890,1e-7,5e-324]`,
	`{"deep":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `}`,
	`{"a":"plain","b":true,"c":false,"d":null}`,
	`[]`, `{}`, `"x"`, `3`,
}

func manyKeys(n int, dup bool) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"k` + string(rune('a'+i%26)) + string(rune('a'+i/26)) + `":[` + string(rune('0'+i%10)) + `]`)
	}
	if dup {
		b.WriteString(`,"kba":{"again":1},"kaa":"last"`)
	}
	return b.String()
}

// checkLazy holds the lazy tree of data to the parsed tree: every writer's
// bytes, Materialize, Expand and the item walk.
func checkLazy(t *testing.T, data []byte) {
	t.Helper()
	// ParseLazy with zero Limits is ParseLimited's: beyond MaxDepth it is a
	// *LimitError, not Parse's ErrTooDeep (testdata/fuzz/FuzzLazy/45fd4f12c970ff75).
	want, err := ParseLimited(data, Limits{})
	lz, lerr := ParseLazy(data, Limits{})
	if (err == nil) != (lerr == nil) {
		t.Fatalf("Parse error %v, ParseLazy error %v", err, lerr)
	}
	if err != nil {
		if err.Error() != lerr.Error() {
			t.Fatalf("Parse error %v, ParseLazy error %v", err, lerr)
		}
		return
	}
	for _, o := range []Options{Pydantic, Python, PythonDumps, {Indent: 2, EnsureASCII: true, NaN: NaNLiteral}} {
		wb, werr := AppendValue(nil, &want, o)
		lb, lerr := AppendValue(nil, &lz, o)
		if (werr == nil) != (lerr == nil) || !bytes.Equal(wb, lb) {
			t.Fatalf("%+v: tree writes %q (%v), lazy %q (%v)", o, wb, werr, lb, lerr)
		}
	}
	if vw, err := ParseLazyView(data, Limits{}); err != nil || !reflect.DeepEqual(Materialize(vw), want) {
		t.Fatalf("ParseLazyView = %#v, %v; want %#v", Materialize(vw), err, want)
	}
	if m := Materialize(lz); !reflect.DeepEqual(m, want) {
		t.Fatalf("Materialize = %#v, want %#v", m, want)
	}
	if holdsLazy(&want) {
		t.Fatalf("Parse gave a lazy value")
	}
	for i := range lz.Items {
		x := lz.Items[i]
		if !IsLazy(&x) {
			continue
		}
		if m := Materialize(Expand(x)); !reflect.DeepEqual(m, want.Items[i]) {
			t.Fatalf("Expand(item %d) = %#v, want %#v", i, m, want.Items[i])
		}
		if x.Kind == Array {
			if n := Len(&x); n != len(want.Items[i].Items) {
				t.Fatalf("Len(item %d) = %d, want %d", i, n, len(want.Items[i].Items))
			}
			var got []Value
			EachItem(&x, func(_ int, it *Value) bool { got = append(got, Materialize(*it)); return true })
			if len(got) > 0 && !reflect.DeepEqual(got, want.Items[i].Items) {
				t.Fatalf("EachItem(item %d) = %#v, want %#v", i, got, want.Items[i].Items)
			}
		}
	}
}

func TestLazyTree(t *testing.T) {
	t.Parallel()
	for _, c := range lazyCases {
		t.Run("", func(t *testing.T) { checkLazy(t, []byte(c)) })
	}
}

// TestLazyTreeShape: nested containers of a lazy parse are one Value each,
// their text as received; the root's scalars are parsed.
func TestLazyTreeShape(t *testing.T) {
	t.Parallel()
	v, err := ParseLazy([]byte(`{"a":[1, 2],"b":{"c":3},"d":"x"}`), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := v.Get("a")
	b, _ := v.Get("b")
	d, _ := v.Get("d")
	if !IsLazy(&a) || a.Kind != Array || a.Str != `[1, 2]` || !IsLazy(&b) || b.Kind != Object || d.Str != "x" || IsLazy(&d) {
		t.Fatalf("lazy tree %#v", v)
	}
	if _, err := ParseLazy([]byte(`{"a":[[[1]]]}`), Limits{MaxDepth: 2}); err == nil {
		t.Fatal("a skipped container escaped the depth limit")
	}
	if _, err := ParseLazy([]byte(`{"a":[1,2,3]}`), Limits{MaxElements: 4}); err == nil {
		t.Fatal("a skipped container escaped the element limit")
	}
	if _, err := ParseLazy([]byte(`{"a":[1,2,3]}`), Limits{MaxElements: 5}); err != nil {
		t.Fatalf("5 elements within 5: %v", err)
	}
}

// FuzzLazy holds the lazy tree to the parsed one on any input.
//
//	go test -run '^$' -fuzz FuzzLazy ./internal/pyjson/
func FuzzLazy(f *testing.F) {
	for _, c := range lazyCases {
		f.Add([]byte(c))
	}
	f.Add([]byte("{\"a\":[\"\xed\xa0\x80\"]}"))
	f.Add([]byte(`{"a":[1,]}`))
	f.Fuzz(func(t *testing.T, data []byte) { checkLazy(t, data) })
}

// TestBigArrays: arrays past bigArray items, which Parse counts first and
// fills exactly, parse as the validating pass says: the same values, and
// for a defect anywhere in them the same error (message and position) as
// Check, with and without limits.
func TestBigArrays(t *testing.T) {
	t.Parallel()
	items := func(n int, f func(i int) string) string {
		var b strings.Builder
		b.WriteByte('[')
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(f(i))
		}
		b.WriteByte(']')
		return b.String()
	}
	num := func(i int) string { return strconv.Itoa(i) }
	nested := items(300, func(i int) string {
		if i%100 == 7 {
			return items(400, func(j int) string { return `{"k":` + strconv.Itoa(j) + `}` })
		}
		return `"s` + strconv.Itoa(i) + `"`
	})
	valid := []string{items(257, num), items(1000, num), nested, `{"a":` + nested + `}`,
		strings.Repeat("[", 6) + items(600, num) + strings.Repeat("]", 6)}
	for _, s := range valid {
		v, err := Parse([]byte(s))
		if err != nil {
			t.Fatalf("Parse: %v", err)
		}
		var std any
		d := json.NewDecoder(strings.NewReader(s))
		d.UseNumber()
		if err := d.Decode(&std); err != nil || !sameAsStd(v, std) {
			t.Fatalf("Parse of a big array differs from encoding/json (%v)", err)
		}
		for _, lim := range []Limits{{MaxElements: 500}, {MaxElements: 100000}, {MaxDepth: 3}} {
			_, perr := ParseLimited([]byte(s), lim)
			cerr := Check([]byte(s), lim)
			if fmt.Sprint(perr) != fmt.Sprint(cerr) {
				t.Fatalf("%+v: ParseLimited %v, Check %v", lim, perr, cerr)
			}
		}
	}
	base := items(600, num)
	for _, at := range []int{300, 1000, 2000, len(base) - 2} {
		for _, bad := range []string{",]", "x", ",,", " 1", `"`, "\x01", "]"} {
			s := base[:at] + bad + base[at:]
			_, perr := Parse([]byte(s))
			cerr := Check([]byte(s), Limits{})
			if perr == nil || fmt.Sprint(perr) != fmt.Sprint(cerr) {
				t.Fatalf("defect %q at %d: Parse %v, Check %v", bad, at, perr, cerr)
			}
		}
	}
}
