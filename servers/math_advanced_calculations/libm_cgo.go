//go:build cgo && !purego

package mathadvancedcalculations

/*
#cgo LDFLAGS: -lm
#include <errno.h>
#include <math.h>
#include <string.h>

// gk_pow is pow(x, y) with the errno it left (0 when none), read on the
// same thread right after the call, as CPython's float_pow reads it.
typedef struct { double r; int err; } gk_result;

static gk_result gk_pow(double x, double y) {
	gk_result out;
	errno = 0;
	out.r = pow(x, y);
	out.err = errno;
	return out;
}

static int gk_glibc(void) {
#ifdef __GLIBC__
	return 1;
#else
	return 0;
#endif
}

static int gk_erange(void) { return ERANGE; }
*/
import "C"

// Exact reports whether this build computes sin, cos, log and pow with the C
// library's libm (cgo), which is what reproduces the ground truths of NeMo
// Gym's datasets bit for bit when that libm is glibc's. See the package doc.
const Exact = true

// glibc reports whether the libm linked in is glibc's (the one CPython used
// to compute the datasets' ground truths).
var glibc = C.gk_glibc() != 0

// libmName describes the float back end for logs and docs.
const libmName = "C libm via cgo"

// errRange is the C library's ERANGE.
var errRange = int(C.gk_erange())

func libmSin(x float64) float64      { return float64(C.sin(C.double(x))) }
func libmCos(x float64) float64      { return float64(C.cos(C.double(x))) }
func libmLog(x float64) float64      { return float64(C.log(C.double(x))) }
func libmAtan2(y, x float64) float64 { return float64(C.atan2(C.double(y), C.double(x))) }
func strerror(errno int) string      { return C.GoString(C.strerror(C.int(errno))) }
func libmPow(x, y float64) (float64, int) {
	r := C.gk_pow(C.double(x), C.double(y))
	return float64(r.r), int(r.err)
}
