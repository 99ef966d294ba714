package mcpexpose_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/gymkit/gymkit/mcpexpose"
	"github.com/gymkit/gymkit/session"
)

// countingStore is a session.StateStore that counts the calls it serves.
type countingStore struct {
	inner session.StateStore
	mu    sync.Mutex
	calls []string // "Get key", "Update key", "Delete"
}

func (s *countingStore) note(op string) {
	s.mu.Lock()
	s.calls = append(s.calls, op)
	s.mu.Unlock()
}

func (s *countingStore) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.calls
	s.calls = nil
	return c
}

func (s *countingStore) Get(ctx context.Context, sid, key string) ([]byte, bool, error) {
	s.note("Get " + key)
	return s.inner.Get(ctx, sid, key)
}

func (s *countingStore) Update(ctx context.Context, sid, key string, fn func([]byte, bool) ([]byte, error)) error {
	s.note("Update " + key)
	return s.inner.Update(ctx, sid, key, fn)
}

func (s *countingStore) Delete(ctx context.Context, sid string) error {
	s.note("Delete")
	return s.inner.Delete(ctx, sid)
}

// An /mcp request that carries a session token costs the session store
// nothing but what its tool does: the cookie session is decided
// from the signed cookie alone (or made fresh) and the tool runs in the
// token's session, so initialize, ping, tools/list, a refused call and a
// call of a tool that keeps no state make no store call at all, and a call
// of append makes only its own Update; on both paths of the door, with the
// seed's cookie and without. Every answer still carries exactly one
// session Set-Cookie with NeMo's attributes (golden
// nemo-gym-peer/example_mcp_weather.jsonl: "path=/; max-age=1209600;
// httponly; samesite=lax" on every /mcp answer).
func TestMCPRequestsWithATokenDoNoSessionStoreWork(t *testing.T) {
	t.Parallel()
	for _, sdkOnly := range []bool{false, true} {
		store := &countingStore{inner: session.NewMemoryStore()}
		h := newHost(t, &Store{extra: parityRoutes}, hostOptions{state: store, door: func(o *mcpexpose.Options) { o.Config.MCP.Lean = !sdkOnly }})
		ro := h.seed(`{}`)
		store.take()
		for _, cookie := range []string{"", ro.cookie} {
			for _, tc := range []struct {
				msg  string
				want []string
			}{
				{fmtInit("2025-06-18"), nil},
				{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil},
				{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, nil},
				{listMsg, nil},
				{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"plain","arguments":{}}}`, nil},
				{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"nope","arguments":{}}}`, nil},
				{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"append","arguments":{}}}`, nil}, // a 422: the tool never runs
				{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"append","arguments":{"value":"x"}}}`, []string{"Update values"}},
			} {
				hdr := []string{}
				if cookie != "" {
					hdr = append(hdr, "Cookie", h.cookie+"="+cookie)
				}
				r := h.rpc(tc.msg, ro.token, hdr...)
				if r.Status != http.StatusOK && r.Status != http.StatusAccepted {
					t.Fatalf("%s: %d %s", tc.msg, r.Status, r.Body)
				}
				if got := store.take(); strings.Join(got, ",") != strings.Join(tc.want, ",") {
					t.Errorf("sdkOnly=%v, cookie %v, %s: store calls %q, want %q", sdkOnly, cookie != "", tc.msg, got, tc.want)
				}
				sc := r.Header.Values("Set-Cookie")
				if len(sc) != 1 || !strings.HasPrefix(sc[0], h.cookie+"=") ||
					!strings.HasSuffix(sc[0], "; Path=/; Max-Age=1209600; HttpOnly; SameSite=Lax") {
					t.Errorf("sdkOnly=%v, %s: Set-Cookie %q, want the one session cookie", sdkOnly, tc.msg, sc)
				}
				if cookie != "" && sc[0] != h.cookie+"="+cookie+"; Path=/; Max-Age=1209600; HttpOnly; SameSite=Lax" {
					t.Errorf("sdkOnly=%v, %s: Set-Cookie %q, want the request's recent cookie echoed", sdkOnly, tc.msg, sc[0])
				}
			}
		}
	}
}

func fmtInit(version string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
}
