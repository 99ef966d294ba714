package pyjson

import (
	"encoding/json"
	"iter"
)

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
// Extra that was not changed is written from that text, so a large extra key
// that nothing reads costs about its size, not a tree (docs/security.md,
// "Exhaust memory").
//
// The zero Extra has no members and is "unset": a verify response whose
// Extra is unset receives the request's echo. An Extra made by ExtraOf, Set,
// Delete, Clear or a decoder is set, even with no members (IsSet).
//
// Reads are safe for concurrent use; Set, Delete and Clear are not (guard
// them as any write to a struct field).
type Extra struct {
	// Kept holds the members. It is exported for encoding/json only, so
	// that a struct embedding Extra round-trips through it (session state):
	// encoding/json writes it as the key "extra", an object of the members
	// in order (pydantic's forms, as Value.MarshalJSON), omitted for the
	// zero Extra. gymkit's own encoders never write that key: they write
	// the members in the enclosing object. Use the methods, not Kept.
	Kept extraKept `json:"extra,omitzero"`
}

// extraKept is Extra's state, behind an exported field for encoding/json.
type extraKept struct {
	members []Member // in order, keys unique; container values may be lazy
	set     bool     // made by ExtraOf, Set, Delete, Clear or a decoder: not the zero Extra
}

// MarshalJSON writes the members as an object (encoding/json only).
func (k extraKept) MarshalJSON() ([]byte, error) {
	return Marshal(Value{Kind: Object, Members: k.members}, Pydantic)
}

// UnmarshalJSON reads an object written by MarshalJSON (or null): its
// members become the Extra's, kept as they are decoded (containers as
// text), and the Extra is set.
func (k *extraKept) UnmarshalJSON(b []byte) error {
	v, err := ParseLazy(b, Limits{})
	if err != nil {
		return err
	}
	switch v.Kind {
	case Null:
		*k = extraKept{}
	case Object:
		*k = extraKept{members: v.Members, set: true}
	default:
		return &json.UnmarshalTypeError{Value: v.Kind.String(), Type: extraType}
	}
	return nil
}

// IsZero reports whether the Extra is the zero Extra (omitzero).
func (k extraKept) IsZero() bool { return !k.set && len(k.members) == 0 }

// ExtraOf returns an Extra holding the members in order; a key given twice
// keeps its first position and its last value (Set's rule, as Python's dict).
// The Values are used as given (they are not copied).
func ExtraOf(members ...Member) Extra {
	if len(members) == 0 {
		return Extra{Kept: extraKept{set: true}}
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
	return Extra{Kept: extraKept{members: ms, set: true}}
}

// IsSet reports whether e was made by ExtraOf, Set, Delete, Clear or a
// decoder (or copied from one that was), as opposed to the zero Extra.
func (e Extra) IsSet() bool { return e.Kept.set }

// Len returns the number of members.
func (e Extra) Len() int { return len(e.Kept.members) }

// Keys returns the members' keys in order, as a new slice (nil when there
// are none).
func (e Extra) Keys() []string {
	if len(e.Kept.members) == 0 {
		return nil
	}
	keys := make([]string, len(e.Kept.members))
	for i := range e.Kept.members {
		keys[i] = e.Kept.members[i].Key
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
		return Materialize(e.Kept.members[i].Value), true
	}
	return Value{}, false
}

// All yields each key and its value as Get returns it, in order. The
// Extra must not be changed during the iteration.
func (e Extra) All() iter.Seq2[string, Value] {
	return func(yield func(string, Value) bool) {
		for i := range e.Kept.members {
			if !yield(e.Kept.members[i].Key, Materialize(e.Kept.members[i].Value)) {
				return
			}
		}
	}
}

// Members returns the members in order as a new slice, each value a full
// tree as Get returns it (nil when there are none). Changing the slice does
// not change e; use Set.
func (e Extra) Members() []Member {
	if len(e.Kept.members) == 0 {
		return nil
	}
	ms := make([]Member, len(e.Kept.members))
	for i := range e.Kept.members {
		ms[i] = Member{Key: e.Kept.members[i].Key, Value: Materialize(e.Kept.members[i].Value)}
	}
	return ms
}

// Set sets key's value to v: at its position when key is a member,
// appended last otherwise. It copies the members (O(Len)), so a copy of e
// made before is not changed; build many members at once with ExtraOf.
func (e *Extra) Set(key string, v Value) {
	if i := e.index(key); i >= 0 {
		e.Kept.members = append(e.Kept.members[:i:i], append([]Member{{Key: key, Value: v}}, e.Kept.members[i+1:]...)...)
	} else {
		e.Kept.members = append(e.Kept.members[:len(e.Kept.members):len(e.Kept.members)], Member{Key: key, Value: v})
	}
	e.Kept.set = true
}

// Delete removes key and reports whether it was a member; the others keep
// their order.
func (e *Extra) Delete(key string) bool {
	e.Kept.set = true
	i := e.index(key)
	if i < 0 {
		return false
	}
	ms := make([]Member, 0, len(e.Kept.members)-1)
	e.Kept.members = append(append(ms, e.Kept.members[:i]...), e.Kept.members[i+1:]...)
	return true
}

// Clear removes every member and leaves e set: a verify response with a
// cleared Extra answers no extra keys at all.
func (e *Extra) Clear() { e.Kept.members, e.Kept.set = nil, true }

func (e Extra) index(key string) int {
	for i := range e.Kept.members {
		if e.Kept.members[i].Key == key {
			return i
		}
	}
	return -1
}

// SetExtraMembers makes ms, keys unique and in order, e's members, as a
// decoder does: ms's container values may be lazy Values over text no one
// changes (a decoder's private copy). The slice is kept, not copied.
func SetExtraMembers(e *Extra, ms []Member) { e.Kept.members, e.Kept.set = ms, true }

// ExtraMembers returns e's members as kept (lazy values included, the
// Extra's own slice): for gymkit's encoders and the verify echo, never for
// an environment.
func ExtraMembers(e *Extra) []Member { return e.Kept.members }
