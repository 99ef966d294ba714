package pyjson

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"testing"
	"unicode/utf8"
)

// FuzzParse checks that Parse never panics, agrees with Valid, that its
// errors are the documented ones with positions inside the text, that what
// encoding/json accepts as strict JSON Parse accepts too with the same data,
// and that every writer's output parses back to the same value.
//
//	go test -run '^$' -fuzz FuzzParse ./internal/pyjson/
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"a":[1,2.5,"x\u00e9"],"b":{"c":null},"a":7}`, `{some broken json}`, `  `, `nul`,
		`{"spam":42,}`, `[1,]`, `"\ud800\udc00"`, `[NaN,Infinity,-Infinity,1e400,-0]`,
		"\xef\xbb\xbf{}", "\"\xed\xa0\x80\"", "1\x00\x00\x00", "\xff\xfe1\x00", `"\u12"`,
		`[[[[[[[[]]]]]]]]`, `{"":{"":[{"":""}]}}`, "\"a\x01\"",
	} {
		f.Add([]byte(s))
	}
	// Seed with the CPython golden inputs too.
	for _, c := range readGoldenForFuzz() {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Parse(data)
		if Valid(data) != (err == nil) {
			t.Fatalf("Valid disagrees with Parse (%v)", err)
		}
		if err != nil {
			var se *SyntaxError
			switch {
			case errors.As(err, &se):
				if se.Pos < 0 || se.Pos > len(data) || se.Line < 1 || se.Col < 1 {
					t.Fatalf("bad position %+v", se)
				}
			case errors.Is(err, ErrInvalidUTF8), errors.Is(err, ErrTooDeep), errors.Is(err, ErrIntTooLong):
			default:
				t.Fatalf("undocumented error %v", err)
			}
		}
		if strictJSON(data) {
			if err != nil {
				t.Fatalf("encoding/json accepts %q, Parse says %v", data, err)
			}
			var std any
			d := json.NewDecoder(bytes.NewReader(data))
			d.UseNumber()
			if err := d.Decode(&std); err != nil {
				t.Fatal(err)
			}
			if !sameAsStd(v, std) {
				t.Fatalf("%q: Parse gives %s, encoding/json %#v", data, Repr(v), std)
			}
		}
		if err != nil {
			return
		}
		for _, o := range []Options{{NaN: NaNLiteral}, PythonDumps, {Floats: PythonFloats, NaN: NaNLiteral, Indent: 1, EnsureASCII: true}} {
			b, err := Marshal(v, o)
			if err != nil {
				t.Fatalf("Marshal(%+v): %v", o, err)
			}
			back, err := Parse(b)
			if err != nil {
				t.Fatalf("our output %q does not parse: %v", b, err)
			}
			if !equalValues(canonical(back), canonical(v)) {
				t.Fatalf("round trip changed %s into %s", Repr(v), Repr(back))
			}
		}
		if _, err := Marshal(v, Python); err != nil {
			var fe *FloatRangeError
			if !errors.As(err, &fe) {
				t.Fatalf("Marshal(Python): %v", err)
			}
		}
		_ = Repr(v)
	})
}

func readGoldenForFuzz() [][]byte {
	var out [][]byte
	cases, _ := loadGolden[parseGolden]("cpython_parse.jsonl")
	for _, c := range cases {
		if b, err := hex.DecodeString(c.In); err == nil {
			out = append(out, b)
		}
	}
	return out
}

// strictJSON reports whether data is JSON that both encoding/json and
// Python accept the same way: valid per encoding/json, valid UTF-8 (Python
// decodes first; encoding/json does not check), not decoded as UTF-16/32
// (no NUL in the first two bytes), not too deep and no integer longer than
// Python's limit. NaN and Infinity are not JSON, so it has none.
func strictJSON(data []byte) bool {
	if !json.Valid(data) || !utf8.Valid(data) || bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		return false
	}
	if len(data) >= 2 && (data[0] == 0 || data[1] == 0) {
		return false
	}
	depth, maxDepth, digits := 0, 0, 0
	for _, c := range data {
		switch {
		case c == '[' || c == '{':
			depth++
			maxDepth = max(maxDepth, depth)
		case c == ']' || c == '}':
			depth--
		}
		if c >= '0' && c <= '9' {
			digits++
			if digits > MaxIntDigits {
				return false // conservative: maybe inside a string
			}
		} else {
			digits = 0
		}
	}
	return maxDepth <= MaxDepth // conservative too: brackets in strings count
}

// sameAsStd compares a Value with encoding/json's decoding (UseNumber).
// Duplicate keys agree: both keep the last value.
func sameAsStd(v Value, x any) bool {
	switch x := x.(type) {
	case nil:
		return v.Kind == Null
	case bool:
		return v.Kind == Bool && v.Bool == x
	case string:
		return v.Kind == String && v.Str == x
	case json.Number:
		if v.Kind != Number {
			return false
		}
		if v.Str == string(x) {
			return true
		}
		a, err1 := strconv.ParseFloat(v.Str, 64)
		b, err2 := strconv.ParseFloat(string(x), 64)
		return err1 == nil && err2 == nil && (a == b || math.IsNaN(a) && math.IsNaN(b))
	case []any:
		if v.Kind != Array || len(v.Items) != len(x) {
			return false
		}
		for i := range x {
			if !sameAsStd(v.Items[i], x[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		if v.Kind != Object || len(v.Members) != len(x) {
			return false
		}
		for _, m := range v.Members {
			if !sameAsStd(m.Value, x[m.Key]) {
				return false
			}
		}
		return true
	}
	return false
}
