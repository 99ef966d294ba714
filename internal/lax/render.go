package lax

import (
	"fmt"
	"strconv"
	"unsafe"

	"github.com/gymkit/gymkit/internal/pyjson"
)

// URLPrefix is the start of the "url" key of an error item outside FastAPI;
// the error type follows it. 2.13 is pydantic's major.minor version
// [src: pydantic-core validation_exception.rs › get_formated_url].
const URLPrefix = "https://errors.pydantic.dev/2.13/v/"

// RenderHTTP returns FastAPI's 422 body for items:
// {"detail":[{"type":…,"loc":["body",…],"msg":…,"input":…[,"ctx":{…}]},…]},
// written as Starlette's JSONResponse does (compact separators, raw UTF-8,
// Python float repr), without "url". Inputs holding NaN or infinities, which
// make Python's JSONResponse raise (see RenderHTTPStrict), are written as the
// NaN/Infinity/-Infinity literals. A nil or empty items gives {"detail":[]}.
func RenderHTTP(items []ErrorItem) []byte {
	b, err := renderHTTP(items, pyjson.Python)
	if err != nil {
		o := pyjson.Python
		o.NaN = pyjson.NaNLiteral
		b, _ = renderHTTP(items, o)
	}
	return b
}

// RenderHTTPStrict is RenderHTTP with Python's failure kept: when an input
// holds NaN or an infinity (JSON NaN sent to an int field, say), Starlette's
// JSONResponse raises ValueError("Out of range float values are not JSON
// compliant: nan"), which NeMo Gym's middleware turns into a 500 whose body
// is the JSON string of that repr. The error is then a
// *pyjson.FloatRangeError whose Error() is that message, and b is nil.
//
// Both renderings show at most MaxItems items and stop adding items past
// MaxRenderBytes; a report cut so ends with one TypeTooManyErrors item
// (loc ["body"], input null). Only the items shown are checked for NaN.
func RenderHTTPStrict(items []ErrorItem) (b []byte, err error) {
	return renderHTTP(items, pyjson.Python)
}

func renderHTTP(items []ErrorItem, o pyjson.Options) ([]byte, error) {
	b := append([]byte(nil), `{"detail":[`...)
	b, err := appendItems(b, items, true, false, ",", o)
	if err != nil {
		return nil, err
	}
	return append(b, "]}"...), nil
}

// RenderMCP returns the error list as NeMo Gym's MCP door writes it after
// "HTTP 422 from POST /<tool>: ": Python json.dumps with its defaults
// (", " and ": " separators, ensure_ascii=True, NaN and Infinity literals,
// Python float repr), loc without "body", and
// "url": "https://errors.pydantic.dev/2.13/v/<type>" as the last key. It is
// cut as RenderHTTPStrict's (the TypeTooManyErrors item has loc [] and no
// url).
func RenderMCP(items []ErrorItem) string {
	b, err := appendItems([]byte{'['}, items, false, true, ", ", pyjson.PythonDumps)
	if err != nil {
		// Only a hand-built Input with a malformed number literal gets here.
		return "[]"
	}
	b = append(b, ']')
	return unsafe.String(unsafe.SliceData(b), len(b)) // b is not used again: no copy of a large report
}

// AppendMCP appends RenderMCP(items) to b, without a copy of its own.
func AppendMCP(b []byte, items []ErrorItem) []byte {
	n := len(b)
	b, err := appendItems(append(b, '['), items, false, true, ", ", pyjson.PythonDumps)
	if err != nil {
		return append(b[:n], "[]"...)
	}
	return append(b, ']')
}

// appendItems writes the items shown (see RenderHTTPStrict) joined by sep.
func appendItems(b []byte, items []ErrorItem, body, url bool, sep string, o pyjson.Options) ([]byte, error) {
	start := len(b)
	for i := range items {
		if i == MaxItems || (i > 0 && len(b)-start >= MaxRenderBytes) {
			cut := ErrorItem{Type: TypeTooManyErrors, Loc: []any{}, Msg: msgTooManyErrors}
			v := itemValue(&cut, body, false)
			b = append(b, sep...)
			return pyjson.AppendValue(b, &v, o)
		}
		if i > 0 {
			b = append(b, sep...)
		}
		v := itemValue(&items[i], body, url)
		var err error
		if b, err = pyjson.AppendValue(b, &v, o); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// itemValue lays out one item in pydantic's key order: type, loc, msg,
// input, ctx (when present), url (when asked).
func itemValue(it *ErrorItem, body, url bool) pyjson.Value {
	n := len(it.Loc)
	if body {
		n++
	}
	loc := make([]pyjson.Value, 0, n)
	if body {
		loc = append(loc, pyjson.StringValue("body"))
	}
	for _, l := range it.Loc {
		loc = append(loc, locValue(l))
	}
	members := make([]pyjson.Member, 0, 6)
	members = append(members,
		pyjson.Member{Key: "type", Value: pyjson.StringValue(it.Type)},
		pyjson.Member{Key: "loc", Value: pyjson.ArrayValue(loc...)},
		pyjson.Member{Key: "msg", Value: pyjson.StringValue(it.Msg)},
		pyjson.Member{Key: "input", Value: it.Input},
	)
	if it.Ctx != nil {
		members = append(members, pyjson.Member{Key: "ctx", Value: pyjson.ObjectValue(it.Ctx...)})
	}
	if url {
		members = append(members, pyjson.Member{Key: "url", Value: pyjson.StringValue(URLPrefix + it.Type)})
	}
	return pyjson.ObjectValue(members...)
}

// locValue writes a loc segment: strings as strings, ints as numbers, any
// other value as its Go text (callers only use strings and ints).
func locValue(l any) pyjson.Value {
	switch x := l.(type) {
	case string:
		return pyjson.StringValue(x)
	case int:
		return pyjson.NumberValue(strconv.Itoa(x))
	case int64:
		return pyjson.NumberValue(strconv.FormatInt(x, 10))
	}
	return pyjson.StringValue(fmt.Sprint(l))
}
