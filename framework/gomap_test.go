package framework

import (
	"math"
	"math/big"
	"testing"

	"github.com/gymkit/gymkit/internal/pyjson"
)

// goMapSeeds are dict bodies of every edge the two readers could see
// differently: duplicate keys (nested, of other kinds), number forms (big
// ints, -0, exponents, 1e400, NaN and the infinities), escapes and lone
// surrogates, empty and nested containers, a UTF-16 body.
var goMapSeeds = []string{
	`{}`,
	`{"a":1,"a":2}`,
	`{"a":{"x":1,"x":[2]},"b":[],"a":{"y":null}}`,
	`{"n":[0,-0,-0.0,1.5,1e3,1E+2,123456789012345678901234567890,-9223372036854775809,9223372036854775807,1e400,-1e400]}`,
	`{"f":[NaN,Infinity,-Infinity,-Infinity]}`,
	`{"s":["","a\"b\\c\/d\n\t\u00e9\u2028","\ud800","\ud83d\ude00","é€😀"],"t":true,"u":false,"v":null}`,
	`{"\u0061":1,"a":2}`,
	`{"d":[[[[[{"e":[{}]}]]]]]}`,
	"\xff\xfe{\x00\"\x00a\x00\"\x00:\x001\x00}\x00",
	` { "w" : [ 1 , 2 ] } `,
}

// TestGoMapIsToGoOfTree: a map[string]any body read straight from the text
// (readGo) is what the Value tree converted (toGo) gives.
func TestGoMapIsToGoOfTree(t *testing.T) {
	t.Parallel()
	for _, s := range goMapSeeds {
		checkGoMap(t, []byte(s))
	}
}

// FuzzGoMap compares the two ways of reading a map[string]any body.
func FuzzGoMap(f *testing.F) {
	for _, s := range goMapSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkGoMap(t, data) })
}

func checkGoMap(t *testing.T, data []byte) {
	t.Helper()
	k, err := pyjson.CheckKind(data, pyjson.Limits{})
	if err != nil || k != pyjson.Object {
		return
	}
	got := textBody(data, pyjson.Limits{}, k).goMap()
	tree, err := pyjson.ParseLimited(data, pyjson.Limits{})
	if err != nil {
		t.Fatalf("%q: CheckKind accepted, ParseLimited: %v", data, err)
	}
	if want := toGo(tree); !sameGo(got, want) {
		t.Errorf("%q:\n from the text %#v\n from the tree %#v", data, got, want)
	}
}

// sameGo is reflect.DeepEqual for toGo's values, with NaN equal to NaN and
// -0 apart from 0.
func sameGo(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !sameGo(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameGo(x[i], y[i]) {
				return false
			}
		}
		return true
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y) || ok && math.IsNaN(x) && math.IsNaN(y)
	case *big.Int:
		y, ok := b.(*big.Int)
		return ok && x.Cmp(y) == 0
	}
	return a == b
}
