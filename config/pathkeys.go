package config

// PathKey is one key of a server block that the server's struct reads as a [Path].
type PathKey struct {
	// Key is the full dotted key: "<instance>.resources_servers.<type>.data_dir", with
	// "a.b" for a nested struct, "m.key" for a map entry and "list[0]" for a list item.
	Key string
	// Value is the value as the configuration gives it, interpolations resolved and
	// before [Instance.Decode] resolves a relative path: relative or absolute, never "".
	Value string
}

// PathKeys decodes the instance into dst exactly as [Instance.Decode] does (dst is
// written, relative paths in it resolved) and returns the keys whose field is a [Path]
// and whose value is not "", in the order Decode visits them (struct fields in
// declaration order, list items in order, map entries in no fixed order). It is how a
// caller learns which configured values are paths without walking the struct itself:
// gymkit check --nemo uses it to find relative paths that will not resolve under the
// server folder.
//
// The error is Decode's; on error no key is returned (Decode resolves no path then).
// It is safe for concurrent use on the same Instance (each call has its own list).
func (inst Instance) PathKeys(dst any) ([]PathKey, error) {
	var keys []PathKey
	inst.seePath = func(key, value string) { keys = append(keys, PathKey{Key: key, Value: value}) }
	if err := inst.Decode(dst); err != nil {
		return nil, err
	}
	return keys, nil
}
