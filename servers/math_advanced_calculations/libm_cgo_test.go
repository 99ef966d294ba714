//go:build cgo && !purego

package mathadvancedcalculations

import (
	"math"
	"testing"
)

// TestLibmIsGlibc: the default build links the C libm; on a glibc system its
// results are the datasets' ground truths, where Go's math is 1 ulp off.
func TestLibmIsGlibc(t *testing.T) {
	t.Parallel()
	if !Exact {
		t.Fatal("the cgo build must report Exact")
	}
	if !glibc {
		t.Skip("the C library is not glibc: results may differ from the datasets' ground truths")
	}
	for _, c := range []struct {
		name     string
		got, exp float64
		gomath   float64
	}{
		{"cos(5)", libmCos(5), 0.28366218546322625, math.Cos(5)},
		{"sin(0.8390359525563191)", libmSin(0.8390359525563191), 0.7439993082085593, math.Sin(0.8390359525563191)},
	} {
		if c.got != c.exp {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.exp)
		}
		if c.gomath == c.exp {
			t.Errorf("%s: Go's math agrees with glibc here; the example no longer shows the difference", c.name)
		}
	}
	if r, errno := libmPow(10, 402); !math.IsInf(r, 1) || errno != errRange || strerror(errno) != "Numerical result out of range" {
		t.Errorf("pow(10, 402) = %v, errno %d %q", r, errno, strerror(errno))
	}
	if r, errno := libmPow(2, -1080); r != 0 || errno != errRange {
		t.Errorf("pow(2, -1080) = %v, errno %d: glibc reports underflow to zero", r, errno)
	}
	if r, errno := libmPow(2, -1074); r != 5e-324 || errno != 0 {
		t.Errorf("pow(2, -1074) = %v, errno %d", r, errno)
	}
}
