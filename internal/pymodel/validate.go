package pymodel

import (
	"strings"

	"github.com/gymkit/gymkit/internal/lax"
	"github.com/gymkit/gymkit/internal/pyjson"
)

// ClassName is the Python class name of the model: its schema name without
// the module path FastAPI prefixes to names used twice
// ("openai__types__responses__tool_param__Mcp" is class "Mcp").
func (m *Model) ClassName() string {
	if i := strings.LastIndex(m.Name, "__"); i >= 0 {
		return m.Name[i+2:]
	}
	return m.Name
}

// Validate validates v against the named generated model as FastAPI does for
// a body field of that type (lax mode; mode chooses the error type of a
// non-object, as in lax) and returns model_dump() of the result, or the
// error items (Loc relative to v) in pydantic's order. It panics for an
// unknown model name.
func Validate(model string, v pyjson.Value, mode lax.Mode) (pyjson.Value, []lax.ErrorItem) {
	m := registry[model]
	if m == nil {
		panic("pymodel: unknown model " + model)
	}
	s := &state{mode: mode, exact: exact, fieldsSet: -1}
	out, ok := s.model(m, &v)
	if !ok {
		return pyjson.Value{}, s.items
	}
	return out, nil
}

// exactness is pydantic-core's Exactness: how well a value matched.
type exactness uint8

const (
	laxMatch exactness = iota
	strictMatch
	exact
)

// state is one validation in progress.
type state struct {
	mode      lax.Mode
	loc       []any
	items     []lax.ErrorItem
	exact     exactness
	fieldsSet int // -1: none (pydantic-core fields_set_count None)
	depth     int
	// quiet > 0: items are not wanted (a union's first pass), so none are
	// recorded and a failed container stops at once.
	quiet int
	// members is the scratch stack of the model dumps being built.
	members []pyjson.Member
}

// maxDepth bounds recursion on hostile input (parsed JSON is already bounded
// by pyjson.MaxDepth; the models are not recursive beyond that).
const maxDepth = 512

func (s *state) floor(e exactness) {
	if e < s.exact {
		s.exact = e
	}
}

// add records it, unless quiet or past lax.MaxItems+1 items (items are
// recorded only once their failure is settled, so they are never discarded:
// the first items kept are the report's first items).
func (s *state) add(it lax.ErrorItem) {
	if s.quiet > 0 || len(s.items) > lax.MaxItems {
		return
	}
	loc := make([]any, len(s.loc), len(s.loc)+len(it.Loc))
	copy(loc, s.loc)
	it.Loc = append(loc, it.Loc...)
	s.items = append(s.items, it)
}

func (s *state) fail(typ, msg string, v *pyjson.Value) {
	s.add(lax.ErrorItem{Type: typ, Msg: msg, Input: *v})
}

// stop reports whether a container that has failed (!ok) may stop
// validating its remaining values: its failure is settled and the further
// items are not wanted (quiet) or past the cap (see add).
func (s *state) stop(ok bool) bool {
	return !ok && (s.quiet > 0 || len(s.items) > lax.MaxItems)
}

// val validates v against t; ok is false when it added error items.
func (s *state) val(t *Type, v *pyjson.Value) (pyjson.Value, bool) {
	switch t.Kind {
	case KindAny:
		return *v, true
	case KindStr:
		if v.Kind != pyjson.String {
			s.fail(lax.TypeStringType, "Input should be a valid string", v)
			return pyjson.Value{}, false
		}
		return *v, true
	case KindInt:
		return s.int(v)
	case KindFloat:
		return s.float(v)
	case KindBool:
		if v.Kind == pyjson.Bool {
			return *v, true
		}
		b, items := lax.DecodeInto[bool](*v, s.mode)
		if len(items) > 0 {
			s.addAll(items)
			return pyjson.Value{}, false
		}
		s.floor(laxMatch)
		return pyjson.BoolValue(b), true
	case KindNone:
		if v.Kind != pyjson.Null {
			s.fail("none_required", "Input should be None", v)
			return pyjson.Value{}, false
		}
		return *v, true
	case KindLiteral:
		for _, l := range t.Literals {
			if literalEqual(l, v) {
				return l, true
			}
		}
		if s.quiet > 0 {
			return pyjson.Value{}, false
		}
		expected := literalExpected(t.Literals)
		s.add(lax.ErrorItem{Type: lax.TypeLiteralError, Msg: "Input should be " + expected, Input: *v,
			Ctx: []pyjson.Member{{Key: "expected", Value: pyjson.StringValue(expected)}}})
		return pyjson.Value{}, false
	case KindList:
		if v.Kind != pyjson.Array {
			s.fail(lax.TypeListType, "Input should be a valid list", v)
			return pyjson.Value{}, false
		}
		out := make([]pyjson.Value, len(v.Items))
		ok := true
		for i := range v.Items {
			s.loc = append(s.loc, i)
			x, good := s.nested(t.Elem, &v.Items[i])
			s.loc = s.loc[:len(s.loc)-1]
			out[i], ok = x, ok && good
			if s.stop(ok) {
				break
			}
		}
		return pyjson.Value{Kind: pyjson.Array, Items: out}, ok
	case KindDict:
		if v.Kind != pyjson.Object {
			s.fail(lax.TypeDictType, "Input should be a valid dictionary", v)
			return pyjson.Value{}, false
		}
		out := make([]pyjson.Member, len(v.Members))
		ok := true
		for i := range v.Members {
			s.loc = append(s.loc, v.Members[i].Key)
			x, good := s.nested(t.Elem, &v.Members[i].Value)
			s.loc = s.loc[:len(s.loc)-1]
			out[i], ok = pyjson.Member{Key: v.Members[i].Key, Value: x}, ok && good
			if s.stop(ok) {
				break
			}
		}
		return pyjson.Value{Kind: pyjson.Object, Members: out}, ok
	case KindNullable:
		if v.Kind == pyjson.Null {
			return *v, true
		}
		return s.val(t.Elem, v)
	case KindBefore:
		return s.val(t.Elem, v)
	case KindUnion:
		return s.union(t, v)
	case KindModel:
		return s.model(t.model, v)
	}
	panic("pymodel: bad type kind")
}

// nested guards recursion depth.
func (s *state) nested(t *Type, v *pyjson.Value) (pyjson.Value, bool) {
	s.depth++
	defer func() { s.depth-- }()
	if s.depth > maxDepth {
		s.fail("recursion_loop", "Recursion error - cyclic reference detected", v)
		return pyjson.Value{}, false
	}
	return s.val(t, v)
}

func (s *state) addAll(items []lax.ErrorItem) {
	for _, it := range items {
		s.add(it)
	}
}

// int is lax int (lax.Int: any size); a JSON int literal is an exact match,
// anything else (a float, a string, a bool) a lax one.
func (s *state) int(v *pyjson.Value) (pyjson.Value, bool) {
	text, items := lax.Int(*v, s.mode)
	if len(items) > 0 {
		s.addAll(items)
		return pyjson.Value{}, false
	}
	if v.Kind != pyjson.Number || v.IsFloat() {
		s.floor(laxMatch)
	}
	return pyjson.NumberValue(text), true
}

// float is lax float; the dump is a float literal ("0.0" for 0).
func (s *state) float(v *pyjson.Value) (pyjson.Value, bool) {
	if v.Kind == pyjson.Number && v.IsFloat() {
		return *v, true
	}
	f, items := lax.DecodeInto[float64](*v, s.mode)
	if len(items) > 0 {
		s.addAll(items)
		return pyjson.Value{}, false
	}
	if v.Kind == pyjson.Number {
		s.floor(strictMatch)
	} else {
		s.floor(laxMatch)
	}
	return pyjson.FloatValue(f), true
}

// literalEqual is Literal membership as pydantic-core checks it for JSON
// input: strings equal strings, bools bools, ints ints (no coercion).
func literalEqual(l pyjson.Value, v *pyjson.Value) bool {
	if l.Kind != v.Kind {
		return false
	}
	switch l.Kind {
	case pyjson.String:
		return l.Str == v.Str
	case pyjson.Bool:
		return l.Bool == v.Bool
	case pyjson.Null:
		return true
	case pyjson.Number:
		return !v.IsFloat() && l.Str == v.Str
	}
	return false
}

// literalExpected is pydantic-core's expected_repr_name: "'a'", "'a' or
// 'b'", "'a', 'b' or 'c'".
func literalExpected(ls []pyjson.Value) string {
	reprs := make([]string, len(ls))
	for i, l := range ls {
		reprs[i] = literalRepr(l)
	}
	expected := reprs[len(reprs)-1]
	if len(reprs) > 1 {
		expected = strings.Join(reprs[:len(reprs)-1], ", ") + " or " + expected
	}
	return expected
}

// union is smart mode [src: pydantic-core src/validators/union.rs ›
// validate_smart]. The members are first tried quietly (no items; a failed
// member stops at its first error), which settles the result; only when
// every member failed, and the items are wanted, are they tried again to
// record their items, in member order. Validation is deterministic, so the
// second pass fails as the first did and the items are pydantic's; a
// success (a valid body) records no item at all.
func (s *state) union(t *Type, v *pyjson.Value) (pyjson.Value, bool) {
	oldExact, oldFields := s.exact, s.fieldsSet
	var (
		best       pyjson.Value
		haveBest   bool
		bestExact  exactness
		bestFields int
	)
	s.quiet++
	for ci, c := range t.Choices {
		s.exact, s.fieldsSet = exact, -1
		s.loc = append(s.loc, t.tagLocs[ci])
		out, ok := s.nested(c, v)
		s.loc = s.loc[:len(s.loc)-1]
		if !ok {
			continue
		}
		if s.exact == exact && s.fieldsSet < 0 {
			s.quiet--
			s.exact, s.fieldsSet = oldExact, oldFields
			return out, true
		}
		better := !haveBest
		if haveBest {
			if bestFields >= 0 && s.fieldsSet >= 0 && bestFields != s.fieldsSet {
				better = bestFields < s.fieldsSet
			} else {
				better = bestExact < s.exact
			}
		}
		if better {
			best, haveBest, bestExact, bestFields = out, true, s.exact, s.fieldsSet
		}
	}
	s.quiet--
	s.exact, s.fieldsSet = oldExact, oldFields
	if haveBest {
		s.floor(bestExact)
		if bestFields >= 0 {
			s.fieldsSet = bestFields
		}
		return best, true
	}
	if s.quiet == 0 {
		for ci, c := range t.Choices {
			s.exact, s.fieldsSet = exact, -1
			s.loc = append(s.loc, t.tagLocs[ci])
			s.nested(c, v)
			s.loc = s.loc[:len(s.loc)-1]
		}
		s.exact, s.fieldsSet = oldExact, oldFields
	}
	return pyjson.Value{}, false
}

// model validates a model or TypedDict from an object: fields in order
// (missing, defaults), then unknown keys by the extra policy
// [src: pydantic-core src/validators/model_fields.rs, typed_dict.rs].
func (s *state) model(m *Model, v *pyjson.Value) (pyjson.Value, bool) {
	if v.Kind != pyjson.Object {
		switch {
		case m.TypedDict:
			s.fail(lax.TypeDictType, "Input should be a valid dictionary", v)
		case s.mode == lax.ModeMCP:
			cn := m.ClassName()
			s.add(lax.ErrorItem{Type: lax.TypeModelType, Msg: "Input should be a valid dictionary or instance of " + cn,
				Input: *v, Ctx: []pyjson.Member{{Key: "class_name", Value: pyjson.StringValue(cn)}}})
		default:
			s.fail(lax.TypeModelAttributesType, "Input should be a valid dictionary or object to extract fields from", v)
		}
		return pyjson.Value{}, false
	}
	if !m.TypedDict {
		s.floor(laxMatch) // a dict, not an instance of the class
	}
	var foundBuf [64]int
	found := foundBuf[:0]
	if len(m.Fields) <= len(foundBuf) {
		found = foundBuf[:len(m.Fields)]
	} else {
		found = make([]int, len(m.Fields))
	}
	for i := range found {
		found[i] = -1
	}
	unknown := 0
	for i := range v.Members {
		if fi, ok := m.byName[v.Members[i].Key]; ok {
			found[fi] = i
		} else {
			unknown++
		}
	}
	// The dump is built on s.members (shared by the nested models) and
	// copied out only on success: most union members tried fail.
	base := len(s.members)
	defer func() { s.members = s.members[:base] }()
	ok, set := true, 0
	for fi := range m.Fields {
		if s.stop(ok) {
			return pyjson.Value{}, false
		}
		f := &m.Fields[fi]
		mi := found[fi]
		if mi < 0 {
			switch {
			case f.Required:
				s.loc = append(s.loc, f.loc)
				s.fail(lax.TypeMissing, "Field required", v)
				s.loc = s.loc[:len(s.loc)-1]
				ok = false
			case !m.TypedDict:
				s.members = append(s.members, pyjson.Member{Key: f.Name, Value: f.def})
			}
			continue
		}
		s.loc = append(s.loc, f.loc)
		x, good := s.nested(f.Type, &v.Members[mi].Value)
		s.loc = s.loc[:len(s.loc)-1]
		if !good {
			ok = false
			continue
		}
		set++
		s.members = append(s.members, pyjson.Member{Key: f.Name, Value: x})
	}
	if unknown > 0 && m.Extra != ExtraIgnore {
		for i := range v.Members {
			if s.stop(ok) {
				return pyjson.Value{}, false
			}
			mem := &v.Members[i]
			if _, known := m.byName[mem.Key]; known {
				continue
			}
			if m.Extra == ExtraForbid {
				s.loc = append(s.loc, mem.Key)
				s.add(lax.ErrorItem{Type: lax.TypeExtraForbidden, Msg: "Extra inputs are not permitted", Input: mem.Value})
				s.loc = s.loc[:len(s.loc)-1]
				ok = false
				continue
			}
			s.members = append(s.members, *mem)
		}
	}
	if !ok {
		return pyjson.Value{}, false
	}
	if !m.TypedDict {
		s.fieldsSet = set
	}
	out := make([]pyjson.Member, len(s.members)-base)
	copy(out, s.members[base:])
	return pyjson.Value{Kind: pyjson.Object, Members: out}, true
}
