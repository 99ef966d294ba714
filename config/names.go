package config

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// tokenChars are the bytes of an HTTP token besides ASCII letters and digits (RFC 7230
// tchar), which a cookie name is made of (RFC 6265).
const tokenChars = "!#$%&'*+-.^_`|~"

// firstNonToken returns the first rune of s that an HTTP token cannot hold, and whether there
// is one.
func firstNonToken(s string) (rune, bool) {
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf && ('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'):
		case r < utf8.RuneSelf && strings.ContainsRune(tokenChars, r):
		default:
			return r, true
		}
	}
	return 0, false
}

// instanceNameProblem refuses an instance name that cannot end the session cookie's name
// <server type>___<instance> (server.CookieName): a cookie name is an HTTP token. Go's HTTP
// client and server drop a cookie whose name is not one, and so do NeMo's agents (Python's
// http.cookies refuses spaces, ",", ";", quotes, "\\" and non-ASCII; aiohttp cuts a name at
// "="), while Starlette fails every answer of a name outside Latin-1: NeMo's own Python server
// would lose the rollout's session at every call, or answer nothing.
func (c *Config) instanceNameProblem(name string, block map[string]any) (Problem, bool) {
	r, bad := firstNonToken(name)
	if !bad {
		return Problem{}, false
	}
	serverType := "<server type>"
	if rs, ok := block[typeResources].(map[string]any); ok && len(rs) == 1 {
		serverType = sortedKeys(rs)[0]
	}
	return c.src.problem(name, fmt.Sprintf(
		"an instance name must be an HTTP token, since it ends the name of the session cookie, %s: "+
			"use ASCII letters, digits and %s; %s is not one (NeMo's agents drop such a cookie too, and lose the rollout's session)",
		strconv.Quote(serverType+"___"+name), tokenChars, runeText(r)), ""), true
}

// runeText writes r for a message: quoted ('é', ' ', '\x1b').
func runeText(r rune) string { return strconv.QuoteRune(r) }

// quoteKey returns key as it is when every rune of it is printable and none is a space, else
// quoted with Go's escapes (%q), so that a key never writes control bytes to a terminal and
// where it starts and ends shows.
func quoteKey(key string) string {
	if strings.IndexFunc(key, func(r rune) bool { return !unicode.IsPrint(r) || unicode.IsSpace(r) }) >= 0 {
		return strconv.Quote(key)
	}
	return key
}

// escapeControls returns s with every rune that is not printable (a control byte, an invalid
// UTF-8 byte, a line break) written as its Go escape (\x1b, \n, \ufeff), so that a message
// holding a key or a value from a file never drives the terminal it is printed on.
func escapeControls(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) < 0 && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i, w := 0, 0; i < len(s); i += w {
		r, n := utf8.DecodeRuneInString(s[i:])
		w = n
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unicode.IsPrint(r):
			b.WriteRune(r)
		default:
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		}
	}
	return b.String()
}
