package mcpexpose

import (
	"encoding/base64"
	"slices"
	"strings"
	"testing"

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

func TestTokenRefusesTamperingOtherSecretsAndOtherInstances(t *testing.T) {
	t.Parallel()
	sm := session.NewManager(session.Options{CookieName: "w___w"})
	d, err := New(Options{Instance: "weather", Sessions: sm, Secret: []byte("secret")})
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
	other, _ := New(Options{Instance: "weather", Sessions: sm, Secret: []byte("other secret")})
	sibling, _ := New(Options{Instance: "weather2", Sessions: sm, Secret: []byte("secret")})
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

func TestValidSessionIDAcceptsOnlySessionNewID(t *testing.T) {
	t.Parallel()
	for range 100 {
		if id := session.NewID(); !validSessionID(id) {
			t.Fatalf("session.NewID() = %q refused", id)
		}
	}
	for _, id := range []string{"", sid[:35], sid + "0", strings.Replace(sid, "-4f5a", "-3f5a", 1), strings.Replace(sid, "-8b6c", "-cb6c", 1),
		strings.Replace(sid, "-", "_", 1), strings.ToUpper(sid)} {
		if validSessionID(id) {
			t.Errorf("%q accepted", id)
		}
	}
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

func TestPyRepr(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]string{"get_weather": "'get_weather'", "it's": `"it's"`, `a'b"c`: `'a\'b"c'`, "a\nb": `'a\nb'`, "é": "'é'"} {
		if got := pyRepr(s); got != want {
			t.Errorf("pyRepr(%q) = %s, want %s", s, got, want)
		}
	}
}
