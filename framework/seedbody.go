package framework

import (
	"bytes"
	"encoding/json"
	"sync"
	"unicode/utf8"

	"github.com/gymkit/gymkit/internal/pyjson"
)

// SeedBody is the body of one POST /seed_session (the dataset row) as the
// framework read it, shared by every seed hook of that request
// (the host's AfterSeed, the MCP door's [SeedToolFilter]): its bytes were
// read and checked once (syntax, max_json_depth, max_json_elements), and
// its tree is built at most once, by the first hook that asks for all of
// it ([SeedBody.Value]). A hook that needs one key reads it with
// [SeedBody.Get], which parses that member only, so that a 16.6 KB
// workplace row is not parsed again for each hook (the target: a
// seed with the real row costs at most 2x a {} seed; BenchmarkSeedRow in
// servers/workplace_assistant measures it, docs/performance.md has the
// figures).
//
// A SeedBody is always a JSON object: a body that was absent, not JSON or
// not an object reads as {}, as NeMo's seed hooks see it (contract d.3:
// NeMo parses the raw bytes as JSON whatever the Content-Type, and an
// unparseable or non-object body becomes {}).
//
// The values a SeedBody returns are shared with the other hooks of the
// request: read them, do not modify them. A SeedBody is safe for
// concurrent use and holds the body's bytes for as long as it is
// referenced; a nil *SeedBody reads as {}.
type SeedBody struct {
	raw []byte        // checked JSON text of an object; nil: {}
	lim pyjson.Limits // the limits raw was checked within
	b   *body         // raw's body, shared with the seed's decoder (one tree)

	plainOnce sync.Once
	plain     bool // raw is plainUTF8

	jsonOnce sync.Once
	json     json.RawMessage
}

// isPlain is plainUTF8(s.raw), computed once.
func (s *SeedBody) isPlain() bool {
	s.plainOnce.Do(func() { s.plain = plainUTF8(s.raw) })
	return s.plain
}

// ParseSeedBody returns the SeedBody of the request body data, checked as
// /seed_session checks it with the default limits of max_json_depth and
// max_json_elements (docs/config.md). A body that is not JSON, or too deep or too
// large for the limits, gives the parse error; valid JSON that is not an
// object reads as {} without an error. The framework makes the SeedBody of
// each seed itself: ParseSeedBody is for calling a seed hook in a test or
// from a host of one's own.
func ParseSeedBody(data []byte) (*SeedBody, error) {
	lim := defaultLimits()
	kind, err := pyjson.CheckKind(data, lim)
	if err != nil {
		return nil, err
	}
	return seedBodyOf(data, lim, kind), nil
}

// seedBodyOf is the SeedBody of raw, checked within lim as a value of
// kind.
func seedBodyOf(raw []byte, lim pyjson.Limits, kind pyjson.Kind) *SeedBody {
	return seedBodyFor(raw, textBody(raw, lim, kind))
}

// seedBodyFor is the SeedBody of b, whose text is raw: it shares b's tree
// (built once, by whichever reader asks first).
func seedBodyFor(raw []byte, b *body) *SeedBody {
	if !b.isObject() {
		return &SeedBody{}
	}
	return &SeedBody{raw: raw, lim: b.lim, b: b}
}

// Value returns the whole object (KindObject; no members for {}). The
// tree is built at the first call (by any hook of the request) and shared
// by the later ones.
func (s *SeedBody) Value() Value {
	if s == nil || s.raw == nil {
		return Value{Kind: KindObject}
	}
	return s.b.value()
}

// Get returns the value of the object's member key, and whether there is
// one; a duplicated key gives its last value, as Value().Get and Python's
// dict do. Unless the tree is built already, Get reads the text without
// building the tree of the other members (one pass over the bytes, then a
// parse of that member's value), so it costs a fraction of [SeedBody.Value]
// on a large row; each call reads the text again.
func (s *SeedBody) Get(key string) (Value, bool) {
	if s == nil || s.raw == nil {
		return Value{}, false
	}
	if !s.b.hasTree() {
		if v, ok, fast := s.lookup(key); fast {
			return v, ok
		}
	}
	return s.Value().Get(key)
}

// JSON returns the object as JSON text, for a hook that takes bytes (the
// [SessionToolFilter] hook): the bytes received when encoding/json reads
// them as the tree says (UTF-8 JSON without Python's NaN and Infinity
// literals), so nothing is encoded, else the encoding of [SeedBody.Value]
// in JSONPydantic style; `{}` for an empty or non-object body. It is
// computed at the first call; the caller must not modify it.
func (s *SeedBody) JSON() json.RawMessage {
	if s == nil || s.raw == nil {
		return json.RawMessage("{}")
	}
	s.jsonOnce.Do(func() {
		// pyjson accepted raw; of what it accepts, encoding/json refuses
		// only Python's NaN and Infinity literals (and other encodings
		// than UTF-8).
		if s.isPlain() && ((!bytes.Contains(s.raw, []byte("NaN")) && !bytes.Contains(s.raw, []byte("Infinity"))) ||
			json.Valid(s.raw)) {
			s.json = s.raw
			return
		}
		v := s.Value()
		b, err := pyjson.Marshal(v, pyjson.Pydantic)
		if err != nil {
			// A checked tree always encodes (NaN and Infinity as null);
			// an empty object is the safe answer should one not.
			b = []byte("{}")
		}
		s.json = b
	})
	return s.json
}

// plainUTF8 reports whether raw is text pyjson reads as is: UTF-8 without a
// byte-order mark, not the NUL pattern of UTF-16 or UTF-32 in its first
// four bytes (see pyjson's decodeText), and without encoded surrogates
// (which Python's "surrogatepass" accepts and Go's UTF-8 does not).
func plainUTF8(raw []byte) bool {
	if len(raw) == 0 {
		return false
	}
	switch raw[0] {
	case '{', ' ', '\t', '\n', '\r': // no BOM: a JSON object's first byte
	default:
		return false
	}
	if bytes.IndexByte(raw[:min(4, len(raw))], 0) >= 0 {
		return false
	}
	return utf8.Valid(raw)
}

// lookup is Get on the text: fast is false when the text is not plain
// UTF-8 (Get then reads the tree).
func (s *SeedBody) lookup(key string) (v Value, ok, fast bool) {
	raw := s.raw
	if !s.isPlain() {
		return Value{}, false, false
	}
	i := jsonWS(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return Value{}, false, false
	}
	i = jsonWS(raw, i+1)
	start, end := -1, -1
	for i < len(raw) && raw[i] != '}' {
		if raw[i] != '"' {
			return Value{}, false, false
		}
		ks := i
		i = skipString(raw, i) // the key
		if i > len(raw) {
			return Value{}, false, false
		}
		ke := i
		i = jsonWS(raw, i)
		if i >= len(raw) || raw[i] != ':' {
			return Value{}, false, false
		}
		i = jsonWS(raw, i+1)
		vs := i
		i = skipJSON(raw, i)
		if i > len(raw) {
			return Value{}, false, false
		}
		if keyIs(raw[ks:ke], key) {
			start, end = vs, i
		}
		i = jsonWS(raw, i)
		if i < len(raw) && raw[i] == ',' {
			i = jsonWS(raw, i+1)
		}
	}
	if start < 0 {
		return Value{}, false, true
	}
	// The member's value lies within checked text: it parses.
	v, err := pyjson.ParseLimited(raw[start:end], s.lim)
	if err != nil {
		return Value{}, false, false
	}
	return v, true, true
}

// keyIs reports whether the JSON string token tok (quotes included) is key.
func keyIs(tok []byte, key string) bool {
	if len(tok) < 2 {
		return false
	}
	inner := tok[1 : len(tok)-1]
	plain := true
	for _, c := range inner {
		if c == '\\' || c >= utf8.RuneSelf {
			plain = false
			break
		}
	}
	if plain {
		return string(inner) == key
	}
	v, err := pyjson.Parse(tok) // escapes and non-ASCII as the tree decodes them
	return err == nil && v.Kind == pyjson.String && v.Str == key
}

// jsonWS skips JSON whitespace from i.
func jsonWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipJSON returns the index just past the value starting at i of checked
// JSON text b (a value pyjson accepted): strings to their closing quote,
// containers to their closing bracket, other literals (numbers, true,
// false, null, NaN, Infinity) to the next delimiter.
func skipJSON(b []byte, i int) int {
	if i >= len(b) {
		return len(b) + 1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch jsonStructural[b[i]] {
			case 0:
				i++
				continue
			case '"':
				i = skipString(b, i)
				continue
			case '{':
				depth++
			case '}':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(b) + 1
	}
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// jsonStructural classes the bytes skipJSON looks at inside a container:
// '"' a string, '{' an opening and '}' a closing bracket, 0 anything else.
var jsonStructural = [256]byte{'"': '"', '{': '{', '[': '{', '}': '}', ']': '}'}

// skipString returns the index just past the string token whose opening
// quote is at i (len(b)+1 when it does not close).
func skipString(b []byte, i int) int {
	open := i
	for {
		j := bytes.IndexByte(b[i+1:], '"')
		if j < 0 {
			return len(b) + 1
		}
		q := i + 1 + j
		n := 0 // backslashes just before the quote: an odd count escapes it
		for k := q - 1; k > open && b[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return q + 1
		}
		i = q
	}
}
