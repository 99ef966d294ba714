package authn

import (
	"context"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/golang-jwt/jwt/v5"

	"github.com/gymkit/gymkit/config"
)

type apiKey struct {
	name string
	hash [sha256.Size]byte
}

// APIKeys reads the key lists of cfg (its file and its environment
// variable; see config.APIKeysConfig) and returns a validator that accepts
// a token whose SHA-256 is one of them, with the key's name as the
// principal. The hashes are compared in constant time, all of them for
// every token. The error names the source and the line, never a hash.
func APIKeys(cfg config.APIKeysConfig) (Validator, error) {
	var keys []apiKey
	if cfg.File != "" {
		b, err := os.ReadFile(cfg.File)
		if err != nil {
			return nil, fmt.Errorf("auth.api_keys.file: %w", err)
		}
		ks, err := parseKeys(string(b), "\n")
		if err != nil {
			return nil, fmt.Errorf("auth.api_keys.file %s: %w", cfg.File, err)
		}
		keys = append(keys, ks...)
	}
	if cfg.Env != "" {
		v := os.Getenv(cfg.Env)
		if strings.TrimSpace(v) == "" {
			return nil, fmt.Errorf("auth.api_keys.env: the environment variable %s is unset or empty", cfg.Env)
		}
		ks, err := parseKeys(v, "\n,")
		if err != nil {
			return nil, fmt.Errorf("auth.api_keys.env %s: %w", cfg.Env, err)
		}
		keys = append(keys, ks...)
	}
	if len(keys) == 0 {
		return nil, errors.New("auth.api_keys: no key is listed")
	}
	return func(_ context.Context, token string) (any, error) {
		sum := sha256.Sum256([]byte(token))
		found := -1
		for i := range keys {
			if subtle.ConstantTimeCompare(sum[:], keys[i].hash[:]) == 1 && found < 0 {
				found = i
			}
		}
		if found < 0 {
			return nil, errors.New("api key: no key matches")
		}
		return keys[found].name, nil
	}, nil
}

// parseKeys reads "<name>:<sha256 hex>" entries separated by any of seps,
// skipping blank entries and those starting with #.
func parseKeys(s, seps string) ([]apiKey, error) {
	var keys []apiKey
	entries := strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(seps, r) })
	n := 0
	for _, e := range entries {
		n++
		e = strings.TrimSpace(e)
		if e == "" || strings.HasPrefix(e, "#") {
			continue
		}
		name, h, ok := strings.Cut(e, ":")
		name, h = strings.TrimSpace(name), strings.TrimSpace(h)
		b, err := hex.DecodeString(h)
		if !ok || name == "" || err != nil || len(b) != sha256.Size {
			return nil, fmt.Errorf("entry %d: want <name>:<sha256 hex, 64 digits>", n)
		}
		var k apiKey
		k.name = name
		copy(k.hash[:], b)
		keys = append(keys, k)
	}
	return keys, nil
}

// JWT returns a validator of JSON Web Tokens as cfg says (see
// config.JWTConfig): the one algorithm of its key (HS256 or RS256), exp
// required, aud containing cfg.Audience, iss equal to cfg.Issuer when set,
// cfg.Leeway on the times, and a non-empty sub: the principal. It reads the
// key at once; the error names the source, never the key.
func JWT(cfg config.JWTConfig) (Validator, error) {
	var key any
	var alg string
	switch {
	case cfg.HS256SecretFile != "" || cfg.HS256SecretEnv != "":
		alg = "HS256"
		secret := os.Getenv(cfg.HS256SecretEnv)
		src := "auth.jwt.hs256_secret_env " + cfg.HS256SecretEnv
		if cfg.HS256SecretFile != "" {
			src = "auth.jwt.hs256_secret_file " + cfg.HS256SecretFile
			b, err := os.ReadFile(cfg.HS256SecretFile)
			if err != nil {
				return nil, fmt.Errorf("auth.jwt.hs256_secret_file: %w", err)
			}
			secret = string(b)
		}
		secret = strings.TrimSpace(secret)
		if len(secret) < 32 {
			return nil, fmt.Errorf("%s: the HS256 secret must be at least 32 bytes, got %d", src, len(secret))
		}
		key = []byte(secret)
	case cfg.RS256PublicKeyFile != "":
		alg = "RS256"
		b, err := os.ReadFile(cfg.RS256PublicKeyFile)
		if err != nil {
			return nil, fmt.Errorf("auth.jwt.rs256_public_key_file: %w", err)
		}
		pub, err := jwt.ParseRSAPublicKeyFromPEM(b)
		if err != nil {
			return nil, fmt.Errorf("auth.jwt.rs256_public_key_file %s: %w", cfg.RS256PublicKeyFile, err)
		}
		key = (*rsa.PublicKey)(pub)
	default:
		return nil, errors.New("auth.jwt: no key configured")
	}
	if cfg.Audience == "" {
		return nil, errors.New("auth.jwt.audience is required")
	}
	popts := []jwt.ParserOption{jwt.WithValidMethods([]string{alg}), jwt.WithAudience(cfg.Audience),
		jwt.WithExpirationRequired(), jwt.WithLeeway(cfg.Leeway), jwt.WithIssuedAt()}
	if cfg.Issuer != "" {
		popts = append(popts, jwt.WithIssuer(cfg.Issuer))
	}
	parser := jwt.NewParser(popts...)
	keyFunc := func(*jwt.Token) (any, error) { return key, nil }
	return func(_ context.Context, token string) (any, error) {
		claims := jwt.MapClaims{}
		if _, err := parser.ParseWithClaims(token, claims, keyFunc); err != nil {
			return nil, fmt.Errorf("jwt: %w", err)
		}
		sub, err := claims.GetSubject()
		if err != nil || sub == "" {
			return nil, errors.New("jwt: the token has no sub claim")
		}
		return sub, nil
	}, nil
}
