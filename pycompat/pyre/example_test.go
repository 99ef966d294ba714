package pyre_test

import (
	"fmt"

	"github.com/gymkit/gymkit/pycompat/pyre"
)

func Example() {
	re, err := pyre.Compile(`(?P<user>[\w.]+)@(?P<host>\w+)`, pyre.IgnoreCase)
	if err != nil {
		fmt.Println(err)
		return
	}
	m, _ := re.Search("Mail Amir.Ali@atlas now")
	user, _ := m.GroupNamed("user")
	start, end := m.Span(0)
	out, _ := re.Sub(`\g<host>: \1`, "a@b", 0)
	fmt.Println(user, start, end, out)
	// Output: Amir.Ali 5 19 b: a
}

// A pattern Python refuses is refused with Python's text, which a ported
// tool answers as its error.
func ExampleCompile_error() {
	_, err := pyre.Compile(`(?P<x>a)(?P<x>b`, 0)
	fmt.Println(err)
	_, err = pyre.Compile(`(?<=a+)b`, 0)
	fmt.Println(err)
	// Output:
	// redefinition of group name 'x' as group 2; was group 1 at position 12
	// look-behind requires fixed-width pattern
}

func ExampleRegexp_FindAll() {
	re := pyre.MustCompile(`(\w)=(\d)?`, 0)
	all, _ := re.FindAll("a=1 b= c=3")
	fmt.Printf("%q\n", all)
	// Output: [["a" "1"] ["b" ""] ["c" "3"]]
}

func ExampleRegexp_Split() {
	parts, _ := pyre.MustCompile(`[,;]\s*`, 0).Split("a, b;c", 0)
	fmt.Printf("%q\n", parts)
	// Output: ["a" "b" "c"]
}

func ExampleRegexp_Match() {
	re := pyre.MustCompile(`\d+`, 0)
	m, _ := re.Match("123x")
	full, _ := re.FullMatch("123x")
	fmt.Println(m, full == nil)
	// Output: 123 true
}
