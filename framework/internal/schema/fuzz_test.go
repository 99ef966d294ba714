package schema

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/internal/lax"
	"github.com/gymkit/gymkit/internal/model"
	"github.com/gymkit/gymkit/internal/pyjson"
)

type fuzzInner struct {
	A string `json:"a" required:"true"`
	B *int   `json:"b"`
}

// fuzzOpen is a model with extra="allow". It is a field type, not embedded
// by reflect.StructOf, which cannot build a struct that embeds a type with
// methods (pyjson.Extra has Get, Set...: the runtime crashes on the type).
type fuzzOpen struct {
	pyjson.Extra
	C []string `json:"c"`
}

// palette is the field types the fuzzer combines.
var palette = []reflect.Type{
	reflect.TypeFor[string](), reflect.TypeFor[int](), reflect.TypeFor[int8](), reflect.TypeFor[uint32](),
	reflect.TypeFor[float64](), reflect.TypeFor[bool](), reflect.TypeFor[*string](), reflect.TypeFor[[]int](),
	reflect.TypeFor[map[string]float64](), reflect.TypeFor[any](), reflect.TypeFor[json.RawMessage](),
	reflect.TypeFor[pyjson.Value](), reflect.TypeFor[pyjson.Dict](), reflect.TypeFor[fuzzInner](),
	reflect.TypeFor[[]fuzzInner](), reflect.TypeFor[*fuzzInner](), reflect.TypeFor[map[string][]string](),
}

// fuzzType builds a struct type from data: each 2-byte chunk picks a field
// type (or an embedded fuzzInner or lax.Forbid, or a model embedding
// pyjson.Extra) and a tag from
// tags (split on "|"). ok is false when reflect refuses the type.
func fuzzType(data []byte, tags string) (t reflect.Type, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	tagList := strings.Split(tags, "|")
	var fields []reflect.StructField
	for i := 0; i+1 < len(data) && len(fields) < 12; i += 2 {
		sel, tg := int(data[i]), int(data[i+1])
		f := reflect.StructField{Name: "F" + string(rune('A'+len(fields)))}
		switch sel % 24 {
		case 20:
			f.Type, f.Anonymous, f.Name = reflect.TypeFor[fuzzInner](), true, "fuzzInner"
		case 21:
			f.Type, f.Anonymous, f.Name = reflect.TypeFor[lax.Forbid](), true, "Forbid"
		case 22:
			f.Type = reflect.TypeFor[fuzzOpen]()
		default:
			f.Type = palette[sel%len(palette)]
		}
		f.Tag = reflect.StructTag(tagList[tg%len(tagList)])
		fields = append(fields, f)
	}
	return reflect.StructOf(fields), true
}

// FuzzSchema: every type For accepts gives a self-contained schema in
// pydantic's shape (no $ref or $defs, "type" never an array, an object root
// whose properties are the model's fields in order, required among them),
// and a type For refuses is one lax refuses too or a recursive one.
func FuzzSchema(f *testing.F) {
	f.Add([]byte{0, 0, 1, 1, 13, 2, 20, 0}, `json:"x" required:"true"|json:"y" enum:"a,b"|json:"z" default:"3"|description:"d"`)
	f.Add([]byte{2, 0, 21, 0, 9, 1}, `json:"a,omitempty"|json:"-"`)
	f.Add([]byte{22, 0, 0, 1, 5, 2}, `json:"k"|default:"true"|json:"b" required:"true"`)
	f.Fuzz(func(t *testing.T, data []byte, tags string) {
		typ, ok := fuzzType(data, tags)
		if !ok {
			return
		}
		raw, err := For(typ)
		if err != nil {
			if _, lerr := lax.Compile(typ); lerr == nil && !strings.Contains(err.Error(), "recursive") {
				t.Logf("For refused a type lax accepts: %v", err) // swaggest's own refusals (bad tags)
			}
			return
		}
		if _, err := lax.Compile(typ); err != nil {
			t.Fatalf("For accepted a type lax refuses: %v", err)
		}
		v, err := pyjson.Parse(raw)
		if err != nil {
			t.Fatalf("schema is not JSON: %v\n%s", err, raw)
		}
		checkSelfContained(t, v, raw)
		if typ, _ := v.Get("type"); typ.Str != "object" {
			t.Fatalf("root type %s: %s", pyjson.Repr(typ), raw)
		}
		props, _ := v.Get("properties")
		m := model.Of(typ)
		if len(props.Members) != len(m.Fields) {
			t.Fatalf("properties %d, model fields %d: %s", len(props.Members), len(m.Fields), raw)
		}
		for i, p := range props.Members {
			if p.Key != m.Fields[i].Name {
				t.Fatalf("property %d is %q, model field %q", i, p.Key, m.Fields[i].Name)
			}
		}
		req, _ := v.Get("required")
		for _, r := range req.Items {
			if _, ok := props.Get(r.Str); !ok {
				t.Fatalf("required %q is not a property: %s", r.Str, raw)
			}
		}
	})
}

func checkSelfContained(t *testing.T, v pyjson.Value, raw []byte) {
	t.Helper()
	switch v.Kind {
	case pyjson.Object:
		for _, m := range v.Members {
			switch m.Key {
			case "$ref", "$defs", "definitions":
				t.Fatalf("schema not self-contained (%s): %s", m.Key, raw)
			case "type":
				if m.Value.Kind != pyjson.String {
					t.Fatalf("type is not one string: %s", raw)
				}
			}
			if m.Key != "default" && m.Key != "enum" && m.Key != "examples" && m.Key != "example" {
				checkSelfContained(t, m.Value, raw)
			}
		}
	case pyjson.Array:
		for _, it := range v.Items {
			checkSelfContained(t, it, raw)
		}
	}
}
