package pandas_test

import (
	"fmt"
	"strings"

	"github.com/gymkit/gymkit/pycompat/pandas"
)

// The rows of a table whose name contains a pattern, ignoring case, newest
// first: df[df["name"].str.contains(q, case=False)].sort_values("start",
// ascending=False).
func Example() {
	csv := "id,name,start\n1,Sync up,2023-12-04 10:00:00\n2,Lunch,2023-12-05 12:00:00\n3,sync UP again,2023-12-06 09:30:00\n4,,2023-12-07\n"
	t, err := pandas.ReadCSV(strings.NewReader(csv), pandas.CSVOptions{})
	if err != nil {
		panic(err)
	}
	found, err := t.Column(t.Col("name")).StrContains("sync", false)
	if err != nil {
		panic(err)
	}
	var rows []int
	for i, f := range found {
		if f == pandas.True { // na=False
			rows = append(rows, i)
		}
	}
	starts := make([]pandas.Timestamp, len(rows))
	for k, i := range rows {
		starts[k], _ = pandas.ToTimestamp(t.At(i, t.Col("start")))
	}
	order := pandas.SortDescending(len(rows), func(a, b int) bool {
		c, ok, _ := starts[a].Cmp(starts[b])
		return ok && c < 0
	})
	for _, k := range order {
		fmt.Println(t.At(rows[k], 0).Str, starts[k])
	}
	// Output:
	// 3 2023-12-06 09:30:00
	// 1 2023-12-04 10:00:00
}

func ExampleParseTimestamp() {
	for _, s := range []string{"Dec 5, 2023", "13/05/2023", "2023Q2", "2023-12-05T10:00-0530", "Tuesday", "5"} {
		ts, err := pandas.ParseTimestamp(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(ts)
	}
	// Output:
	// 2023-12-05 00:00:00
	// 2023-05-13 00:00:00
	// 2023-04-01 00:00:00
	// 2023-12-05 10:00:00-05:30
	// Unable to parse datetime string: Tuesday
	// Given date string "5" not likely a datetime
}

func ExampleSeries_Max() {
	t, _ := pandas.ReadCSV(strings.NewReader("id\n00000499\n500\n999\n1000\n"), pandas.CSVOptions{})
	mx, _, _ := t.Column(0).Max() // str ids: the lexicographic max
	fmt.Println(mx.Str)
	// Output: 999
}
