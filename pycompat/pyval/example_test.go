package pyval_test

import (
	"context"
	"fmt"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/pycompat/pyval"
)

// A session's state kept as Python keeps it, a dict edited in place.
func Example() {
	v, _ := pyval.Loads(`{"history": [], "count": 0}`)
	state := v.(*pyval.Dict)
	hist, _ := state.Get("history")
	hist.(*pyval.List).Append("hi") // the list inside state, as Python's references
	n, _ := pyval.Add(state.GetDefault("count", 0), 1)
	state.Set("count", n)
	fmt.Println(pyval.Equal(n, 1.0))
	s, _ := pyval.Dumps(state, pyval.DumpOptions{})
	fmt.Println(s)
	// Output:
	// true
	// {"history": ["hi"], "count": 1}
}

// A tool handler answers a dict built in Go: ToValue turns it into the
// framework.Value that gymkit's encoders write in each door's forms.
func ExampleToValue() {
	type Resp struct {
		Result framework.Value `json:"result"`
	}
	handler := func(_ context.Context, req framework.Value) (Resp, error) {
		out := pyval.NewDictOf("echo", req, "ratio", 0.00001)
		v, err := pyval.ToValue(out)
		return Resp{Result: v}, err
	}
	req, _ := framework.ParseJSON([]byte(`{"a": [1, 2.0]}`))
	resp, _ := handler(context.Background(), req)
	b, _ := framework.MarshalJSON(resp, framework.JSONPydantic)
	fmt.Println(string(b))
	// Output: {"result":{"echo":{"a":[1,2.0]},"ratio":0.00001}}
}

func ExampleEqual() {
	fmt.Println(pyval.Equal(1, 1.0), pyval.Equal(true, 1), pyval.Equal("1", 1))
	a, _ := pyval.Loads(`{"a": 1, "b": [2]}`)
	b, _ := pyval.Loads(`{"b": [2.0], "a": true}`)
	fmt.Println(pyval.Equal(a, b))
	// Output:
	// true true false
	// true
}

func ExampleCompare() {
	lt, err := pyval.Compare("abc", "<", "abd")
	fmt.Println(lt, err)
	_, err = pyval.Compare("a", "<", 1)
	fmt.Println(err)
	// Output:
	// true <nil>
	// '<' not supported between instances of 'str' and 'int'
}

func ExampleInt() {
	n, err := pyval.Int(" ١٢ ")
	fmt.Println(n, err)
	_, err = pyval.Int("1.5")
	fmt.Println(err)
	// Output:
	// 12 <nil>
	// invalid literal for int() with base 10: '1.5'
}

func ExampleFloorDiv() {
	q, _ := pyval.FloorDiv(7, -2)
	f, _ := pyval.FloorDiv(-7.5, 2)
	_, err := pyval.FloorDiv(1, 0)
	fmt.Println(q, pyval.Repr(f), err)
	// Output: -4 -4.0 integer division or modulo by zero
}

func ExampleRepr() {
	v, _ := pyval.Loads(`[1.0, "it's", null, true, {"k": 1e-5}]`)
	fmt.Println(pyval.Repr(v))
	// Output: [1.0, "it's", None, True, {'k': 1e-05}]
}

func ExampleDumps() {
	v, _ := pyval.Loads(`{"b": "é", "a": [1, 2.5]}`)
	s, _ := pyval.Dumps(v, pyval.DumpOptions{})
	fmt.Println(s)
	s, _ = pyval.Dumps(v, pyval.DumpOptions{SortKeys: true, Separators: [2]string{",", ":"}, NoASCII: true})
	fmt.Println(s)
	// Output:
	// {"b": "\u00e9", "a": [1, 2.5]}
	// {"a":[1,2.5],"b":"é"}
}

func ExampleSliceBounds() {
	items := []string{"a", "b", "c", "d", "e"}
	lo, hi, _ := pyval.SliceBounds(len(items), -2, nil) // items[-2:]
	fmt.Println(items[lo:hi])
	// Output: [d e]
}

func ExampleList_Sort() {
	l := pyval.NewList(3, 1.5, true, 2)
	err := l.Sort(true)
	fmt.Println(l, err)
	// Output: [3, 2, 1.5, True] <nil>
}

func ExampleDict_Update() {
	d := pyval.NewDictOf("a", 1, "b", 2)
	upd, _ := pyval.Loads(`{"b": null, "c": [3]}`)
	_ = d.Update(upd)
	d.Delete("a")
	fmt.Println(d, d.Keys())
	// Output: {'b': None, 'c': [3]} [b c]
}
