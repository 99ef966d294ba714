package mathadvancedcalculations

import (
	"math"
	"strconv"
	"testing"
)

// TestFloatRepr compares floatRepr with CPython's repr(float).
func TestFloatRepr(t *testing.T) {
	t.Parallel()
	for _, want := range []string{
		"1.0", "1e+16", "1000000000000000.0", "9999999999999998.0", "1e-05", "0.0001", "0.00012345",
		"123456789.0", "1.7976931348623157e+308", "5e-324", "-0.0", "0.0", "1e+22", "0.1", "-2.5",
		"1.2345678901234567e-100", "2.5198493469436654e-166", "100.0", "9.999999999999999e-05",
	} {
		x, err := strconv.ParseFloat(want, 64)
		if err != nil {
			t.Fatal(err)
		}
		if got := floatRepr(x, true, false); got != want {
			t.Errorf("repr(%v) = %q, want %q", x, got, want)
		}
	}
	for x, want := range map[float64]string{math.Inf(1): "inf", math.Inf(-1): "-inf", math.NaN(): "nan"} {
		if got := floatRepr(x, true, false); got != want {
			t.Errorf("repr(%v) = %q, want %q", x, got, want)
		}
	}
}

// TestComplexRepr compares complexRepr with CPython's repr(complex).
func TestComplexRepr(t *testing.T) {
	t.Parallel()
	negZero := math.Copysign(0, -1)
	for _, c := range []struct {
		re, im float64
		want   string
	}{
		{negZero, 0, "(-0+0j)"},
		{0, negZero, "-0j"},
		{1e16, 1, "(1e+16+1j)"},
		{0, 1e-5, "1e-05j"},
		{-1.5, -2, "(-1.5-2j)"},
		{100, 0, "(100+0j)"},
		{negZero, negZero, "(-0-0j)"},
		{0, 0, "0j"},
		{1.7319121124709868e-16, 2.8284271247461903, "(1.7319121124709868e-16+2.8284271247461903j)"},
		{1, math.NaN(), "(1+nanj)"},
		{0, math.Inf(1), "infj"},
		{math.Inf(-1), math.Inf(-1), "(-inf-infj)"},
		{math.NaN(), 0, "(nan+0j)"},
		{1e16, 1e15, "(1e+16+1000000000000000j)"},
	} {
		if got := complexRepr(c.re, c.im); got != c.want {
			t.Errorf("repr(complex(%v, %v)) = %q, want %q", c.re, c.im, got, c.want)
		}
	}
}

func TestTruncateInput(t *testing.T) {
	t.Parallel()
	short := "(1.7319121124709868e-16+2.8284271247461903j)"
	if got := truncateInput(short); got != short {
		t.Errorf("truncated %q", got)
	}
	long := "(-2.5198493469436654e-166-4.3717420939643347e-150j)" // 51 bytes
	if got, want := truncateInput(long), "(-2.5198493469436654e-166....3717420939643347e-150j)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestFloatFromString compares floatFromString with CPython's float(str).
// A want of "" means float() raises ValueError.
func TestFloatFromString(t *testing.T) {
	t.Parallel()
	for _, c := range [][2]string{
		{"1.5", "1.5"}, {" 1.5 ", "1.5"}, {"\t1.5\n", "1.5"}, {"1_000", "1000.0"}, {"1__000", ""}, {"_1", ""},
		{"1_", ""}, {"1_.5", ""}, {"1._5", ""}, {"1e1_0", "10000000000.0"}, {"1e_10", ""}, {"+1.5", "1.5"},
		{"-1.5", "-1.5"}, {"+-1", ""}, {".5", "0.5"}, {"5.", "5.0"}, {".", ""}, {"", ""}, {"  ", ""}, {"e5", ""},
		{"1e", ""}, {"1e+", ""}, {"1e+5", "100000.0"}, {"1E-5", "1e-05"}, {"inf", "inf"}, {"-inf", "-inf"},
		{"+inf", "inf"}, {"Infinity", "inf"}, {"-iNfInItY", "-inf"}, {"infinit", ""}, {"nan", "nan"},
		{"-nan", "nan"}, {"+NaN", "nan"}, {"nan1", ""}, {"0x10", ""}, {"0b1", ""}, {"1e400", "inf"},
		{"-1e400", "-inf"}, {"1e-400", "0.0"}, {"١٢", "12.0"}, {"１２.５", "12.5"}, {"\u00a01.5\u2003", "1.5"},
		{"1.5\x1c", ""}, {"\x1c1.5", ""}, {"1.5\x00", ""}, {"12\u0660", "120.0"}, {"1 5", ""}, {"--1", ""},
		{"1.5j", ""}, {"0_0", "0.0"}, {"00.5", "0.5"}, {"1,5", ""}, {"\u0e51\u0e52", "12.0"},
	} {
		f, ok := floatFromString(c[0])
		got := ""
		if ok {
			got = floatRepr(f, true, false)
		}
		if got != c[1] {
			t.Errorf("float(%q) = %q, want %q", c[0], got, c[1])
		}
	}
}

// TestNoKeywordSuggestion backs the claim in call's doc: Python 3.13's
// "Did you mean" suggestion never fires for these parameter names. It
// reimplements CPython's _Py_CalculateSuggestions (Python/suggestions.c).
func TestNoKeywordSuggestion(t *testing.T) {
	t.Parallel()
	names := []string{"a", "b", "radians", "base"}
	for i := range functions {
		f := &functions[i]
		for _, kw := range names {
			if indexOf(f.params, kw) >= 0 || len(f.params) == 0 {
				continue
			}
			if s := suggestion(kw, f.params); s != "" {
				t.Errorf("%s(%s=...) would suggest %q", f.name, kw, s)
			}
		}
	}
	if s := suggestion("maxsplit", []string{"max_split"}); s != "max_split" {
		t.Errorf("sanity: suggestion %q", s)
	}
}

func suggestion(name string, candidates []string) string {
	const moveCost, caseCost = 2, 1
	best, bestDist := "", math.MaxInt
	for _, c := range candidates {
		if c == name {
			continue
		}
		maxDist := min((len(name)+len(c)+3)*moveCost/6, bestDist-1)
		if d := levenshtein(name, c, maxDist, moveCost, caseCost); d <= maxDist && (best == "" || d < bestDist) {
			best, bestDist = c, d
		}
	}
	return best
}

func levenshtein(a, b string, maxCost, moveCost, caseCost int) int {
	for len(a) > 0 && len(b) > 0 && a[0] == b[0] {
		a, b = a[1:], b[1:]
	}
	for len(a) > 0 && len(b) > 0 && a[len(a)-1] == b[len(b)-1] {
		a, b = a[:len(a)-1], b[:len(b)-1]
	}
	if len(a) == 0 || len(b) == 0 {
		return (len(a) + len(b)) * moveCost
	}
	if len(b) < len(a) {
		a, b = b, a
	}
	if (len(b)-len(a))*moveCost > maxCost {
		return maxCost + 1
	}
	row := make([]int, len(a))
	for i := range row {
		row[i] = (i + 1) * moveCost
	}
	result := 0
	for bi := 0; bi < len(b); bi++ {
		distance := bi * moveCost
		result = distance
		minimum := math.MaxInt
		for i := 0; i < len(a); i++ {
			substitute := distance + substitutionCost(b[bi], a[i], caseCost, moveCost)
			distance = row[i]
			result = min(min(result, distance)+moveCost, substitute)
			row[i] = result
			minimum = min(minimum, result)
		}
		if minimum > maxCost {
			return maxCost + 1
		}
	}
	return result
}

func substitutionCost(a, b byte, caseCost, moveCost int) int {
	switch {
	case a == b:
		return 0
	case a|0x20 == b|0x20 && a|0x20 >= 'a' && a|0x20 <= 'z':
		return caseCost
	}
	return moveCost
}

// TestKwargsOrder: keyword arguments follow the model's field order.
func TestKwargsOrder(t *testing.T) {
	t.Parallel()
	one, two := 1.0, 2.0
	kw := Args{Base: &one, A: &two}.kwargs()
	if len(kw) != 2 || kw[0].name != "a" || kw[1].name != "base" {
		t.Errorf("kwargs %v", kw)
	}
}
