package schema

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gymkit/gymkit/internal/lax"
	"github.com/gymkit/gymkit/internal/pyjson"
)

type GetWeatherRequest struct {
	City string `json:"city" required:"true"`
}

type GetWeatherResponse struct {
	Weather string `json:"weather"`
}

type IncrementCounterRequest struct {
	Count int `json:"count" required:"true"`
}

type Location struct {
	Lat float64 `json:"lat" required:"true"`
	Lon float64 `json:"lon" required:"true"`
}

type Complex struct {
	CityName string             `json:"city_name" required:"true" description:"Where."`
	Units    *string            `json:"units" enum:"metric,imperial"`
	Days     int8               `json:"days"`
	Count    uint               `json:"count"`
	Small    uint16             `json:"small"`
	Tags     []string           `json:"tags"`
	Where    *Location          `json:"where" description:"Point."`
	Path     []Location         `json:"path"`
	Scores   map[string]float64 `json:"scores"`
	Meta     map[string]any     `json:"meta"`
	Raw      json.RawMessage    `json:"raw"`
	Anything any                `json:"anything"`
	Value    pyjson.Value       `json:"value"`
	Dict     *pyjson.Dict       `json:"dict"`
	Flag     bool               `json:"flag" title:"The flag"`
	Untagged string
	Skipped  string  `json:"-"`
	Grid     [][]int `json:"grid"`
}

type StrictReq struct {
	lax.Forbid
	A int `json:"a"`
}

type OpenReq struct {
	pyjson.Extra
	Response json.RawMessage `json:"response" required:"true"`
}

type Base struct {
	ID string `json:"id" required:"true"`
}

type Derived struct {
	Base
	Name string `json:"name"`
}

type Empty struct{}

type Defaults struct {
	Days int     `json:"days" default:"3"`
	Unit *string `json:"unit" enum:"c,f" default:"c"`
}

type Titles struct {
	A  int `json:"x2y_z"`
	B  int `json:"_private"`
	C  int `json:"already Title"`
	D  int `json:"iPhone_id"`
	E  int `json:"dash-case"`
	F  int `json:"émile"`
	G  int `json:"it's"` // not a valid encoding/json name: the Go name is used
	HH int `json:"__dunder__"`
}

func TestGoldens(t *testing.T) {
	t.Parallel()
	loc := `{"properties":{"lat":{"title":"Lat","type":"number"},"lon":{"title":"Lon","type":"number"}},"required":["lat","lon"],"title":"Location","type":"object"}`
	cases := []struct {
		typ  reflect.Type
		want string
	}{
		// small-servers.md 1.4 (whose title is the Python class name).
		{reflect.TypeFor[GetWeatherRequest](),
			`{"properties":{"city":{"title":"City","type":"string"}},"required":["city"],"title":"GetWeatherRequest","type":"object"}`},
		// small-servers.md 2.
		{reflect.TypeFor[IncrementCounterRequest](),
			`{"properties":{"count":{"title":"Count","type":"integer"}},"required":["count"],"title":"IncrementCounterRequest","type":"object"}`},
		{reflect.TypeFor[*GetWeatherResponse](),
			`{"properties":{"weather":{"title":"Weather","type":"string"}},"title":"GetWeatherResponse","type":"object"}`},
		{reflect.TypeFor[Complex](), `{"properties":{` +
			`"city_name":{"description":"Where.","title":"City Name","type":"string"},` +
			`"units":{"anyOf":[{"enum":["metric","imperial"],"type":"string"},{"type":"null"}],"title":"Units"},` +
			`"days":{"maximum":127,"minimum":-128,"title":"Days","type":"integer"},` +
			`"count":{"minimum":0,"title":"Count","type":"integer"},` +
			`"small":{"maximum":65535,"minimum":0,"title":"Small","type":"integer"},` +
			`"tags":{"items":{"type":"string"},"title":"Tags","type":"array"},` +
			`"where":{"anyOf":[{"description":"Point.","properties":{"lat":{"title":"Lat","type":"number"},"lon":{"title":"Lon","type":"number"}},"required":["lat","lon"],"title":"Location","type":"object"},{"type":"null"}]},` +
			`"path":{"items":` + loc + `,"title":"Path","type":"array"},` +
			`"scores":{"additionalProperties":{"type":"number"},"title":"Scores","type":"object"},` +
			`"meta":{"additionalProperties":true,"title":"Meta","type":"object"},` +
			`"raw":{"title":"Raw"},` +
			`"anything":{"title":"Anything"},` +
			`"value":{"title":"Value"},` +
			`"dict":{"anyOf":[{"additionalProperties":true,"type":"object"},{"type":"null"}],"title":"Dict"},` +
			`"flag":{"title":"The flag","type":"boolean"},` +
			`"Untagged":{"title":"Untagged","type":"string"},` +
			`"grid":{"items":{"items":{"type":"integer"},"type":"array"},"title":"Grid","type":"array"}` +
			`},"required":["city_name"],"title":"Complex","type":"object"}`},
		{reflect.TypeFor[StrictReq](),
			`{"additionalProperties":false,"properties":{"a":{"title":"A","type":"integer"}},"title":"StrictReq","type":"object"}`},
		{reflect.TypeFor[OpenReq](),
			`{"additionalProperties":true,"properties":{"response":{"title":"Response"}},"required":["response"],"title":"OpenReq","type":"object"}`},
		{reflect.TypeFor[Derived](),
			`{"properties":{"id":{"title":"Id","type":"string"}, "name":{"title":"Name","type":"string"}},"required":["id"],"title":"Derived","type":"object"}`},
		{reflect.TypeFor[Empty](), `{"properties":{},"title":"Empty","type":"object"}`},
		{reflect.TypeFor[Defaults](), `{"properties":{"days":{"default":3,"title":"Days","type":"integer"},` +
			`"unit":{"anyOf":[{"enum":["c","f"],"type":"string"},{"type":"null"}],"default":"c","title":"Unit"}},"title":"Defaults","type":"object"}`},
		{reflect.TypeFor[Titles](), `{"properties":{"x2y_z":{"title":"X2Y Z","type":"integer"},"_private":{"title":"Private","type":"integer"},` +
			`"already Title":{"title":"Already Title","type":"integer"},"iPhone_id":{"title":"Iphone Id","type":"integer"},` +
			`"dash-case":{"title":"Dash-Case","type":"integer"},"émile":{"title":"Émile","type":"integer"},` +
			`"G":{"title":"G","type":"integer"},"__dunder__":{"title":"Dunder","type":"integer"}},"title":"Titles","type":"object"}`},
		// Dict bodies: NeMo's permissive schema, byte for byte.
		{reflect.TypeFor[json.RawMessage](), `{"type":"object","additionalProperties":true}`},
		{reflect.TypeFor[map[string]any](), `{"type":"object","additionalProperties":true}`},
		{reflect.TypeFor[*map[string]any](), `{"type":"object","additionalProperties":true}`},
		{reflect.TypeFor[map[string]json.RawMessage](), `{"type":"object","additionalProperties":true}`},
		{reflect.TypeFor[pyjson.Value](), `{"type":"object","additionalProperties":true}`},
		{reflect.TypeFor[pyjson.Dict](), `{"type":"object","additionalProperties":true}`},
		{reflect.TypeFor[any](), `{"type":"object","additionalProperties":true}`},
		// Other roots.
		{reflect.TypeFor[map[string]int](), `{"additionalProperties":{"type":"integer"},"type":"object"}`},
		{reflect.TypeFor[map[string]Location](), `{"additionalProperties":` + loc + `,"type":"object"}`},
		{reflect.TypeFor[[]string](), `{"items":{"type":"string"},"type":"array"}`},
		{reflect.TypeFor[string](), `{"type":"string"}`},
	}
	for _, c := range cases {
		t.Run(c.typ.String(), func(t *testing.T) {
			t.Parallel()
			got, err := For(c.typ)
			if err != nil {
				t.Fatal(err)
			}
			want := strings.ReplaceAll(c.want, `}, "`, `},"`)
			if string(got) != want {
				t.Fatalf("got\n%s\nwant\n%s", got, want)
			}
			checkShape(t, got, c.typ)
		})
	}
}

// checkShape asserts the MCP-facing invariants on a schema: no $ref or
// definitions anywhere, no array-valued "type", and "type":"object" at the
// root of object types (the official TypeScript client rejects anything
// else for inputSchema / outputSchema).
func checkShape(t *testing.T, raw json.RawMessage, typ reflect.Type) {
	t.Helper()
	var root any
	if err := json.Unmarshal(raw, &root); err != nil {
		t.Fatalf("invalid JSON %s: %v", raw, err)
	}
	var walk func(v any, inProps bool)
	walk = func(v any, inProps bool) {
		switch x := v.(type) {
		case map[string]any:
			for k, sub := range x {
				if !inProps {
					switch k {
					case "$ref", "$defs", "definitions":
						t.Fatalf("%s in %s", k, raw)
					case "type":
						if _, ok := sub.(string); !ok {
							t.Fatalf("non-string type %v in %s", sub, raw)
						}
					}
				}
				walk(sub, k == "properties" && !inProps)
			}
		case []any:
			for _, sub := range x {
				walk(sub, false)
			}
		}
	}
	walk(root, false)
	if IsObject(typ) || isDictBody(typ) {
		if m, ok := root.(map[string]any); !ok || m["type"] != "object" {
			t.Fatalf("root of %v is not type object: %s", typ, raw)
		}
	}
}

type Node struct {
	Children []*Node `json:"children"`
}

type Holder struct {
	Inner struct {
		Back map[string]Holder `json:"back"`
	} `json:"inner"`
}

type Unsupported struct {
	When time.Time `json:"when"`
}

func TestErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		typ  reflect.Type
		want string
	}{
		{reflect.TypeFor[Node](), "recursive type Node"},
		{reflect.TypeFor[Holder](), "recursive type Holder"},
		{reflect.TypeFor[Unsupported](), "Unsupported.when: unsupported type time.Time"},
		{reflect.TypeFor[chan int](), "unsupported type chan int"},
	}
	for _, c := range cases {
		t.Run(c.typ.String(), func(t *testing.T) {
			t.Parallel()
			_, err := For(c.typ)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
	if _, err := For(nil); err == nil {
		t.Fatal("no error for nil")
	}
}

type textual struct{ s string }

func (x textual) MarshalText() ([]byte, error) { return []byte(x.s), nil }

type selfJSON struct{}

func (selfJSON) MarshalJSON() ([]byte, error) { return []byte(`1`), nil }

func TestIsObject(t *testing.T) {
	t.Parallel()
	cases := []struct {
		typ  reflect.Type
		want bool
	}{
		{reflect.TypeFor[GetWeatherResponse](), true},
		{reflect.TypeFor[*GetWeatherResponse](), true},
		{reflect.TypeFor[**GetWeatherResponse](), true},
		{reflect.TypeFor[map[string]any](), true},
		{reflect.TypeFor[map[string]int](), true},
		{reflect.TypeFor[pyjson.Dict](), true},
		{reflect.TypeFor[*pyjson.Dict](), true},
		{reflect.TypeFor[map[int]string](), false},
		{reflect.TypeFor[json.RawMessage](), false},
		{reflect.TypeFor[pyjson.Value](), false},
		{reflect.TypeFor[any](), false},
		{reflect.TypeFor[[]GetWeatherResponse](), false},
		{reflect.TypeFor[string](), false},
		{reflect.TypeFor[time.Time](), false},
		{reflect.TypeFor[textual](), false},
		{reflect.TypeFor[selfJSON](), false},
		{nil, false},
	}
	for _, c := range cases {
		if got := IsObject(c.typ); got != c.want {
			t.Errorf("IsObject(%v) = %v, want %v", c.typ, got, c.want)
		}
	}
}

func TestCached(t *testing.T) {
	t.Parallel()
	a, err := For(reflect.TypeFor[Complex]())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := For(reflect.TypeFor[Complex]())
	if &a[0] != &b[0] {
		t.Fatal("not cached")
	}
}

func TestFieldTitle(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"city":                    "City",
		"responses_create_params": "Responses Create Params",
		"expected_count":          "Expected Count",
		"HTTPStatus":              "Httpstatus",
		"a_b_":                    "A B",
		"x1":                      "X1",
		"ǆemal":                   "ǅemal", // title case, not upper case
	} {
		if got := fieldTitle(in); got != want {
			t.Errorf("fieldTitle(%q) = %q, want %q", in, got, want)
		}
	}
}
