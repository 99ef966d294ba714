package config

import (
	"fmt"
	"reflect"
	"testing"
	"time"
)

type judgeConfig struct {
	Model string  `koanf:"model"`
	Temp  float64 `koanf:"temp"`
}

// nullEnv is a server's own config struct with a default in every field, as its factory sets
// them (newNullEnv).
type nullEnv struct {
	JudgeEndpointMaxConcurrency *int           `koanf:"judge_endpoint_max_concurrency"`
	Count                       int            `koanf:"count"`
	Name                        string         `koanf:"name"`
	Timeout                     time.Duration  `koanf:"timeout"`
	Tags                        []string       `koanf:"tags"`
	Weights                     map[string]int `koanf:"weights"`
	Judge                       judgeConfig    `koanf:"judge"`
	Fallback                    *judgeConfig   `koanf:"fallback"`
	Extra                       any            `koanf:"extra"`
	Models                      []judgeConfig  `koanf:"models"`
}

func newNullEnv() *nullEnv {
	n := 64
	return &nullEnv{JudgeEndpointMaxConcurrency: &n, Count: 3, Name: "n", Timeout: time.Minute, Tags: []string{"a"},
		Weights: map[string]int{"a": 1}, Judge: judgeConfig{Model: "m", Temp: 0.5}, Fallback: &judgeConfig{Model: "f"}, Extra: "e",
		Models: []judgeConfig{{Model: "x", Temp: 1}}}
}

// describeNullEnv renders every field, a pointer by its target ("nil" when nil).
func describeNullEnv(e *nullEnv) map[string]string {
	ptr := func(p *int) string {
		if p == nil {
			return "nil"
		}
		return fmt.Sprint(*p)
	}
	fb := "nil"
	if e.Fallback != nil {
		fb = fmt.Sprintf("%+v", *e.Fallback)
	}
	return map[string]string{
		"judge_endpoint_max_concurrency": ptr(e.JudgeEndpointMaxConcurrency), "count": fmt.Sprint(e.Count), "name": fmt.Sprintf("%q", e.Name),
		"timeout": e.Timeout.String(), "tags": fmt.Sprintf("%#v", e.Tags), "weights": fmt.Sprintf("%#v", e.Weights),
		"judge": fmt.Sprintf("%+v", e.Judge), "fallback": fb, "extra": fmt.Sprintf("%#v", e.Extra), "models": fmt.Sprintf("%+v", e.Models),
	}
}

// For a server's own keys, null is pydantic's None, distinct from absent: absent keeps the
// factory's default, null sets the field's zero value (nil for a pointer, slice, map or
// interface), through a config file and through an override alike. The framework's keys keep
// their rule: null there is the default.
func TestNullIsNoneAbsentIsTheDefault(t *testing.T) {
	t.Parallel()
	defaults := describeNullEnv(newNullEnv())
	tests := []struct {
		name  string
		lines []string // of the server block in c.yaml
		over  []string // overrides of w.resources_servers.w.<...>
		want  map[string]string
	}{
		{"absent: every default", nil, nil, nil},
		{"a pointer, null in the file", []string{"judge_endpoint_max_concurrency: null"}, nil, map[string]string{"judge_endpoint_max_concurrency": "nil"}},
		{"a pointer, null on the command line", nil, []string{"judge_endpoint_max_concurrency=null"}, map[string]string{"judge_endpoint_max_concurrency": "nil"}},
		{"a pointer, a value", []string{"judge_endpoint_max_concurrency: 8"}, nil, map[string]string{"judge_endpoint_max_concurrency": "8"}},
		{"a later null replaces a value", []string{"judge_endpoint_max_concurrency: 8"}, []string{"judge_endpoint_max_concurrency=null"}, map[string]string{"judge_endpoint_max_concurrency": "nil"}},
		{"scalars, ~ in the file", []string{"count: ~", "name: ~", "timeout: ~"}, nil, map[string]string{"count": "0", "name": `""`, "timeout": "0s"}},
		{"scalars on the command line", nil, []string{"count=null", "name=null", "timeout=null"}, map[string]string{"count": "0", "name": `""`, "timeout": "0s"}},
		{"a slice", []string{"tags: null"}, nil, map[string]string{"tags": "[]string(nil)"}},
		{"a map", nil, []string{"weights=null"}, map[string]string{"weights": "map[string]int(nil)"}},
		{"an interface", []string{"extra: null"}, nil, map[string]string{"extra": "<nil>"}},
		{"a nested struct", []string{"judge: null"}, nil, map[string]string{"judge": "{Model: Temp:0}"}},
		{"a key of a nested struct", []string{"judge: {model: null}"}, nil, map[string]string{"judge": "{Model: Temp:0.5}"}},
		{"a key of a nested struct on the command line", nil, []string{"judge.temp=null"}, map[string]string{"judge": "{Model:m Temp:0}"}},
		{"a pointer to a struct", []string{"fallback: null"}, nil, map[string]string{"fallback": "nil"}},
		{"a key of a list item", []string{"models: [{model: null}]"}, nil, map[string]string{"models": "[{Model: Temp:1}]"}},
		{"from an interpolation", []string{"count: ${oc.env:UNSET,null}"}, nil, map[string]string{"count": "0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := writeDir(t, map[string]string{"c.yaml": server("w", tt.lines...)})
			var over []string
			for _, o := range tt.over {
				over = append(over, "w.resources_servers.w."+o)
			}
			c := mustLoad(t, opts(dir, []string{"c.yaml"}, over...))
			inst, _ := c.Instance("w")
			e := newNullEnv()
			if err := inst.Decode(e); err != nil {
				t.Fatal(err)
			}
			got := describeNullEnv(e)
			for key, def := range defaults {
				w, changed := tt.want[key]
				if !changed {
					w = def
				}
				if got[key] != w {
					t.Errorf("%s = %s, want %s", key, got[key], w)
				}
			}
		})
	}
}

// The framework's keys: null is their default, in a file and on the command line.
func TestNullFrameworkKeysAreTheDefault(t *testing.T) {
	t.Parallel()
	dir := writeDir(t, map[string]string{"c.yaml": server("w", "max_body_bytes: 5", "tool_timeout: 5s", "session: {store: memory}", "mcp: null", "port: null")})
	c := mustLoad(t, opts(dir, []string{"c.yaml"}, "w.resources_servers.w.max_body_bytes=null", "w.resources_servers.w.tool_timeout=null",
		"w.resources_servers.w.session=null"))
	inst, _ := c.Instance("w")
	got := []any{inst.MaxBodyBytes, inst.ToolTimeout, inst.Session, inst.MCP, inst.Port}
	d := Defaults()
	d.Session.Prefix = DefaultSessionPrefix("w")
	want := []any{d.MaxBodyBytes, d.ToolTimeout, d.Session, d.MCP, d.Port}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("max_body_bytes, tool_timeout, session, mcp, port = %+v, want the defaults %+v", got, want)
	}
}
