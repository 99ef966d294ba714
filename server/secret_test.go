package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/alexedwards/scs/v2/memstore"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/config/configtest"
	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/server"
	"github.com/gymkit/gymkit/server/servertest"
	"github.com/gymkit/gymkit/session"
)

// sessEnv has a tool that only reads its session id and one that writes
// state.
type sessEnv struct{ framework.Base }

type sessOut struct {
	ID string `json:"id"`
	N  int    `json:"n"`
}

func (e *sessEnv) Routes(r *framework.Router) {
	framework.Post(r, "/whoami", func(ctx context.Context, _ framework.NoBody) (sessOut, error) {
		n, _, err := session.Get[int](ctx, "n")
		return sessOut{ID: session.ID(ctx), N: n}, err
	})
	framework.Post(r, "/incr", func(ctx context.Context, _ framework.NoBody) (sessOut, error) {
		var n int
		err := session.Update(ctx, "n", func(c *int) error { *c++; n = *c; return nil })
		return sessOut{ID: session.ID(ctx), N: n}, err
	})
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{Reward: 1}, nil
	})
}

const (
	oldSecret = "old-instance-secret-0123456789abcdef-XYZ"
	newSecret = "new-instance-secret-fedcba9876543210-QRS"
)

// startSess serves a sessEnv instance with MCP under the given secrets.
func startSess(t testing.TB, cfg config.Instance, log *slog.Logger) (*server.Instance, *httptest.Server) {
	t.Helper()
	cfg.Host, cfg.ExposeToolsOverMCP = "127.0.0.1", true
	inst, err := server.NewInstance(context.Background(), &sessEnv{}, configtest.Named(cfg, "sess", "sess"), server.InstanceOptions{Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(inst.Handler())
	t.Cleanup(ts.Close)
	return inst, ts
}

// httpCall posts to path with the cookie header value (if any) and returns
// the answer and its session cookie ("name=value").
func httpCall(t testing.TB, ts *httptest.Server, path, cookie string) (sessOut, string) {
	t.Helper()
	code, body, sc := rawPost(t, ts, path, cookie, `{}`)
	if len(sc) != 1 {
		t.Fatalf("POST %s: Set-Cookie %q, want exactly one", path, sc)
	}
	var out sessOut
	if code == 200 && path != "/seed_session" {
		if err := json.Unmarshal([]byte(body), &out); err != nil {
			t.Fatalf("POST %s: %s", path, body)
		}
	}
	nv, _, _ := strings.Cut(sc[0], ";")
	return out, nv
}

// seedToken seeds a session and returns its cookie and MCP token.
func seedToken(t testing.TB, ts *httptest.Server) (cookie, token string) {
	t.Helper()
	_, h, body := postJSON(t, ts, "/seed_session", `{}`)
	cookie, _, _ = strings.Cut(h.Get("Set-Cookie"), ";")
	return cookie, servertest.SeedToken([]byte(body))
}

// mcpTool calls a tool over the real MCP door (the go-sdk client) with a
// token and no cookie; ok is false for an isError result (text holds its
// text).
func mcpTool(t testing.TB, ts *httptest.Server, token, name string) (out sessOut, text string, ok bool) {
	t.Helper()
	res := servertest.DialMCP(t, ts.URL, token).CallTool(name, map[string]any{})
	if res.IsError {
		return out, res.Text, false
	}
	res.Decode(t, &out)
	return out, res.Text, true
}

// TestCookielessTrafficStoresNothing (docs/security.md, "What is
// stored, and when"): cookieless HTTP
// requests and MCP calls with a token and no cookie, as NeMo's MCP agents
// send them, store nothing; the first write creates one session's state,
// which both doors then share.
func TestCookielessTrafficStoresNothing(t *testing.T) {
	t.Parallel()
	for _, viaSCS := range []bool{false, true} {
		cfg := configtest.Over(config.Instance{Name: "sess", ServerType: "sess", Host: "127.0.0.1", ExposeToolsOverMCP: true, SessionSecrets: config.Secrets{newSecret}})
		var opts server.InstanceOptions
		store := memstore.NewWithCleanupInterval(0)
		if viaSCS { // the state in an scs store: count its entries
			opts.Sessions = session.MustNewManager(session.Options{CookieName: server.CookieName("sess", "sess"),
				Secrets: [][]byte{[]byte(newSecret)}, Store: store})
		}
		inst, err := server.NewInstance(context.Background(), &sessEnv{}, cfg, opts)
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(inst.Handler())
		defer ts.Close()
		stored := func() int {
			if viaSCS {
				all, _ := store.All()
				return len(all)
			}
			return inst.Sessions.State().(*session.MemoryStore).Len()
		}
		const n = 300
		cookie, token := seedToken(t, ts)
		ids := map[string]bool{}
		for range n {
			out, _ := httpCall(t, ts, "/whoami", "")
			ids[out.ID] = true
			if _, text, ok := mcpTool(t, ts, token, "whoami"); !ok {
				t.Fatalf("MCP whoami: %s", text)
			}
			_, _ = httpCall(t, ts, "/seed_session", "")
		}
		if len(ids) != n {
			t.Errorf("%d distinct ids for %d cookieless requests", len(ids), n)
		}
		if got := stored(); got != 0 {
			t.Fatalf("scs=%v: after %d cookieless HTTP requests, %d seeds and %d MCP calls: %d entries stored, want 0", viaSCS, n, n, n, got)
		}
		// The first write creates the state; both doors see one session.
		a, _, _ := mcpTool(t, ts, token, "incr")
		b, _ := httpCall(t, ts, "/incr", cookie)
		c, _, _ := mcpTool(t, ts, token, "whoami")
		if a.N != 1 || b.N != 2 || c.N != 2 || a.ID != b.ID || b.ID != c.ID {
			t.Errorf("scs=%v: MCP incr %+v, HTTP incr %+v, MCP whoami %+v: want one session counting 1, 2, 2", viaSCS, a, b, c)
		}
		if got := stored(); got != 1 {
			t.Errorf("scs=%v: %d entries stored after one rollout wrote, want 1", viaSCS, got)
		}
	}
}

// BenchmarkCookielessMCP: cookieless MCP calls with a token, as NeMo's MCP
// agents send them; reports the sessions stored per call (0).
func BenchmarkCookielessMCP(b *testing.B) {
	inst, ts := startSess(b, configtest.Over(config.Instance{SessionSecrets: config.Secrets{newSecret}}), nil)
	state := inst.Sessions.State().(*session.MemoryStore)
	_, token := seedToken(b, ts)
	b.ResetTimer()
	for range b.N {
		mcpTool(b, ts, token, "whoami")
	}
	b.ReportMetric(float64(state.Len())/float64(b.N), "stored/op")
}

// TestWeakSecretRefused (docs/security.md, "Forge"): an instance whose secret
// breaks the strength rule does not start (so no token can be forged by
// guessing it), naming the rule and never the secret; allow_weak_secret
// starts it with a warning.
func TestWeakSecretRefused(t *testing.T) {
	t.Parallel()
	for _, weak := range []string{"x", "changeme", "                                        ", strings.Repeat("ab", 20)} {
		for _, list := range [][]string{{weak}, {newSecret, weak}} {
			_, err := server.NewInstance(context.Background(), &sessEnv{}, configtest.Over(config.Instance{Name: "sess", ServerType: "sess", Host: "127.0.0.1", ExposeToolsOverMCP: true, SessionSecrets: list}), server.InstanceOptions{})
			if err == nil {
				t.Fatalf("secret list of %d with %q: the instance started", len(list), weak)
			}
			msg := err.Error()
			if !strings.Contains(msg, "session_secret") || !strings.Contains(msg, "at least 32 bytes with at least 10 distinct bytes") ||
				!strings.Contains(msg, "allow_weak_secret") {
				t.Errorf("error %q does not name the key, the rule and the escape", msg)
			}
			if len(weak) > 2 && strings.Contains(msg, weak) {
				t.Errorf("error %q shows the secret", msg)
			}
		}
	}
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	_, ts := startSess(t, configtest.Over(config.Instance{SessionSecrets: config.Secrets{"changeme"}, AllowWeakSecret: true}), log)
	if !strings.Contains(logs.String(), "allow_weak_secret") || strings.Contains(logs.String(), "changeme") {
		t.Errorf("logs %q: want a warning naming allow_weak_secret, without the secret", logs.String())
	}
	if _, token := seedToken(t, ts); token == "" {
		t.Error("no token with allow_weak_secret")
	}
}

// TestSecretRotationBothDoors: cookies and tokens of the old secret keep
// their session on an instance whose list is [new, old], on both doors, and
// are refused once the old secret is dropped; the rotated instance signs
// with the new one.
func TestSecretRotationBothDoors(t *testing.T) {
	t.Parallel()
	_, oldTS := startSess(t, configtest.Over(config.Instance{SessionSecrets: config.Secrets{oldSecret}}), nil)
	_, rotTS := startSess(t, configtest.Over(config.Instance{SessionSecrets: config.Secrets{newSecret, oldSecret}}), nil)
	_, newTS := startSess(t, configtest.Over(config.Instance{SessionSecrets: config.Secrets{newSecret}}), nil)
	cookie, token := seedToken(t, oldTS)
	first, _ := httpCall(t, oldTS, "/whoami", cookie)

	got, resigned := httpCall(t, rotTS, "/whoami", cookie)
	if got.ID != first.ID {
		t.Errorf("HTTP: the old secret's cookie names %s after rotation, want %s", got.ID, first.ID)
	}
	if out, text, ok := mcpTool(t, rotTS, token, "whoami"); !ok || out.ID != first.ID {
		t.Errorf("MCP: the old secret's token after rotation: %+v %q", out, text)
	}
	// The rotated instance re-signed the cookie under the new secret.
	if again, _ := httpCall(t, newTS, "/whoami", resigned); again.ID != first.ID {
		t.Errorf("the cookie re-signed by the rotated instance names %s under the new secret alone, want %s", again.ID, first.ID)
	}
	if got, _ := httpCall(t, newTS, "/whoami", cookie); got.ID == first.ID {
		t.Error("HTTP: a cookie of the dropped secret still names its session")
	}
	if _, text, ok := mcpTool(t, newTS, token, "whoami"); ok || text != "Invalid Gym MCP session token." {
		t.Errorf("MCP: a token of the dropped secret: ok %v, %q", ok, text)
	}
}

// TestTokenSpellingsOverMCP (docs/security.md, "The MCP session token"): the
// three other spellings of a token's last character are refused by the real
// door.
func TestTokenSpellingsOverMCP(t *testing.T) {
	t.Parallel()
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	_, ts := startSess(t, configtest.Over(config.Instance{SessionSecrets: config.Secrets{newSecret}}), nil)
	_, token := seedToken(t, ts)
	if _, text, ok := mcpTool(t, ts, token, "whoami"); !ok {
		t.Fatalf("the token itself: %s", text)
	}
	last := strings.IndexByte(alphabet, token[len(token)-1])
	for bits := 1; bits < 4; bits++ {
		variant := token[:len(token)-1] + string(alphabet[last^bits])
		if _, text, ok := mcpTool(t, ts, variant, "whoami"); ok || text != "Invalid Gym MCP session token." {
			t.Errorf("spelling %q of the last character: ok %v, %q", variant[len(variant)-1], ok, text)
		}
	}
}

// TestForgedCookieOverHTTP: a cookie signed under another secret, or any
// value not signed by the instance, starts a new session.
func TestForgedCookieOverHTTP(t *testing.T) {
	t.Parallel()
	_, ts := startSess(t, configtest.Over(config.Instance{SessionSecrets: config.Secrets{newSecret}}), nil)
	_, other := startSess(t, configtest.Over(config.Instance{SessionSecrets: config.Secrets{oldSecret}}), nil)
	cookie, _ := seedToken(t, ts)
	mine, _ := httpCall(t, ts, "/incr", cookie)
	foreign, _ := seedToken(t, other)
	name, val, _ := strings.Cut(cookie, "=")
	for _, forged := range []string{foreign, name + "=" + strings.Repeat("A", 76), name + "=" + val[:75] + string("AB"[min(1, strings.Count(val[75:], "A"))]), name + "=" + val + "="} {
		if got, _ := httpCall(t, ts, "/whoami", forged); got.ID == mine.ID || got.N != 0 {
			t.Errorf("cookie %q: %+v, want a new session", forged, got)
		}
	}
}
