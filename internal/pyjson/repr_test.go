package pyjson

import "testing"

func TestReprString(t *testing.T) {
	t.Parallel()
	// Expected texts are CPython 3.13's repr() of the same str.
	tests := []struct{ in, want string }{
		{"", `''`},
		{"abc", `'abc'`},
		{"it's", `"it's"`},
		{`say "hi"`, `'say "hi"'`},
		{`both ' "`, `'both \' "'`},
		{`back\slash`, `'back\\slash'`},
		{"\t\n\r\x00\x1f\x7f", `'\t\n\r\x00\x1f\x7f'`},
		{"\u0080\u009f\u00a0\u00ad\u00ff", `'\x80\x9f\xa0\xad` + "\u00ff'"},
		{"\u00e9\u0100\u200b\u2028\u2029\ufeff\ue000\uffff", "'\u00e9\u0100" + `\u200b\u2028\u2029\ufeff\ue000\uffff'`},
		{"\U0001f600\U000e0001\U0010ffff\U0002ebf0\u31ef\u2ffc\u0378", "'\U0001f600" + `\U000e0001\U0010ffff` + "\U0002ebf0\u31ef\u2ffc" + `\u0378'`},
		{"\u00a0\u3000 ", `'\xa0\u3000 '`},
		{"\ufffd", "'\ufffd'"},
		{"bad\xffutf8", "'bad\ufffdutf8'"},
		// Texts of aggregate_metrics' exceptions (internal/aggregate).
		{"_ng_rollout_index", `'_ng_rollout_index'`},
		{"'NoneType' object has no attribute 'get'", `"'NoneType' object has no attribute 'get'"`},
		{`both ' and "`, `'both \' and "'`},
		{"tab\tnl\ncr\rbs\\", `'tab\tnl\ncr\rbs\\'`},
		{"\x00\x1f\x7f", `'\x00\x1f\x7f'`},
		{"é\u00a0\u200b😀", `'é\xa0\u200b😀'`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			t.Parallel()
			if got := ReprString(tt.in); got != tt.want {
				t.Fatalf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestRepr(t *testing.T) {
	t.Parallel()
	v, err := Parse([]byte(`{"a": 1, "b": [true, null, 1.5, NaN, Infinity, -Infinity, 1e16, 1e-5, -0.0], "it's": {}, "c": []}`))
	if err != nil {
		t.Fatal(err)
	}
	// CPython 3.13: repr(json.loads(...)) of the same text.
	want := `{'a': 1, 'b': [True, None, 1.5, nan, inf, -inf, 1e+16, 1e-05, -0.0], "it's": {}, 'c': []}`
	if got := Repr(v); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	tests := []struct {
		v    Value
		want string
	}{
		{NullValue(), "None"},
		{BoolValue(false), "False"},
		{NumberValue("-0"), "0"},
		{NumberValue("1E5"), "100000.0"},
		{NumberValue("1e400"), "inf"},
		{NumberValue("-1e400"), "-inf"},
		{NumberValue("12345678901234567890"), "12345678901234567890"},
		{NumberValue("bogus"), "bogus"},
		{StringValue("x"), "'x'"},
		{Value{Kind: Array}, "[]"},
		{Value{Kind: Object}, "{}"},
		{Value{Kind: 42}, "<invalid>"},
	}
	for _, tt := range tests {
		if got := Repr(tt.v); got != tt.want {
			t.Errorf("Repr(%+v) = %s, want %s", tt.v, got, tt.want)
		}
	}
}
