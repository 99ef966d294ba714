package dateutil_test

import (
	"fmt"
	"time"

	"github.com/gymkit/gymkit/pycompat/dateutil"
)

func Example() {
	def := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, s := range []string{"Dec 5, 2023 10am", "5:50 A.M. on June 13, 1990", "2023-12-05T10:00:00+01:00", "Tuesday", "2023-02-30", "abc"} {
		dt, err := dateutil.Parse(s, dateutil.Options{Default: def})
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(dt)
	}
	// Output:
	// 2023-12-05 10:00:00
	// 1990-06-13 05:50:00
	// 2023-12-05 10:00:00+01:00
	// 2024-01-02 00:00:00
	// day is out of range for month: 2023-02-30
	// Unknown string format: abc
}

func ExampleParseFields() {
	f, ok := dateutil.ParseFields("3pm EST", nil)
	fmt.Println(ok, f.Hour, f.Day.Valid, f.TZName)
	// Output: true {15 true} false EST
}
