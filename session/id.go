package session

import (
	"context"
	"errors"
	"strconv"

	"github.com/google/uuid"
)

// ErrNoSession is returned by [Get] and [Update] when the context carries no
// rollout session: the request did not pass through [Manager.Middleware] and
// the context was not made by [WithID].
var ErrNoSession = errors.New("session: no rollout session in context (missing session middleware?)")

// NewID returns a fresh session id: a random (version 4) UUID in its
// canonical lower-case hyphenated form, 36 characters, like Python's
// str(uuid.uuid4()), for example "0b5d5c5e-8a4e-4c43-9c2b-6d0f3f0a9e51".
// It is safe for concurrent use.
func NewID() string {
	return uuid.NewString()
}

// ValidID reports whether s is a session id as [NewID] makes it: 36
// characters, lower-case hex, hyphens at 8, 13, 18 and 23, version 4 and the
// RFC 4122 variant. They are the only ids [WithID] and the session cookie
// accept; the MCP door checks the session id of a token with it.
func ValidID(s string) bool {
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
			continue
		case 14:
			if c != '4' {
				return false
			}
			continue
		case 19:
			if c != '8' && c != '9' && c != 'a' && c != 'b' {
				return false
			}
			continue
		}
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// ctxKey is the context key of the *scope a request runs in.
type ctxKey struct{}

// scopeFrom returns the request's scope, or nil.
func scopeFrom(ctx context.Context) *scope {
	s, _ := ctx.Value(ctxKey{}).(*scope)
	return s
}

// ID returns the rollout session id of ctx: a UUID4 string as [NewID]
// describes it, the same on every request of one rollout and on both doors
// (the signed cookie of the HTTP door, the token of the MCP door). It
// returns the empty string when ctx carries no session (neither
// [Manager.Middleware] nor [WithID] made it). ID does no I/O, stores
// nothing and extends nothing, so request logging may call it on every
// request at no cost. It is safe for concurrent use.
func ID(ctx context.Context) string {
	s := scopeFrom(ctx)
	if s == nil {
		return ""
	}
	return s.id
}

// WithID returns a copy of ctx that carries the rollout session id and m's
// state store, as [Manager.Middleware] would for a request with that
// session's cookie. It is the MCP door's entry point: the door verifies the
// session token, reads the id it carries, and runs the tool under
// WithID(ctx, m, id), so [ID], [Get] and [Update] see the same session as the
// rollout's HTTP calls. A session already in ctx (for example a cookie
// session made by the middleware for the same request) is shadowed.
//
// WithID panics if m is nil or if id is not a session id as [NewID] and [ID]
// return them (the door only passes ids it signed itself, so a bad id is a
// programming error).
func WithID(ctx context.Context, m *Manager, id string) context.Context {
	if m == nil {
		panic("session: WithID with a nil *Manager")
	}
	if !ValidID(id) {
		panic("session: WithID with an invalid session id " + quote(id))
	}
	return context.WithValue(ctx, ctxKey{}, &scope{id: id, m: m})
}

// quote quotes s for a panic message, keeping it short.
func quote(s string) string {
	const maxLen = 64
	if len(s) > maxLen {
		return strconv.Quote(s[:maxLen]) + "..."
	}
	return strconv.Quote(s)
}

// Keep reports whether ctx carries a rollout session. It stores nothing:
// a session is named by its signed cookie (or MCP token) alone, and lasts
// as long as the cookie keeps coming back within [Options.Lifetime] (a
// token does not expire), whether or not state was ever written under it,
// so there is nothing to keep. It remains for callers written when a new
// session had to be confirmed in a store (the MCP door's seed, an
// environment that keeps its rollout state in process memory keyed by
// [ID]).
//
// Keep returns [ErrNoSession] if ctx carries no session, and nil otherwise.
// It is safe for concurrent use.
func Keep(ctx context.Context) error {
	if scopeFrom(ctx) == nil {
		return ErrNoSession
	}
	return nil
}
