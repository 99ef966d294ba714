package pyjson

import "iter"

// Extra holds the keys of a JSON object that a struct does not declare, in
// order, keys unique (pydantic's extra="allow"). Embedded (as an anonymous
// field, possibly via a pointer or another embedded struct) in a struct, its
// members are written after the struct's own fields, skipping keys the
// struct already wrote; a non-embedded Extra field is written as an object
// of its members. The zero Extra has no members.
//
// A decoder fills it with the members as received: a container's value is
// kept as its checked JSON text (a lazy Value, see ParseLazy), which costs
// the text's size however many values it holds, and is parsed into a full
// tree only when it is read (Get, All, Members). What is written out from an
// Extra that was not changed is written from that text, so a large extra
// key that nothing reads costs about its size, not a tree (issue 10).
//
// The zero Extra has no members and is "unset": a verify response whose
// Extra is unset receives the request's echo. An Extra made by ExtraOf, Set,
// Delete, Clear or a decoder is set, even with no members (IsSet).
//
// Reads are safe for concurrent use; Set, Delete and Clear are not (guard
// them as any write to a struct field).
type Extra struct {
	members []Member // in order, keys unique; container values may be lazy
	set     bool     // made by ExtraOf, Set, Delete, Clear or a decoder: not the zero Extra
}

// ExtraOf returns an Extra holding the members in order; a key given twice
// keeps its first position and its last value (Set's rule, as Python's dict).
// The Values are used as given (they are not copied).
func ExtraOf(members ...Member) Extra {
	if len(members) == 0 {
		return Extra{set: true}
	}
	ms := make([]Member, 0, len(members))
	at := make(map[string]int, len(members))
	for _, m := range members {
		if i, ok := at[m.Key]; ok {
			ms[i].Value = m.Value
			continue
		}
		at[m.Key] = len(ms)
		ms = append(ms, m)
	}
	return Extra{members: ms, set: true}
}

// IsSet reports whether e was made by ExtraOf, Set, Delete, Clear or a
// decoder (or copied from one that was), as opposed to the zero Extra.
func (e Extra) IsSet() bool { return e.set }

// Len returns the number of members.
func (e Extra) Len() int { return len(e.members) }

// Keys returns the members' keys in order, as a new slice (nil when there
// are none).
func (e Extra) Keys() []string {
	if len(e.members) == 0 {
		return nil
	}
	keys := make([]string, len(e.members))
	for i := range e.members {
		keys[i] = e.members[i].Key
	}
	return keys
}

// Has reports whether key is a member, without parsing its value.
func (e Extra) Has(key string) bool { return e.index(key) >= 0 }

// Get returns the value of key as a full tree and whether key is a member.
// A value kept as text is parsed on each call (keep the result rather than
// calling Get in a loop); the tree shares no memory a later Set changes.
func (e Extra) Get(key string) (Value, bool) {
	if i := e.index(key); i >= 0 {
		return Materialize(e.members[i].Value), true
	}
	return Value{}, false
}

// All yields each key and its value as Get returns it, in order. The
// Extra must not be changed during the iteration.
func (e Extra) All() iter.Seq2[string, Value] {
	return func(yield func(string, Value) bool) {
		for i := range e.members {
			if !yield(e.members[i].Key, Materialize(e.members[i].Value)) {
				return
			}
		}
	}
}

// Members returns the members in order as a new slice, each value a full
// tree as Get returns it (nil when there are none). Changing the slice does
// not change e; use Set.
func (e Extra) Members() []Member {
	if len(e.members) == 0 {
		return nil
	}
	ms := make([]Member, len(e.members))
	for i := range e.members {
		ms[i] = Member{Key: e.members[i].Key, Value: Materialize(e.members[i].Value)}
	}
	return ms
}

// Set sets key's value to v: at its position when key is a member,
// appended last otherwise. It copies the members (O(Len)), so a copy of e
// made before is not changed; build many members at once with ExtraOf.
func (e *Extra) Set(key string, v Value) {
	if i := e.index(key); i >= 0 {
		e.members = append(e.members[:i:i], append([]Member{{Key: key, Value: v}}, e.members[i+1:]...)...)
	} else {
		e.members = append(e.members[:len(e.members):len(e.members)], Member{Key: key, Value: v})
	}
	e.set = true
}

// Delete removes key and reports whether it was a member; the others keep
// their order.
func (e *Extra) Delete(key string) bool {
	e.set = true
	i := e.index(key)
	if i < 0 {
		return false
	}
	ms := make([]Member, 0, len(e.members)-1)
	e.members = append(append(ms, e.members[:i]...), e.members[i+1:]...)
	return true
}

// Clear removes every member and leaves e set: a verify response with a
// cleared Extra answers no extra keys at all.
func (e *Extra) Clear() { e.members, e.set = nil, true }

func (e Extra) index(key string) int {
	for i := range e.members {
		if e.members[i].Key == key {
			return i
		}
	}
	return -1
}

// SetExtraMembers makes ms, keys unique and in order, e's members, as a
// decoder does: ms's container values may be lazy Values over text no one
// changes (a decoder's private copy). The slice is kept, not copied.
func SetExtraMembers(e *Extra, ms []Member) { e.members, e.set = ms, true }

// ExtraMembers returns e's members as kept (lazy values included, the
// Extra's own slice): for gymkit's encoders and the verify echo, never for
// an environment.
func ExtraMembers(e *Extra) []Member { return e.members }
