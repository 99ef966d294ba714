package lax

import (
	"hash/maphash"
	"math"
	"reflect"
	"slices"

	"github.com/gymkit/gymkit/internal/model"
	"github.com/gymkit/gymkit/internal/pyjson"
)

// The streaming decoders decode JSON text straight into a Go value with a
// pyjson.Reader, without the generic tree. They only know how to succeed:
// any input a tree decoder would report (a validation error item), and any
// input they do not handle themselves (a duplicate key, a syntax error, a
// limit), makes them stop, and the caller decodes the tree instead, so the
// items and errors are exactly the tree path's (DecodeJSON).

// bdecoder decodes the Reader's next value into the settable dst; false
// means "give up, decode the tree".
type bdecoder func(b *bstate, dst reflect.Value) bool

type bstate struct {
	r  *pyjson.Reader
	st state // scratch for the tree decoders of scalars and subtrees
	// v holds the value handed to a tree decoder (which copies what it
	// keeps): a local Value would escape, one allocation per scalar.
	v pyjson.Value
}

// DecodeJSON decodes the JSON text data into dst, a zero settable value of
// the plan's type, as Decode(ParseLimited(data, lim)) would, and reports
// whether it could: true means dst holds exactly what Decode would have
// produced and Decode would have reported no item. false means it gave up
// (dst may be partially written): the document is invalid, exceeds lim, is
// not of the expected shape or holds a value that fails validation, has a
// duplicate key, or is JSON null; the caller then parses the tree and calls
// Decode on a fresh value, which gives the exact error or items.
//
// Peak memory is the decoded value plus one copy of each string kept, and
// of each subtree kept as a Value (any, json.RawMessage, pyjson.Value,
// pyjson.Dict, Unmarshaler inputs); a pyjson.Extra member's container is
// one copy of its text (Reader.LazyValue).
func (p *Plan) DecodeJSON(data []byte, lim pyjson.Limits, dst reflect.Value, m Mode) bool {
	if dst.Type() != p.typ || !dst.CanSet() {
		panic("lax: DecodeJSON into " + dst.Type().String() + " with a plan for " + p.typ.String())
	}
	r, err := pyjson.NewReader(data, lim)
	if err != nil {
		return false
	}
	defer r.Release()
	if r.Peek() == 'n' {
		return false // null: the caller's "missing body"
	}
	b := &bstate{r: r}
	b.st.mode = m
	return p.bdec(b, dst) && r.End()
}

// ok reports whether the scratch state got no item, and clears it.
func (b *bstate) ok() bool {
	if len(b.st.items) == 0 {
		return true
	}
	b.st.items = b.st.items[:0]
	b.r.Fail()
	return false
}

// scalarB reads a scalar and applies the tree decoder to it; a container is
// always an error for a scalar type.
func scalarB(dec decoder) bdecoder {
	return func(b *bstate, dst reflect.Value) bool {
		var ok bool
		if b.v, ok = b.r.Scalar(); !ok {
			b.r.Fail()
			return false
		}
		dec(&b.st, &b.v, dst)
		return b.ok()
	}
}

// valueB reads any value as a subtree and applies the tree decoder.
func valueB(dec decoder) bdecoder {
	return func(b *bstate, dst reflect.Value) bool {
		var ok bool
		if b.v, ok = b.r.Value(); !ok {
			return false
		}
		dec(&b.st, &b.v, dst)
		return b.ok()
	}
}

// intB is an int decoder with a fast path for plain JSON ints in range.
func intB(bits int, dec decoder) bdecoder {
	lo, hi := int64(math.MinInt64)>>(64-bits), int64(math.MaxInt64)>>(64-bits)
	slow := scalarB(dec)
	return func(b *bstate, dst reflect.Value) bool {
		lit, ok := b.r.Number()
		if !ok {
			if b.r.Failed() {
				return false
			}
			return slow(b, dst)
		}
		if n, ok := smallInt(lit); ok && n >= lo && n <= hi {
			dst.SetInt(n)
			return true
		}
		b.v = pyjson.NumberValue(string(lit))
		dec(&b.st, &b.v, dst)
		return b.ok()
	}
}

// smallInt parses a JSON integer literal of at most 18 digits.
func smallInt(lit []byte) (int64, bool) {
	neg := len(lit) > 0 && lit[0] == '-'
	d := lit
	if neg {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range d {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

func ptrB(elemType reflect.Type, elem bdecoder) bdecoder {
	return func(b *bstate, dst reflect.Value) bool {
		if b.r.Peek() == 'n' {
			v, ok := b.r.Scalar()
			if !ok || v.Kind != pyjson.Null {
				b.r.Fail()
				return false
			}
			if !dst.IsNil() {
				dst.SetZero()
			}
			return true
		}
		if dst.IsNil() {
			dst.Set(reflect.New(elemType))
		}
		return elem(b, dst.Elem())
	}
}

func sliceB(t reflect.Type, elem bdecoder) bdecoder {
	empty := reflect.MakeSlice(t, 0, 0)
	return func(b *bstate, dst reflect.Value) bool {
		r := b.r
		if !r.BeginArray() {
			r.Fail()
			return false
		}
		if !r.NextItem(true) {
			if r.Failed() {
				return false
			}
			dst.Set(empty)
			return true
		}
		dst.SetZero()
		dst.Grow(max(r.CountItems(), 1))
		for n := 0; ; n++ {
			if n == dst.Cap() {
				dst.Grow(n)
			}
			dst.SetLen(n + 1)
			if !elem(b, dst.Index(n)) {
				return false
			}
			if !r.NextItem(false) {
				return !r.Failed()
			}
		}
	}
}

func mapB(t reflect.Type, elem bdecoder) bdecoder {
	keyType, elemType := t.Key(), t.Elem()
	plainKey := keyType == reflect.TypeFor[string]()
	return func(b *bstate, dst reflect.Value) bool {
		r := b.r
		if !r.BeginObject() {
			r.Fail()
			return false
		}
		m := reflect.MakeMap(t)
		ev := reflect.New(elemType).Elem()
		for first := true; ; first = false {
			key, done := r.NextKey(first)
			if r.Failed() {
				return false
			}
			if done {
				break
			}
			kv := reflect.ValueOf(string(key))
			ev.SetZero()
			if !elem(b, ev) {
				return false
			}
			if !plainKey {
				kv = kv.Convert(keyType)
			}
			m.SetMapIndex(kv, ev)
		}
		dst.Set(m)
		return true
	}
}

func (sp *structPlan) lookupBytes(key []byte) int {
	if sp.byName != nil {
		if i, ok := sp.byName[string(key)]; ok {
			return i
		}
		return -1
	}
	for i := range sp.fields {
		if sp.fields[i].name == string(key) {
			return i
		}
	}
	return -1
}

// keySet finds a duplicate among the keys of the extra members collected
// so far: a scan of the first few, then an open-addressing table of their
// positions (4 bytes a slot, at most half full), where a map[string]bool
// cost about 60 bytes a key with its growth (500,000 small extra keys:
// 54 MB of a 6 MB body). The zero keySet is empty.
type keySet struct {
	seed  maphash.Seed
	slots []uint32 // position+1 in the members; 0: empty
}

// keyScan is how many members has scans before it builds the table.
const keyScan = 8

// has reports whether k is the key of one of ms (the members added).
func (s *keySet) has(ms []pyjson.Member, k string) bool {
	if s.slots == nil {
		for i := range ms {
			if ms[i].Key == k {
				return true
			}
		}
		return false
	}
	mask := uint64(len(s.slots) - 1)
	for i := maphash.String(s.seed, k) & mask; ; i = (i + 1) & mask {
		j := s.slots[i]
		if j == 0 {
			return false
		}
		if ms[j-1].Key == k {
			return true
		}
	}
}

// added records the last of ms, just appended (its key not among the
// others').
func (s *keySet) added(ms []pyjson.Member) {
	n := len(ms)
	if n <= keyScan {
		return
	}
	if s.slots == nil || 2*n > len(s.slots) {
		size := 64
		for size < 4*n {
			size *= 2
		}
		if s.slots == nil {
			s.seed = maphash.MakeSeed()
		}
		s.slots = make([]uint32, size)
		for j := range n - 1 {
			s.put(ms, j)
		}
	}
	s.put(ms, n-1)
}

func (s *keySet) put(ms []pyjson.Member, j int) {
	mask := uint64(len(s.slots) - 1)
	i := maphash.String(s.seed, ms[j].Key) & mask
	for s.slots[i] != 0 {
		i = (i + 1) & mask
	}
	s.slots[i] = uint32(j + 1)
}

// bdecode is structPlan.decode from text: fields in input order, a
// duplicate key, an unknown key under extra="forbid", or an absent required
// field give up.
func (sp *structPlan) bdecode(b *bstate, dst reflect.Value) bool {
	r := b.r
	if !r.BeginObject() {
		r.Fail()
		return false
	}
	var buf [2]uint64
	seen := buf[:]
	if len(sp.fields) > 128 {
		seen = make([]uint64, (len(sp.fields)+63)/64)
	}
	var extra []pyjson.Member
	var extraKeys keySet
	for first := true; ; first = false {
		key, done := r.NextKey(first)
		if r.Failed() {
			return false
		}
		if done {
			break
		}
		fi := sp.lookupBytes(key)
		if fi < 0 {
			switch sp.extra {
			case model.ExtraForbid:
				r.Fail()
				return false
			case model.ExtraAllow:
				k := string(key)
				if extraKeys.has(extra, k) {
					r.Fail() // a duplicate key: the tree keeps the last value
					return false
				}
				v, ok := r.LazyValue()
				if !ok {
					return false
				}
				if len(extra) == cap(extra) {
					// Doubled: append grows a large slice by 1.25x,
					// so 500,000 small extra keys allocated about 5x
					// their final slice on the way (2x now).
					extra = slices.Grow(extra, max(len(extra), 4))
				}
				extra = append(extra, pyjson.Member{Key: k, Value: v})
				extraKeys.added(extra)
			default:
				if !r.Skip() {
					return false
				}
			}
			continue
		}
		if seen[fi/64]&(1<<(fi%64)) != 0 {
			r.Fail() // a duplicate key: the tree keeps the last value
			return false
		}
		seen[fi/64] |= 1 << (fi % 64)
		f := &sp.fields[fi]
		if !sp.bfields[fi](b, fieldValue(dst, f.index, f.viaPtr)) {
			return false
		}
	}
	for fi := range sp.fields {
		if seen[fi/64]&(1<<(fi%64)) != 0 {
			continue
		}
		f := &sp.fields[fi]
		switch {
		case f.required:
			r.Fail()
			return false
		case f.hasDefault:
			f.dec(&b.st, &f.def, fieldValue(dst, f.index, f.viaPtr))
			if !b.ok() {
				return false
			}
		}
	}
	if sp.extra == model.ExtraAllow {
		if extra == nil && sp.extraViaPtr {
			return true
		}
		ev := fieldValue(dst, sp.extraIndex, sp.extraViaPtr)
		if ev.Kind() == reflect.Pointer {
			if ev.IsNil() {
				if extra == nil {
					return true
				}
				ev.Set(reflect.New(extraType))
			}
			ev = ev.Elem()
		}
		pyjson.SetExtraMembers(ev.Addr().Interface().(*pyjson.Extra), extra)
	}
	return true
}

// bcompile builds the streaming decoder of t, whose tree decoder c.compile
// has built (so every struct reached is in c.structs).
func (c *compiler) bcompile(t reflect.Type) bdecoder {
	switch special(t) {
	case specialRaw, specialValue, specialObject, specialCustom:
		dec, _ := c.compile(t, "")
		return valueB(dec)
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return intB(t.Bits(), intDecoder(t.Bits()))
	case reflect.String, reflect.Bool, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		dec, _ := c.compile(t, "")
		return scalarB(dec)
	case reflect.Interface:
		return valueB(decodeAny)
	case reflect.Pointer:
		return ptrB(t.Elem(), c.bcompile(t.Elem()))
	case reflect.Slice:
		return sliceB(t, c.bcompile(t.Elem()))
	case reflect.Map:
		return mapB(t, c.bcompile(t.Elem()))
	case reflect.Struct:
		sp := c.structs[t]
		if sp.bfields == nil {
			sp.bfields = make([]bdecoder, len(sp.fields))
			sp.lazyB = make([]bdecoder, len(sp.fields))
			for i := range sp.fields {
				f := &sp.fields[i]
				if f.enum {
					sp.bfields[i] = valueB(f.dec)
				} else {
					sp.bfields[i] = c.bcompile(f.typ)
					if streamWorthy(f.typ) {
						sp.lazyB[i] = sp.bfields[i]
					}
				}
			}
		}
		return sp.bdecode
	}
	// Not reached for a type compile accepted.
	return func(b *bstate, _ reflect.Value) bool { b.r.Fail(); return false }
}
