package pyval

import (
	"iter"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/pycompat"
)

// Dict is a Python dict with str keys: keys in insertion order (setting an
// existing key keeps its place; a key deleted and set again goes last),
// values any objects, held by reference as List is. Lookups, Set and
// Delete take constant time (a map index is kept past 8 keys). The zero
// Dict and a nil *Dict are empty dicts; methods that change a dict need a
// non-nil *Dict. See the package doc for the objects it holds and for
// concurrency.
type Dict struct {
	ents    []dictEntry
	index   map[string]int // key -> position in ents; nil while small
	live    int            // entries not deleted
	version uint64         // changed by each insertion and deletion
}

type dictEntry struct {
	key  string
	val  any
	live bool
}

const smallDict = 8

// NewDict returns an empty dict.
func NewDict() *Dict { return &Dict{} }

// NewDictOf returns a dict of the keys and values given in turn, as the
// literal {"role": "user", "content": msg} is NewDictOf("role", "user",
// "content", msg); a key given twice keeps its first place and its last
// value. It panics when a key is not a string or a value is missing: a
// mistake in the code, not in the data.
func NewDictOf(keysAndValues ...any) *Dict {
	if len(keysAndValues)%2 != 0 {
		panic("pyval: NewDictOf needs a value for every key")
	}
	d := &Dict{}
	for i := 0; i < len(keysAndValues); i += 2 {
		k, ok := keysAndValues[i].(string)
		if !ok {
			panic("pyval: NewDictOf keys are strings, not " + TypeName(keysAndValues[i]))
		}
		d.Set(k, keysAndValues[i+1])
	}
	return d
}

// Len returns len(d).
func (d *Dict) Len() int {
	if d == nil {
		return 0
	}
	return d.live
}

func (d *Dict) find(key string) int {
	if d == nil {
		return -1
	}
	if d.index != nil {
		if i, ok := d.index[key]; ok {
			return i
		}
		return -1
	}
	for i := range d.ents {
		if d.ents[i].live && d.ents[i].key == key {
			return i
		}
	}
	return -1
}

// Get returns d's value for key and whether d has key.
func (d *Dict) Get(key string) (any, bool) {
	if i := d.find(key); i >= 0 {
		return d.ents[i].val, true
	}
	return nil, false
}

// GetDefault returns d.get(key, def): the value for key, or def (nil is
// None) when d has no such key.
func (d *Dict) GetDefault(key string, def any) any {
	if v, ok := d.Get(key); ok {
		return v
	}
	return def
}

// Item returns d[key]; a missing key is Python's KeyError(key).
func (d *Dict) Item(key string) (any, error) {
	if v, ok := d.Get(key); ok {
		return v, nil
	}
	return nil, pycompat.KeyError(key)
}

// Has returns key in d.
func (d *Dict) Has(key string) bool { return d.find(key) >= 0 }

// Set does d[key] = v (v normalized: see the package doc): an existing key
// keeps its place, a new one goes last.
func (d *Dict) Set(key string, v any) {
	v = normalize(v)
	if i := d.find(key); i >= 0 {
		d.ents[i].val = v
		return
	}
	d.ents = append(d.ents, dictEntry{key: key, val: v, live: true})
	d.live++
	d.version++
	switch {
	case d.index != nil:
		d.index[key] = len(d.ents) - 1
	case len(d.ents) > smallDict:
		d.reindex()
	}
}

// reindex drops the deleted entries and rebuilds the index.
func (d *Dict) reindex() {
	ents := d.ents[:0]
	for _, e := range d.ents {
		if e.live {
			ents = append(ents, e)
		}
	}
	clear(d.ents[len(ents):])
	d.ents = ents
	d.index = nil
	if len(ents) > smallDict {
		d.index = make(map[string]int, len(ents))
		for i, e := range ents {
			d.index[e.key] = i
		}
	}
}

// Delete does del d[key] and reports whether d had key (Python raises
// KeyError where it returns false; Pop gives the value).
func (d *Dict) Delete(key string) bool {
	i := d.find(key)
	if i < 0 {
		return false
	}
	d.ents[i] = dictEntry{}
	d.live--
	d.version++
	if d.index != nil {
		delete(d.index, key)
	}
	if dead := len(d.ents) - d.live; dead > smallDict && dead > d.live {
		d.reindex()
	} else if d.live == 0 {
		d.ents, d.index = d.ents[:0], nil
	}
	return true
}

// Pop does d.pop(key): removes key and returns its value; ok is false (and
// nothing changes) when d has no such key, where Python's d.pop(key)
// raises KeyError and d.pop(key, default) returns the default.
func (d *Dict) Pop(key string) (v any, ok bool) {
	v, ok = d.Get(key)
	if ok {
		d.Delete(key)
	}
	return v, ok
}

// PopItem does d.popitem(): removes and returns the last key and its value.
// An empty dict is KeyError('popitem(): dictionary is empty').
func (d *Dict) PopItem() (string, any, error) {
	for i := len(d.ents) - 1; d != nil && i >= 0; i-- {
		if e := d.ents[i]; e.live {
			d.Delete(e.key)
			return e.key, e.val, nil
		}
	}
	return "", nil, pycompat.KeyError("popitem(): dictionary is empty")
}

// SetDefault does d.setdefault(key, def): the value for key, or def (set
// for key, normalized) when d has no such key.
func (d *Dict) SetDefault(key string, def any) any {
	if v, ok := d.Get(key); ok {
		return v
	}
	d.Set(key, def)
	v, _ := d.Get(key)
	return v
}

// Update does d.update(other): every key of other set in d, in other's
// order. other is a dict object (a *Dict or a framework object Value);
// anything else is Python's TypeError.
func (d *Dict) Update(other any) error {
	if kindOf(other) != kDict {
		return pycompat.TypeError("'" + TypeName(other) + "' object is not iterable")
	}
	if o, ok := other.(*Dict); ok && o == d {
		return nil
	}
	dictEach(other, func(k string, v any) bool {
		d.Set(k, v)
		return true
	})
	return nil
}

// Keys returns the keys in order, in a new slice.
func (d *Dict) Keys() []string {
	keys := make([]string, 0, d.Len())
	for k := range d.All() {
		keys = append(keys, k)
	}
	return keys
}

// Values returns the values in key order, in a new slice.
func (d *Dict) Values() []any {
	vals := make([]any, 0, d.Len())
	for _, v := range d.All() {
		vals = append(vals, v)
	}
	return vals
}

// All iterates over d's keys and values in order, as d.items(). Setting an
// existing key during the iteration is allowed; adding or deleting a key
// panics, as Python raises RuntimeError("dictionary changed size during
// iteration").
func (d *Dict) All() iter.Seq2[string, any] {
	return func(yield func(string, any) bool) {
		if d == nil {
			return
		}
		version := d.version
		for i := 0; i < len(d.ents); i++ {
			e := d.ents[i]
			if !e.live {
				continue
			}
			if !yield(e.key, e.val) {
				return
			}
			if d.version != version {
				panic("pyval: dictionary changed size during iteration")
			}
		}
	}
}

// Clear does d.clear().
func (d *Dict) Clear() {
	if d != nil {
		*d = Dict{version: d.version + 1}
	}
}

// Copy returns d.copy(): a new dict of the same keys and values (a shallow
// copy).
func (d *Dict) Copy() *Dict {
	c := &Dict{}
	for k, v := range d.All() {
		c.Set(k, v)
	}
	return c
}

// String returns Repr(d).
func (d *Dict) String() string { return Repr(d) }

// MarshalJSON writes d as compact JSON with Python's float forms, its keys
// in order; NaN and infinities are an error, as for encoding/json. In a
// gymkit response, use ToValue instead, so that each door writes its own
// forms.
func (d *Dict) MarshalJSON() ([]byte, error) { return marshal(d) }

// UnmarshalJSON replaces d's keys with a JSON object, read as json.loads
// reads it (a duplicated key keeps its first place and its last value).
func (d *Dict) UnmarshalJSON(data []byte) error {
	v, err := parseKind(data, "Dict", framework.KindObject)
	if err != nil {
		return err
	}
	d.Clear()
	return d.Update(v)
}
