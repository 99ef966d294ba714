// Package pymodel validates and dumps JSON the way pydantic 2.13 does for
// NeMo Gym's Responses API models (NeMoGymResponseCreateParamsNonStreaming,
// NeMoGymResponse and every model they reach): a small pydantic-core for the
// shapes those models use.
//
// The models are generated (models_gen.go, by ./gen) from the
// components.schemas of the GET /openapi.json answers recorded in the peer
// goldens (../shared/data/nemo-gym-peer), in pydantic field order, with their
// required fields, defaults, Optionals (nullable), Literals, unions and extra
// policies. [Validate] is TypeAdapter(Model).validate_python in lax mode
// followed by model_dump(): it returns the dump (every field of a model in
// field order, defaults filled, nulls kept, extras of extra="allow" models
// after the fields; TypedDicts keep only the keys given, in field order) or
// pydantic's error items.
//
// Union members are tried as pydantic-core's smart mode does
// [src: pydantic-core src/validators/union.rs › validate_smart]: an exact
// match that sets no model fields returns at once; otherwise the success with
// the most model fields set wins, ties going to the more exact one, then to
// the earlier member. When every member fails, the errors of all members are
// concatenated, each under its member's tag in loc ("str",
// "NeMoGymEasyInputMessage", "list[function-before[...]]", ...; see
// [Type.Name]).
//
// Scalars follow internal/lax's lax coercions and error items.
package pymodel

import (
	"strings"

	"github.com/gymkit/gymkit/internal/pyjson"
)

//go:generate go run ./gen -o models_gen.go

// Kind is the pydantic-core schema kind of a Type.
type Kind uint8

// The kinds.
const (
	KindAny      Kind = iota // Any: every value, as it is
	KindStr                  // str (strict: JSON strings only, as lax)
	KindInt                  // int (lax)
	KindFloat                // float (lax)
	KindBool                 // bool (lax)
	KindNone                 // None
	KindLiteral              // Literal[...]
	KindList                 // list[Elem]
	KindDict                 // dict[str, Elem]
	KindNullable             // Optional[Elem]: null, or Elem; no loc segment
	KindUnion                // Union[Choices...], smart mode
	KindModel                // a model or TypedDict, by name
	KindBefore               // a function-before validator (identity) around Elem
)

// Type is one pydantic-core schema node.
type Type struct {
	Kind     Kind
	Elem     *Type          // List, Dict, Nullable, Before
	Choices  []*Type        // Union
	Literals []pyjson.Value // Literal, in declaration order
	Model    string         // Model: the model's name
	Func     string         // Before: the validator function's name

	model   *Model   // Model: resolved by the registry
	tags    []string // Union: the loc tag of each choice (Name)
	tagLocs []any    // Union: tags as loc segments (boxed once)
	tagged  bool
}

// Extra is a model's policy for keys that match no field.
type Extra uint8

const (
	// ExtraIgnore drops them (pydantic's default).
	ExtraIgnore Extra = iota
	// ExtraAllow keeps them, dumped after the fields in input order.
	ExtraAllow
	// ExtraForbid refuses each with "extra_forbidden".
	ExtraForbid
)

// Model is a pydantic model or a TypedDict.
type Model struct {
	Name string
	// TypedDict: the dump holds only the keys given (in field order), and
	// optional fields have no default.
	TypedDict bool
	Extra     Extra
	Fields    []Field

	byName map[string]int
}

// Field is one field of a Model.
type Field struct {
	Name     string
	Type     *Type
	Required bool
	// Default is the JSON text of the default of an optional model field;
	// "" means None. Unused for TypedDicts.
	Default string

	def pyjson.Value
	loc any // Name as a loc segment (boxed once)
}

// Constructors used by models_gen.go.

// Any is typing.Any.
func Any() *Type { return &Type{Kind: KindAny} }

// Str is str.
func Str() *Type { return &Type{Kind: KindStr} }

// Int is int.
func Int() *Type { return &Type{Kind: KindInt} }

// Float is float.
func Float() *Type { return &Type{Kind: KindFloat} }

// Bool is bool.
func Bool() *Type { return &Type{Kind: KindBool} }

// None is NoneType.
func None() *Type { return &Type{Kind: KindNone} }

// Literal is Literal[...] of the values, each given as JSON text.
func Literal(values ...string) *Type {
	t := &Type{Kind: KindLiteral}
	for _, v := range values {
		x, err := pyjson.Parse([]byte(v))
		if err != nil {
			panic("pymodel: bad literal " + v)
		}
		t.Literals = append(t.Literals, x)
	}
	return t
}

// List is list[elem].
func List(elem *Type) *Type { return &Type{Kind: KindList, Elem: elem} }

// Dict is dict[str, elem].
func Dict(elem *Type) *Type { return &Type{Kind: KindDict, Elem: elem} }

// Nullable is Optional[elem].
func Nullable(elem *Type) *Type { return &Type{Kind: KindNullable, Elem: elem} }

// Union is Union[choices...] (smart mode).
func Union(choices ...*Type) *Type { return &Type{Kind: KindUnion, Choices: choices} }

// Ref is the model or TypedDict of that name.
func Ref(name string) *Type { return &Type{Kind: KindModel, Model: name} }

// Before is elem behind a function-before validator named fn, which passes
// the value through unchanged (only its name shows, in union tags).
func Before(fn string, elem *Type) *Type { return &Type{Kind: KindBefore, Func: fn, Elem: elem} }

// Name is the validator name pydantic-core gives the type, which is the loc
// tag of a union member: "str", "int", "float", "bool", "none", "any",
// "literal['a','b']", "list[X]", "dict[str,X]", "nullable[X]",
// "union[X,Y]", the model's class name, "function-before[fn(), X]".
func (t *Type) Name() string {
	var b strings.Builder
	t.appendName(&b)
	return b.String()
}

func (t *Type) appendName(b *strings.Builder) {
	switch t.Kind {
	case KindAny:
		b.WriteString("any")
	case KindStr:
		b.WriteString("str")
	case KindInt:
		b.WriteString("int")
	case KindFloat:
		b.WriteString("float")
	case KindBool:
		b.WriteString("bool")
	case KindNone:
		b.WriteString("none")
	case KindLiteral:
		b.WriteString("literal[")
		for i, l := range t.Literals {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(literalRepr(l))
		}
		b.WriteByte(']')
	case KindList:
		b.WriteString("list[")
		t.Elem.appendName(b)
		b.WriteByte(']')
	case KindDict:
		b.WriteString("dict[str,")
		t.Elem.appendName(b)
		b.WriteByte(']')
	case KindNullable:
		b.WriteString("nullable[")
		t.Elem.appendName(b)
		b.WriteByte(']')
	case KindUnion:
		b.WriteString("union[")
		for i, c := range t.Choices {
			if i > 0 {
				b.WriteByte(',')
			}
			c.appendName(b)
		}
		b.WriteByte(']')
	case KindModel:
		if t.model != nil {
			b.WriteString(t.model.ClassName())
		} else {
			b.WriteString(t.Model)
		}
	case KindBefore:
		b.WriteString("function-before[")
		b.WriteString(t.Func)
		b.WriteString("(), ")
		t.Elem.appendName(b)
		b.WriteByte(']')
	}
}

// literalRepr is Python's repr of a literal value.
func literalRepr(v pyjson.Value) string {
	switch v.Kind {
	case pyjson.String:
		return pyjson.ReprString(v.Str)
	case pyjson.Bool:
		if v.Bool {
			return "True"
		}
		return "False"
	case pyjson.Null:
		return "None"
	}
	return v.Str
}

// registry holds the generated models by name, resolved once.
var registry = func() map[string]*Model {
	r := make(map[string]*Model, len(generated))
	for _, m := range generated {
		r[m.Name] = m
	}
	var resolve func(t *Type)
	resolve = func(t *Type) {
		if t == nil {
			return
		}
		if t.Kind == KindModel {
			t.model = r[t.Model]
			if t.model == nil {
				panic("pymodel: unknown model " + t.Model)
			}
		}
		resolve(t.Elem)
		for _, c := range t.Choices {
			resolve(c)
		}
	}
	var tag func(t *Type)
	tag = func(t *Type) {
		if t == nil || t.tagged {
			return
		}
		t.tagged = true
		for _, c := range t.Choices {
			tag(c)
			t.tags = append(t.tags, c.Name())
			t.tagLocs = append(t.tagLocs, t.tags[len(t.tags)-1])
		}
		tag(t.Elem)
	}
	defer func() {
		for _, m := range generated {
			for i := range m.Fields {
				tag(m.Fields[i].Type)
			}
		}
	}()
	for _, m := range generated {
		m.byName = make(map[string]int, len(m.Fields))
		for i := range m.Fields {
			f := &m.Fields[i]
			m.byName[f.Name] = i
			f.loc = f.Name
			resolve(f.Type)
			if f.Default != "" {
				d, err := pyjson.Parse([]byte(f.Default))
				if err != nil {
					panic("pymodel: bad default of " + m.Name + "." + f.Name)
				}
				f.def = d
			}
		}
	}
	return r
}()

// Lookup returns the generated model of that name, or nil.
func Lookup(name string) *Model { return registry[name] }
