//go:build !cgo || purego

package mathadvancedcalculations

import (
	"math"
	"strconv"
)

// Exact reports whether this build computes sin, cos, log and pow with the C
// library's libm. This is the pure-Go build (the purego tag, or cgo
// disabled): Go's math package differs from glibc in the last bit for about
// a quarter of sin/cos inputs, 2% of log inputs and half of pow inputs, so
// some ground truths (example rows 0 and 1) can never be matched. See the
// package doc.
const Exact = false

// glibc is false: no C library is involved.
var glibc = false

// libmName describes the float back end for logs and docs.
const libmName = "Go math package (inexact: not glibc's libm)"

// errRange is Linux's ERANGE, the value CPython reports on glibc.
const errRange = 34

func libmSin(x float64) float64      { return math.Sin(x) }
func libmCos(x float64) float64      { return math.Cos(x) }
func libmLog(x float64) float64      { return math.Log(x) }
func libmAtan2(y, x float64) float64 { return math.Atan2(y, x) }

// strerror is glibc's text for the only errno this build produces.
func strerror(errno int) string {
	if errno == errRange {
		return "Numerical result out of range"
	}
	return "Unknown error " + strconv.Itoa(errno)
}

// libmPow is math.Pow with glibc's errno convention: ERANGE when the result
// overflows to ±Inf (glibc also sets it on underflow to zero, which CPython
// ignores, so it is not reproduced).
func libmPow(x, y float64) (float64, int) {
	r := math.Pow(x, y)
	if math.IsInf(r, 0) && !math.IsInf(x, 0) && !math.IsInf(y, 0) {
		return r, errRange
	}
	return r, 0
}
