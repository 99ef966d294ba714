package session

import (
	"fmt"
	"reflect"
	"sync"
)

// stateTypes caches checkStateType's answer per type: reflect.Type -> error
// (nil for a type that round-trips).
var stateTypes sync.Map

// stateTypeError returns why T cannot be session state, or nil: the value
// is stored as T's encoding/json encoding, which silently drops unexported
// fields, so a state type with one would come back without it (issue 12).
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
