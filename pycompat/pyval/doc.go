// Package pyval is Python's semantics for the objects json.loads builds
// (None, bool, int, float, str, list, dict): ==, <, bool(), str(), repr(),
// int(), float(), in, len(), + - * / //, slicing, with CPython 3.13's
// results and exception texts; and mutable, ordered lists and dicts that a
// handler ported from Python edits in place, then answers or stores.
//
//	v, _ := pyval.Loads(`{"history": [], "count": 0}`)
//	state := v.(*pyval.Dict)
//	hist, _ := state.Get("history")
//	hist.(*pyval.List).Append("hi")                 // the list inside state, as Python's references
//	n, _ := pyval.Add(state.GetDefault("count", 0), 1)
//	state.Set("count", n)
//	pyval.Equal(n, 1.0)                             // true: 1 == 1.0 == True
//	s, _ := pyval.Dumps(state, pyval.DumpOptions{}) // {"history": ["hi"], "count": 1}
//
// # Objects
//
// A Python object is a Go value of one of these types (the functions take
// and return them as any):
//
//	None   nil
//	bool   bool
//	int    int, or *big.Int beyond int's range
//	float  float64
//	str    string
//	list   *List
//	dict   *Dict (str keys, in insertion order)
//
// The functions also read framework.Value (the object json.loads builds
// for it: a Number by its literal, "1" an int and "1.0" a float; an Array a
// list, an Object a dict) and *framework.Value (the Value it points to, read
// in place: a loop over table cells passes &row[c] and copies nothing; nil
// is None), framework.Int, the other Go integer types and float32. Set, Append and the other methods that store
// an object normalize it to the types above (a framework.Value becomes new
// Lists and Dicts, an int64 an int), so a stored object is always one of
// them. Any other Go type is an opaque object: it is truthy, equal only to
// what Go's == finds equal to it, its type name is its Go type, and Dumps
// refuses it as Python's json refuses an object it cannot serialize.
//
// # Errors
//
// Where Python raises, a function returns a *pycompat.Exception with the
// CPython 3.13 class and text (TypeError("'<' not supported between
// instances of 'str' and 'int'"), ZeroDivisionError("division by zero"),
// ...), so a ported tool can answer the same error text.
//
// # Differences
//
// NaN is never equal to NaN, not even inside a list (CPython's identity
// shortcut for one float object has no Go counterpart). Dict keys are str,
// as in JSON. List.Sort is a stable sort, like CPython's, so its result is
// CPython's; but when the items cannot be compared the TypeError may name
// the two types in the other order. %, ** and bitwise operators are not here yet.
//
// # Concurrency
//
// The functions are safe for concurrent use. A *List or *Dict, like a Go
// map, may be read by several goroutines at once but must not be read while
// it is changed.
package pyval
