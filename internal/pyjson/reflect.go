package pyjson

import (
	"cmp"
	"encoding"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"sync"

	"github.com/gymkit/gymkit/internal/model"
)

// UnsupportedTypeError is returned by Marshal and Append for a value of a
// type that has no JSON form (channel, function, complex number, unsafe
// pointer, or a map whose key type is not a string, integer or
// encoding.TextMarshaler).
type UnsupportedTypeError struct {
	Type reflect.Type
}

// Error returns "pyjson: unsupported type: " and the type.
func (e *UnsupportedTypeError) Error() string {
	return "pyjson: unsupported type: " + e.Type.String()
}

// MarshalerError wraps an error returned by a MarshalJSON or MarshalText
// method.
type MarshalerError struct {
	Type   reflect.Type
	Err    error
	Method string // "MarshalJSON" or "MarshalText"
}

// Error names the method, the type and the method's error.
func (e *MarshalerError) Error() string {
	return "pyjson: error calling " + e.Method + " for type " + e.Type.String() + ": " + e.Err.Error()
}

// Unwrap returns the method's error.
func (e *MarshalerError) Unwrap() error { return e.Err }

var (
	valueType         = reflect.TypeFor[Value]()
	extraType         = reflect.TypeFor[Extra]()
	dictType          = reflect.TypeFor[Dict]()
	rawMessageType    = reflect.TypeFor[json.RawMessage]()
	numberType        = reflect.TypeFor[json.Number]()
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// any writes a dynamically typed value; common types skip reflection.
func (e *encodeState) any(x any) error {
	switch x := x.(type) {
	case nil:
		e.buf = append(e.buf, "null"...)
		return nil
	case Value:
		return e.value(&x)
	case *Value:
		if x == nil {
			e.buf = append(e.buf, "null"...)
			return nil
		}
		return e.value(x)
	case string:
		e.buf = appendString(e.buf, x, e.opts.EnsureASCII)
		return nil
	case bool:
		if x {
			e.buf = append(e.buf, "true"...)
		} else {
			e.buf = append(e.buf, "false"...)
		}
		return nil
	case float64:
		return e.float(x, 64)
	case int:
		e.buf = strconv.AppendInt(e.buf, int64(x), 10)
		return nil
	case int64:
		e.buf = strconv.AppendInt(e.buf, x, 10)
		return nil
	case map[string]any:
		return e.mapStringAny(x)
	case []any:
		if err := e.open('['); err != nil {
			return err
		}
		for i, item := range x {
			e.sep(i == 0)
			if err := e.any(item); err != nil {
				return err
			}
		}
		e.close(']', len(x) == 0)
		return nil
	case json.RawMessage:
		return e.raw(x)
	case json.Number:
		return e.number(string(x))
	}
	v := reflect.ValueOf(x)
	return typeEncoder(v.Type())(e, v)
}

// raw writes a json.RawMessage: parsed as Python's json.loads would and
// re-written in the encoder's options, so that the output is valid JSON in
// the chosen style whatever the text held (NaN literals, other float forms,
// whitespace, a BOM). An empty RawMessage is null; text that does not parse
// is an error.
func (e *encodeState) raw(b []byte) error {
	if len(b) == 0 {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	v, err := Parse(b)
	if err != nil {
		return fmt.Errorf("pyjson: json.RawMessage is not valid JSON: %w", err)
	}
	return e.value(&v)
}

func (e *encodeState) mapStringAny(m map[string]any) error {
	if err := e.open('{'); err != nil {
		return err
	}
	var arr [16]string
	keys := arr[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, k := range keys {
		e.sep(i == 0)
		e.key(k)
		if err := e.any(m[k]); err != nil {
			return err
		}
	}
	e.close('}', len(keys) == 0)
	return nil
}

// encoderFunc writes v, whose type the function was built for.
type encoderFunc func(e *encodeState, v reflect.Value) error

var encoderCache sync.Map // reflect.Type -> encoderFunc

// typeEncoder returns the cached encoder for t, building it once. A type
// that refers to itself gets, while its encoder is being built, a stand-in
// that waits for the real one.
func typeEncoder(t reflect.Type) encoderFunc {
	if f, ok := encoderCache.Load(t); ok {
		return f.(encoderFunc)
	}
	var (
		wg   sync.WaitGroup
		real encoderFunc
	)
	wg.Add(1)
	standIn := encoderFunc(func(e *encodeState, v reflect.Value) error {
		wg.Wait()
		return real(e, v)
	})
	if f, loaded := encoderCache.LoadOrStore(t, standIn); loaded {
		return f.(encoderFunc)
	}
	real = newTypeEncoder(t)
	wg.Done()
	encoderCache.Store(t, real)
	return real
}

func newTypeEncoder(t reflect.Type) encoderFunc {
	switch t {
	case valueType:
		return valueEncoder
	case extraType, dictType:
		return membersEncoder
	case rawMessageType:
		return func(e *encodeState, v reflect.Value) error { return e.raw(v.Bytes()) }
	case numberType:
		return func(e *encodeState, v reflect.Value) error { return e.number(v.String()) }
	}
	if t.Kind() != reflect.Pointer && !t.Implements(marshalerType) && reflect.PointerTo(t).Implements(marshalerType) {
		return addrEncoder(addrMarshalerEncoder)
	}
	if t.Implements(marshalerType) {
		return marshalerEncoder
	}
	if t.Kind() != reflect.Pointer && !t.Implements(textMarshalerType) && reflect.PointerTo(t).Implements(textMarshalerType) {
		return addrEncoder(addrTextMarshalerEncoder)
	}
	if t.Implements(textMarshalerType) {
		return textMarshalerEncoder
	}
	switch t.Kind() {
	case reflect.Bool:
		return boolEncoder
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return intEncoder
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return uintEncoder
	case reflect.Float32:
		return float32Encoder
	case reflect.Float64:
		return float64Encoder
	case reflect.String:
		return stringEncoder
	case reflect.Interface:
		return interfaceEncoder
	case reflect.Struct:
		return newStructEncoder(t)
	case reflect.Map:
		return newMapEncoder(t)
	case reflect.Slice:
		return newSliceEncoder(t)
	case reflect.Array:
		return newArrayEncoder(t)
	case reflect.Pointer:
		return newPtrEncoder(t)
	}
	return func(*encodeState, reflect.Value) error { return &UnsupportedTypeError{Type: t} }
}

// addrEncoder calls enc, which needs an addressable value, on v or, when v
// is not addressable, on a copy of it.
func addrEncoder(enc encoderFunc) encoderFunc {
	return func(e *encodeState, v reflect.Value) error {
		if !v.CanAddr() {
			c := reflect.New(v.Type()).Elem()
			c.Set(v)
			v = c
		}
		return enc(e, v)
	}
}

func valueEncoder(e *encodeState, v reflect.Value) error {
	if v.CanAddr() {
		return e.value(v.Addr().Interface().(*Value))
	}
	// Not addressable (v.Interface() would copy it to the heap): the
	// elements of Items and Members are, being slice elements.
	switch k := Kind(v.Field(0).Uint()); k {
	case Array:
		items := v.Field(3)
		if err := e.open('['); err != nil {
			return err
		}
		n := items.Len()
		for i := 0; i < n; i++ {
			e.sep(i == 0)
			if err := e.value(items.Index(i).Addr().Interface().(*Value)); err != nil {
				return err
			}
		}
		e.close(']', n == 0)
		return nil
	case Object:
		if err := e.open('{'); err != nil {
			return err
		}
		first, err := e.members(v.Field(4), true, nil)
		if err != nil {
			return err
		}
		e.close('}', first)
		return nil
	default:
		x := Value{Kind: k, Bool: v.Field(1).Bool(), Str: v.Field(2).String()}
		return e.value(&x)
	}
}

// membersEncoder writes an Extra or a Dict as an object of its members.
func membersEncoder(e *encodeState, v reflect.Value) error {
	if err := e.open('{'); err != nil {
		return err
	}
	first, err := e.members(memberSlice(v), true, nil)
	if err != nil {
		return err
	}
	e.close('}', first)
	return nil
}

// memberSlice returns the []Member of v, a Dict (its Members) or an Extra
// (its Kept.members, read-only to reflect).
func memberSlice(v reflect.Value) reflect.Value {
	if v.Type() == extraType {
		return v.Field(0).Field(0)
	}
	return v.Field(0)
}

// members writes the elements of ms, a reflect.Value of a []Member, as
// object members (first tells whether one was written before), skipping the
// keys for which skip returns true. It reports whether it is still first.
func (e *encodeState) members(ms reflect.Value, first bool, skip func(string) bool) (bool, error) {
	for i, n := 0, ms.Len(); i < n; i++ {
		// Slice elements are addressable, also behind Extra's unexported
		// field (read-only to reflect, so no Interface()).
		m := (*Member)(ms.Index(i).Addr().UnsafePointer())
		if skip != nil && skip(m.Key) {
			continue
		}
		e.sep(first)
		first = false
		e.key(m.Key)
		if err := e.value(&m.Value); err != nil {
			return first, err
		}
	}
	return first, nil
}

func (e *encodeState) marshalJSON(m json.Marshaler, t reflect.Type) error {
	b, err := m.MarshalJSON()
	if err != nil {
		return &MarshalerError{Type: t, Err: err, Method: "MarshalJSON"}
	}
	if err := e.raw(b); err != nil {
		return &MarshalerError{Type: t, Err: err, Method: "MarshalJSON"}
	}
	return nil
}

func marshalerEncoder(e *encodeState, v reflect.Value) error {
	if v.Kind() == reflect.Pointer && v.IsNil() {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	return e.marshalJSON(v.Interface().(json.Marshaler), v.Type())
}

func addrMarshalerEncoder(e *encodeState, v reflect.Value) error {
	return e.marshalJSON(v.Addr().Interface().(json.Marshaler), v.Type())
}

func (e *encodeState) marshalText(m encoding.TextMarshaler, t reflect.Type) error {
	b, err := m.MarshalText()
	if err != nil {
		return &MarshalerError{Type: t, Err: err, Method: "MarshalText"}
	}
	e.buf = appendString(e.buf, string(b), e.opts.EnsureASCII)
	return nil
}

func textMarshalerEncoder(e *encodeState, v reflect.Value) error {
	if v.Kind() == reflect.Pointer && v.IsNil() {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	return e.marshalText(v.Interface().(encoding.TextMarshaler), v.Type())
}

func addrTextMarshalerEncoder(e *encodeState, v reflect.Value) error {
	return e.marshalText(v.Addr().Interface().(encoding.TextMarshaler), v.Type())
}

func boolEncoder(e *encodeState, v reflect.Value) error {
	if v.Bool() {
		e.buf = append(e.buf, "true"...)
	} else {
		e.buf = append(e.buf, "false"...)
	}
	return nil
}

func intEncoder(e *encodeState, v reflect.Value) error {
	e.buf = strconv.AppendInt(e.buf, v.Int(), 10)
	return nil
}

func uintEncoder(e *encodeState, v reflect.Value) error {
	e.buf = strconv.AppendUint(e.buf, v.Uint(), 10)
	return nil
}

func float32Encoder(e *encodeState, v reflect.Value) error { return e.float(v.Float(), 32) }

func float64Encoder(e *encodeState, v reflect.Value) error { return e.float(v.Float(), 64) }

func stringEncoder(e *encodeState, v reflect.Value) error {
	e.buf = appendString(e.buf, v.String(), e.opts.EnsureASCII)
	return nil
}

func interfaceEncoder(e *encodeState, v reflect.Value) error {
	if v.IsNil() {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	return e.any(v.Interface())
}

func newPtrEncoder(t reflect.Type) encoderFunc {
	var elem encoderFunc
	var once sync.Once
	return func(e *encodeState, v reflect.Value) error {
		if v.IsNil() {
			e.buf = append(e.buf, "null"...)
			return nil
		}
		once.Do(func() { elem = typeEncoder(t.Elem()) })
		if e.depth++; e.depth > MaxEncodeDepth {
			return ErrEncodeTooDeep
		}
		err := elem(e, v.Elem())
		e.depth--
		return err
	}
}

func newSliceEncoder(t reflect.Type) encoderFunc {
	et := t.Elem()
	if et.Kind() == reflect.Uint8 {
		p := reflect.PointerTo(et)
		if !et.Implements(marshalerType) && !p.Implements(marshalerType) &&
			!et.Implements(textMarshalerType) && !p.Implements(textMarshalerType) {
			return bytesEncoder
		}
	}
	// A nil slice is written as [] (see Append).
	return newArrayEncoder(t)
}

func bytesEncoder(e *encodeState, v reflect.Value) error {
	b := v.Bytes()
	e.buf = append(e.buf, '"')
	e.buf = base64.StdEncoding.AppendEncode(e.buf, b)
	e.buf = append(e.buf, '"')
	return nil
}

func newArrayEncoder(t reflect.Type) encoderFunc {
	var elem encoderFunc
	var once sync.Once
	return func(e *encodeState, v reflect.Value) error {
		once.Do(func() { elem = typeEncoder(t.Elem()) })
		if err := e.open('['); err != nil {
			return err
		}
		n := v.Len()
		for i := 0; i < n; i++ {
			e.sep(i == 0)
			if err := elem(e, v.Index(i)); err != nil {
				return err
			}
		}
		e.close(']', n == 0)
		return nil
	}
}

// Maps.

type mapKeyFunc func(k reflect.Value) (string, error)

func newMapEncoder(t reflect.Type) encoderFunc {
	kt := t.Key()
	var keyOf mapKeyFunc
	switch {
	case kt.Kind() == reflect.String:
		keyOf = func(k reflect.Value) (string, error) { return k.String(), nil }
	case kt.Implements(textMarshalerType):
		keyOf = func(k reflect.Value) (string, error) {
			if k.Kind() == reflect.Pointer && k.IsNil() {
				return "", nil
			}
			b, err := k.Interface().(encoding.TextMarshaler).MarshalText()
			if err != nil {
				return "", &MarshalerError{Type: k.Type(), Err: err, Method: "MarshalText"}
			}
			return string(b), nil
		}
	default:
		switch kt.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			keyOf = func(k reflect.Value) (string, error) { return strconv.FormatInt(k.Int(), 10), nil }
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			keyOf = func(k reflect.Value) (string, error) { return strconv.FormatUint(k.Uint(), 10), nil }
		default:
			return func(*encodeState, reflect.Value) error { return &UnsupportedTypeError{Type: t} }
		}
	}
	var elem encoderFunc
	var once sync.Once
	sliceOfElem := reflect.SliceOf(t.Elem())
	return func(e *encodeState, v reflect.Value) error {
		once.Do(func() { elem = typeEncoder(t.Elem()) })
		if err := e.open('{'); err != nil {
			return err
		}
		n := v.Len()
		if n == 0 {
			e.close('}', true)
			return nil
		}
		type entry struct {
			key string
			i   int
		}
		entries := make([]entry, 0, n)
		vals := reflect.MakeSlice(sliceOfElem, n, n) // addressable copies
		kv := reflect.New(kt).Elem()                 // reused: it.Key() would allocate
		it := v.MapRange()
		for i := 0; it.Next(); i++ {
			kv.SetIterKey(it)
			k, err := keyOf(kv)
			if err != nil {
				return err
			}
			vals.Index(i).SetIterValue(it)
			entries = append(entries, entry{k, i})
		}
		slices.SortFunc(entries, func(a, b entry) int { return cmp.Compare(a.key, b.key) })
		for j, en := range entries {
			e.sep(j == 0)
			e.key(en.key)
			if err := elem(e, vals.Index(en.i)); err != nil {
				return err
			}
		}
		e.close('}', false)
		return nil
	}
}

// Structs.

type field struct {
	name      string
	index     []int
	typ       reflect.Type
	tagged    bool
	omitEmpty bool
	omitZero  bool
	keyRaw    []byte // ,"name": with the name raw UTF-8
	keyASCII  []byte // "name" with ensure_ascii escapes
	enc       encoderFunc
	isZero    func(reflect.Value) bool
}

type structEncoder struct {
	fields []field
	extra  []int          // index path of the embedded Extra, or nil
	byName map[string]int // field name -> position, when extra != nil
}

func newStructEncoder(t reflect.Type) encoderFunc {
	se := &structEncoder{}
	se.fields, se.extra = typeFields(t)
	if se.extra != nil {
		se.byName = make(map[string]int, len(se.fields))
		for i := range se.fields {
			se.byName[se.fields[i].name] = i
		}
	}
	var once sync.Once
	return func(e *encodeState, v reflect.Value) error {
		once.Do(func() {
			for i := range se.fields {
				se.fields[i].enc = typeEncoder(se.fields[i].typ)
			}
		})
		return se.encode(e, v)
	}
}

// fieldByIndex follows index from the struct v, through embedded pointers;
// ok is false when one of them is nil.
func fieldByIndex(v reflect.Value, index []int) (reflect.Value, bool) {
	for k, i := range index {
		if k > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}, false
			}
			v = v.Elem()
		}
		v = v.Field(i)
	}
	return v, true
}

func (se *structEncoder) encode(e *encodeState, v reflect.Value) error {
	if err := e.open('{'); err != nil {
		return err
	}
	var smallWritten uint64
	var written []bool
	if se.extra != nil && len(se.fields) > 64 {
		written = make([]bool, len(se.fields))
	}
	first := true
	compact := !e.opts.EnsureASCII && !e.opts.SpacedSeparators && e.opts.Indent <= 0
	for i := range se.fields {
		f := &se.fields[i]
		var fv reflect.Value
		if len(f.index) == 1 {
			fv = v.Field(f.index[0])
		} else {
			var ok bool
			if fv, ok = fieldByIndex(v, f.index); !ok {
				continue
			}
		}
		if f.omitEmpty && isEmptyValue(fv) {
			continue
		}
		if f.omitZero && f.isZero(fv) {
			continue
		}
		if compact {
			// The common layout in one append: ,"name":
			if first {
				e.buf = append(e.buf, f.keyRaw[1:]...)
			} else {
				e.buf = append(e.buf, f.keyRaw...)
			}
		} else {
			e.sep(first)
			if e.opts.EnsureASCII {
				e.buf = append(e.buf, f.keyASCII...)
			} else {
				e.buf = append(e.buf, f.keyRaw[1:len(f.keyRaw)-1]...)
			}
			e.colon()
		}
		first = false
		if err := f.enc(e, fv); err != nil {
			return err
		}
		if se.extra != nil {
			if written != nil {
				written[i] = true
			} else {
				smallWritten |= 1 << uint(i)
			}
		}
	}
	if se.extra != nil {
		if ev, ok := fieldByIndex(v, se.extra); ok && !(ev.Kind() == reflect.Pointer && ev.IsNil()) {
			if ev.Kind() == reflect.Pointer {
				ev = ev.Elem()
			}
			skip := func(key string) bool {
				i, ok := se.byName[key]
				if !ok {
					return false
				}
				if written != nil {
					return written[i]
				}
				return smallWritten&(1<<uint(i)) != 0
			}
			var err error
			if first, err = e.members(memberSlice(ev), first, skip); err != nil {
				return err
			}
		}
	}
	e.close('}', first)
	return nil
}

func isEmptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	case reflect.Struct:
		switch v.Type() {
		case valueType:
			return Kind(v.Field(0).Uint()) == Null
		case dictType, extraType:
			return memberSlice(v).Len() == 0
		}
	}
	return false
}

func init() {
	model.RegisterMarkers(extraType, nil)
	model.RegisterOpaque(valueType, dictType)
}

// typeFields lists the fields the encoder writes for the struct type t, in
// order, from the shared model (package model: encoding/json's rules for
// names, embedding and dominance), and the index path of the embedded Extra
// (the shallowest), if any.
func typeFields(t reflect.Type) ([]field, []int) {
	m := model.Of(t)
	fields := make([]field, len(m.Fields))
	for i, mf := range m.Fields {
		f := field{
			name:      mf.Name,
			index:     mf.Index,
			typ:       mf.Type,
			tagged:    mf.Tagged,
			omitEmpty: mf.OmitEmpty,
			omitZero:  mf.OmitZero,
		}
		if f.omitZero {
			f.isZero = zeroFunc(mf.Type)
		}
		f.keyRaw = append(appendString([]byte{','}, f.name, false), ':')
		f.keyASCII = appendString(nil, f.name, true)
		fields[i] = f
	}
	return fields, m.ExtraIndex
}

// zeroFunc is the omitzero test for t: its IsZero() bool method if it has
// one, else reflect's zero check.
func zeroFunc(t reflect.Type) func(reflect.Value) bool {
	type isZeroer interface{ IsZero() bool }
	iz := reflect.TypeFor[isZeroer]()
	switch {
	case t.Kind() == reflect.Pointer && t.Implements(iz):
		return func(v reflect.Value) bool { return v.IsNil() || v.Interface().(isZeroer).IsZero() }
	case t.Implements(iz):
		return func(v reflect.Value) bool { return v.Interface().(isZeroer).IsZero() }
	case reflect.PointerTo(t).Implements(iz):
		return func(v reflect.Value) bool {
			if v.CanAddr() {
				return v.Addr().Interface().(isZeroer).IsZero()
			}
			return v.IsZero()
		}
	}
	return func(v reflect.Value) bool { return v.IsZero() }
}
