package pyval

import (
	"iter"
	"slices"
	"sort"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/pycompat"
)

// List is a Python list: an ordered, mutable sequence of objects, held by
// reference (a *List stored in a Dict or another List is that list, so
// changing it is seen through every reference, as in Python). The zero List
// and a nil *List are empty lists; methods that change a list need a
// non-nil *List. See the package doc for the objects it holds and for
// concurrency.
type List struct {
	items []any
}

// NewList returns a list of the items, each normalized (see the package
// doc).
func NewList(items ...any) *List {
	l := &List{items: make([]any, 0, len(items))}
	l.Extend(items...)
	return l
}

// Len returns len(l).
func (l *List) Len() int {
	if l == nil {
		return 0
	}
	return len(l.items)
}

// index turns a Python index (negative from the end) into a position; ok
// is false outside the list.
func (l *List) index(i int) (int, bool) {
	n := l.Len()
	if i < 0 {
		i += n
	}
	return i, i >= 0 && i < n
}

// At returns l[i]; a negative i counts from the end. Outside the list it is
// IndexError("list index out of range").
func (l *List) At(i int) (any, error) {
	p, ok := l.index(i)
	if !ok {
		return nil, pycompat.IndexError("list index out of range")
	}
	return l.items[p], nil
}

// Set does l[i] = v (v normalized); a negative i counts from the end.
// Outside the list it is IndexError("list assignment index out of range").
func (l *List) Set(i int, v any) error {
	p, ok := l.index(i)
	if !ok {
		return pycompat.IndexError("list assignment index out of range")
	}
	l.items[p] = normalize(v)
	return nil
}

// Append does l.append(v) (v normalized).
func (l *List) Append(v any) { l.items = append(l.items, normalize(v)) }

// Extend appends the items in order (each normalized), as
// l.extend(items) for a Go slice of items: l.Extend(other.Items()...)
// extends l with another list (l itself included: Items copies first),
// while l.Extend(other) appends other as one item.
func (l *List) Extend(items ...any) {
	for _, it := range items {
		l.items = append(l.items, normalize(it))
	}
}

// extendSeq appends the items of a list object (a *List or a framework
// array).
func (l *List) extendSeq(seq any) {
	n := seqLen(seq)
	for i := range n {
		l.items = append(l.items, normalize(seqAt(seq, i)))
	}
}

// Insert does l.insert(i, v): v before position i, a negative i counting
// from the end, i clipped to the list (Python never fails here).
func (l *List) Insert(i int, v any) {
	n := len(l.items)
	if i < 0 {
		i += n
		if i < 0 {
			i = 0
		}
	}
	if i > n {
		i = n
	}
	l.items = slices.Insert(l.items, i, normalize(v))
}

// Pop does l.pop(i): removes and returns l[i] (-1 for the last item). An
// empty list is IndexError("pop from empty list"), an index outside it
// IndexError("pop index out of range").
func (l *List) Pop(i int) (any, error) {
	if l.Len() == 0 {
		return nil, pycompat.IndexError("pop from empty list")
	}
	p, ok := l.index(i)
	if !ok {
		return nil, pycompat.IndexError("pop index out of range")
	}
	v := l.items[p]
	l.items = slices.Delete(l.items, p, p+1)
	return v, nil
}

// Remove does l.remove(v): removes the first item equal to v (Equal); none
// is ValueError("list.remove(x): x not in list").
func (l *List) Remove(v any) error {
	i, err := l.Index(v)
	if err != nil {
		return pycompat.ValueError("list.remove(x): x not in list")
	}
	l.items = slices.Delete(l.items, i, i+1)
	return nil
}

// Index returns l.index(v): the position of the first item equal to v
// (Equal); none is ValueError("'b' is not in list"), v's repr.
func (l *List) Index(v any) (int, error) {
	for i := range l.Len() {
		if Equal(l.items[i], v) {
			return i, nil
		}
	}
	return 0, pycompat.ValueError(Repr(v) + " is not in list")
}

// Count returns l.count(v): the items equal to v (Equal).
func (l *List) Count(v any) int {
	n := 0
	for i := range l.Len() {
		if Equal(l.items[i], v) {
			n++
		}
	}
	return n
}

// Contains returns v in l (Equal).
func (l *List) Contains(v any) bool {
	for i := range l.Len() {
		if Equal(l.items[i], v) {
			return true
		}
	}
	return false
}

// Reverse does l.reverse().
func (l *List) Reverse() {
	if l != nil {
		slices.Reverse(l.items)
	}
}

// Clear does l.clear().
func (l *List) Clear() {
	if l != nil {
		clear(l.items)
		l.items = l.items[:0]
	}
}

// Sort does l.sort(reverse=reverse): a stable sort by Python's <, so items
// that compare equal keep their order (with reverse too, as in Python).
// Items that cannot be ordered (an int and a str, None, dicts) are Python's
// TypeError, and l is then left in some order of its items; the two types
// may be named in the other order than CPython's timsort meets them.
func (l *List) Sort(reverse bool) error {
	if l.Len() < 2 {
		return nil
	}
	var err error
	less := func(a, b any) bool {
		if err != nil {
			return false
		}
		lt, e := Less(a, b)
		if e != nil {
			err = e
		}
		return lt
	}
	if reverse {
		// Python reverses, sorts stably, reverses back: equal items keep
		// their order.
		slices.Reverse(l.items)
	}
	sort.SliceStable(l.items, func(i, j int) bool { return less(l.items[i], l.items[j]) })
	if reverse {
		slices.Reverse(l.items)
	}
	return err
}

// Slice returns l[start:stop], a new list (the items themselves shared, as
// Python's shallow slice); start and stop as SliceBounds takes them (ints or
// nil).
func (l *List) Slice(start, stop any) (*List, error) {
	lo, hi, err := SliceBounds(l.Len(), start, stop)
	if err != nil {
		return nil, err
	}
	if l == nil {
		return &List{}, nil
	}
	return &List{items: slices.Clone(l.items[lo:hi])}, nil
}

// Items returns the items in order, in a new slice.
func (l *List) Items() []any {
	if l == nil {
		return nil
	}
	return slices.Clone(l.items)
}

// All iterates over the positions and items of l, in order; the list must
// not be changed during the iteration (its length is read once).
func (l *List) All() iter.Seq2[int, any] {
	return func(yield func(int, any) bool) {
		if l == nil {
			return
		}
		items := l.items
		for i, v := range items {
			if !yield(i, v) {
				return
			}
		}
	}
}

// Copy returns l.copy(): a new list of the same items (a shallow copy).
func (l *List) Copy() *List {
	if l == nil {
		return &List{}
	}
	return &List{items: slices.Clone(l.items)}
}

// String returns Repr(l).
func (l *List) String() string { return Repr(l) }

// MarshalJSON writes l as compact JSON with Python's float forms (1.0,
// 1e-05); NaN and infinities are an error, as for encoding/json. In a
// gymkit response, use ToValue instead, so that each door writes its own
// forms.
func (l *List) MarshalJSON() ([]byte, error) { return marshal(l) }

// UnmarshalJSON replaces l's items with a JSON array, read as json.loads
// reads it (NaN and Infinity literals, big ints kept exact).
func (l *List) UnmarshalJSON(data []byte) error {
	v, err := parseKind(data, "List", framework.KindArray)
	if err != nil {
		return err
	}
	l.Clear()
	l.extendSeq(v)
	return nil
}
