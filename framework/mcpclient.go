package framework

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/framework/internal/hostlink"
)

// This file is the handler side of what an MCP client can do for a tool call
// while it runs: progress, log messages, elicitation and confirmations. The
// MCP door (package mcpexpose) installs the call's MCP client in the context
// of every tools/call (package framework/host: MCPClient, WithMCPClient);
// the functions below find it there. On the HTTP door, and in a handler
// called directly (a unit test), there is none:
// ReportProgress, LogToClient and ClientLogger do nothing, Elicit returns
// [ErrElicitationUnavailable] and Confirm refuses ([ErrNotConfirmed]).
//
//	func (s *Store) deleteAll(ctx context.Context, req DeleteAllRequest) (DeleteAllResponse, error) {
//		if err := framework.Confirm(ctx, "Delete all "+strconv.Itoa(n)+" records?"); err != nil {
//			return DeleteAllResponse{}, err // HTTP 403 / isError "HTTP 403 from POST /delete_all: ..."
//		}
//		for i := range n {
//			_ = framework.ReportProgress(ctx, float64(i), float64(n), "deleting")
//			...
//		}
//		framework.LogToClient(ctx, framework.ClientLogInfo, "deleted", "records", n)
//		...
//	}

// ElicitAction is the action of an elicitation answer (MCP spec
// "ElicitResult.action").
type ElicitAction string

// The actions of MCP's ElicitResult.
const (
	// ElicitAccept: the user submitted the form ([Elicit] decodes its values).
	ElicitAccept ElicitAction = "accept"
	// ElicitDecline: the user explicitly refused.
	ElicitDecline ElicitAction = "decline"
	// ElicitCancel: the user dismissed the request without choosing.
	ElicitCancel ElicitAction = "cancel"
)

// ClientLogLevel is an MCP log level (MCP spec "LoggingLevel", RFC 5424's
// severities), from ClientLogDebug (lowest) to ClientLogEmergency.
type ClientLogLevel string

// The MCP log levels, lowest first.
const (
	ClientLogDebug     ClientLogLevel = "debug"
	ClientLogInfo      ClientLogLevel = "info"
	ClientLogNotice    ClientLogLevel = "notice"
	ClientLogWarning   ClientLogLevel = "warning"
	ClientLogError     ClientLogLevel = "error"
	ClientLogCritical  ClientLogLevel = "critical"
	ClientLogAlert     ClientLogLevel = "alert"
	ClientLogEmergency ClientLogLevel = "emergency"
)

var (
	// ErrElicitationUnavailable is wrapped by the error of [Elicit] (and the
	// refusal of [Confirm]) when the client cannot be asked: no MCP client
	// (the HTTP door), a stateless MCP door (mcp.stateful: false, where
	// the server cannot send requests), a client that did not declare the
	// elicitation capability, or a call whose Accept rules out a stream.
	ErrElicitationUnavailable = errors.New("elicitation is not available")
	// ErrNotConfirmed is wrapped by every refusal of [Confirm].
	ErrNotConfirmed = errors.New("not confirmed")
)

// ReportProgress reports the progress of the running tool call to the MCP
// client: notifications/progress {progressToken, progress, total, message}.
// progress should increase from call to call; total 0 means unknown; message
// "" sends none. It does nothing and returns nil without an MCP client (the
// HTTP door) or when the call carries no _meta.progressToken. The first
// report turns the call's answer into an SSE stream when the client's Accept
// allows text/event-stream (else reports are dropped and the answer stays
// JSON; a call that reports nothing is always answered as JSON). An error is
// a failure to send (the client went away); the tool may ignore it.
func ReportProgress(ctx context.Context, progress, total float64, message string) error {
	c := hostlink.MCPClientOf(ctx)
	if c == nil {
		return nil
	}
	return c.Progress(ctx, progress, total, message)
}

// LogToClient sends a log message to the MCP client of the running tool
// call (notifications/message) at level, when the level set by the client's
// logging/setLevel lets it through: data is {"message": msg, <args as
// key/value pairs, slog style>}. Without an MCP client, before a stateful
// session's first logging/setLevel, or below the set level it does nothing
// and returns nil. The message rides the call's stream (see
// [ReportProgress]): in stateful mode, and in stateless mode (where the
// level does not outlive its logging/setLevel request and the go-sdk's
// "info" applies) only when the answer is a stream. Log to the server's own
// log with slog as usual: this is for the client's user.
func LogToClient(ctx context.Context, level ClientLogLevel, msg string, args ...any) error {
	c := hostlink.MCPClientOf(ctx)
	if c == nil {
		return nil
	}
	data := map[string]any{"message": msg}
	r := slog.NewRecord(time.Time{}, slog.LevelInfo, msg, 0)
	r.Add(args...)
	r.Attrs(func(a slog.Attr) bool {
		data[a.Key] = a.Value.Resolve().Any()
		return true
	})
	return c.Log(ctx, string(level), "", data)
}

// ClientLogger returns a *slog.Logger whose records go to the MCP client of
// the tool call running in ctx, as LogToClient sends them (slog's Debug,
// Info, Warn and Error are MCP's debug, info, warning and error; logger
// field "tool"), whatever context the logging call passes. Without an MCP
// client it discards everything. Use it only while the call runs.
func ClientLogger(ctx context.Context) *slog.Logger {
	c := hostlink.MCPClientOf(ctx)
	if c == nil {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(&clientLogHandler{ctx: ctx, c: c})
}

// clientLogHandler is the slog.Handler of ClientLogger.
type clientLogHandler struct {
	ctx   context.Context
	c     hostlink.MCPClient
	attrs []slog.Attr
	group string
}

func (h *clientLogHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *clientLogHandler) Handle(_ context.Context, r slog.Record) error {
	data := map[string]any{"message": r.Message}
	add := func(a slog.Attr) bool {
		k := a.Key
		if h.group != "" {
			k = h.group + "." + k
		}
		data[k] = a.Value.Resolve().Any()
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	return h.c.Log(h.ctx, string(slogToClient(r.Level)), "tool", data)
}

func (h *clientLogHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	n := *h
	n.attrs = append(append([]slog.Attr{}, h.attrs...), attrs...)
	return &n
}

func (h *clientLogHandler) WithGroup(name string) slog.Handler {
	n := *h
	if n.group != "" {
		name = n.group + "." + name
	}
	n.group = name
	return &n
}

// slogToClient maps a slog level to the MCP level of the same rank.
func slogToClient(l slog.Level) ClientLogLevel {
	switch {
	case l < slog.LevelInfo:
		return ClientLogDebug
	case l < slog.LevelWarn:
		return ClientLogInfo
	case l < slog.LevelError:
		return ClientLogWarning
	}
	return ClientLogError
}

// Elicit asks the MCP client's user for input (elicitation/create, form
// mode): message is shown to the user, schema is the requested schema (a
// JSON object schema whose properties are flat primitives, as MCP requires).
// On "accept" the content is decoded into T (encoding/json; a decoding error
// is returned with the answer); on "decline" or "cancel" the answer's Action
// says so, T is its zero value and the error is nil. It waits until the
// client answers or ctx is done (then ctx's error).
//
// It fails with an error wrapping [ErrElicitationUnavailable] without an MCP
// client (the HTTP door), on a stateless door (mcp.stateful: false), when the
// client did not declare the elicitation capability, or when the call's
// Accept rules out a stream.
func Elicit[T any](ctx context.Context, message string, schema json.RawMessage) (T, ElicitAction, error) {
	var v T
	c := hostlink.MCPClientOf(ctx)
	if c == nil {
		return v, "", fmt.Errorf("%w: the tool was not called over MCP", ErrElicitationUnavailable)
	}
	a, content, err := c.Elicit(ctx, message, schema)
	if err != nil {
		return v, "", err
	}
	action := ElicitAction(a)
	if action != ElicitAccept {
		return v, action, nil
	}
	if len(content) == 0 {
		content = json.RawMessage(`{}`)
	}
	if err := json.Unmarshal(content, &v); err != nil {
		return v, action, fmt.Errorf("elicitation answer: %w", err)
	}
	return v, action, nil
}

// confirmSchema asks for one required boolean, "confirm".
var confirmSchema = json.RawMessage(`{"type":"object","properties":{"confirm":{"type":"boolean","title":"Confirm","description":"Proceed with this action?"}},"required":["confirm"]}`)

// Confirm asks the MCP client's user to confirm a destructive action and
// FAILS CLOSED: it returns nil only when the user explicitly accepts with
// confirm: true (the requested schema is one required boolean, "confirm").
// Everything else refuses with a *ConfirmError (errors.Is ErrNotConfirmed;
// over either door a 403 "not confirmed: <reason>" when the tool returns it):
// no MCP client (the HTTP door), a stateless door, a client without the
// elicitation capability (all three also errors.Is
// ErrElicitationUnavailable), a decline, a cancel, an accept without
// confirm: true, no answer within the door's confirm timeout (mcp.confirm_timeout,
// default 60s, [config.DefaultMCPConfirmTimeout]) or ctx done first, or any
// failure to ask.
func Confirm(ctx context.Context, message string) error {
	c := hostlink.MCPClientOf(ctx)
	if c == nil {
		return &ConfirmError{Reason: "the tool was not called over MCP", err: ErrElicitationUnavailable}
	}
	timeout := c.ConfirmTimeout()
	if timeout <= 0 {
		timeout = config.DefaultMCPConfirmTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	v, action, err := Elicit[struct {
		Confirm bool `json:"confirm"`
	}](ctx, message, confirmSchema)
	switch {
	case err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return &ConfirmError{Reason: "no answer within " + timeout.String(), err: err}
	case err != nil:
		return &ConfirmError{Reason: err.Error(), err: err}
	case action != ElicitAccept:
		return &ConfirmError{Reason: "the user chose " + string(action), Action: action}
	case !v.Confirm:
		return &ConfirmError{Reason: "the user did not set confirm", Action: action}
	}
	return nil
}

// ConfirmError is the refusal of [Confirm]: Reason says why, Action is the
// user's answer ("" when none came). It wraps ErrNotConfirmed, the cause
// (ErrElicitationUnavailable, a context error, ...) when there is one, and
// an HTTP 403 *Error, so that a tool returning it answers 403 {"detail":
// "not confirmed: <reason>"} on the HTTP door and the isError text "HTTP
// 403 from POST /<tool>: not confirmed: <reason>" on the MCP door.
type ConfirmError struct {
	Reason string
	Action ElicitAction
	err    error
}

// Error returns "not confirmed: <reason>".
func (e *ConfirmError) Error() string { return "not confirmed: " + e.Reason }

// Unwrap returns ErrNotConfirmed, the cause (if any) and the 403 *Error.
func (e *ConfirmError) Unwrap() []error {
	errs := []error{ErrNotConfirmed}
	if e.err != nil {
		errs = append(errs, e.err)
	}
	return append(errs, &Error{Status: 403, Detail: e.Error()})
}
