package mcpexpose

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzTokenRoundTrip: a token minted for any claims verifies to exactly
// those claims (nil and empty allow-lists kept apart), under the signing
// secret and after a rotation that keeps it as an old secret; under
// another secret, or with any one byte changed, it never verifies
// (testdata/fuzz/FuzzTokenRoundTrip holds names of invalid
// UTF-8, the first crashers: faults of the test, kept as seeds).
func FuzzTokenRoundTrip(f *testing.F) {
	f.Add("weather", "get_weather", false, 0)
	f.Add("", "", true, 5)
	f.Add("inst\x00é", "a\nb\nc<&>", false, 40)
	f.Add(strings.Repeat("i", 300), "x", false, 1000)
	cur := []byte("0123456789abcdef0123456789abcdef")
	next := []byte("fedcba9876543210fedcba9876543210")
	minter := newSigner(cur)
	rotated := newSigner(next, cur)
	other := newSigner(next)
	f.Fuzz(func(t *testing.T, inst, tools string, nilTools bool, flip int) {
		c := claims{SID: sid, Inst: inst, Tools: []string{}}
		if nilTools {
			c.Tools = nil
		} else if tools != "" {
			c.Tools = strings.Split(tools, "\n")
		}
		tok := minter.mint(c)
		for name, s := range map[string]*signer{"minter": minter, "rotated": rotated} {
			got, ok := s.parse(tok)
			if !ok {
				t.Fatalf("%s: a minted token does not verify: %q", name, tok)
			}
			if !utf8.ValidString(inst) || !utf8.ValidString(tools) {
				// encoding/json writes invalid UTF-8 as U+FFFD; instance and
				// tool names are never so (YAML keys, [A-Za-z0-9_-]+).
				continue
			}
			if got.SID != c.SID || got.Inst != c.Inst || (got.Tools == nil) != (c.Tools == nil) || !slices.Equal(got.Tools, c.Tools) {
				t.Fatalf("%s: claims %+v came back as %+v", name, c, got)
			}
		}
		if _, ok := other.parse(tok); ok {
			t.Fatalf("a token verifies under a secret that did not sign it: %q", tok)
		}
		if flip < 0 {
			flip = -flip
		}
		i := flip % len(tok)
		b := []byte(tok)
		b[i] ^= 1 + byte(flip%255)
		if _, ok := minter.parse(string(b)); ok {
			t.Fatalf("a token with byte %d changed verifies: %q", i, b)
		}
	})
}
