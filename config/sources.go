package config

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// keyPath is a path into the merged tree: string segments are mapping keys, int segments list
// indices. Its String form ("a.b[0].c") is the Key of a Problem and the key of the caches.
type keyPath []any

func (p keyPath) String() string {
	var b strings.Builder
	for i, seg := range p {
		switch s := seg.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", s)
		default:
			if i > 0 {
				b.WriteByte('.')
			}
			fmt.Fprint(&b, s)
		}
	}
	return b.String()
}

// with returns a new path with seg appended; p is not modified.
func (p keyPath) with(seg any) keyPath {
	q := make(keyPath, len(p), len(p)+1)
	copy(q, p)
	return append(q, seg)
}

// joinKey appends a display segment to a display path ("" + "a" = "a", "a" + "b" = "a.b").
func joinKey(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

// parentKey strips the last segment of a display path ("a.b[0]" -> "a.b", "a.b" -> "a", "a" -> "").
func parentKey(key string) string {
	i := strings.LastIndexAny(key, ".[")
	if i < 0 {
		return ""
	}
	return key[:i]
}

// parseKey splits a dotted key with optional list indices ("a.b[0].c", "a.b.0") into segments.
// Bracketed indices become ints; a plain numeric segment stays a string and indexes a list when
// the value there is one.
func parseKey(key string) (keyPath, error) {
	if key == "" {
		return nil, fmt.Errorf("empty key")
	}
	var p keyPath
	for seg := range strings.SplitSeq(key, ".") {
		name, rest, _ := strings.Cut(seg, "[")
		if name == "" && rest == "" {
			return nil, fmt.Errorf("malformed key %q: empty segment", key)
		}
		if name != "" {
			p = append(p, name)
		}
		for rest != "" {
			num, after, ok := strings.Cut(rest, "]")
			n, err := strconv.Atoi(num)
			if !ok || err != nil || n < 0 || (after != "" && after[0] != '[') {
				return nil, fmt.Errorf("malformed key %q: bad list index", key)
			}
			p = append(p, n)
			rest = strings.TrimPrefix(after, "[")
		}
	}
	return p, nil
}

// origin is where a key was set.
type origin struct {
	file string
	line int
	base string // the layer's base of relative Path values (layer.base)
}

// sources remembers, for every key path of every layer, which layer set it first and last.
type sources struct {
	last  map[string]origin
	first map[string]origin
	// workDir is LoadOptions.WorkDir as resolved (absolute): the base of
	// relative file names and of [Path] values set on the command line.
	workDir string
}

func newSources() *sources {
	return &sources{last: map[string]origin{}, first: map[string]origin{}}
}

// record notes that layer l set every key under prefix in value.
func (s *sources) record(prefix string, value any, l *layer) {
	o := origin{file: l.name, line: l.lines[prefix], base: l.base}
	if prefix != "" {
		s.last[prefix] = o
		if _, ok := s.first[prefix]; !ok {
			s.first[prefix] = o
		}
	}
	switch v := value.(type) {
	case map[string]any:
		for k, child := range v {
			s.record(joinKey(prefix, k), child, l)
		}
	case []any:
		for i, child := range v {
			s.record(fmt.Sprintf("%s[%d]", prefix, i), child, l)
		}
	}
}

// of returns where key was last set or, for a key that is not in the files (a missing domain, a
// key given a problem after a change), where its closest ancestor was first defined. A nil
// *sources (an Instance built by hand) knows nothing.
func (s *sources) of(key string) origin {
	if s == nil {
		return origin{}
	}
	if o, ok := s.last[key]; ok {
		return o
	}
	for k := parentKey(key); k != ""; k = parentKey(k) {
		if o, ok := s.first[k]; ok {
			return o
		}
	}
	return origin{}
}

// problem builds a Problem for key, located through the sources.
func (s *sources) problem(key, msg, suggestion string) Problem {
	o := s.of(key)
	return Problem{File: o.file, Line: o.line, Key: key, Message: msg, Suggestion: suggestion}
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
