// Package pycompat is gymkit's home for Python behaviour: Go functions that
// answer as CPython 3.13 (Unicode 15.1) and the Python libraries NeMo Gym's
// servers use, so that a server ported from Python to gymkit gives the same
// answers, error texts included, byte for byte.
//
//	words := pystr.Split("  Sync UP\u00a0today ")     // ["Sync", "UP", "today"], as str.split()
//	low := pystr.Lower("ΟΔΟΣ")                        // "οδος": str.lower(), final sigma included
//	eq := pyval.Equal(1, 1.0)                          // true, as 1 == 1.0
//	re, err := pyre.Compile(`(?P<id>\d+)`, pyre.IgnoreCase) // re.compile, re.error texts
//	ts, err := pandas.ToTimestamp("Dec 5, 2023 10am")  // pd.Timestamp(...)
//
// Where each Python piece lives:
//
//	Python                                              Go
//	str methods, repr(str), \w as re sees it            pycompat/pystr
//	json.loads objects: ==, <, bool(), str(), repr(),   pycompat/pyval
//	  int(), float(), in, + - * / //, slicing;
//	  dicts and lists edited in place; json.dumps
//	re (CPython 3.13's parser, its error texts)         pycompat/pyre
//	dateutil.parser.parse (dateutil 2.9)                pycompat/dateutil
//	pandas 2.2: DataFrame of object columns, Series     pycompat/pandas
//	  .str.contains/.str.lower/==/</max, pd.Timestamp;
//	  numpy's argsort (kind="quicksort")
//	random.Random, numpy.random.RandomState             pycompat/pyrandom (a home, empty so far)
//	sum, math.fsum, statistics.mean                     pycompat/pymath (a home, empty so far)
//
// The repr of a str, the float forms (1.0, 1e-05, 1e+16) and JSON with
// Python's semantics are framework's own (framework.PythonReprString,
// framework.PythonRepr, framework.ParseJSON, framework.MarshalJSON): pycompat
// calls them, so there is one implementation of each.
//
// # Exceptions
//
// A function that raises in Python returns an error. The errors pycompat
// makes are *[Exception] values: the Python class and the message, whose
// Error() is Python's str() of the exception, the text a NeMo server usually
// shows (f"Error: {e}"). [IsInstance] answers Python's isinstance for the
// class hierarchy of the exceptions pycompat raises (a dateutil ParserError is
// a ValueError); framework.PythonError(e.Class, e.Msg) gives the repr text of
// an unhandled exception's 500.
//
// # Unicode
//
// CPython 3.13 uses Unicode 15.1; Go 1.26's unicode package is Unicode 15.0.
// Unicode 15.1 added 627 characters (U+2FFC-2FFF, U+31EF, the CJK ideographs
// U+2EBF0-2EE5D), all printable, none cased, spaces or digits; pycompat adds
// them where it matters (repr, isalpha, \w) and TestUnicodeVersion fails
// when Go's tables change version, so that a Go upgrade is checked here.
package pycompat
