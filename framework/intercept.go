package framework

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/gymkit/gymkit/framework/internal/hostlink"
	"github.com/gymkit/gymkit/session"
)

// Call describes one tool call to the interceptors ([Intercept]), on either
// door. The framework makes one per call; interceptors of that call share it
// and may read it from any goroutine, but none may write it (the tool decodes
// the arguments it received, whatever Args says).
type Call struct {
	// Tool is the tool's name: the MCP tool name, the HTTP path without its
	// "/" (for a dispatcher, the path segment).
	Tool string
	// Door is the door the call came through (DoorHTTP or DoorMCP).
	Door Door
	// SessionID is the rollout session id (session.ID), the same on both
	// doors for one rollout; "" when the request carries none.
	SessionID string
	// Principal is who calls, as the host's auth layer put it in the request
	// context ([PrincipalOf]); nil without one.
	Principal any
	// Args are the call's arguments as the door received them: the JSON
	// request body on the HTTP door, the tools/call "arguments" object on the
	// MCP door ({} when absent or null on MCP, and for a [NoBody] tool on
	// HTTP, which never reads its body). They were parsed as JSON already;
	// validation against the tool's type happens inside the innermost
	// invoker (a *ValidationError, 422, comes back through the chain).
	Args json.RawMessage

	tool Tool  // the tool, Name set for dispatcher calls
	args *body // Args, checked (parsed on demand)
}

// Invoker runs one tool call: the tool itself, or the next interceptor
// around it. It returns the handler's result (the Go value the door then
// encodes) or its error (rendered by [StatusOf] on both doors). Invokers are
// called concurrently, for many calls at once.
type Invoker func(ctx context.Context, c *Call) (any, error)

// Interceptor wraps the invoker of every tool call with behaviour of its
// own: audit, metrics, policy. Given next, it returns the invoker to call
// instead; it may
//
//   - refuse the call by returning an error without calling next (any
//     error: framework.Errorf(403, "...") is answered HTTP 403
//     {"detail":"..."} and over MCP the isError text "HTTP 403 from POST
//     /<tool>: ..."; a plain error is a 500);
//   - observe the result or error next returns, and return them (or others);
//   - call next with a context of its own (context.WithValue, a deadline).
//
// The function itself is called once per interceptor when the instance is
// built (at startup), not per call.
type Interceptor func(next Invoker) Invoker

// Intercept adds interceptors around every tool call of this server, on
// both doors alike: each POST /<tool> of a typed tool ([Post]) or of the
// dispatcher ([Dispatch]), and each MCP tools/call that reaches a tool (the
// door's own refusals, an unknown tool or a missing token, run no
// interceptor). /seed_session, /verify, /aggregate_metrics and
// /close_session are not tool calls and run none.
//
// Ordering: interceptors run in registration order, the first registered
// outermost (it sees the call first and the result last). The host's
// interceptors (host.Options.Interceptors, package framework/host, such as
// the server package's metrics) run outside all of them, and gymkit's own per-call log line is
// one interceptor outside those, so it reports what the client was
// answered, refusals included.
//
// Timeouts: the tool's limit (tool_timeout, tool_timeouts) applies inside the interceptors, to the tool
// alone: an interceptor is not bounded by it and sees the 504 *Error as
// next's error. The context an interceptor gets is the request's (canceled
// when the client goes away).
//
// Concurrency: interceptors are called concurrently, for many calls at once,
// and must be safe for that.
//
// Panics: a panic in an interceptor is recovered at that interceptor, logged
// with its stack ("tool interceptor panicked"), and becomes a 500 error for
// the interceptors outside it: HTTP 500 with the panic text as a JSON
// string, over MCP isError "HTTP 500 from POST /<tool>: panic: ...". (The
// tool's own panic is recovered inside, as without interceptors.)
//
// Errors returned through the chain are rendered by the usual rules, after
// the error policy ([ErrorTexter], mask_internal_errors): the
// interceptors see the real error. Unlike [Router.Use], interceptors keep
// a server exposable over MCP: they are the supported way to wrap tool
// calls.
func Intercept(r *Router, ics ...Interceptor) {
	for _, ic := range ics {
		if ic == nil {
			r.errorf("Intercept: nil interceptor")
			continue
		}
		r.interceptors = append(r.interceptors, ic)
	}
}

// PrincipalOf returns the principal of the request: who calls, as the
// host's auth layer found it (the auth block's API key name or JWT subject,
// or what the environment's [TokenValidator] returned), or nil without one.
func PrincipalOf(ctx context.Context) any { return hostlink.PrincipalOf(ctx) }

// ErrorTexter is the optional error policy hook of an environment: it maps
// the error of a tool call (either door) to the detail the client reads.
// ErrorText is called once per failed call, after the interceptors, with
// the tool's name and the error the chain returned; ok false keeps the
// usual rendering. With ok true the status stays [StatusOf]'s and detail
// replaces the detail: HTTP {"detail": detail} (for a 500 from a plain
// error or a panic, the JSON string detail), over MCP "HTTP <status> from
// POST /<tool>: <detail>"; mask_internal_errors does not mask it.
// It must be safe for concurrent use. Default: none.
type ErrorTexter interface {
	ErrorText(ctx context.Context, tool string, err error) (detail string, ok bool)
}

// callHooks are what Build gives every tool of an App: the interceptor
// chain and the error policy. Immutable after Build.
type callHooks struct {
	chain Invoker
	text  ErrorTexter // nil: none
	mask  bool
	log   *slog.Logger
}

// composeChain builds the chain: the call log outermost, then ics in order
// (the host's, then the environment's),
// each guarded against panics, around the tool.
func composeChain(log *slog.Logger, ics []Interceptor) (inv Invoker, err error) {
	inv = func(ctx context.Context, c *Call) (any, error) {
		return c.tool.timed(ctx, c.args, []byte(c.Args))
	}
	all := append([]Interceptor{logCalls(log)}, ics...)
	for i := len(all) - 1; i >= 0; i-- {
		next, err := buildOne(all[i], inv)
		if err != nil {
			return nil, fmt.Errorf("interceptor %d: %w", i, err)
		}
		inv = guard(log, next)
	}
	return inv, nil
}

// buildOne calls ic(next), turning a panic or a nil invoker into an error.
func buildOne(ic Interceptor, next Invoker) (inv Invoker, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panicked: %v", p)
		}
	}()
	if inv = ic(next); inv == nil {
		return nil, errors.New("returned a nil Invoker")
	}
	return inv, nil
}

// guard recovers a panic of inv into a 500 error, logged with its stack.
func guard(log *slog.Logger, inv Invoker) Invoker {
	return func(ctx context.Context, c *Call) (res any, err error) {
		defer func() {
			if p := recover(); p != nil {
				log.ErrorContext(ctx, "tool interceptor panicked", "tool", c.Tool, "door", c.Door.String(),
					"session", c.SessionID, "panic", p, "stack", string(debug.Stack()))
				res, err = nil, &panicError{value: p}
			}
		}()
		return inv(ctx, c)
	}
}

// logCalls is gymkit's per-call log line: one record "tool call" per call,
// with tool, door, session, status (the HTTP status the door answers,
// statusCode; 200 for a result) and duration. It is Info on
// the MCP door, whose exchanges the host logs only as POST /mcp, and Debug
// on the HTTP door, where the host's request line already records each call
// (path, status, duration): one Info line per call on either door.
func logCalls(log *slog.Logger) Interceptor {
	return func(next Invoker) Invoker {
		return func(ctx context.Context, c *Call) (any, error) {
			level := slog.LevelInfo
			if c.Door != DoorMCP {
				level = slog.LevelDebug
			}
			if !log.Enabled(ctx, level) {
				return next(ctx, c)
			}
			start := time.Now()
			res, err := next(ctx, c)
			code := statusCode(err, c.Door)
			log.LogAttrs(ctx, level, "tool call",
				slog.String("tool", c.Tool),
				slog.String("door", c.Door.String()),
				slog.String("session", c.SessionID),
				slog.Int("status", code),
				slog.Duration("duration", time.Since(start)))
			return res, err
		}
	}
}

// call runs the tool through the App's interceptors and error policy; both
// doors call it. A Tool without hooks (seed, verify, a tool not built by
// Build) runs directly.
func (t Tool) call(ctx context.Context, args *body, raw []byte) (any, error) {
	h := t.hooks
	if h == nil {
		return t.timed(ctx, args, raw)
	}
	if len(raw) == 0 {
		raw = []byte("{}")
	}
	c := &Call{Tool: t.Name, Door: DoorOf(ctx), SessionID: session.ID(ctx), Principal: PrincipalOf(ctx),
		Args: raw, tool: t, args: args}
	res, err := h.chain(ctx, c)
	if err != nil {
		err = h.policy(ctx, c, err)
	}
	return res, err
}

// settled marks an error the error policy has rendered already (mapped by
// the ErrorTexter or masked): the HTTP door's writeError leaves it as is.
type settled struct{ error }

func (s settled) Unwrap() error { return s.error }

// policy applies the ErrorTexter, then the masking of 500s.
func (h *callHooks) policy(ctx context.Context, c *Call, err error) error {
	if h.text != nil {
		if detail, ok := h.text.ErrorText(ctx, c.Tool, err); ok {
			return settled{withDetail(err, detail)}
		}
	}
	if h.mask {
		return maskError(ctx, h.log, err, "tool", c.Tool, "door", c.Door.String(), "session", c.SessionID)
	}
	return err
}

// withDetail returns an error that StatusOf renders with err's status and
// detail as its detail, in the shape of err's answer.
func withDetail(err error, detail string) error {
	st := StatusOf(err)
	if st.unhandled {
		return errors.New(detail)
	}
	var fe *Error
	e := &Error{Status: st.Code, Detail: detail}
	if errors.As(err, &fe) && fe != nil {
		e.Header = fe.Header
	}
	return e
}

// maskError replaces a 500's detail (not a 422 whose HTTP rendering is a
// 500) with "Internal error (id <id>)" and logs the id with the real error
// and attrs; other errors pass unchanged.
func maskError(ctx context.Context, log *slog.Logger, err error, attrs ...any) error {
	var ve *ValidationError
	if errors.As(err, &ve) {
		return err
	}
	var s settled
	if errors.As(err, &s) {
		return err
	}
	st := StatusOf(err)
	if st.Code != 500 {
		return err
	}
	id := errorID()
	log.ErrorContext(ctx, "internal error masked", append([]any{"error_id", id, "status", 500, "error", err}, attrs...)...)
	text := "Internal error (id " + id + ")"
	if st.unhandled {
		return settled{errors.New(text)}
	}
	e := &Error{Status: 500, Detail: text}
	var fe *Error
	if errors.As(err, &fe) && fe != nil {
		e.Header = fe.Header
	}
	return settled{e}
}

// errorID returns 16 random hex digits.
func errorID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// maskOutside is framework/host's App.MaskError: it applies
// mask_internal_errors to an error that a door
// answers itself, outside the tool call (the MCP door's encoding failures
// and escaped panics): with masking on, a 500 error becomes one whose
// detail is "Internal error (id <id>)", the id logged with err and attrs
// (slog key-value pairs); any other error, an error already masked or
// mapped by the error policy, and every error with masking off, is
// returned as is. Safe for concurrent use.
func (a *app) maskOutside(ctx context.Context, err error, attrs ...any) error {
	if err == nil || !a.mask {
		return err
	}
	return maskError(ctx, a.log, err, attrs...)
}
