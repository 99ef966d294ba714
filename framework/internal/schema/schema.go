// Package schema builds the JSON Schema of a Go request or response type, as
// the MCP door's inputSchema / outputSchema and the docs show it. It uses
// github.com/swaggest/jsonschema-go (the only gymkit package that does) and
// reshapes its output to look like pydantic's model_json_schema():
//
//   - self-contained: nested structs are inlined, no "$ref" and no
//     "$defs"/"definitions"; recursive types are refused;
//   - "type" is never an array: a slice or map is just its own schema; a
//     pointer field (nil is written as null) is pydantic's Optional,
//     {"anyOf":[<its schema>,{"type":"null"}]} with the field's title and
//     default outside, so that results validate against an outputSchema;
//   - a struct is {"properties":…,"required":[…],"title":"<TypeName>",
//     "type":"object"}; properties keep the field declaration order (fields
//     and required-ness from the shared model of package model, which lax and
//     the encoder read too: `json` names, `required:"true"`); every other schema object has its keys sorted;
//   - a field gets pydantic's default title (its JSON name through Python's
//     str.title() with "_" as " ": "city_name" → "City Name") unless it is a
//     struct, which carries its own type-name title, or swaggest already set
//     one (a `title` tag);
//   - tags swaggest reads are honoured (`description`, `enum`, `format`,
//     `minimum`, `pattern`, `default`, `example`, ...); only `enum` (on
//     string fields) and `required` are also enforced by the decoder;
//   - a struct embedding lax.Forbid gets "additionalProperties": false, one
//     embedding pyjson.Extra gets "additionalProperties": true (pydantic's
//     extra="forbid" / "allow"); dict[str, Any]-like maps get
//     "additionalProperties": true; Any fields (any, json.RawMessage,
//     pyjson.Value) are {} plus a title;
//   - integer fields narrower than 64 bits carry the "minimum"/"maximum" the
//     decoder enforces; unsigned ones carry "minimum": 0.
//
// A dict body (json.RawMessage, pyjson.Value, pyjson.Dict, any, or a map of
// string to one of those, possibly behind pointers) at the top level gets
// NeMo Gym's permissive {"type":"object","additionalProperties":true}.
package schema

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/swaggest/jsonschema-go"

	"github.com/gymkit/gymkit/internal/lax"
	"github.com/gymkit/gymkit/internal/model"
	"github.com/gymkit/gymkit/internal/pyjson"
)

// Permissive is the schema of a dict body, byte for byte as NeMo Gym
// advertises it.
var Permissive = json.RawMessage(`{"type":"object","additionalProperties":true}`)

type entry struct {
	raw json.RawMessage
	err error
}

var cache sync.Map // reflect.Type → entry

// For returns the JSON Schema of t (see the package documentation), compact
// and with raw UTF-8, computed once per type and cached (the error too).
// Callers must not modify the returned bytes.
//
// It fails for types package lax cannot decode (lax.Compile's error), for
// recursive types (naming the type: an inlined schema would be infinite) and
// when swaggest fails. For object types (IsObject) the root has "type":
// "object", as MCP's inputSchema and outputSchema require; other types get
// their plain schema (an array's, a string's, ...).
func For(t reflect.Type) (json.RawMessage, error) {
	if t == nil {
		return nil, errors.New("schema: nil type")
	}
	if e, ok := cache.Load(t); ok {
		en := e.(entry)
		return en.raw, en.err
	}
	raw, err := build(t)
	e, _ := cache.LoadOrStore(t, entry{raw: raw, err: err})
	en := e.(entry)
	return en.raw, en.err
}

// ForOutput is [For] for a result type (an MCP outputSchema): the same
// schema without "enum" constraints, because a result's zero value (an unset
// enum field is "") is written as is and clients validate results against
// the schema they were given. The result is cached like For's.
func ForOutput(t reflect.Type) (json.RawMessage, error) {
	if c, ok := outCache.Load(t); ok {
		return c.(json.RawMessage), nil
	}
	s, err := For(t)
	if err != nil {
		return nil, err
	}
	v, err := pyjson.Parse(s)
	if err != nil {
		return nil, err
	}
	b, err := pyjson.Marshal(dropEnums(v), pyjson.Pydantic)
	if err != nil {
		return nil, err
	}
	out := json.RawMessage(b)
	outCache.Store(t, out)
	return out, nil
}

var outCache sync.Map // reflect.Type -> json.RawMessage

// dropEnums removes the "enum" keyword from schema v and its subschemas
// (property names are data, not keywords: a property called "enum" stays).
func dropEnums(v pyjson.Value) pyjson.Value {
	switch v.Kind {
	case pyjson.Array:
		items := make([]pyjson.Value, len(v.Items))
		for i, it := range v.Items {
			items[i] = dropEnums(it)
		}
		return pyjson.ArrayValue(items...)
	case pyjson.Object:
		var ms []pyjson.Member
		for _, m := range v.Members {
			switch m.Key {
			case "enum":
				continue
			case "properties":
				props := make([]pyjson.Member, len(m.Value.Members))
				for i, p := range m.Value.Members {
					props[i] = pyjson.Member{Key: p.Key, Value: dropEnums(p.Value)}
				}
				m.Value = pyjson.ObjectValue(props...)
			case "default", "examples", "example", "const":
			default:
				m.Value = dropEnums(m.Value)
			}
			ms = append(ms, m)
		}
		return pyjson.ObjectValue(ms...)
	}
	return v
}

// IsObject reports whether values of t are written as JSON objects: structs
// and maps with string keys, and pointers to them. Structs that write
// themselves (json.Marshaler or encoding.TextMarshaler, such as time.Time),
// pyjson.Value and json.RawMessage are not known to be objects; a
// pyjson.Dict is. It decides whether an MCP tool has an outputSchema.
func IsObject(t reflect.Type) bool {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return false
	}
	switch t {
	case objectType:
		return true
	case valueType, rawMessageType:
		return false
	}
	switch t.Kind() {
	case reflect.Map:
		return t.Key().Kind() == reflect.String
	case reflect.Struct:
		return !t.Implements(marshalerType) && !reflect.PointerTo(t).Implements(marshalerType) &&
			!t.Implements(textMarshalerType) && !reflect.PointerTo(t).Implements(textMarshalerType)
	}
	return false
}

var (
	rawMessageType    = reflect.TypeFor[json.RawMessage]()
	valueType         = reflect.TypeFor[pyjson.Value]()
	objectType        = reflect.TypeFor[pyjson.Dict]()
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	pyjsonPkg         = valueType.PkgPath()
)

// isAny reports whether t decodes as pydantic's Any.
func isAny(t reflect.Type) bool {
	return t == rawMessageType || t == valueType || (t.Kind() == reflect.Interface && t.NumMethod() == 0)
}

// isDictBody reports whether t, at the top level, is a dict body.
func isDictBody(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if isAny(t) || t == objectType {
		return true
	}
	return t.Kind() == reflect.Map && t.Key().Kind() == reflect.String && isAny(deref(t.Elem()))
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

func build(t reflect.Type) (json.RawMessage, error) {
	if _, err := lax.Compile(t); err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	if isDictBody(t) {
		return Permissive, nil
	}
	if err := checkRecursion(t, nil, lax.TypeName(t)); err != nil {
		return nil, err
	}
	r := jsonschema.Reflector{}
	sw, err := r.Reflect(reflect.New(t).Elem().Interface(),
		jsonschema.InlineRefs,
		jsonschema.ProcessWithoutTags,
		jsonschema.InterceptSchema(interceptPyjson),
	)
	if err != nil {
		return nil, fmt.Errorf("schema: %s: %w", lax.TypeName(t), err)
	}
	b, err := json.Marshal(sw)
	if err != nil {
		return nil, fmt.Errorf("schema: %s: %w", lax.TypeName(t), err)
	}
	swv, err := pyjson.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("schema: %s: %w", lax.TypeName(t), err)
	}
	out, err := reshape(t, swv, "", lax.TypeName(t))
	if err != nil {
		return nil, err
	}
	raw, err := pyjson.AppendValue(nil, &out, pyjson.Pydantic)
	if err != nil {
		return nil, fmt.Errorf("schema: %s: %w", lax.TypeName(t), err)
	}
	return raw, nil
}

// interceptPyjson keeps swaggest out of pyjson's types (Value is recursive):
// Value and the rest are Any ({}), Object is an open object.
func interceptPyjson(p jsonschema.InterceptSchemaParams) (bool, error) {
	if p.Processed || !p.Value.IsValid() {
		return false, nil
	}
	t := deref(p.Value.Type())
	if t.PkgPath() != pyjsonPkg {
		return false, nil
	}
	*p.Schema = jsonschema.Schema{}
	if t == objectType {
		p.Schema.AddType(jsonschema.Object)
		p.Schema.WithAdditionalProperties(jsonschema.SchemaOrBool{TypeBoolean: ptr(true)})
	}
	return true, nil
}

func ptr[T any](v T) *T { return &v }

// checkRecursion refuses a type that contains itself (through fields,
// elements or pointers), which an inlined schema cannot express.
func checkRecursion(t reflect.Type, stack []reflect.Type, path string) error {
	t = deref(t)
	if t.PkgPath() == pyjsonPkg || isAny(t) {
		return nil
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
		return checkRecursion(t.Elem(), stack, path)
	case reflect.Struct:
	default:
		return nil
	}
	if slices.Contains(stack, t) {
		return fmt.Errorf("schema: recursive type %s (at %s) cannot be inlined in a self-contained schema", lax.TypeName(t), path)
	}
	stack = append(stack, t)
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.IsExported() && !sf.Anonymous {
			continue
		}
		if err := checkRecursion(sf.Type, stack, path+"."+sf.Name); err != nil {
			return err
		}
	}
	return nil
}

// reshape rebuilds swaggest's schema sw of type t in pydantic's form. title
// is the field title to set ("" for none); path names the position for
// errors.
func reshape(t reflect.Type, sw pyjson.Value, title, path string) (pyjson.Value, error) {
	t = deref(t)
	if sw.Kind != pyjson.Object {
		// Only for "true"/"false" schemas, which swaggest does not produce here.
		return sw, nil
	}
	var members []pyjson.Member
	var err error
	switch {
	case isAny(t):
		members, err = plain(sw, path)
	case t == objectType:
		members = []pyjson.Member{
			{Key: "additionalProperties", Value: pyjson.BoolValue(true)},
			{Key: "type", Value: pyjson.StringValue("object")},
		}
		members = mergeOthers(members, sw, "additionalProperties", "type")
	case model.IsCustom(t):
		// It validates itself: swaggest's view, normalised.
		var g pyjson.Value
		if g, err = generic(sw, path); err == nil {
			members = g.Members
		}
	case t.Kind() == reflect.Struct:
		members, err = modelSchema(t, sw, path)
		title = "" // a model keeps its own title
	case t.Kind() == reflect.Slice:
		members, err = plain(sw, path, "items")
		if err == nil {
			items, _ := sw.Get("items")
			var iv pyjson.Value
			if iv, err = reshape(t.Elem(), items, "", path+"[]"); err == nil {
				members = setMember(members, "items", iv)
			}
		}
	case t.Kind() == reflect.Map:
		members, err = plain(sw, path, "additionalProperties")
		if err == nil {
			av := pyjson.BoolValue(true)
			if !isAny(deref(t.Elem())) {
				ap, _ := sw.Get("additionalProperties")
				av, err = reshape(t.Elem(), ap, "", path+"{}")
			}
			members = setMember(members, "additionalProperties", av)
		}
	default:
		members, err = plain(sw, path)
		if err == nil {
			members = intBounds(t, members)
		}
	}
	if err != nil {
		return pyjson.Value{}, err
	}
	if title != "" {
		if _, ok := get(members, "title"); !ok {
			members = setMember(members, "title", pyjson.StringValue(title))
		}
	}
	sortMembers(members)
	return pyjson.ObjectValue(members...), nil
}

// modelSchema builds a struct's schema from lax's view of its fields.
func modelSchema(t reflect.Type, sw pyjson.Value, path string) ([]pyjson.Member, error) {
	if _, err := lax.Compile(t); err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	m := model.Of(t)
	members, err := plain(sw, path, "properties", "required", "additionalProperties", "allOf")
	if err != nil {
		return nil, err
	}
	swProps, _ := sw.Get("properties")
	props := make([]pyjson.Member, 0, len(m.Fields))
	var required []pyjson.Value
	for _, f := range m.Fields {
		ps, ok := swProps.Get(f.Name)
		if !ok {
			// swaggest keeps a json tag name that encoding/json (and lax)
			// reject as invalid, where they use the Go field name.
			swName, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if swName == "" {
				swName = f.GoName
			}
			if ps, ok = swProps.Get(swName); !ok {
				return nil, fmt.Errorf("schema: %s.%s: swaggest produced no property for field %s", path, f.Name, f.GoName)
			}
			// Two fields with the same invalid name are one property to
			// swaggest: which one is not known (FuzzSchema's
			// testdata/fuzz/FuzzSchema/059308613a4e0a0e), so refuse.
			for _, g := range m.Fields {
				if gName, _, _ := strings.Cut(g.Tag.Get("json"), ","); g.GoName != f.GoName && gName == swName {
					return nil, fmt.Errorf("schema: %s: fields %s and %s have the same json tag name %q, which encoding/json ignores "+
						"(it uses their Go names): give them valid names (letters, digits, spaces and !#$%%&()*+-./:;<=>?@[]^_{|}~)",
						path, f.GoName, g.GoName, swName)
				}
			}
		}
		ft := ""
		if ftd := deref(f.Type); ftd.Kind() != reflect.Struct || isAny(ftd) || ftd == objectType ||
			model.IsCustom(ftd) {
			ft = fieldTitle(f.Name)
		}
		pv, err := reshape(f.Type, ps, ft, path+"."+f.Name)
		if err != nil {
			return nil, err
		}
		if f.Type.Kind() == reflect.Pointer && !isAny(deref(f.Type)) {
			pv = nullable(pv, ft != "")
		}
		props = append(props, pyjson.Member{Key: f.Name, Value: pv})
		if f.Required {
			required = append(required, pyjson.StringValue(f.Name))
		}
	}
	members = setMember(members, "properties", pyjson.ObjectValue(props...))
	if required != nil {
		members = setMember(members, "required", pyjson.ArrayValue(required...))
	}
	switch m.Extra {
	case model.ExtraForbid:
		members = setMember(members, "additionalProperties", pyjson.BoolValue(false))
	case model.ExtraAllow:
		members = setMember(members, "additionalProperties", pyjson.BoolValue(true))
	}
	if _, ok := get(members, "title"); !ok {
		members = setMember(members, "title", pyjson.StringValue(m.Name))
	}
	members = setMember(members, "type", pyjson.StringValue("object"))
	return members, nil
}

// nullable is pydantic's schema of Optional[X]: {"anyOf":[X,{"type":"null"}]}
// with the field's title and default moved to the outer schema (a model keeps
// its own title inside: moveTitle is false for it). A *T field is written as
// null when nil, so its schema (an MCP outputSchema, which clients validate
// results against) must allow it; anyOf keeps "type" a single string.
func nullable(x pyjson.Value, moveTitle bool) pyjson.Value {
	var outer, inner []pyjson.Member
	for _, m := range x.Members {
		if m.Key == "default" || (moveTitle && m.Key == "title") {
			outer = append(outer, m)
			continue
		}
		inner = append(inner, m)
	}
	outer = append(outer, pyjson.Member{Key: "anyOf", Value: pyjson.ArrayValue(
		pyjson.ObjectValue(inner...),
		pyjson.ObjectValue(pyjson.Member{Key: "type", Value: pyjson.StringValue("null")}),
	)})
	sortMembers(outer)
	return pyjson.ObjectValue(outer...)
}

// plain copies sw's members except the skipped keys, with "null" dropped
// from "type" and nested data left alone; it fails on references and on a
// "type" that stays an array.
func plain(sw pyjson.Value, path string, skip ...string) ([]pyjson.Member, error) {
	out := make([]pyjson.Member, 0, len(sw.Members)+1)
	for _, mem := range sw.Members {
		if slices.Contains(skip, mem.Key) {
			continue
		}
		switch mem.Key {
		case "$ref", "definitions", "$defs":
			return nil, fmt.Errorf("schema: %s: unexpected %q in swaggest's output", path, mem.Key)
		case "type":
			tv, err := singleType(mem.Value, path)
			if err != nil {
				return nil, err
			}
			if tv.Kind == pyjson.Null {
				continue
			}
			mem.Value = tv
		}
		out = append(out, mem)
	}
	return out, nil
}

// singleType drops "null" from a type list; a null result means no type.
func singleType(v pyjson.Value, path string) (pyjson.Value, error) {
	if v.Kind == pyjson.String {
		if v.Str == "null" {
			return pyjson.Value{}, nil
		}
		return v, nil
	}
	var keep []pyjson.Value
	for _, x := range v.Items {
		if x.Kind == pyjson.String && x.Str == "null" {
			continue
		}
		keep = append(keep, x)
	}
	switch len(keep) {
	case 0:
		return pyjson.Value{}, nil
	case 1:
		return keep[0], nil
	}
	return pyjson.Value{}, fmt.Errorf("schema: %s: several types %v cannot be expressed without an array-valued \"type\"", path, keep)
}

// intBounds adds the range the decoder enforces for integers narrower than
// 64 bits ("minimum": 0 for unsigned ones comes from swaggest).
func intBounds(t reflect.Type, members []pyjson.Member) []pyjson.Member {
	bits := 0
	signed := false
	switch t.Kind() {
	case reflect.Int8, reflect.Int16, reflect.Int32:
		bits, signed = t.Bits(), true
	case reflect.Int:
		if t.Bits() < 64 {
			bits, signed = t.Bits(), true
		}
	case reflect.Uint8, reflect.Uint16, reflect.Uint32:
		bits = t.Bits()
	case reflect.Uint:
		if t.Bits() < 64 {
			bits = t.Bits()
		}
	}
	if bits == 0 {
		return members
	}
	lo, hi := "0", strconv.FormatUint(1<<bits-1, 10)
	if signed {
		lo, hi = strconv.FormatInt(-1<<(bits-1), 10), strconv.FormatInt(1<<(bits-1)-1, 10)
	}
	if _, ok := get(members, "minimum"); !ok || signed {
		members = setMember(members, "minimum", pyjson.NumberValue(lo))
	}
	if _, ok := get(members, "maximum"); !ok {
		members = setMember(members, "maximum", pyjson.NumberValue(hi))
	}
	return members
}

func mergeOthers(members []pyjson.Member, sw pyjson.Value, skip ...string) []pyjson.Member {
	for _, mem := range sw.Members {
		if !slices.Contains(skip, mem.Key) {
			members = append(members, mem)
		}
	}
	return members
}

func get(members []pyjson.Member, key string) (pyjson.Value, bool) {
	for _, m := range members {
		if m.Key == key {
			return m.Value, true
		}
	}
	return pyjson.Value{}, false
}

func setMember(members []pyjson.Member, key string, v pyjson.Value) []pyjson.Member {
	for i := range members {
		if members[i].Key == key {
			members[i].Value = v
			return members
		}
	}
	return append(members, pyjson.Member{Key: key, Value: v})
}

// sortMembers sorts a schema object's keys, as pydantic's
// GenerateJsonSchema.sort does (the order inside "properties" is kept by the
// callers building it; data under "default", "enum", "examples", "const"
// is not reordered).
func sortMembers(members []pyjson.Member) {
	slices.SortStableFunc(members, func(a, b pyjson.Member) int { return strings.Compare(a.Key, b.Key) })
	for i := range members {
		switch members[i].Key {
		case "properties", "default", "enum", "examples", "example", "const", "items", "additionalProperties":
			// properties: built in field order; the rest: data, or schemas
			// already sorted by reshape.
		default:
			members[i].Value = sortDeep(members[i].Value)
		}
	}
}

// sortDeep sorts object keys at every level of a nested schema value that
// reshape did not rebuild (description objects, x- extensions, ...).
func sortDeep(v pyjson.Value) pyjson.Value {
	switch v.Kind {
	case pyjson.Object:
		ms := slices.Clone(v.Members)
		slices.SortStableFunc(ms, func(a, b pyjson.Member) int { return strings.Compare(a.Key, b.Key) })
		for i := range ms {
			ms[i].Value = sortDeep(ms[i].Value)
		}
		return pyjson.ObjectValue(ms...)
	case pyjson.Array:
		items := slices.Clone(v.Items)
		for i := range items {
			items[i] = sortDeep(items[i])
		}
		return pyjson.ArrayValue(items...)
	}
	return v
}

// generic normalises a schema swaggest produced for a type gymkit does not
// walk itself (a lax.Unmarshaler): "null" dropped from every "type", keys
// sorted except inside "properties".
func generic(sw pyjson.Value, path string) (pyjson.Value, error) {
	if sw.Kind != pyjson.Object {
		return sw, nil
	}
	members, err := plain(sw, path)
	if err != nil {
		return pyjson.Value{}, err
	}
	for i := range members {
		mv := members[i].Value
		switch members[i].Key {
		case "properties", "patternProperties":
			props := slices.Clone(mv.Members)
			for j := range props {
				if props[j].Value, err = generic(props[j].Value, path+"."+props[j].Key); err != nil {
					return pyjson.Value{}, err
				}
			}
			members[i].Value = pyjson.ObjectValue(props...)
		case "items", "additionalProperties", "not":
			if members[i].Value, err = generic(mv, path); err != nil {
				return pyjson.Value{}, err
			}
		case "allOf", "anyOf", "oneOf":
			items := slices.Clone(mv.Items)
			for j := range items {
				if items[j], err = generic(items[j], path); err != nil {
					return pyjson.Value{}, err
				}
			}
			members[i].Value = pyjson.ArrayValue(items...)
		}
	}
	slices.SortStableFunc(members, func(a, b pyjson.Member) int { return strings.Compare(a.Key, b.Key) })
	return pyjson.ObjectValue(members...), nil
}

// fieldTitle is pydantic's GenerateJsonSchema.get_title_from_name:
// name.title().replace("_", " ").strip().
func fieldTitle(name string) string {
	return strings.TrimFunc(strings.ReplaceAll(pyTitle(name), "_", " "), unicode.IsSpace)
}

// pyTitle is Python's str.title(): a cased character is title-cased after an
// uncased one and lower-cased after a cased one.
func pyTitle(s string) string {
	var b strings.Builder
	prevCased := false
	for _, r := range s {
		if prevCased {
			b.WriteRune(unicode.ToLower(r))
		} else {
			b.WriteRune(unicode.ToTitle(r))
		}
		prevCased = isCased(r)
	}
	return b.String()
}

func isCased(r rune) bool {
	return unicode.IsUpper(r) || unicode.IsLower(r) || unicode.IsTitle(r) ||
		unicode.Is(unicode.Other_Lowercase, r) || unicode.Is(unicode.Other_Uppercase, r)
}
