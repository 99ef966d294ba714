package session

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// stateTypes caches checkStateType's answer per type: reflect.Type -> error
// (nil for a type that round-trips).
var stateTypes sync.Map

// stateTypeError returns why T cannot be session state, or nil: the value
// is stored as T's encoding/json encoding, which silently drops unexported
// fields, so a state type with one would come back without it.
// Get and Update call it first; the answer is computed once per type.
func stateTypeError[T any]() error {
	t := reflect.TypeFor[T]()
	if e, ok := stateTypes.Load(t); ok {
		err, _ := e.(error)
		return err
	}
	err := checkStateType(t, t, map[reflect.Type]bool{})
	stateTypes.Store(t, err)
	return err
}

// checkStateType walks t (reached from the state type root) through
// pointers, slices, arrays, maps and struct fields. A type with its own
// MarshalJSON or UnmarshalJSON (time.Time, framework.Int) is its own
// business and not walked.
func checkStateType(root, t reflect.Type, seen map[reflect.Type]bool) error {
	for {
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
			if selfEncoding(t) {
				return nil
			}
			t = t.Elem()
			continue
		}
		break
	}
	if t.Kind() != reflect.Struct || seen[t] || selfEncoding(t) {
		return nil
	}
	seen[t] = true
	if err := shadowedField(root, t); err != nil {
		return err
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Tag.Get("json") == "-" {
			continue
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if !f.IsExported() && !(f.Anonymous && ft.Kind() == reflect.Struct) {
			return fmt.Errorf("session: state type %v: field %s of %v is unexported, so storing the state (encoding/json) drops it "+
				"and it comes back as its zero value; export it (with a json tag naming its key), tag it `json:\"-\"` "+
				"to drop it knowingly, or give %v MarshalJSON and UnmarshalJSON methods", root, f.Name, t, t)
		}
		if err := checkStateType(root, f.Type, seen); err != nil {
			return err
		}
	}
	return nil
}

// selfEncoding reports whether t or *t implements json.Marshaler or
// json.Unmarshaler.
func selfEncoding(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	return t.Implements(jsonMarshaler) || pt.Implements(jsonMarshaler) ||
		t.Implements(jsonUnmarshaler) || pt.Implements(jsonUnmarshaler)
}

// jsonField is one field encoding/json would write for a struct, found at
// embedding depth depth (0: the struct's own).
type jsonField struct {
	name, goName string // goName is Type.Field, the declaring struct's
	depth        int
	tagged       bool
}

// shadowedField reports a field of struct t that encoding/json drops
// without a word because another field has the same JSON key: a deeper one
// loses to a shallower one, and two at the same depth (both tagged or both
// not) are both dropped. An embedded struct's fields are promoted as
// encoding/json promotes them (an untagged embedded struct, or a pointer to
// one); a struct with its own MarshalJSON is one value, not walked.
func shadowedField(root, t reflect.Type) error {
	var fields []jsonField
	var walk func(t reflect.Type, depth int, visited map[reflect.Type]bool)
	walk = func(t reflect.Type, depth int, visited map[reflect.Type]bool) {
		if visited[t] {
			return
		}
		visited[t] = true
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if f.Anonymous && name == "" && ft.Kind() == reflect.Struct && !selfEncoding(ft) {
				walk(ft, depth+1, visited)
				continue
			}
			if !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			fields = append(fields, jsonField{name: name, goName: t.Name() + "." + f.Name, depth: depth, tagged: tag != "" && !strings.HasPrefix(tag, ",")})
		}
	}
	walk(t, 0, map[reflect.Type]bool{})
	byName := map[string][]jsonField{}
	for _, f := range fields {
		byName[f.name] = append(byName[f.name], f)
	}
	for _, f := range fields {
		same := byName[f.name]
		if len(same) < 2 {
			continue
		}
		// encoding/json's dominance: the shallowest wins, if it is alone
		// at its depth or the only tagged one there.
		best := same[0].depth
		for _, g := range same {
			best = min(best, g.depth)
		}
		var top, tagged int
		for _, g := range same {
			if g.depth == best {
				top++
				if g.tagged {
					tagged++
				}
			}
		}
		if f.depth == best && (top == 1 || (tagged == 1 && f.tagged)) {
			continue // f is written
		}
		var other jsonField
		for _, g := range same {
			if g != f {
				other = g
				break
			}
		}
		return fmt.Errorf("session: state type %v: field %s has the JSON key %q, as field %s does, so storing the state "+
			"(encoding/json) drops it and it comes back as its zero value; give one of them another json tag "+
			"(an embedded framework.Extra is stored under \"extra\")", root, f.goName, f.name, other.goName)
	}
	return nil
}
