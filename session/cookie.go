package session

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"sync"
	"time"
)

// The session cookie's value is a signed session id, so that any replica
// that has the instance secret can check it without a store, and a request
// that writes no state stores nothing:
//
//	base64url(version | id | started | signed | mac), unpadded, 84 characters
//
// where version is the byte 2, id the session id's 16 bytes (the UUID
// without its hyphens), started the time the session began (Unix
// milliseconds, 7 bytes big-endian: kept by every re-signing, it bounds the
// session's absolute lifetime), signed the time the cookie was last signed
// (the same form: it bounds the idle time), and mac the HMAC-SHA256, under
// the cookie key, of the cookie name, a zero byte and the 31 bytes before it
// (so that a cookie of one instance is no cookie of another that shares its
// secret). The cookie key of a secret is HMAC-SHA256(secret, cookieContext).
// 63 bytes are exactly 84 base64 characters (no padding bits), so exactly
// one spelling of a cookie verifies. Version 1 cookies (76 characters, one
// time) are refused: their rollouts start new sessions.

// cookieContext separates the cookie key from any other use of the secret
// (the MCP door derives its token key under another context).
const cookieContext = "gymkit/session cookie v1"

const (
	cookieVersion = 2
	cookieStarted = 1 + 16                   // offset of the 7-byte start time
	cookieSigned  = cookieStarted + 7        // offset of the 7-byte signing time
	cookieBody    = cookieSigned + 7         // 31: the signed bytes
	cookieRawLen  = cookieBody + sha256.Size // 63
	cookieLen     = cookieRawLen * 4 / 3     // 84: no padding bits
	maxCookieMS   = 1<<56 - 1                // the largest 7-byte time
	// maxSkew is how far in the future a cookie's issue time may be (the
	// clock of another replica may run ahead).
	maxSkew = time.Minute
)

// MinSecretLen and MinSecretDistinct are the strength rule of an instance
// secret that [CheckSecret] applies: at least MinSecretLen (32) bytes, with
// at least MinSecretDistinct (10) distinct byte values.
const (
	MinSecretLen      = 32
	MinSecretDistinct = 10
)

// ErrWeakSecret is the error [CheckSecret] wraps for a secret that breaks the
// strength rule.
var ErrWeakSecret = errors.New("the secret is too weak")

// CheckSecret reports whether secret follows the strength rule for an
// instance secret (the session_secret that signs the session cookies and
// the MCP session tokens): at least [MinSecretLen] bytes with at least
// [MinSecretDistinct] distinct byte values, which any random secret of 32
// bytes or more has (openssl rand -hex 32 gives 64). The error wraps
// [ErrWeakSecret] and states the rule and the secret's length and number of
// distinct bytes, never the secret itself; it is nil for a strong secret.
// It is safe for concurrent use.
func CheckSecret(secret []byte) error {
	var seen [256]bool
	distinct := 0
	for _, b := range secret {
		if !seen[b] {
			seen[b] = true
			distinct++
		}
	}
	if len(secret) >= MinSecretLen && distinct >= MinSecretDistinct {
		return nil
	}
	return fmt.Errorf("%w: it must be at least %d bytes with at least %d distinct bytes (got %d bytes, %d distinct); use a random one, such as the output of openssl rand -hex 32",
		ErrWeakSecret, MinSecretLen, MinSecretDistinct, len(secret), distinct)
}

// RandomSecret returns a fresh random secret of 32 bytes (64 hexadecimal
// characters, so it passes [CheckSecret]), for an instance configured
// without one: cookies and tokens signed under it are valid only in this
// process. It is safe for concurrent use.
func RandomSecret() []byte {
	var b [32]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand.Read crashes the program instead)
	return []byte(hex.EncodeToString(b[:]))
}

// DeriveKey returns HMAC-SHA256(secret, context): the key of one use of an
// instance secret, so that the keys of different uses (context "gymkit/session
// cookie v1" for the session cookie, the MCP door's token context) are
// distinct and none reveals the secret. The result is 32 bytes. It is safe
// for concurrent use.
func DeriveKey(secret []byte, context string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(context))
	return m.Sum(nil)
}

// cookieKey is one verifying key: a pool of HMAC-SHA256 states under it.
type cookieKey struct {
	macs sync.Pool // hash.Hash
}

func newCookieKey(secret []byte) *cookieKey {
	key := DeriveKey(secret, cookieContext)
	return &cookieKey{macs: sync.Pool{New: func() any { return hmac.New(sha256.New, key) }}}
}

// sum appends the MAC of name and body to dst.
func (k *cookieKey) sum(dst []byte, name string, body []byte) []byte {
	m := k.macs.Get().(hash.Hash)
	m.Reset()
	m.Write([]byte(name))
	m.Write([]byte{0})
	m.Write(body)
	dst = m.Sum(dst)
	k.macs.Put(m)
	return dst
}

// signCookie returns the cookie value for session id (a valid id) of a
// session that started at started, signed at t under the first key.
func (m *Manager) signCookie(id string, started, t time.Time) string {
	var raw [cookieRawLen]byte
	raw[0] = cookieVersion
	idBytes(raw[1:cookieStarted], id)
	putMS(raw[cookieStarted:cookieSigned], started)
	putMS(raw[cookieSigned:cookieBody], t)
	m.keys[0].sum(raw[cookieBody:cookieBody], m.name, raw[:cookieBody])
	return base64.RawURLEncoding.EncodeToString(raw[:])
}

// putMS writes t as 7 bytes of big-endian Unix milliseconds (0 before 1970,
// saturated after the year 2.28 million).
func putMS(dst []byte, t time.Time) {
	ms := min(max(t.UnixMilli(), 0), maxCookieMS)
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(ms))
	copy(dst, b[1:])
}

// getMS reads the 7 bytes putMS wrote.
func getMS(src []byte) time.Time {
	var b [8]byte
	copy(b[1:], src)
	return time.UnixMilli(int64(binary.BigEndian.Uint64(b[:])))
}

// verifyCookie returns the session id of a cookie value that one of m's keys
// signed for m's cookie name, signed no longer than the idle timeout ago
// (and not more than maxSkew ahead of now) for a session that started no
// longer than the lifetime ago. ok is false for anything else: a value of
// another length or alphabet, another spelling, a bad MAC, an expired
// cookie.
func (m *Manager) verifyCookie(v string, now time.Time) (id string, ok bool) {
	id, _, _, ok = m.verifyCookieFresh(v, now)
	return id, ok
}

// verifyCookieFresh is verifyCookie, also returning the session's start
// time and reporting whether the cookie can be echoed as it is: signed
// under the signing key less than 1% of the idle timeout ago (so that a
// cookie keeps one value for a while, and a rotation re-signs every cookie
// under the new secret on its next answer).
func (m *Manager) verifyCookieFresh(v string, now time.Time) (id string, started time.Time, fresh, ok bool) {
	if len(v) != cookieLen || !base64URL(v) {
		return "", time.Time{}, false, false
	}
	var raw [cookieRawLen]byte
	if n, err := base64.RawURLEncoding.Strict().Decode(raw[:], []byte(v)); err != nil || n != cookieRawLen {
		return "", time.Time{}, false, false
	}
	if raw[0] != cookieVersion {
		return "", time.Time{}, false, false
	}
	var mac [sha256.Size]byte
	key := -1
	for i, k := range m.keys {
		if hmac.Equal(k.sum(mac[:0], m.name, raw[:cookieBody]), raw[cookieBody:]) {
			key = i
			break
		}
	}
	if key < 0 {
		return "", time.Time{}, false, false
	}
	started = getMS(raw[cookieStarted:cookieSigned])
	signed := getMS(raw[cookieSigned:cookieBody])
	idle := now.Sub(signed)
	if signed.Before(started) || now.Sub(started) > m.lifetime || idle > m.idle || -idle > maxSkew {
		return "", time.Time{}, false, false
	}
	id = idString(raw[1:cookieStarted])
	if !ValidID(id) {
		return "", time.Time{}, false, false
	}
	return id, started, key == 0 && idle >= 0 && idle <= m.idle/100, true
}

// base64URL reports whether s holds only characters of the unpadded
// base64url alphabet (so that the decoder's leniency, such as skipping
// newlines, never applies, and the value is safe to echo in a header).
func base64URL(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// idBytes writes the 16 bytes of the valid session id to dst.
func idBytes(dst []byte, id string) {
	var h [32]byte
	n := 0
	for i := 0; i < len(id); i++ {
		if id[i] != '-' {
			h[n] = id[i]
			n++
		}
	}
	_, _ = hex.Decode(dst, h[:])
}

// idString formats 16 bytes as a lower-case hyphenated UUID.
func idString(b []byte) string {
	var s [36]byte
	hex.Encode(s[0:8], b[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], b[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], b[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], b[8:10])
	s[23] = '-'
	hex.Encode(s[24:], b[10:])
	return string(s[:])
}
