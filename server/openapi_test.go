package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/server"
	"github.com/gymkit/gymkit/server/servertest"
	examplemcpweather "github.com/gymkit/gymkit/servers/example_mcp_weather"
	sessionstate "github.com/gymkit/gymkit/servers/example_session_state_mgmt"
)

// docsTool has a tool named docs (POST /docs beside GET /docs), a NoBody
// tool, a tool with a title and two tools sharing one request type.
type docsTool struct{ framework.Base }

type docsReq struct {
	Topic string `json:"topic" required:"true" description:"What to look up."`
}

type docsResp struct {
	Text string `json:"text"`
}

func (s *docsTool) Routes(r *framework.Router) {
	h := func(_ context.Context, req docsReq) (docsResp, error) {
		return docsResp{Text: "about " + req.Topic}, nil
	}
	framework.Post(r, "/docs", h, framework.Description("Look a topic up."))
	framework.Post(r, "/docs_again", h, framework.Title("Again"))
	framework.Post(r, "/ping", func(context.Context, framework.NoBody) (map[string]string, error) {
		return map[string]string{"pong": "yes"}, nil
	})
	framework.Verify(r, func(context.Context, verifyReq) (verifyResp, error) { return verifyResp{}, nil })
}

type verifyReq struct{ framework.VerifyRequest }
type verifyResp struct{ framework.VerifyResponse }

// dispatcher is a Dispatch server whose Tools hook mints one tool.
type dispatcher struct{ framework.Base }

func (s *dispatcher) Routes(r *framework.Router) {
	framework.Dispatch(r, func(_ context.Context, tool string, args json.RawMessage) (any, error) {
		return map[string]string{"tool": tool}, nil
	})
	framework.Verify(r, func(context.Context, verifyReq) (verifyResp, error) { return verifyResp{}, nil })
}

func (s *dispatcher) Tools(_ []framework.Tool, ca *framework.CatchAll) []framework.Tool {
	return []framework.Tool{ca.Tool("add", json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"}},"title":"AddArgs"}`), "Add.")}
}

var _ framework.ToolsProvider = (*dispatcher)(nil)

func getOpenAPI(t *testing.T, ts *servertest.Server) (map[string]any, *servertest.Response) {
	t.Helper()
	res := ts.Rollout().Do("GET", "/openapi.json", nil, nil)
	if res.Status != 200 || res.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("GET /openapi.json: %d %s %s", res.Status, res.Header.Get("Content-Type"), res.Body)
	}
	var doc map[string]any
	if err := json.Unmarshal(res.Body, &doc); err != nil {
		t.Fatalf("GET /openapi.json is not JSON: %v", err)
	}
	return doc, res
}

// checkOpenAPI checks the OpenAPI 3.1 structure: the required fields of
// the OpenAPI Object, Paths, Operation, Request Body, Responses and
// Parameter objects, unique operationIds, and that every $ref is local and
// resolves.
func checkOpenAPI(t *testing.T, doc map[string]any) {
	t.Helper()
	if doc["openapi"] != "3.1.0" {
		t.Errorf("openapi = %v, want 3.1.0", doc["openapi"])
	}
	info, _ := doc["info"].(map[string]any)
	if s, _ := info["title"].(string); s == "" {
		t.Errorf("info.title missing: %v", doc["info"])
	}
	if s, _ := info["version"].(string); s == "" {
		t.Errorf("info.version missing: %v", doc["info"])
	}
	paths, ok := doc["paths"].(map[string]any)
	if !ok || len(paths) == 0 {
		t.Fatalf("paths: %v", doc["paths"])
	}
	ids := map[string]string{}
	for p, item := range paths {
		if !strings.HasPrefix(p, "/") {
			t.Errorf("path %q does not start with /", p)
		}
		for method, o := range item.(map[string]any) {
			if !slices.Contains([]string{"get", "post", "put", "patch", "delete", "head", "options", "trace"}, method) {
				t.Errorf("%s: %q is not an operation", p, method)
				continue
			}
			op := o.(map[string]any)
			id, _ := op["operationId"].(string)
			if id == "" {
				t.Errorf("%s %s: no operationId", method, p)
			} else if other, dup := ids[id]; dup {
				t.Errorf("operationId %q of %s and %s", id, other, p)
			}
			ids[id] = p
			responses, _ := op["responses"].(map[string]any)
			if len(responses) == 0 {
				t.Errorf("%s %s: no responses", method, p)
			}
			for code, r := range responses {
				if d, _ := r.(map[string]any)["description"].(string); d == "" {
					t.Errorf("%s %s: response %s has no description", method, p, code)
				}
			}
			if rb, ok := op["requestBody"].(map[string]any); ok {
				if c, _ := rb["content"].(map[string]any); c["application/json"] == nil {
					t.Errorf("%s %s: requestBody without application/json content", method, p)
				}
			}
			for _, prm := range asList(op["parameters"]) {
				m := prm.(map[string]any)
				if m["in"] == "path" && (m["required"] != true || !strings.Contains(p, "{"+m["name"].(string)+"}")) {
					t.Errorf("%s %s: path parameter %v", method, p, m)
				}
			}
		}
	}
	schemas, _ := doc["components"].(map[string]any)["schemas"].(map[string]any)
	name := regexp.MustCompile(`^[A-Za-z0-9._-]+$`)
	for k := range schemas {
		if !name.MatchString(k) {
			t.Errorf("component name %q is not valid", k)
		}
	}
	walkRefs(doc, func(ref string) {
		n, ok := strings.CutPrefix(ref, "#/components/schemas/")
		if !ok {
			t.Errorf("$ref %q is not local to components.schemas", ref)
		} else if schemas[n] == nil {
			t.Errorf("$ref %q does not resolve", ref)
		}
	})
}

func asList(v any) []any { l, _ := v.([]any); return l }

func walkRefs(v any, f func(string)) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && k == "$ref" {
				f(s)
				continue
			}
			walkRefs(e, f)
		}
	case []any:
		for _, e := range x {
			walkRefs(e, f)
		}
	}
}

// operations lists "METHOD path" of every operation of the document.
func operations(doc map[string]any) []string {
	var out []string
	for p, item := range doc["paths"].(map[string]any) {
		for m := range item.(map[string]any) {
			out = append(out, strings.ToUpper(m)+" "+p)
		}
	}
	sort.Strings(out)
	return out
}

// resolve follows a {"$ref": ...} schema into components.schemas.
func resolve(t *testing.T, doc map[string]any, s any) map[string]any {
	t.Helper()
	m, _ := s.(map[string]any)
	if r, ok := m["$ref"].(string); ok {
		n := strings.TrimPrefix(r, "#/components/schemas/")
		return doc["components"].(map[string]any)["schemas"].(map[string]any)[n].(map[string]any)
	}
	return m
}

func bodySchema(op map[string]any) any {
	rb, _ := op["requestBody"].(map[string]any)
	c, _ := rb["content"].(map[string]any)
	j, _ := c["application/json"].(map[string]any)
	return j["schema"]
}

func TestOpenAPIDocument(t *testing.T) {
	t.Parallel()
	base := []string{"GET /", "GET /reverify_mode", "POST /aggregate_metrics", "POST /close_session", "POST /seed_session", "POST /verify"}
	for _, tc := range []struct {
		name  string
		srv   framework.Server
		mcp   bool
		extra []string // the environment's own routes
	}{
		{"weather over MCP", new(examplemcpweather.Weather), true, []string{"POST /get_weather", "POST /mcp"}},
		{"counter", new(sessionstate.Counter), false, []string{"POST /get_counter_value", "POST /increment_counter"}},
		{"docs tool", new(docsTool), false, []string{"POST /docs", "POST /docs_again", "POST /ping"}},
		{"dispatcher", new(dispatcher), false, []string{"POST /add", "POST /{tool}"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := servertest.New(t, tc.srv, servertest.Options{ServerType: "openapi_test", MCP: tc.mcp})
			doc, res := getOpenAPI(t, ts)
			checkOpenAPI(t, doc)
			if n := len(res.SetCookies()); n != 1 {
				t.Errorf("GET /openapi.json: %d Set-Cookie, want 1 (as NeMo's)", n)
			}
			want := append(slices.Clone(base), tc.extra...)
			sort.Strings(want)
			if got := operations(doc); !slices.Equal(got, want) {
				t.Errorf("operations\n got %v\nwant %v", got, want)
			}
			// Every listed route exists: none answers 404 or 405.
			for _, op := range operations(doc) {
				method, path, _ := strings.Cut(op, " ")
				path = strings.ReplaceAll(path, "{tool}", "some_tool")
				if r := ts.Rollout().Do(method, path, map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}, `{}`); r.Status == 404 || r.Status == 405 {
					t.Errorf("%s listed but answers %d %s", op, r.Status, r.Body)
				}
			}
			// Only validated bodies may answer 422.
			paths := doc["paths"].(map[string]any)
			for _, op := range []string{"GET /", "GET /reverify_mode", "POST /close_session", "POST /verify", "POST /seed_session"} {
				method, path, _ := strings.Cut(op, " ")
				o := paths[path].(map[string]any)[strings.ToLower(method)].(map[string]any)
				_, has := o["responses"].(map[string]any)["422"]
				if want := method == "POST" && path != "/close_session"; has != want {
					t.Errorf("%s: 422 listed %v, want %v", op, has, want)
				}
			}
			// A typed tool's schemas are exactly those tools/list shows.
			for _, tool := range ts.Instance.App.Tools() {
				op := paths["/"+tool.Name].(map[string]any)["post"].(map[string]any)
				if tool.Description != "" && op["description"] != tool.Description {
					t.Errorf("%s: description %v, want %q", tool.Name, op["description"], tool.Description)
				}
				if len(tool.InputSchema) == 0 {
					if op["requestBody"] != nil {
						t.Errorf("%s: a NoBody tool has a requestBody", tool.Name)
					}
					continue
				}
				var want any
				_ = json.Unmarshal(tool.InputSchema, &want)
				got := resolve(t, doc, bodySchema(op))
				if g, _ := json.Marshal(got); string(g) != string(mustJSON(want)) {
					t.Errorf("%s: request schema\n got %s\nwant %s", tool.Name, g, tool.InputSchema)
				}
				if _, ok := op["responses"].(map[string]any)["422"]; !ok {
					t.Errorf("%s: no 422 answer", tool.Name)
				}
			}
		})
	}
}

func mustJSON(v any) []byte { b, _ := json.Marshal(v); return b }

// The 422 of the document is the shape the server really answers.
func TestOpenAPIValidationErrorShape(t *testing.T) {
	t.Parallel()
	ts := servertest.New(t, new(examplemcpweather.Weather), servertest.Options{})
	doc, _ := getOpenAPI(t, ts)
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	item := schemas["ValidationError"].(map[string]any)
	res := ts.Rollout().Post("/get_weather", `{}`)
	if res.Status != 422 {
		t.Fatalf("POST /get_weather {}: %d", res.Status)
	}
	var body struct {
		Detail []map[string]any `json:"detail"`
	}
	if err := json.Unmarshal(res.Body, &body); err != nil || len(body.Detail) == 0 {
		t.Fatalf("422 body %s", res.Body)
	}
	props := item["properties"].(map[string]any)
	for _, d := range body.Detail {
		for _, k := range asList(item["required"]) {
			if _, ok := d[k.(string)]; !ok {
				t.Errorf("422 item %v lacks required %q", d, k)
			}
		}
		for k := range d {
			if props[k] == nil {
				t.Errorf("422 item key %q is not in ValidationError", k)
			}
		}
	}
}

func TestDocsPage(t *testing.T) {
	t.Parallel()
	ts := servertest.New(t, new(docsTool), servertest.Options{})
	res := ts.Rollout().Do("GET", "/docs", nil, nil)
	if res.Status != 200 || res.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("GET /docs: %d %q", res.Status, res.Header.Get("Content-Type"))
	}
	page := string(res.Body)
	// Nothing from outside the server: no absolute or protocol-relative
	// URL, no external script, stylesheet, image or import.
	for _, bad := range []string{"http://", "https://", "//cdn", " src=", "<link", "@import", "url("} {
		if strings.Contains(page, bad) {
			t.Errorf("GET /docs contains %q", bad)
		}
	}
	if !strings.Contains(page, `fetch("openapi.json"`) {
		t.Error("GET /docs does not read openapi.json from its own server")
	}
	csp := res.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "connect-src 'self'") {
		t.Errorf("Content-Security-Policy %q", csp)
	}
	if n := len(res.SetCookies()); n != 1 {
		t.Errorf("GET /docs: %d Set-Cookie, want 1", n)
	}
	// The page's relative fetch resolves to the document.
	u := ts.URL + "/docs"
	req, _ := http.NewRequest("GET", u, nil)
	ref, _ := req.URL.Parse("openapi.json")
	if ref.String() != ts.URL+"/openapi.json" {
		t.Errorf("openapi.json from /docs is %s", ref)
	}
	// A tool named docs is still POST /docs.
	if r := ts.Rollout().Post("/docs", `{"topic":"x"}`); r.Status != 200 || string(r.Body) != `{"text":"about x"}` {
		t.Errorf("POST /docs: %d %s", r.Status, r.Body)
	}
	// HEAD answers without a body.
	if r := ts.Rollout().Do("HEAD", "/openapi.json", nil, nil); r.Status != 200 || len(r.Body) != 0 {
		t.Errorf("HEAD /openapi.json: %d %q", r.Status, r.Body)
	}
	// Other methods are FastAPI's 405.
	if r := ts.Rollout().Post("/openapi.json", `{}`); r.Status != 404 && r.Status != 405 {
		t.Errorf("POST /openapi.json: %d", r.Status)
	}
}

func TestOpenAPIDisabled(t *testing.T) {
	t.Parallel()
	path := writeConfig(t, "off", "openapi: false")
	cfg, err := config.Load(config.LoadOptions{Files: []string{path}})
	if err != nil {
		t.Fatal(err)
	}
	ci, _ := cfg.Instance("off")
	if ci.OpenAPI {
		t.Fatal("openapi: false not read")
	}
	inst, err := server.NewInstance(context.Background(), new(docsTool), ci, server.InstanceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(inst.Handler())
	defer ts.Close()
	for _, p := range []string{"/openapi.json", "/docs"} {
		res, err := http.Get(ts.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		// GET /docs reaches the docs tool's route: 405 as FastAPI answers
		// a GET on a POST route; /openapi.json is FastAPI's 404.
		if p == "/openapi.json" && (res.StatusCode != 404 || string(b) != `{"detail":"Not Found"}`) {
			t.Errorf("GET %s with openapi: false: %d %s", p, res.StatusCode, b)
		}
		if p == "/docs" && res.StatusCode != 405 {
			t.Errorf("GET %s with openapi: false: %d %s", p, res.StatusCode, b)
		}
	}
}
