package aggregate

import "github.com/gymkit/gymkit/internal/pyjson"

// omapIndexAt is the size from which an omap's lookups build a key index.
const omapIndexAt = 16

// omap is an insertion-ordered JSON object under construction with Python
// dict semantics: setting an existing key replaces its value in place.
type omap struct {
	members []pyjson.Member
	index   map[string]int
}

func newOmap(capacity int) *omap { return &omap{members: make([]pyjson.Member, 0, capacity)} }

func (o *omap) find(key string) int {
	if o.index == nil && len(o.members) > omapIndexAt {
		o.index = make(map[string]int, 2*len(o.members))
		for i, m := range o.members {
			o.index[m.Key] = i
		}
	}
	if o.index != nil {
		if i, ok := o.index[key]; ok {
			return i
		}
		return -1
	}
	for i := range o.members {
		if o.members[i].Key == key {
			return i
		}
	}
	return -1
}

// append adds a key the caller knows is new.
func (o *omap) append(key string, v pyjson.Value) {
	o.members = append(o.members, pyjson.Member{Key: key, Value: v})
	if o.index != nil {
		o.index[key] = len(o.members) - 1
	}
}

// set replaces key's value in place, or appends it.
func (o *omap) set(key string, v pyjson.Value) {
	if i := o.find(key); i >= 0 {
		o.members[i].Value = v
		return
	}
	o.append(key, v)
}

func (o *omap) get(key string) (pyjson.Value, bool) {
	if i := o.find(key); i >= 0 {
		return o.members[i].Value, true
	}
	return pyjson.Value{}, false
}

func (o *omap) value() pyjson.Value { return pyjson.ObjectValue(o.members...) }
