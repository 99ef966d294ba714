package config

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"testing"
)

func TestSessionSecretKeys(t *testing.T) {
	t.Parallel()
	const s1, s2 = "secret-one-0123456789abcdef-0123456789", "secret-two-0123456789abcdef-0123456789"
	tests := []struct {
		name  string
		lines []string
		env   map[string]string
		want  Secrets
	}{
		{"unset", nil, nil, nil},
		{"empty", []string{"session_secret: ''"}, nil, nil},
		{"null", []string{"session_secret: null"}, nil, nil},
		{"empty list", []string{"session_secret: []"}, nil, nil},
		{"string", []string{"session_secret: " + s1}, nil, Secrets{s1}},
		{"list: rotation", []string{"session_secret: [" + s1 + ", " + s2 + "]"}, nil, Secrets{s1, s2}},
		{"older name", []string{"mcp_token_secret: " + s1}, nil, Secrets{s1}},
		{"older name from the environment, as shipped", []string{"mcp_token_secret: ${oc.env:GYMKIT_MCP_TOKEN_SECRET,''}"},
			map[string]string{"GYMKIT_MCP_TOKEN_SECRET": s1}, Secrets{s1}},
		{"shipped, variable unset", []string{"mcp_token_secret: ${oc.env:GYMKIT_MCP_TOKEN_SECRET,''}"}, nil, nil},
		{"both, equal", []string{"session_secret: " + s1, "mcp_token_secret: " + s1}, nil, Secrets{s1}},
		{"older name empty beside", []string{"session_secret: " + s1, "mcp_token_secret: ''"}, nil, Secrets{s1}},
		{"new name with the older as default", []string{"session_secret: ${oc.env:GYMKIT_SESSION_SECRET,${oc.env:GYMKIT_MCP_TOKEN_SECRET,''}}"},
			map[string]string{"GYMKIT_MCP_TOKEN_SECRET": s2}, Secrets{s2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := writeDir(t, map[string]string{"c.yaml": server("w", append(tt.lines, "allow_weak_secret: true")...)})
			o := opts(dir, []string{"c.yaml"})
			o.LookupEnv = envMap(tt.env)
			c := mustLoad(t, o)
			inst, _ := c.Instance("w")
			if !reflect.DeepEqual(inst.SessionSecrets, tt.want) || !inst.AllowWeakSecret {
				t.Errorf("secrets %d %v, weak %v; want %d", len(inst.SessionSecrets), []string(inst.SessionSecrets), inst.AllowWeakSecret, len(tt.want))
			}
			for _, k := range []string{"session_secret", "mcp_token_secret"} {
				if v, ok := inst.Raw[k]; ok && v != nil && v != "" && v != Redacted {
					t.Errorf("Raw[%s] = %v, want %q", k, v, Redacted)
				}
			}
		})
	}
}

func TestSessionSecretProblems(t *testing.T) {
	t.Parallel()
	const blk = "w.resources_servers.w"
	const secret = "TOPSECRET-0123456789abcdef-0123456789"
	tests := []struct {
		name, line, key, message string
	}{
		{"both differ", "session_secret: " + secret + "\n      mcp_token_secret: other-" + secret, blk + ".mcp_token_secret", "is the older name of session_secret, and both are set to different values"},
		{"number", "session_secret: 123456789012345678901234567890123", blk + ".session_secret", "must be a string or a list of strings (the first signs, all verify), got a number"},
		{"mapping", "session_secret: {a: " + secret + "}", blk + ".session_secret", "must be a string or a list of strings"},
		{"list entry not a string", "session_secret: [" + secret + ", 5]", blk + ".session_secret[1]", "must be a string (a secret), got a number"},
		{"list entry empty", "session_secret: [" + secret + ", '']", blk + ".session_secret[1]", "is empty"},
		{"allow_weak_secret type", "allow_weak_secret: sometimes", blk + ".allow_weak_secret", "expected true or false"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := loadProblem(t, server("w", tt.line), tt.key)
			if !strings.Contains(p.Message, tt.message) {
				t.Errorf("message %q, want %q", p.Message, tt.message)
			}
			if strings.Contains(err.Error(), "TOPSECRET") || strings.Contains(err.Error(), "1234567890123") {
				t.Errorf("the error shows the secret: %v", err)
			}
		})
	}
}

// TestSecretsPrintRedacted: no fmt verb, slog or JSON shows a secret, in
// Secrets or in an Instance holding them.
func TestSecretsPrintRedacted(t *testing.T) {
	t.Parallel()
	s := Secrets{"TOPSECRET-a", "TOPSECRET-b"}
	inst := Instance{Name: "w", SessionSecrets: s, Raw: map[string]any{"session_secret": Redacted}}
	var logged strings.Builder
	slog.New(slog.NewTextHandler(&logged, nil)).Info("x", "secrets", s, "inst", inst)
	j, _ := json.Marshal(inst)
	for _, out := range []string{fmt.Sprint(s), fmt.Sprintf("%v %+v %#v %s %q %x", s, s, s, s, s, s),
		fmt.Sprintf("%v %+v %#v", inst, inst, inst), logged.String(), string(j)} {
		if strings.Contains(out, "TOPSECRET") {
			t.Errorf("printed a secret: %s", out)
		}
	}
	if got := fmt.Sprint(s); got != "<redacted> x2" {
		t.Errorf("Sprint = %q", got)
	}
}
