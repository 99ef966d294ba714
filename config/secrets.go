package config

import (
	"fmt"
	"log/slog"
	"slices"
)

// Redacted is what [Instance.Raw] holds in place of a configured secret
// (session_secret, mcp_token_secret), and what [Secrets] prints as.
const Redacted = "<redacted>"

// Secrets is an instance's list of secrets ([Instance.SessionSecrets]): the
// first signs, all verify. It is a plain string slice to read; printing it
// by any fmt verb, with log/slog or as JSON shows "<redacted>" and the
// number of secrets, never a secret. The zero value (nil) means unset.
type Secrets []string

// Format implements fmt.Formatter: every verb prints "<redacted>" (with the
// count, "<redacted> x2", when there are several), or "[]" for none.
func (s Secrets) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(s.redacted())) }

// LogValue implements slog.LogValuer, as Format prints.
func (s Secrets) LogValue() slog.Value { return slog.StringValue(s.redacted()) }

// MarshalJSON encodes the redacted form as a JSON string.
func (s Secrets) MarshalJSON() ([]byte, error) { return []byte(`"` + s.redacted() + `"`), nil }

func (s Secrets) redacted() string {
	switch len(s) {
	case 0:
		return "[]"
	case 1:
		return Redacted
	}
	return fmt.Sprintf("%s x%d", Redacted, len(s))
}

// secrets reads session_secret and its older name mcp_token_secret from the
// framework keys of the block at bkey: each a string or a list of strings
// (null, "" and [] mean unset). Messages name the key and the rule, never a
// value.
func (c *Config) secrets(bkey string, data map[string]any, bad map[string]bool) (Secrets, Problems) {
	var ps Problems
	read := func(key string) (Secrets, bool) {
		v, ok := data[key]
		if !ok || bad[key] || c.res.failed[joinKey(bkey, key)] {
			return nil, ok
		}
		switch x := v.(type) {
		case nil:
			return nil, true
		case string:
			if x == "" {
				return nil, true
			}
			return Secrets{x}, true
		case []any:
			out := make(Secrets, 0, len(x))
			for i, e := range x {
				s, isString := e.(string)
				switch {
				case !isString:
					ps = append(ps, c.src.problem(fmt.Sprintf("%s[%d]", joinKey(bkey, key), i), "must be a string (a secret), got "+kind(e), ""))
				case s == "":
					ps = append(ps, c.src.problem(fmt.Sprintf("%s[%d]", joinKey(bkey, key), i), "is empty: every secret of the list must be set", ""))
				default:
					out = append(out, s)
				}
			}
			if len(out) == 0 {
				return nil, true
			}
			return out, true
		}
		ps = append(ps, c.src.problem(joinKey(bkey, key), "must be a string or a list of strings (the first signs, all verify), got "+kind(v), ""))
		return nil, true
	}
	cur, _ := read("session_secret")
	old, _ := read("mcp_token_secret")
	switch {
	case cur != nil && old != nil && !slices.Equal(cur, old):
		ps = append(ps, c.src.problem(joinKey(bkey, "mcp_token_secret"),
			"is the older name of session_secret, and both are set to different values: set only session_secret", ""))
		return cur, ps
	case cur != nil:
		return cur, ps
	}
	return old, ps
}

// kind names the type of a configuration value without showing it.
func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64:
		return "a number"
	case map[string]any:
		return "a mapping"
	case []any:
		return "a list"
	}
	return fmt.Sprintf("a %T", v)
}
