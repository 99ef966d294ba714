package mcpexpose

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/framework/host"
	"github.com/gymkit/gymkit/session"
)

const warn = slog.LevelWarn

// The isError texts of contract d.6.
const (
	textMissingToken = "Missing " + TokenHeader + " for Gym MCP tool call."
	textInvalidToken = "Invalid Gym MCP session token."
	// textOutOfRange is the isError text of a result holding NaN or an
	// infinity (Python's ValueError, as NeMo's server answers it).
	textOutOfRange = "Out of range float values are not JSON compliant"
)

// methods is the door's receiving middleware on the SDK server. It answers
// tools/list and tools/call itself, before the SDK's own handlers (which
// would answer an unknown tool with JSON-RPC -32602 and cannot write
// "isError": false), refuses a logging/setLevel level that is not one of
// the MCP spec's (-32602, where the SDK accepts any string), and recovers
// panics: the SDK runs calls in goroutines without recover, so a panic
// there would end the process.
func (d *Door) methods(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
		defer func() {
			if p := recover(); p != nil {
				d.logAttrs(ctx, "MCP request panicked", slog.LevelError, "method", method, "panic", p, "stack", string(debug.Stack()))
				res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("internal error: %v", p)}
				if r, ok := req.(*mcp.CallToolRequest); ok && method == "tools/call" {
					res, err = errorResult(framework.StatusOf(fmt.Errorf("panic: %v", p)).MCPText(toolName(r))), nil
				}
			}
		}()
		switch method {
		case "tools/list":
			return d.list(req), nil
		case methodSetLevel:
			if p, ok := req.GetParams().(*mcp.SetLoggingLevelParams); ok && p != nil && !loggingLevels[p.Level] {
				return nil, errInvalidParams() // the SDK would take any string
			}
		case "tools/call":
			if r, ok := req.(*mcp.CallToolRequest); ok {
				if !argumentsOK(r) {
					return nil, errInvalidParams()
				}
				return d.call(ctx, r), nil
			}
		}
		return next(ctx, method, req)
	}
}

// methodSetLevel is the MCP method that sets the client's log level.
const methodSetLevel = "logging/setLevel"

// loggingLevels are the MCP spec's LoggingLevel values (RFC 5424's
// severities), the only levels logging/setLevel accepts: Python's pydantic
// refuses any other (a Literal), answered -32602 "Invalid request
// parameters"; a missing or null level reads as "" and is refused too.
var loggingLevels = map[mcp.LoggingLevel]bool{
	"debug": true, "info": true, "notice": true, "warning": true,
	"error": true, "critical": true, "alert": true, "emergency": true,
}

// sdkHandler is the tool's handler as registered with the SDK. The
// middleware answers every tools/call first, so it only runs if a request
// reaches the SDK's tools/call some other way; it gives the same answer
// (without the explicit "isError": false).
func (d *Door) sdkHandler(e *exposed) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if !argumentsOK(req) {
			return nil, errInvalidParams()
		}
		return d.call(ctx, req).CallToolResult, nil
	}
}

// argumentsOK reports whether a tools/call's arguments are what the Python
// SDK's CallToolRequestParams accepts (dict[str, Any] | None): an object,
// null or nothing. Anything else (a JSON string holding an object, an
// array, a number) fails pydantic's validation of the whole request, before
// the tool name or the token is looked at.
func argumentsOK(r *mcp.CallToolRequest) bool {
	if r == nil || r.Params == nil {
		return true
	}
	a := bytes.TrimSpace(r.Params.Arguments)
	return len(a) == 0 || a[0] == '{' || string(a) == "null"
}

// errInvalidParams is the Python SDK's answer to a request it cannot
// validate: JSON-RPC -32602 "Invalid request parameters", data "" (the
// same error writeInvalidParams writes for the messages the go-sdk refuses).
func errInvalidParams() error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid request parameters", Data: json.RawMessage(`""`)}
}

func toolName(r *mcp.CallToolRequest) string {
	if r == nil || r.Params == nil {
		return ""
	}
	return r.Params.Name
}

// token returns the session token header of an MCP request ("" if none).
func token(req mcp.Request) string {
	if ex := req.GetExtra(); ex != nil && ex.Header != nil {
		return ex.Header.Get(TokenHeader)
	}
	return ""
}

// list answers tools/list: every exposed tool, sorted by name, narrowed by
// a valid token's allow-list. A missing or invalid token lists everything
// (contract d.6).
func (d *Door) list(req mcp.Request) mcp.Result {
	return &listResult{ListToolsResult: &mcp.ListToolsResult{}, raw: d.listRaw(token(req))}
}

// listRaw is the tools/list result for the session token tok ("" if none),
// rendered: both paths of the door answer it (see lean.go).
func (d *Door) listRaw(tok string) []byte {
	if tok != "" {
		if c, ok := d.verify(tok); ok && c.Tools != nil {
			return renderList(d.sorted, func(name string) bool { return slices.Contains(c.Tools, name) })
		}
	}
	return d.listAll
}

// call answers tools/call in contract d.6's order: unknown name, missing
// token, invalid token, not allowed, then the tool itself in the token's
// session.
func (d *Door) call(ctx context.Context, req *mcp.CallToolRequest) *callResult {
	site := callSite{sdk: ctx, http: ctx}
	if x := d.exchangeOf(ctx, req); x != nil {
		site.http, site.streamOK, site.mcpSession = x.Context, x.streamOK, x.sid
	}
	var args json.RawMessage
	if req != nil && req.Params != nil {
		args = req.Params.Arguments
	}
	return d.callTool(site, req, toolName(req), token(req), args)
}

// callSite is where a tools/call came from.
type callSite struct {
	sdk        context.Context // the SDK's handler context; nil on the lean path
	http       context.Context // the HTTP request's: the tool runs under it
	streamOK   bool            // the client's Accept allows text/event-stream
	mcpSession string          // stateful: the MCP session id ("" if none)
}

// callTool answers the tools/call of the tool name with the raw arguments
// args and the session token tok ("" if none), for both paths of the door
// (req is nil on the lean path): the checks of contract d.6 in its order,
// then the tool in the token's session.
func (d *Door) callTool(site callSite, req *mcp.CallToolRequest, name, tok string, args json.RawMessage) *callResult {
	ctx := site.http
	e := d.tools[name]
	if e == nil {
		return errorResult("Unknown tool: " + framework.PythonReprString(name) + d.unknown)
	}
	var sid string
	switch {
	case tok == "" && d.stateful && site.mcpSession != "":
		// A stateful MCP session is a rollout of its own for calls
		// without a token.
		var ok bool
		if sid, ok = d.mcpSessions.rolloutID(site.mcpSession); !ok {
			return errorResult(textMissingToken)
		}
	case tok == "":
		return errorResult(textMissingToken)
	default:
		c, ok := d.verify(tok)
		if !ok {
			return errorResult(textInvalidToken)
		}
		if c.Tools != nil && !slices.Contains(c.Tools, name) {
			return errorResult("Tool " + framework.PythonReprString(name) + " is not allowed for this session.")
		}
		sid = c.SID
	}
	if t := bytes.TrimSpace(args); len(t) == 0 || string(t) == "null" {
		args = nil // missing arguments are {} (Tool.Call substitutes it)
	}
	if e.repair != nil && args != nil {
		args = d.repairArgs(ctx, e, args) // mcp.coerce_json_strings
	}
	res, err := d.run(site, req, e, sid, args)
	if err != nil {
		err = d.app.MaskError(ctx, err, "tool", name, "door", "mcp") // mask_internal_errors
		text := host.MCPErrorText(err, name)
		if code := mcpStatus(text); code >= 500 {
			d.logAttrs(ctx, "tool call failed", failureLevel(err), "tool", name, "status", code, "error", err)
		}
		return errorResult(text)
	}
	return d.success(ctx, e, res)
}

// mcpStatus is the status an isError text "HTTP <code> from POST /<tool>:
// ..." (framework.Status.MCPText) reports: the status the MCP door
// answers, which differs from the HTTP door's for an error whose HTTP
// rendering fails (a 422 for the argument 1e400 is an HTTP 500, since
// Starlette cannot write an infinite input, but the MCP door still says
// 422). 500 when text has no such prefix (not reached).
func mcpStatus(text string) int {
	rest, ok := strings.CutPrefix(text, "HTTP ")
	if !ok || len(rest) < 3 {
		return 500
	}
	code, err := strconv.Atoi(rest[:3])
	if err != nil {
		return 500
	}
	return code
}

// failureLevel is the level of a failed call's log line (a 5xx), the HTTP
// door's rule (framework's writeError), so that one error is logged alike
// on both doors: a 5xx the tool chose (a *framework.Error anywhere in err's
// chain, say Errorf(503, ...)) is an answer, logged as a warning; anything
// else (a plain error, a panic) is a fault, logged as an error. 4xx answers
// are not failures of the server and are not logged.
func failureLevel(err error) slog.Level {
	if fe := (*framework.Error)(nil); errors.As(err, &fe) {
		return slog.LevelWarn
	}
	return slog.LevelError
}

// goexitError is what a tool that called runtime.Goexit failed with: the
// HTTP door's 500 has the same text.
var goexitError = errors.New("panic: runtime.Goexit called")

// outcome is how a tool call ended, as its goroutine reports it.
type outcome struct {
	res    any
	err    error
	panic  any    // a panic that escaped Tool.Call (Tool.Call recovers the tool's own)
	stack  string // the panicking goroutine's stack
	goexit bool   // the goroutine ended without returning: runtime.Goexit
}

// run calls the tool on a goroutine of its own, so that a tool that calls
// runtime.Goexit ends that goroutine, not the SDK's (which would leave the
// request without an answer and the stateless session's Close waiting
// forever). The tool runs under the HTTP request's context, as on the HTTP
// door: its values (rollout id, session), and its cancellation when the
// client goes away, which the SDK's context drops for protocols before
// 2026-07-28 (in a stateless POST, the SDK cancels a call only when that
// request ends anyway). run always waits for the tool to end.
//
// The tool's context also carries the call's host.MCPClient, and its
// values fall back to the SDK's (see callContext). In stateful mode the
// SDK's context ends when the client sends notifications/cancelled for the
// call, and so does the tool's.
func (d *Door) run(site callSite, req *mcp.CallToolRequest, e *exposed, sid string, args json.RawMessage) (any, error) {
	ctx, sdkCtx, streamOK := site.http, site.sdk, site.streamOK
	if d.stateful {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		stop := context.AfterFunc(sdkCtx, cancel)
		defer stop()
	}
	var base context.Context = callContext{Context: ctx, sdk: sdkCtx}
	if sdkCtx == nil {
		base = ctx // the lean path: no SDK context
	}
	tctx := host.WithMCPClient(base, &client{d: d, req: req, streamOK: streamOK})
	ch := make(chan outcome, 1)
	go callTool(session.WithID(tctx, d.sessions, sid), e.tool, args, ch)
	o := <-ch
	switch {
	case o.goexit:
		return nil, goexitError // logged by call, as every 500
	case o.panic != nil:
		d.logAttrs(ctx, "MCP request panicked", slog.LevelError, "method", "tools/call", "tool", e.tool.Name, "panic", o.panic, "stack", o.stack)
		return nil, fmt.Errorf("panic: %v", o.panic)
	}
	return o.res, o.err
}

// callTool runs t and sends how it ended on ch (buffered).
func callTool(ctx context.Context, t framework.Tool, args json.RawMessage, ch chan<- outcome) {
	returned := false
	defer func() {
		if returned {
			return
		}
		// recover is nil for runtime.Goexit (a panic(nil) is a
		// *runtime.PanicNilError).
		if p := recover(); p != nil {
			ch <- outcome{panic: p, stack: string(debug.Stack())}
			return
		}
		ch <- outcome{goexit: true}
	}()
	res, err := t.Call(ctx, args, framework.DoorMCP)
	returned = true
	ch <- outcome{res: res, err: err}
}

// success encodes a tool's result (contract d.6 step 5): a string is the
// text as is; any other value is its compact JSON (Python's JSONResponse
// form), and a JSON object is also the structuredContent.
func (d *Door) success(ctx context.Context, e *exposed, res any) *callResult {
	if s, ok := res.(string); ok && !e.hasOutput {
		return textResult(s, nil)
	}
	b, err := framework.MarshalJSON(res, framework.JSONPython)
	if err != nil {
		if strings.HasPrefix(err.Error(), textOutOfRange) {
			// NaN and infinities: the text of Python's ValueError as NeMo's
			// server answers it, without the value.
			return errorResult(textOutOfRange)
		}
		err = fmt.Errorf("encoding the response: %w", err)
		d.logAttrs(ctx, "tool call failed", slog.LevelError, "tool", e.tool.Name, "status", 500, "error", err)
		return errorResult(host.MCPErrorText(d.app.MaskError(ctx, err, "tool", e.tool.Name, "door", "mcp"), e.tool.Name))
	}
	switch {
	case len(b) > 0 && b[0] == '{':
		return textResult(string(b), structured(b))
	case e.hasOutput:
		// An outputSchema promises structuredContent on every success (the
		// TypeScript SDK client rejects a success without it), and the
		// schema is an object's: a result that is not an object (a nil
		// pointer's null) breaks the tool's own declaration.
		err := fmt.Errorf("the tool declares an object outputSchema but returned %s", describeJSON(b))
		d.logAttrs(ctx, "tool call failed", slog.LevelError, "tool", e.tool.Name, "status", 500, "error", err)
		return errorResult(host.MCPErrorText(d.app.MaskError(ctx, err, "tool", e.tool.Name, "door", "mcp"), e.tool.Name))
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err == nil {
			return textResult(s, nil) // a JSON string payload is the text, unquoted
		}
	}
	return textResult(string(b), nil)
}

// structured returns the structuredContent of a success whose text is the
// JSON object b. Python's server parses the text (json.loads) and the MCP
// SDK writes the object with pydantic, whose floats differ from Python's
// repr in exponent form only (1e-05 is 0.00001, 1e-07 is 1e-7, 1e+16
// stays): a text without such a number is the structuredContent as is.
func structured(b []byte) json.RawMessage {
	if !hasExponent(b) {
		return b
	}
	s, err := framework.MarshalJSON(json.RawMessage(b), framework.JSONPydantic)
	if err != nil {
		return b // not reached: b is the encoder's own JSON
	}
	return s
}

// hasExponent reports whether b may hold a number in exponent form: a digit
// followed by e or E. Strings that contain one ("2e") only cost the
// re-encoding.
func hasExponent(b []byte) bool {
	for i := 1; i < len(b); i++ {
		if c := b[i]; (c == 'e' || c == 'E') && '0' <= b[i-1] && b[i-1] <= '9' {
			return true
		}
	}
	return false
}

// describeJSON names the JSON type of b for an error message.
func describeJSON(b []byte) string {
	if len(b) == 0 {
		return "nothing"
	}
	switch b[0] {
	case 'n':
		return "null"
	case '"':
		return "a string"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}

// callResult is a tools/call result with its wire form pre-rendered, so
// that "isError": false is written on success (the SDK's CallToolResult
// omits it) and the payload is not marshalled twice. The embedded
// CallToolResult holds the same content for readers inside the SDK.
//
// An isError result (errorResult) is not pre-rendered: its text may echo a
// large input (a 422), and the lean path writes it escaped in pieces
// (writeLeanCall) rather than holding a second, escaped copy of it;
// MarshalJSON renders it for the SDK path.
type callResult struct {
	*mcp.CallToolResult
	raw     []byte
	errText string // an isError result's text; raw is nil then
}

// MarshalJSON returns the pre-rendered result, or renders an isError
// result: {"content":[{"type":"text","text":<text>}],"isError":true}.
func (r *callResult) MarshalJSON() ([]byte, error) {
	if r.raw != nil {
		return r.raw, nil
	}
	// Room for the escapes too (quotes, <, >, &), so that the text of a
	// 422 echoing a large input is not copied once more by a regrow.
	b := make([]byte, 0, len(r.errText)+len(r.errText)/4+len(errorHead)+len(errorTail)+2)
	b = append(b, errorHead...)
	b = appendString(b, r.errText)
	return append(b, errorTail...), nil
}

// The wire form of an isError result around its JSON-string text.
const (
	errorHead = `{"content":[{"type":"text","text":`
	errorTail = `}],"isError":true}`
)

// listResult is a tools/list result with its wire form pre-rendered:
// {"tools":[...]}, nothing else (no pagination, no cache hints).
type listResult struct {
	*mcp.ListToolsResult
	raw []byte
}

// MarshalJSON returns the pre-rendered result.
func (r *listResult) MarshalJSON() ([]byte, error) { return r.raw, nil }

// textResult is a success with one text content and, for a JSON object
// payload, that object as structuredContent.
func textResult(text string, structured json.RawMessage) *callResult {
	b := make([]byte, 0, len(text)+len(structured)+64)
	b = append(b, `{"content":[{"type":"text","text":`...)
	b = appendString(b, text)
	b = append(b, "}]"...)
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
	if structured != nil {
		b = append(b, `,"structuredContent":`...)
		b = append(b, structured...)
		res.StructuredContent = structured
	}
	b = append(b, `,"isError":false}`...)
	return &callResult{CallToolResult: res, raw: b}
}

// errorResult is an isError result with one text content (rendered on
// demand, see callResult).
func errorResult(text string) *callResult {
	return &callResult{
		CallToolResult: &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: true},
		errText:        text,
	}
}

// exchangeOf returns the exchange of a tools/call: in stateful mode the one
// its request's exchangeHeader names (the SDK's context is the session's),
// else the one in ctx; nil when there is none (a call that reached the SDK
// some other way).
func (d *Door) exchangeOf(ctx context.Context, req *mcp.CallToolRequest) *exchange {
	if d.stateful {
		if ex := req.GetExtra(); ex != nil && ex.Header != nil {
			if v, ok := d.exchanges.Load(ex.Header.Get(exchangeHeader)); ok {
				return v.(*exchange)
			}
		}
		return nil
	}
	x, _ := ctx.Value(exchangeKey{}).(*exchange)
	return x
}
