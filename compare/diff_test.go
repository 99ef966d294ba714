package compare

import (
	"context"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/internal/pyjson"
	"github.com/gymkit/gymkit/server/servertest"
	"github.com/gymkit/gymkit/session"
)

// Body differences, with Python's number forms: each line is a
// difference's String.
func TestDiffBodies(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, ref, got string
		want           []string
	}{
		{"equal bytes", `{"a":1.0}`, `{"a":1.0}`, nil},
		{"int vs float", `{"reward":1}`, `{"reward":1.0}`, []string{"body $.reward: 1 vs 1.0 (number form)"}},
		{"exponent forms", `[1e-05]`, `[1e-5]`, []string{"body $[0]: 1e-05 vs 1e-5 (number form)"}},
		{"other number", `{"n":2}`, `{"n":3}`, []string{"body $.n: 2 vs 3 (value)"}},
		{"big ints kept", `12345678901234567890`, `12345678901234567891`, []string{"body $: 12345678901234567890 vs 12345678901234567891 (value)"}},
		{"a big int is not its nearest float", `[12345678901234567890]`, `[1.2345678901234567e19]`, []string{"body $[0]: 12345678901234567890 vs 1.2345678901234567e19 (value)"}},
		{"an int and its float", `[-3]`, `[-3.0]`, []string{"body $[0]: -3 vs -3.0 (number form)"}},
		{"NaN and a number", `[NaN]`, `[1.0]`, []string{"body $[0]: NaN vs 1.0 (value)"}},
		{"type", `{"a":"1"}`, `{"a":1}`, []string{`body $.a: "1" vs 1 (type)`}},
		{"null vs object", `{"a":null}`, `{"a":{}}`, []string{`body $.a: null vs {} (type)`}},
		{"bool", `{"ok":true}`, `{"ok":false}`, []string{"body $.ok: true vs false (value)"}},
		{"missing and extra keys", `{"a":1,"b":2}`, `{"a":1,"c":3}`, []string{
			"body $.b: 2 vs (absent) (missing)", "body $.c: (absent) vs 3 (extra)"}},
		{"key order", `{"a":1,"b":2}`, `{"b":2,"a":1}`, []string{`body $: ["a","b"] vs ["b","a"] (key order)`}},
		{"odd keys", `{"a b":{"x.y":1}}`, `{"a b":{"x.y":2}}`, []string{`body $["a b"]["x.y"]: 1 vs 2 (value)`}},
		{"items", `[1,2,3]`, `[1,5]`, []string{"body $[1]: 2 vs 5 (value)", "body $[2]: 3 vs (absent) (missing)"}},
		{"extra item", `[]`, `[{"a":1}]`, []string{`body $[0]: (absent) vs {"a":1} (extra)`}},
		{"JSON inside a string", `{"text":"{\"value\":1}"}`, `{"text":"{\"value\":1.0}"}`, []string{
			"body $.text(json).value: 1 vs 1.0 (number form)"}},
		{"a string that is not JSON", `{"text":"a"}`, `{"text":"b"}`, []string{`body $.text: "a" vs "b" (value)`}},
		{"JSON strings equal as JSON", `{"t":"{\"a\": 1}"}`, `{"t":"{\"a\":1}"}`, []string{
			`body $.t: "{\"a\": 1}" vs "{\"a\":1}" (value)`}},
		{"same JSON, other bytes", `{"a": "é"}`, `{"a":"\u00e9"}`, []string{
			`body $: {"a": "é"} vs {"a":"\u00e9"} (bytes); the same JSON, other bytes (whitespace, escapes or a repeated key) from byte 5`}},
		{"not JSON", `Internal Server Error`, `Internal error`, []string{
			"body $: Internal Server Error vs Internal error (bytes); not both JSON; they differ from byte 9"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var st Step
			diffBodies([]byte(tc.ref), []byte(tc.got), pyjson.Limits{}, &sink{st: &st})
			var got []string
			for _, d := range st.Differences {
				got = append(got, d.String())
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// A long value is clipped on a rune boundary, with its length.
func TestClip(t *testing.T) {
	t.Parallel()
	s := strings.Repeat("é", 400)
	got := clip(s)
	if !strings.HasSuffix(got, "... (800 bytes)") || len(got) > maxShown+20 || !strings.HasPrefix(s, strings.TrimSuffix(got, "... (800 bytes)")) {
		t.Errorf("clip: %q", got)
	}
}

func TestPaths(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"$", "$.a", `$["a b"].c[3]`, "$.result.content[0].text(json).reward", "$.*[*]", `$["\""]`, "$._x9"} {
		segs, err := parsePath(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if got := renderPath(segs); got != p {
			t.Errorf("%s renders as %s", p, got)
		}
	}
	for _, tc := range []struct{ path, err string }{
		{"a.b", `a path starts with "$"`},
		{"$.a b", `"a b" is not a plain name: write ["a b"]`},
		{"$[x]", `"[x]" is not an index: [0], [1], ... or [*]`},
		{"$[-1]", `"[-1]" is not an index: [0], [1], ... or [*]`},
		{"$[1", `no ] after "[1"`},
		{`$["a]`, `bad quoted key at "[\"a]"`},
		{"$/a", `unexpected "/a": members are .name or ["name"], items [N] or [*]`},
	} {
		if _, err := parsePath(tc.path); err == nil || err.Error() != tc.err {
			t.Errorf("%s: error %v, want %q", tc.path, err, tc.err)
		}
	}
	for _, tc := range []struct {
		rule, path string
		want       bool
	}{
		{"$", "$.a.b", true},
		{"$.a", "$.a.b[2]", true},
		{"$.a", "$.ab", false},
		{"$.a.b", "$.a", false},
		{"$.*.b", "$.x.b", true},
		{"$.*", "$[0]", false},
		{"$[*].c", "$[4].c", true},
		{"$[*]", "$.a", false},
		{"$[2]", "$[2].x", true},
		{"$[2]", "$[3]", false},
		{"$.t(json).v", "$.t(json).v", true},
		{"$.t.v", "$.t(json).v", false},
	} {
		r, _ := parsePath(tc.rule)
		p, _ := parsePath(tc.path)
		if got := prefixMatch(r, p); got != tc.want {
			t.Errorf("rule %s on %s: %v, want %v", tc.rule, tc.path, got, tc.want)
		}
	}
}

func TestGlob(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		pattern, s string
		want       bool
	}{
		{"*", "POST /verify", true},
		{"POST /verify", "POST /verify", true},
		{"POST /verify", "POST /verify2", false},
		{"POST /mcp tools/call *", "POST /mcp tools/call get_weather", true},
		{"POST /mcp tools/call *", "POST /get_weather", false},
		{"POST /*_weather", "POST /get_weather", true},
		{"*/verify", "POST /verify", true},
		{"*a*a", "aa", true},
		{"*a*a", "a", false},
		{"a*b*c", "abbc", true},
	} {
		if got := glob(tc.pattern, tc.s); got != tc.want {
			t.Errorf("glob(%q, %q) = %v", tc.pattern, tc.s, got)
		}
	}
}

func TestParseAllowList(t *testing.T) {
	t.Parallel()
	l, err := ParseAllowList("a.yaml", []byte(`# comment
- route: POST /verify
  path: $.judge_evaluations[*].response.created_at
  reason: the judge's clock
- route: "*"
  header: Set-Cookie
  reason: a shorter lifetime
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Rules) != 2 || l.Rules[0].Where() != "a.yaml:2" || l.Rules[1].Header != HeaderSetCookie || l.Rules[1].Line != 5 {
		t.Fatalf("%+v", l.Rules)
	}
	for _, tc := range []struct {
		d     Difference
		route string
		want  string // the rule's place, "" for none
	}{
		{Difference{Field: FieldBody, Path: "$.judge_evaluations[0].response.created_at"}, "POST /verify", "a.yaml:2"},
		{Difference{Field: FieldBody, Path: "$.judge_evaluations[0].response.created_at.x"}, "POST /verify", "a.yaml:2"},
		{Difference{Field: FieldBody, Path: "$.judge_evaluations[0].response"}, "POST /verify", ""},
		{Difference{Field: FieldBody, Path: "$.judge_evaluations[0].response.created_at"}, "POST /seed_session", ""},
		{Difference{Field: FieldSetCookie}, "POST /anything", "a.yaml:5"},
		{Difference{Field: FieldStatus}, "POST /verify", ""},
		{Difference{Field: FieldError}, "POST /verify", ""},
		{Difference{Field: FieldStep}, "POST /verify", ""},
	} {
		if tc.d.Path != "" {
			tc.d.segs, _ = parsePath(tc.d.Path)
		}
		r := l.allows([]string{tc.route}, &tc.d)
		if got := ""; r != nil {
			got = r.Where()
			if got != tc.want {
				t.Errorf("%s %s on %s: allowed by %s, want %q", tc.d.Field, tc.d.Path, tc.route, got, tc.want)
			}
		} else if tc.want != "" {
			t.Errorf("%s %s on %s: not allowed, want %s", tc.d.Field, tc.d.Path, tc.route, tc.want)
		}
	}
	for _, tc := range []struct{ content, err string }{
		{"", ""},
		{"# nothing\n", ""},
		{"route: x\n", "b.yaml:1: an allow-list is a YAML list of rules (- route: ..., path: ... or header: ..., reason: ...)"},
		{"- x\n", "b.yaml:1: a rule is a mapping with route, path or header, and reason"},
		{"- route: x\n  path: $\n  header: content-type\n  reason: y\n", "b.yaml:1: the rule has both a path and a header: give one"},
		{"- route: x\n  reason: y\n", `b.yaml:1: the rule has neither a path (a JSON path in the body, "$" for all of it) nor a header (:status, content-type or set-cookie)`},
		{"- route: x\n  path: [a]\n  reason: y\n", "b.yaml:2: path must be a string\nb.yaml:1: the rule has neither a path (a JSON path in the body, \"$\" for all of it) nor a header (:status, content-type or set-cookie)"},
		{"- route: [\n", "b.yaml: yaml: line 1: did not find expected node content"},
	} {
		_, err := ParseAllowList("b.yaml", []byte(tc.content))
		if (err == nil) != (tc.err == "") || (err != nil && err.Error() != tc.err) {
			t.Errorf("%q: error %v, want %q", tc.content, err, tc.err)
		}
	}
	var none *AllowList
	if none.allows([]string{"*"}, &Difference{Field: FieldStatus}) != nil {
		t.Error("a nil allow-list allows")
	}
}

// The session id of a gymkit cookie (read from a real answer) and of a
// Starlette one (NeMo's form) is found, so that a body quoting it is
// masked; a value of neither form gives "".
func TestSessionID(t *testing.T) {
	t.Parallel()
	ts := servertest.New(t, new(echoSession), servertest.Options{})
	ro := ts.Rollout()
	ro.Post("/seed_session", `{}`)
	res := ro.Post("/whoami", `{}`)
	id, err := framework.ParseJSON(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := id.Get("id")
	c, err := http.ParseSetCookie(res.SetCookies()[0])
	if err != nil {
		t.Fatal(err)
	}
	if got := sessionID(c.Value); got == "" || got != want.Str {
		t.Errorf("gymkit cookie %q: session id %q, want %q", c.Value, got, want.Str)
	}
	starlette := base64.StdEncoding.EncodeToString([]byte(`{"session_id": "0b5d5c5e-8a4e-4c43-9c2b-6d0f3f0a9e51"}`)) + ".ZrK1bw.c2lnbmF0dXJl"
	if got := sessionID(starlette); got != "0b5d5c5e-8a4e-4c43-9c2b-6d0f3f0a9e51" {
		t.Errorf("Starlette cookie: %q", got)
	}
	for _, v := range []string{"", "abc", "x.y.z", strings.Repeat("A", 84)} {
		if got := sessionID(v); got != "" {
			t.Errorf("%q: session id %q", v, got)
		}
	}
}

// echoSession answers /whoami with the rollout's session id.
type echoSession struct{ framework.Base }

type whoami struct {
	ID string `json:"id"`
}

func (s *echoSession) Routes(r *framework.Router) {
	framework.Post(r, "/whoami", func(ctx context.Context, _ framework.NoBody) (whoami, error) {
		return whoami{ID: session.ID(ctx)}, nil
	})
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{}, nil
	})
}
