package servertest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/server/servertest"
)

// limited has a key with a default tag and answers with it.
type limited struct {
	framework.Base
	Limit int `koanf:"limit" default:"64"`
}

type limitAnswer struct {
	Limit int `json:"limit"`
}

func (s *limited) Routes(r *framework.Router) {
	framework.Post(r, "/limit", func(context.Context, framework.NoBody) (limitAnswer, error) {
		return limitAnswer{s.Limit}, nil
	})
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{Reward: 1}, nil
	})
}

// servertest.New(t, new(T), ...) builds the instance as gymkit serve does:
// the server's keys take their default tags (a test that skips the factory
// keeps the defaults), Options.Config sets the server's keys and the
// framework's, and every framework key not set has its default.
func TestNewLoadsTheConfigAsServeDoes(t *testing.T) {
	t.Parallel()
	ts := servertest.New(t, new(limited), servertest.Options{})
	if res := ts.Rollout().Post("/limit", `{}`); string(res.Body) != `{"limit":64}` {
		t.Errorf("new(limited): %d %s, want the default tag's 64", res.Status, res.Body)
	}
	want := config.Defaults()
	got := ts.Instance.Config
	if got.MaxBodyBytes != want.MaxBodyBytes || got.BodyReadTimeout != want.BodyReadTimeout || !got.CloseSession ||
		got.MCP.ConfirmTimeout != want.MCP.ConfirmTimeout || got.Session.Store != want.Session.Store || got.Host != "127.0.0.1" {
		t.Errorf("framework keys %+v, want the defaults", got)
	}

	ts = servertest.New(t, new(limited), servertest.Options{Config: "limit: 3\nmax_body_bytes: 100\nclose_session: false"})
	ro := ts.Rollout()
	if res := ro.Post("/limit", `{}`); string(res.Body) != `{"limit":3}` {
		t.Errorf("limit: 3: %d %s", res.Status, res.Body)
	}
	if res := ro.Post("/limit", strings.Repeat(" ", 101)); res.Status != 413 {
		t.Errorf("a 101-byte body with max_body_bytes: 100: %d %s", res.Status, res.Body)
	}
	if res := ro.Post("/close_session", `{}`); res.Status != 404 {
		t.Errorf("close_session: false: %d %s", res.Status, res.Body)
	}
}
