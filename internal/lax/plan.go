package lax

import (
	"encoding"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/gymkit/gymkit/internal/model"
	"github.com/gymkit/gymkit/internal/pyjson"
)

// Mode selects which Python door is reproduced. The zero Mode is ModeHTTP.
type Mode uint8

const (
	// ModeHTTP is FastAPI's body validation, TypeAdapter.validate_python with
	// from_attributes=True: a non-object where a model (struct) is expected,
	// at the top level or nested, gives "model_attributes_type" ("Input
	// should be a valid dictionary or object to extract fields from").
	ModeHTTP Mode = iota
	// ModeMCP is NeMo Gym's MCP door, plain Model.model_validate: a
	// non-object where a model is expected, at the top level or nested,
	// gives "model_type" ("Input should be a valid dictionary or instance of
	// <TypeName>", ctx {"class_name": "<TypeName>"}).
	ModeMCP
)

// String returns "http" or "mcp".
func (m Mode) String() string {
	if m == ModeMCP {
		return "mcp"
	}
	return "http"
}

// Forbid is a marker: a struct that embeds it (directly, through a pointer or
// through embedded structs) rejects unknown keys, like a pydantic model with extra="forbid".
// Each unknown key gives an "extra_forbidden" item ("Extra inputs are not
// permitted", input = that key's value, loc = the key), after the items of
// the declared fields, in input-key order. It has no fields and no JSON form.
type Forbid struct{}

// Unmarshaler is implemented (on the pointer) by types that validate
// themselves. UnmarshalPy receives the JSON value at the field's position and
// the Mode, stores the result in the receiver and returns the error items,
// whose Loc is relative to the value (the decoder prefixes the field's
// location). It must not retain v's slices if it mutates them.
type Unmarshaler interface {
	UnmarshalPy(v pyjson.Value, m Mode) []ErrorItem
}

// Plan is the compiled decoder of one Go type. Plans are immutable and safe
// for concurrent use; get them from Compile.
type Plan struct {
	typ  reflect.Type
	dec  decoder
	bdec bdecoder
}

// Type returns the Go type the plan decodes.
func (p *Plan) Type() reflect.Type { return p.typ }

// decoder decodes v into the addressable dst, adding items to s.
type decoder func(s *state, v *pyjson.Value, dst reflect.Value)

type cacheEntry struct {
	plan *Plan
	err  error
}

var planCache sync.Map // reflect.Type → cacheEntry

// Compile returns the cached decoding plan for t, compiling it on first use.
// It fails, naming the field path (e.g. "Req.items[].when"), for types the
// package does not support (see the package documentation), for bad tags
// (an enum tag on a non-string field, an invalid required tag, the json
// ",string" option) and for misplaced pyjson.Extra / Forbid. Recursive types
// are supported. The error is cached too.
func Compile(t reflect.Type) (*Plan, error) {
	if t == nil {
		return nil, fmt.Errorf("lax: nil type")
	}
	if e, ok := planCache.Load(t); ok {
		ce := e.(cacheEntry)
		return ce.plan, ce.err
	}
	c := &compiler{structs: map[reflect.Type]*structPlan{}}
	dec, err := c.compile(t, TypeName(t))
	var p *Plan
	if err == nil {
		p = &Plan{typ: t, dec: dec, bdec: c.bcompile(t)}
		c.fillCells()
	}
	e, _ := planCache.LoadOrStore(t, cacheEntry{plan: p, err: err})
	ce := e.(cacheEntry)
	return ce.plan, ce.err
}

// Decode decodes v into dst, which must be an addressable (settable) value
// of the plan's type, and returns pydantic's error items in pydantic's order,
// or nil on success. Keys present in v overwrite the matching fields; fields
// whose keys are absent are left as they are, so decode into a zero value.
// Slices, maps and pointers are freshly allocated. On failure dst may be
// partially written. It panics if dst has the wrong type or is not settable.
func (p *Plan) Decode(v pyjson.Value, dst reflect.Value, m Mode) []ErrorItem {
	if dst.Type() != p.typ || !dst.CanSet() {
		panic(fmt.Sprintf("lax: Decode into %v (settable %v) with a plan for %v", dst.Type(), dst.CanSet(), p.typ))
	}
	s := statePool.Get().(*state)
	s.mode = m
	s.root = v
	s.lazy = pyjson.MayHoldLazy(&v)
	p.dec(s, &s.root, dst)
	items := s.items
	s.items = nil
	s.lazy = false
	s.root = pyjson.Value{}
	s.loc = s.loc[:0]
	statePool.Put(s)
	return items
}

// DecodeInto decodes v into a new T with the cached plan for T. It panics if
// T is not supported (Compile's error): compile request types at startup.
func DecodeInto[T any](v pyjson.Value, m Mode) (T, []ErrorItem) {
	var out T
	p, err := Compile(reflect.TypeFor[T]())
	if err != nil {
		panic(err)
	}
	items := p.Decode(v, reflect.ValueOf(&out).Elem(), m)
	return out, items
}

// TypeName is the pydantic class name used for a Go type: its name with
// package paths removed from type arguments ("Page[Item]"), the element's
// name for pointers, and the Go type text for unnamed types (model.TypeName).
func TypeName(t reflect.Type) string { return model.TypeName(t) }

// state is one Decode in progress.
type state struct {
	mode Mode
	// lazy: the input is a lazy tree (pyjson.ParseLazy): containers are
	// expanded as the decoders reach them, and Materialized where a value
	// is kept (see keep).
	lazy  bool
	root  pyjson.Value
	loc   []locElem
	items []ErrorItem
	// retries counts the enclosing lazy containers whose streaming
	// attempt gave up (lazystream.go); b is the attempts' scratch.
	retries int
	b       *bstate
}

// locElem is one loc segment: a key, or an index when idx >= 0.
type locElem struct {
	key string
	idx int
}

var statePool = sync.Pool{New: func() any { return &state{loc: make([]locElem, 0, 8)} }}

func (s *state) pushKey(k string) { s.loc = append(s.loc, locElem{key: k, idx: -1}) }
func (s *state) pushIdx(i int)    { s.loc = append(s.loc, locElem{idx: i}) }
func (s *state) pop()             { s.loc = s.loc[:len(s.loc)-1] }

func (s *state) locCopy(extra int) []any {
	loc := make([]any, len(s.loc), len(s.loc)+extra)
	for i, e := range s.loc {
		if e.idx >= 0 {
			loc[i] = e.idx
		} else {
			loc[i] = e.key
		}
	}
	return loc
}

// keep returns v as a decoded value may hold it: with its lazy containers
// parsed (what an environment sees is never lazy).
func (s *state) keep(v *pyjson.Value) pyjson.Value {
	if s.lazy {
		return pyjson.Materialize(*v)
	}
	return *v
}

// expand returns the object or array v with its own members or items
// parsed (those of a lazy container's are lazy in turn).
func expand(v *pyjson.Value) *pyjson.Value {
	if pyjson.IsLazy(v) {
		x := pyjson.Expand(*v)
		return &x
	}
	return v
}

// add records it at the current location.
// Past MaxItems+1 items it drops it (see MaxItems).
func (s *state) add(it ErrorItem) {
	if full(s.items) {
		return
	}
	it.Loc = s.locCopy(0)
	s.items = append(s.items, it)
}

// fail records a ctx-less error of type typ for input v.
func (s *state) fail(typ string, v *pyjson.Value) {
	s.add(ErrorItem{Type: typ, Msg: simpleMsg[typ], Input: *v})
}

// Reflect types the compiler treats specially.
var (
	rawMessageType  = reflect.TypeFor[json.RawMessage]()
	valueType       = reflect.TypeFor[pyjson.Value]()
	objectType      = reflect.TypeFor[pyjson.Dict]()
	extraType       = reflect.TypeFor[pyjson.Extra]()
	forbidType      = reflect.TypeFor[Forbid]()
	unmarshalerType = reflect.TypeFor[Unmarshaler]()
	jsonUnmType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmType     = reflect.TypeFor[encoding.TextUnmarshaler]()
)

type specialKind uint8

const (
	specialNone specialKind = iota
	specialRaw
	specialValue
	specialObject
	specialExtra
	specialForbid
	specialCustom
)

// special classifies the types handled before their kind.
func special(t reflect.Type) specialKind {
	switch t {
	case rawMessageType:
		return specialRaw
	case valueType:
		return specialValue
	case objectType:
		return specialObject
	case extraType:
		return specialExtra
	case forbidType:
		return specialForbid
	}
	if customOf(t) != nil {
		return specialCustom
	}
	return specialNone
}

type compiler struct {
	structs map[reflect.Type]*structPlan
	cells   []bcell // streaming decoders of lazy elements, to fill (lazystream.go)
}

func (c *compiler) compile(t reflect.Type, path string) (decoder, error) {
	switch special(t) {
	case specialRaw:
		return decodeRaw, nil
	case specialValue:
		return decodeValue, nil
	case specialObject:
		return decodeObject, nil
	case specialExtra, specialForbid:
		return nil, fmt.Errorf("lax: %s: %v must be embedded in a struct, not used as a field type", path, t)
	case specialCustom:
		return customDecoder(customOf(t)), nil
	}
	if t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface &&
		(t.Implements(jsonUnmType) || reflect.PointerTo(t).Implements(jsonUnmType) ||
			t.Implements(textUnmType) || reflect.PointerTo(t).Implements(textUnmType)) {
		return nil, fmt.Errorf("lax: %s: unsupported type %v: it has its own UnmarshalJSON/UnmarshalText, which cannot give pydantic's errors; use a type of your own implementing framework.CustomField (DecodeField and JSONSchemaBytes on its pointer) that validates it", path, t)
	}
	switch t.Kind() {
	case reflect.String:
		return decodeString, nil
	case reflect.Bool:
		return decodeBool, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return intDecoder(t.Bits()), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return uintDecoder(t.Bits()), nil
	case reflect.Float32, reflect.Float64:
		return decodeFloat, nil
	case reflect.Pointer:
		elem, err := c.compile(t.Elem(), path)
		if err != nil {
			return nil, err
		}
		return pointerDecoder(t.Elem(), elem), nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return nil, fmt.Errorf("lax: %s: unsupported type %v (byte slices have no pydantic equivalent; use string or json.RawMessage)", path, t)
		}
		elem, err := c.compile(t.Elem(), path+"[]")
		if err != nil {
			return nil, err
		}
		return sliceDecoder(t, elem, c.cell(t.Elem())), nil
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, fmt.Errorf("lax: %s: unsupported map key type %v (only string keys)", path, t.Key())
		}
		if t.Key().Implements(textUnmType) || reflect.PointerTo(t.Key()).Implements(textUnmType) {
			return nil, fmt.Errorf("lax: %s: unsupported map key type %v (it has UnmarshalText)", path, t.Key())
		}
		elem, err := c.compile(t.Elem(), path+"{}")
		if err != nil {
			return nil, err
		}
		return mapDecoder(t, elem, c.cell(t.Elem())), nil
	case reflect.Interface:
		if t.NumMethod() != 0 {
			return nil, fmt.Errorf("lax: %s: unsupported interface type %v (only any)", path, t)
		}
		return decodeAny, nil
	case reflect.Struct:
		sp, err := c.structPlan(t, path)
		if err != nil {
			return nil, err
		}
		return sp.decode, nil
	}
	return nil, fmt.Errorf("lax: %s: unsupported type %v (a type of your own may validate itself: implement framework.CustomField on its pointer)", path, t)
}

// structPlan compiles (or returns the in-progress plan of) a struct type.
func (c *compiler) structPlan(t reflect.Type, path string) (*structPlan, error) {
	if sp, ok := c.structs[t]; ok {
		return sp, nil
	}
	m, fields, err := resolveModel(t, path)
	if err != nil {
		return nil, err
	}
	sp := &structPlan{typ: t, model: m, name: m.Name, extra: m.Extra, extraIndex: m.ExtraIndex, extraViaPtr: m.ExtraViaPointer}
	c.structs[t] = sp
	sp.fields = make([]fieldPlan, len(fields))
	for i := range fields {
		f := &fields[i]
		fpath := path + "." + f.Name
		var dec decoder
		if f.Enum != nil {
			dec, err = c.enumDecoder(f.Type, f.Enum, fpath)
		} else {
			dec, err = c.compile(f.Type, fpath)
		}
		if err != nil {
			delete(c.structs, t)
			return nil, err
		}
		sp.fields[i] = fieldPlan{
			name:       f.Name,
			index:      f.Index,
			viaPtr:     f.ViaPointer,
			required:   f.Required,
			hasDefault: f.HasDefault,
			def:        f.def,
			dec:        dec,
			enum:       f.Enum != nil,
			typ:        f.Type,
		}
		if f.HasDefault {
			// The default must be a valid value of the field; decode it
			// once now. A recursive struct may still be incomplete here,
			// so only scalars and containers of them are checked eagerly.
			if err := checkDefault(f.Type, &f.def, dec); err != nil {
				delete(c.structs, t)
				return nil, fmt.Errorf("lax: %s: invalid default tag: %v", fpath, err)
			}
		}
	}
	if len(sp.fields) > 8 {
		sp.byName = make(map[string]int, len(sp.fields))
		for i := range sp.fields {
			sp.byName[sp.fields[i].name] = i
		}
	}
	return sp, nil
}

// checkDefault decodes a field's default into a scratch value and reports
// the first error item. Defaults are applied with the decoder (cheap for the
// scalars they usually are), so slices and maps are fresh each time.
func checkDefault(t reflect.Type, def *pyjson.Value, dec decoder) (err error) {
	defer func() {
		// A recursive struct's plan may be incomplete during compilation.
		if r := recover(); r != nil {
			err = nil
		}
	}()
	s := &state{}
	dst := reflect.New(t).Elem()
	dec(s, def, dst)
	if len(s.items) > 0 {
		return fmt.Errorf("%s: %s", s.items[0].Type, s.items[0].Msg)
	}
	return nil
}

// enumDecoder compiles a Literal[...] of strings for a string kind or a
// pointer to one.
func (c *compiler) enumDecoder(t reflect.Type, values []string, path string) (decoder, error) {
	if t.Kind() == reflect.Pointer {
		elem, err := c.enumDecoder(t.Elem(), values, path)
		if err != nil {
			return nil, err
		}
		return pointerDecoder(t.Elem(), elem), nil
	}
	if t.Kind() != reflect.String || special(t) != specialNone {
		return nil, fmt.Errorf("lax: %s: the enum tag is only supported on string fields, not %v", path, t)
	}
	reprs := make([]string, len(values))
	for i, v := range values {
		reprs[i] = pyjson.ReprString(v)
	}
	// pydantic-core validators/literal.rs › expected_repr_name: "'a'",
	// "'a' or 'b'", "'a', 'b' or 'c'".
	expected := reprs[len(reprs)-1]
	if len(reprs) > 1 {
		expected = strings.Join(reprs[:len(reprs)-1], ", ") + " or " + expected
	}
	vals := append([]string(nil), values...)
	return func(s *state, v *pyjson.Value, dst reflect.Value) {
		if v.Kind == pyjson.String {
			for _, e := range vals {
				if v.Str == e {
					dst.SetString(e)
					return
				}
			}
		}
		s.add(literalItem(expected, *v))
	}, nil
}

// structPlan is a compiled model.
type structPlan struct {
	typ         reflect.Type
	model       *model.Struct
	name        string
	fields      []fieldPlan
	byName      map[string]int // nil for small structs (linear search)
	extra       model.ExtraMode
	extraIndex  []int
	extraViaPtr bool
	bfields     []bdecoder // the fields' streaming decoders (stream.go)
	// lazyB: the fields' streaming decoders to try on a lazy container,
	// nil where not streamWorthy (lazystream.go).
	lazyB []bdecoder
}

type fieldPlan struct {
	name       string
	index      []int
	viaPtr     bool
	required   bool
	hasDefault bool
	def        pyjson.Value
	dec        decoder
	enum       bool         // an enum tag: dec is its Literal decoder
	typ        reflect.Type // the field's type
}

func (sp *structPlan) lookup(key string) int {
	if sp.byName != nil {
		if i, ok := sp.byName[key]; ok {
			return i
		}
		return -1
	}
	for i := range sp.fields {
		if sp.fields[i].name == key {
			return i
		}
	}
	return -1
}

// fieldValue returns the settable field, allocating nil embedded pointers.
func fieldValue(v reflect.Value, index []int, viaPtr bool) reflect.Value {
	if len(index) == 1 {
		return v.Field(index[0])
	}
	if !viaPtr {
		return v.FieldByIndex(index)
	}
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v
}

// decode validates a model: fields in declaration order (missing included),
// then unknown keys in input order [src: pydantic-core
// src/validators/model_fields.rs › validate].
func (sp *structPlan) decode(s *state, v *pyjson.Value, dst reflect.Value) {
	if v.Kind != pyjson.Object {
		if s.mode == ModeMCP {
			s.add(modelTypeItem(sp.name, *v))
		} else {
			s.fail(TypeModelAttributesType, v)
		}
		return
	}
	v = expand(v)
	var buf [16]int32
	found := buf[:0]
	if len(sp.fields) <= len(buf) {
		found = buf[:len(sp.fields)]
	} else {
		found = make([]int32, len(sp.fields))
	}
	for i := range found {
		found[i] = -1
	}
	unknown := 0
	for mi := range v.Members {
		if fi := sp.lookup(v.Members[mi].Key); fi >= 0 {
			found[fi] = int32(mi)
		} else {
			unknown++
		}
	}
	for fi := range sp.fields {
		f := &sp.fields[fi]
		mi := found[fi]
		if mi < 0 {
			switch {
			case f.required:
				s.pushKey(f.name)
				s.add(ErrorItem{Type: TypeMissing, Msg: msgMissing, Input: *v})
				s.pop()
			case f.hasDefault:
				s.pushKey(f.name)
				f.dec(s, &f.def, fieldValue(dst, f.index, f.viaPtr))
				s.pop()
			}
			continue
		}
		s.pushKey(f.name)
		if sp.lazyB != nil && sp.lazyB[fi] != nil {
			s.decodeLazy(f.dec, sp.lazyB[fi], &v.Members[mi].Value, fieldValue(dst, f.index, f.viaPtr))
		} else {
			f.dec(s, &v.Members[mi].Value, fieldValue(dst, f.index, f.viaPtr))
		}
		s.pop()
	}
	switch sp.extra {
	case model.ExtraForbid:
		if unknown == 0 {
			return
		}
		for mi := range v.Members {
			if full(s.items) {
				return
			}
			m := &v.Members[mi]
			if sp.lookup(m.Key) < 0 {
				s.pushKey(m.Key)
				s.add(ErrorItem{Type: TypeExtraForbidden, Msg: msgExtraForbidden, Input: m.Value})
				s.pop()
			}
		}
	case model.ExtraAllow:
		var extra []pyjson.Member
		if unknown > 0 {
			extra = make([]pyjson.Member, 0, unknown)
			for mi := range v.Members {
				if sp.lookup(v.Members[mi].Key) < 0 {
					// Kept as it is: a lazy container stays the text
					// of the tree's private copy, parsed when the
					// environment reads it (pyjson.Extra.Get).
					extra = append(extra, v.Members[mi])
				}
			}
		}
		if extra == nil && sp.extraViaPtr {
			return // nothing to store; do not allocate the path
		}
		ev := fieldValue(dst, sp.extraIndex, sp.extraViaPtr)
		if ev.Kind() == reflect.Pointer {
			if ev.IsNil() {
				if extra == nil {
					return
				}
				ev.Set(reflect.New(extraType))
			}
			ev = ev.Elem()
		}
		pyjson.SetExtraMembers(ev.Addr().Interface().(*pyjson.Extra), extra)
	}
}

// Scalar decoders.

func decodeString(s *state, v *pyjson.Value, dst reflect.Value) {
	if v.Kind != pyjson.String {
		s.fail(TypeStringType, v)
		return
	}
	dst.SetString(v.Str)
}

// decodeBool is validate_bool (input_python.rs): bools; the exact strings of
// str_as_bool; ints 0 and 1 (other i64 → bool_parsing; ints beyond i64 go
// through float and end as bool_type); floats that float_as_int accepts
// (0.0/1.0, others bool_parsing; fractional, non-finite or ≥ 2^63 →
// bool_type).
func decodeBool(s *state, v *pyjson.Value, dst reflect.Value) {
	switch v.Kind {
	case pyjson.Bool:
		dst.SetBool(v.Bool)
		return
	case pyjson.String:
		if b, ok := strAsBool(v.Str); ok {
			dst.SetBool(b)
			return
		}
		s.fail(TypeBoolParsing, v)
		return
	case pyjson.Number:
		if !v.IsFloat() {
			n, err := strconv.ParseInt(v.Str, 10, 64)
			switch {
			case err == nil && (n == 0 || n == 1) && isJSONInt(v.Str):
				dst.SetBool(n == 1)
			case err == nil && isJSONInt(v.Str):
				s.fail(TypeBoolParsing, v)
			default:
				s.fail(TypeBoolType, v)
			}
			return
		}
		f, ok := float64Literal(v.Str)
		if !ok {
			break
		}
		n, errType := floatAsInt(f)
		switch {
		case errType != "":
			s.fail(TypeBoolType, v)
		case n == 0 || n == 1:
			dst.SetBool(n == 1)
		default:
			s.fail(TypeBoolParsing, v)
		}
		return
	}
	s.fail(TypeBoolType, v)
}

// decodeFloat is validate_float (input_python.rs): floats as they are
// (NaN and ±inf accepted: allow_inf_nan defaults to true); strings through
// str_as_float; ints converted (float_type when too large for a float);
// bools as 1.0/0.0.
func decodeFloat(s *state, v *pyjson.Value, dst reflect.Value) {
	switch v.Kind {
	case pyjson.Number:
		var f float64
		var ok bool
		if v.IsFloat() {
			f, ok = float64Literal(v.Str)
		} else if n, valid := intFromLiteral(v.Str); valid {
			f, ok = intToFloat(n)
		}
		if ok {
			dst.SetFloat(f)
			return
		}
	case pyjson.String:
		if f, ok := strAsFloat(v.Str); ok {
			dst.SetFloat(f)
			return
		}
		s.fail(TypeFloatParsing, v)
		return
	case pyjson.Bool:
		if v.Bool {
			dst.SetFloat(1)
		} else {
			dst.SetFloat(0)
		}
		return
	}
	s.fail(TypeFloatType, v)
}

// laxInt is validate_int (input_python.rs) for JSON-born input: the Python
// int v denotes, as an int64 when it fits (small) or as text, or the error
// type.
func laxInt(v *pyjson.Value) (small int64, text pyInt, fits bool, errType string) {
	switch v.Kind {
	case pyjson.Number:
		if !v.IsFloat() {
			n, ok := intFromLiteral(v.Str)
			if !ok {
				return 0, "", false, TypeIntType
			}
			text = n
			break
		}
		f, ok := float64Literal(v.Str)
		if !ok {
			return 0, "", false, TypeIntType
		}
		i, et := floatAsInt(f)
		return i, "", et == "", et
	case pyjson.Bool:
		if v.Bool {
			return 1, "", true, ""
		}
		return 0, "", true, ""
	case pyjson.String:
		n, et := strAsInt(v.Str)
		if et != "" {
			return 0, "", false, et
		}
		text = n
	default:
		return 0, "", false, TypeIntType
	}
	if i, err := strconv.ParseInt(string(text), 10, 64); err == nil {
		return i, "", true, ""
	}
	return 0, text, false, ""
}

func intDecoder(bits int) decoder {
	loText, hiText := intBounds(bits)
	lo, hi := int64(math.MinInt64)>>(64-bits), int64(math.MaxInt64)>>(64-bits)
	return func(s *state, v *pyjson.Value, dst reflect.Value) {
		if v.Kind == pyjson.Number && !v.IsFloat() {
			// Fast path: an in-range JSON int.
			if i, err := strconv.ParseInt(v.Str, 10, 64); err == nil && i >= lo && i <= hi && isJSONInt(v.Str) {
				dst.SetInt(i)
				return
			}
		}
		i, text, fits, errType := laxInt(v)
		switch {
		case errType != "":
			s.fail(errType, v)
		case !fits:
			neg := strings.HasPrefix(string(text), "-")
			s.add(rangeItem(neg, pick(neg, loText, hiText), *v))
		case i < lo:
			s.add(rangeItem(true, loText, *v))
		case i > hi:
			s.add(rangeItem(false, hiText, *v))
		default:
			dst.SetInt(i)
		}
	}
}

func uintDecoder(bits int) decoder {
	hiText := uintBound(bits)
	hi := uint64(math.MaxUint64) >> (64 - bits)
	return func(s *state, v *pyjson.Value, dst reflect.Value) {
		i, text, fits, errType := laxInt(v)
		switch {
		case errType != "":
			s.fail(errType, v)
		case fits && i < 0:
			s.add(rangeItem(true, "0", *v))
		case fits && uint64(i) > hi:
			s.add(rangeItem(false, hiText, *v))
		case fits:
			dst.SetUint(uint64(i))
		case strings.HasPrefix(string(text), "-"):
			s.add(rangeItem(true, "0", *v))
		default:
			u, err := strconv.ParseUint(string(text), 10, 64)
			if err != nil || u > hi {
				s.add(rangeItem(false, hiText, *v))
				return
			}
			dst.SetUint(u)
		}
	}
}

func pick(low bool, lo, hi string) string {
	if low {
		return lo
	}
	return hi
}

// Any-like decoders.

func decodeValue(s *state, v *pyjson.Value, dst reflect.Value) {
	*dst.Addr().Interface().(*pyjson.Value) = s.keep(v)
}

func decodeAny(s *state, v *pyjson.Value, dst reflect.Value) {
	dst.Set(reflect.ValueOf(s.keep(v)))
}

// decodeRaw stores the compact JSON that pydantic's dump_json would write for
// the value (pyjson.Pydantic: float literals in pydantic's notation, NaN and
// infinities as null), which is what a Python server echoes for a dict
// field. A Value pyjson cannot write (only hand-built ones with a malformed
// number literal) is stored as null.
func decodeRaw(_ *state, v *pyjson.Value, dst reflect.Value) {
	b, err := pyjson.AppendValue(nil, v, pyjson.Pydantic)
	if err != nil {
		b = []byte("null")
	}
	dst.SetBytes(b)
}

// decodeObject is dict[str, Any] kept in order.
func decodeObject(s *state, v *pyjson.Value, dst reflect.Value) {
	if v.Kind != pyjson.Object {
		s.fail(TypeDictType, v)
		return
	}
	dst.Addr().Interface().(*pyjson.Dict).Members = s.keep(v).Members
}

// customDecoder decodes a self-validating type with its adapter; the items'
// locs are prefixed with the field's.
func customDecoder(call CustomFunc) decoder {
	return func(s *state, v *pyjson.Value, dst reflect.Value) {
		items := call(dst.Addr().Interface(), s.keep(v), s.mode)
		for _, it := range items {
			if full(s.items) {
				return
			}
			loc := s.locCopy(len(it.Loc))
			it.Loc = append(loc, it.Loc...)
			s.items = append(s.items, it)
		}
	}
}

// Container decoders.

func pointerDecoder(elemType reflect.Type, elem decoder) decoder {
	return func(s *state, v *pyjson.Value, dst reflect.Value) {
		if v.Kind == pyjson.Null {
			if !dst.IsNil() {
				dst.SetZero()
			}
			return
		}
		if dst.IsNil() {
			dst.Set(reflect.New(elemType))
		}
		elem(s, v, dst.Elem())
	}
}

// sliceDecoder decodes arrays into t with elem; elemB (nil: none) is the
// streaming decoder to try on lazy items (lazystream.go).
func sliceDecoder(t reflect.Type, elem decoder, elemB *bdecoder) decoder {
	empty := reflect.MakeSlice(t, 0, 0) // shared: zero capacity, so never written through
	return func(s *state, v *pyjson.Value, dst reflect.Value) {
		if v.Kind != pyjson.Array {
			s.fail(TypeListType, v)
			return
		}
		n := pyjson.Len(v)
		if n == 0 {
			dst.Set(empty) // [] is an empty list, not None
			return
		}
		// A fresh backing array, grown in place (no boxed slice header).
		dst.SetZero()
		dst.Grow(n)
		dst.SetLen(n)
		if pyjson.IsLazy(v) {
			// One item at a time: a large array never becomes a tree.
			pyjson.EachItem(v, func(i int, it *pyjson.Value) bool {
				if full(s.items) {
					return false
				}
				s.pushIdx(i)
				s.decodeElem(elem, elemB, it, dst.Index(i))
				s.pop()
				return true
			})
			return
		}
		for i := range v.Items {
			if full(s.items) {
				return // the decode failed; its report is full
			}
			s.pushIdx(i)
			s.decodeElem(elem, elemB, &v.Items[i], dst.Index(i))
			s.pop()
		}
	}
}

// mapDecoder decodes objects into t with elem; elemB (nil: none) is the
// streaming decoder to try on lazy values (lazystream.go).
func mapDecoder(t reflect.Type, elem decoder, elemB *bdecoder) decoder {
	keyType, elemType := t.Key(), t.Elem()
	plainKey := keyType == reflect.TypeFor[string]()
	return func(s *state, v *pyjson.Value, dst reflect.Value) {
		if v.Kind != pyjson.Object {
			s.fail(TypeDictType, v)
			return
		}
		v = expand(v)
		m := reflect.MakeMapWithSize(t, len(v.Members))
		ev := reflect.New(elemType).Elem()
		for i := range v.Members {
			if full(s.items) {
				return // the decode failed; its report is full
			}
			mem := &v.Members[i]
			ev.SetZero()
			s.pushKey(mem.Key)
			s.decodeElem(elem, elemB, &mem.Value, ev)
			s.pop()
			kv := reflect.ValueOf(mem.Key)
			if !plainKey {
				kv = kv.Convert(keyType)
			}
			m.SetMapIndex(kv, ev)
		}
		dst.Set(m)
	}
}
