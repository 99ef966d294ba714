package framework

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/gymkit/gymkit/framework/internal/schema"
	"github.com/gymkit/gymkit/internal/lax"
	"github.com/gymkit/gymkit/internal/model"
	"github.com/gymkit/gymkit/internal/pyjson"
	"github.com/gymkit/gymkit/session"
)

// Door says through which door a tool call arrived.
type Door uint8

const (
	// DoorHTTP is a plain JSON POST /<tool> (NeMo's simple_agent).
	DoorHTTP Door = iota
	// DoorMCP is an MCP tools/call on /mcp (claude_code_agent, codex_agent).
	DoorMCP
)

// String returns "http" or "mcp".
func (d Door) String() string {
	if d == DoorMCP {
		return "mcp"
	}
	return "http"
}

type doorKey struct{}

// DoorOf returns the door of the tool call running in ctx (DoorHTTP when ctx
// carries none, e.g. in a unit test calling a handler directly).
func DoorOf(ctx context.Context) Door {
	d, _ := ctx.Value(doorKey{}).(Door)
	return d
}

// Annotations are the MCP tool annotations (MCP spec "ToolAnnotations"). A nil
// pointer means "not stated"; the MCP door omits it.
type Annotations struct {
	ReadOnly    *bool // readOnlyHint: the tool does not modify its environment ([ReadOnly])
	Destructive *bool // destructiveHint: the tool may destroy data ([Destructive])
	Idempotent  *bool // idempotentHint: a repeated call has no further effect ([Idempotent])
	OpenWorld   *bool // openWorldHint: the tool reaches outside the environment ([OpenWorld])
}

// Tool is one callable tool: a typed route made by [Post], or a dispatcher
// tool made by [CatchAll.Tool]. Both doors call the same Tool with [Tool.Call]:
// the HTTP door as POST /<Name>, the MCP door as tools/call <Name>.
//
// A Tool is immutable once the instance is built and safe for concurrent use. The fields are
// what tools/list shows; change them (e.g. Description) in a Tools hook by
// copying the value.
type Tool struct {
	// Name is the route path without its leading "/" (e.g. "get_weather"), or
	// the catch-all tool name.
	Name string
	// Title is an optional human-readable name (MCP "title").
	Title string
	// Description is the MCP description; "" means none.
	Description string
	// InputSchema is a self-contained JSON Schema object for the arguments
	// (root "type":"object"; no "$ref"). A dict body has the permissive
	// {"type":"object","additionalProperties":true}.
	InputSchema json.RawMessage
	// OutputSchema is the result's JSON Schema when the result is a JSON object
	// type, else nil.
	OutputSchema json.RawMessage
	// Annotations are the MCP hints set with ReadOnly, Destructive, Idempotent
	// and OpenWorld.
	Annotations Annotations

	invoke invokeFunc
	// noBody tools never read the request body (NoBody).
	noBody bool
	// path is the route path ("/get_weather"; "/{tool}" for catch-all tools).
	path string
	// catchAll marks tools minted by CatchAll.Tool.
	catchAll bool
	// limits are the App's tool timeouts (nil: none), looked up by Name.
	limits *toolLimits
	// hooks are the App's interceptors and error policy (nil: none, for
	// the seed and verify routes).
	hooks *callHooks
}

// invokeFunc runs one call: args is the body (nil when absent) and raw its
// JSON text.
type invokeFunc func(ctx context.Context, tool string, args *body, raw []byte) (any, error)

// Path returns the tool's HTTP route path: "/<Name>", or the dispatcher's
// "/{tool}" for catch-all tools.
func (t Tool) Path() string { return t.path }

// IsCatchAll reports whether the tool dispatches through the catch-all route.
func (t Tool) IsCatchAll() bool { return t.catchAll }

// Call runs the tool once with JSON arguments, as door d: decode and validate
// (a *ValidationError on failure), call the handler (a panic is recovered and
// returned as a 500 error) through the interceptors ([Intercept]) and within
// its timeout if it has one (tool_timeout: a 504 *Error past it), apply
// the error policy ([ErrorTexter], mask_internal_errors), and return its
// result, to be encoded by
// the door.
// args may be nil or empty for "no arguments" (the MCP door passes {} then).
// A [*ValidationError] Call returns for a request it refuses refers to
// args' bytes (its items' inputs are views of the text, not copies, so that
// a 422 echoing a large input costs no second copy of it): args must not be
// modified while that error is in use. Nothing else Call returns refers to
// them. Call is safe for concurrent use.
func (t Tool) Call(ctx context.Context, args json.RawMessage, d Door) (any, error) {
	if t.invoke == nil {
		return nil, fmt.Errorf("framework: tool %q was not built by the framework", t.Name)
	}
	var v *body
	if !t.noBody {
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		k, err := pyjson.CheckKind(args, pyjson.Limits{})
		if err != nil {
			return nil, Errorf(400, "There was an error parsing the body")
		}
		if k != pyjson.Null {
			v = textBody(args, pyjson.Limits{}, k)
		}
	}
	return t.call(context.WithValue(ctx, doorKey{}, d), v, args)
}

// timed runs the tool, within its timeout when it has one (see
// Options.ToolTimeout): the innermost invoker of the chain (see call).
func (t Tool) timed(ctx context.Context, args *body, raw []byte) (any, error) {
	if d := t.limits.of(t.Name); d > 0 {
		return t.callWithin(ctx, d, args, raw)
	}
	return t.run(ctx, args, raw)
}

// callWithin runs the tool on a goroutine of its own and answers the 504 of
// [timeoutError] once d has passed, without waiting for a handler that
// ignores its context (which is canceled then). The context carries the
// deadline for session.Update (session.WithWriteDeadline), and the guard is
// expired before the 504 is returned, so no state is written after the
// answer. A result that arrives after the deadline is a 504 too: a handler
// may have ignored an Update refused for the deadline.
func (t Tool) callWithin(ctx context.Context, d time.Duration, args *body, raw []byte) (any, error) {
	deadline := time.Now().Add(d)
	timeout := timeoutError(t.Name, d)
	tctx, cancel := context.WithDeadlineCause(ctx, deadline, timeout)
	defer cancel()
	tctx, expire := session.WithWriteDeadline(tctx, deadline)
	type outcome struct {
		res any
		err error
	}
	ch := make(chan outcome, 1)
	go func() {
		returned := false
		defer func() {
			if !returned { // runtime.Goexit (run recovers panics)
				ch <- outcome{err: &panicError{value: "runtime.Goexit called"}}
			}
		}()
		res, err := t.run(tctx, args, raw)
		returned = true
		ch <- outcome{res, err}
	}()
	select {
	case o := <-ch:
		if time.Now().Before(deadline) {
			return o.res, o.err
		}
	case <-tctx.Done():
		if context.Cause(tctx) != timeout {
			// The client went away: wait for the handler, as without a
			// limit, but not past the deadline.
			timer := time.NewTimer(time.Until(deadline))
			defer timer.Stop()
			select {
			case o := <-ch:
				if time.Now().Before(deadline) {
					return o.res, o.err
				}
			case <-timer.C:
			}
		}
	}
	expire()
	return nil, timeout
}

// timeoutError is the answer to a call of tool that ran past its limit d:
// HTTP 504 {"detail":"Tool '<tool>' timed out after <d>"}.
func timeoutError(tool string, d time.Duration) error {
	return Errorf(http.StatusGatewayTimeout, "Tool '%s' timed out after %s", tool, d)
}

// toolLimits are the tool timeouts of an App: def for every tool, byName
// replacing it for some. Immutable after Build.
type toolLimits struct {
	def    time.Duration
	byName map[string]time.Duration
}

// of returns the timeout of the tool named name; 0 means none (also for a
// nil *toolLimits).
func (l *toolLimits) of(name string) time.Duration {
	if l == nil {
		return 0
	}
	if d, ok := l.byName[name]; ok {
		return d
	}
	return l.def
}

// newToolLimits checks the timeouts of Options: a name of byName must be a
// tool's unless a dispatcher may take any name. It returns nil when no tool
// has a limit.
func newToolLimits(def time.Duration, byName map[string]time.Duration, tools []*Tool, dispatcher bool) (*toolLimits, error) {
	if def < 0 {
		def = 0
	}
	if def == 0 && len(byName) == 0 {
		return nil, nil
	}
	var unknown []string
	for name := range byName {
		if !dispatcher && !slices.ContainsFunc(tools, func(t *Tool) bool { return t.Name == name }) {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		names := make([]string, len(tools))
		for i, t := range tools {
			names[i] = t.Name
		}
		return nil, fmt.Errorf("tool_timeouts: no tool named %s (the tools: %s)", strings.Join(unknown, ", "), strings.Join(names, ", "))
	}
	l := &toolLimits{def: def, byName: make(map[string]time.Duration, len(byName))}
	for name, d := range byName {
		l.byName[name] = max(d, 0)
	}
	return l, nil
}

// run runs the handler once, turning a panic into a 500 error.
func (t Tool) run(ctx context.Context, args *body, raw []byte) (res any, err error) {
	defer func() {
		if p := recover(); p != nil {
			log := slog.Default()
			if t.hooks != nil && t.hooks.log != nil {
				log = t.hooks.log // the App's (the instance's) logger
			}
			log.ErrorContext(ctx, "tool panicked", "tool", t.Name, "door", DoorOf(ctx).String(), "panic", p, "stack", string(debug.Stack()))
			res, err = nil, &panicError{value: p}
		}
	}()
	return t.invoke(ctx, t.Name, args, raw)
}

// NoBody is a request type for tools that take no arguments: the body is not
// read at all (any body, none, or invalid JSON is accepted), like a FastAPI
// handler that only takes a Request. Its schema is the permissive object
// schema.
type NoBody struct{}

var (
	noBodyType = reflect.TypeFor[NoBody]()
	rawType    = reflect.TypeFor[json.RawMessage]()
	mapAnyType = reflect.TypeFor[map[string]any]()
	valueType  = reflect.TypeFor[pyjson.Value]()
	permissive = schema.Permissive
)

// bodyKind says how a request type is decoded.
type bodyKind uint8

const (
	bodyModel bodyKind = iota // a struct (or other typed) model: lax decode
	bodyDict                  // json.RawMessage, map[string]any, Value: any object
	bodyNone                  // NoBody
)

func kindOf(t reflect.Type) bodyKind {
	switch t {
	case noBodyType:
		return bodyNone
	case rawType, mapAnyType, valueType:
		return bodyDict
	}
	return bodyModel
}

// decoder returns a function decoding a body Value into a Req, or an error at
// registration time (unsupported field types).
func decoder[Req any](name string) (func(ctx context.Context, b *body, raw []byte) (Req, error), json.RawMessage, bodyKind, error) {
	t := reflect.TypeFor[Req]()
	switch kindOf(t) {
	case bodyNone:
		return func(context.Context, *body, []byte) (Req, error) {
			var zero Req
			return zero, nil
		}, permissive, bodyNone, nil
	case bodyDict:
		return func(_ context.Context, b *body, _ []byte) (Req, error) {
			var req Req
			if !b.isObject() {
				// The error's input is a view of the text (see Tool.Call).
				return req, dictError(b.view())
			}
			switch p := any(&req).(type) {
			case *json.RawMessage:
				// Written out from a view of the text: no copy of it, no
				// tree (about 2x the body: docs/security.md, "Exhaust memory").
				*p = argsJSON(b.view())
			case *pyjson.Value:
				*p = b.value() // the environment's tree: 72 bytes per JSON value
			case *map[string]any:
				*p = b.goMap() // straight from the text, no Value tree
			}
			return req, nil
		}, permissive, bodyDict, nil
	}
	if t.Kind() == reflect.Pointer {
		return nil, nil, 0, fmt.Errorf("request type %v is a pointer: use the value type (an absent body is a 422, never nil)", t)
	}
	if !schema.IsObject(t) {
		return nil, nil, 0, fmt.Errorf("request type %v is not a JSON object type: use a struct, a map, json.RawMessage, framework.Value or framework.NoBody", t)
	}
	plan, err := lax.Compile(t)
	if err != nil {
		return nil, nil, 0, err
	}
	sch, err := schema.For(t)
	if err != nil {
		return nil, nil, 0, err
	}
	if err := checkEnums(t); err != nil {
		return nil, nil, 0, err
	}
	if t.Kind() == reflect.Struct && t.Name() == "" {
		if sch, err = titled(sch, requestTitle(name)); err != nil {
			return nil, nil, 0, err
		}
	}
	// A model without fields (a seed that ignores its row) reads nothing
	// of an object: any object validates, so the text is not read again.
	empty := t.Kind() == reflect.Struct && t.NumField() == 0 && !model.IsCustom(t)
	return func(ctx context.Context, b *body, _ []byte) (Req, error) {
		var req Req
		if empty && b.isObject() {
			return req, nil
		}
		mode := lax.ModeHTTP
		if DoorOf(ctx) == DoorMCP {
			mode = lax.ModeMCP
		}
		if raw, lim, ok := b.text(); ok {
			// Straight from the text, without the tree; on any problem
			// (an error item to report), decode the tree for the exact
			// items.
			if plan.DecodeJSON(raw, lim, reflect.ValueOf(&req).Elem(), mode) {
				return req, nil
			}
			req = *new(Req)
		}
		// The lazy tree over the text itself (a view, no copy of it: a 422
		// echoing a large input then costs the body and the echo,
		// docs/security.md, "Exhaust memory"): the items' inputs are spans of
		// the text, a large array is read item by item. Only the error keeps
		// it.
		if items := plan.Decode(b.view(), reflect.ValueOf(&req).Elem(), mode); len(items) > 0 {
			return req, &ValidationError{items: items}
		}
		// The tree accepts what the streaming decode gave up on (rare):
		// decode again from the lazy tree's own copy of the text, so
		// that nothing the request keeps (a string, a Value) is a view
		// of the body. Only what the request keeps as a Value is built
		// in full.
		req = *new(Req)
		if items := plan.Decode(b.lazy(), reflect.ValueOf(&req).Elem(), mode); len(items) > 0 {
			return req, &ValidationError{items: items}
		}
		return req, nil
	}, sch, bodyModel, nil
}

// dictError is pydantic's error for a dict body given a non-object.
func dictError(v pyjson.Value) error {
	return &ValidationError{items: []lax.ErrorItem{{
		Type: "dict_type", Loc: []any{}, Msg: "Input should be a valid dictionary", Input: v,
	}}}
}

// outputSchema returns the JSON Schema of Resp when it is a JSON object type.
func outputSchema[Resp any]() json.RawMessage {
	t := reflect.TypeFor[Resp]()
	if t == rawType || t == valueType || t.Kind() == reflect.Interface || !schema.IsObject(t) {
		return nil
	}
	s, err := schema.ForOutput(t)
	if err != nil {
		return nil
	}
	return s
}

// Decode decodes and validates JSON arguments into a T exactly as [Post]
// decodes a request body: pydantic v2 lax coercions, and on failure a
// *ValidationError (HTTP 422 with pydantic's items; over MCP the 422 isError
// text). A dispatcher ([Dispatch]) calls it on the args it receives.
//
// T must be a type Post accepts (a struct of supported fields, typically).
// Decode compiles T's plan once and caches it; it is safe for concurrent use.
func Decode[T any](args json.RawMessage) (T, error) {
	var zero T
	if plan, err := lax.Compile(reflect.TypeFor[T]()); err == nil {
		var out T
		if plan.DecodeJSON(args, pyjson.Limits{}, reflect.ValueOf(&out).Elem(), lax.ModeHTTP) {
			return out, nil
		}
	}
	v, err := pyjson.ParseLazy(args, pyjson.Limits{}) // the items' inputs stay text
	if err != nil {
		return zero, Errorf(400, "There was an error parsing the body")
	}
	return DecodeValue[T](v)
}

// DecodeValue is [Decode] for an already parsed Value.
func DecodeValue[T any](v pyjson.Value) (T, error) {
	var out T
	plan, err := lax.Compile(reflect.TypeFor[T]())
	if err != nil {
		return out, err
	}
	if v.Kind == pyjson.Null {
		return out, &ValidationError{items: []lax.ErrorItem{lax.MissingBody()}}
	}
	if items := plan.Decode(v, reflect.ValueOf(&out).Elem(), lax.ModeHTTP); len(items) > 0 {
		return out, &ValidationError{items: items}
	}
	return out, nil
}

// argsJSON writes parsed arguments back as compact JSON text for handlers
// that take raw JSON (json.RawMessage bodies, Dispatch): UTF-8, numbers in
// Python's forms, and NaN/Infinity kept as the literals json.loads accepted,
// so that Decode on the text sees what the request held.
func argsJSON(v pyjson.Value) json.RawMessage {
	b, err := pyjson.Marshal(v, argsOptions)
	if err != nil { // cannot happen for a parsed Value
		return json.RawMessage("{}")
	}
	return b
}

var argsOptions = pyjson.Options{Floats: pyjson.PythonFloats, NaN: pyjson.NaNLiteral}

// readGo reads the next value of r as toGo converts its tree, without the
// tree: a map[string]any body costs its Go values (about 24 bytes per JSON
// value for an array of ints), not 72 bytes more per value for a Value
// first. Duplicate keys: the last value wins, as in the tree. ok is false
// when r fails (the caller converts the tree then).
func readGo(r *pyjson.Reader) (v any, ok bool) {
	switch {
	case r.BeginObject():
		m := make(map[string]any)
		for first := true; ; first = false {
			key, done := r.NextKey(first)
			if done || r.Failed() {
				break
			}
			k := string(key)
			if m[k], ok = readGo(r); !ok {
				return nil, false
			}
		}
		return m, !r.Failed()
	case r.BeginArray():
		out := make([]any, 0, r.CountItems())
		for first := true; r.NextItem(first); first = false {
			it, ok := readGo(r)
			if !ok {
				return nil, false
			}
			out = append(out, it)
		}
		return out, !r.Failed()
	}
	if lit, ok := r.Number(); ok {
		// The literal is valid until the next call, and toGo keeps
		// nothing of it (an int64, a float64 or a new *big.Int).
		return toGo(pyjson.NumberValue(unsafe.String(unsafe.SliceData(lit), len(lit)))), true
	} else if r.Failed() {
		return nil, false
	}
	s, ok := r.Scalar() // strings, literals, NaN and the infinities
	if !ok {
		return nil, false
	}
	return toGo(s), true
}

// toGo converts a Value to the Go values Python's json.loads would give:
// map[string]any, []any, string, bool, nil, int64 for ints that fit (a
// *big.Int beyond), float64 for floats (NaN and infinities included).
func toGo(v pyjson.Value) any {
	switch v.Kind {
	case pyjson.Bool:
		return v.Bool
	case pyjson.String:
		return v.Str
	case pyjson.Number:
		if v.IsFloat() {
			f, _ := v.Float()
			return f
		}
		if n, ok := v.Int(); ok {
			return n
		}
		b, _ := v.BigInt()
		return b
	case pyjson.Array:
		out := make([]any, len(v.Items))
		for i, it := range v.Items {
			out[i] = toGo(it)
		}
		return out
	case pyjson.Object:
		out := make(map[string]any, len(v.Members))
		for _, m := range v.Members {
			out[m.Key] = toGo(m.Value)
		}
		return out
	}
	return nil
}
