package pycompat_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gymkit/gymkit/pycompat"
)

func TestException(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err        error
		str, repr  string
		instanceOf []string
		notOf      []string
	}{
		{pycompat.ValueError("invalid literal for int() with base 10: 'x'"), "invalid literal for int() with base 10: 'x'",
			`ValueError("invalid literal for int() with base 10: 'x'")`, []string{"ValueError", "Exception", "BaseException"}, []string{"TypeError"}},
		{pycompat.KeyError("it's"), `"it's"`, `KeyError("it's")`, []string{"KeyError", "LookupError", "Exception"}, []string{"ValueError"}},
		{&pycompat.Exception{Class: "ParserError", Msg: "Unknown string format: x"}, "Unknown string format: x",
			"ParserError('Unknown string format: x')", []string{"ParserError", "ValueError", "Exception"}, []string{"TypeError", "DateParseError"}},
		{pycompat.ZeroDivisionError("division by zero"), "division by zero", "ZeroDivisionError('division by zero')",
			[]string{"ZeroDivisionError", "ArithmeticError"}, []string{"OverflowError", "ValueError"}},
		{&pycompat.Exception{Class: "MyError", Msg: ""}, "", "MyError('')", []string{"MyError", "Exception"}, []string{"ValueError"}},
		{fmt.Errorf("wrapped: %w", pycompat.TypeError("t")), "wrapped: t", "", []string{"TypeError"}, []string{"ValueError"}},
	} {
		if got := tc.err.Error(); got != tc.str {
			t.Errorf("str = %q, want %q", got, tc.str)
		}
		var e *pycompat.Exception
		if tc.repr != "" && (!errors.As(tc.err, &e) || e.Repr() != tc.repr) {
			t.Errorf("repr of %v = %v, want %s", tc.err, e, tc.repr)
		}
		for _, c := range tc.instanceOf {
			if !pycompat.IsInstance(tc.err, c) {
				t.Errorf("isinstance(%v, %s) is false", tc.err, c)
			}
		}
		for _, c := range tc.notOf {
			if pycompat.IsInstance(tc.err, c) {
				t.Errorf("isinstance(%v, %s) is true", tc.err, c)
			}
		}
	}
	if pycompat.IsInstance(nil, "Exception") || pycompat.IsInstance(errors.New("x"), "Exception") {
		t.Error("a nil error or a Go error is an Exception")
	}
}

// A Python exception returned as an error: the tool's text is str(e), an
// unhandled one's 500 body repr(e).
func ExampleException() {
	err := pycompat.KeyError("email_id")
	fmt.Println("Error: " + err.Error())
	var e *pycompat.Exception
	if errors.As(err, &e) {
		fmt.Println(e.Repr(), pycompat.IsInstance(err, "LookupError"))
	}
	// Output:
	// Error: 'email_id'
	// KeyError('email_id') true
}
