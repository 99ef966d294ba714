package pyjson

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestParseSyntaxErrors(t *testing.T) {
	t.Parallel()
	// Every message and position was checked against CPython 3.13.0
	// json.loads(bytes); the golden file has hundreds more.
	tests := []struct {
		in   string
		msg  string
		pos  int
		line int
		col  int
	}{
		{`{some broken json}`, msgExpectingName, 1, 1, 2},
		{`  `, msgExpectingValue, 2, 1, 3},
		{``, msgExpectingValue, 0, 1, 1},
		{`nul`, msgExpectingValue, 0, 1, 1},
		{`{"spam":42,}`, msgTrailingCommaOb, 10, 1, 11},
		{`{"a":1 ,` + "\n }", msgTrailingCommaOb, 7, 1, 8},
		{`[1,]`, msgTrailingCommaAr, 2, 1, 3},
		{"[1,\n]", msgTrailingCommaAr, 2, 1, 3},
		{`{`, msgExpectingName, 1, 1, 2},
		{`{,}`, msgExpectingName, 1, 1, 2},
		{`{"a":1,,}`, msgExpectingName, 7, 1, 8},
		{`{"a":1, `, msgExpectingName, 8, 1, 9},
		{`[`, msgExpectingValue, 1, 1, 2},
		{`[,]`, msgExpectingValue, 1, 1, 2},
		{`[1,,]`, msgExpectingValue, 3, 1, 4},
		{`{"a":}`, msgExpectingValue, 5, 1, 6},
		{`"abc`, msgUnterminated, 0, 1, 1},
		{`"abc\`, msgUnterminated, 0, 1, 1},
		{`["a", "b`, msgUnterminated, 6, 1, 7},
		{"\"a\x01\"", msgControl, 2, 1, 3},
		{"\"a\nb\"", msgControl, 2, 1, 3},
		{"\"\u00e9\x01\"", msgControl, 2, 1, 3},       // é is one character
		{"\"\U0001F600\x01\"", msgControl, 2, 1, 3},   // so is an astral code point
		{"\xef\xbb\xbf\"\x01\"", msgControl, 1, 1, 2}, // the BOM is not counted
		{`"\x"`, msgBadEscape, 1, 1, 2},
		{`"ab\'"`, msgBadEscape, 3, 1, 4},
		{`"\u12"`, msgBadUnicode, 2, 1, 3},
		{`"\u12G4"`, msgBadUnicode, 2, 1, 3},
		{`"abc\u`, msgBadUnicode, 5, 1, 6},
		{`"\u1234`, msgBadUnicode, 2, 1, 3}, // 4 digits but nothing after them
		{`"\uD834\u"`, msgBadUnicode, 8, 1, 9},
		{`"\uD834\u12"`, msgBadUnicode, 8, 1, 9},
		{`"\uD834\uZZZZ"`, msgBadUnicode, 8, 1, 9},
		{`1 2`, msgExtraData, 2, 1, 3},
		{`{"a":1}x`, msgExtraData, 7, 1, 8},
		{`01`, msgExtraData, 1, 1, 2},
		{`-01`, msgExtraData, 2, 1, 3},
		{`1.`, msgExtraData, 1, 1, 2},
		{`1e`, msgExtraData, 1, 1, 2},
		{`1e+`, msgExtraData, 1, 1, 2},
		{`3.e5`, msgExtraData, 1, 1, 2},
		{`true1`, msgExtraData, 4, 1, 5},
		{`nulll`, msgExtraData, 4, 1, 5},
		{"1\x0c", msgExtraData, 1, 1, 2}, // form feed is not whitespace
		{`-`, msgExpectingValue, 0, 1, 1},
		{`-x`, msgExpectingValue, 0, 1, 1},
		{`.5`, msgExpectingValue, 0, 1, 1},
		{`+1`, msgExpectingValue, 0, 1, 1},
		{`-NaN`, msgExpectingValue, 0, 1, 1},
		{`Infinit`, msgExpectingValue, 0, 1, 1},
		{`tru`, msgExpectingValue, 0, 1, 1},
		{"\u00e9x", msgExpectingValue, 0, 1, 1},
		{"[\u00e9", msgExpectingValue, 1, 1, 2},
		{"[\"\U0001F600\",x]", msgExpectingValue, 5, 1, 6},
		{"\xef\xbb\xbf", msgExpectingValue, 0, 1, 1},
		{"\xef\xbb\xbf  x", msgExpectingValue, 2, 1, 3},
		{"\xef\xbb\xbf\xef\xbb\xbf1", msgExpectingValue, 0, 1, 1}, // a second BOM is a character
		{`{"a" 1}`, msgExpectingColon, 5, 1, 6},
		{`{"a"`, msgExpectingColon, 4, 1, 5},
		{`{"a":1,"b"`, msgExpectingColon, 10, 1, 11},
		{`{"a":1 "b":2}`, msgExpectingComma, 7, 1, 8},
		{`{"a":1`, msgExpectingComma, 6, 1, 7},
		{`[1 2]`, msgExpectingComma, 3, 1, 4},
		{`[1`, msgExpectingComma, 2, 1, 3},
		{"[1\x0c]", msgExpectingComma, 2, 1, 3},
		{"[\n1,\n2,\n}", msgExpectingValue, 8, 4, 1},
		{"{\n\"a\":\n1\n,\n}", msgTrailingCommaOb, 9, 4, 1},
		{"\n\n  x", msgExpectingValue, 4, 3, 3},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			_, err := Parse([]byte(tt.in))
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("got %v, want a SyntaxError", err)
			}
			want := SyntaxError{Msg: tt.msg, Pos: tt.pos, Line: tt.line, Col: tt.col}
			if *se != want {
				t.Fatalf("got %+v, want %+v", *se, want)
			}
			if Valid([]byte(tt.in)) {
				t.Fatal("Valid accepted it")
			}
		})
	}
}

func TestSyntaxErrorText(t *testing.T) {
	t.Parallel()
	_, err := Parse([]byte("{\n  \"a\": tru\n}"))
	if got, want := err.Error(), "Expecting value: line 2 column 8 (char 9)"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestParseOtherErrors(t *testing.T) {
	t.Parallel()
	deep := func(n int, open, close string) string {
		return strings.Repeat(open, n) + "1" + strings.Repeat(close, n)
	}
	tests := []struct {
		name string
		in   string
		want error // nil: parses
	}{
		{"invalid utf-8 in a string", "\"\xff\"", ErrInvalidUTF8},
		{"invalid utf-8 after a syntax error", "[1,]\xff", ErrInvalidUTF8},
		{"invalid utf-8 after the value", "\"a\"\xff", ErrInvalidUTF8},
		{"overlong NUL", "\"\xc0\x80\"", ErrInvalidUTF8},
		{"beyond U+10FFFF", "\"\xf4\x90\x80\x80\"", ErrInvalidUTF8},
		{"utf-8 surrogate passes", "\"\xed\xa0\x80\"", nil},
		{"utf-16 odd length", "\"\x00\xd8\"\x00", ErrInvalidUTF8},
		{"utf-32 truncated", "1\x00\x00\x00\x00", ErrInvalidUTF8},
		{"utf-32 out of range", "\"\x00\x00\x00\x00\x00\x11\x00\"\x00\x00\x00", ErrInvalidUTF8},
		{"1000 arrays", deep(1000, "[", "]"), nil},
		{"1001 arrays", deep(1001, "[", "]"), ErrTooDeep},
		{"1000 objects", deep(1000, `{"a":`, "}"), nil},
		{"1001 objects", deep(1001, `{"a":`, "}"), ErrTooDeep},
		{"very deep, unclosed", strings.Repeat("[", 1<<20), ErrTooDeep},
		{"too deep then invalid utf-8", deep(1001, "[", "]") + "\xff", ErrInvalidUTF8},
		{"4300 digits", strings.Repeat("7", 4300), nil},
		{"-4300 digits", "-" + strings.Repeat("7", 4300), nil},
		{"4301 digits", strings.Repeat("7", 4301), ErrIntTooLong},
		{"-4301 digits", "-" + strings.Repeat("7", 4301), ErrIntTooLong},
		{"4301 digits in an array", "[" + strings.Repeat("7", 4301) + "]", ErrIntTooLong},
		{"5000-digit float", strings.Repeat("7", 5000) + ".5", nil},
		{"5000-digit exponent float", strings.Repeat("7", 5000) + "e5", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse([]byte(tt.in))
			if tt.want == nil {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
			} else if !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
			if Valid([]byte(tt.in)) != (tt.want == nil) {
				t.Fatalf("Valid disagrees")
			}
			var se *SyntaxError
			if errors.As(err, &se) {
				t.Fatalf("got a SyntaxError %v", se)
			}
		})
	}
	_, err := Parse([]byte(strings.Repeat("1", 4301)))
	if want := "Exceeds the limit (4300 digits) for integer string conversion: value has 4301 digits; use sys.set_int_max_str_digits() to increase the limit"; err.Error() != want {
		t.Fatalf("got %q", err)
	}
}

func TestParseValues(t *testing.T) {
	t.Parallel()
	str := StringValue
	num := NumberValue
	obj := func(kv ...any) Value {
		var ms []Member
		for i := 0; i < len(kv); i += 2 {
			ms = append(ms, Member{Key: kv[i].(string), Value: kv[i+1].(Value)})
		}
		return ObjectValue(ms...)
	}
	tests := []struct {
		in   string
		want Value
	}{
		{`null`, NullValue()},
		{` true `, BoolValue(true)},
		{"\t\n\rfalse\r\n\t", BoolValue(false)},
		{`0`, num("0")},
		{`-0`, num("-0")},
		{`-0.0`, num("-0.0")},
		{`1E5`, num("1E5")},
		{`1e400`, num("1e400")},
		{`1.5e-07`, num("1.5e-07")},
		{`123456789012345678901234567890`, num("123456789012345678901234567890")},
		{`NaN`, num("NaN")},
		{`Infinity`, num("Infinity")},
		{`-Infinity`, num("-Infinity")},
		{`[NaN,-Infinity]`, ArrayValue(num("NaN"), num("-Infinity"))},
		{`""`, str("")},
		{`"\/\b\f\n\r\t\"\\"`, str("/\b\f\n\r\t\"\\")},
		{`"<>&` + "\u2028\x7f" + `"`, str("<>&\u2028\x7f")},
		{`"\u00e9\u2028\u0000"`, str("é\u2028\x00")},
		{`"\ud83d\ude00"`, str("😀")},
		{`"\uD83D\uDE00"`, str("😀")},
		{`"\ud800"`, str("\uFFFD")},                           // lone high surrogate
		{`"\udc00\ud800"`, str("\uFFFD\uFFFD")},               // reversed pair
		{`"\ud800\u0041"`, str("\uFFFDA")},                    // high then non-low
		{`"\uD834x"`, str("\uFFFDx")},                         // high then a character
		{"\"\xed\xa0\x80\xed\xb0\x80\"", str("\uFFFD\uFFFD")}, // surrogatepass bytes
		{"\"a\xed\x9f\xbfb\"", str("a\ud7ffb")},
		{`"` + strings.Repeat("abcdefgh", 9) + `\n"`, str(strings.Repeat("abcdefgh", 9) + "\n")},
		{`[]`, Value{Kind: Array}},
		{`[ ]`, Value{Kind: Array}},
		{`{}`, Value{Kind: Object}},
		{`{ }`, Value{Kind: Object}},
		{`[1,"a",[],{}]`, ArrayValue(num("1"), str("a"), Value{Kind: Array}, Value{Kind: Object})},
		{`{"b":1,"a":2}`, obj("b", num("1"), "a", num("2"))},
		{`{"a":1,"a":2,"b":3,"a":4}`, obj("a", num("4"), "b", num("3"))},
		{`{"\u0061":1,"a":2}`, obj("a", num("2"))},
		{`{"":""}`, obj("", str(""))},
		{"\xef\xbb\xbf{}", Value{Kind: Object}},
		// Encodings json.detect_encoding picks from NUL bytes and BOMs.
		{"1\x00\x00\x00", num("1")},
		{"{\x00}\x00", Value{Kind: Object}},
		{"\x00{\x00}", Value{Kind: Object}},
		{"1\x00", num("1")},
		{"\x001", num("1")},
		{"\xff\xfe1\x00", num("1")},
		{"\xfe\xff\x001", num("1")},
		{"\xff\xfe\x00\x001\x00\x00\x00", num("1")},
		{"\x00\x00\xfe\xff\x00\x00\x001", num("1")},
		{"\"\x00=\xd8\x00\xde\"\x00", str("😀")},
		{"\"\x00\x00\xd8\"\x00", str("\uFFFD")},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := Parse([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if !equalValues(got, tt.want) {
				t.Fatalf("got %s, want %s", Repr(got), Repr(tt.want))
			}
			if !Valid([]byte(tt.in)) {
				t.Fatal("Valid rejected it")
			}
		})
	}
}

// equalValues compares two Values structurally (nil and empty slices alike).
func equalValues(a, b Value) bool {
	if a.Kind != b.Kind || a.Bool != b.Bool || a.Str != b.Str ||
		len(a.Items) != len(b.Items) || len(a.Members) != len(b.Members) {
		return false
	}
	for i := range a.Items {
		if !equalValues(a.Items[i], b.Items[i]) {
			return false
		}
	}
	for i := range a.Members {
		if a.Members[i].Key != b.Members[i].Key || !equalValues(a.Members[i].Value, b.Members[i].Value) {
			return false
		}
	}
	return true
}

func TestParseBigObjectDuplicates(t *testing.T) {
	t.Parallel()
	// Past the linear-scan threshold the parser switches to a map.
	var b strings.Builder
	b.WriteString("{")
	for i := range 100 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"k` + string(rune('a'+i%40)) + `":` + strings.Repeat("1", i%5+1))
	}
	b.WriteString(`,"ka":"last"}`)
	v, err := Parse([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Members) != 40 {
		t.Fatalf("got %d members, want 40", len(v.Members))
	}
	if v.Members[0].Key != "ka" || v.Members[0].Value.Str != "last" {
		t.Fatalf("first member %+v", v.Members[0])
	}
	// "kb" is written for i = 1, 41, 81: the last value wins, the first
	// position stays.
	if v.Members[1].Key != "kb" || v.Members[1].Value.Str != strings.Repeat("1", 81%5+1) {
		t.Fatalf("second member %+v", v.Members[1])
	}
}

func TestParseResultIndependentOfInput(t *testing.T) {
	t.Parallel()
	in := []byte(`{"key":"value","n":12,"esc":"a\nb"}`)
	v, err := Parse(in)
	if err != nil {
		t.Fatal(err)
	}
	for i := range in {
		in[i] = 'x'
	}
	if got := Repr(v); got != `{'key': 'value', 'n': 12, 'esc': 'a\nb'}` {
		t.Fatalf("result changed with the input: %s", got)
	}
}

func TestValueNumbers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		lit     string
		f       float64
		fOK     bool
		i       int64
		iOK     bool
		big     string // "" = not ok
		isFloat bool
	}{
		{"0", 0, true, 0, true, "0", false},
		{"-0", 0, true, 0, true, "0", false},
		{"42", 42, true, 42, true, "42", false},
		{"-9223372036854775808", -9223372036854775808, true, math.MinInt64, true, "-9223372036854775808", false},
		{"9223372036854775808", 9223372036854775808, true, 0, false, "9223372036854775808", false},
		{"3.0", 3, true, 0, false, "", true},
		{"1e3", 1000, true, 0, false, "", true},
		{"1E-2", 0.01, true, 0, false, "", true},
		{"1e400", math.Inf(1), true, 0, false, "", true},
		{"-1e400", math.Inf(-1), true, 0, false, "", true},
		{"1e-400", 0, true, 0, false, "", true},
		{"Infinity", math.Inf(1), true, 0, false, "", true},
		{"-Infinity", math.Inf(-1), true, 0, false, "", true},
		{"1" + strings.Repeat("0", 400), math.Inf(1), false, 0, false, "1" + strings.Repeat("0", 400), false},
		{"0x10", 0, false, 0, false, "", false},
		{"01", 0, false, 0, false, "", false},
		{"1.", 0, false, 0, false, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.lit, func(t *testing.T) {
			t.Parallel()
			v := NumberValue(tt.lit)
			f, ok := v.Float()
			if ok != tt.fOK || f != tt.f {
				t.Errorf("Float() = %v, %v; want %v, %v", f, ok, tt.f, tt.fOK)
			}
			i, ok := v.Int()
			if ok != tt.iOK || i != tt.i {
				t.Errorf("Int() = %v, %v; want %v, %v", i, ok, tt.i, tt.iOK)
			}
			b, ok := v.BigInt()
			if ok != (tt.big != "") || (ok && b.String() != tt.big) {
				t.Errorf("BigInt() = %v, %v; want %q", b, ok, tt.big)
			}
			if v.IsFloat() != tt.isFloat {
				t.Errorf("IsFloat() = %v", v.IsFloat())
			}
		})
	}
	if f, ok := NumberValue("NaN").Float(); !ok || !math.IsNaN(f) {
		t.Errorf("NaN: %v %v", f, ok)
	}
	for _, v := range []Value{StringValue("1"), BoolValue(true), NullValue()} {
		if _, ok := v.Float(); ok {
			t.Errorf("%v: Float ok", v)
		}
		if _, ok := v.Int(); ok {
			t.Errorf("%v: Int ok", v)
		}
		if _, ok := v.BigInt(); ok {
			t.Errorf("%v: BigInt ok", v)
		}
	}
}

func TestValueJSONMethods(t *testing.T) {
	t.Parallel()
	var v Value
	if err := v.UnmarshalJSON([]byte(`{"a":[1.50,NaN]}`)); err != nil {
		t.Fatal(err)
	}
	b, err := v.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"a":[1.5,null]}` {
		t.Fatalf("got %s", b)
	}
	if err := v.UnmarshalJSON([]byte(`{`)); err == nil {
		t.Fatal("no error")
	}
}
