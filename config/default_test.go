package config

import (
	"strings"
	"testing"
	"time"
)

// tagEnv is nullEnv with its defaults in default tags instead of a
// factory: new(tagEnv) decodes to what newNullEnv() decodes to.
type tagEnv struct {
	JudgeEndpointMaxConcurrency *int           `koanf:"judge_endpoint_max_concurrency" default:"64"`
	Count                       int            `koanf:"count" default:"3"`
	Name                        string         `koanf:"name" default:"n"`
	Timeout                     time.Duration  `koanf:"timeout" default:"1m"`
	Tags                        []string       `koanf:"tags" default:"[a]"`
	Weights                     map[string]int `koanf:"weights" default:"{a: 1}"`
	Judge                       tagJudge       `koanf:"judge"`
	Fallback                    *judgeConfig   `koanf:"fallback"`
	Extra                       any            `koanf:"extra" default:"e"`
	Models                      []judgeConfig  `koanf:"models"`
}

type tagJudge struct {
	Model string  `koanf:"model" default:"m"`
	Temp  float64 `koanf:"temp" default:"0.5"`
}

func describeTagEnv(e *tagEnv) map[string]string {
	n := nullEnv{JudgeEndpointMaxConcurrency: e.JudgeEndpointMaxConcurrency, Count: e.Count, Name: e.Name, Timeout: e.Timeout,
		Tags: e.Tags, Weights: e.Weights, Judge: judgeConfig(e.Judge), Fallback: e.Fallback, Extra: e.Extra, Models: e.Models}
	d := describeNullEnv(&n)
	delete(d, "fallback") // no default: a pointer to a struct stays nil
	delete(d, "models")
	return d
}

// A default tag is the default of an absent key: new(T) gets it through
// Decode, as the factory's value would be; null is still the zero value
// (None), and a value set is kept, in a file and on the command line.
func TestDefaultTags(t *testing.T) {
	t.Parallel()
	factory := describeNullEnv(newNullEnv())
	delete(factory, "fallback")
	delete(factory, "models")
	tests := []struct {
		name  string
		lines []string
		over  []string
		want  map[string]string
	}{
		{"absent: every default, as the factory's", nil, nil, nil},
		{"a pointer, null", []string{"judge_endpoint_max_concurrency: null"}, nil, map[string]string{"judge_endpoint_max_concurrency": "nil"}},
		{"a pointer, a value", []string{"judge_endpoint_max_concurrency: 8"}, nil, map[string]string{"judge_endpoint_max_concurrency": "8"}},
		{"scalars null on the command line", nil, []string{"count=null", "name=null", "timeout=null"}, map[string]string{"count": "0", "name": `""`, "timeout": "0s"}},
		{"scalars set", []string{"count: 0", "name: ''", "timeout: 2s"}, nil, map[string]string{"count": "0", "name": `""`, "timeout": "2s"}},
		{"a slice and a map, null", []string{"tags: null", "weights: null"}, nil, map[string]string{"tags": "[]string(nil)", "weights": "map[string]int(nil)"}},
		{"a nested struct, null", []string{"judge: null"}, nil, map[string]string{"judge": "{Model: Temp:0}"}},
		{"a key of a nested struct, null", []string{"judge: {model: null}"}, nil, map[string]string{"judge": "{Model: Temp:0.5}"}},
		{"a key of a nested struct, set", nil, []string{"judge.temp=0.9"}, map[string]string{"judge": "{Model:m Temp:0.9}"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := writeDir(t, map[string]string{"c.yaml": server("w", tt.lines...)})
			var over []string
			for _, o := range tt.over {
				over = append(over, "w.resources_servers.w."+o)
			}
			inst, _ := mustLoad(t, opts(dir, []string{"c.yaml"}, over...)).Instance("w")
			e := new(tagEnv)
			if err := inst.Decode(e); err != nil {
				t.Fatal(err)
			}
			got := describeTagEnv(e)
			for key, def := range factory {
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

// A value the server value already holds (set in its factory, or by a test
// in Go) is kept: the tag is the default of a zero field only.
func TestDefaultTagKeepsAValueSet(t *testing.T) {
	t.Parallel()
	dir := writeDir(t, map[string]string{"c.yaml": server("w")})
	inst, _ := mustLoad(t, opts(dir, []string{"c.yaml"})).Instance("w")
	e := &tagEnv{Count: 10, Judge: tagJudge{Model: "mine"}}
	if err := inst.Decode(e); err != nil {
		t.Fatal(err)
	}
	if e.Count != 10 || e.Judge.Model != "mine" || e.Judge.Temp != 0.5 || e.Name != "n" {
		t.Errorf("got %+v", e)
	}
}

// A default tag that is no value of its field's type is a problem at its key.
func TestDefaultTagOfTheWrongType(t *testing.T) {
	t.Parallel()
	dir := writeDir(t, map[string]string{"c.yaml": server("w")})
	inst, _ := mustLoad(t, opts(dir, []string{"c.yaml"})).Instance("w")
	var bad struct {
		N int `koanf:"n" default:"many"`
	}
	p := findProblem(t, problemsOf(t, inst.Decode(&bad)), "w.resources_servers.w.n")
	if !strings.Contains(p.Message, `the default tag of its field (default:"many") is not a value of the field's type`) {
		t.Errorf("problem %v", p)
	}
}
