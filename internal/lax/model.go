package lax

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"sync"

	"github.com/gymkit/gymkit/internal/model"
	"github.com/gymkit/gymkit/internal/pyjson"
)

func init() {
	model.RegisterMarkers(nil, forbidType)
	RegisterCustom(unmarshalerType, func(ptr any, v pyjson.Value, m Mode) []ErrorItem {
		return ptr.(Unmarshaler).UnmarshalPy(v, m)
	})
}

// CustomFunc validates v into the value ptr points to (a pointer to a type
// whose pointer implements the registered interface) and returns the error
// items, with locs relative to the value (the decoder prefixes the field's).
type CustomFunc func(ptr any, v pyjson.Value, m Mode) []ErrorItem

type customEntry struct {
	iface reflect.Type
	call  CustomFunc
}

var (
	customMu sync.RWMutex
	customs  []customEntry
)

// RegisterCustom is the extension point for self-validating field types:
// a type whose pointer implements the interface iface is decoded by call
// (in both Decode and DecodeJSON, which hands it the field's JSON value as
// a Value), is a field and never a promoted struct in the shared model
// (model.RegisterCustom), and gets its schema from swaggest's view of it
// (a JSONSchemaBytes method, say). Unmarshaler is registered this way, and
// so is the framework's public framework.CustomField. Call it from
// an init function: plans compiled before the call do not see it. The first
// registered interface a type implements wins.
func RegisterCustom(iface reflect.Type, call CustomFunc) {
	model.RegisterCustom(iface)
	customMu.Lock()
	defer customMu.Unlock()
	customs = append(customs, customEntry{iface: iface, call: call})
}

// customOf returns the adapter of t's custom interface, or nil.
func customOf(t reflect.Type) CustomFunc {
	if t.Kind() == reflect.Interface || t.Kind() == reflect.Pointer {
		return nil
	}
	customMu.RLock()
	defer customMu.RUnlock()
	for _, c := range customs {
		if reflect.PointerTo(t).Implements(c.iface) {
			return c.call
		}
	}
	return nil
}

// fieldOf is one field of a struct as the decoder reads it: the shared model
// (package model) plus the default tag parsed.
type fieldOf struct {
	model.Field
	def pyjson.Value
}

// resolveModel returns the shared model of struct type t with lax's rules
// checked (its Err, prefixed with path) and the default tags parsed.
func resolveModel(t reflect.Type, path string) (*model.Struct, []fieldOf, error) {
	m := model.Of(t)
	if m.Err != nil {
		if re, ok := m.Err.(*model.RuleError); ok && re.Field != "" {
			return nil, nil, fmt.Errorf("lax: %s.%s: %s", path, re.Field, re.Msg)
		}
		return nil, nil, fmt.Errorf("lax: %s: %v", path, m.Err)
	}
	fields := make([]fieldOf, len(m.Fields))
	for i, f := range m.Fields {
		fields[i].Field = f
		if f.HasDefault {
			dv, err := parseDefaultTag(f.Default, f.Type)
			if err != nil {
				return nil, nil, fmt.Errorf("lax: %s.%s: invalid default tag %q: %v", path, f.Name, f.Default, err)
			}
			fields[i].def = dv
		}
	}
	return m, fields, nil
}

// parseDefaultTag reads a default tag as swaggest's checkInlineValue does:
// the raw text for string kinds, a Go-syntax number for numeric kinds, a
// strconv.ParseBool bool for bools, JSON for anything else.
func parseDefaultTag(tag string, t reflect.Type) (pyjson.Value, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if special(t) == specialNone {
		switch t.Kind() {
		case reflect.String:
			return pyjson.StringValue(tag), nil
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			n, err := strconv.ParseInt(tag, 10, 64)
			if err != nil {
				return pyjson.Value{}, err
			}
			return pyjson.NumberValue(strconv.FormatInt(n, 10)), nil
		case reflect.Float32, reflect.Float64:
			f, err := strconv.ParseFloat(tag, 64)
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				return pyjson.Value{}, fmt.Errorf("not a finite number")
			}
			return pyjson.NumberValue(strconv.FormatFloat(f, 'g', -1, 64)), nil
		case reflect.Bool:
			b, err := strconv.ParseBool(tag)
			if err != nil {
				return pyjson.Value{}, err
			}
			return pyjson.BoolValue(b), nil
		}
	}
	return pyjson.Parse([]byte(tag))
}
