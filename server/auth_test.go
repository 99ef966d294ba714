package server_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/config/configtest"
	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/server"
)

// authEnv has one tool that answers the request's principal and counts its
// calls.
type authEnv struct {
	framework.Base
	calls atomic.Int64
}

type principalOut struct {
	Principal string `json:"principal"`
}

func (e *authEnv) Routes(r *framework.Router) {
	framework.Post(r, "/whoami", func(ctx context.Context, _ framework.NoBody) (principalOut, error) {
		e.calls.Add(1)
		p, _ := framework.PrincipalOf(ctx).(string)
		return principalOut{Principal: p}, nil
	})
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{Reward: 1}, nil
	})
}

// hookEnv is an authEnv with a TokenValidator hook: "let-me-in" is
// "hooked-user"; its interceptor records the principals it sees.
type hookEnv struct {
	authEnv
	seen sync.Map // principal -> door
}

func (e *hookEnv) Routes(r *framework.Router) {
	framework.Intercept(r, func(next framework.Invoker) framework.Invoker {
		return func(ctx context.Context, c *framework.Call) (any, error) {
			if c.Principal != nil {
				e.seen.Store(c.Principal, c.Door)
			}
			return next(ctx, c)
		}
	})
	e.authEnv.Routes(r)
}

var _ framework.TokenValidator = (*hookEnv)(nil)

func (*hookEnv) ValidateToken(_ context.Context, token string) (any, error) {
	if token == "let-me-in" {
		return "hooked-user", nil
	}
	return nil, errors.New("hook: unknown token")
}

const hsSecret = "an-hs256-secret-of-at-least-32-bytes-0123456789"

func startAuth(t *testing.T, srv framework.Server, cfg config.Instance) (*httptest.Server, *syncBuffer) {
	t.Helper()
	cfg.Host, cfg.ExposeToolsOverMCP = "127.0.0.1", true
	var logs syncBuffer
	inst, err := server.NewInstance(context.Background(), srv, configtest.Named(cfg, "authinst", "authinst"), server.InstanceOptions{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(inst.Handler())
	t.Cleanup(ts.Close)
	return ts, &logs
}

func keyLine(name, key string) string {
	sum := sha256.Sum256([]byte(key))
	return name + ":" + hex.EncodeToString(sum[:])
}

// authPost posts one JSON-RPC message to /mcp with the extra headers.
func authPost(t *testing.T, url, body string, hdr map[string]string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	return do(t, req)
}

func do(t *testing.T, req *http.Request) (*http.Response, string) {
	t.Helper()
	if req.Method == http.MethodPost && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	return resp, string(b)
}

const (
	initMsg = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	callMsg = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`
)

// bearerTransport adds Authorization: Bearer <token> (and the rollout's
// session headers) to every request.
type bearerTransport struct {
	token   string
	session map[string]string
}

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	for k, v := range b.session {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// seedHeaders seeds a rollout (sending the bearer token, for auth.http)
// and returns the headers its MCP calls carry (the session token).
func seedHeaders(t *testing.T, url, token string) map[string]string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url+"/seed_session", strings.NewReader("{}"))
	req.Header.Set("Authorization", "Bearer "+token)
	resp, body := do(t, req)
	var seed struct {
		MCP struct {
			Headers map[string]string `json:"headers"`
		} `json:"mcp"`
	}
	if err := json.Unmarshal([]byte(body), &seed); resp.StatusCode != 200 || err != nil {
		return nil // the caller's call fails
	}
	return seed.MCP.Headers
}

// sdkWhoami connects the go-sdk client with the bearer token and calls
// whoami, returning the principal it answers.
func sdkWhoami(t *testing.T, url, token string) (string, error) {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "auth-test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url + "/mcp",
		HTTPClient: &http.Client{Transport: bearerTransport{token, seedHeaders(t, url, token)}}}, nil)
	if err != nil {
		return "", err
	}
	defer func() { _ = cs.Close() }()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "whoami", Arguments: map[string]any{}})
	if err != nil {
		return "", err
	}
	if res.IsError {
		b, _ := json.Marshal(res.Content)
		return "", errors.New("tool error: " + string(b))
	}
	b, _ := json.Marshal(res.StructuredContent)
	var out principalOut
	_ = json.Unmarshal(b, &out)
	return out.Principal, nil
}

func check401(t *testing.T, resp *http.Response, body, wantBody, wantChallenge string) {
	t.Helper()
	if resp.StatusCode != http.StatusUnauthorized || body != wantBody {
		t.Errorf("got %d %s, want 401 %s", resp.StatusCode, body, wantBody)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q", ct)
	}
	if got := resp.Header.Get("WWW-Authenticate"); !strings.HasPrefix(got, wantChallenge) {
		t.Errorf("WWW-Authenticate = %q, want prefix %q", got, wantChallenge)
	}
}

func TestAuthAPIKeyFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "keys")
	if err := os.WriteFile(file, []byte("# keys\n"+keyLine("ci-bot", "secret-key-1")+"\n\n"+keyLine("alice", "secret-key-2")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := &authEnv{}
	ts, logs := startAuth(t, env, configtest.Over(config.Instance{Auth: &config.AuthConfig{APIKeys: &config.APIKeysConfig{File: file}}}))

	resp, body := authPost(t, ts.URL, initMsg, nil)
	check401(t, resp, body, `{"error":"Missing bearer token"}`, `Bearer realm="authinst"`)
	resp, body = authPost(t, ts.URL, callMsg, map[string]string{"Authorization": "Bearer wrong-key"})
	check401(t, resp, body, `{"error":"Invalid or unauthorized token"}`, `Bearer realm="authinst", error="invalid_token"`)
	resp, body = authPost(t, ts.URL, callMsg, map[string]string{"Authorization": "Basic c2VjcmV0LWtleS0x"})
	check401(t, resp, body, `{"error":"Missing bearer token"}`, `Bearer`)
	// Under the rollout prefix too.
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/ng-rollout/r1/mcp", strings.NewReader(callMsg))
	req.Header.Set("Content-Type", "application/json")
	resp, body = do(t, req)
	check401(t, resp, body, `{"error":"Missing bearer token"}`, `Bearer`)
	if n := env.calls.Load(); n != 0 {
		t.Fatalf("the tool ran %d times without a valid bearer token", n)
	}
	if strings.Contains(logs.String(), "wrong-key") {
		t.Errorf("the log holds the token:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), "missing bearer token") || !strings.Contains(logs.String(), "invalid bearer token") {
		t.Errorf("the refusals are not logged:\n%s", logs.String())
	}

	for key, want := range map[string]string{"secret-key-1": "ci-bot", "secret-key-2": "alice"} {
		got, err := sdkWhoami(t, ts.URL, key)
		if err != nil || got != want {
			t.Errorf("go-sdk client with %s: principal %q, %v; want %q", key, got, err, want)
		}
	}
	if _, err := sdkWhoami(t, ts.URL, "nope"); err == nil {
		t.Error("go-sdk client with a wrong key connected")
	}
	// auth.http is off: the HTTP routes answer without a token.
	req, _ = http.NewRequest(http.MethodPost, ts.URL+"/whoami", strings.NewReader("{}"))
	if resp, body = do(t, req); resp.StatusCode != 200 || body != `{"principal":""}` {
		t.Errorf("POST /whoami with auth.http off: %d %s", resp.StatusCode, body)
	}
}

func TestAuthAPIKeyEnvAndHTTP(t *testing.T) {
	t.Setenv("GYMKIT_TEST_API_KEYS", keyLine("env-bot", "env-key")+","+keyLine("other", "other-key"))
	ts, _ := startAuth(t, &authEnv{}, configtest.Over(config.Instance{Auth: &config.AuthConfig{HTTP: true, Realm: "gym",
		APIKeys: &config.APIKeysConfig{Env: "GYMKIT_TEST_API_KEYS"}}}))
	if got, err := sdkWhoami(t, ts.URL, "other-key"); err != nil || got != "other" {
		t.Errorf("principal %q, %v; want other", got, err)
	}
	for _, path := range []string{"/whoami", "/seed_session", "/verify", "/aggregate_metrics", "/ng-rollout/r1/whoami"} {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+path, strings.NewReader("{}"))
		resp, body := do(t, req)
		check401(t, resp, body, `{"error":"Missing bearer token"}`, `Bearer realm="gym"`)
	}
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/whoami", strings.NewReader("{}"))
	req.Header.Set("Authorization", "bearer env-key") // the scheme in any case
	if resp, body := do(t, req); resp.StatusCode != 200 || body != `{"principal":"env-bot"}` {
		t.Errorf("POST /whoami with the key: %d %s", resp.StatusCode, body)
	}
	req, _ = http.NewRequest(http.MethodGet, ts.URL+"/", nil)
	if resp, _ := do(t, req); resp.StatusCode != 200 {
		t.Errorf("GET / (liveness) with auth.http: %d, want 200", resp.StatusCode)
	}
}

func TestAuthAPIKeysStartupErrors(t *testing.T) {
	t.Parallel()
	for name, cfg := range map[string]*config.AuthConfig{
		"no validator": {},
		"missing file": {APIKeys: &config.APIKeysConfig{File: filepath.Join(t.TempDir(), "none")}},
		"unset env":    {APIKeys: &config.APIKeysConfig{Env: "GYMKIT_TEST_UNSET_VARIABLE"}},
		"short secret": {JWT: &config.JWTConfig{HS256SecretEnv: "GYMKIT_TEST_UNSET_VARIABLE", Audience: "a"}},
		"missing pem":  {JWT: &config.JWTConfig{RS256PublicKeyFile: filepath.Join(t.TempDir(), "none.pem"), Audience: "a"}},
	} {
		_, err := server.NewInstance(context.Background(), &authEnv{}, configtest.Over(config.Instance{Name: "x", ServerType: "x", Auth: cfg}), server.InstanceOptions{})
		if err == nil {
			t.Errorf("%s: NewInstance succeeded", name)
		}
	}
}

func TestAuthJWT(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	secretFile := filepath.Join(dir, "hs")
	if err := os.WriteFile(secretFile, []byte(hsSecret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKIXPublicKey(&rsaKey.PublicKey)
	pemFile := filepath.Join(dir, "pub.pem")
	if err := os.WriteFile(pemFile, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	claims := func(aud string, exp time.Time) jwt.MapClaims {
		return jwt.MapClaims{"sub": "user-42", "aud": aud, "iss": "https://id.example.com", "exp": exp.Unix(), "iat": now.Unix()}
	}
	hs := func(c jwt.MapClaims) string {
		s, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString([]byte(hsSecret))
		return s
	}
	rs := func(c jwt.MapClaims) string {
		s, _ := jwt.NewWithClaims(jwt.SigningMethodRS256, c).SignedString(rsaKey)
		return s
	}
	good, expired, wrongAud := claims("gymkit", now.Add(time.Hour)), claims("gymkit", now.Add(-time.Hour)), claims("other", now.Add(time.Hour))
	noExp := jwt.MapClaims{"sub": "user-42", "aud": "gymkit", "iss": "https://id.example.com"}
	withinLeeway := claims("gymkit", now.Add(-5*time.Second))
	cases := []struct {
		name string
		cfg  config.JWTConfig
		sign func(jwt.MapClaims) string
		bad  func(jwt.MapClaims) string // the other algorithm
	}{
		{"HS256", config.JWTConfig{HS256SecretFile: secretFile, Audience: "gymkit", Issuer: "https://id.example.com", Leeway: 30 * time.Second}, hs, rs},
		{"RS256", config.JWTConfig{RS256PublicKeyFile: pemFile, Audience: "gymkit", Issuer: "https://id.example.com", Leeway: 30 * time.Second}, rs, hs},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := &authEnv{}
			ts, _ := startAuth(t, env, configtest.Over(config.Instance{Auth: &config.AuthConfig{JWT: &tc.cfg}}))
			for _, c := range []jwt.MapClaims{good, withinLeeway} {
				if got, err := sdkWhoami(t, ts.URL, tc.sign(c)); err != nil || got != "user-42" {
					t.Errorf("good token: principal %q, %v", got, err)
				}
			}
			calls := env.calls.Load()
			for name, tok := range map[string]string{"expired": tc.sign(expired), "wrong audience": tc.sign(wrongAud),
				"no exp": tc.sign(noExp), "other algorithm": tc.bad(good), "garbage": "a.b.c"} {
				resp, body := authPost(t, ts.URL, callMsg, map[string]string{"Authorization": "Bearer " + tok})
				if resp.StatusCode != 401 || body != `{"error":"Invalid or unauthorized token"}` {
					t.Errorf("%s: %d %s", name, resp.StatusCode, body)
				}
			}
			if env.calls.Load() != calls {
				t.Error("a refused token ran the tool")
			}
		})
	}
}

func TestAuthHook(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "keys")
	_ = os.WriteFile(file, []byte(keyLine("ci-bot", "k1")), 0o600)
	env := &hookEnv{}
	ts, _ := startAuth(t, env, configtest.Over(config.Instance{Auth: &config.AuthConfig{HTTP: true, APIKeys: &config.APIKeysConfig{File: file}}}))
	if got, err := sdkWhoami(t, ts.URL, "let-me-in"); err != nil || got != "hooked-user" {
		t.Errorf("hook token over MCP: principal %q, %v", got, err)
	}
	if got, err := sdkWhoami(t, ts.URL, "k1"); err != nil || got != "ci-bot" {
		t.Errorf("API key beside the hook: principal %q, %v", got, err)
	}
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/whoami", strings.NewReader("{}"))
	req.Header.Set("Authorization", "Bearer let-me-in")
	if resp, body := do(t, req); resp.StatusCode != 200 || body != `{"principal":"hooked-user"}` {
		t.Errorf("hook token over HTTP: %d %s", resp.StatusCode, body)
	}
	for _, p := range []string{"hooked-user", "ci-bot"} {
		if _, ok := env.seen.Load(p); !ok {
			t.Errorf("the interceptor did not see the principal %q", p)
		}
	}
	resp, body := authPost(t, ts.URL, initMsg, map[string]string{"Authorization": "Bearer other"})
	check401(t, resp, body, `{"error":"Invalid or unauthorized token"}`, "Bearer")

	// Hook only: auth: {} is enough.
	ts2, _ := startAuth(t, &hookEnv{}, configtest.Over(config.Instance{Auth: &config.AuthConfig{}}))
	if got, err := sdkWhoami(t, ts2.URL, "let-me-in"); err != nil || got != "hooked-user" {
		t.Errorf("hook only: principal %q, %v", got, err)
	}
	// Without an auth block the hook is not used: NeMo's behaviour.
	ts3, _ := startAuth(t, &hookEnv{}, configtest.Over(config.Instance{}))
	if resp, _ := authPost(t, ts3.URL, initMsg, nil); resp.StatusCode != 200 {
		t.Errorf("no auth block: initialize answered %d", resp.StatusCode)
	}
}

// TestAuthSessionTokenIsNoBearer: a rollout's NeMo session token does not
// stand for the bearer token.
func TestAuthSessionTokenIsNoBearer(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "keys")
	_ = os.WriteFile(file, []byte(keyLine("ci", "k1")), 0o600)
	ts, _ := startAuth(t, &authEnv{}, configtest.Over(config.Instance{Auth: &config.AuthConfig{APIKeys: &config.APIKeysConfig{File: file}}}))
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/seed_session", strings.NewReader("{}"))
	resp, body := do(t, req)
	var seed struct {
		MCP struct {
			Headers map[string]string `json:"headers"`
		} `json:"mcp"`
	}
	if err := json.Unmarshal([]byte(body), &seed); resp.StatusCode != 200 || err != nil || len(seed.MCP.Headers) == 0 {
		t.Fatalf("seed: %d %s", resp.StatusCode, body)
	}
	resp, body = authPost(t, ts.URL, callMsg, seed.MCP.Headers)
	check401(t, resp, body, `{"error":"Missing bearer token"}`, "Bearer")
	hdr := map[string]string{"Authorization": "Bearer k1"}
	for k, v := range seed.MCP.Headers {
		hdr[k] = v
	}
	if resp, body = authPost(t, ts.URL, callMsg, hdr); resp.StatusCode != 200 || !strings.Contains(body, `"principal\":\"ci\"`) {
		t.Errorf("session token + bearer: %d %s", resp.StatusCode, body)
	}
}

func preflight(t *testing.T, url, origin string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodOptions, url+"/mcp", nil)
	req.Header.Set("Origin", origin)
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "content-type, authorization, mcp-protocol-version")
	resp, _ := do(t, req)
	return resp
}

func TestCORS(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "keys")
	_ = os.WriteFile(file, []byte(keyLine("ci", "k1")), 0o600)
	const origin = "https://inspector.example.com"
	ts, _ := startAuth(t, &authEnv{}, configtest.Over(config.Instance{
		Auth: &config.AuthConfig{APIKeys: &config.APIKeysConfig{File: file}},
		CORS: &config.CORSConfig{AllowedOrigins: []string{origin}, MaxAge: 5 * time.Minute}}))

	resp := preflight(t, ts.URL, origin)
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Origin") != origin ||
		resp.Header.Get("Access-Control-Max-Age") != "300" {
		t.Errorf("allowed preflight: %d %v", resp.StatusCode, resp.Header)
	}
	for _, h := range []string{"Content-Type", "Authorization", "Mcp-Session-Id", "Mcp-Protocol-Version", "X-NeMo-Gym-Session-Token"} {
		if !strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), h) {
			t.Errorf("Access-Control-Allow-Headers lacks %s: %q", h, resp.Header.Get("Access-Control-Allow-Headers"))
		}
	}
	if m := resp.Header.Get("Access-Control-Allow-Methods"); m != "POST, GET, DELETE, OPTIONS" {
		t.Errorf("Access-Control-Allow-Methods = %q", m)
	}
	resp = preflight(t, ts.URL, "https://evil.example.com")
	if resp.StatusCode != http.StatusForbidden || resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("refused preflight: %d %v", resp.StatusCode, resp.Header)
	}
	// An actual request from the allowed origin: its 401 is readable, and
	// with the token it passes the DNS-rebinding Origin check (the
	// instance listens on loopback).
	resp, body := authPost(t, ts.URL, initMsg, map[string]string{"Origin": origin})
	if resp.StatusCode != 401 || resp.Header.Get("Access-Control-Allow-Origin") != origin ||
		!strings.Contains(resp.Header.Get("Access-Control-Expose-Headers"), "WWW-Authenticate") {
		t.Errorf("401 to the allowed origin: %d %s %v", resp.StatusCode, body, resp.Header)
	}
	resp, body = authPost(t, ts.URL, initMsg, map[string]string{"Origin": origin, "Authorization": "Bearer k1"})
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != origin {
		t.Errorf("initialize from the allowed origin: %d %s", resp.StatusCode, body)
	}
	resp, body = authPost(t, ts.URL, initMsg, map[string]string{"Origin": "https://evil.example.com", "Authorization": "Bearer k1"})
	if resp.StatusCode != 403 || resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("initialize from another origin: %d %s, want the rebinding 403", resp.StatusCode, body)
	}
}

func TestCORSUnset(t *testing.T) {
	t.Parallel()
	ts, _ := startAuth(t, &authEnv{}, configtest.Over(config.Instance{}))
	resp := preflight(t, ts.URL, "https://inspector.example.com")
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("OPTIONS /mcp without cors: %d %v, want today's 405", resp.StatusCode, resp.Header)
	}
	resp, body := authPost(t, ts.URL, initMsg, map[string]string{"Origin": "https://inspector.example.com"})
	if resp.StatusCode != 403 {
		t.Errorf("foreign Origin without cors: %d %s, want 403", resp.StatusCode, body)
	}
}
