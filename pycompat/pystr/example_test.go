package pystr_test

import (
	"fmt"
	"strings"

	"github.com/gymkit/gymkit/pycompat/pystr"
)

// A search as NeMo's tools write it in Python,
// all(w in text.lower() for w in query.lower().split()).
func Example() {
	text := "Weekly SYNC-UP with Ολα ΚΑΛΑ"
	query := "sync\u00a0up  καλα"
	low := pystr.Lower(text)
	found := true
	for _, w := range pystr.Split(pystr.Lower(query)) {
		found = found && strings.Contains(low, w)
	}
	fmt.Println(pystr.Split(pystr.Lower(query)), found)
	// Output: [sync up καλα] true
}

func ExampleLower() {
	fmt.Println(pystr.Lower("ΟΔΟΣ ΚΑΙ İ"))
	// Output: οδος και i̇
}

func ExampleUpper() {
	fmt.Println(pystr.Upper("Straße ﬁx"))
	// Output: STRASSE FIX
}

func ExampleCasefold() {
	fmt.Println(pystr.Casefold("Straße") == pystr.Casefold("STRASSE"))
	// Output: true
}

func ExampleSplitN() {
	fmt.Printf("%q\n", pystr.SplitN("  to: a@b.co  cc: c@d.co ", 1))
	// Output: ["to:" "a@b.co  cc: c@d.co "]
}

func ExampleSplitSep() {
	words, err := pystr.SplitSep("a,,b", ",", -1)
	fmt.Printf("%q %v\n", words, err)
	_, err = pystr.SplitSep("a,,b", "", -1)
	fmt.Println(err)
	// Output:
	// ["a" "" "b"] <nil>
	// empty separator
}

func ExampleIsDigit() {
	fmt.Println(pystr.IsDigit("2²"), pystr.IsDecimal("2²"), pystr.IsDigit("½"))
	// Output: true false false
}

func ExampleRepr() {
	fmt.Println(pystr.Repr("it's"), pystr.Repr("tab\there"))
	// Output: "it's" 'tab\there'
}

func ExampleZFill() {
	fmt.Println(pystr.ZFill("42", 8), pystr.ZFill("-7", 4))
	// Output: 00000042 -007
}
