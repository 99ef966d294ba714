// Package configtest builds config.Instance values for tests that make an
// instance without YAML.
package configtest

import (
	"reflect"

	"github.com/gymkit/gymkit/config"
)

// Over returns config.Defaults() with the non-zero fields of over laid
// over it: a nested struct (the mcp, metrics and session blocks) field by
// field, every other field (a pointer, a slice, a map, a scalar) whole. It
// is a test's shorthand for "the defaults, but": a field cannot be set to
// its zero value this way (close_session: false), set it on the result.
//
//	cfg := configtest.Over(config.Instance{Name: "w", ServerType: "w", MaxBodyBytes: 4096})
func Over(over config.Instance) config.Instance {
	out := config.Defaults()
	overlay(reflect.ValueOf(&out).Elem(), reflect.ValueOf(over))
	return out
}

func overlay(dst, src reflect.Value) {
	for i := range src.NumField() {
		if !dst.Field(i).CanSet() {
			continue
		}
		f := src.Field(i)
		switch {
		case f.IsZero():
		case f.Kind() == reflect.Struct:
			overlay(dst.Field(i), f)
		default:
			dst.Field(i).Set(f)
		}
	}
}

// Named returns inst with its Name and ServerType set.
func Named(inst config.Instance, name, serverType string) config.Instance {
	inst.Name, inst.ServerType = name, serverType
	return inst
}
