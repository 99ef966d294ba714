package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/mcpexpose"
)

// OpenAPIPath and DocsPath are the instance's API description routes (GET
// only, as FastAPI serves them: ../shared/data/nemo-gym-peer/*.jsonl, scenario
// "http", steps "GET /openapi.json" and "GET /docs"). Neither is listed in the
// document itself (FastAPI's include_in_schema=False). The config key
// openapi: false turns both off (they then answer FastAPI's 404
// {"detail":"Not Found"}, as FastAPI(openapi_url=None) does).
const (
	OpenAPIPath = "/openapi.json"
	DocsPath    = "/docs"
)

// openAPIExtension serves GET /openapi.json and GET /docs, built once when
// the instance is (the routes never change after Build). It is the last
// extension, so it sees every route; the host's layers (session cookie, body
// limit, auth) wrap it like any other route.
func openAPIExtension() Extension {
	return Extension{
		Name: "openapi",
		Mount: func(inst *Instance, next http.Handler) (http.Handler, error) {
			doc, err := OpenAPI(inst)
			if err != nil {
				return nil, err
			}
			return openAPIRoutes(doc, postRouted(inst), next), nil
		},
	}
}

// postRouted reports whether the instance's app has a POST route of its
// own at path: a tool of that path, or a dispatcher's POST /{tool}.
func postRouted(inst *Instance) func(path string) bool {
	return func(path string) bool {
		if inst.App.CatchAll() != nil {
			return true
		}
		for _, t := range inst.App.Tools() {
			if t.Path() == path {
				return true
			}
		}
		return false
	}
}

// openAPIRoutes answers GET (and HEAD) /openapi.json and /docs and hands
// everything else to next (a POST /docs reaches a tool named docs, or a
// dispatcher's POST /{tool}). Any other method at those paths is
// Starlette's 405 with Allow: GET, HEAD (FastAPI.setup registers them with
// add_route, whose Route adds HEAD to GET and answers other methods 405 from
// Route.handle), and the paths with a trailing slash are redirected there
// (307, Starlette's redirect_slashes; spec/python-compat.md).
func openAPIRoutes(doc []byte, posted func(path string) bool, next http.Handler) http.Handler {
	page := docsPage()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if p == OpenAPIPath+"/" || p == DocsPath+"/" {
			u := url.URL{Scheme: "http", Host: r.Host, Path: strings.TrimSuffix(p, "/"), RawQuery: r.URL.RawQuery}
			if r.TLS != nil {
				u.Scheme = "https"
			}
			w.Header().Set("Location", u.String())
			w.WriteHeader(http.StatusTemporaryRedirect)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			if (p == OpenAPIPath || p == DocsPath) && !(r.Method == http.MethodPost && posted(p)) {
				body := []byte(`{"detail":"Method Not Allowed"}`)
				h := w.Header()
				h.Set("Allow", "GET, HEAD")
				h.Set("Content-Type", "application/json")
				h.Set("Content-Length", strconv.Itoa(len(body)))
				w.WriteHeader(http.StatusMethodNotAllowed)
				_, _ = w.Write(body)
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		switch r.URL.Path {
		case OpenAPIPath:
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", strconv.Itoa(len(doc))) // a HEAD's too, as Starlette's
			w.WriteHeader(http.StatusOK)
			if r.Method == http.MethodGet {
				_, _ = w.Write(doc)
			}
		case DocsPath:
			h := w.Header()
			h.Set("Content-Type", "text/html; charset=utf-8")
			// The page is self-contained: it may load nothing but
			// openapi.json from this server.
			h.Set("Content-Security-Policy", "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self'")
			h.Set("X-Content-Type-Options", "nosniff")
			h.Set("Content-Length", strconv.Itoa(len(page)))
			w.WriteHeader(http.StatusOK)
			if r.Method == http.MethodGet {
				_, _ = w.Write(page)
			}
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// The fixed components, as NeMo's FastAPI servers publish them
// (../shared/data/nemo-gym-peer/example_mcp_weather.jsonl, "GET
// /openapi.json": components.schemas HTTPValidationError, ValidationError,
// AggregateMetricsRequest, AggregateMetrics, ReverifyMode; the verify and
// seed models are the bases every NeMo server's models extend).
var fixedSchemas = map[string]string{
	"HTTPValidationError": `{"properties":{"detail":{"items":{"$ref":"#/components/schemas/ValidationError"},"type":"array","title":"Detail"}},"type":"object","title":"HTTPValidationError"}`,
	"ValidationError":     `{"properties":{"loc":{"items":{"anyOf":[{"type":"string"},{"type":"integer"}]},"type":"array","title":"Location"},"msg":{"type":"string","title":"Message"},"type":{"type":"string","title":"Error Type"},"input":{"title":"Input"},"ctx":{"type":"object","title":"Context"}},"type":"object","required":["loc","msg","type"],"title":"ValidationError"}`,
	"AggregateMetricsRequest": `{"properties":{"verify_responses":{"items":{"additionalProperties":true,"type":"object"},"type":"array","title":"Verify Responses"}},"type":"object","required":["verify_responses"],"title":"AggregateMetricsRequest",` +
		`"description":"POST body for /aggregate_metrics: the stripped /verify answers, each with at least _ng_task_index (int) and reward (float)."}`,
	"AggregateMetrics": `{"properties":{"group_level_metrics":{"items":{"additionalProperties":true,"type":"object"},"type":"array","title":"Group Level Metrics","description":"Per-task metrics (one dict per task) from RewardProfiler baseline stats."},` +
		`"agent_metrics":{"additionalProperties":true,"type":"object","title":"Agent Metrics","description":"Overall metrics across all rollouts (RewardProfiler baseline + compute_metrics)."},` +
		`"key_metrics":{"additionalProperties":true,"type":"object","title":"Key Metrics","description":"Headline metrics for this benchmark. Subset of agent_metrics."}},"type":"object","title":"AggregateMetrics"}`,
	"ReverifyMode":       `{"type":"string","enum":["stateless","unsupported","unknown"],"title":"ReverifyMode"}`,
	"SeedSessionRequest": `{"additionalProperties":true,"type":"object","title":"SeedSessionRequest","description":"The dataset row NeMo's agents send to start a rollout (contract a.3): any JSON object; keys the environment does not read are ignored."}`,
	"VerifyRequest": `{"properties":{"responses_create_params":{"additionalProperties":true,"type":"object","title":"Responses Create Params","description":"NeMoGymResponseCreateParamsNonStreaming: the request the agent sent to the model."},` +
		`"response":{"additionalProperties":true,"type":"object","title":"Response","description":"NeMoGymResponse: the model's answer, its output items."}},"additionalProperties":true,"type":"object","required":["responses_create_params","response"],"title":"VerifyRequest"}`,
	"VerifyResponse": `{"properties":{"responses_create_params":{"additionalProperties":true,"type":"object","title":"Responses Create Params"},"response":{"additionalProperties":true,"type":"object","title":"Response"},` +
		`"reward":{"type":"number","title":"Reward"}},"additionalProperties":true,"type":"object","required":["responses_create_params","response","reward"],"title":"VerifyResponse"}`,
	"Status":         `{"properties":{"status":{"type":"string","enum":["ok"],"title":"Status"}},"type":"object","required":["status"],"title":"Status"}`,
	"Detail":         `{"properties":{"detail":{"title":"Detail"}},"type":"object","required":["detail"],"title":"Detail","description":"An error answer: {\"detail\": <message or list>}."}`,
	"JSONRPCMessage": `{"additionalProperties":true,"type":"object","title":"JSONRPCMessage","description":"A JSON-RPC 2.0 message of the MCP Streamable HTTP transport (initialize, tools/list, tools/call, ...); batches are refused."}`,
}

// Whether an operation validates its body (and so may answer FastAPI's 422).
const (
	withValidation = true
	noValidation   = false
)

// componentName is what an OpenAPI component key may be (OpenAPI 3.1
// "Components Object": ^[a-zA-Z0-9\.\-_]+$).
var componentName = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// openAPIDoc accumulates one document.
type openAPIDoc struct {
	paths   []pathItem
	schemas map[string]json.RawMessage
	order   []string
	fixed   map[string]json.RawMessage // fixedSchemas replaced by the environment's own (seed, verify)
}

type pathItem struct {
	path, method string
	op           map[string]any
}

// OpenAPI returns the instance's OpenAPI 3.1 document, as GET /openapi.json
// serves it: info (the instance name; the version of mcp.server_info or
// "0.1.0", FastAPI's default), every route of the instance (GET /, GET
// /reverify_mode, POST /seed_session, /verify, /aggregate_metrics,
// /close_session unless close_session: false, every typed tool, the
// dispatcher's /{tool} and the tools a Tools hook mints from it, POST /mcp
// when the tools are exposed over MCP), each with FastAPI's operation shape
// (summary, operationId "<name>_<path>_<method>", requestBody, "200" and, for
// bodies that are validated, "422" with HTTPValidationError), and
// components.schemas holding every schema a path refers to, so that every
// "$ref" resolves inside the document.
//
// The tools' request and response schemas are the ones tools/list shows
// (framework.Tool.InputSchema and OutputSchema, from the framework's schema
// generator); a component is named by the schema's title when that is a
// valid, unambiguous component name, else "<tool>_Request" /
// "<tool>_Response". The seed and verify bodies (components
// SeedSessionRequest, VerifyRequest, VerifyResponse) are the environment's
// own types (host.App.SeedSessionSchema and VerifySchemas: their
// fields in order, titled with the Go type's name) with NeMo's base models
// merged in: the base's description of responses_create_params, response
// and reward replaces the generated one, its "required" comes first, and
// its description is kept when the type has none; a server with the
// default seed documents NeMo's BaseSeedSessionRequest (any object). The
// aggregate bodies are NeMo's.
//
// It fails only when a Tools hook returns a tool whose schema is not JSON.
func OpenAPI(inst *Instance) ([]byte, error) {
	d := &openAPIDoc{schemas: map[string]json.RawMessage{}, fixed: map[string]json.RawMessage{}}
	if sch := inst.App.SeedSessionSchema(); sch != nil {
		d.fixed["SeedSessionRequest"] = mergeBase(fixedSchemas["SeedSessionRequest"], sch)
	}
	if req, resp := inst.App.VerifySchemas(); req != nil && resp != nil {
		d.fixed["VerifyRequest"] = mergeBase(fixedSchemas["VerifyRequest"], req)
		d.fixed["VerifyResponse"] = mergeBase(fixedSchemas["VerifyResponse"], resp)
	}
	d.add("/", "get", "Status", "The instance is up: {\"status\":\"ok\"}.", nil, ref("Status"), noValidation)
	d.add("/reverify_mode", "get", "Get Reverify Mode", "", nil, ref("ReverifyMode"), noValidation)
	d.add("/seed_session", "post", "Seed Session", "Start a rollout: the answer sets the rollout's session cookie"+
		mcpSeedNote(inst)+".", ref("SeedSessionRequest"), json.RawMessage(`{}`), withValidation)
	d.add("/verify", "post", "Verify", "Score a finished rollout: the answer echoes the request and adds reward.",
		ref("VerifyRequest"), ref("VerifyResponse"), withValidation)
	d.add("/aggregate_metrics", "post", "Aggregate Metrics", "Compute aggregate metrics from verify responses.",
		ref("AggregateMetricsRequest"), ref("AggregateMetrics"), withValidation)
	if inst.Config.CloseSession {
		d.add("/close_session", "post", "Close Session", "End the rollout: free its session state.", nil, json.RawMessage(`{}`), noValidation)
	}
	app := inst.App
	typed := app.Tools()
	for _, t := range typed {
		if err := d.addTool(t); err != nil {
			return nil, err
		}
	}
	if app.CatchAll() != nil {
		// The dispatcher tools a Tools hook mints are routes of their own
		// name; the rest of /{tool} is the dispatcher's.
		exposed, err := app.ExposedTools()
		if err != nil {
			return nil, err
		}
		for _, t := range exposed {
			if t.IsCatchAll() {
				if err := d.addTool(t); err != nil {
					return nil, err
				}
			}
		}
		op := d.operation("/{tool}", "post", "Dispatch", "Call a tool of the dispatcher by name: the body is its arguments.",
			json.RawMessage(`{"additionalProperties":true,"type":"object"}`), json.RawMessage(`{}`), true)
		op["parameters"] = []any{map[string]any{"name": "tool", "in": "path", "required": true,
			"schema": map[string]any{"type": "string", "title": "Tool"}}}
		d.paths = append(d.paths, pathItem{"/{tool}", "post", op})
	}
	if inst.Config.ExposeToolsOverMCP {
		op := d.operation(mcpexpose.URLPath, "post", "MCP",
			"The MCP door (Streamable HTTP, stateless, JSON responses): tools/list and tools/call with the X-NeMo-Gym-Session-Token header the seed answer gives.",
			ref("JSONRPCMessage"), ref("JSONRPCMessage"), false)
		d.paths = append(d.paths, pathItem{mcpexpose.URLPath, "post", op})
	}
	return d.encode(inst)
}

func mcpSeedNote(inst *Instance) string {
	if inst.Config.ExposeToolsOverMCP {
		return ` and, under "mcp", the MCP session token`
	}
	return ""
}

// ref is a schema that refers to the component name (added when the
// document is encoded: every fixed component a path uses).
func ref(name string) json.RawMessage {
	return json.RawMessage(`{"$ref":"#/components/schemas/` + name + `"}`)
}

// addTool adds POST <path> of one tool, with its schemas as components.
func (d *openAPIDoc) addTool(t framework.Tool) error {
	path := "/" + t.Name
	summary := t.Title
	if summary == "" {
		summary = pyTitle(t.Name)
	}
	in, err := d.component(t.InputSchema, t.Name+"_Request")
	if err != nil {
		return fmt.Errorf("openapi: tool %q: input schema: %w", t.Name, err)
	}
	out := json.RawMessage(`{}`)
	if len(t.OutputSchema) > 0 {
		if out, err = d.component(t.OutputSchema, t.Name+"_Response"); err != nil {
			return fmt.Errorf("openapi: tool %q: output schema: %w", t.Name, err)
		}
	}
	noBody := len(t.InputSchema) == 0
	op := d.operation(path, "post", summary, t.Description, in, out, !noBody)
	if noBody {
		delete(op, "requestBody")
	}
	d.paths = append(d.paths, pathItem{path, "post", op})
	return nil
}

// component stores schema under its title (or fallback when the title is
// not a valid component name or names a different schema) and returns a
// $ref to it. A nil schema is nil.
func (d *openAPIDoc) component(schema json.RawMessage, fallback string) (json.RawMessage, error) {
	if len(schema) == 0 {
		return nil, nil
	}
	var head struct {
		Title string `json:"title"`
	}
	if err := json.Unmarshal(schema, &head); err != nil {
		return nil, err
	}
	name := head.Title
	if _, fixed := fixedSchemas[name]; fixed || !componentName.MatchString(name) {
		name = fallback
	}
	if old, ok := d.schemas[name]; ok && !bytes.Equal(old, schema) {
		name = fallback
	}
	for i := 2; ; i++ { // a fallback taken by a different schema
		old, ok := d.schemas[name]
		if !ok || bytes.Equal(old, schema) {
			break
		}
		name = fmt.Sprintf("%s_%d", fallback, i)
	}
	if _, ok := d.schemas[name]; !ok {
		d.schemas[name] = schema
		d.order = append(d.order, name)
	}
	return ref(name), nil
}

// add appends one operation (see operation).
func (d *openAPIDoc) add(path, method, summary, desc string, body, resp json.RawMessage, validated bool) {
	d.paths = append(d.paths, pathItem{path, method, d.operation(path, method, summary, desc, body, resp, validated)})
}

// operation is FastAPI's operation object: summary, description,
// operationId, requestBody (when body is not nil), the 200 answer and, when
// validated, the 422 HTTPValidationError answer.
func (d *openAPIDoc) operation(path, method, summary, desc string, body, resp json.RawMessage, validated bool) map[string]any {
	op := map[string]any{"summary": summary, "operationId": operationID(summary, path, method)}
	if desc != "" {
		op["description"] = desc
	}
	if body != nil {
		op["requestBody"] = map[string]any{"content": map[string]any{"application/json": map[string]any{"schema": body}}, "required": true}
	}
	responses := map[string]any{"200": map[string]any{"description": "Successful Response",
		"content": map[string]any{"application/json": map[string]any{"schema": resp}}}}
	if validated {
		responses["422"] = map[string]any{"description": "Validation Error",
			"content": map[string]any{"application/json": map[string]any{"schema": ref("HTTPValidationError")}}}
	}
	op["responses"] = responses
	return op
}

var nonWord = regexp.MustCompile(`[^0-9A-Za-z_]`)

// operationID is FastAPI's generate_unique_id: "<name>_<path>_<method>"
// with every non-word character of the path as "_".
func operationID(summary, path, method string) string {
	name := strings.ToLower(strings.ReplaceAll(summary, " ", "_"))
	return nonWord.ReplaceAllString(name+path, "_") + "_" + method
}

// pyTitle is FastAPI's summary of a route function: "get_weather" → "Get
// Weather".
func pyTitle(name string) string {
	words := strings.FieldsFunc(name, func(r rune) bool { return r == '_' || r == '-' })
	for i, w := range words {
		words[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return strings.Join(words, " ")
}

// encode writes the document: paths in route order, components.schemas with
// the fixed components first (only those referred to), then the tools'.
func (d *openAPIDoc) encode(inst *Instance) ([]byte, error) {
	version := inst.Config.MCP.ServerInfo.Version
	if version == "" {
		version = "0.1.0"
	}
	var b bytes.Buffer
	b.WriteString(`{"openapi":"3.1.0","info":`)
	info, _ := json.Marshal(map[string]string{"title": inst.Name, "version": version})
	b.Write(info)
	b.WriteString(`,"paths":{`)
	// Group operations by path, keeping first-seen order.
	var order []string
	ops := map[string]map[string]any{}
	for _, p := range d.paths {
		if ops[p.path] == nil {
			ops[p.path] = map[string]any{}
			order = append(order, p.path)
		}
		ops[p.path][p.method] = p.op
	}
	for i, p := range order {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(p)
		v, err := json.Marshal(ops[p])
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteString(`},"components":{"schemas":{`)
	first := true
	used := b.String()
	for _, name := range []string{"HTTPValidationError", "ValidationError", "SeedSessionRequest", "VerifyRequest", "VerifyResponse",
		"AggregateMetricsRequest", "AggregateMetrics", "ReverifyMode", "Status", "Detail", "JSONRPCMessage"} {
		if name != "ValidationError" && !strings.Contains(used, `"#/components/schemas/`+name+`"`) {
			continue
		}
		if name == "ValidationError" && !strings.Contains(used, "HTTPValidationError") {
			continue
		}
		sch := json.RawMessage(fixedSchemas[name])
		if own, ok := d.fixed[name]; ok {
			sch = own
		}
		writeMember(&b, &first, name, sch)
	}
	for _, name := range d.order {
		writeMember(&b, &first, name, d.schemas[name])
	}
	b.WriteString(`}}}`)
	var check any // the tools' schemas are embedded as they are: they must be JSON
	if err := json.Unmarshal(b.Bytes(), &check); err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	return b.Bytes(), nil
}

func writeMember(b *bytes.Buffer, first *bool, name string, v json.RawMessage) {
	if !*first {
		b.WriteByte(',')
	}
	*first = false
	k, _ := json.Marshal(name)
	b.Write(k)
	b.WriteByte(':')
	var c bytes.Buffer
	if json.Compact(&c, v) == nil {
		b.Write(c.Bytes())
	} else {
		b.Write(v)
	}
}

// mergeBase merges NeMo's base model schema base into own, the schema the
// framework generated for an environment's type that extends that model:
// own's members in order, each property that base declares replaced by
// base's, base's "required" first then own's others, base's
// "description" when own has none. On a parse failure own is returned.
func mergeBase(base string, own json.RawMessage) json.RawMessage {
	bv, err1 := framework.ParseJSON([]byte(base))
	ov, err2 := framework.ParseJSON(own)
	if err1 != nil || err2 != nil || ov.Kind != framework.KindObject {
		return own
	}
	baseProps, _ := bv.Get("properties")
	baseReq, _ := bv.Get("required")
	var out []framework.Member
	seenReq := map[string]bool{}
	var req []framework.Value
	for _, r := range baseReq.Items {
		seenReq[r.Str] = true
		req = append(req, r)
	}
	hasReq, hasDesc := false, false
	for _, m := range ov.Members {
		switch m.Key {
		case "properties":
			props := make([]framework.Member, len(m.Value.Members))
			for i, p := range m.Value.Members {
				if bp, ok := baseProps.Get(p.Key); ok {
					p.Value = bp
				}
				props[i] = p
			}
			m.Value = framework.ObjectValue(props...)
		case "required":
			hasReq = true
			for _, r := range m.Value.Items {
				if !seenReq[r.Str] {
					seenReq[r.Str] = true
					req = append(req, r)
				}
			}
			m.Value = framework.ArrayValue(req...)
		case "description":
			hasDesc = true
		}
		out = append(out, m)
	}
	if !hasReq && len(req) > 0 {
		out = append(out, framework.Member{Key: "required", Value: framework.ArrayValue(req...)})
	}
	if d, ok := bv.Get("description"); ok && !hasDesc {
		out = append(out, framework.Member{Key: "description", Value: d})
	}
	b, err := framework.MarshalJSON(framework.ObjectValue(out...), framework.JSONPydantic)
	if err != nil {
		return own
	}
	return b
}
