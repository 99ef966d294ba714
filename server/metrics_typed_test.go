package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/config/configtest"
	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/server"
	"github.com/gymkit/gymkit/session"
)

// probeState holds a string that JSON would change: encoding/json writes
// invalid UTF-8 as U+FFFD, so a state that went through JSON between two
// Updates no longer holds the byte "\xff"; the memory store's typed path
// hands the next Update the value the last one left (session.Update's
// documented behaviour).
type probeState struct {
	S string `json:"s"`
}

// typedProbe's /put stores "\xff"; /peek answers n=1 when its Update sees
// "\xff" itself (the typed path), n=0 when it sees it through JSON.
type typedProbe struct{ framework.Base }

func (p *typedProbe) Routes(r *framework.Router) {
	framework.Post(r, "/put", func(ctx context.Context, _ framework.NoBody) (countOut, error) {
		return countOut{}, session.Update(ctx, "probe", func(st *probeState) error { st.S = "\xff"; return nil })
	})
	framework.Post(r, "/peek", func(ctx context.Context, _ framework.NoBody) (countOut, error) {
		n := 0
		err := session.Update(ctx, "probe", func(st *probeState) error {
			if st.S == "\xff" {
				n = 1
			}
			return nil
		})
		return countOut{N: n}, err
	})
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{}, nil
	})
}

// bytesOnly is a store seen through the StateStore byte methods only (a
// decorator that hides the typed memory store, as the metrics decorator
// did before it forwarded session.TypedStore): the control of the test
// below.
type bytesOnly struct{ session.StateStore }

// TestMeteredStoreKeepsTypedPath: with metrics.enabled, the store under
// session.Update is the metrics decorator, and Update still takes the
// memory store's typed path (no JSON between two Updates), while every
// update is still timed in gymkit_session_store_duration_seconds. The
// control, a memory store hidden behind a byte-only decorator, shows the
// probe telling the two paths apart.
func TestMeteredStoreKeepsTypedPath(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		store session.StateStore // nil: the instance's own (memory, metered)
		want  string
	}{
		{"metered memory store: typed", nil, `{"n":1}`},
		{"byte-only decorator: through JSON", bytesOnly{session.NewMemoryStore()}, `{"n":0}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var url string
			if tc.store == nil {
				_, ts := startMetered(t, &typedProbe{}, func(c *config.Instance) { c.ExposeToolsOverMCP = false })
				url = ts.URL
			} else {
				sm := session.MustNewManager(session.Options{CookieName: server.CookieName("metered", "metered"),
					Secrets: [][]byte{[]byte(newSecret)}, State: tc.store})
				inst, err := server.NewInstance(context.Background(), &typedProbe{}, configtest.Over(config.Instance{Name: "metered", ServerType: "metered", Host: "127.0.0.1", SessionSecrets: config.Secrets{newSecret}}), server.InstanceOptions{Sessions: sm, Logger: quietLog()})
				if err != nil {
					t.Fatal(err)
				}
				ts := httptest.NewServer(inst.Handler())
				t.Cleanup(ts.Close)
				url = ts.URL
			}
			resp, err := http.Post(url+"/seed_session", "application/json", strings.NewReader(`{}`))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			cookie, _, _ := strings.Cut(resp.Header.Get("Set-Cookie"), ";")
			if cookie == "" {
				t.Fatal("seed: no cookie")
			}
			if code, body := cpost(t, url+"/put", cookie, `{}`); code != 200 {
				t.Fatalf("put: %d %s", code, body)
			}
			if code, body := cpost(t, url+"/peek", cookie, `{}`); code != 200 || body != tc.want {
				t.Errorf("peek: %d %s, want 200 %s", code, body, tc.want)
			}
			if tc.store != nil {
				return
			}
			fams := scrape(t, url+"/metrics")
			if got := sample(fams, "gymkit_session_store_duration_seconds", "op=update"); got != 2 {
				t.Errorf("store update durations: %v observed, want 2 (put, peek)", got)
			}
			if got := sample(fams, "gymkit_session_store_errors_total", "op=update"); got != 0 {
				t.Errorf("store update errors: %v, want 0", got)
			}
		})
	}
}
