package config

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestAuthAndCORSBlocks(t *testing.T) {
	t.Parallel()
	dir := writeDir(t, map[string]string{"c.yaml": server("a",
		"auth: {http: true, realm: r, api_keys: {file: keys.txt, env: KEYS}, jwt: {hs256_secret_env: S, audience: aud, issuer: iss}}",
		"cors: {allowed_origins: ['https://app.example.com', 'http://localhost:6274'], max_age: 1m}") +
		server("b", "auth: {}", "cors: {}") + server("c", "auth: null", "cors: null") + server("d")})
	c := mustLoad(t, opts(dir, []string{"c.yaml"}))
	a, _ := c.Instance("a")
	want := &AuthConfig{HTTP: true, Realm: "r", APIKeys: &APIKeysConfig{File: "keys.txt", Env: "KEYS"},
		JWT: &JWTConfig{HS256SecretEnv: "S", Audience: "aud", Issuer: "iss", Leeway: DefaultJWTLeeway}}
	if !reflect.DeepEqual(a.Auth, want) {
		t.Errorf("a.Auth = %+v, want %+v", a.Auth, want)
	}
	wantCORS := &CORSConfig{AllowedOrigins: []string{"https://app.example.com", "http://localhost:6274"}, MaxAge: time.Minute}
	if !reflect.DeepEqual(a.CORS, wantCORS) {
		t.Errorf("a.CORS = %+v, want %+v", a.CORS, wantCORS)
	}
	if b, _ := c.Instance("b"); b.Auth == nil || b.CORS == nil || b.CORS.MaxAge != DefaultCORSMaxAge {
		t.Errorf("b: auth: {} / cors: {} gave %+v / %+v, want set blocks", b.Auth, b.CORS)
	}
	for _, name := range []string{"c", "d"} {
		if inst, _ := c.Instance(name); inst.Auth != nil || inst.CORS != nil {
			t.Errorf("%s: Auth %+v, CORS %+v, want nil (NeMo's behaviour)", name, inst.Auth, inst.CORS)
		}
	}
}

func TestAuthBlockProblems(t *testing.T) {
	t.Parallel()
	const blk = "w.resources_servers.w"
	tests := []struct {
		name, line, key, message string
	}{
		{"unknown key", "auth: {htp: true}", blk + ".auth.htp", "unknown key"},
		{"api_keys without source", "auth: {api_keys: {}}", blk + ".auth.api_keys", "must set file or env"},
		{"jwt without key", "auth: {jwt: {audience: a}}", blk + ".auth.jwt", "exactly one of"},
		{"jwt two keys", "auth: {jwt: {audience: a, hs256_secret_env: S, rs256_public_key_file: k.pem}}", blk + ".auth.jwt", "got 2"},
		{"jwt without audience", "auth: {jwt: {hs256_secret_env: S}}", blk + ".auth.jwt.audience", "is required"},
		{"jwt negative leeway", "auth: {jwt: {hs256_secret_env: S, audience: a, leeway: -1s}}", blk + ".auth.jwt.leeway", ">= 0"},
		{"cors bad origin", "cors: {allowed_origins: ['https://a.example.com/path']}", blk + ".cors.allowed_origins[0]", "must be an origin"},
		{"cors unknown key", "cors: {origins: [x]}", blk + ".cors.origins", "unknown key"},
		{"cors negative max_age", "cors: {max_age: -1s}", blk + ".cors.max_age", ">= 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if p, _ := loadProblem(t, server("w", tt.line), tt.key); !strings.Contains(p.Message, tt.message) {
				t.Errorf("problem = %+v\nwant message %q", p, tt.message)
			}
		})
	}
}
