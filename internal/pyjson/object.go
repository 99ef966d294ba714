package pyjson

// Dict is an ordered JSON object (Python dict): a field of this type accepts a
// JSON object (a null goes to a nil *Dict) and keeps its keys in input order,
// and it is written back in that order. The framework exports it as Object.
type Dict struct {
	Members []Member
}

// Get returns the value for key and whether it exists. A nil *Dict has no keys.
func (d *Dict) Get(key string) (Value, bool) {
	if d == nil {
		return Value{}, false
	}
	for i := range d.Members {
		if d.Members[i].Key == key {
			return d.Members[i].Value, true
		}
	}
	return Value{}, false
}

// Value returns d as an object Value.
func (d Dict) Value() Value { return Value{Kind: Object, Members: d.Members} }
