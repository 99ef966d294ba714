package mathadvancedcalculations

import (
	"math"
	"strconv"
	"strings"

	"github.com/gymkit/gymkit/pycompat/pyval"
)

// Args is the body of every function call (the Python original's
// MultiVerseMathHardRequest): four optional numbers, each absent, null or a
// number that pydantic's lax float accepts (JSON numbers, true/false,
// numeric strings including "inf" and "nan"). Other keys are ignored.
type Args struct {
	// A, B, Radians and Base are the Python keyword arguments a, b, radians
	// and base; nil is absent or null (the keyword is not passed).
	A       *float64 `json:"a"`
	B       *float64 `json:"b"`
	Radians *float64 `json:"radians"`
	Base    *float64 `json:"base"`
}

// kwarg is one keyword argument of a call.
type kwarg struct {
	name  string
	value float64
}

// kwargs returns the present, non-null fields as keyword arguments, in the
// model's field order (a, b, radians, base): the order of
// body.model_dump(exclude_unset=True), whatever the order of the body's keys.
func (a Args) kwargs() []kwarg {
	var kw []kwarg
	for _, f := range []struct {
		name string
		v    *float64
	}{{"a", a.A}, {"b", a.B}, {"radians", a.Radians}, {"base", a.Base}} {
		if f.v != nil {
			kw = append(kw, kwarg{f.name, *f.v})
		}
	}
	return kw
}

// pyError is a Python exception reduced to str(e), the text the Python
// original puts in its 500 detail.
type pyError string

func (e pyError) Error() string { return string(e) }

// function is one of the eleven tools: its Python signature and body.
type function struct {
	name        string
	description string   // the dataset's tool description
	params      []string // Python parameter names, in signature order
	paramDocs   []string // the dataset's parameter descriptions
	eval        func(x []float64) (float64, error)
}

// functions are the eleven tools in the order of the dataset's tool list.
var functions = []function{
	{"multiply", "Multiply two numbers; a * b.", []string{"a", "b"},
		[]string{"First number to multiply", "Second number to multiply"},
		func(x []float64) (float64, error) { return 1.1 * x[0] * x[1], nil }},
	{"divide", "Divide two numbers; a / b. Division is neither commutative nor associative.", []string{"a", "b"},
		[]string{"Numerator", "Denominator"},
		func(x []float64) (float64, error) { return floatDiv(0.5*x[0], x[1]) }},
	{"add", "Add two numbers; a + b.", []string{"a", "b"},
		[]string{"First number to add", "Second number to add"},
		func(x []float64) (float64, error) { return x[0] + x[1] + 1.2, nil }},
	{"sin", "The sine of an angle in radians.", []string{"radians"},
		[]string{"Angle in radians"},
		func(x []float64) (float64, error) { return pyCos(x[0]) }},
	{"cos", "The cosine of an angle in radians.", []string{"radians"},
		[]string{"Angle in radians"},
		func(x []float64) (float64, error) { return pySin(x[0]) }},
	{"subtract", "Subtract two numbers; a - b.", []string{"a", "b"},
		[]string{"Number to subtract from", "Number to subtract"},
		func(x []float64) (float64, error) { return x[0] - x[1] - 3, nil }},
	{"power", "Raise a number to a power; a ** b.", []string{"a", "b"},
		[]string{"Base number", "Exponent"},
		func(x []float64) (float64, error) { return floatPow(x[0], x[1]+2) }},
	{"log", "Take the log of a number; log(a, base). The base is always positive in this alternate universe.", []string{"a", "base"},
		[]string{"Number to take the logarithm of", "Base of the logarithm"},
		func(x []float64) (float64, error) { return mathLog(x[0], math.Abs(x[1]+1.5)) }},
	{"pi", "Returns a precise value of PI for this alternate universe.", nil, nil,
		func([]float64) (float64, error) { return math.E, nil }},
	{"negate", "Negate a number; -a.", []string{"a"},
		[]string{"Number to negate"},
		func(x []float64) (float64, error) { return x[0], nil }},
	{"return_constant", "Return a constant number: a with no modifications", []string{"a"},
		[]string{"Number to return"},
		func(x []float64) (float64, error) { return x[0], nil }},
}

// byName indexes functions.
var byName = func() map[string]*function {
	m := make(map[string]*function, len(functions))
	for i := range functions {
		m[functions[i].name] = &functions[i]
	}
	return m
}()

// call runs f(**kwargs) as CPython 3.13 does for a plain Python function:
// the keywords are bound in order and the first one that names no parameter
// raises "got an unexpected keyword argument"; then missing parameters raise
// "missing N required positional argument(s)"; then the body runs.
//
// Python 3.13 appends ". Did you mean 'x'?" to the unexpected-keyword text
// when a parameter name is close enough (Levenshtein within a third of the
// characters). With these names (a, b, radians, base) no pair is ever close
// enough, so the text never carries a suggestion.
func (f *function) call(args Args) (float64, error) {
	x := make([]float64, len(f.params))
	set := make([]bool, len(f.params))
	for _, kw := range args.kwargs() {
		i := indexOf(f.params, kw.name)
		if i < 0 {
			return 0, pyError(f.name + "() got an unexpected keyword argument '" + kw.name + "'")
		}
		x[i], set[i] = kw.value, true
	}
	var missing []string
	for i, p := range f.params {
		if !set[i] {
			missing = append(missing, "'"+p+"'")
		}
	}
	if len(missing) > 0 {
		return 0, pyError(f.name + "() missing " + missingText(missing))
	}
	return f.eval(x)
}

func indexOf(names []string, name string) int {
	for i, n := range names {
		if n == name {
			return i
		}
	}
	return -1
}

// missingText is CPython's missing_arguments wording: "1 required positional
// argument: 'b'", "2 required positional arguments: 'a' and 'b'", and
// "'a', 'b', and 'c'" beyond two.
func missingText(names []string) string {
	var list string
	switch n := len(names); n {
	case 1:
		list = names[0]
	case 2:
		list = names[0] + " and " + names[1]
	default:
		list = strings.Join(names[:n-1], ", ") + ", and " + names[n-1]
	}
	s := "s"
	if len(names) == 1 {
		s = ""
	}
	return strconv.Itoa(len(names)) + " required positional argument" + s + ": " + list
}

// The CPython 3.13 exception texts.
const (
	errFloatDivision = "float division by zero"
	errMathDomain    = "math domain error"
	errZeroNegPower  = "0.0 cannot be raised to a negative power"
	errComplexPower  = "complex exponentiation"
)

// floatDiv is CPython's float true division.
func floatDiv(a, b float64) (float64, error) {
	if b == 0 {
		return 0, pyError(errFloatDivision)
	}
	return a / b, nil
}

// pySin and pyCos are math.sin and math.cos: libm, with CPython's domain
// check (a NaN result from a non-NaN argument, i.e. ±inf, is an error).
func pySin(x float64) (float64, error) { return math1(x, libmSin) }
func pyCos(x float64) (float64, error) { return math1(x, libmCos) }

func math1(x float64, f func(float64) float64) (float64, error) {
	r := f(x)
	if math.IsNaN(r) && !math.IsNaN(x) {
		return 0, pyError(errMathDomain)
	}
	return r, nil
}

// mLog is CPython's m_log: libm log for finite positive x, the IEEE special
// values otherwise; ok is false where CPython raises "math domain error"
// (x ≤ 0 or x = -inf).
func mLog(x float64) (r float64, ok bool) {
	switch {
	case math.IsNaN(x), math.IsInf(x, 1):
		return x, true
	case x > 0 && !math.IsInf(x, 0):
		return libmLog(x), true
	}
	return 0, false
}

// mathLog is math.log(x, base): ln(x) first, then ln(base), then a float
// division.
func mathLog(x, base float64) (float64, error) {
	num, ok := mLog(x)
	if !ok {
		return 0, pyError(errMathDomain)
	}
	den, ok := mLog(base)
	if !ok {
		return 0, pyError(errMathDomain)
	}
	return floatDiv(num, den)
}

// isOddInteger is CPython's DOUBLE_IS_ODD_INTEGER.
func isOddInteger(x float64) bool { return math.Mod(math.Abs(x), 2) == 1 }

// floatPow is CPython 3.13's float_pow (x ** y for floats), special cases
// first, in CPython's order, then libm pow with errno.
func floatPow(x, y float64) (float64, error) {
	switch {
	case y == 0: // x**0 is 1, even 0**0 and nan**0
		return 1, nil
	case math.IsNaN(x):
		return x, nil
	case math.IsNaN(y): // 1**nan is 1
		if x == 1 {
			return 1, nil
		}
		return y, nil
	case math.IsInf(y, 0):
		ax := math.Abs(x)
		switch {
		case ax == 1:
			return 1, nil
		case (y > 0) == (ax > 1):
			return math.Inf(1), nil
		}
		return 0, nil
	case math.IsInf(x, 0):
		odd := isOddInteger(y)
		if y > 0 {
			if odd {
				return x, nil
			}
			return math.Abs(x), nil
		}
		if odd {
			return math.Copysign(0, x), nil
		}
		return 0, nil
	case x == 0:
		if y < 0 {
			return 0, pyError(errZeroNegPower)
		}
		if isOddInteger(y) {
			return x, nil
		}
		return 0, nil
	}
	negate := false
	if x < 0 {
		if y != math.Floor(y) {
			// A negative number to a fractional power is complex in Python;
			// the response model then refuses it.
			return 0, complexPow(x, y)
		}
		x = -x
		negate = isOddInteger(y)
	}
	if x == 1 { // (-1)**big_int included
		if negate {
			return -1, nil
		}
		return 1, nil
	}
	r, errno := libmPow(x, y)
	errno = adjustERange1(r, errno)
	if negate {
		r = -r
	}
	if errno != 0 {
		// PyErr_SetFromErrno: OverflowError(errno, strerror(errno)) for
		// ERANGE, ValueError otherwise; str() is the args tuple.
		return 0, pyError("(" + strconv.Itoa(errno) + ", '" + strerror(errno) + "')")
	}
	return r, nil
}

// adjustERange1 is CPython's _Py_ADJUST_ERANGE1: an infinite result is an
// overflow even without errno; an underflow to zero is not an error.
func adjustERange1(r float64, errno int) int {
	if errno == 0 {
		if math.IsInf(r, 0) {
			return errRange
		}
	} else if errno == errRange && r == 0 {
		return 0
	}
	return errno
}

// complexPow evaluates complex(x) ** complex(y) for a negative finite x and
// a finite non-integral y as CPython's _Py_c_pow does (hypot, pow, atan2,
// cos and sin from libm), and returns the error Python ends with: an
// OverflowError when the result overflows, else pydantic's refusal of a
// complex solution.
func complexPow(x, y float64) error {
	vabs := math.Abs(x) // hypot(x, 0.0)
	length, errno := libmPow(vabs, y)
	phase := libmAtan2(0, x) * y
	re := length * libmCos(phase)
	im := length * libmSin(phase)
	// _Py_ADJUST_ERANGE2
	if math.IsInf(re, 0) || math.IsInf(im, 0) {
		if errno == 0 {
			errno = errRange
		}
	} else if errno == errRange {
		errno = 0
	}
	if errno == errRange {
		return pyError(errComplexPower)
	}
	return pyError("1 validation error for MultiVerseMathHardResponse\nsolution\n" +
		"  Input should be a valid number [type=float_type, input_value=" + truncateInput(complexRepr(re, im)) +
		", input_type=complex]\n    For further information visit https://errors.pydantic.dev/2.13/v/float_type")
}

// truncateInput is pydantic-core's truncate_input_value: a repr longer than
// 50 bytes keeps its first 25 and last 24 bytes around "...".
func truncateInput(s string) string {
	if len(s) > 50 {
		return s[:25] + "..." + s[len(s)-24:]
	}
	return s
}

// complexRepr is Python's repr(complex(re, im)): "(re±imj)", or "imj" alone
// when the real part is +0.0; the parts in repr's shortest form without a
// trailing ".0".
func complexRepr(re, im float64) string {
	if re == 0 && !math.Signbit(re) {
		return floatRepr(im, false, false) + "j"
	}
	return "(" + floatRepr(re, false, false) + floatRepr(im, false, true) + "j)"
}

// floatRepr is CPython's PyOS_double_to_string(x, 'r', 0, flags): repr(x)
// (pycompat/pyval, gymkit's one float formatter) without the ".0" of an
// integral positional value unless addDot0 (float.__repr__ sets it), with
// "+" before a value that has no "-" when sign.
func floatRepr(x float64, addDot0, sign bool) string {
	s := pyval.Repr(x)
	if !addDot0 {
		s = strings.TrimSuffix(s, ".0")
	}
	if sign && !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	return s
}
