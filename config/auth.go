package config

import (
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"time"
)

// AuthConfig is the auth block of a server block: bearer authentication of
// the MCP door (every request to /mcp) and, with HTTP true, of the HTTP
// routes. Absent or null (Instance.Auth nil), nothing is authenticated, as
// in NeMo Gym. Set, a request without a valid Authorization: Bearer <token>
// header is answered 401 before anything else reads it. A token is accepted
// by the first validator that accepts it: the API keys, then the JWT
// verifier, then the environment's framework.TokenValidator hook; at least
// one must be configured (the hook counts).
//
//	auth:
//	  http: true                          # the HTTP routes too (GET / stays open)
//	  api_keys: {file: /etc/gymkit/api_keys, env: GYMKIT_API_KEYS}
//	  jwt: {hs256_secret_env: JWT_SECRET, audience: gymkit, issuer: https://id.example.com}
type AuthConfig struct {
	// HTTP (auth.http, default false) requires the bearer token on the HTTP
	// routes too (/seed_session, the tools, /verify, /aggregate_metrics,
	// /close_session, ...), except GET / (the liveness answer).
	HTTP bool `koanf:"http"`
	// Realm (auth.realm) is the realm of the WWW-Authenticate header of a
	// 401 (default: the instance name).
	Realm string `koanf:"realm"`
	// APIKeys (auth.api_keys) are hashed API keys; nil when not configured.
	APIKeys *APIKeysConfig `koanf:"api_keys"`
	// JWT (auth.jwt) verifies JSON Web Tokens; nil when not configured.
	JWT *JWTConfig `koanf:"jwt"`
}

// APIKeysConfig is auth.api_keys: where the list of accepted API keys is
// read at startup. Each entry is "<name>:<sha256 hex>" (the hex SHA-256 of
// the key, 64 digits, any case), one per line in the file, separated by
// newlines or commas in the environment variable; blank lines and lines
// starting with # are skipped. The principal of a request is the key's
// name. At least one of File and Env is set; both may be (their lists are
// joined).
type APIKeysConfig struct {
	// File (auth.api_keys.file) is the path of the key list.
	File string `koanf:"file"`
	// Env (auth.api_keys.env) names the environment variable holding the
	// key list (an unset or empty variable is a startup error).
	Env string `koanf:"env"`
}

// JWTConfig is auth.jwt: JSON Web Tokens signed with HS256 (a shared
// secret) or RS256 (an RSA public key). A token must carry exp, aud (which
// must contain Audience), iss equal to Issuer when Issuer is set, and a
// non-empty sub, which is the principal. Exactly one of the key sources is
// set. The secret is never written in the YAML: it is read from a file or
// an environment variable at startup.
type JWTConfig struct {
	// HS256SecretFile (auth.jwt.hs256_secret_file) is the path of the HS256
	// secret (its content, surrounding white space trimmed).
	HS256SecretFile string `koanf:"hs256_secret_file"`
	// HS256SecretEnv (auth.jwt.hs256_secret_env) names the environment
	// variable holding the HS256 secret.
	HS256SecretEnv string `koanf:"hs256_secret_env"`
	// RS256PublicKeyFile (auth.jwt.rs256_public_key_file) is the path of the
	// PEM RSA public key (PKIX "PUBLIC KEY" or PKCS#1 "RSA PUBLIC KEY").
	RS256PublicKeyFile string `koanf:"rs256_public_key_file"`
	// Audience (auth.jwt.audience) must be one of the token's aud values.
	// Required.
	Audience string `koanf:"audience"`
	// Issuer (auth.jwt.issuer), when set, must equal the token's iss.
	Issuer string `koanf:"issuer"`
	// Leeway (auth.jwt.leeway, >= 0; default [DefaultJWTLeeway], 30s) is
	// the clock skew allowed on exp, nbf and iat.
	Leeway time.Duration `koanf:"leeway"`
}

// CORSConfig is the cors block of a server block: Cross-Origin Resource
// Sharing on the MCP door, for browser-based MCP clients. Absent or null
// (Instance.CORS nil), no origin is allowed and OPTIONS /mcp answers as
// without the block (405).
//
//	cors:
//	  allowed_origins: ["https://inspector.example.com", "http://localhost:6274"]
type CORSConfig struct {
	// AllowedOrigins (cors.allowed_origins) are the origins
	// (scheme://host[:port]) whose browsers may call /mcp: their preflight is
	// answered, their answers carry Access-Control-Allow-Origin, and they
	// pass the MCP door's DNS-rebinding Origin check. "*" allows any origin
	// (development only). Compared without regard to case.
	AllowedOrigins []string `koanf:"allowed_origins"`
	// MaxAge (cors.max_age, >= 0; default [DefaultCORSMaxAge], 10m) is how
	// long a browser may cache a preflight answer, sent in whole seconds.
	MaxAge time.Duration `koanf:"max_age"`
}

// authProblems reports the unknown keys of the auth and cors blocks and
// their invalid values, and defaults auth.jwt.leeway and cors.max_age.
// null for either block means absent.
func (c *Config) authProblems(bkey string, data map[string]any, fw *Instance, bad map[string]bool) Problems {
	var ps Problems
	problem := func(key, msg string) { ps = append(ps, c.src.problem(joinKey(bkey, key), msg, "")) }
	if raw, ok := data["auth"].(map[string]any); ok && !bad["auth"] {
		Instance{src: c.src}.unknownKeys(&ps, joinKey(bkey, "auth"), raw, reflect.TypeFor[AuthConfig](), false)
		if fw.Auth == nil {
			fw.Auth = &AuthConfig{}
		}
		if k := fw.Auth.APIKeys; k != nil && k.File == "" && k.Env == "" {
			problem("auth.api_keys", "must set file or env (where the list of hashed keys is read)")
		}
		if j := fw.Auth.JWT; j != nil {
			n := 0
			for _, s := range []string{j.HS256SecretFile, j.HS256SecretEnv, j.RS256PublicKeyFile} {
				if s != "" {
					n++
				}
			}
			if n != 1 {
				problem("auth.jwt", fmt.Sprintf("must set exactly one of hs256_secret_file, hs256_secret_env and rs256_public_key_file, got %d", n))
			}
			if j.Audience == "" {
				problem("auth.jwt.audience", "is required: the audience the tokens must be issued for")
			}
			jraw, _ := raw["jwt"].(map[string]any)
			if v, ok := jraw["leeway"]; !ok || v == nil {
				j.Leeway = DefaultJWTLeeway
			} else if j.Leeway < 0 {
				problem("auth.jwt.leeway", fmt.Sprintf("must be a duration >= 0, got %s", j.Leeway))
			}
		}
	}
	if raw, ok := data["cors"].(map[string]any); ok && !bad["cors"] {
		Instance{src: c.src}.unknownKeys(&ps, joinKey(bkey, "cors"), raw, reflect.TypeFor[CORSConfig](), false)
		if fw.CORS == nil {
			fw.CORS = &CORSConfig{}
		}
		for i, o := range fw.CORS.AllowedOrigins {
			if o == "*" {
				continue
			}
			if u, err := url.Parse(o); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
				u.Path != "" || u.RawQuery != "" || u.User != nil || strings.HasSuffix(o, "/") {
				problem(fmt.Sprintf("cors.allowed_origins[%d]", i),
					fmt.Sprintf("must be an origin scheme://host[:port] (http or https, no path) or \"*\", got %q", o))
			}
		}
		if v, ok := raw["max_age"]; !ok || v == nil {
			fw.CORS.MaxAge = DefaultCORSMaxAge
		} else if fw.CORS.MaxAge < 0 {
			problem("cors.max_age", fmt.Sprintf("must be a duration >= 0, got %s", fw.CORS.MaxAge))
		}
	}
	return ps
}
