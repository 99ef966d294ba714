package framework

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"unsafe"

	"github.com/gymkit/gymkit/internal/lax"
	"github.com/gymkit/gymkit/internal/pyjson"
	"github.com/gymkit/gymkit/session"
)

// Error is an error with an HTTP status and a detail, FastAPI's HTTPException.
//
// On the HTTP door it is written as status Status with the body
// {"detail": <Detail>} (Detail encoded as JSON: a string, or any value the
// framework encoder accepts). On the MCP door it becomes an isError result
// whose text is "HTTP <Status> from POST /<tool>: <detail>", where a string
// detail is written as is and any other detail as its Python repr
// (contract d.6 step 4, python-compat section 5).
//
// Create one with [Errorf] or [NewError]; wrapping it with fmt.Errorf("...: %w")
// keeps its status (see [StatusOf]).
type Error struct {
	// Status is the HTTP status code, 400-599 in practice. Zero means 500.
	Status int
	// Detail is the value of the "detail" key: usually a string.
	Detail any
	// Header holds extra headers of the HTTP answer (Retry-After for a
	// retryable 503, say); Content-Type and Content-Length are the
	// framework's. The MCP door has no headers and ignores it.
	Header http.Header
}

// Errorf returns an *Error with the given status and a formatted string detail.
//
//	return framework.Errorf(404, "Function not found")
//
// gives HTTP 404 {"detail":"Function not found"} and, over MCP, the isError
// text "HTTP 404 from POST /<tool>: Function not found".
func Errorf(status int, format string, args ...any) error {
	return &Error{Status: status, Detail: fmt.Sprintf(format, args...)}
}

// NewError returns an *Error with a structured detail (any JSON-encodable
// value, e.g. a map or a struct).
func NewError(status int, detail any) error { return &Error{Status: status, Detail: detail} }

// Error returns "HTTP <status>: <detail>".
func (e *Error) Error() string { return "HTTP " + strconv.Itoa(e.status()) + ": " + e.detailText() }

// status is the HTTP status written: 500 for a zero or invalid (outside
// 200-599) status.
func (e *Error) status() int {
	if e.Status < 200 || e.Status > 599 {
		return 500
	}
	return e.Status
}

// detailText renders the detail as Python's str(detail) would.
func (e *Error) detailText() string {
	if s, ok := e.Detail.(string); ok {
		return s
	}
	v, err := toValue(e.Detail)
	if err != nil {
		return fmt.Sprint(e.Detail)
	}
	return pyjson.Repr(v)
}

// ValidationError is a request that failed decoding or validation: HTTP 422
// with pydantic's error items (python-compat sections 3 and 4.1). Decode and
// every typed route return it; handlers may return it too.
type ValidationError struct {
	items []lax.ErrorItem

	// The HTTP door's rendering (lax.RenderHTTPStrict), made once: the
	// status of a 422 depends on it (a NaN input makes it a 500), and
	// both a metrics interceptor (the host's StatusCode) and the door's answer
	// ask for it.
	httpOnce sync.Once
	httpBody []byte
	httpErr  error
}

// renderHTTP returns the items' HTTP rendering (lax.RenderHTTPStrict),
// rendered on the first call only.
func (e *ValidationError) renderHTTP() ([]byte, error) {
	e.httpOnce.Do(func() { e.httpBody, e.httpErr = lax.RenderHTTPStrict(e.items) })
	return e.httpBody, e.httpErr
}

// Error returns the MCP rendering of the items (Python json.dumps of the list).
func (e *ValidationError) Error() string { return lax.RenderMCP(e.items) }

// Len returns the number of error items.
func (e *ValidationError) Len() int { return len(e.items) }

// panicError is a recovered panic.
type panicError struct{ value any }

func (p *panicError) Error() string { return fmt.Sprintf("panic: %v", p.value) }

// Status is the wire view of an error on both doors, computed by [StatusOf].
type Status struct {
	// Code is the HTTP status code.
	Code int
	// Body is the exact HTTP response body (application/json). For a
	// [*ValidationError] it is rendered once and shared by every Status of
	// that error: treat it as read-only.
	Body []byte
	// Detail is the detail text that the MCP door puts after
	// "HTTP <code> from POST /<tool>: ".
	Detail string

	mcpCode int // the MCP door's status when it differs from Code

	// unhandled marks Python's unhandled-exception answer (a JSON-string
	// 500): NeMo's exception middleware (setup_exception_middleware in
	// nemo_gym/server_utils.py) writes it outside Starlette's
	// SessionMiddleware, so it carries no Set-Cookie and no Vary: Cookie.
	unhandled bool
}

// CodeFor returns the status code door d answers with: Code on the HTTP
// door; on the MCP door the code of the isError text ([Status.MCPText]),
// which differs from Code only for a 422 whose items hold a NaN or an
// infinite input (HTTP answers NeMo's 500 for it). An interceptor's
// metrics read it as the host's StatusCode(err, c.Door) (package
// framework/host), which is the same code without rendering a 422 twice;
// for a nil error it is 200.
func (s Status) CodeFor(d Door) int {
	if d == DoorMCP && s.mcpCode != 0 {
		return s.mcpCode
	}
	return s.Code
}

// MCPText returns the MCP isError text for a failed call of tool:
// "HTTP <Code> from POST /<tool>: <Detail>" (contract d.6 step 4).
//
// The code is Code, except for a 422 whose items hold a NaN or infinite
// input: the HTTP door answers NeMo's 500 (Starlette cannot write NaN), while
// the MCP door still says 422 with the items (python-compat 4.1 and 5).
func (s Status) MCPText(tool string) string {
	code := s.Code
	if s.mcpCode != 0 {
		code = s.mcpCode
	}
	return "HTTP " + strconv.Itoa(code) + " from POST /" + tool + ": " + s.Detail
}

// mcpErrorText is framework/host's MCPErrorText (documented there).
func mcpErrorText(err error, tool string) string {
	var ve *ValidationError
	if errors.As(err, &ve) {
		b := make([]byte, 0, 32+len(tool))
		b = append(b, "HTTP 422 from POST /"...)
		b = append(b, tool...)
		b = lax.AppendMCP(append(b, ": "...), ve.items)
		return unsafe.String(unsafe.SliceData(b), len(b)) // b is not used again
	}
	return StatusOf(err).MCPText(tool)
}

// StatusOf returns the status and both renderings of err, exactly as the two
// doors write them:
//
//   - an [*Error] anywhere in err's chain (errors.As): its status; body
//     {"detail": ...}; detail str(detail);
//   - a [*ValidationError]: 422; body {"detail":[items with "body" loc prefix]};
//     detail json.dumps(items) with "url" keys and no "body" prefix;
//   - an error wrapping session.ErrStoreUnavailable (the rollout state
//     store is down or too slow): 503; body {"detail": <error text>};
//     detail the error text, which names the store;
//   - a recovered panic or any other error: 500; the body is a JSON string of
//     the error text (NeMo's exception middleware writes repr(e) the same way);
//     the detail is that text.
//
// The JSON-string 500 is Python's unhandled-exception answer: the HTTP door
// writes it without the rollout session's Set-Cookie (see the host's
// SessionCookieOmitter, package framework/host); every other answer, a 500
// chosen with [Errorf] included, keeps it (golden: nemo-gym-peer/example_mcp_weather.jsonl,
// "unhandled 500 mid-rollout"; math_advanced_calculations.jsonl, "divide by
// zero").
//
// A nil err gives Code 200 and a nil Body.
func StatusOf(err error) Status { return statusOf(err, true) }

// statusCode is framework/host's StatusCode (documented there).
func statusCode(err error, d Door) int {
	var ve *ValidationError
	if err != nil && errors.As(err, &ve) {
		if d == DoorMCP {
			return 422
		}
		if _, err := ve.renderHTTP(); err != nil {
			return 500
		}
		return 422
	}
	return StatusOf(err).CodeFor(d)
}

// statusOf is StatusOf; without detail, the Detail of a [*ValidationError]
// (the MCP door's text, json.dumps of its items) is left empty, for the
// HTTP door, which never writes it.
func statusOf(err error, detail bool) Status {
	if err == nil {
		return Status{Code: 200}
	}
	var ve *ValidationError
	if errors.As(err, &ve) {
		mcpText := func() string {
			if !detail {
				return ""
			}
			return lax.RenderMCP(ve.items)
		}
		body, err := ve.renderHTTP()
		if err != nil {
			// NeMo's handler prints the errors, then Starlette's JSONResponse
			// (allow_nan=False) raises on a NaN or infinite input: a 500
			// (python-compat 4.1).
			st := StatusOf(PythonError("ValueError", err.Error()))
			// The MCP door never renders through JSONResponse: it keeps the 422.
			st.mcpCode, st.Detail = 422, mcpText()
			return st
		}
		return Status{Code: 422, Body: body, Detail: mcpText()}
	}
	var fe *Error
	if errors.As(err, &fe) && fe == nil {
		err = errors.New("a nil *framework.Error was returned as an error")
	} else if fe != nil {
		if fe.Detail == nil {
			// Starlette's HTTPException: a None detail is the status phrase.
			fe = &Error{Status: fe.Status, Detail: http.StatusText(fe.status())}
		}
		body, encErr := pyjson.Marshal(detailBody{Detail: fe.Detail}, pyjson.Python)
		if encErr != nil {
			// Starlette's JSONResponse raises on such a detail and NeMo's
			// exception middleware answers 500 with the exception's repr.
			var fr *pyjson.FloatRangeError
			if errors.As(encErr, &fr) {
				st := StatusOf(PythonError("ValueError", fr.Error()))
				// The MCP door renders str(detail), never through JSONResponse.
				st.mcpCode, st.Detail = fe.status(), fe.detailText()
				return st
			}
			return StatusOf(PythonError("TypeError", fmt.Sprintf("detail of type %T is not JSON serializable", fe.Detail)))
		}
		return Status{Code: fe.status(), Body: body, Detail: fe.detailText()}
	}
	if errors.Is(err, session.ErrStoreUnavailable) {
		// The shared state store is down or slow (session/redisstore): a
		// 503 the agent may retry, naming the store; never Python's
		// unhandled 500, so the rollout keeps its cookie.
		text := err.Error()
		body, _ := pyjson.Marshal(detailBody{Detail: text}, pyjson.Python)
		return Status{Code: http.StatusServiceUnavailable, Body: body, Detail: text}
	}
	text := err.Error()
	body, _ := pyjson.Marshal(text, pyjson.Python)
	return Status{Code: 500, Body: body, Detail: text, unhandled: true}
}

// sessionCookieOmitter is framework/host's SessionCookieOmitter: a writer
// that can leave the rollout session's Set-Cookie off the response (the
// writer session's middleware hands down is one).
type sessionCookieOmitter interface {
	OmitSessionCookie()
}

// omitSessionCookie calls OmitSessionCookie on the first writer of w's
// Unwrap chain that has it.
func omitSessionCookie(w http.ResponseWriter) {
	for w != nil {
		if o, ok := w.(sessionCookieOmitter); ok {
			o.OmitSessionCookie()
			return
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			return
		}
		w = u.Unwrap()
	}
}

type detailBody struct {
	Detail any `json:"detail"`
}

// toValue converts any JSON-encodable Go value to a Value.
func toValue(x any) (pyjson.Value, error) {
	if v, ok := x.(pyjson.Value); ok {
		return v, nil
	}
	b, err := pyjson.Marshal(x, argsOptions) // NaN and infinities kept as literals
	if err != nil {
		return pyjson.Value{}, err
	}
	return pyjson.Parse(b)
}
