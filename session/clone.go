package session

import (
	"encoding"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"sync"
)

// The memory store keeps the T of [Update] itself rather than its JSON, and
// each Update hands fn a copy made by a plan of T (copy-on-write: the stored
// T is never changed, so a failing or panicking fn, or a missed write
// deadline, leaves it as it was, and a concurrent [Get] encodes it without
// a lock). The copy is deep where fn could otherwise reach the stored value
// (slices, arrays and maps are copied, strings shared), and a slice of
// elements without references inside but strings is copied with one
// memmove, so an append to a long list costs a copy of its memory, not a
// JSON decoding and encoding of every element.
//
// Where a plain copy would keep what JSON drops (pointers and their
// aliasing, interfaces, types with their own MarshalJSON/UnmarshalJSON or
// MarshalText/UnmarshalText, structs with unexported or embedded fields or
// omitzero, map keys other than strings and integers, recursive types,
// channels, functions, complex numbers), that part of T is copied through a
// JSON round trip, so fn sees it as with any other store. After fn, the
// parts JSON could refuse (floats, which may be NaN or infinite, and the
// round-tripped parts) are checked, so that Update fails where the JSON
// path would have.

// plan copies and checks values of one type.
type plan struct {
	kind  planKind
	typ   reflect.Type
	elem  *plan       // slice, array, map: the element's plan
	flds  []fieldPlan // struct
	flat  bool        // copying the value copies everything (no slice, map, ...)
	check bool        // a value may fail to encode
}

type fieldPlan struct {
	index     int
	p         *plan
	omitEmpty bool // slice or map with omitempty: empty reads back as nil
}

type planKind uint8

const (
	planFlat   planKind = iota // bool, numbers, strings: copy
	planFloat                  // float32, float64: copy; check finite
	planStruct                 // field by field
	planSlice
	planArray
	planMap
	planJSON // JSON round trip
)

var plans sync.Map // reflect.Type -> *plan

var (
	jsonMarshaler   = reflect.TypeFor[json.Marshaler]()
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textMarshaler   = reflect.TypeFor[encoding.TextMarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// planOf returns the plan of t, building it once.
func planOf(t reflect.Type) *plan {
	if p, ok := plans.Load(t); ok {
		return p.(*plan)
	}
	p := buildPlan(t, map[reflect.Type]bool{})
	plans.Store(t, p)
	return p
}

func ownJSON(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	for _, i := range []reflect.Type{jsonMarshaler, jsonUnmarshaler, textMarshaler, textUnmarshaler} {
		if t.Implements(i) || pt.Implements(i) {
			return true
		}
	}
	return false
}

// Immutable is implemented by a state type whose values never change once
// made (its methods return new values, and nothing reachable from a value
// is ever written) and that always encodes to JSON. The memory store's
// typed [Update] copies a field of such a type by assignment, not by a
// JSON round trip as it copies other types with their own MarshalJSON.
// framework.Int implements it. A type that breaks the promise would let
// an Update that fails leak its change into the stored state: implement it
// only for true values.
type Immutable interface {
	// SessionImmutable marks the type; it is never called.
	SessionImmutable()
}

var immutableType = reflect.TypeFor[Immutable]()

func buildPlan(t reflect.Type, building map[reflect.Type]bool) *plan {
	if t.Kind() != reflect.Interface && t.Kind() != reflect.Pointer && t.Implements(immutableType) {
		return &plan{kind: planFlat, typ: t, flat: true}
	}
	asJSON := &plan{kind: planJSON, typ: t, check: true}
	if ownJSON(t) || building[t] {
		return asJSON
	}
	building[t] = true
	defer delete(building, t)
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr, reflect.String:
		return &plan{kind: planFlat, typ: t, flat: true}
	case reflect.Float32, reflect.Float64:
		return &plan{kind: planFloat, typ: t, flat: true, check: true}
	case reflect.Slice, reflect.Array:
		e := buildPlan(t.Elem(), building)
		k := planSlice
		if t.Kind() == reflect.Array {
			k = planArray
		}
		return &plan{kind: k, typ: t, elem: e, flat: k == planArray && e.flat, check: e.check}
	case reflect.Map:
		switch t.Key().Kind() {
		case reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		default:
			return asJSON
		}
		if ownJSON(t.Key()) {
			return asJSON
		}
		e := buildPlan(t.Elem(), building)
		return &plan{kind: planMap, typ: t, elem: e, check: e.check}
	case reflect.Struct:
		p := &plan{kind: planStruct, typ: t, flat: true}
		names := map[string]bool{}
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() || f.Anonymous {
				return asJSON
			}
			tag := f.Tag.Get("json")
			if tag == "-" {
				return asJSON
			}
			name, opts, _ := strings.Cut(tag, ",")
			if name == "" {
				name = f.Name
			}
			if names[strings.ToLower(name)] || strings.Contains(opts, "omitzero") {
				return asJSON
			}
			names[strings.ToLower(name)] = true
			fp := buildPlan(f.Type, building)
			k := f.Type.Kind()
			p.flds = append(p.flds, fieldPlan{index: i, p: fp,
				omitEmpty: strings.Contains(","+opts+",", ",omitempty,") && (k == reflect.Slice || k == reflect.Map)})
			p.flat = p.flat && fp.flat
			p.check = p.check || fp.check
		}
		return p
	}
	return asJSON // pointers, interfaces, channels, functions, complex numbers
}

// copyTo sets dst (settable, zero) to a copy of src that shares nothing
// mutable with it.
func (p *plan) copyTo(dst, src reflect.Value) error {
	if p.flat {
		dst.Set(src)
		return nil
	}
	switch p.kind {
	case planStruct:
		for _, f := range p.flds {
			fv := src.Field(f.index)
			if f.omitEmpty && fv.Len() == 0 {
				continue
			}
			if err := f.p.copyTo(dst.Field(f.index), fv); err != nil {
				return err
			}
		}
	case planSlice:
		if src.IsNil() {
			return nil
		}
		// Room for the next appends, so that a list growing by one per
		// Update is not copied twice.
		n := src.Len()
		s := reflect.MakeSlice(p.typ, n, n+n/8+1)
		if p.elem.flat {
			reflect.Copy(s, src)
		} else {
			for i := range n {
				if err := p.elem.copyTo(s.Index(i), src.Index(i)); err != nil {
					return err
				}
			}
		}
		dst.Set(s)
	case planArray:
		for i := range src.Len() {
			if err := p.elem.copyTo(dst.Index(i), src.Index(i)); err != nil {
				return err
			}
		}
	case planMap:
		if src.IsNil() {
			return nil
		}
		m := reflect.MakeMapWithSize(p.typ, src.Len())
		e := reflect.New(p.typ.Elem()).Elem()
		zero := reflect.Zero(p.typ.Elem())
		for it := src.MapRange(); it.Next(); {
			e.Set(zero)
			if err := p.elem.copyTo(e, it.Value()); err != nil {
				return err
			}
			m.SetMapIndex(it.Key(), e)
		}
		dst.Set(m)
	case planJSON:
		b, err := json.Marshal(src.Interface())
		if err != nil {
			return err
		}
		return json.Unmarshal(b, dst.Addr().Interface())
	}
	return nil
}

// valid reports what encoding/json would say of v: nil if it encodes.
func (p *plan) valid(v reflect.Value) error {
	if !p.check {
		return nil
	}
	switch p.kind {
	case planFloat:
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			return &json.UnsupportedValueError{Value: v, Str: fmtFloat(f)}
		}
	case planStruct:
		for _, f := range p.flds {
			if err := f.p.valid(v.Field(f.index)); err != nil {
				return err
			}
		}
	case planSlice, planArray:
		for i := range v.Len() {
			if err := p.elem.valid(v.Index(i)); err != nil {
				return err
			}
		}
	case planMap:
		for it := v.MapRange(); it.Next(); {
			if err := p.elem.valid(it.Value()); err != nil {
				return err
			}
		}
	case planJSON:
		_, err := json.Marshal(v.Interface())
		return err
	}
	return nil
}

func fmtFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case f > 0:
		return "+Inf"
	}
	return "-Inf"
}
