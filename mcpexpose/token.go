package mcpexpose

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"hash"
	"strings"
	"sync"

	"github.com/gymkit/gymkit/session"
)

// The session token (header X-NeMo-Gym-Session-Token) is
//
//	base64url(payload) "." base64url(HMAC-SHA256(key, base64url(payload)))
//
// unpadded, where payload is the compact JSON {"sid":…,"inst":…,"tools":…}
// (tools null = unrestricted, [] = nothing allowed) and key is
// HMAC-SHA256(secret, tokenContext) (session.DeriveKey), distinct from the
// session cookie's key derived from the same instance secret. The first
// secret signs; a token signed under any of the instance's secrets
// verifies (rotation). Both parts are decoded strictly: only the
// base64url alphabet, no padding, zero padding bits, so exactly one
// spelling of a token verifies (the signature's 43rd character carries 2
// padding bits, which a lenient decoder ignores, letting 4 spellings of one
// signature through). Tokens do not expire: a rollout's session lives as
// long as its state. Only the minting instance reads them (contract d.4's
// itsdangerous format is informative only).

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

// signer mints tokens under its first key and verifies them under any of
// its keys. It is safe for concurrent use.
type signer struct {
	keys   []*tokenKey // keys[0] signs
	maxLen int         // the longest token parse accepts
	cache  tokenCache  // tokens that verified under keys
}

// tokenCache remembers the claims of tokens that verified, so that the
// calls of one rollout (which all carry the token its /seed_session
// issued) pay the HMAC and the JSON decoding of the claims once. It is keyed
// by the whole token string: only a token byte-for-byte equal to one that
// verified under this signer's keys hits, so the cache cannot make a forged
// or altered token verify, and since a signer's keys never change (a
// rotation builds a new Door, hence a new signer) and tokens do not expire,
// a hit answers exactly what a full check would. It is bounded: two
// generations of at most tokenCacheGen entries each, a token longer than
// tokenCacheMaxLen is never cached (at most ~2 × 1024 × 4 KiB = 8 MiB of
// tokens), and when the current generation is full it becomes the old one
// and the oldest is dropped (a hit in the old generation moves the token
// to the current one), so the tokens of the rollouts in progress stay
// cached. The claims it returns are shared: callers must not modify them
// (Tools above all). Safe for concurrent use.
type tokenCache struct {
	mu       sync.Mutex
	cur, old map[string]claims
}

const (
	tokenCacheGen    = 1024
	tokenCacheMaxLen = 4 << 10
)

func (c *tokenCache) get(tok string) (claims, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.cur[tok]; ok {
		return v, true
	}
	if v, ok := c.old[tok]; ok {
		c.putLocked(tok, v)
		return v, true
	}
	return claims{}, false
}

func (c *tokenCache) put(tok string, v claims) {
	if len(tok) > tokenCacheMaxLen {
		return
	}
	c.mu.Lock()
	c.putLocked(tok, v)
	c.mu.Unlock()
}

func (c *tokenCache) putLocked(tok string, v claims) {
	if len(c.cur) >= tokenCacheGen {
		c.old, c.cur = c.cur, nil
	}
	if c.cur == nil {
		c.cur = make(map[string]claims, tokenCacheGen)
	}
	c.cur[tok] = v
}

// tokenKey is one key: a pool of HMAC-SHA256 states under it.
type tokenKey struct {
	macs sync.Pool // hash.Hash
}

// newSigner returns a signer for secrets (at least one, none empty): the
// first signs, all verify.
func newSigner(secrets ...[]byte) *signer {
	s := &signer{maxLen: maxTokenLen}
	for _, secret := range secrets {
		key := session.DeriveKey(secret, tokenContext)
		s.keys = append(s.keys, &tokenKey{macs: sync.Pool{New: func() any { return hmac.New(sha256.New, key) }}})
	}
	return s
}

// sum returns the MAC of body under k.
func (k *tokenKey) sum(body string) []byte {
	m := k.macs.Get().(hash.Hash)
	m.Reset()
	m.Write([]byte(body))
	sum := m.Sum(make([]byte, 0, sha256.Size))
	k.macs.Put(m)
	return sum
}

// sign returns the MAC of body under the signing key.
func (s *signer) sign(body string) []byte { return s.keys[0].sum(body) }

// strictBase64 is the one decoding of token parts: unpadded base64url
// that refuses non-zero padding bits.
var strictBase64 = base64.RawURLEncoding.Strict()

// base64URL reports whether p holds only characters of the unpadded
// base64url alphabet (the decoder would skip \r and \n).
func base64URL(p string) bool {
	for i := 0; i < len(p); i++ {
		c := p[i]
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
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
// ok is false for anything else than a token this signer minted. A token
// that verified before is answered from the cache (see tokenCache), without
// HMAC or JSON; the claims returned are then shared and must not be
// modified.
func (s *signer) parse(tok string) (c claims, ok bool) {
	if c, ok := s.cache.get(tok); ok {
		return c, true
	}
	c, ok = s.parseUncached(tok)
	if ok {
		s.cache.put(tok, c)
	}
	return c, ok
}

// parseUncached is parse without the cache: the full check of every
// token (kept apart for the benchmark's baseline and tests).
func (s *signer) parseUncached(tok string) (c claims, ok bool) {
	if len(tok) > s.maxLen {
		return c, false
	}
	i := strings.LastIndexByte(tok, '.')
	if i < 0 {
		return c, false
	}
	body, sig := tok[:i], tok[i+1:]
	var got [sha256.Size]byte
	if len(sig) != base64.RawURLEncoding.EncodedLen(len(got)) || !base64URL(sig) || !base64URL(body) {
		return c, false
	}
	if n, err := strictBase64.Decode(got[:], []byte(sig)); err != nil || n != len(got) {
		return c, false
	}
	good := false
	for _, k := range s.keys {
		if hmac.Equal(k.sum(body), got[:]) {
			good = true
			break
		}
	}
	if !good {
		return c, false
	}
	payload, err := strictBase64.DecodeString(body)
	if err != nil || json.Unmarshal(payload, &c) != nil || !session.ValidID(c.SID) {
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
