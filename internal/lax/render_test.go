package lax

import (
	"testing"

	"github.com/gymkit/gymkit/internal/pyjson"
)

type AppendRequest struct {
	Value int `json:"value" required:"true"`
}

type IncrementCounterRequest struct {
	Count int `json:"count" required:"true"`
}

type SeedRequest struct {
	InitialCount int `json:"initial_count" required:"true"`
}

// Renderings, byte for byte, from python-compat.md §3–5 and small-servers.md.
func TestRenderGoldens(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		items func(t *testing.T) []ErrorItem
		http  string
		mcp   string
	}{
		{
			name: "small-servers 1.4 missing city",
			items: func(t *testing.T) []ErrorItem {
				_, items := DecodeInto[GetWeatherRequest](mustParse(t, `{}`), ModeMCP)
				return items
			},
			http: `{"detail":[{"type":"missing","loc":["body","city"],"msg":"Field required","input":{}}]}`,
			mcp:  `[{"type": "missing", "loc": ["city"], "msg": "Field required", "input": {}, "url": "https://errors.pydantic.dev/2.13/v/missing"}]`,
		},
		{
			name: "python-compat 5 test_error_mapping",
			items: func(t *testing.T) []ErrorItem {
				_, items := DecodeInto[AppendRequest](mustParse(t, `{"wrong": "field"}`), ModeMCP)
				return items
			},
			http: `{"detail":[{"type":"missing","loc":["body","value"],"msg":"Field required","input":{"wrong":"field"}}]}`,
			mcp:  `[{"type": "missing", "loc": ["value"], "msg": "Field required", "input": {"wrong": "field"}, "url": "https://errors.pydantic.dev/2.13/v/missing"}]`,
		},
		{
			name: "small-servers 1.5 edge 5 city 5",
			items: func(t *testing.T) []ErrorItem {
				_, items := DecodeInto[GetWeatherRequest](mustParse(t, `{"city":5}`), ModeHTTP)
				return items
			},
			http: `{"detail":[{"type":"string_type","loc":["body","city"],"msg":"Input should be a valid string","input":5}]}`,
			mcp:  `[{"type": "string_type", "loc": ["city"], "msg": "Input should be a valid string", "input": 5, "url": "https://errors.pydantic.dev/2.13/v/string_type"}]`,
		},
		{
			name: "small-servers 1.2 city null",
			items: func(t *testing.T) []ErrorItem {
				_, items := DecodeInto[GetWeatherRequest](mustParse(t, `{"city":null,"x":1}`), ModeHTTP)
				return items
			},
			http: `{"detail":[{"type":"string_type","loc":["body","city"],"msg":"Input should be a valid string","input":null}]}`,
			mcp:  `[{"type": "string_type", "loc": ["city"], "msg": "Input should be a valid string", "input": null, "url": "https://errors.pydantic.dev/2.13/v/string_type"}]`,
		},
		{
			name: "small-servers 2 edge 5 seed {}",
			items: func(t *testing.T) []ErrorItem {
				_, items := DecodeInto[SeedRequest](mustParse(t, `{}`), ModeHTTP)
				return items
			},
			http: `{"detail":[{"type":"missing","loc":["body","initial_count"],"msg":"Field required","input":{}}]}`,
			mcp:  `[{"type": "missing", "loc": ["initial_count"], "msg": "Field required", "input": {}, "url": "https://errors.pydantic.dev/2.13/v/missing"}]`,
		},
		{
			name: "small-servers 2 count 2.5",
			items: func(t *testing.T) []ErrorItem {
				_, items := DecodeInto[IncrementCounterRequest](mustParse(t, `{"count":2.5}`), ModeHTTP)
				return items
			},
			http: `{"detail":[{"type":"int_from_float","loc":["body","count"],"msg":"Input should be a valid integer, got a number with a fractional part","input":2.5}]}`,
			mcp:  `[{"type": "int_from_float", "loc": ["count"], "msg": "Input should be a valid integer, got a number with a fractional part", "input": 2.5, "url": "https://errors.pydantic.dev/2.13/v/int_from_float"}]`,
		},
		{
			name: "small-servers 2 count null",
			items: func(t *testing.T) []ErrorItem {
				_, items := DecodeInto[IncrementCounterRequest](mustParse(t, `{"count":null}`), ModeHTTP)
				return items
			},
			http: `{"detail":[{"type":"int_type","loc":["body","count"],"msg":"Input should be a valid integer","input":null}]}`,
			mcp:  `[{"type": "int_type", "loc": ["count"], "msg": "Input should be a valid integer", "input": null, "url": "https://errors.pydantic.dev/2.13/v/int_type"}]`,
		},
		{
			name:  "missing body",
			items: func(*testing.T) []ErrorItem { return []ErrorItem{MissingBody()} },
			http:  `{"detail":[{"type":"missing","loc":["body"],"msg":"Field required","input":null}]}`,
			mcp:   `[{"type": "missing", "loc": [], "msg": "Field required", "input": null, "url": "https://errors.pydantic.dev/2.13/v/missing"}]`,
		},
		{
			name: "top-level array",
			items: func(t *testing.T) []ErrorItem {
				_, items := DecodeInto[GetWeatherRequest](mustParse(t, `[1,"a"]`), ModeHTTP)
				return items
			},
			http: `{"detail":[{"type":"model_attributes_type","loc":["body"],"msg":"Input should be a valid dictionary or object to extract fields from","input":[1,"a"]}]}`,
			mcp:  `[{"type": "model_attributes_type", "loc": [], "msg": "Input should be a valid dictionary or object to extract fields from", "input": [1, "a"], "url": "https://errors.pydantic.dev/2.13/v/model_attributes_type"}]`,
		},
		{
			name: "non-ASCII and float repr",
			items: func(t *testing.T) []ErrorItem {
				_, items := DecodeInto[GetWeatherRequest](mustParse(t, `{"city":{"né":[1e-5,1e16,1E3,0.0001,-0,"</\u2028>"]}}`), ModeHTTP)
				return items
			},
			http: `{"detail":[{"type":"string_type","loc":["body","city"],"msg":"Input should be a valid string","input":{"né":[1e-05,1e+16,1000.0,0.0001,0,"</` + "\u2028" + `>"]}}]}`,
			mcp:  `[{"type": "string_type", "loc": ["city"], "msg": "Input should be a valid string", "input": {"n\u00e9": [1e-05, 1e+16, 1000.0, 0.0001, 0, "</\u2028>"]}, "url": "https://errors.pydantic.dev/2.13/v/string_type"}]`,
		},
		{
			name: "ctx ordering and nesting, MCP",
			items: func(t *testing.T) []ErrorItem {
				_, items := DecodeInto[Outer](mustParse(t, `{"id":1,"maybe":1,"inner":"x"}`), ModeMCP)
				return items
			},
			http: `{"detail":[{"type":"model_type","loc":["body","inner"],"msg":"Input should be a valid dictionary or instance of Inner","input":"x","ctx":{"class_name":"Inner"}}]}`,
			mcp:  `[{"type": "model_type", "loc": ["inner"], "msg": "Input should be a valid dictionary or instance of Inner", "input": "x", "ctx": {"class_name": "Inner"}, "url": "https://errors.pydantic.dev/2.13/v/model_type"}]`,
		},
		{
			name:  "empty",
			items: func(*testing.T) []ErrorItem { return nil },
			http:  `{"detail":[]}`,
			mcp:   `[]`,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			items := c.items(t)
			if got := string(RenderHTTP(items)); got != c.http {
				t.Errorf("HTTP\n got %s\nwant %s", got, c.http)
			}
			if got := RenderMCP(items); got != c.mcp {
				t.Errorf("MCP\n got %s\nwant %s", got, c.mcp)
			}
		})
	}
}

func TestRenderNaN(t *testing.T) {
	t.Parallel()
	_, items := DecodeInto[IncrementCounterRequest](mustParse(t, `{"count":NaN}`), ModeHTTP)
	if got, want := RenderMCP(items), `[{"type": "finite_number", "loc": ["count"], "msg": "Input should be a finite number", "input": NaN, "url": "https://errors.pydantic.dev/2.13/v/finite_number"}]`; got != want {
		t.Fatalf("MCP got %s", got)
	}
	b, err := RenderHTTPStrict(items)
	if err == nil || b != nil || err.Error() != "Out of range float values are not JSON compliant: nan" {
		t.Fatalf("strict: %q, %v", b, err)
	}
	if _, ok := err.(*pyjson.FloatRangeError); !ok {
		t.Fatalf("strict error type %T", err)
	}
	if got, want := string(RenderHTTP(items)), `{"detail":[{"type":"finite_number","loc":["body","count"],"msg":"Input should be a finite number","input":NaN}]}`; got != want {
		t.Fatalf("HTTP got %s", got)
	}
	_, items = DecodeInto[IncrementCounterRequest](mustParse(t, `{"count":-1e400}`), ModeHTTP)
	if _, err := RenderHTTPStrict(items); err == nil || err.Error() != "Out of range float values are not JSON compliant: -inf" {
		t.Fatalf("strict: %v", err)
	}
}
