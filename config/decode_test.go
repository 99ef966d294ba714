package config

import (
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"
)

// base stands for framework.Base: embedded, no configuration of its own.
type base struct {
	state int
}

type limits struct {
	MaxCalls int           `koanf:"max_calls"`
	Timeout  time.Duration `koanf:"timeout"`
}

type weather struct {
	base
	DefaultCity string            `koanf:"default_city"`
	Units       string            `koanf:"units"`
	Retries     int               `koanf:"retries"`
	Ratio       float64           `koanf:"ratio"`
	Strict      bool              `koanf:"strict"`
	Limits      limits            `koanf:"limits"`
	Cities      []string          `koanf:"cities"`
	Aliases     map[string]string `koanf:"aliases"`
	Backends    []limits          `koanf:"backends"`
	Addr        netip.Addr        `koanf:"addr"`
	Optional    *limits           `koanf:"optional"`
	NotConfig   string            // untagged: not configuration
}

func loadInstance(t *testing.T, lines ...string) Instance {
	t.Helper()
	dir := writeDir(t, map[string]string{"w.yaml": server("example_mcp_weather", lines...)})
	c := mustLoad(t, opts(dir, []string{"w.yaml"}))
	inst, ok := c.Instance("example_mcp_weather")
	if !ok {
		t.Fatal("instance not found")
	}
	return inst
}

func TestDecode(t *testing.T) {
	t.Parallel()
	inst := loadInstance(t,
		"entrypoint: app.py", "description: weather", "verified: false", "port: 8080",
		"default_city: Paris", "retries: '3'", "ratio: 1", "strict: 'yes'",
		"limits: {max_calls: 2.0, timeout: 1m30s}", "cities: [Paris, Rome]", "aliases: {nyc: New York}",
		"backends: [{max_calls: 1}, {timeout: 2}]", "addr: 10.0.0.1", "optional: {max_calls: 7}",
	)
	got := weather{Units: "metric"} // a default that the YAML leaves alone
	if err := inst.Decode(&got); err != nil {
		t.Fatal(err)
	}
	want := weather{
		DefaultCity: "Paris", Units: "metric", Retries: 3, Ratio: 1, Strict: true,
		Limits:   limits{MaxCalls: 2, Timeout: 90 * time.Second},
		Cities:   []string{"Paris", "Rome"},
		Aliases:  map[string]string{"nyc": "New York"},
		Backends: []limits{{MaxCalls: 1}, {Timeout: 2 * time.Second}},
		Addr:     netip.MustParseAddr("10.0.0.1"),
		Optional: &limits{MaxCalls: 7},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decoded\n%+v\nwant\n%+v", got, want)
	}
}

func TestDecodeUnknownKeys(t *testing.T) {
	t.Parallel()
	const block = "example_mcp_weather.resources_servers.example_mcp_weather"
	inst := loadInstance(t,
		"defualt_city: Paris",          // line 5: transposition
		"expose_tool_over_mcp: true",   // line 6: a framework key misspelt
		"limits: {max_call: 1}",        // line 7: nested
		"backends: [{}, {timoeut: 1}]", // line 8: in a list
		"zzz: 1",                       // line 9: nothing close
		"Default_City: Rome",           // line 10: keys are case-sensitive
	)
	err := inst.Decode(&weather{})
	ps := problemsOf(t, err)
	tests := []struct {
		key, suggestion string
		line            int
	}{
		{block + ".defualt_city", "default_city", 5},
		{block + ".expose_tool_over_mcp", "expose_tools_over_mcp", 6},
		{block + ".limits.max_call", "max_calls", 7},
		{block + ".backends[1].timoeut", "timeout", 8},
		{block + ".zzz", "", 9},
		{block + ".Default_City", "default_city", 10},
	}
	if len(ps) != len(tests) {
		t.Fatalf("got %d problems, want %d:\n%v", len(ps), len(tests), err)
	}
	for _, tt := range tests {
		p := findProblem(t, ps, tt.key)
		if p.Suggestion != tt.suggestion || p.File != "w.yaml" || p.Line != tt.line || !strings.HasPrefix(p.Message, "unknown key") {
			t.Errorf("problem = %+v; want suggestion %q at w.yaml:%d", p, tt.suggestion, tt.line)
		}
	}
	want := "w.yaml:5: " + block + ".defualt_city: unknown key; did you mean `default_city`?"
	if got := findProblem(t, ps, block+".defualt_city").Error(); got != want {
		t.Errorf("Error() = %q\nwant      %q", got, want)
	}
	if p := findProblem(t, ps, block+".zzz"); !strings.Contains(p.Message, "server type example_mcp_weather has addr, aliases, backends") {
		t.Errorf("no suggestion: message %q should list the server's keys", p.Message)
	}
	if !strings.HasPrefix(err.Error(), "config: 6 problems:\n\tw.yaml:5: ") {
		t.Errorf("Error() = %q", err.Error())
	}
}

func TestDecodeTypeErrors(t *testing.T) {
	t.Parallel()
	const block = "example_mcp_weather.resources_servers.example_mcp_weather"
	inst := loadInstance(t,
		"default_city: 12",
		"retries: three",
		"ratio: [1]",
		"strict: maybe",
		"limits: {max_calls: 1.5, timeout: soon}",
		"cities: Paris",
		"aliases: {nyc: 1}",
		"addr: not-an-ip",
		"backends: [{max_calls: x}]",
	)
	ps := problemsOf(t, inst.Decode(&weather{}))
	tests := map[string]string{
		block + ".default_city":          "expected a string, got integer 12 (quote it to make it a string)",
		block + ".retries":               `expected an integer, got string "three"`,
		block + ".ratio":                 "expected a number, got a list",
		block + ".strict":                `expected true or false, got string "maybe"`,
		block + ".limits.max_calls":      "expected an integer, got number 1.5",
		block + ".limits.timeout":        `expected a duration like "30s" or "1m30s", got string "soon"`,
		block + ".cities":                `expected a list, got string "Paris"`,
		block + ".aliases.nyc":           "expected a string, got integer 1",
		block + ".addr":                  `invalid value "not-an-ip"`,
		block + ".backends[0].max_calls": `expected an integer, got string "x"`,
	}
	if len(ps) != len(tests) {
		t.Fatalf("got %d problems, want %d:\n%v", len(ps), len(tests), ps)
	}
	for key, msg := range tests {
		if p := findProblem(t, ps, key); !strings.Contains(p.Message, msg) || p.File != "w.yaml" || p.Line == 0 {
			t.Errorf("problem = %+v; want message containing %q, located in w.yaml", p, msg)
		}
	}
}

func TestDecodeSpecialFields(t *testing.T) {
	t.Parallel()
	type withRemain struct {
		Known string         `koanf:"known"`
		Rest  map[string]any `koanf:",remain"`
	}
	inst := loadInstance(t, "known: k", "other: 1", "port: 9000")
	var r withRemain
	if err := inst.Decode(&r); err != nil {
		t.Fatal(err)
	}
	if r.Known != "k" || !reflect.DeepEqual(r.Rest, map[string]any{"other": 1}) {
		t.Errorf("decoded %+v", r)
	}

	// A struct may declare a framework key to read it too.
	type wantsPort struct {
		Port   int    `koanf:"port"`
		Domain string `koanf:"domain"`
	}
	var wp wantsPort
	if err := inst.Decode(&wp); err == nil {
		t.Error("want the unknown keys known and other reported")
	}
	if wp.Port != 9000 || wp.Domain != "agent" {
		t.Errorf("decoded %+v", wp)
	}

	// A server with no keys of its own accepts the framework keys only.
	type nothing struct{ base }
	if err := loadInstance(t, "port: 1", "verified: true", "value: v").Decode(&nothing{}); err != nil {
		t.Error(err)
	}
	err := loadInstance(t, "data_dir: x").Decode(&nothing{})
	if p := problemsOf(t, err)[0]; !strings.Contains(p.Message, "has no keys of its own") {
		t.Errorf("problem = %v", p)
	}

	for _, dst := range []any{nil, weather{}, new(int), (*weather)(nil)} {
		if err := inst.Decode(dst); err == nil || strings.Contains(err.Error(), "problem") {
			t.Errorf("Decode(%T) = %v, want a plain error", dst, err)
		}
	}
}

func TestDecodeHandMadeInstance(t *testing.T) {
	t.Parallel()
	inst := Instance{Raw: map[string]any{"default_city": "Oslo", "bogus": 1}}
	var w weather
	ps := problemsOf(t, inst.Decode(&w))
	if len(ps) != 1 || ps[0].Key != "bogus" || w.DefaultCity != "Oslo" {
		t.Errorf("problems %v, decoded %+v", ps, w)
	}
}

func TestLaxConversions(t *testing.T) {
	t.Parallel()
	type scalars struct {
		I   int           `koanf:"i"`
		I8  int8          `koanf:"i8"`
		U   uint          `koanf:"u"`
		U8  uint8         `koanf:"u8"`
		F   float32       `koanf:"f"`
		B   bool          `koanf:"b"`
		D   time.Duration `koanf:"d"`
		Any any           `koanf:"any"`
	}
	tests := []struct {
		in   map[string]any
		want scalars
		err  string
	}{
		{map[string]any{"i": "42", "u": 7.0, "f": "2.5", "b": 1, "d": 1.5, "any": []any{1}}, scalars{I: 42, U: 7, F: 2.5, B: true, D: 1500 * time.Millisecond, Any: []any{1}}, ""},
		{map[string]any{"b": "OFF", "d": "2h"}, scalars{D: 2 * time.Hour}, ""},
		{map[string]any{"i8": 300}, scalars{}, "must be an integer from -128 to 127 (int8), got integer 300"},
		{map[string]any{"i8": "-129"}, scalars{}, `must be an integer from -128 to 127 (int8), got string "-129"`},
		{map[string]any{"u": -1}, scalars{}, "must be an integer from 0 to 18446744073709551615 (uint), got integer -1"},
		{map[string]any{"u8": 256}, scalars{}, "must be an integer from 0 to 255 (uint8), got integer 256"},
		{map[string]any{"u": uint64(1 << 63)}, scalars{U: 1 << 63}, ""},
		{map[string]any{"i": uint64(1 << 63)}, scalars{}, "must be an integer from -9223372036854775808 to 9223372036854775807 (int), got integer 9223372036854775808"},
		{map[string]any{"i": "99999999999999999999"}, scalars{}, `must be an integer from -9223372036854775808 to 9223372036854775807 (int), got string "99999999999999999999"`},
		{map[string]any{"i": 1e30}, scalars{}, "must be an integer from -9223372036854775808 to 9223372036854775807 (int), got number 1e+30"},
		{map[string]any{"i": 1.5}, scalars{}, "expected an integer, got number 1.5"},
		{map[string]any{"b": 2}, scalars{}, "expected true or false, got integer 2"},
		{map[string]any{"i": true}, scalars{}, "expected an integer, got boolean true"},
		{map[string]any{"d": true}, scalars{}, "expected a duration"},
	}
	for _, tt := range tests {
		var got scalars
		err := decodeStrict(tt.in, &got)
		dps := decodeProblems(err)
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("%v: %v", tt.in, err)
		case tt.err != "" && (len(dps) != 1 || !strings.Contains(dps[0].msg, tt.err)):
			t.Errorf("%v: problems %v, want %q", tt.in, dps, tt.err)
		case tt.err == "" && !reflect.DeepEqual(got, tt.want):
			t.Errorf("%v: decoded %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestSuggest(t *testing.T) {
	t.Parallel()
	keys := []string{"default_city", "domain", "host", "port", "expose_tools_over_mcp", "max_body_bytes"}
	tests := map[string]string{
		"defualt_city": "default_city", "default-city": "default_city", "DEFAULT_CITY": "default_city",
		"prot": "port", "hots": "host", "domian": "domain", "expose_tool_over_mcp": "expose_tools_over_mcp",
		"max_bdy_byte": "max_body_bytes", "city": "", "x": "", "port": "",
	}
	for word, want := range tests {
		if got := suggest(word, keys); got != want {
			t.Errorf("suggest(%q) = %q, want %q", word, got, want)
		}
	}
	for _, tt := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"abc", "", 3}, {"ab", "ba", 1}, {"kitten", "sitting", 3}, {"ca", "abc", 3}, {"héllo", "hello", 1}} {
		if got := editDistance(tt.a, tt.b); got != tt.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.d)
		}
	}
}

// An unknown key spelling an exported field without a koanf tag names the
// field and the tag to add.
func TestDecodeUntaggedField(t *testing.T) {
	t.Parallel()
	type game struct {
		MaxGuesses int
		Secret     string `koanf:"secret"`
		hidden     int
	}
	for _, tc := range []struct {
		name, key, want string
	}{
		{"snake", "max_guesses", "max_guesses: unknown key: field MaxGuesses has no koanf tag: add `koanf:\"max_guesses\"`"},
		{"lower", "maxguesses", "maxguesses: unknown key: field MaxGuesses has no koanf tag: add `koanf:\"maxguesses\"`"},
		{"unexported", "hidden", "hidden: unknown key (server type  has secret, besides the framework keys)"},
		{"typo of a tagged field", "secrte", "secrte: unknown key; did you mean `secret`?"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var g game
			ps := problemsOf(t, Instance{Raw: map[string]any{tc.key: 3}}.Decode(&g))
			if len(ps) != 1 || ps[0].Error() != tc.want {
				t.Errorf("problems %v\nwant %s", ps, tc.want)
			}
			_ = g.hidden
		})
	}
}
