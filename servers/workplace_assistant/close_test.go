package workplace_test

import (
	"strings"
	"testing"

	workplace "github.com/gymkit/gymkit/servers/workplace_assistant"
)

const notInitialized = "Session not initialized. Please call seed_session first."

// TestCloseSessionReleasesTheWorld: POST
// /close_session frees the rollout's world and its seed mark; its cookie and
// its MCP token then reach an unseeded session (the token binds the session
// id, whose state is gone), and the email it sent is nowhere. Closing twice
// is fine; a new seed on the same cookie starts afresh.
func TestCloseSessionReleasesTheWorld(t *testing.T) {
	t.Parallel()
	h := newMCPHost(t)
	s := h.ts.Instance.App.Server().(*workplace.Workplace)
	ro := h.seed(t, `{}`)
	if r := ro.call("email_send_email", `{"recipient":"a@b.co","subject":"closeme","body":"b"}`); r.IsError {
		t.Fatalf("send over MCP: %s", r.text())
	}
	other := h.seed(t, `{}`)
	if r := other.call("email_send_email", `{"recipient":"a@b.co","subject":"keepme","body":"b"}`); r.IsError {
		t.Fatalf("send over MCP: %s", r.text())
	}
	if n := s.LiveWorlds(); n != 2 {
		t.Fatalf("%d live worlds, want 2", n)
	}
	for i := range 2 {
		res := ro.ro.Post("/close_session", nil)
		if res.Status != 200 || string(res.Body) != `{}` || len(res.SetCookies()) != 1 {
			t.Fatalf("close %d: %d %s %q", i, res.Status, res.Body, res.SetCookies())
		}
	}
	if n := s.LiveWorlds(); n != 1 {
		t.Errorf("%d live worlds after the close, want 1 (the other rollout's)", n)
	}
	if r := ro.call("email_search_emails", `{"query":"closeme"}`); !r.IsError || !strings.Contains(r.text(), notInitialized) {
		t.Errorf("the closed rollout's token: %v %s", r.IsError, r.text())
	}
	if res := ro.ro.Post("/email_search_emails", `{"query":"closeme"}`); res.Status != 400 || !strings.Contains(string(res.Body), notInitialized) {
		t.Errorf("the closed rollout's cookie: %d %s", res.Status, res.Body)
	}
	if r := other.call("email_search_emails", `{"query":"keepme"}`); r.IsError || !strings.Contains(r.text(), "keepme") {
		t.Errorf("the other rollout lost its world: %s", r.text())
	}
	// Re-seeding the closed session's cookie: a fresh world, without the email.
	if res := ro.ro.Post("/seed_session", `{}`); res.Status != 200 {
		t.Fatalf("re-seed: %d %s", res.Status, res.Body)
	}
	if res := ro.ro.Post("/email_search_emails", `{"query":"closeme"}`); res.Status != 200 || strings.Contains(string(res.Body), "closeme") {
		t.Errorf("after re-seed: %d %s", res.Status, res.Body)
	}
	// A close without a cookie: {} 200, nothing released.
	if res := h.ts.Rollout().Post("/close_session", `{}`); res.Status != 200 || string(res.Body) != `{}` || s.LiveWorlds() != 1 {
		t.Errorf("close without a session: %d %s, %d worlds", res.Status, res.Body, s.LiveWorlds())
	}
}
