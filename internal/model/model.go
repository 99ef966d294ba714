// Package model compiles, once per Go type, the facts about a struct that the
// three readers of gymkit's request and response types share: the lax
// decoder (package lax), the Python-style encoder (package pyjson) and the
// schema generator (package schema). A struct's JSON fields, their names, the
// embedding and dominance rules of encoding/json, and the tags gymkit reads
// (`required`, `default`, `enum`, `description`, the json options) are
// resolved here and nowhere else, so that the three cannot drift.
//
//	s := model.Of(reflect.TypeFor[GetWeatherRequest]())
//	if s.Err != nil { ... }                  // a tag lax refuses
//	for _, f := range s.Fields {
//		fmt.Println(f.Name, f.Required)      // "city" true
//	}
//
// # Rules
//
// Fields follow encoding/json's typeFields: exported fields (and embedded
// structs, exported or not), `json:"name"` renames (an invalid tag name is
// ignored, as encoding/json ignores it), `json:"-"` skips; an untagged
// embedded struct (or unnamed pointer to one) has its fields promoted unless
// it is opaque (see Opaque); among fields of one name the shallowest wins, a
// tagged one among equally shallow ones, otherwise the name is dropped. A
// struct type reached twice at one depth contributes nothing ambiguous.
//
// The markers: a struct embedding the Extra marker (pyjson.Extra, registered
// by that package) collects unknown keys (pydantic extra="allow"); one
// embedding the Forbid marker (lax.Forbid) refuses them (extra="forbid").
//
// # Extension point
//
// A type that decodes itself and describes its own schema implements one of
// the interfaces registered with RegisterCustom (lax.Unmarshaler today; the
// public custom field type interface of package framework next, registered
// with lax.RegisterCustom, which calls RegisterCustom and adds the decoding
// adapter). Such a
// type is Custom: the model never walks into it, lax hands it the JSON value,
// the schema generator asks it (or swaggest) for its schema, and an embedded
// Custom struct is a field, not promoted fields. Every reader learns about a
// custom type from Info.Custom, so a new interface plugs in by one
// RegisterCustom call.
//
// Of and InfoOf are safe for concurrent use; their results are cached for the
// life of the process and must not be modified.
package model

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
)

// ExtraMode is how a struct treats object keys that match no field. The zero
// ExtraMode is ExtraIgnore.
type ExtraMode uint8

const (
	// ExtraIgnore drops unknown keys (pydantic's default extra="ignore").
	ExtraIgnore ExtraMode = iota
	// ExtraAllow keeps them in the embedded Extra marker (extra="allow").
	ExtraAllow
	// ExtraForbid refuses them (extra="forbid"), chosen by embedding the
	// Forbid marker.
	ExtraForbid
)

// Field is one JSON field of a struct.
type Field struct {
	// Name is the JSON key: the json tag name, else the Go field name.
	Name string
	// GoName is the Go field name.
	GoName string
	// Index is the field's index sequence (reflect.Value.FieldByIndex); it
	// may cross embedded pointers (ViaPointer).
	Index []int
	// ViaPointer reports that Index crosses an embedded pointer, which may
	// be nil: readers must allocate (decoder) or skip (encoder) it.
	ViaPointer bool
	// Type is the field's Go type.
	Type reflect.Type
	// Tag is the full struct tag, for tags only swaggest reads (format,
	// minimum, pattern, example, title, ...).
	Tag reflect.StructTag
	// Tagged reports a valid json tag name.
	Tagged bool
	// OmitEmpty and OmitZero are the json tag options of those names
	// (honoured by the encoder; the decoder and schema ignore them, as
	// pydantic has no such notion).
	OmitEmpty, OmitZero bool
	// StringOpt is the json ",string" option, which lax refuses (Err).
	StringOpt bool
	// Optional reports a pointer field: pydantic's Optional[T] (null is
	// accepted and gives nil; the schema is anyOf [T, null]).
	Optional bool
	// Required is the tag required:"true" (swaggest's convention).
	Required bool
	// Enum holds the strings of an enum tag (a Literal[...]), else nil.
	Enum []string
	// Default is the raw text of a `default` tag; HasDefault reports one.
	// lax reads it as swaggest does (see lax's package documentation).
	Default    string
	HasDefault bool
	// Description is the `description` tag ("" without one).
	Description string
}

// Struct is the compiled model of one struct type.
type Struct struct {
	// Type is the struct type.
	Type reflect.Type
	// Name is the pydantic class name of the type (TypeName).
	Name string
	// Fields are the JSON fields in declaration order, embedded fields at
	// the embedding position.
	Fields []Field
	// Extra is the unknown-key policy; ExtraIndex is the index sequence of
	// the embedded Extra marker when Extra is ExtraAllow (the shallowest if
	// there are several, as the encoder writes it), else nil.
	Extra      ExtraMode
	ExtraIndex []int
	// ExtraViaPointer reports that ExtraIndex crosses an embedded pointer.
	ExtraViaPointer bool
	// Err, when not nil, is the first rule of lax that the struct breaks
	// (a bad required/enum/default tag, the ",string" option, several
	// markers, an embedded pointer to an unexported struct), naming the
	// field; the encoder does not need these rules and ignores it.
	Err error

	byName map[string]int
}

// RuleError is a rule of lax that a struct breaks: Field names the field
// (its JSON name, or its Go name for a json option), "" for the struct
// itself.
type RuleError struct {
	Field string
	Msg   string
}

// Error returns "<Field>: <Msg>", or Msg for the struct itself.
func (e *RuleError) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return e.Field + ": " + e.Msg
}

// Lookup returns the position in Fields of the field with JSON name key, or
// -1.
func (s *Struct) Lookup(key string) int {
	if i, ok := s.byName[key]; ok {
		return i
	}
	return -1
}

var (
	regMu   sync.RWMutex
	extraT  reflect.Type
	forbidT reflect.Type
	opaque  = map[reflect.Type]bool{}
	customs []reflect.Type
)

// RegisterMarkers declares the Extra marker (pyjson.Extra) or the Forbid
// marker (lax.Forbid); a nil argument leaves that marker as it is. Packages
// call it from init, before any Of.
func RegisterMarkers(extra, forbid reflect.Type) {
	regMu.Lock()
	defer regMu.Unlock()
	if extra != nil {
		extraT = extra
	}
	if forbid != nil {
		forbidT = forbid
	}
}

// RegisterOpaque declares struct types that are values, not models (pyjson's
// Value and Dict): an embedded one is a field, never flattened. Call from
// init.
func RegisterOpaque(ts ...reflect.Type) {
	regMu.Lock()
	defer regMu.Unlock()
	for _, t := range ts {
		opaque[t] = true
	}
}

// RegisterCustom declares an interface whose implementations (through a
// pointer receiver, or a value one) decode themselves: see "Extension
// point". Call from init.
func RegisterCustom(iface reflect.Type) {
	if iface.Kind() != reflect.Interface {
		panic("model: RegisterCustom of non-interface " + iface.String())
	}
	regMu.Lock()
	defer regMu.Unlock()
	customs = append(customs, iface)
}

// IsCustom reports whether t (not a pointer to it) decodes itself: *t
// implements a registered custom interface.
func IsCustom(t reflect.Type) bool {
	if t.Kind() == reflect.Interface || t.Kind() == reflect.Pointer {
		return false
	}
	regMu.RLock()
	defer regMu.RUnlock()
	for _, c := range customs {
		if reflect.PointerTo(t).Implements(c) {
			return true
		}
	}
	return false
}

// IsOpaque reports whether t is a registered value struct or a custom type.
func IsOpaque(t reflect.Type) bool {
	regMu.RLock()
	o := opaque[t]
	regMu.RUnlock()
	return o || IsCustom(t)
}

func markers() (reflect.Type, reflect.Type) {
	regMu.RLock()
	defer regMu.RUnlock()
	return extraT, forbidT
}

var cache sync.Map // reflect.Type -> *Struct

// Of returns the cached model of struct type t (never nil; t must be a
// struct type, else Err says so). Rule violations are in Err.
func Of(t reflect.Type) *Struct {
	if s, ok := cache.Load(t); ok {
		return s.(*Struct)
	}
	s := build(t)
	got, _ := cache.LoadOrStore(t, s)
	return got.(*Struct)
}

type rawField struct {
	name   string
	tagged bool
	index  []int
	sf     reflect.StructField
}

func build(t reflect.Type) *Struct {
	s := &Struct{Type: t, Name: TypeName(t)}
	if t.Kind() != reflect.Struct {
		s.Err = fmt.Errorf("%v is not a struct", t)
		return s
	}
	extraType, forbidType := markers()
	setErr := func(field, format string, args ...any) {
		if s.Err == nil {
			s.Err = &RuleError{Field: field, Msg: fmt.Sprintf(format, args...)}
		}
	}
	type queued struct {
		typ   reflect.Type
		index []int
	}
	var (
		fields     []rawField
		current    []queued
		next       = []queued{{typ: t}}
		count      map[reflect.Type]int
		nextCount  = map[reflect.Type]int{}
		visited    = map[reflect.Type]bool{}
		extraDepth = -1
	)
	for len(next) > 0 {
		current, next = next, current[:0]
		count, nextCount = nextCount, map[reflect.Type]int{}
		for _, q := range current {
			if visited[q.typ] {
				continue
			}
			visited[q.typ] = true
			for i := 0; i < q.typ.NumField(); i++ {
				sf := q.typ.Field(i)
				index := append(slices.Clip(q.index), i)
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if sf.Anonymous {
					if ft != nil && (ft == extraType || ft == forbidType) {
						mode, idx := ExtraForbid, []int(nil)
						if ft == extraType {
							mode, idx = ExtraAllow, index
						}
						if s.Extra != ExtraIgnore && (s.Extra != mode || mode == ExtraAllow) {
							setErr("", "more than one of pyjson.Extra / lax.Forbid embedded")
						}
						switch {
						case mode == ExtraForbid && s.Extra == ExtraIgnore:
							s.Extra = ExtraForbid
						case mode == ExtraAllow && (extraDepth < 0 || len(idx) < extraDepth):
							s.Extra, s.ExtraIndex, extraDepth = ExtraAllow, idx, len(idx)
						}
						continue
					}
					if !sf.IsExported() && ft.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, _, _ := strings.Cut(tag, ",")
				if !validTagName(name) {
					name = ""
				}
				if name == "" && sf.Anonymous && ft.Kind() == reflect.Struct && !IsOpaque(ft) {
					if sf.Type.Kind() == reflect.Pointer && !sf.IsExported() {
						setErr("", "embedded pointer to unexported struct %v cannot be set", ft)
					}
					nextCount[ft]++
					if nextCount[ft] == 1 {
						next = append(next, queued{typ: ft, index: index})
					}
					continue
				}
				tagged := name != ""
				if name == "" {
					name = sf.Name
				}
				fields = append(fields, rawField{name: name, tagged: tagged, index: index, sf: sf})
				if count[q.typ] > 1 {
					// Two copies at the same depth annihilate each other.
					fields = append(fields, fields[len(fields)-1])
				}
			}
		}
	}

	// Dominance: by name, then depth, then tagged first, then index.
	slices.SortStableFunc(fields, func(a, b rawField) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		if c := len(a.index) - len(b.index); c != 0 {
			return c
		}
		if a.tagged != b.tagged {
			if a.tagged {
				return -1
			}
			return 1
		}
		return slices.Compare(a.index, b.index)
	})
	out := fields[:0]
	for i := 0; i < len(fields); {
		j := i + 1
		for j < len(fields) && fields[j].name == fields[i].name {
			j++
		}
		group := fields[i:j]
		if len(group) == 1 || len(group[0].index) != len(group[1].index) || group[0].tagged != group[1].tagged {
			out = append(out, group[0])
		}
		i = j
	}
	slices.SortFunc(out, func(a, b rawField) int { return slices.Compare(a.index, b.index) })

	s.Fields = make([]Field, 0, len(out))
	s.byName = make(map[string]int, len(out))
	for _, rf := range out {
		f := Field{
			Name: rf.name, GoName: rf.sf.Name, Index: rf.index, Type: rf.sf.Type, Tag: rf.sf.Tag,
			Tagged: rf.tagged, ViaPointer: crossesPointer(t, rf.index),
			Optional:    rf.sf.Type.Kind() == reflect.Pointer,
			Description: rf.sf.Tag.Get("description"),
		}
		_, opts, _ := strings.Cut(rf.sf.Tag.Get("json"), ",")
		for opts != "" {
			var o string
			o, opts, _ = strings.Cut(opts, ",")
			switch o {
			case "omitempty":
				f.OmitEmpty = true
			case "omitzero":
				f.OmitZero = true
			case "string":
				f.StringOpt = true
				setErr(rf.sf.Name, "the json \",string\" option is not supported")
			}
		}
		if req, ok := rf.sf.Tag.Lookup("required"); ok {
			b, err := strconv.ParseBool(req)
			if err != nil {
				setErr(rf.name, "invalid required tag %q", req)
			}
			f.Required = b
		}
		if et, ok := rf.sf.Tag.Lookup("enum"); ok && et != "" {
			vals, err := parseEnumTag(et)
			if err != nil {
				setErr(rf.name, "%v", err)
			}
			f.Enum = vals
		}
		if dt, ok := rf.sf.Tag.Lookup("default"); ok {
			if f.Required {
				setErr(rf.name, "a required field cannot have a default")
			}
			f.Default, f.HasDefault = dt, true
		}
		s.byName[f.Name] = len(s.Fields)
		s.Fields = append(s.Fields, f)
	}
	if s.ExtraIndex != nil {
		s.ExtraViaPointer = crossesPointer(t, s.ExtraIndex)
	}
	return s
}

// parseEnumTag reads an enum tag as swaggest does: a JSON array, else a
// comma-separated list (items not trimmed). Only strings are accepted.
func parseEnumTag(tag string) ([]string, error) {
	var arr []any
	if err := json.Unmarshal([]byte(tag), &arr); err == nil {
		vals := make([]string, len(arr))
		for i, x := range arr {
			s, ok := x.(string)
			if !ok {
				return nil, fmt.Errorf("enum tag value %v is not a string (only string enums are supported)", x)
			}
			vals[i] = s
		}
		if len(vals) == 0 {
			return nil, fmt.Errorf("empty enum tag")
		}
		return vals, nil
	}
	return strings.Split(tag, ","), nil
}

func crossesPointer(t reflect.Type, index []int) bool {
	for i, x := range index {
		if i > 0 && t.Kind() == reflect.Pointer {
			return true
		}
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		t = t.Field(x).Type
	}
	return false
}

// validTagName is encoding/json's isValidTag.
func validTagName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

// TypeName is the pydantic class name used for a Go type: its name with
// package paths removed from type arguments ("Page[Item]"), the element's
// name for pointers, and the Go type text for unnamed types.
func TypeName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer && t.Name() == "" {
		t = t.Elem()
	}
	n := t.Name()
	if n == "" {
		return t.String()
	}
	i := strings.IndexByte(n, '[')
	if i < 0 {
		return n
	}
	var b strings.Builder
	b.WriteString(n[:i])
	start := i
	for j := i; j < len(n); j++ {
		switch n[j] {
		case '[', ']', ',', ' ', '*':
			b.WriteString(unqualify(n[start:j]))
			b.WriteByte(n[j])
			start = j + 1
		}
	}
	b.WriteString(unqualify(n[start:]))
	return b.String()
}

func unqualify(s string) string {
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		return s[i+1:]
	}
	return s
}
