package framework_test

import (
	"strings"
	"testing"
)

// seedBodyEdgeCases are the bodies of SeedBody's review: keys
// ending in backslashes or holding quotes, brackets inside strings, huge
// exponents, negative zero, empty and repeated keys, white space of every
// kind, Python's literals, line and paragraph separators, a BOM inside a
// string and before white space, UTF-16 and NUL patterns, the MCP door's
// allowed_tools repeated and escaped, long runs of escapes, and nesting
// around the default max_json_depth.
func seedBodyEdgeCases() [][]byte {
	deep := func(n int) []byte {
		return []byte(`{"a":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `,"b":1}`)
	}
	return [][]byte{
		[]byte(`{"a\\":1,"a":2}`),
		[]byte(`{"a":"\\\\\"","b":2,"a\"":3}`),
		[]byte(`{"a":[{"}":"{"}],"b":"x]"}`),
		[]byte(`{"a":1e999999999,"b":-1e-999999999}`),
		[]byte(`{"a":-0,"b":-0.0,"c":0e0}`),
		[]byte(`{"":1,"":[]}`),
		[]byte("\t{\r\n\"a\"\t:\n1\r,\"b\" : [ 1 , { } ] }\n"),
		[]byte(`{"a":Infinity,"b":-Infinity,"c":NaN,"d":[NaN]}`),
		[]byte("{\"\u2028\":\"\u2029\",\"\ufeff\":1}"),
		[]byte(`{"a":"\u0000","b":"\uffff","\ud83d\ude00":1,"\ude00":2}`),
		[]byte(`{"allowed_tools":["x"],"allowed_tools":["y"],"allowed_tool\u0073":["z"]}`),
		[]byte(`{"mcp":{"headers":{}},"a":1}`),
		[]byte(`{"a":{"a":{"a":1}},"a":{"b":2}}`),
		[]byte(`{"a" :1}`),
		[]byte(`{"a":"x\\"}`),
		[]byte(`{"a":"\\","b":"\\\\","c":"\"\\"}`),
		[]byte(`{"a":true,"b":false,"c":null}`),
		[]byte(`{"a":123456789012345678901234567890123456789012345678901234567890e-10}`),
		[]byte("\xef\xbb\xbf  {\"a\":1}"),
		[]byte("{\"a\":\"\xef\xbb\xbf\"}"),
		[]byte(" \xef\xbb\xbf{\"a\":1}"),
		[]byte("\x00{\x00\"\x00a\x00\"\x00:\x001\x00}"),
		[]byte("{\x00\"\x00a\x00\"\x00:\x001\x00}\x00"),
		[]byte(`{"a":1}` + strings.Repeat(" ", 100000)),
		[]byte(`{"a":"` + strings.Repeat("\\\"", 50000) + `","b":2}`),
		deep(10), deep(98), deep(99), deep(100), deep(101), deep(998), deep(999),
	}
}

// TestSeedBodyEdges: on every edge body, Get agrees with the tree, before
// and after it is built, and JSON reads back as the tree.
func TestSeedBodyEdges(t *testing.T) {
	t.Parallel()
	for _, c := range seedBodyEdgeCases() {
		checkSeedBody(t, c)
	}
}
