package mcpexpose

import (
	"encoding/base64"
	"slices"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/session"
)

const sid = "6f1c2b3a-9d4e-4f5a-8b6c-7d8e9f0a1b2c"

func TestTokenRoundTripKeepsNilAndEmptyDistinct(t *testing.T) {
	t.Parallel()
	s := newSigner([]byte("secret"))
	for _, tools := range [][]string{nil, {}, {"get_weather"}, {"a", "b<&>", "é"}} {
		tok := s.mint(claims{SID: sid, Inst: "weather", Tools: tools})
		if strings.ContainsAny(tok, "=+/ ") {
			t.Errorf("token %q is not unpadded base64url", tok)
		}
		c, ok := s.parse(tok)
		if !ok || c.SID != sid || c.Inst != "weather" || !slices.Equal(c.Tools, tools) || (c.Tools == nil) != (tools == nil) {
			t.Errorf("tools %#v: parsed %#v, %v", tools, c, ok)
		}
	}
}

// named is the default configuration of an instance named name.
func named(name string) *config.Instance {
	cfg := config.Defaults()
	cfg.Name = name
	return &cfg
}

func TestTokenRefusesTamperingOtherSecretsAndOtherInstances(t *testing.T) {
	t.Parallel()
	sm := session.MustNewManager(session.Options{CookieName: "w___w"})
	d, err := New(Options{Config: named("weather"), Sessions: sm, Secret: []byte("secret")})
	if err != nil {
		t.Fatal(err)
	}
	good := d.mintToken(sid, []string{"get_weather"})
	if c, ok := d.verify(good); !ok || c.SID != sid {
		t.Fatalf("good token refused: %v", c)
	}
	body, sig, _ := strings.Cut(good, ".")
	payload, _ := base64.RawURLEncoding.DecodeString(body)
	widened := base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(string(payload), `["get_weather"]`, `null`, 1)))
	other, _ := New(Options{Config: named("weather"), Sessions: sm, Secret: []byte("other secret")})
	sibling, _ := New(Options{Config: named("weather2"), Sessions: sm, Secret: []byte("secret")})
	for name, tok := range map[string]string{
		"widened allow-list":   widened + "." + sig,
		"flipped signature":    body + "." + flip(sig),
		"truncated signature":  body + "." + sig[:len(sig)-2],
		"padded signature":     body + "." + sig + "=",
		"no signature":         body,
		"empty":                "",
		"dots":                 "...",
		"other secret":         other.mintToken(sid, nil),
		"other instance":       sibling.mintToken(sid, nil),
		"bad session id":       d.signer.mint(claims{SID: "not-a-uuid", Inst: "weather"}),
		"upper-case id":        d.signer.mint(claims{SID: strings.ToUpper(sid), Inst: "weather"}),
		"payload not JSON":     signed(d.signer, "bm90IGpzb24"),
		"payload not base64":   signed(d.signer, "!!!"),
		"huge":                 strings.Repeat("a", maxTokenLen) + "." + sig,
		"signature of another": body + "." + strings.SplitN(other.mintToken(sid, []string{"get_weather"}), ".", 2)[1],
	} {
		if c, ok := d.verify(tok); ok {
			t.Errorf("%s: accepted as %#v", name, c)
		}
	}
}

func signed(s *signer, body string) string {
	return body + "." + base64.RawURLEncoding.EncodeToString(s.sign(body))
}

func flip(s string) string {
	b := []byte(s)
	if b[0] == 'A' {
		b[0] = 'B'
	} else {
		b[0] = 'A'
	}
	return string(b)
}

func TestIsMCPPath(t *testing.T) {
	t.Parallel()
	for p, want := range map[string]bool{
		"/mcp": true, "/mcp/": true, "/mcp/x": true, "/ng-rollout/r1/mcp": true, "/ng-rollout/a.b-c_d/mcp/": true,
		"/mcpx": false, "/": false, "/verify": false, "/ng-rollout/r1/verify": false, "/ng-rollout/-bad/mcp": false,
		"/ng-rollout//mcp": false, "/ng-rollout/r1": false, "/x/mcp": false,
	} {
		if got := isMCPPath(p); got != want {
			t.Errorf("isMCPPath(%q) = %v", p, got)
		}
	}
}

// TestPyRepr: tool names in the door's messages are quoted as Python's repr quotes them.
func TestPyRepr(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]string{"get_weather": "'get_weather'", "it's": `"it's"`, `a'b"c`: `'a\'b"c'`, "a\nb": `'a\nb'`, "é": "'é'"} {
		if got := framework.PythonReprString(s); got != want {
			t.Errorf("PythonReprString(%q) = %s, want %s", s, got, want)
		}
	}
}

// TestTokenOneSpelling: the signature's last character carries 2 padding
// bits; the other three characters that differ only there decoded to the
// same MAC with the lenient decoder (docs/security.md, "The MCP session
// token") and must be refused,
// as must any spelling with characters the decoder would skip.
func TestTokenOneSpelling(t *testing.T) {
	t.Parallel()
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	s := newSigner([]byte("0123456789abcdef0123456789abcdef"))
	for range 20 {
		tok := s.mint(claims{SID: session.NewID(), Inst: "weather"})
		if _, ok := s.parse(tok); !ok {
			t.Fatal("good token refused")
		}
		last := strings.IndexByte(alphabet, tok[len(tok)-1])
		for bits := 1; bits < 4; bits++ {
			variant := tok[:len(tok)-1] + string(alphabet[last^bits])
			lenient, err := base64.RawURLEncoding.DecodeString(variant[strings.LastIndexByte(variant, '.')+1:])
			if err != nil || len(lenient) != 32 {
				t.Fatalf("variant %d does not decode leniently: %v", bits, err)
			}
			if _, ok := s.parse(variant); ok {
				t.Errorf("a second spelling of the signature (last character %q for %q) verifies", variant[len(variant)-1], tok[len(tok)-1])
			}
		}
		body, sig, _ := strings.Cut(tok, ".")
		for _, v := range []string{body + "." + sig[:20] + "\n" + sig[20:], body[:5] + "\r\n" + body[5:] + "." + sig, body + "=." + sig} {
			if _, ok := s.parse(v); ok {
				t.Errorf("token with skipped characters %q verifies", v)
			}
		}
	}
}

// TestTokenRotation: the first secret signs, every secret verifies, and a
// dropped secret's tokens are refused.
func TestTokenRotation(t *testing.T) {
	t.Parallel()
	oldS, newS := []byte("old-secret-0123456789abcdef-0123456789"), []byte("new-secret-0123456789abcdef-0123456789")
	old, rotated, newOnly := newSigner(oldS), newSigner(newS, oldS), newSigner(newS)
	c := claims{SID: sid, Inst: "weather"}
	if _, ok := rotated.parse(old.mint(c)); !ok {
		t.Error("a token of the old secret is refused after rotation")
	}
	if _, ok := newOnly.parse(rotated.mint(c)); !ok {
		t.Error("the rotated signer does not sign with its first secret")
	}
	if _, ok := newOnly.parse(old.mint(c)); ok {
		t.Error("a token of a dropped secret verifies")
	}
	if _, ok := old.parse(rotated.mint(c)); ok {
		t.Error("a token of the new secret verifies under the old one alone")
	}
	// The token key is not the cookie key of the same secret.
	if string(session.DeriveKey(oldS, tokenContext)) == string(session.DeriveKey(oldS, "gymkit/session cookie v1")) {
		t.Error("token and cookie keys are equal")
	}
}

// FuzzToken: parse never panics, and whatever verifies is exactly the token
// minted for its claims (one spelling).
func FuzzToken(f *testing.F) {
	s := newSigner([]byte("0123456789abcdef0123456789abcdef"))
	good := s.mint(claims{SID: sid, Inst: "weather", Tools: []string{"a"}})
	f.Add(good)
	f.Add(good[:len(good)-1] + "B")
	f.Add("")
	f.Add(".")
	f.Add("e30." + strings.Repeat("A", 43))
	f.Fuzz(func(t *testing.T, tok string) {
		c, ok := s.parse(tok)
		if !ok {
			return
		}
		if !session.ValidID(c.SID) {
			t.Fatalf("verified an invalid session id %q", c.SID)
		}
		body, sig, _ := strings.Cut(tok, ".")
		if base64.RawURLEncoding.EncodeToString(s.sign(body)) != sig {
			t.Fatalf("a second spelling of the signature verifies: %q", tok)
		}
	})
}

// TestTokenCacheAnswersAsTheFullCheck: a cached token verifies to the
// same claims as the full check, altered tokens still fail after the
// original was cached, and the cache stays bounded under many rollouts.
func TestTokenCacheAnswersAsTheFullCheck(t *testing.T) {
	t.Parallel()
	s := newSigner([]byte("secret"))
	tok := s.mint(claims{SID: sid, Inst: "weather", Tools: []string{"get_weather"}})
	for range 3 {
		c, ok := s.parse(tok)
		if !ok || c.SID != sid || c.Inst != "weather" || !slices.Equal(c.Tools, []string{"get_weather"}) {
			t.Fatalf("parse = %#v, %v", c, ok)
		}
	}
	if _, ok := s.cache.get(tok); !ok {
		t.Fatal("a verified token was not cached")
	}
	body, sig, _ := strings.Cut(tok, ".")
	for _, bad := range []string{body + "." + flip(sig), tok + "A", tok[:len(tok)-1], body + ".", "x" + tok} {
		if c, ok := s.parse(bad); ok {
			t.Errorf("%q accepted as %#v once its original was cached", bad, c)
		}
		if _, ok := s.cache.get(bad); ok {
			t.Errorf("%q cached", bad)
		}
	}
	if _, ok := newSigner([]byte("other")).parse(tok); ok {
		t.Error("another signer's cache accepted the token")
	}
	for range 3*tokenCacheGen + 7 {
		other := s.mint(claims{SID: session.NewID(), Inst: "weather"})
		if _, ok := s.parse(other); !ok {
			t.Fatal("fresh token refused")
		}
	}
	s.cache.mu.Lock()
	n := len(s.cache.cur) + len(s.cache.old)
	s.cache.mu.Unlock()
	if n > 2*tokenCacheGen {
		t.Errorf("cache holds %d tokens, bound %d", n, 2*tokenCacheGen)
	}
	long := s.mint(claims{SID: sid, Inst: strings.Repeat("i", tokenCacheMaxLen)})
	if _, ok := s.parse(long); !ok {
		t.Fatal("long token refused")
	}
	if _, ok := s.cache.get(long); ok {
		t.Error("a token over tokenCacheMaxLen was cached")
	}
}

// BenchmarkTokenCheck: the session-token check of every MCP tools/call,
// full (the path before the cache, every call) against cached (every call
// of a rollout after its first).
func BenchmarkTokenCheck(b *testing.B) {
	s := newSigner([]byte("0123456789abcdef0123456789abcdef"))
	tok := s.mint(claims{SID: sid, Inst: "example_mcp_weather", Tools: []string{"get_weather"}})
	b.Run("full", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := s.parseUncached(tok); !ok {
				b.Fatal("refused")
			}
		}
	})
	b.Run("cached", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := s.parse(tok); !ok {
				b.Fatal("refused")
			}
		}
	})
}
