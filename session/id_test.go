package session_test

import (
	"strings"
	"testing"

	"github.com/gymkit/gymkit/session"
)

// The MCP door verifies a token's session id with ValidID: it accepts what
// NewID makes and nothing else.
func TestValidIDAcceptsOnlySessionNewID(t *testing.T) {
	t.Parallel()
	const sid = "6f1c2b3a-9d4e-4f5a-8b6c-7d8e9f0a1b2c"
	for range 100 {
		if id := session.NewID(); !session.ValidID(id) {
			t.Fatalf("session.NewID() = %q refused", id)
		}
	}
	for _, id := range []string{"", sid[:35], sid + "0", strings.Replace(sid, "-4f5a", "-3f5a", 1), strings.Replace(sid, "-8b6c", "-cb6c", 1),
		strings.Replace(sid, "-", "_", 1), strings.ToUpper(sid)} {
		if session.ValidID(id) {
			t.Errorf("%q accepted", id)
		}
	}
}
