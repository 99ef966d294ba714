package mcpexpose

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"hash"
	"strings"
	"sync"
)

// The session token (header X-NeMo-Gym-Session-Token) is
//
//	base64url(payload) "." base64url(HMAC-SHA256(key, base64url(payload)))
//
// unpadded, where payload is the compact JSON {"sid":…,"inst":…,"tools":…}
// (tools null = unrestricted, [] = nothing allowed) and key is
// HMAC-SHA256(secret, tokenContext). Tokens do not expire: a rollout's
// session lives as long as its state. Only the minting instance reads them
// (contract d.4's itsdangerous format is informative only).

// tokenContext separates the token key from any other use of the secret.
const tokenContext = "gymkit/mcpexpose session token v1"

// maxTokenLen bounds the header the door is willing to verify, unless the
// token that lists every exposed tool is longer (see signer.maxLen).
const maxTokenLen = 64 << 10

// claims is what a token carries.
type claims struct {
	// SID is the rollout session id (a UUID4).
	SID string `json:"sid"`
	// Inst is the instance that minted the token.
	Inst string `json:"inst"`
	// Tools is the allow-list: nil unrestricted, empty nothing allowed.
	Tools []string `json:"tools"`
}

// signer mints and verifies tokens under one key. It is safe for
// concurrent use.
type signer struct {
	macs   sync.Pool // hash.Hash: HMAC-SHA256 under the key
	maxLen int       // the longest token parse accepts
}

func newSigner(secret []byte) *signer {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(tokenContext))
	key := m.Sum(nil)
	return &signer{macs: sync.Pool{New: func() any { return hmac.New(sha256.New, key) }}, maxLen: maxTokenLen}
}

// sign returns the MAC of body.
func (s *signer) sign(body string) []byte {
	m := s.macs.Get().(hash.Hash)
	m.Reset()
	m.Write([]byte(body))
	sum := m.Sum(make([]byte, 0, sha256.Size))
	s.macs.Put(m)
	return sum
}

// mint returns the token for c.
func (s *signer) mint(c claims) string {
	payload, err := json.Marshal(c)
	if err != nil { // strings and a string slice always encode
		panic(err)
	}
	body := base64.RawURLEncoding.EncodeToString(payload)
	return body + "." + base64.RawURLEncoding.EncodeToString(s.sign(body))
}

// parse verifies tok's signature in constant time and returns its claims.
// ok is false for anything else than a token this signer minted.
func (s *signer) parse(tok string) (c claims, ok bool) {
	if len(tok) > s.maxLen {
		return c, false
	}
	i := strings.LastIndexByte(tok, '.')
	if i < 0 {
		return c, false
	}
	body, sig := tok[:i], tok[i+1:]
	var got [sha256.Size]byte
	if base64.RawURLEncoding.DecodedLen(len(sig)) != len(got) {
		return c, false
	}
	if n, err := base64.RawURLEncoding.Decode(got[:], []byte(sig)); err != nil || n != len(got) {
		return c, false
	}
	if !hmac.Equal(s.sign(body), got[:]) {
		return c, false
	}
	payload, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil || json.Unmarshal(payload, &c) != nil || !validSessionID(c.SID) {
		return claims{}, false
	}
	return c, true
}

// mintToken returns the token for one rollout of this instance.
func (d *Door) mintToken(sid string, tools []string) string {
	return d.signer.mint(claims{SID: sid, Inst: d.instance, Tools: tools})
}

// exposedOnly returns the exposed tools among names, sorted and without
// repeats: unknown names would be ignored at list and call time anyway,
// and leaving them out bounds the token. nil (unrestricted) stays nil, and
// a list without exposed tools is empty, not nil (nothing allowed).
func (d *Door) exposedOnly(names []string) []string {
	if names == nil {
		return nil
	}
	want := make(map[string]bool, len(names))
	for _, n := range names {
		want[n] = true
	}
	out := make([]string, 0, min(len(want), len(d.sorted)))
	for _, e := range d.sorted {
		if want[e.tool.Name] {
			out = append(out, e.tool.Name)
		}
	}
	return out
}

// verify returns the claims of a token minted by this instance.
func (d *Door) verify(tok string) (claims, bool) {
	c, ok := d.signer.parse(tok)
	if !ok || c.Inst != d.instance {
		return claims{}, false
	}
	return c, true
}

// validSessionID reports whether s is a session id as session.NewID makes
// it (lower-case UUID4), the only ids session.WithID accepts.
func validSessionID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		case 14:
			if c != '4' {
				return false
			}
		case 19:
			if c != '8' && c != '9' && c != 'a' && c != 'b' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
				return false
			}
		}
	}
	return true
}
