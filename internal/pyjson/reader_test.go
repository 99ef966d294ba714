package pyjson

import (
	"testing"
)

// readAll reads data with a Reader: the document as one Value, then End.
func readAll(data []byte, lim Limits) (Value, bool) {
	r, err := NewReader(data, lim)
	if err != nil {
		return Value{}, false
	}
	defer r.Release()
	v, ok := r.Value()
	return v, ok && r.End() && !r.Failed()
}

// walk reads the next value piece by piece (containers with BeginObject /
// BeginArray, numbers with Number, the rest with Scalar) and rebuilds it.
func walk(r *Reader) (Value, bool) {
	switch c := r.Peek(); {
	case c == '{':
		r.BeginObject()
		var ms []Member
		for first := true; ; first = false {
			k, done := r.NextKey(first)
			if r.Failed() {
				return Value{}, false
			}
			if done {
				break
			}
			key := string(k)
			v, ok := walk(r)
			if !ok {
				return Value{}, false
			}
			replaced := false
			for i := range ms {
				if ms[i].Key == key {
					ms[i].Value, replaced = v, true
				}
			}
			if !replaced {
				ms = append(ms, Member{Key: key, Value: v})
			}
		}
		return Value{Kind: Object, Members: ms}, true
	case c == '[':
		r.BeginArray()
		var items []Value
		for first := true; r.NextItem(first); first = false {
			v, ok := walk(r)
			if !ok {
				return Value{}, false
			}
			items = append(items, v)
		}
		return Value{Kind: Array, Items: items}, !r.Failed()
	case c == '-' || (c >= '0' && c <= '9'):
		if lit, ok := r.Number(); ok {
			return NumberValue(string(lit)), true
		}
		if r.Failed() {
			return Value{}, false
		}
	}
	return r.Scalar()
}

func same(a, b Value) bool {
	x, err1 := AppendValue(nil, &a, PythonDumps)
	y, err2 := AppendValue(nil, &b, PythonDumps)
	return err1 == nil && err2 == nil && string(x) == string(y)
}

// FuzzReader holds the Reader to ParseLimited: reading a document whole
// (Value) or piece by piece succeeds exactly when ParseLimited does, within
// the same limits, and yields the same value.
func FuzzReader(f *testing.F) {
	for _, s := range []string{`{"a": [1, 2.5, "x\u00e9", null, true], "a": {}}`, `[NaN, -Infinity, 1e400]`, `"\ud800"`,
		`{"k":1,}`, `[1 2]`, ` 7 `, "\xef\xbb\xbf[]", `{"a":{"b":{"c":[[[]]]}}}`, `-`, `{"\u0061": 1}`} {
		f.Add([]byte(s), 3, 8)
	}
	f.Fuzz(func(t *testing.T, data []byte, depth, elems int) {
		lim := Limits{MaxDepth: depth % 8, MaxElements: elems % 64}
		want, err := ParseLimited(data, lim)
		got, ok := readAll(data, lim)
		if ok != (err == nil) {
			t.Fatalf("%q %+v: Reader ok %v, ParseLimited %v", data, lim, ok, err)
		}
		if ok && !same(got, want) {
			t.Fatalf("%q: Reader %s, Parse %s", data, Repr(got), Repr(want))
		}
		r, rerr := NewReader(data, lim)
		if rerr != nil {
			return
		}
		defer r.Release()
		got, ok = walk(r)
		ok = ok && r.End()
		if ok && err != nil {
			t.Fatalf("%q %+v: walk ok, ParseLimited %v", data, lim, err)
		}
		if ok && !same(got, want) {
			t.Fatalf("%q: walk %s, Parse %s", data, Repr(got), Repr(want))
		}
	})
}

func TestCheckKind(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want Kind
	}{{`{}`, Object}, {` []`, Array}, {`"x"`, String}, {`true`, Bool}, {`null`, Null}, {`-1`, Number}, {`NaN`, Number}, {"\xef\xbb\xbf {}", Object}} {
		k, err := CheckKind([]byte(tc.in), Limits{})
		if err != nil || k != tc.want {
			t.Errorf("CheckKind(%q) = %v, %v; want %v", tc.in, k, err, tc.want)
		}
	}
	if _, err := CheckKind([]byte(`{} x`), Limits{}); err == nil {
		t.Error("CheckKind accepted extra data")
	}
}
