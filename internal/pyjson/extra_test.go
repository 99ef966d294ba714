package pyjson

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
)

// TestExtraMethods: the accessors of an Extra whose container values are
// kept as text (as a decoder keeps them) give full trees, equal to the
// parsed ones, and Set and Delete never change a copy made before.
func TestExtraMethods(t *testing.T) {
	t.Parallel()
	doc := `{"n": 1, "arr": [1, 2.50, {"k": "a", "k": "b"}], "obj": {"x": [true, null]}, "s": "\u00e9"}`
	lz, err := ParseLazy([]byte(doc), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	full, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	var e Extra
	SetExtraMembers(&e, lz.Members)
	if !IsLazy(&ExtraMembers(&e)[1].Value) {
		t.Fatal("the decoder's form: arr should be lazy")
	}
	if e.Len() != 4 || !slices.Equal(e.Keys(), []string{"n", "arr", "obj", "s"}) || !e.Has("obj") || e.Has("x") {
		t.Fatalf("Len %d Keys %v", e.Len(), e.Keys())
	}
	for _, m := range full.Members {
		got, ok := e.Get(m.Key)
		if !ok || !reflect.DeepEqual(got, m.Value) {
			t.Errorf("Get(%q) = %#v %v, want %#v", m.Key, got, ok, m.Value)
		}
	}
	if v, ok := e.Get("missing"); ok || v.Kind != Null {
		t.Errorf("Get(missing) = %v %v", v, ok)
	}
	if !reflect.DeepEqual(e.Members(), full.Members) {
		t.Errorf("Members() = %#v", e.Members())
	}
	var keys []string
	for k, v := range e.All() {
		keys = append(keys, k)
		if want, _ := full.Get(k); !reflect.DeepEqual(v, want) {
			t.Errorf("All %q = %#v", k, v)
		}
		if k == "arr" {
			break // stopping early is honoured
		}
	}
	if !slices.Equal(keys, []string{"n", "arr"}) {
		t.Errorf("All stopped at %v", keys)
	}
	if b, err := Marshal(e, Pydantic); err != nil || string(b) != `{"n":1,"arr":[1,2.5,{"k":"b"}],"obj":{"x":[true,null]},"s":"é"}` {
		t.Errorf("Marshal = %s %v", b, err)
	}

	before := e
	e.Set("obj", StringValue("changed"))
	e.Set("new", NumberValue("2"))
	if !e.Delete("n") || e.Delete("n") {
		t.Error("Delete reports")
	}
	if !slices.Equal(e.Keys(), []string{"arr", "obj", "s", "new"}) {
		t.Errorf("after Set/Delete: %v", e.Keys())
	}
	if v, _ := e.Get("obj"); v.Str != "changed" {
		t.Errorf("Set in place: %v", v)
	}
	if b, _ := Marshal(before, Pydantic); string(b) != `{"n":1,"arr":[1,2.5,{"k":"b"}],"obj":{"x":[true,null]},"s":"é"}` {
		t.Errorf("a copy made before changed: %s", b)
	}
	if b, _ := Marshal(e, Pydantic); string(b) != `{"arr":[1,2.5,{"k":"b"}],"obj":"changed","s":"é","new":2}` {
		t.Errorf("after: %s", b)
	}

	x := ExtraOf(Member{"a", NumberValue("1")}, Member{"b", NullValue()}, Member{"a", NumberValue("3")})
	if b, _ := Marshal(x, Pydantic); string(b) != `{"a":3,"b":null}` {
		t.Errorf("ExtraOf with a repeated key: %s", b)
	}
	var zero Extra
	if zero.IsSet() || zero.Len() != 0 || zero.Keys() != nil || zero.Members() != nil {
		t.Error("zero Extra")
	}
	if !e.IsSet() || !before.IsSet() || !ExtraOf().IsSet() {
		t.Error("a decoded Extra, a copy of it and ExtraOf() are set")
	}
	cleared := e
	cleared.Clear()
	if !cleared.IsSet() || cleared.Len() != 0 || e.Len() != 4 {
		t.Errorf("Clear: set %v, %d members; the copy before has %d", cleared.IsSet(), cleared.Len(), e.Len())
	}
	var d Extra
	if d.Delete("a") || !d.IsSet() {
		t.Error("Delete on the zero Extra: reports false and sets it")
	}
	if b, _ := Marshal(zero, Pydantic); string(b) != `{}` {
		t.Errorf("zero Extra: %s", b)
	}
}

// FuzzExtraJSON: an Extra read by encoding/json (its Kept field's
// UnmarshalJSON, the session state path) from any text either fails or
// holds exactly the members Parse gives the text's object, written back as
// the Pydantic encoder writes that object, and a second round trip changes
// nothing.
func FuzzExtraJSON(f *testing.F) {
	for _, s := range []string{`{}`, `null`, `{"a":1,"b":[1,2.50,{"k":1,"k":2}],"a":3}`, `{"s":"\ud800","e":"\u00e9"}`,
		`[1]`, `"x"`, `{"a":{"b":{"c":[]}}}`, `{"n":1e400,"m":-0.0}`, ` {"w" : [ 1 , 2 ] } `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var x struct{ Extra }
		if err := json.Unmarshal(append(append([]byte(`{"extra":`), data...), '}'), &x); err != nil {
			return
		}
		want, err := Parse(data)
		if err != nil {
			t.Fatalf("encoding/json accepted %q, Parse: %v", data, err)
		}
		if want.Kind == Null {
			if x.IsSet() || x.Len() != 0 {
				t.Fatalf("null gave a set Extra with %d members", x.Len())
			}
			return
		}
		if !reflect.DeepEqual(x.Members(), want.Members) && len(want.Members) > 0 {
			t.Fatalf("%q: members %#v, want %#v", data, x.Members(), want.Members)
		}
		a, errA := Marshal(x.Extra, Pydantic)
		b, errB := Marshal(want, Pydantic)
		if string(a) != string(b) || (errA == nil) != (errB == nil) {
			t.Fatalf("%q: written %s (%v), want %s (%v)", data, a, errA, b, errB)
		}
		if errA != nil {
			return
		}
		enc, err := json.Marshal(x)
		if err != nil {
			t.Fatalf("encoding/json Marshal: %v", err)
		}
		var y struct{ Extra }
		if err := json.Unmarshal(enc, &y); err != nil {
			t.Fatalf("round trip of %s: %v", enc, err)
		}
		if c, _ := Marshal(y.Extra, Pydantic); string(c) != string(a) {
			t.Fatalf("second round trip: %s, first %s", c, a)
		}
	})
}
