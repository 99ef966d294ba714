package framework_test

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/framework"
)

// TestValueDocListsMethods: framework.Value is an alias, whose methods go
// doc does not show; its doc comment lists them, and must list every one
// (a method added to the internal type fails here until documented).
func TestValueDocListsMethods(t *testing.T) {
	t.Parallel()
	doc := docBetween(t, "", "type Value = ")
	vt := reflect.TypeFor[framework.Value]()
	for i := range vt.NumMethod() {
		if name := vt.Method(i).Name; !strings.Contains(doc, "//\tfunc (v Value) "+name+"(") {
			t.Errorf("Value's doc comment does not list the method %s", name)
		}
	}
	pt := reflect.PointerTo(vt)
	for i := range pt.NumMethod() {
		name := pt.Method(i).Name
		if _, ok := vt.MethodByName(name); ok {
			continue
		}
		if !strings.Contains(doc, "//\tfunc (v *Value) "+name+"(") {
			t.Errorf("Value's doc comment does not list the pointer method %s", name)
		}
	}
	for i := range vt.NumField() {
		if name := vt.Field(i).Name; !strings.Contains(doc, "//\t\t"+name+" ") {
			t.Errorf("Value's doc comment does not list the field %s", name)
		}
	}
}

// TestExtraDocListsMethods: the same for framework.Extra, an alias too.
func TestExtraDocListsMethods(t *testing.T) {
	t.Parallel()
	doc := docBetween(t, "// Extra, embedded", "type Extra = ")
	pt := reflect.PointerTo(reflect.TypeFor[framework.Extra]())
	for i := range pt.NumMethod() {
		name := pt.Method(i).Name
		if !strings.Contains(doc, "//\tfunc (e Extra) "+name+"(") && !strings.Contains(doc, "//\tfunc (e *Extra) "+name+"(") {
			t.Errorf("Extra's doc comment does not list the method %s", name)
		}
	}
}

// docBetween returns json.go's text from the first from to the first to
// after it (from "" is the file's start); it fails the test when either is
// missing.
func docBetween(t *testing.T, from, to string) string {
	t.Helper()
	src, err := os.ReadFile("json.go")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(src)
	i := strings.Index(doc, from)
	j := strings.Index(doc[max(i, 0):], to)
	if i < 0 || j < 0 {
		t.Fatalf("json.go has no %q ... %q", from, to)
	}
	return doc[i : i+j]
}
