package framework_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/session"
)

// A tool whose error wraps session.ErrStoreUnavailable (the Redis store is
// down) is answered 503 with {"detail": <text>} on the HTTP door and
// "HTTP 503 from POST /<tool>: <text>" on the MCP door, never Python's
// cookie-less unhandled 500; other errors keep the 500.
func TestStatusOfStoreUnavailable(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("session: %w (redis at 127.0.0.1:6390, update): dial tcp: connection refused", session.ErrStoreUnavailable)
	st := framework.StatusOf(fmt.Errorf("tool: %w", err))
	wantText := "tool: " + err.Error()
	if st.Code != 503 || string(st.Body) != `{"detail":"`+wantText+`"}` || st.Detail != wantText {
		t.Errorf("StatusOf = %d %s %q", st.Code, st.Body, st.Detail)
	}
	if got := st.MCPText("increment_counter"); got != "HTTP 503 from POST /increment_counter: "+wantText {
		t.Errorf("MCPText = %q", got)
	}
	if st := framework.StatusOf(errors.New("other")); st.Code != 500 {
		t.Errorf("a plain error: %d, want 500", st.Code)
	}
}
