package cli

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// An instance name is the end of the session cookie's name, so one that is no HTTP token is
// refused as a config problem at its line, by every command that builds the instance, never a
// panic (session.NewManager used to panic on such a cookie name).
func TestInstanceNameNotACookieToken(t *testing.T) {
	names := []string{"météo", "a b", "a:b", "a,b", "a;b", "a=b", "a@b", "a/b", "a(b)", "a?b", "a{b}", `a\b`, `a"b`, "日本", "a\x1bb"}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := writeFile(t, dir, "c.yaml", "x: 1\n"+strconv.Quote(name)+":\n  resources_servers:\n    example_mcp_weather: {domain: agent}\n")
			r, _ := firstNonTokenRune(name)
			want := fmt.Sprintf("%s:2: %s: an instance name must be an HTTP token, since it ends the name of the session cookie, %q: "+
				"use ASCII letters, digits and !#$%%&'*+-.^_`|~; %s is not one (NeMo's agents drop such a cookie too, and lose the rollout's session)",
				cfg, shownKey(name), "example_mcp_weather___"+name, strconv.QuoteRune(r))
			for _, cmd := range [][]string{{"serve", "--config", cfg}, {"check", "--config", cfg}, {"tools", "--config", cfg}} {
				code, stdout, stderr := gymkit(t, cmd...)
				out := stdout + stderr
				if code != 2 || !strings.Contains(out, want+"\n") || strings.Contains(out, "panic") || strings.ContainsRune(out, 0x1b) {
					t.Errorf("gymkit %s: exit %d, output:\n%s\nwant exit 2 and the line\n%s", cmd[0], code, out, want)
				}
			}
		})
	}
	t.Run("serve --nemo", func(t *testing.T) {
		t.Setenv(envConfigDict, "\"météo\":\n  resources_servers:\n    example_mcp_weather: {domain: agent}\n")
		t.Setenv(envConfigPath, "météo")
		code, stdout, stderr := gymkit(t, "serve", "--nemo")
		want := `gymkit serve: config: NEMO_GYM_CONFIG_DICT:1: météo: an instance name must be an HTTP token, since it ends the name of the session cookie, "example_mcp_weather___météo": ` +
			"use ASCII letters, digits and !#$%&'*+-.^_`|~; 'é' is not one (NeMo's agents drop such a cookie too, and lose the rollout's session)\n"
		if code != 2 || stdout != "" || stderr != want {
			t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 2 and:\n%s", code, stdout, stderr, want)
		}
	})
}

// firstNonTokenRune is the first rune of s that an HTTP token cannot hold.
func firstNonTokenRune(s string) (rune, bool) {
	for _, r := range s {
		if r >= 0x80 || !strings.ContainsRune("!#$%&'*+-.^_`|~", r) && !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
			return r, true
		}
	}
	return 0, false
}

// shownKey is a key as a problem shows it: quoted when it holds a space or a rune that is not
// printable.
func shownKey(k string) string {
	if strings.ContainsAny(k, " \x1b") {
		return strconv.Quote(k)
	}
	return k
}
