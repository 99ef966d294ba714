//go:build !cgo || purego

package mathadvancedcalculations

import "testing"

// TestPureGoKnownDifferences pins the documented cost of the pure-Go build:
// the two ground truths of example rows 0 and 1 that Go's math misses by
// 1 ulp (small-servers.md 3.4), so those rows can never reach reward 1.0.
func TestPureGoKnownDifferences(t *testing.T) {
	t.Parallel()
	if Exact {
		t.Fatal("the pure-Go build must not report Exact")
	}
	for _, c := range []struct {
		name       string
		got, glibc float64
		pureGo     float64
	}{
		{"sin tool (cos) of 5", mustCall(t, "sin", 5), 0.28366218546322625, 0.2836621854632263},
		{"cos tool (sin) of 0.8390359525563191", mustCall(t, "cos", 0.8390359525563191), 0.7439993082085593, 0.7439993082085592},
	} {
		if c.got != c.pureGo || c.got == c.glibc {
			t.Errorf("%s = %v, want Go's %v (glibc: %v)", c.name, c.got, c.pureGo, c.glibc)
		}
	}
}

func mustCall(t *testing.T, name string, radians float64) float64 {
	t.Helper()
	x, err := byName[name].call(Args{Radians: &radians})
	if err != nil {
		t.Fatal(err)
	}
	return x
}
