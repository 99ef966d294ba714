package rollout

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/internal/pyjson"
	"github.com/gymkit/gymkit/mcpexpose"
)

// The _ng_failure_class values of gymkit's own failures (a verify answer may
// carry its own, such as "judge_failed"). Each failure row also has
// "reward": 0.0 and "_ng_failure_error" with the reason.
const (
	// FailureSeed: /seed_session answered a non-2xx status or something that
	// is not a JSON object, or (--door mcp) its answer has no usable "mcp"
	// key (server_name and the session token).
	FailureSeed = "seed_failed"
	// FailureVerify: /verify answered a non-2xx status or something that is
	// not a JSON object.
	FailureVerify = "verify_failed"
	// FailureTransport: a request could not be made or answered (connection
	// refused or reset, an MCP transport or protocol failure).
	FailureTransport = "transport"
	// FailureTimeout: a request got no complete answer within the request
	// timeout (gymkit rollout --request-timeout; see [TimeoutError]).
	FailureTimeout = "timeout"
	// FailureTooLarge: an answer was larger than the answer bound (gymkit
	// rollout --max-answer-bytes; see [AnswerTooLargeError]).
	FailureTooLarge = "answer_too_large"
)

// keyFailureError carries the reason of a gymkit failure (NeMo's judge
// fail-safe names its reason _ng_failure_judge_error).
const keyFailureError = "_ng_failure_error"

// Door is how the tool calls reach the instance.
type Door string

const (
	// DoorHTTP calls each tool with POST /<tool> and the rollout's cookie, as
	// NeMo's simple_agent does.
	DoorHTTP Door = "http"
	// DoorMCP calls each tool with MCP tools/call at the seed's url_path,
	// with the seed's session token, as claude_code_agent does; calls are
	// recorded as mcp__<server_name>__<tool>.
	DoorMCP Door = "mcp"
)

// call is one tool call to replay.
type call struct {
	name string // as recorded (may carry an mcp__<server>__ prefix)
	args string // the arguments' JSON text
}

// plan is what a row replays: its calls and the final assistant message.
type plan struct {
	calls []call
	final *framework.Value // the recorded final assistant message item, if any
}

// planOf reads a row's calls: the function_call items of a recorded
// response.output (with its last assistant message), else the
// ground_truth list of {name, arguments}. Arguments that are not a string
// are replayed as their JSON text.
func planOf(row framework.Value) plan {
	var p plan
	if resp, ok := row.Get(keyResponse); ok {
		if out, ok := resp.Get("output"); ok && out.Kind == framework.KindArray {
			for i, it := range out.Items {
				typ, _ := it.Get("type")
				switch typ.Str {
				case "function_call":
					name, _ := it.Get("name")
					args, _ := it.Get("arguments")
					p.calls = append(p.calls, call{name: name.Str, args: argsText(args)})
				case "message":
					if role, _ := it.Get("role"); role.Str == "assistant" {
						p.final = &out.Items[i]
					}
				}
			}
			return p
		}
	}
	gt, _ := row.Get("ground_truth")
	for _, it := range gt.Items {
		name, ok := it.Get("name")
		if !ok || name.Kind != framework.KindString {
			continue
		}
		args, _ := it.Get("arguments")
		p.calls = append(p.calls, call{name: name.Str, args: argsText(args)})
	}
	return p
}

// nothingToReplay returns why a row has nothing to replay (planOf finds no
// call and no final assistant message), or "" when it has something.
func nothingToReplay(row framework.Value) string {
	if p := planOf(row); len(p.calls) > 0 || p.final != nil {
		return ""
	}
	if resp, ok := row.Get(keyResponse); ok {
		if out, ok := resp.Get("output"); ok && out.Kind == framework.KindArray {
			return `its recorded "response" has an "output" list with no function_call item and no assistant message`
		}
		return `its "response" has no "output" list, and ` + groundTruthWhy(row)
	}
	return `it has no recorded "response", and ` + groundTruthWhy(row)
}

// groundTruthWhy says why a row's ground_truth gives no call.
func groundTruthWhy(row framework.Value) string {
	gt, ok := row.Get("ground_truth")
	switch {
	case !ok:
		return `no "ground_truth"`
	case gt.Kind != framework.KindArray:
		article := "a "
		switch gt.Kind {
		case framework.KindNull:
			article = ""
		case framework.KindObject:
			article = "an "
		}
		return `its "ground_truth" is ` + article + gt.Kind.String() + `, not a list of {"name", "arguments"} calls`
	default:
		return `its "ground_truth" list holds no {"name": <string>, "arguments": ...} call`
	}
}

func argsText(v framework.Value) string {
	if v.Kind == framework.KindString {
		return v.Str
	}
	return text(v)
}

// bareName strips an mcp__<server>__ prefix: the instance's own when it has
// it, else the first namespace of any mcp__ name (a trajectory recorded
// against an instance of another name).
func bareName(name, server string) string {
	if server != "" {
		if n := mcpexpose.NormalizeToolName(name, server); n != name {
			return n
		}
	}
	return mcpexpose.NormalizeToolName(name, "")
}

// failure is a rollout that did not complete.
type failure = RolloutError

// rolloutOutcome is the result of one rollout.
type rolloutOutcome struct {
	verified framework.Value // the verify answer (nil Kind on failure)
	failed   *failure
	body     framework.Value // the verify body (or what there was of it), for failure rows
}

// run replays one materialized row: seed, the calls through the door,
// verify; observe (when not nil) receives each step's Exchange.
//
// With checkOnly, the verify answer is checked (a JSON object within the
// bounds) but not parsed: the outcome has no verified value.
func (c *Client) run(ctx context.Context, pos int, row framework.Value, observe func(Exchange), checkOnly bool) rolloutOutcome {
	if observe == nil {
		observe = func(Exchange) {}
	}
	p := planOf(row)
	resp := c.response(pos, row)
	body := clone(row)
	outcome := func(f *failure) rolloutOutcome {
		set(&body, keyResponse, resp)
		return rolloutOutcome{failed: f, body: body}
	}

	seedBody, err := compact(row)
	if err != nil {
		return outcome(&failure{Class: FailureSeed, Msg: "encoding the row: " + err.Error()})
	}
	jar := &cookies{}
	ex := c.post(ctx, jar, "seed_session", "/seed_session", seedBody)
	observe(ex)
	if ex.Err != nil {
		return outcome(&failure{Class: classOf(ex.Err), Msg: ex.Err.Error()})
	}
	if ex.Status/100 != 2 {
		return outcome(&failure{Class: FailureSeed, Msg: httpError(ex.Status, "/seed_session", ex.Body)})
	}
	seed, err := c.parse(ex.Route, ex.Body, true)
	var tooLarge *AnswerTooLargeError
	if errors.As(err, &tooLarge) {
		return outcome(&failure{Class: FailureTooLarge, Msg: err.Error()})
	}
	if err != nil || seed.Kind != framework.KindObject {
		return outcome(&failure{Class: FailureSeed, Msg: "the answer of POST /seed_session is not a JSON object: " + clip(ex.Body)})
	}

	var door toolDoor
	switch c.door {
	case DoorMCP:
		d, f := c.mcpDoor(ctx, seed)
		if f != nil {
			return outcome(f)
		}
		defer d.close()
		door = d
	default:
		door = &httpDoor{c: c, jar: jar}
	}

	var items []framework.Value
	for i, cl := range p.calls {
		n := strconv.Itoa(i + 1)
		callID := "call_" + n
		bare := bareName(cl.name, door.serverName(c.server))
		items = append(items, framework.ObjectValue(
			framework.Member{Key: "type", Value: framework.StringValue("function_call")},
			framework.Member{Key: "name", Value: framework.StringValue(door.emitted(bare))},
			framework.Member{Key: "arguments", Value: framework.StringValue(cl.args)},
			framework.Member{Key: "call_id", Value: framework.StringValue(callID)},
			framework.Member{Key: "id", Value: framework.StringValue("fc_gymkit_" + strconv.Itoa(pos) + "_" + n)},
			framework.Member{Key: "status", Value: framework.StringValue("completed")},
		))
		var output string
		args, perr := framework.ParseJSON([]byte(cl.args))
		if perr != nil {
			// simple_agent: json.dumps({"error": f"Invalid tool call arguments: {e!r}"}), no call.
			msg := framework.ObjectValue(framework.Member{Key: "error", Value: framework.StringValue(
				"Invalid tool call arguments: " + framework.PythonError(pyExceptionName(perr), perr.Error()).Error())})
			b, _ := framework.MarshalJSON(msg, framework.JSONPythonDumps)
			output = string(b)
		} else {
			out, ex := door.call(ctx, bare, args)
			observe(ex)
			if ex.Err != nil {
				setOutput(&resp, items)
				return outcome(&failure{Class: classOf(ex.Err), Msg: fmt.Sprintf("tool call %s: %v", bare, ex.Err)})
			}
			output = out
		}
		items = append(items, framework.ObjectValue(
			framework.Member{Key: "type", Value: framework.StringValue("function_call_output")},
			framework.Member{Key: "call_id", Value: framework.StringValue(callID)},
			framework.Member{Key: "output", Value: framework.StringValue(output)},
		))
	}
	if p.final != nil {
		items = append(items, *p.final)
	}
	setOutput(&resp, items)
	set(&body, keyResponse, resp)

	verifyBody, err := compact(body)
	if err != nil {
		return rolloutOutcome{failed: &failure{Class: FailureVerify, Msg: "encoding the verify body: " + err.Error()}, body: body}
	}
	ex = c.post(ctx, jar, "verify", "/verify", verifyBody)
	observe(ex)
	if ex.Err != nil {
		return rolloutOutcome{failed: &failure{Class: classOf(ex.Err), Msg: ex.Err.Error()}, body: body}
	}
	if ex.Status/100 != 2 {
		return rolloutOutcome{failed: &failure{Class: FailureVerify, Msg: httpError(ex.Status, "/verify", ex.Body)}, body: body}
	}
	// The answer's top level only: its members are read and written out
	// again (the results line), never walked; the nested values stay views
	// of ex.Body (see Client.Rollout for a whole tree).
	var v framework.Value
	if checkOnly {
		v.Kind, err = c.check(ex.Route, ex.Body)
	} else {
		v, err = c.parse(ex.Route, ex.Body, true)
	}
	if errors.As(err, &tooLarge) {
		return rolloutOutcome{failed: &failure{Class: FailureTooLarge, Msg: err.Error()}, body: body}
	}
	if err != nil || v.Kind != framework.KindObject {
		return rolloutOutcome{failed: &failure{Class: FailureVerify, Msg: "the answer of POST /verify is not a JSON object: " + clip(ex.Body)}, body: body}
	}
	return rolloutOutcome{verified: v, body: body}
}

// pyExceptionName is the Python class of a json.loads failure.
func pyExceptionName(err error) string {
	var se *pyjson.SyntaxError
	switch {
	case errors.As(err, &se):
		return "JSONDecodeError"
	case errors.Is(err, pyjson.ErrTooDeep):
		return "RecursionError"
	}
	return "ValueError"
}

// response is the Responses API object of a rollout, without output yet:
// id, created_at, model (the row's, else "gymkit-rollout"), object, output,
// parallel_tool_calls, tool_choice and tools (from responses_create_params,
// with NeMo's defaults).
func (c *Client) response(pos int, row framework.Value) framework.Value {
	rcp, _ := row.Get(keyRCP)
	model := framework.StringValue("gymkit-rollout")
	if m, ok := rcp.Get("model"); ok && m.Kind == framework.KindString {
		model = m
	} else if rec, ok := row.Get(keyResponse); ok {
		if m, ok := rec.Get("model"); ok && m.Kind == framework.KindString {
			model = m
		}
	}
	ptc, ok := rcp.Get("parallel_tool_calls")
	if !ok || ptc.Kind != framework.KindBool {
		ptc = framework.BoolValue(true)
	}
	tc, ok := rcp.Get("tool_choice")
	if !ok || tc.Kind == framework.KindNull {
		tc = framework.StringValue("auto")
	}
	tools, ok := rcp.Get("tools")
	if !ok || tools.Kind != framework.KindArray {
		tools = framework.ArrayValue()
	}
	return framework.ObjectValue(
		framework.Member{Key: "id", Value: framework.StringValue("resp_gymkit_" + strconv.Itoa(pos))},
		framework.Member{Key: "created_at", Value: framework.NumberValue(strconv.FormatInt(c.now().Unix(), 10))},
		framework.Member{Key: "model", Value: model},
		framework.Member{Key: "object", Value: framework.StringValue("response")},
		framework.Member{Key: "output", Value: framework.ArrayValue()},
		framework.Member{Key: "parallel_tool_calls", Value: ptc},
		framework.Member{Key: "tool_choice", Value: tc},
		framework.Member{Key: "tools", Value: tools},
	)
}

func setOutput(resp *framework.Value, items []framework.Value) {
	if items == nil {
		items = []framework.Value{}
	}
	set(resp, "output", framework.ArrayValue(items...))
}

// cookies is one rollout's cookie set. NeMo's agents pass cookies
// explicitly and replace them with each answer's Set-Cookie (contract a.7):
// an answer without one (Python's unhandled-exception 500) empties the set,
// so the rollout goes on in a new session, as it would under NeMo
// (nemo-gym-peer/workplace_assistant.jsonl, "unhandled 500 mid-rollout").
type cookies struct{ header string }

func (j *cookies) update(resp *http.Response) {
	cs := resp.Cookies()
	if len(cs) == 0 {
		j.header = ""
		return
	}
	parts := make([]string, 0, len(cs))
	for _, c := range cs {
		parts = append(parts, c.Name+"="+c.Value)
	}
	j.header = strings.Join(parts, "; ")
}

// httpError describes a non-2xx answer.
func httpError(status int, path string, body []byte) string {
	return fmt.Sprintf("HTTP %d from POST %s: %s", status, path, clip(body))
}

// clip shortens an answer for a message.
func clip(b []byte) string {
	const max = 2000
	if len(b) <= max {
		return string(b)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return string(b[:cut]) + fmt.Sprintf("... (%d bytes)", len(b))
}

// toolDoor calls the tools of one rollout.
type toolDoor interface {
	// serverName is the name of the mcp__<server>__ prefix.
	serverName(instance string) string
	// emitted is the name a call is recorded under.
	emitted(bare string) string
	// call runs a tool; the output is what the agent records, the Exchange
	// the request and its answer (its Err a transport failure).
	call(ctx context.Context, tool string, args framework.Value) (string, Exchange)
}

// httpDoor is simple_agent's: POST /<tool> with the parsed arguments and the
// rollout's cookies; the output is the raw answer, whatever its status.
type httpDoor struct {
	c   *Client
	jar *cookies
}

func (d *httpDoor) serverName(instance string) string { return instance }
func (d *httpDoor) emitted(bare string) string        { return bare }

func (d *httpDoor) call(ctx context.Context, tool string, args framework.Value) (string, Exchange) {
	path := "/" + url.PathEscape(tool)
	body, err := compact(args)
	if err != nil {
		return "", Exchange{Step: tool, Route: "POST " + path, Err: err}
	}
	ex := d.c.post(ctx, d.jar, tool, path, body)
	return string(ex.Body), ex
}

// ProtocolVersion is the MCP protocol version the rollout client offers in
// its initialize request: one the door accepts (mcpexpose serves
// 2024-11-05 through 2025-11-25), so that the go-sdk client's default first
// try, 2026-07-28's server/discover, and its fallback round trip never
// happen (go-mcp-anchors a.9).
const ProtocolVersion = "2025-06-18"

// mcpDoor is claude_code_agent's: the seed's mcp metadata (server_name,
// url_path, the token header), tools/call with the official go-sdk client;
// the output is the text content of the result, isError or not.
type mcpDoor struct {
	server string
	path   string // the endpoint's path, "/mcp"
	cs     *mcp.ClientSession
	tr     *mcpTransport
}

func (c *Client) mcpDoor(ctx context.Context, seed framework.Value) (*mcpDoor, *failure) {
	meta, ok := seed.Get(mcpexpose.SeedKey)
	meta = pyjson.Materialize(meta) // seed is parsed shallow
	if !ok || meta.Kind != framework.KindObject {
		return nil, &failure{Class: FailureSeed, Msg: `the answer of POST /seed_session has no "mcp" key: is expose_tools_over_mcp on for this instance?`, noMCP: !ok}
	}
	name, _ := meta.Get("server_name")
	headers, _ := meta.Get("headers")
	if name.Kind != framework.KindString || name.Str == "" || headers.Kind != framework.KindObject {
		return nil, &failure{Class: FailureSeed, Msg: `the "mcp" key of the seed answer has no server_name or headers: ` + text(meta)}
	}
	path := mcpexpose.URLPath
	if p, ok := meta.Get("url_path"); ok && p.Kind == framework.KindString {
		path = p.Str
	}
	hdr := http.Header{}
	for _, m := range headers.Members {
		if m.Value.Kind == framework.KindString {
			hdr.Set(m.Key, m.Value.Str)
		}
	}
	path = "/" + strings.TrimLeft(path, "/")
	tr := &mcpTransport{c: c, path: path, header: hdr}
	hc := &http.Client{Transport: tr}
	endpoint := c.base + path
	cs, err := c.mcp.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc, DisableStandaloneSSE: true, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: ProtocolVersion})
	if err != nil {
		if f := tr.failure(); f != nil {
			return nil, &failure{Class: classOf(f), Msg: fmt.Sprintf("MCP initialize at %s: %v", endpoint, f)}
		}
		return nil, &failure{Class: FailureTransport, Msg: fmt.Sprintf("MCP initialize at %s: %v", endpoint, err)}
	}
	return &mcpDoor{server: name.Str, path: path, cs: cs, tr: tr}, nil
}

func (d *mcpDoor) serverName(string) string   { return d.server }
func (d *mcpDoor) emitted(bare string) string { return "mcp__" + d.server + "__" + bare }
func (d *mcpDoor) close()                     { _ = d.cs.Close() }

func (d *mcpDoor) call(ctx context.Context, tool string, args framework.Value) (string, Exchange) {
	route := "POST " + d.path + " tools/call " + tool
	raw, err := compact(args)
	if err != nil {
		return "", Exchange{Step: tool, Route: route, Err: err}
	}
	res, err := d.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(raw)})
	ex := Exchange{Step: tool, Route: route}
	if cp := d.tr.take(); cp != nil {
		ex = cp.exchange(tool, route)
	}
	if err != nil {
		// A bound reached is the transport's failure, whatever the go-sdk
		// made of it (it may report a JSON-RPC error). A JSON-RPC error
		// answer is the tool's output, as Claude Code records it; anything
		// else is the transport.
		if f := d.tr.failure(); f != nil {
			ex.Err = f
			return "", ex
		}
		var we *jsonrpc.Error
		if errors.As(err, &we) && ex.Err == nil {
			return fmt.Sprintf("MCP error %d: %s", we.Code, we.Message), ex
		}
		if ex.Err == nil {
			ex.Err = fmt.Errorf("%s: %w", route, err)
		}
		return "", ex
	}
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n"), ex
}
