package config

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestMergeOrder(t *testing.T) {
	t.Parallel()
	dir := writeDir(t, map[string]string{
		"a.yaml": server("w", "port: 1001", "host: 0.0.0.0", "nested: {x: a, y: a}", "list: [1, 2]", "only_a: a", "date: 2024-01-01") + "shared: a\n",
		"b.yaml": server("w", "port: 1002", "nested: {y: b}", "list: [3]") + "shared: b\n",
		"c.yaml": server("w", "port: 1003") + "shared: c\nother: c\n",
	})
	c := mustLoad(t, opts(dir, []string{"a.yaml", "b.yaml", "c.yaml"}))
	inst, ok := c.Instance("w")
	if !ok {
		t.Fatal("instance w not found")
	}
	if inst.Port != 1003 || inst.Host != "0.0.0.0" {
		t.Errorf("port, host = %d, %q; want 1003, 0.0.0.0", inst.Port, inst.Host)
	}
	tests := map[string]any{
		"w.resources_servers.w.nested": map[string]any{"x": "a", "y": "b"}, // mappings merge deeply
		"w.resources_servers.w.list":   []any{3},                           // lists are replaced
		"w.resources_servers.w.only_a": "a",
		"w.resources_servers.w.date":   "2024-01-01",
		"shared":                       "c",
		"other":                        "c",
	}
	for key, want := range tests {
		if got := lookup(t, c, key); !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %#v, want %#v", key, got, want)
		}
	}
	if got, want := c.Files(), []string{"a.yaml", "b.yaml", "c.yaml"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Files() = %v, want %v", got, want)
	}
	// The instance is located where its block was first defined.
	if inst.File != "a.yaml" || inst.Line != 3 {
		t.Errorf("File:Line = %s:%d, want a.yaml:3", inst.File, inst.Line)
	}
}

func TestEnvYAMLPrecedence(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		files     map[string]string
		overrides []string
		want      any
	}{
		{"file only", map[string]string{"c.yaml": server("w") + "k: file\n"}, nil, "file"},
		{"env.yaml wins over files", map[string]string{"c.yaml": server("w") + "k: file\n", "env.yaml": "k: env\n"}, nil, "env"},
		{"override wins over env.yaml", map[string]string{"c.yaml": server("w") + "k: file\n", "env.yaml": "k: env\n"}, []string{"k=cli"}, "cli"},
		{"env.yaml adds keys", map[string]string{"c.yaml": server("w", "secret: ${api_key}"), "env.yaml": "api_key: s3cret\n"}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := writeDir(t, tt.files)
			c := mustLoad(t, opts(dir, []string{"c.yaml"}, tt.overrides...))
			if tt.want == nil {
				inst, _ := c.Instance("w")
				if got := inst.Raw["secret"]; got != "s3cret" {
					t.Errorf("secret = %v, want s3cret", got)
				}
				return
			}
			if got := lookup(t, c, "k"); got != tt.want {
				t.Errorf("k = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestEnvYAMLIsLastFile(t *testing.T) {
	t.Parallel()
	dir := writeDir(t, map[string]string{"c.yaml": server("w"), "env.yaml": "x: 1\n"})
	c := mustLoad(t, opts(dir, []string{"c.yaml"}))
	want := []string{"c.yaml", filepath.Join(dir, "env.yaml")}
	if got := c.Files(); !reflect.DeepEqual(got, want) {
		t.Errorf("Files() = %v, want %v", got, want)
	}
}

func TestOverrideForms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		override string
		key      string
		want     any
	}{
		{"x.v=9000", "x.v", 9000},
		{"+x.v=9000", "x.v", 9000},
		{"++x.v=9000", "x.v", 9000},
		{"x.v=true", "x.v", true},
		{"x.v=false", "x.v", false},
		{"x.v=null", "x.v", nil},
		{"x.v=1.5", "x.v", 1.5},
		{"x.v=hello", "x.v", "hello"},
		{"x.v=hello world", "x.v", "hello world"},
		{`x.v="9000"`, "x.v", "9000"},
		{"x.v='true'", "x.v", "true"},
		{"x.v=", "x.v", ""},
		{"x.v=[a, b]", "x.v", []any{"a", "b"}},
		{"x.v=[1, [2]]", "x.v", []any{1, []any{2}}},
		{"x.v={k: v, n: 1}", "x.v", map[string]any{"k": "v", "n": 1}},
		{"x.v=a=b", "x.v", "a=b"},
		{"x.v=2024-01-01", "x.v", "2024-01-01"}, // dates stay strings, as in OmegaConf
		{"x.v=k: v", "x.v", "k: v"},             // not a flow mapping: stays a string
		{"x.v=http://h:80/p", "x.v", "http://h:80/p"},
		{"x.v=${x.existing}", "x.v", "old"},
		{"x.existing=new", "x.existing", "new"},
		{"brand.new.deep.key=1", "brand.new.deep.key", 1},
		{"x={added: 1}", "x.existing", "old"}, // a mapping merges into the mapping there
		{"x={added: 1}", "x.added", 1},
	}
	dir := writeDir(t, map[string]string{"c.yaml": server("w") + "x:\n  existing: old\n"})
	for _, tt := range tests {
		t.Run(tt.override, func(t *testing.T) {
			t.Parallel()
			c := mustLoad(t, opts(dir, []string{"c.yaml"}, tt.override))
			if got := lookup(t, c, tt.key); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("%s = %#v, want %#v", tt.key, got, tt.want)
			}
		})
	}
}

func TestOverridesApplyInOrder(t *testing.T) {
	t.Parallel()
	dir := writeDir(t, map[string]string{"c.yaml": server("w")})
	c := mustLoad(t, opts(dir, []string{"c.yaml"}, "a=1", "a=2", "w.resources_servers.w.port=9000"))
	if got := lookup(t, c, "a"); got != 2 {
		t.Errorf("a = %v, want 2", got)
	}
	inst, _ := c.Instance("w")
	if inst.Port != 9000 {
		t.Errorf("port = %d, want 9000", inst.Port)
	}
	p := findProblem(t, problemsOf(t, func() error {
		_, err := Load(opts(dir, []string{"c.yaml"}, "w.resources_servers.w.port=x"))
		return err
	}()), "w.resources_servers.w.port")
	if p.File != commandLine {
		t.Errorf("File = %q, want %q", p.File, commandLine)
	}
}

func TestMalformedOverrides(t *testing.T) {
	t.Parallel()
	dir := writeDir(t, map[string]string{"c.yaml": server("w")})
	bad := []string{"noequals", "=v", "a..b=1", "~a.b", "a b=1", "a.b=[unclosed", "a[0]=1"}
	_, err := Load(opts(dir, []string{"c.yaml"}, append([]string{"fine=1"}, bad...)...))
	ps := problemsOf(t, err)
	if len(ps) != len(bad) {
		t.Fatalf("got %d problems, want %d:\n%v", len(ps), len(bad), err)
	}
	for i, p := range ps {
		if p.File != commandLine || !strings.Contains(p.Message, bad[i]) {
			t.Errorf("problem %d = %v; want it to name %q", i, p, bad[i])
		}
	}
}

func TestConfigPaths(t *testing.T) {
	t.Parallel()
	dir := writeDir(t, map[string]string{
		"top.yaml":         "config_paths: [inc/base.yaml, inc/other.yaml]\n" + server("w", "port: 3") + "k: top\n",
		"inc/base.yaml":    "config_paths: [inc/deeper.yaml]\n" + server("w", "port: 1", "from_base: yes") + "k: base\n",
		"inc/deeper.yaml":  server("w", "port: 0") + "k: deeper\nd: deeper\n",
		"inc/other.yaml":   "k: other\no: other\n",
		"later.yaml":       "k: later\n",
		"cli/include.yaml": "k: cli\n",
	})
	c := mustLoad(t, opts(dir, []string{"top.yaml", "later.yaml"}))
	want := []string{"inc/deeper.yaml", "inc/base.yaml", "inc/other.yaml", "top.yaml", "later.yaml"}
	if got := c.Files(); !reflect.DeepEqual(got, want) {
		t.Errorf("Files() = %v, want %v", got, want)
	}
	inst, _ := c.Instance("w")
	if inst.Port != 3 || inst.Raw["from_base"] != "yes" {
		t.Errorf("port %d, from_base %v; want 3 and yes", inst.Port, inst.Raw["from_base"])
	}
	if got := lookup(t, c, "k"); got != "later" {
		t.Errorf("k = %v, want later", got)
	}

	// NeMo's legacy +config_paths=[...] on the command line.
	c = mustLoad(t, opts(dir, nil, "+config_paths=[top.yaml, cli/include.yaml]"))
	if got := lookup(t, c, "k"); got != "cli" {
		t.Errorf("k = %v, want cli", got)
	}

	_, err := Load(opts(writeDir(t, map[string]string{"c.yaml": "config_paths: nope\n" + server("w")}), []string{"c.yaml"}))
	if p := findProblem(t, problemsOf(t, err), "config_paths"); p.File != "c.yaml" || p.Line != 1 {
		t.Errorf("problem at %s:%d, want c.yaml:1", p.File, p.Line)
	}
}

func TestFileProblems(t *testing.T) {
	t.Parallel()
	dir := writeDir(t, map[string]string{
		"syntax.yaml": "a:\n  b: 1\n c: [\n",
		"dup.yaml":    "a: 1\nb: 2\na: 3\n",
		"list.yaml":   "- a\n- b\n",
		"empty.yaml":  "",
		"ok.yaml":     server("w"),
	})
	_, err := Load(opts(dir, []string{"ok.yaml", "missing.yaml", "syntax.yaml", "dup.yaml", "list.yaml", "empty.yaml"}))
	ps := problemsOf(t, err)
	want := []struct {
		file string
		line int
		msg  string
	}{
		{"missing.yaml", 0, "cannot read the file"},
		{"syntax.yaml", 2, "invalid YAML"},
		{"dup.yaml", 3, `mapping key "a" already defined at line 1`},
		{"list.yaml", 1, "must be a mapping"},
	}
	if len(ps) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%v", len(ps), len(want), err)
	}
	for i, w := range want {
		if p := ps[i]; p.File != w.file || p.Line != w.line || !strings.Contains(p.Message, w.msg) {
			t.Errorf("problem %d = %v, want %s:%d ...%s...", i, p, w.file, w.line, w.msg)
		}
	}
}

func TestNoInstance(t *testing.T) {
	t.Parallel()
	dir := writeDir(t, map[string]string{"c.yaml": "a: 1\n"})
	_, err := Load(opts(dir, []string{"c.yaml"}))
	if ps := problemsOf(t, err); len(ps) != 1 || !strings.Contains(ps[0].Message, "no resources server instance") {
		t.Errorf("err = %v", err)
	}
}
