package config

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

const interpYAML = `
base:
  port: 8080
  on: true
  ratio: 0.5
  whole: 2.0
  posinf: .inf
  neginf: -.inf
  notanumber: .nan
  map: {a: 1, b: [x, y]}
  list: [10, 20, 30]
  host: example.com
  nothing: null
  which: second
servers:
  first: {port: 1}
  second: {port: 2}
indirect: ${base.map}
mandatory: ???
`

func TestInterpolation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		value string // YAML value of w.resources_servers.w.v
		want  any
	}{
		{"whole int keeps type", "${base.port}", 8080},
		{"whole bool keeps type", "${base.on}", true},
		{"whole float keeps type", "${base.ratio}", 0.5},
		{"whole null", "${base.nothing}", nil},
		{"whole map keeps type", "${base.map}", map[string]any{"a": 1, "b": []any{"x", "y"}}},
		{"whole list keeps type", "${base.list}", []any{10, 20, 30}},
		{"list index brackets", "${base.list[1]}", 20},
		{"list index dotted", "${base.list.2}", 30},
		{"through an interpolated value", "${indirect.b[0]}", "x"},
		{"embedded in a string", "http://${base.host}:${base.port}/x", "http://example.com:8080/x"},
		{"embedded bool and float", "${base.on}-${base.ratio}-${base.whole}", "true-0.5-2.0"},
		{"embedded infinities and NaN", "${base.posinf} ${base.neginf} ${base.notanumber}", "inf -inf nan"},
		{"spaces around the key", "${ base.port }", 8080},
		{"nested key", "${servers.${base.which}.port}", 2},
		{"relative sibling", "${.sibling}", "sib"},
		{"relative parent", "${..w.sibling}", "sib"},
		{"escaped", `\${base.port}`, "${base.port}"},
		{"env set", "${oc.env:GK_SET}", "from-env"},
		{"env set ignores default", "${oc.env:GK_SET,dflt}", "from-env"},
		{"env default", "${oc.env:GK_UNSET,dflt}", "dflt"},
		{"env empty default", "${oc.env:GK_UNSET,}", ""},
		{"env quoted default", "${oc.env:GK_UNSET,'a,b'}", "a,b"},
		{"env null default", "${oc.env:GK_UNSET,null}", nil},
		{"env nested default is a string", "${oc.env:GK_UNSET,${base.port}}", "8080"},
		{"env numeric value is a string", "${oc.env:GK_PORT}", "9000"},
		{"decode env value", "${oc.decode:${oc.env:GK_PORT}}", 9000},
		{"decode default", "${oc.decode:${oc.env:GK_UNSET,[1, 2]}}", []any{1, 2}},
		{"env inside a string", "pre-${oc.env:GK_SET}-post", "pre-from-env-post"},
		{"no interpolation", "plain $ {text}", "plain $ {text}"},
	}
	env := map[string]string{"GK_SET": "from-env", "GK_PORT": "9000"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := writeDir(t, map[string]string{"c.yaml": interpYAML + server("w", "sibling: sib", "v: '"+strings.ReplaceAll(tt.value, "'", "''")+"'")})
			o := opts(dir, []string{"c.yaml"})
			o.LookupEnv = envMap(env)
			c := mustLoad(t, o)
			inst, _ := c.Instance("w")
			if got := inst.Raw["v"]; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("v = %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestInterpolationTypedFrameworkKeys(t *testing.T) {
	t.Parallel()
	dir := writeDir(t, map[string]string{"c.yaml": "ports: {w: 9100}\nmcp: true\n" +
		server("w", "port: ${ports.w}", "expose_tools_over_mcp: ${mcp}", "max_body_bytes: ${oc.decode:${oc.env:GK_MAX,1024}}")})
	c := mustLoad(t, opts(dir, []string{"c.yaml"}))
	inst, _ := c.Instance("w")
	if inst.Port != 9100 || !inst.ExposeToolsOverMCP || inst.MaxBodyBytes != 1024 {
		t.Errorf("port %d, mcp %v, max %d; want 9100, true, 1024", inst.Port, inst.ExposeToolsOverMCP, inst.MaxBodyBytes)
	}
}

func TestInterpolationProblems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		extra   string   // top-level YAML
		values  []string // lines of the server block
		key     string   // the problem's key
		message string
		suggest string
	}{
		{"missing key", "base: {port: 1}\n", []string{"v: ${base.prot}"}, "w.resources_servers.w.v", "key base.prot not found", "base.port"},
		{"missing top-level key", "default_port: 1\n", []string{"v: ${defualt_port}"}, "w.resources_servers.w.v", "key defualt_port not found", "default_port"},
		{"missing env", "", []string{"v: ${oc.env:GK_NOPE}"}, "w.resources_servers.w.v", "environment variable GK_NOPE is not set", ""},
		{"self cycle", "", []string{"v: ${w.resources_servers.w.v}"}, "w.resources_servers.w.v",
			"interpolation cycle: w.resources_servers.w.v -> w.resources_servers.w.v", ""},
		{"two-key cycle", "a: ${b}\nb: ${a}\n", []string{"v: ${a}"}, "a", "interpolation cycle: a -> b -> a", ""},
		{"cycle through a mapping", "m: {self: '${m}'}\n", []string{"v: ${m}"}, "m", "interpolation cycle: m -> m.self -> m", ""},
		{"reference to ???", "todo: ???\n", []string{"v: ${todo}"}, "w.resources_servers.w.v", "todo is ??? (a mandatory value that was never set)", ""},
		{"mapping in a string", "m: {a: 1}\n", []string{"v: x${m}"}, "w.resources_servers.w.v", "${m}: is a mapping, which cannot be part of a string", ""},
		{"unknown resolver", "", []string{"v: ${oc.evn:HOME}"}, "w.resources_servers.w.v", `unknown resolver "oc.evn"`, "oc.env"},
		{"inherit_from", "", []string{"v: ${inherit_from:x}"}, "w.resources_servers.w.v", "NeMo's inherit_from directive is not supported", ""},
		{"unterminated", "", []string{"v: ${a.b"}, "w.resources_servers.w.v", "unterminated interpolation", ""},
		{"empty", "", []string{"v: ${}"}, "w.resources_servers.w.v", "empty interpolation", ""},
		{"relative too far", "", []string{"v: ${.....x}"}, "w.resources_servers.w.v", "goes above the top level", ""},
		{"index out of range", "l: [1]\n", []string{"v: ${l[3]}"}, "w.resources_servers.w.v", "the list has 1 items", ""},
		{"broken referenced key is reported where it is", "a: ${nope}\n", []string{"v: ${a}"}, "a", "key nope not found", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, _ := loadProblem(t, tt.extra+server("w", tt.values...), tt.key)
			if !strings.Contains(p.Message, tt.message) || p.Suggestion != tt.suggest {
				t.Errorf("problem = %v\nwant message containing %q and suggestion %q", p, tt.message, tt.suggest)
			}
			if p.File != "c.yaml" || p.Line == 0 {
				t.Errorf("problem located at %s:%d, want c.yaml:<line>", p.File, p.Line)
			}
		})
	}
}

func TestInterpolationIsLazy(t *testing.T) {
	t.Parallel()
	// NeMo's usual agent and model blocks reference env.yaml keys that a resources-server-only
	// run does not define; they and the unused keys must not fail the load.
	dir := writeDir(t, map[string]string{"c.yaml": server("w") + `
policy_model:
  responses_api_models:
    openai_model:
      entrypoint: app.py
      openai_base_url: ${policy_base_url}
      openai_api_key: ???
unused: ${missing.key}
cycle_a: ${cycle_b}
cycle_b: ${cycle_a}
`})
	c := mustLoad(t, opts(dir, []string{"c.yaml"}))
	// Looking such a key up reports it then.
	_, err := c.Lookup("unused")
	if p := findProblem(t, problemsOf(t, err), "unused"); !strings.Contains(p.Message, "key missing not found") {
		t.Errorf("problem = %v", p)
	}
	_, err = c.Lookup("policy_model.responses_api_models.openai_model.openai_base_url")
	findProblem(t, problemsOf(t, err), "policy_model.responses_api_models.openai_model.openai_base_url")
	_, err = c.Lookup("nope")
	if p := findProblem(t, problemsOf(t, err), "nope"); !strings.Contains(p.Message, "not found") {
		t.Errorf("problem = %v", p)
	}
}

func TestParseKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want keyPath
		err  bool
	}{
		{"a", keyPath{"a"}, false},
		{"a.b.c", keyPath{"a", "b", "c"}, false},
		{"a.l[0]", keyPath{"a", "l", 0}, false},
		{"a.l[0][1].x", keyPath{"a", "l", 0, 1, "x"}, false},
		{"a.0", keyPath{"a", "0"}, false},
		{"", nil, true},
		{"a..b", nil, true},
		{"a[x]", nil, true},
		{"a[0", nil, true},
	}
	for _, tt := range tests {
		got, err := parseKey(tt.in)
		if (err != nil) != tt.err || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("parseKey(%q) = %v, %v; want %v (error %v)", tt.in, got, err, tt.want, tt.err)
		}
		if err == nil && tt.in != "a.0" && got.String() != tt.in {
			t.Errorf("%v.String() = %q, want %q", got, got.String(), tt.in)
		}
	}
}

func TestFloatText(t *testing.T) {
	t.Parallel()
	// Python's str() of the same floats.
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{1, "1.0"}, {0.5, "0.5"}, {-2.25, "-2.25"}, {1e20, "1e+20"}, {1e-7, "1e-07"}, {0, "0.0"}, {123456.0, "123456.0"},
		{math.Copysign(0, -1), "-0.0"}, {1e16, "1e+16"}, {1e15, "1000000000000000.0"}, {0.0001, "0.0001"}, {1e-5, "1e-05"},
		{5e-324, "5e-324"}, {math.MaxFloat64, "1.7976931348623157e+308"},
		{math.Inf(1), "inf"}, {math.Inf(-1), "-inf"}, {math.NaN(), "nan"},
	} {
		if got := floatText(tc.f); got != tc.want {
			t.Errorf("floatText(%v) = %q, want %q", tc.f, got, tc.want)
		}
	}
}
