package pyjson

import (
	"errors"
	"strings"
	"testing"
)

func TestParseLimited(t *testing.T) {
	t.Parallel()
	arr := func(n int) string { return "[" + strings.TrimSuffix(strings.Repeat("1,", n), ",") + "]" }
	deep := func(n int) string { return strings.Repeat(`{"a":[`, n/2) + strings.Repeat("]}", n/2) }
	for _, tc := range []struct {
		name string
		in   string
		lim  Limits
		want *LimitError // nil: parses
	}{
		{"elements at the limit", arr(9), Limits{MaxElements: 10}, nil},
		{"elements over", arr(10), Limits{MaxElements: 10}, &LimitError{LimitElements, 10}},
		{"object values count, keys do not", `{"a":1,"b":[2,3]}`, Limits{MaxElements: 5}, nil},
		{"object over", `{"a":1,"b":[2,3]}`, Limits{MaxElements: 4}, &LimitError{LimitElements, 4}},
		{"depth at the limit", deep(8), Limits{MaxDepth: 8}, nil},
		{"depth over", deep(10), Limits{MaxDepth: 8}, &LimitError{LimitDepth, 8}},
		{"depth zero means MaxDepth", deep(MaxDepth), Limits{}, nil},
		{"depth above MaxDepth means MaxDepth", deep(MaxDepth + 2), Limits{MaxDepth: 5000}, &LimitError{LimitDepth, MaxDepth}},
		{"elements zero means none", arr(100000), Limits{}, nil},
		{"limit before a later syntax error", arr(10) + "x", Limits{MaxElements: 10}, &LimitError{LimitElements, 10}},
		{"unclosed array over", strings.Repeat("[", 20), Limits{MaxDepth: 8}, &LimitError{LimitDepth, 8}},
	} {
		_, err := ParseLimited([]byte(tc.in), tc.lim)
		cerr := Check([]byte(tc.in), tc.lim)
		for what, e := range map[string]error{"ParseLimited": err, "Check": cerr} {
			var le *LimitError
			switch {
			case tc.want == nil && e != nil:
				t.Errorf("%s: %s: %v, want nil", tc.name, what, e)
			case tc.want != nil && (!errors.As(e, &le) || *le != *tc.want):
				t.Errorf("%s: %s: %v, want %v", tc.name, what, e, tc.want)
			}
		}
	}
	// errors.Is and the unlimited Parse.
	if _, err := ParseLimited([]byte(arr(3)), Limits{MaxElements: 2}); !errors.Is(err, ErrTooManyElements) {
		t.Errorf("elements: %v is not ErrTooManyElements", err)
	}
	if _, err := ParseLimited([]byte(deep(4)), Limits{MaxDepth: 2}); !errors.Is(err, ErrTooDeep) {
		t.Errorf("depth: %v is not ErrTooDeep", err)
	}
	if _, err := Parse([]byte(deep(MaxDepth + 2))); err != ErrTooDeep {
		t.Errorf("Parse too deep: %v, want ErrTooDeep itself", err)
	}
	// Trailing data is a syntax error with CPython's message.
	var se *SyntaxError
	if err := Check([]byte(`{"a":1} x`), Limits{}); !errors.As(err, &se) || se.Error() != "Extra data: line 1 column 9 (char 8)" {
		t.Errorf("trailing data: %v", err)
	}
	if err := Check([]byte("{\"a\":1} \r\n\t"), Limits{}); err != nil {
		t.Errorf("trailing whitespace: %v", err)
	}
}

// The element limit bounds the memory of a parse: a body far over it
// stops at the limit.
func TestParseLimitedStopsEarly(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts under -race")
	}
	body := []byte("[" + strings.Repeat("1,", 1<<20) + "1]")
	allocs := testing.AllocsPerRun(3, func() { _, _ = ParseLimited(body, Limits{MaxElements: 1000}) })
	bytes := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = ParseLimited(body, Limits{MaxElements: 1000})
		}
	}).AllocedBytesPerOp()
	// The copy of the text (2 MiB) and the scratch for 1000 values, not 1M values (72 MB).
	if bytes > 4<<20 || allocs > 50 {
		t.Errorf("a 1M-value body under a 1000-value limit allocated %d bytes in %v allocations", bytes, allocs)
	}
	if n := testing.AllocsPerRun(10, func() { _ = Check(body, Limits{MaxElements: 1000}) }); n > 1 {
		t.Errorf("Check over the limit allocated %v times, want 1 (the error)", n)
	}
	if n := testing.AllocsPerRun(10, func() { _ = Check(body, Limits{MaxElements: 2 << 20}) }); n != 0 {
		t.Errorf("Check of a valid body allocated %v times", n)
	}
}
