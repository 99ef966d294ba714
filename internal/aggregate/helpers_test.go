package aggregate

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/internal/pyjson"
)

// mustParse parses JSON text with pyjson.
func mustParse(t testing.TB, s string) pyjson.Value {
	t.Helper()
	v, err := pyjson.Parse([]byte(s))
	if err != nil {
		t.Fatalf("parse %.80q: %v", s, err)
	}
	return v
}

// mustParseArray parses a JSON array and returns its items.
func mustParseArray(t testing.TB, s string) []pyjson.Value {
	t.Helper()
	v := mustParse(t, s)
	if v.Kind != pyjson.Array {
		t.Fatalf("not an array: %.80q", s)
	}
	return v.Items
}

// encode writes v with the Pydantic preset (compact), as FastAPI renders
// the AggregateMetrics response.
func encode(t testing.TB, v pyjson.Value) string {
	t.Helper()
	b, err := pyjson.Marshal(v, pyjson.Pydantic)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	return string(b)
}

// diffValues compares two values strictly: kinds, key order, strings, and
// numbers by lexical type (int vs float) and exact value. It returns "" when
// they agree, else a description of the first difference.
func diffValues(want, got pyjson.Value, path string) string {
	if want.Kind != got.Kind {
		return fmt.Sprintf("%s: kind %s, want %s (got %s)", path, got.Kind, want.Kind, short(got))
	}
	switch want.Kind {
	case pyjson.Bool:
		if want.Bool != got.Bool {
			return fmt.Sprintf("%s: %v, want %v", path, got.Bool, want.Bool)
		}
	case pyjson.String:
		if want.Str != got.Str {
			return fmt.Sprintf("%s: %q, want %q", path, got.Str, want.Str)
		}
	case pyjson.Number:
		if want.IsFloat() != got.IsFloat() {
			return fmt.Sprintf("%s: number %s, want %s (int vs float)", path, got.Str, want.Str)
		}
		if !want.IsFloat() {
			wi, err1 := strconv.ParseInt(want.Str, 10, 64)
			gi, err2 := strconv.ParseInt(got.Str, 10, 64)
			if err1 != nil || err2 != nil || wi != gi {
				return fmt.Sprintf("%s: int %s, want %s", path, got.Str, want.Str)
			}
			return ""
		}
		wf, _ := strconv.ParseFloat(want.Str, 64)
		gf, _ := strconv.ParseFloat(got.Str, 64)
		if math.Float64bits(wf) != math.Float64bits(gf) && !(math.IsNaN(wf) && math.IsNaN(gf)) {
			return fmt.Sprintf("%s: float %s (%x), want %s (%x)", path, got.Str, math.Float64bits(gf), want.Str, math.Float64bits(wf))
		}
	case pyjson.Array:
		if len(want.Items) != len(got.Items) {
			return fmt.Sprintf("%s: %d items, want %d", path, len(got.Items), len(want.Items))
		}
		for i := range want.Items {
			if d := diffValues(want.Items[i], got.Items[i], fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
	case pyjson.Object:
		wk, gk := keys(want), keys(got)
		if strings.Join(wk, "\x00") != strings.Join(gk, "\x00") {
			return fmt.Sprintf("%s: keys\n  got  %q\n  want %q", path, gk, wk)
		}
		for i := range want.Members {
			if d := diffValues(want.Members[i].Value, got.Members[i].Value, path+"."+want.Members[i].Key); d != "" {
				return d
			}
		}
	}
	return ""
}

func keys(v pyjson.Value) []string {
	ks := make([]string, len(v.Members))
	for i, m := range v.Members {
		ks[i] = m.Key
	}
	return ks
}

func short(v pyjson.Value) string {
	switch v.Kind {
	case pyjson.Number, pyjson.String:
		return v.Str
	case pyjson.Bool:
		return strconv.FormatBool(v.Bool)
	}
	return v.Kind.String()
}
