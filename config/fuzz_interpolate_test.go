package config

import (
	"strings"
	"testing"
)

// FuzzInterpolate resolves an arbitrary value (and a second one that
// refers to it) in a small tree: resolving never panics or hangs, a failure
// is always recorded as a problem at a key, a value without "${" is kept as
// written, and a successful resolution leaves no unescaped interpolation
// of the tree's keys behind.
func FuzzInterpolate(f *testing.F) {
	for _, s := range []string{
		"", "plain", "${base.port}", "${base.list[1]}", "${base.list.9}", "${.sibling}", "${..w.sibling}",
		"${servers.${base.which}.port}", `\${base.port}`, "${oc.env:GK_SET}", "${oc.env:GK_UNSET,dflt}",
		"${oc.env:GK_UNSET,'a,b'}", "${oc.decode:${oc.env:GK_PORT}}", "${oc.decode:[1, {a: 2}]}",
		"${w.v}", "${w.other}", "${", "${}", "${base.port", "}", "${oc.unknown:x}", "${oc.env:}",
		"${base.map}x", "${...x}", "${base.list[}", "${base.list[-1]}", "${base.list[99999999999999999999]}",
		"${oc.decode:'unterminated}", "${a${b}}", "???", strings.Repeat("${", 200),
	} {
		f.Add(s)
	}
	env := map[string]string{"GK_SET": "from-env", "GK_PORT": "9000", "GK_SELF": "${w.v}"}
	lookupEnv := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	f.Fuzz(func(t *testing.T, value string) {
		if _, err := parseTemplate(value); err != nil && !strings.Contains(value, "${") {
			t.Fatalf("parseTemplate(%q) fails without an interpolation: %v", value, err)
		}
		root := map[string]any{
			"base": map[string]any{"port": 8080, "list": []any{10, 20}, "map": map[string]any{"a": 1},
				"which": "second", "host": "example.com"},
			"servers": map[string]any{"second": map[string]any{"port": 2}},
			"w":       map[string]any{"v": value, "other": "<${w.v}>", "sibling": "sib"},
		}
		r := newResolver(root, lookupEnv)
		for _, key := range []keyPath{{"w", "v"}, {"w", "other"}} {
			v, found, err := r.lookup(key)
			if !found {
				t.Fatalf("%s not found", key)
			}
			if err != nil {
				continue
			}
			if s, ok := v.(string); ok && key.String() == "w.v" && !strings.Contains(value, "${") && s != value {
				t.Fatalf("%q without an interpolation resolved to %q", value, s)
			}
		}
		for _, p := range r.takeProblems() {
			if p.key == "" || p.msg == "" {
				t.Fatalf("a problem without key or message: %+v", p)
			}
		}
	})
}
