package mcpexpose

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/framework/host"
)

// reserved are the names that are never tools (contract d.2, and gymkit's
// close_session).
var reserved = map[string]bool{"verify": true, "seed_session": true, "aggregate_metrics": true, "mcp": true, "close_session": true}

// protocolVersions are the MCP versions the door speaks: those of the
// Python SDK NeMo Gym pins (contract d.5). 2026-07-28 is left out.
var protocolVersions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}

// maxQualifiedName is the length budget of mcp__<instance>__<tool>: Claude
// Code and other clients reject longer tool names.
const maxQualifiedName = 64

// maxLongNamesListed bounds the tool names the long-name warning lists.
const maxLongNamesListed = 10

// warnLongNames logs one warning for the instance when the qualified name
// mcp__<instance>__<tool> of any exposed tool is longer than
// maxQualifiedName: how many, their tool names in order (at most
// maxLongNamesListed, then how many more), and the longest qualified name
// with its length. A long instance name, such as NeMo's
// example_session_state_mgmt_resources_server, makes many tools long at
// once; one line says it at every start, not one line per tool.
func (d *Door) warnLongNames() {
	var names []string
	longest := ""
	for _, e := range d.sorted {
		if q := d.prefix + e.tool.Name; len(q) > maxQualifiedName {
			names = append(names, e.tool.Name)
			if len(q) > len(longest) {
				longest = q
			}
		}
	}
	if len(names) == 0 {
		return
	}
	listed := strings.Join(names[:min(len(names), maxLongNamesListed)], ", ")
	if more := len(names) - maxLongNamesListed; more > 0 {
		listed += fmt.Sprintf(", and %d more", more)
	}
	d.logAttrs(context.Background(), "MCP tool names are long: clients that prefix tools (mcp__<instance>__<tool>) may reject them",
		warn, "count", len(names), "tools", listed, "longest", longest, "length", len(longest), "limit", maxQualifiedName)
}

// validName reports whether name fully matches [A-Za-z0-9_-]+.
func validName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !isAlnum(c) && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

// route describes where a tool's calls go, for error messages.
func route(t framework.Tool) string {
	switch {
	case t.Path() == "":
		return "no route"
	case t.IsCatchAll():
		return "catch-all route POST " + t.Path()
	}
	return "route POST " + t.Path()
}

// check validates the exposed list in order (contract d.2 step 3g), and
// returns one error per problem.
func (d *Door) check(tools []framework.Tool) []error {
	var errs []error
	seen := map[string]framework.Tool{}
	for _, t := range tools {
		where := fmt.Sprintf("MCP tool %q (%s)", t.Name, route(t))
		if !validName(t.Name) {
			errs = append(errs, fmt.Errorf("%s: the name does not match [A-Za-z0-9_-]+ (MCP clients reject it, "+
				"and verify-time normalization cannot round-trip it)", where))
			continue
		}
		if reserved[t.Name] {
			errs = append(errs, fmt.Errorf("%s: %q is reserved (verify, seed_session, aggregate_metrics, mcp, close_session)", where, t.Name))
			continue
		}
		if o, dup := seen[t.Name]; dup {
			errs = append(errs, fmt.Errorf("%s: Duplicate MCP tool name %q (also %s)", where, t.Name, route(o)))
			continue
		}
		seen[t.Name] = t
		if t.Path() == "" {
			errs = append(errs, fmt.Errorf("%s: cannot be dispatched directly: the Tool was not made by "+
				"framework.Post or CatchAll.Tool (copy one of those and change its fields instead)", where))
			continue
		}
		if err := objectSchema(t.InputSchema); err != nil {
			errs = append(errs, fmt.Errorf("%s: inputSchema: %v", where, err))
		}
		if t.OutputSchema != nil {
			if err := objectSchema(t.OutputSchema); err != nil {
				errs = append(errs, fmt.Errorf("%s: outputSchema: %v (MCP clients reject other output schemas)", where, err))
			}
		}
	}
	return errs
}

// objectSchema checks that s is a JSON object whose "type" is "object".
func objectSchema(s json.RawMessage) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(s, &m); err != nil || m == nil {
		return fmt.Errorf("%.80q is not a JSON object", s)
	}
	if string(bytes.TrimSpace(m["type"])) != `"object"` {
		return fmt.Errorf(`the root "type" must be "object"`)
	}
	return nil
}

// build pre-renders the tool list and makes the MCP server.
func (d *Door) build(app *host.App, tools []framework.Tool) error {
	usesCatchAll := slices.ContainsFunc(tools, framework.Tool.IsCatchAll) // the hook's choice, before mcp.tools
	tools = d.allowListed(tools)
	d.tools = make(map[string]*exposed, len(tools))
	for _, t := range tools {
		e, err := newExposed(t)
		if err != nil {
			return err
		}
		if d.coerce {
			e.repair = repairFields(e.sdkTool.InputSchema.(json.RawMessage))
		}
		d.tools[t.Name] = e
		d.sorted = append(d.sorted, e)
	}
	slices.SortFunc(d.sorted, func(a, b *exposed) int { return strings.Compare(a.tool.Name, b.tool.Name) })
	d.warnLongNames()
	if d.sorted == nil {
		d.sorted = []*exposed{}
	}
	if app.CatchAll() != nil && !usesCatchAll {
		d.logAttrs(context.Background(), "the catch-all route POST /{tool} is not exposed over MCP: no exposed tool "+
			"dispatches through it (override Tools and mint its tools with CatchAll.Tool)", warn)
	}
	d.listAll = renderList(d.sorted, nil)
	names := make([]string, len(d.sorted))
	all := make([]string, len(d.sorted))
	for i, e := range d.sorted {
		names[i] = framework.PythonReprString(e.tool.Name)
		all[i] = e.tool.Name
	}
	d.unknown = ". Available tools: [" + strings.Join(names, ", ") + "]"
	// A token lists exposed tools only (exposedOnly), each once, and its
	// session id is a UUID: the token that lists them all is the longest
	// the door mints, so the door accepts it.
	d.signer.maxLen = max(maxTokenLen, len(d.mintToken("00000000-0000-4000-8000-000000000000", all)))
	if f, ok := app.Server().(framework.SeedToolFilter); ok {
		d.filter = f.AllowedToolsForSeed
	} else if f, ok := app.Server().(framework.SessionToolFilter); ok {
		d.filter = func(ctx context.Context, seed *framework.SeedBody) ([]string, error) {
			return f.AllowedToolsForSession(ctx, seed.JSON())
		}
	}

	// tools (without listChanged: the tool list never changes) even when
	// nothing is exposed, and logging, which the SDK implements
	// (logging/setLevel).
	caps := &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{}, Tools: &mcp.ToolCapabilities{}}
	if err := d.renderInitResults(caps); err != nil {
		return err
	}
	srv := mcp.NewServer(d.implementation(), &mcp.ServerOptions{
		Logger:                    sdkLogger(d.log),
		Instructions:              d.info.Instructions,
		Capabilities:              caps,
		SupportedProtocolVersions: protocolVersions,
	})
	for _, e := range d.sorted {
		if err := addTool(srv, e, d.sdkHandler(e)); err != nil {
			return err
		}
	}
	srv.AddReceivingMiddleware(d.methods)
	get := func(*http.Request) *mcp.Server { return srv }
	if d.stateful {
		// One SSE-mode handler holds the sessions; the door's streamWriter
		// answers JSON when nothing but the response comes. The door keeps
		// the idle timer (mcpSessions) and closes the SDK's session with it.
		d.sdk = mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{
			DisableLocalhostProtection: true,
			MaxRequestBodyBytes:        d.maxBody,
			SessionTimeout:             d.mcpSessions.idle + time.Minute, // a backstop: the door's timer decides
			Logger:                     sdkLogger(d.log),
		})
		d.mcpSessions.removed = func(id string) { closeSession(srv, id) }
		d.app = app
		return nil
	}
	d.sdk = mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{
		Stateless:                  true,
		JSONResponse:               true,
		DisableLocalhostProtection: true, // the door's own check (a loopback host, mcp_allowed_hosts)
		MaxRequestBodyBytes:        d.maxBody,
		Logger:                     sdkLogger(d.log),
	})
	// A tools/call with a progress token, from a client that accepts a
	// stream, goes to an SSE-mode handler (see streamWriter).
	d.sdkStream = mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{
		Stateless:                  true,
		DisableLocalhostProtection: true,
		MaxRequestBodyBytes:        d.maxBody,
		Logger:                     sdkLogger(d.log),
	})
	d.app = app
	return nil
}

// closeSession closes the SDK's session id of srv (idled out in the door's
// record), so that its goroutines and streams end.
func closeSession(srv *mcp.Server, id string) {
	for ss := range srv.Sessions() {
		if ss.ID() == id {
			_ = ss.Close()
			return
		}
	}
}

// addTool registers e with the SDK, turning its panics (schema checks)
// into an error.
func addTool(srv *mcp.Server, e *exposed, h mcp.ToolHandler) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("MCP tool %q (%s): %v", e.tool.Name, route(e.tool), p)
		}
	}()
	srv.AddTool(e.sdkTool, h)
	return nil
}

// newExposed pre-renders t's tools/list entry: name, title, description,
// inputSchema, outputSchema, annotations, in the order of MCP's Tool
// (contract d.6; description omitted when empty).
func newExposed(t framework.Tool) (*exposed, error) {
	in, err := compact(t.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("MCP tool %q: inputSchema: %v", t.Name, err)
	}
	var out json.RawMessage
	if t.OutputSchema != nil {
		if out, err = compact(t.OutputSchema); err != nil {
			return nil, fmt.Errorf("MCP tool %q: outputSchema: %v", t.Name, err)
		}
	}
	b := []byte(`{"name":`)
	b = appendString(b, t.Name)
	if t.Title != "" {
		b = append(b, `,"title":`...)
		b = appendString(b, t.Title)
	}
	if t.Description != "" {
		b = append(b, `,"description":`...)
		b = appendString(b, t.Description)
	}
	b = append(b, `,"inputSchema":`...)
	b = append(b, in...)
	if out != nil {
		b = append(b, `,"outputSchema":`...)
		b = append(b, out...)
	}
	ann := annotations(t.Annotations)
	if ann != nil {
		b = append(b, `,"annotations":`...)
		first := true
		b = append(b, '{')
		for _, h := range []struct {
			key string
			v   *bool
		}{
			{"readOnlyHint", t.Annotations.ReadOnly},
			{"destructiveHint", t.Annotations.Destructive},
			{"idempotentHint", t.Annotations.Idempotent},
			{"openWorldHint", t.Annotations.OpenWorld},
		} {
			if h.v == nil {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = append(b, '"')
			b = append(b, h.key...)
			b = append(b, `":`...)
			b = fmt.Appendf(b, "%t", *h.v)
		}
		b = append(b, '}')
	}
	b = append(b, '}')
	return &exposed{
		tool: t,
		sdkTool: &mcp.Tool{
			Name:         t.Name,
			Title:        t.Title,
			Description:  t.Description,
			InputSchema:  in,
			OutputSchema: rawOrNil(out),
			Annotations:  ann,
		},
		json:      b,
		hasOutput: out != nil,
	}, nil
}

// rawOrNil keeps a nil schema a nil interface (the SDK tests OutputSchema
// against nil).
func rawOrNil(s json.RawMessage) any {
	if s == nil {
		return nil
	}
	return s
}

// annotations converts gymkit's hints, or returns nil when none is set.
func annotations(a framework.Annotations) *mcp.ToolAnnotations {
	if a.ReadOnly == nil && a.Destructive == nil && a.Idempotent == nil && a.OpenWorld == nil {
		return nil
	}
	out := &mcp.ToolAnnotations{DestructiveHint: a.Destructive, OpenWorldHint: a.OpenWorld}
	if a.ReadOnly != nil {
		out.ReadOnlyHint = *a.ReadOnly
	}
	if a.Idempotent != nil {
		out.IdempotentHint = *a.Idempotent
	}
	return out
}

// compact returns s without insignificant space, or an error if it is not
// JSON.
func compact(s json.RawMessage) (json.RawMessage, error) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, s); err != nil {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	return buf.Bytes(), nil
}

// appendString appends s as a JSON string, the Python way (raw UTF-8, no
// HTML escaping).
func appendString(b []byte, s string) []byte {
	q, err := framework.MarshalJSON(s, framework.JSONPython)
	if err != nil { // a Go string always encodes
		panic(err)
	}
	return append(b, q...)
}

// renderList renders the tools/list result of the tools in list that
// allowed accepts (all when allowed is nil).
func renderList(list []*exposed, allowed func(string) bool) []byte {
	b := make([]byte, 0, 64)
	b = append(b, `{"tools":[`...)
	first := true
	for _, e := range list {
		if allowed != nil && !allowed(e.tool.Name) {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, e.json...)
	}
	return append(b, "]}"...)
}

// sdkLogger is the door's logger as the SDK gets it: warnings and errors
// only, since a stateless SDK server logs three Info lines per request
// ("server connecting", "server session connected/disconnected").
func sdkLogger(l *slog.Logger) *slog.Logger {
	return slog.New(minLevel{Handler: l.Handler(), min: slog.LevelWarn}).With("door", "mcp")
}

// minLevel drops records below min.
type minLevel struct {
	slog.Handler
	min slog.Level
}

func (h minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h minLevel) WithAttrs(attrs []slog.Attr) slog.Handler {
	return minLevel{Handler: h.Handler.WithAttrs(attrs), min: h.min}
}

func (h minLevel) WithGroup(name string) slog.Handler {
	return minLevel{Handler: h.Handler.WithGroup(name), min: h.min}
}
