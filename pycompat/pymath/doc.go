// Package pymath is the home of Python's numeric functions whose results
// differ from the obvious Go code in the last bits or in their errors: sum()
// of floats (compensated since CPython 3.12), math.fsum, statistics.mean
// (exact), true division of ints (correctly rounded; pycompat/pyval's
// TrueDiv does it for two objects), math.comb, and math's functions with
// CPython's ValueError and OverflowError texts ("math domain error", "math
// range error").
//
// Nothing lives here yet: this package holds the place, so that those
// functions are written here, with tests against CPython's results, when
// an environment or a metric first needs them.
package pymath
