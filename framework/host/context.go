package host

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/framework/internal/hostlink"
)

// WithPrincipal returns a copy of ctx carrying p, the authenticated caller
// (a user, an API key's owner, JWT claims: any value the auth layer
// chooses). Handlers read it with [framework.PrincipalOf]; interceptors see
// it as [framework.Call.Principal].
func WithPrincipal(ctx context.Context, p any) context.Context {
	return hostlink.WithPrincipal(ctx, p)
}

// StripRolloutPrefix rewrites /ng-rollout/<id>/<rest> to /<rest> and records
// <id> for [framework.RolloutID]; other requests pass unchanged. It works on
// the decoded path, as Starlette does after uvicorn decodes it, and clears
// URL.RawPath so that routing sees the decoded path too (/%76erify is
// /verify). The id must match ^[A-Za-z0-9][A-Za-z0-9._-]*$. [App.Handler]
// already applies it; hosts use it for routes outside the App (such as
// /mcp).
func StripRolloutPrefix(next http.Handler) http.Handler { return hostlink.StripRolloutPrefix(next) }

// A SessionCookieOmitter is an http.ResponseWriter that can leave the rollout
// session's Set-Cookie off the response it is about to send. The writer that
// session.Middleware hands down is one. Before the HTTP door writes Python's
// unhandled-exception answer (the JSON-string 500 of [framework.StatusOf]: a
// panic, a plain error, a body sent without a JSON Content-Type), it calls
// OmitSessionCookie on the first writer of the Unwrap chain that implements
// it, as NeMo's exception middleware (setup_exception_middleware in
// nemo_gym/server_utils.py) answers those outside Starlette's
// SessionMiddleware, with no Set-Cookie (and no Vary: Cookie, which the
// session writer drops with it). A NeMo agent then replaces its
// cookie jar with nothing, and its next call starts a new session, exactly
// as against Python (golden: nemo-gym-peer/workplace_assistant.jsonl,
// "unhandled 500 mid-rollout, then the next call"). OmitSessionCookie has no
// effect once the headers were sent.
type SessionCookieOmitter interface {
	OmitSessionCookie()
}

// MCPClient is the MCP client of one tools/call, as the MCP door gives it to
// the tool's context ([WithMCPClient]). Handlers do not call it: they use
// [framework.ReportProgress], [framework.LogToClient],
// [framework.ClientLogger], [framework.Elicit] and [framework.Confirm].
// Another door (a test double) may implement it. Its methods are safe for
// concurrent use and valid until the tool call returns.
type MCPClient interface {
	// Progress sends notifications/progress for the call (progress and total
	// in the tool's own units; total 0: unknown; message "": none). It
	// returns nil without sending when the call carries no progress token.
	Progress(ctx context.Context, progress, total float64, message string) error
	// Log sends notifications/message at level, when the client's
	// logging/setLevel level lets it through (else nil, nothing sent).
	// logger is the message's "logger" field ("" omits it); data is any
	// JSON-encodable value.
	Log(ctx context.Context, level framework.ClientLogLevel, logger string, data any) error
	// Elicit sends elicitation/create (form mode) with message and the
	// requested schema (a JSON Schema object of flat primitive properties,
	// as MCP's elicitation allows) and waits for the answer or ctx. It fails
	// with an error wrapping framework.ErrElicitationUnavailable when the
	// client cannot be asked: a stateless door, a client without the
	// elicitation capability, an answer that cannot be streamed.
	Elicit(ctx context.Context, message string, schema json.RawMessage) (ElicitAnswer, error)
	// ConfirmTimeout is how long [framework.Confirm] waits for an answer
	// (the door's mcp.confirm_timeout; 0: config.DefaultMCPConfirmTimeout).
	ConfirmTimeout() time.Duration
}

// ElicitAnswer is a client's answer to elicitation/create: its action
// ("accept", "decline" or "cancel") and, for accept, the content (a JSON
// object; nil otherwise).
type ElicitAnswer struct {
	Action  framework.ElicitAction
	Content json.RawMessage
}

// WithMCPClient returns a copy of ctx carrying c, for the tool call running
// in it. The MCP door calls it; nil c removes none (ctx is returned as is).
func WithMCPClient(ctx context.Context, c MCPClient) context.Context {
	if c == nil {
		return ctx
	}
	return hostlink.WithMCPClient(ctx, mcpClient{c})
}

// MCPClientOf returns the MCP client of the tool call running in ctx, or nil
// (the HTTP door, a direct call).
func MCPClientOf(ctx context.Context) MCPClient {
	if c, ok := hostlink.MCPClientOf(ctx).(mcpClient); ok {
		return c.c
	}
	return nil
}

// mcpClient is an MCPClient as package framework calls it.
type mcpClient struct{ c MCPClient }

func (m mcpClient) Progress(ctx context.Context, progress, total float64, message string) error {
	return m.c.Progress(ctx, progress, total, message)
}

func (m mcpClient) Log(ctx context.Context, level, logger string, data any) error {
	return m.c.Log(ctx, framework.ClientLogLevel(level), logger, data)
}

func (m mcpClient) Elicit(ctx context.Context, message string, schema json.RawMessage) (string, json.RawMessage, error) {
	ans, err := m.c.Elicit(ctx, message, schema)
	return string(ans.Action), ans.Content, err
}

func (m mcpClient) ConfirmTimeout() time.Duration { return m.c.ConfirmTimeout() }
