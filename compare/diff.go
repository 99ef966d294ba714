package compare

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/internal/pyjson"
)

// segment is one step of a JSON path.
type segment struct {
	kind  segKind
	key   string // segKey
	index int    // segIndex
}

type segKind uint8

const (
	segKey      segKind = iota // .name or ["name"]
	segIndex                   // [3]
	segAnyKey                  // .*
	segAnyIndex                // [*]
	segJSON                    // (json): the JSON text held by a string
)

var ident = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// renderPath writes segs as a JSON path: $, .name or ["other key"], [3],
// (json).
func renderPath(segs []segment) string {
	var b strings.Builder
	b.WriteByte('$')
	for _, s := range segs {
		switch s.kind {
		case segKey:
			if ident.MatchString(s.key) {
				b.WriteString("." + s.key)
			} else {
				b.WriteString("[" + strconv.Quote(s.key) + "]")
			}
		case segIndex:
			b.WriteString("[" + strconv.Itoa(s.index) + "]")
		case segAnyKey:
			b.WriteString(".*")
		case segAnyIndex:
			b.WriteString("[*]")
		case segJSON:
			b.WriteString("(json)")
		}
	}
	return b.String()
}

// parsePath reads a JSON path as renderPath writes it, with the wildcards
// .* and [*]. A quoted key is a Go/JSON double-quoted string.
func parsePath(p string) ([]segment, error) {
	if !strings.HasPrefix(p, "$") {
		return nil, errors.New(`a path starts with "$"`)
	}
	segs := []segment{}
	s := p[1:]
	for s != "" {
		switch {
		case strings.HasPrefix(s, "(json)"):
			segs = append(segs, segment{kind: segJSON})
			s = s[len("(json)"):]
		case strings.HasPrefix(s, ".*"):
			segs = append(segs, segment{kind: segAnyKey})
			s = s[2:]
		case s[0] == '.':
			end := 1
			for end < len(s) && s[end] != '.' && s[end] != '[' && s[end] != '(' {
				end++
			}
			key := s[1:end]
			if !ident.MatchString(key) {
				return nil, fmt.Errorf("%q is not a plain name: write [%s]", key, strconv.Quote(key))
			}
			segs = append(segs, segment{kind: segKey, key: key})
			s = s[end:]
		case strings.HasPrefix(s, "[*]"):
			segs = append(segs, segment{kind: segAnyIndex})
			s = s[3:]
		case strings.HasPrefix(s, `["`):
			q, err := strconv.QuotedPrefix(s[1:])
			if err != nil || !strings.HasPrefix(s[1+len(q):], "]") {
				return nil, fmt.Errorf("bad quoted key at %q", s)
			}
			key, _ := strconv.Unquote(q)
			segs = append(segs, segment{kind: segKey, key: key})
			s = s[1+len(q)+1:]
		case s[0] == '[':
			end := strings.IndexByte(s, ']')
			if end < 0 {
				return nil, fmt.Errorf("no ] after %q", s)
			}
			n, err := strconv.Atoi(s[1:end])
			if err != nil || n < 0 {
				return nil, fmt.Errorf("%q is not an index: [0], [1], ... or [*]", s[:end+1])
			}
			segs = append(segs, segment{kind: segIndex, index: n})
			s = s[end+1:]
		default:
			return nil, fmt.Errorf("unexpected %q: members are .name or [\"name\"], items [N] or [*]", s)
		}
	}
	return segs, nil
}

// prefixMatch reports whether the rule path rule matches path or a path
// above it, with the wildcards.
func prefixMatch(rule, path []segment) bool {
	if len(rule) > len(path) {
		return false
	}
	for i, r := range rule {
		p := path[i]
		switch r.kind {
		case segAnyKey:
			if p.kind != segKey {
				return false
			}
		case segAnyIndex:
			if p.kind != segIndex {
				return false
			}
		case segKey:
			if p.kind != segKey || p.key != r.key {
				return false
			}
		case segIndex:
			if p.kind != segIndex || p.index != r.index {
				return false
			}
		case segJSON:
			if p.kind != segJSON {
				return false
			}
		}
	}
	return true
}

// absent is how a value that is not there is shown in text.
const absent = "(absent)"

// maxShown bounds the text of one value in a difference.
const maxShown = 300

// show is a value's JSON text as the server wrote it (number forms kept),
// clipped.
func show(v framework.Value) string {
	b, err := framework.MarshalJSON(v, framework.JSONPydantic)
	if err != nil {
		return "?"
	}
	return clip(string(b))
}

// clip shortens s to maxShown bytes (on a rune boundary) with the full
// length.
func clip(s string) string {
	if len(s) <= maxShown {
		return s
	}
	cut := maxShown
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("... (%d bytes)", len(s))
}

// strp is a pointer to s.
func strp(s string) *string { return &s }

// diffBodies compares two answer bodies: bytes, then, when both are JSON
// within lim, the values with Python's number forms (1 vs 1.0), key order
// and missing keys; the differences go to out.
func diffBodies(ref, got []byte, lim pyjson.Limits, out *sink) {
	if bytes.Equal(ref, got) {
		return
	}
	rv, rerr := pyjson.ParseLimited(ref, lim)
	var gv framework.Value
	gerr := rerr
	if rerr == nil {
		gv, gerr = pyjson.ParseLimited(got, lim)
	}
	at := firstDifference(ref, got)
	if rerr == nil && gerr == nil {
		n := out.found
		diffValues(nil, rv, gv, lim, out)
		if out.found > n {
			return
		}
		out.add(Difference{Field: FieldBody, Path: "$", Kind: KindBytes,
			Note:      fmt.Sprintf("the same JSON, other bytes (whitespace, escapes or a repeated key) from byte %d", at),
			Reference: strp(around(ref, at)), Gymkit: strp(around(got, at)), segs: []segment{}})
		return
	}
	note := fmt.Sprintf("not both JSON; they differ from byte %d", at)
	for _, err := range []error{rerr, gerr} {
		if errors.Is(err, pyjson.ErrTooManyElements) || errors.Is(err, pyjson.ErrTooDeep) {
			note = fmt.Sprintf("too large to compare as JSON (more than %d values or %d levels, --max-answer-values); they differ from byte %d",
				lim.MaxElements, pyjson.MaxDepth, at)
		}
	}
	out.add(Difference{Field: FieldBody, Path: "$", Kind: KindBytes, Note: note,
		Reference: strp(around(ref, at)), Gymkit: strp(around(got, at)), segs: []segment{}})
}

// firstDifference is the offset of the first byte where a and b differ.
func firstDifference(a, b []byte) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

// around is b from a little before offset at, clipped.
func around(b []byte, at int) string {
	from := max(0, at-40)
	for from > 0 && from < len(b) && !utf8.RuneStart(b[from]) {
		from--
	}
	s := string(b[min(from, len(b)):])
	if from > 0 {
		s = "..." + s
	}
	return clip(s)
}

// diffValues sends out the differences between the values ref and got at
// path; lim bounds the JSON held by strings, parsed to be compared.
func diffValues(path []segment, ref, got framework.Value, lim pyjson.Limits, out *sink) {
	shown := func(v framework.Value) func() *string { return func() *string { return strp(show(v)) } }
	text := func(s string) func() *string { return func() *string { return strp(s) } }
	if ref.Kind != got.Kind {
		out.body(KindType, path, shown(ref), shown(got))
		return
	}
	switch ref.Kind {
	case framework.KindBool:
		if ref.Bool != got.Bool {
			out.body(KindValue, path, shown(ref), shown(got))
		}
	case framework.KindNumber:
		if ref.Str != got.Str {
			kind := KindValue
			if sameNumber(ref, got) {
				kind = KindNumberForm
			}
			out.body(kind, path, text(ref.Str), text(got.Str))
		}
	case framework.KindString:
		if ref.Str == got.Str {
			return
		}
		rj, rerr := pyjson.ParseLimited([]byte(ref.Str), lim)
		var gj framework.Value
		gerr := rerr
		if rerr == nil {
			gj, gerr = pyjson.ParseLimited([]byte(got.Str), lim)
		}
		if rerr == nil && gerr == nil && (rj.Kind == framework.KindObject || rj.Kind == framework.KindArray) &&
			(gj.Kind == framework.KindObject || gj.Kind == framework.KindArray) {
			n := out.found
			diffValues(append(path, segment{kind: segJSON}), rj, gj, lim, out)
			if out.found > n {
				return
			}
		}
		out.body(KindValue, path, shown(ref), shown(got))
	case framework.KindArray:
		for i := range max(len(ref.Items), len(got.Items)) {
			p := append(path, segment{kind: segIndex, index: i})
			switch {
			case i >= len(got.Items):
				out.body(KindMissing, p, shown(ref.Items[i]), nil)
			case i >= len(ref.Items):
				out.body(KindExtra, p, nil, shown(got.Items[i]))
			default:
				diffValues(p, ref.Items[i], got.Items[i], lim, out)
			}
		}
	case framework.KindObject:
		// Keys looked up through an index: an object of n keys costs n,
		// not n² (3M keys would never finish).
		inGot, inRef := lookup(got, len(ref.Members)), lookup(ref, len(got.Members))
		var refOrder, gotOrder []string
		for _, m := range ref.Members {
			p := append(path, segment{kind: segKey, key: m.Key})
			j, ok := inGot(m.Key)
			if !ok {
				out.body(KindMissing, p, shown(m.Value), nil)
				continue
			}
			refOrder = append(refOrder, m.Key)
			diffValues(p, m.Value, got.Members[j].Value, lim, out)
		}
		for _, m := range got.Members {
			if _, ok := inRef(m.Key); !ok {
				out.body(KindExtra, append(path, segment{kind: segKey, key: m.Key}), nil, shown(m.Value))
				continue
			}
			gotOrder = append(gotOrder, m.Key)
		}
		if !slices.Equal(refOrder, gotOrder) {
			out.body(KindKeyOrder, path, func() *string { return strp(keyList(refOrder)) }, func() *string { return strp(keyList(gotOrder)) })
		}
	}
}

// lookup returns how to find a key's position among the members of the
// object v (a parsed object's keys are unique), for n lookups: a scan for a
// few, else through an index built once, so that comparing objects of n
// keys costs n, not n², and a large object looked up a few times needs no
// index.
func lookup(v framework.Value, n int) func(key string) (int, bool) {
	if n <= 8 || len(v.Members) <= 8 {
		return func(key string) (int, bool) {
			for i, m := range v.Members {
				if m.Key == key {
					return i, true
				}
			}
			return 0, false
		}
	}
	at := make(map[string]int, len(v.Members))
	for i, m := range v.Members {
		at[m.Key] = i
	}
	return func(key string) (int, bool) {
		i, ok := at[key]
		return i, ok
	}
}

// sameNumber reports whether two number literals are the same number as
// Python compares them: ints exactly, floats as doubles, an int and a float
// exactly (12345678901234567890 is not 1.2345678901234567e19).
func sameNumber(a, b framework.Value) bool {
	exact := func(v framework.Value) (*big.Float, bool) {
		if !v.IsFloat() {
			i, ok := v.BigInt()
			if !ok {
				return nil, false
			}
			return new(big.Float).SetInt(i), true
		}
		f, ok := v.Float()
		if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, false
		}
		return big.NewFloat(f), true
	}
	x, ok1 := exact(a)
	y, ok2 := exact(b)
	return ok1 && ok2 && x.Cmp(y) == 0
}

// keyList is a JSON list of keys.
func keyList(keys []string) string {
	vs := make([]framework.Value, len(keys))
	for i, k := range keys {
		vs[i] = framework.StringValue(k)
	}
	return show(framework.ArrayValue(vs...))
}
