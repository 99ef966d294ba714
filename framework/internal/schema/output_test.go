package schema

import (
	"reflect"
	"testing"
)

type outEnum struct {
	Status string   `json:"status" enum:"ok,failed"`
	Enum   string   `json:"enum" enum:"a,b"` // a property named "enum" stays
	Score  *float64 `json:"score"`
}

// TestForOutputDropsEnums: an outputSchema has no enum constraint (a zero
// result value "" must validate) and keeps nullable pointers.
func TestForOutputDropsEnums(t *testing.T) {
	t.Parallel()
	got, err := ForOutput(reflect.TypeFor[outEnum]())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"properties":{"status":{"title":"Status","type":"string"},"enum":{"title":"Enum","type":"string"},"score":{"anyOf":[{"type":"number"},{"type":"null"}],"title":"Score"}},"title":"outEnum","type":"object"}`
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	in, _ := For(reflect.TypeFor[outEnum]())
	if string(in) == want {
		t.Error("the input schema lost its enums too")
	}
}
