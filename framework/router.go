package framework

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"

	"github.com/gymkit/gymkit/internal/pyjson"
)

// Router collects the routes an environment declares in its Routes method.
// It is only valid during Routes; the framework builds the HTTP handler and the
// MCP tools from it afterwards, at startup.
//
// Registration mistakes (a bad or duplicate path, an unsupported request
// type, two dispatchers) are collected and reported at startup as one error
// naming every route; registration never panics.
type Router struct {
	tools      []*Tool // typed tools in registration order
	catchAll   *dispatcher
	seed       *Tool
	verify     *verifyRoute
	middleware []func(http.Handler) http.Handler
	// interceptors wrap every tool call on both doors (Intercept).
	interceptors []Interceptor
	errs         []error
}

// Use adds HTTP middleware around every route of this server (outermost first).
// Note that the MCP door calls tools directly and would skip it, so a server
// that uses middleware cannot expose its tools over MCP (startup refuses it,
// as NeMo's installer refuses non-Gym middleware, contract d.2 step 3a).
// To wrap tool calls on both doors, use [Intercept].
func (r *Router) Use(mw ...func(http.Handler) http.Handler) {
	r.middleware = append(r.middleware, mw...)
}

func (r *Router) errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Errorf(format, args...))
}

// RouteOption sets tool metadata: [Description], [Title], [ReadOnly],
// [Destructive], [Idempotent], [OpenWorld].
type RouteOption func(*Tool)

// Description sets the tool's description (FastAPI takes it from the handler
// docstring; MCP shows it in tools/list). Leading and trailing space is trimmed.
func Description(text string) RouteOption {
	return func(t *Tool) { t.Description = strings.TrimSpace(text) }
}

// Title sets the tool's human-readable title (MCP "title").
func Title(text string) RouteOption { return func(t *Tool) { t.Title = text } }

// ReadOnly marks the tool as not modifying its environment (MCP readOnlyHint).
func ReadOnly() RouteOption { return func(t *Tool) { t.Annotations.ReadOnly = ptr(true) } }

// Destructive marks the tool as possibly destructive (MCP destructiveHint).
func Destructive() RouteOption { return func(t *Tool) { t.Annotations.Destructive = ptr(true) } }

// Idempotent marks repeated calls with the same arguments as having no further
// effect (MCP idempotentHint).
func Idempotent() RouteOption { return func(t *Tool) { t.Annotations.Idempotent = ptr(true) } }

// OpenWorld marks the tool as reaching outside the environment (MCP
// openWorldHint).
func OpenWorld() RouteOption { return func(t *Tool) { t.Annotations.OpenWorld = ptr(true) } }

func ptr[T any](v T) *T { return &v }

// reservedNames are the route names that are never tools (contract d.2, and
// gymkit's close_session).
var reservedNames = map[string]bool{"verify": true, "seed_session": true, "aggregate_metrics": true, "mcp": true, "close_session": true}

// reservedHint says, for each reserved name, what to use instead.
var reservedHint = map[string]string{
	"verify":            "implement Verify on the server for that route",
	"seed_session":      "implement SeedSession on the server for that route",
	"aggregate_metrics": "the framework serves that route from the verify answers: implement framework.MetricsComputer or framework.KeyMetricsProvider to add to it",
	"mcp":               "the MCP door serves that route",
	"close_session":     "implement Close (framework.SessionCloser) on the server for that route",
}

// Post registers a typed tool: POST path with a JSON body decoded into Req and
// the handler's Resp written as the 200 body, and, when the instance exposes
// tools over MCP, the MCP tool of the same name (path without its "/").
//
// Req and Resp are values, not pointers (refused at startup). Req is
// normally a struct; it is decoded with pydantic v2's lax rules and a failure
// is a 422 listing pydantic's error items. Its fields map to pydantic types:
//
//   - the key is the field's `json` name, matched case-sensitively; unknown
//     keys are ignored (embed [Extra] to keep them, [ForbidExtra] to refuse);
//   - a field is required only with the tag `required:"true"`; any other
//     field is optional and keeps its Go zero value when the key is absent
//     (pydantic users: a field without a default is NOT required here);
//   - string (strict: 5 is a 422), bool ("yes", 1, ...), every int and uint
//     kind ("3", 3.0 and true are ints; Go's range is enforced as ge/le),
//     [Int] (Python's unbounded int, the same rules without a range),
//     float32/float64 ("2.5", "inf", true), []T, map[string]T, nested
//     structs (embedded structs are flattened), *T (Optional: null is nil);
//   - [Value], [Object], json.RawMessage and any accept any JSON;
//   - tags `default:"..."` (used when the key is absent) and `enum:"a,b"`
//     (Literal) are honoured, as is `description:"..."` in the schema;
//   - types with their own UnmarshalJSON (time.Time), []byte and maps with
//     non-string keys are refused at startup.
//
// A Req of json.RawMessage, map[string]any, [Value] or [Object] is a dict
// body (a Python `body: dict`): any JSON object, its keys not validated. Over
// HTTP a body that is not an object is a 422 "dict_type" item (Input should
// be a valid dictionary) and an absent or null body a 422 "missing"; over
// MCP the arguments are an object by the protocol (the go-sdk answers
// others with JSON-RPC -32602, and absent or null arguments are {}). For a
// typed request that also keeps unknown keys, embed [Extra]. [NoBody] never
// reads the body. The tool's input
// schema comes from Req, its output schema from Resp when Resp is a JSON
// object type. A body is read only with a JSON Content-Type
// (application/json or */*+json), as FastAPI does.
//
// The handler's error decides the status ([StatusOf]): *Error keeps its status,
// anything else (and a panic) is a 500. path must be "/name" with name
// matching [A-Za-z0-9_-]+ and not one of verify, seed_session,
// aggregate_metrics, mcp; violations are reported at startup.
func Post[Req, Resp any](r *Router, path string, h func(ctx context.Context, req Req) (Resp, error), opts ...RouteOption) {
	name, ok := strings.CutPrefix(path, "/")
	if !ok || name == "" {
		r.errorf("route %q: path must start with \"/\" and name a tool", path)
		return
	}
	if h == nil {
		r.errorf("route %q: nil handler", path)
		return
	}
	dec, in, kind, err := decoder[Req](name)
	if err != nil {
		r.errorf("route %q: %v", path, err)
		return
	}
	if rt := reflect.TypeFor[Resp](); rt.Kind() == reflect.Pointer {
		r.errorf("route %q: response type %v is a pointer: return the value type", path, rt)
		return
	}
	t := &Tool{
		Name:         name,
		InputSchema:  in,
		OutputSchema: outputSchema[Resp](),
		noBody:       kind == bodyNone,
		path:         path,
	}
	t.invoke = func(ctx context.Context, _ string, args *body, raw []byte) (any, error) {
		req, err := dec(ctx, args, raw)
		if err != nil {
			return nil, err
		}
		resp, err := h(ctx, req)
		if err != nil {
			return nil, err
		}
		return resp, nil
	}
	for _, o := range opts {
		o(t)
	}
	switch {
	case !toolName.MatchString(name):
		r.errorf("route %q: tool name %q does not match [A-Za-z0-9_-]+", path, name)
		return
	case reservedNames[name]:
		r.errorf("route %q: %q is reserved (%s)", path, name, reservedHint[name])
		return
	}
	for _, o := range r.tools {
		if o.Name == name {
			r.errorf("route %q: registered twice", path)
			return
		}
	}
	r.tools = append(r.tools, t)
}

// DispatchFunc handles one call of a dispatcher server: tool is the path
// segment ("email_send_email", percent-decoded), args the JSON object body as
// compact UTF-8 JSON text (NaN and Infinity literals kept, as Python's
// json.loads accepts them). Its result is written as the 200 body: return a struct, a
// json.RawMessage or a [Value] to keep key order (Go maps are written with
// sorted keys).
type DispatchFunc func(ctx context.Context, tool string, args json.RawMessage) (any, error)

type dispatcher struct {
	h      DispatchFunc
	used   bool        // some exposed tool dispatches through it
	limits *toolLimits // the tools' timeouts, set by Build
	hooks  *callHooks  // the App's interceptors and error policy, set by Build
}

// Dispatch registers the catch-all POST /{tool} of a dispatcher server (NeMo's
// `POST /{path}` pattern, contract a.6): every POST to a path that is not a
// typed route or a default route reaches h with the path segment as tool.
// The body must be a JSON object (else 422, as the Python body model would
// say); decode it with [Decode] to validate its fields.
//
// A dispatcher's tools are not harvested for MCP: a Tools hook mints them with
// [CatchAll.Tool]. A server has at most one dispatcher; a second is refused at startup.
func Dispatch(r *Router, h DispatchFunc) {
	if h == nil {
		r.errorf("Dispatch: nil handler")
		return
	}
	if r.catchAll != nil {
		r.errorf("Dispatch: multiple parameterized catch-all routes (POST /{tool} registered twice)")
		return
	}
	r.catchAll = &dispatcher{h: h}
}

func (d *dispatcher) invoke(ctx context.Context, tool string, b *body, _ []byte) (any, error) {
	args := b.lazy() // only written out: argsJSON reads the spans
	if args.Kind != pyjson.Object {
		return nil, modelAttributesError(args)
	}
	return d.h(ctx, tool, argsJSON(args))
}

// CatchAll mints MCP tools that dispatch through the server's [Dispatch]
// handler. The framework passes it to a Tools hook; it is nil when the server
// has no dispatcher.
type CatchAll struct {
	d *dispatcher
}

// Tool returns a tool named name whose calls reach the dispatcher with that
// name as the tool, exactly as POST /<name> does. inputSchema is the tool's
// JSON Schema object (nil = the permissive
// {"type":"object","additionalProperties":true}); description may be "".
// Calling Tool on a nil *CatchAll panics with a message saying the server has
// no Dispatch route.
func (c *CatchAll) Tool(name string, inputSchema json.RawMessage, description string) Tool {
	if c == nil {
		panic("framework: CatchAll.Tool(" + name + "): the server has no Dispatch route")
	}
	if len(inputSchema) == 0 {
		inputSchema = permissive
	}
	c.d.used = true
	return Tool{
		Name:        name,
		Description: strings.TrimSpace(description),
		InputSchema: inputSchema,
		invoke:      c.d.invoke,
		path:        "/{tool}",
		catchAll:    true,
		limits:      c.d.limits,
		hooks:       c.d.hooks,
	}
}
