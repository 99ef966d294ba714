package pycompat

import (
	"errors"

	"github.com/gymkit/gymkit/framework"
)

// Exception is a Python exception, as the pycompat packages return it in
// place of raising it: Class is the exception's class name as type(e).__name__
// gives it ("ValueError", "KeyError", "ParserError"), Msg its one argument.
// The zero Exception is not meaningful; build one with a struct literal or
// the constructors below. An Exception is a plain value, safe to share.
type Exception struct {
	// Class is the class name, as type(e).__name__ ("ValueError").
	Class string
	// Msg is the exception's one argument (for a KeyError, the key).
	Msg string
}

// Error returns Python's str() of the exception: Msg, except for a KeyError,
// whose str() is the repr of its argument (KeyError('x') prints 'x').
func (e *Exception) Error() string {
	if e.Class == "KeyError" {
		return framework.PythonReprString(e.Msg)
	}
	return e.Msg
}

// Repr returns Python's repr() of the exception, Class(repr(Msg)), e.g.
// ValueError("invalid literal for int() with base 10: 'x'"): the JSON string
// NeMo's servers answer as the 500 body of an unhandled exception.
func (e *Exception) Repr() string {
	return e.Class + "(" + framework.PythonReprString(e.Msg) + ")"
}

// bases maps each class pycompat raises to its base class; a class missing
// here derives from Exception.
var bases = map[string]string{
	"ValueError":          "Exception",
	"TypeError":           "Exception",
	"AttributeError":      "Exception",
	"LookupError":         "Exception",
	"KeyError":            "LookupError",
	"IndexError":          "LookupError",
	"ArithmeticError":     "Exception",
	"ZeroDivisionError":   "ArithmeticError",
	"OverflowError":       "ArithmeticError",
	"ParserError":         "ValueError", // dateutil.parser.ParserError
	"DateParseError":      "ValueError", // pandas.errors.DateParseError (pandas/_libs/tslibs/parsing.pyx)
	"OutOfBoundsDatetime": "ValueError", // pandas.errors.OutOfBoundsDatetime
	"PatternError":        "Exception",  // re.error (re.PatternError since Python 3.13)
	"MemoryError":         "Exception",
	"Exception":           "BaseException",
}

// IsInstance reports whether err is (or wraps, as errors.As finds it) an
// *Exception whose class is class or derives from it, as Python's
// isinstance(e, class) answers for the exceptions pycompat raises:
// IsInstance(err, "ValueError") is true for a dateutil ParserError, and
// IsInstance(err, "Exception") for any *Exception. It is false for a nil err
// and for errors that are not Exceptions.
func IsInstance(err error, class string) bool {
	var e *Exception
	if !errors.As(err, &e) {
		return false
	}
	for c := e.Class; ; {
		if c == class {
			return true
		}
		if c == "BaseException" {
			return false
		}
		b, ok := bases[c]
		if !ok {
			b = "Exception"
		}
		c = b
	}
}

// Constructors of the exceptions most ported code raises. Each returns an
// *Exception as an error.

// ValueError returns ValueError(msg).
func ValueError(msg string) error { return &Exception{"ValueError", msg} }

// TypeError returns TypeError(msg).
func TypeError(msg string) error { return &Exception{"TypeError", msg} }

// AttributeError returns AttributeError(msg).
func AttributeError(msg string) error { return &Exception{"AttributeError", msg} }

// KeyError returns KeyError(key): its Error() is repr(key), as Python's str()
// of a KeyError.
func KeyError(key string) error { return &Exception{"KeyError", key} }

// IndexError returns IndexError(msg).
func IndexError(msg string) error { return &Exception{"IndexError", msg} }

// ZeroDivisionError returns ZeroDivisionError(msg).
func ZeroDivisionError(msg string) error { return &Exception{"ZeroDivisionError", msg} }

// OverflowError returns OverflowError(msg).
func OverflowError(msg string) error { return &Exception{"OverflowError", msg} }
