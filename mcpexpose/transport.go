package mcpexpose

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/framework/host"
	"github.com/gymkit/gymkit/internal/bodyio"
	"github.com/gymkit/gymkit/internal/pyjson"
)

// ServeHTTP serves the /mcp endpoint (contract d.5). It answers what the
// contract specifies before the go-sdk sees the request, because the SDK
// answers some of it differently, in the order of NeMo's Python SDK:
//
//   - only POST (405, Allow: POST; the SDK too; DELETE with Python's
//     "Session termination not supported"); with mcp.stateful, GET
//     and DELETE too, and a session id of another principal, unknown or
//     idled out answers 404 (see Door.serveStateful);
//   - a Content-Type that does not start with application/json (any
//     case): 400, the text "Invalid Content-Type header" and no
//     Content-Type, as the Python SDK's transport security check answers
//     it before anything else;
//   - the DNS-rebinding check, when on (403);
//   - Accept must include application/json, */* or application/* (406);
//     text/event-stream is not required (the SDK requires it: the door
//     adds it for the SDK, which answers JSON anyway);
//   - Content-Type, again: the part before ";" must list application/json
//     among its comma-separated values, as Python reads it (415, for
//     application/jsonx, application/json-seq, ...);
//   - the body limit (413), and a body the host stopped reading (the
//     408 of its body_read_timeout, with Connection: close);
//   - the body itself: exactly one JSON value as json.loads reads it
//     (trailing whitespace allowed), else 400 -32700 (anything after the
//     value: "Parse error: Extra data: ...", Python's text); within max_json_depth and
//     max_json_elements, else 413 (see checkBody); then (see preflight) a
//     body that is not a JSON-RPC message (-32602), then an Mcp-Protocol-Version
//     header that names no supported version (400; not on initialize),
//     batches, ids and the methods Python answers differently.
//
// These answers (but the 400 for Content-Type), and every error the SDK itself writes as text/plain (a
// body that is not JSON-RPC, ...), are JSON-RPC error bodies with id
// "server-error", as NeMo's Python SDK writes them.
func (d *Door) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if d.sdk == nil {
		writeRPCError(w, http.StatusServiceUnavailable, jsonrpc.CodeInternalError, "Service Unavailable: the MCP door is not attached")
		return
	}
	if d.stateful && (r.Method == http.MethodGet || r.Method == http.MethodDelete) {
		d.serveSessionRequest(w, r)
		return
	}
	if r.Method != http.MethodPost {
		msg := "Method Not Allowed"
		if d.stateful {
			w.Header().Set("Allow", "GET, POST, DELETE")
			writeRPCError(w, http.StatusMethodNotAllowed, jsonrpc.CodeInvalidRequest, msg)
			return
		}
		if r.Method == http.MethodDelete {
			msg = "Method Not Allowed: Session termination not supported" // Python's stateless DELETE
		}
		w.Header().Set("Allow", http.MethodPost)
		writeRPCError(w, http.StatusMethodNotAllowed, jsonrpc.CodeInvalidRequest, msg)
		return
	}
	ct := r.Header.Get("Content-Type")
	if !startsJSON(ct) {
		writeInvalidContentType(w)
		return
	}
	if d.hosts != nil {
		if msg, ok := d.hosts.check(r); !ok {
			writeRPCError(w, http.StatusForbidden, jsonrpc.CodeInvalidRequest, msg)
			return
		}
	}
	jsonOK, streamOK := accepts(r.Header.Values("Accept"))
	if !jsonOK {
		writeRPCError(w, http.StatusNotAcceptable, jsonrpc.CodeInvalidRequest, "Not Acceptable: Client must accept application/json")
		return
	}
	ctOK := ct == "application/json" // what the SDK accepts as is
	if !ctOK {
		if !jsonContentType(ct) {
			writeRPCError(w, http.StatusUnsupportedMediaType, jsonrpc.CodeInvalidRequest, "Unsupported Media Type: Content-Type must be application/json")
			return
		}
		mt, _, err := mime.ParseMediaType(ct)
		ctOK = err == nil && mt == "application/json"
	}
	if r.ContentLength > d.maxBody {
		writeTooLarge(w, d.maxBody)
		return
	}
	body, err := bodyio.ReadAll(http.MaxBytesReader(w, r.Body, d.maxBody), r.ContentLength)
	if err != nil {
		if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
			writeTooLarge(w, d.maxBody)
			return
		}
		// A read that failed with a status of its own (the host's body
		// read deadline: 408) is answered with it, as on the HTTP door.
		if fe := (*framework.Error)(nil); errors.As(err, &fe) && fe.Status >= 400 && fe.Status <= 599 {
			writeFrameworkError(w, fe)
			return
		}
		writeRPCError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "Bad Request: failed to read the body")
		return
	}
	if !d.checkBody(w, body) {
		return
	}
	sdkBody, id, dropVersion, done := preflight(w, body, r.Header.Get("Mcp-Protocol-Version"))
	if done {
		return
	}
	if d.lean && id == nil && !dropVersion && sameBytes(sdkBody, body) && d.serveLean(w, r, body, streamOK) {
		d.leanAnswers.Add(1)
		return // answered as the SDK would (lean.go)
	}
	body = sdkBody
	// One allocation for what the SDK gets: a copy of the request reading
	// the body from memory, under a context that leads tools/call back to
	// the exchange, and the writer that rewrites the SDK's answers.
	x := &exchange{Context: r.Context(), rw: rewriter{ResponseWriter: w, body: body, id: id}, streamOK: streamOK}
	x.req = *r.WithContext(x)
	x.body.Reset(body)
	x.req.Body = &x.body
	if !streamOK || !ctOK || dropVersion || d.stateful {
		x.req.Header = r.Header.Clone()
		if !streamOK {
			x.req.Header.Set("Accept", "application/json, text/event-stream")
		}
		if !ctOK {
			x.req.Header.Set("Content-Type", "application/json")
		}
		if dropVersion {
			x.req.Header.Del("Mcp-Protocol-Version")
		}
	}
	switch {
	case d.stateful:
		d.serveExchange(w, x)
	case streamOK && progressCall(body):
		sw := &streamWriter{rw: &x.rw, streamOK: true}
		d.sdkStream.ServeHTTP(sw, &x.req)
		sw.finish()
	default:
		d.sdk.ServeHTTP(&x.rw, &x.req)
		x.rw.finish()
	}
}

// sameBytes reports whether a and b are the same slice (preflight returns
// the body it was given when it changed nothing).
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// exchangeHeader is the request header through which a stateful tools/call
// finds its exchange (the SDK runs a session's calls under the context of
// its initialize, but passes each call its own request's headers). The
// door sets it on its copy of every request, over any value a client sent.
const exchangeHeader = "X-Gymkit-Mcp-Exchange"

// serveExchange serves a stateful request whose exchange x is ready.
func (d *Door) serveExchange(w http.ResponseWriter, x *exchange) {
	n := strconv.FormatUint(d.exchangeSeq.Add(1), 10)
	x.req.Header.Set(exchangeHeader, n)
	d.exchanges.Store(n, x)
	defer d.exchanges.Delete(n)
	d.serveStateful(w, x, &streamWriter{rw: &x.rw, streamOK: x.streamOK, stream: x.req.Method == http.MethodGet})
}

// serveSessionRequest serves a stateful GET (the session's stream) or
// DELETE (the session's end), after the DNS-rebinding check.
func (d *Door) serveSessionRequest(w http.ResponseWriter, r *http.Request) {
	if d.sdk == nil {
		writeRPCError(w, http.StatusServiceUnavailable, jsonrpc.CodeInternalError, "Service Unavailable: the MCP door is not attached")
		return
	}
	if d.hosts != nil {
		if msg, ok := d.hosts.check(r); !ok {
			writeRPCError(w, http.StatusForbidden, jsonrpc.CodeInvalidRequest, msg)
			return
		}
	}
	x := &exchange{Context: r.Context(), rw: rewriter{ResponseWriter: w}}
	x.req = *r.WithContext(x)
	x.req.Header = r.Header.Clone()
	_, x.streamOK = accepts(r.Header.Values("Accept"))
	d.serveExchange(w, x)
}

// exchange is one request as the door hands it to the SDK. It is also the
// request's context as the SDK passes it on, so that a tools/call finds the
// exchange again, and runs the tool under the HTTP request's own context
// (see Door.run).
type exchange struct {
	context.Context // the HTTP request's
	req             http.Request
	body            memBody
	rw              rewriter
	streamOK        bool   // the client's Accept allows text/event-stream
	sid             string // stateful: the request's MCP session id ("" on initialize)
}

// exchangeKey is the context key of the *exchange.
type exchangeKey struct{}

// Value returns the exchange for exchangeKey, else the request's value.
func (x *exchange) Value(key any) any {
	if key == (exchangeKey{}) {
		return x
	}
	return x.Context.Value(key)
}

// memBody is a request body read from memory.
type memBody struct{ bytes.Reader }

// Close does nothing.
func (*memBody) Close() error { return nil }

// jsonContentType is NeMo's Python SDK's Content-Type check
// (_check_content_type): the part before the first ";" lists
// application/json among its comma-separated values. Parameters are not
// parsed; the media type is compared without regard to case (Python
// compares it case-sensitively).
func jsonContentType(ct string) bool {
	base, _, _ := strings.Cut(ct, ";")
	for part := range strings.SplitSeq(base, ",") {
		if strings.EqualFold(strings.TrimSpace(part), "application/json") {
			return true
		}
	}
	return false
}

// startsJSON is the Content-Type check of the Python SDK's transport
// security (TransportSecurityMiddleware._validate_content_type), which
// runs on every POST before the transport reads anything else: the value
// starts with application/json, in any case (Python lower-cases it; only
// ASCII letters can lower-case to those of the prefix).
func startsJSON(ct string) bool {
	const prefix = "application/json"
	if len(ct) < len(prefix) {
		return false
	}
	for i := range len(prefix) {
		c := ct[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != prefix[i] {
			return false
		}
	}
	return true
}

// writeInvalidContentType writes the Python SDK's answer to a POST whose
// Content-Type fails startsJSON: Starlette's plain Response, 400, the text
// and no Content-Type header.
func writeInvalidContentType(w http.ResponseWriter) {
	h := w.Header()
	h.Del("Content-Length")
	h.Del("X-Content-Type-Options")
	h["Content-Type"] = nil // no header, and no sniffing
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write([]byte("Invalid Content-Type header"))
}

// accepts is the SDK's reading of Accept (base media types, wildcards).
func accepts(values []string) (jsonOK, streamOK bool) {
	for _, v := range values {
		for _, raw := range strings.Split(v, ",") {
			base, _, _ := strings.Cut(raw, ";")
			switch strings.ToLower(strings.TrimSpace(base)) {
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				streamOK = true
			case "*/*":
				jsonOK, streamOK = true, true
			}
		}
	}
	return jsonOK, streamOK
}

// checkBody answers a body that holds more than one JSON value, or one
// beyond the instance's JSON limits, and reports whether the request goes
// on. The SDK reads only the first JSON value of a body: without this, a
// tool would run from `{...} trailing text`, or from the first of two
// concatenated messages. Other syntax errors, and what json.loads accepts
// and the SDK does not (NaN, invalid UTF-8, ...), go on, for the SDK to
// answer as before (-32700, see rewriter.finish).
func (d *Door) checkBody(w http.ResponseWriter, body []byte) bool {
	err := host.CheckJSON(body, d.jsonLimits)
	var se *pyjson.SyntaxError
	var fe *framework.Error
	switch {
	case err == nil:
		return true
	case errors.As(err, &se) && se.Msg == "Extra data":
		// Python's answer, message and all. The SDK answers the other
		// syntax errors itself (-32700 too, with its own text).
		writeRPCError(w, http.StatusBadRequest, jsonrpc.CodeParseError, "Parse error: "+se.Error())
		return false
	case errors.As(err, &fe):
		writeFrameworkError(w, fe) // a limit: 413 naming it
		return false
	}
	return true
}

// writeFrameworkError writes a transport-level *framework.Error (a limit's
// 413, the host's 408 and 503) as a JSON-RPC error with its status and
// headers (Retry-After): -32603 for a 5xx, else -32600.
func writeFrameworkError(w http.ResponseWriter, fe *framework.Error) {
	msg, ok := fe.Detail.(string)
	if !ok {
		msg = fe.Error()
	}
	for k, v := range fe.Header {
		w.Header()[http.CanonicalHeaderKey(k)] = v
	}
	var code int64 = jsonrpc.CodeInvalidRequest
	if fe.Status >= 500 {
		code = jsonrpc.CodeInternalError
	}
	writeRPCError(w, fe.Status, code, msg)
}

func writeTooLarge(w http.ResponseWriter, limit int64) {
	writeRPCError(w, http.StatusRequestEntityTooLarge, jsonrpc.CodeInvalidRequest,
		"Request body too large: limit is "+strconv.FormatInt(limit, 10)+" bytes")
}

// writeRPCError writes a transport error the way NeMo's Python SDK does:
// {"jsonrpc":"2.0","id":"server-error","error":{"code":…,"message":…}}.
func writeRPCError(w http.ResponseWriter, status int, code int64, msg string) {
	b := make([]byte, 0, len(msg)+80)
	b = append(b, `{"jsonrpc":"2.0","id":"server-error","error":{"code":`...)
	b = strconv.AppendInt(b, code, 10)
	b = append(b, `,"message":`...)
	b = appendString(b, msg)
	b = append(b, "}}"...)
	h := w.Header()
	h.Del("Content-Length")
	h.Del("X-Content-Type-Options")
	h.Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// rewriter passes the SDK's answer through, except a text/plain error,
// which it turns into a JSON-RPC error body with the same status (or into
// Python's answer, see finish), and a rounded id, which it puts back.
type rewriter struct {
	http.ResponseWriter
	body    []byte // the request body as the SDK read it
	id      []byte // the raw request id to write over the SDK's; nil: none
	status  int    // the captured error status; 0 while passing through
	message []byte // the captured error text
}

func (w *rewriter) WriteHeader(code int) {
	switch {
	case code >= 400 && w.status == 0 && strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain"):
		w.status = code
		return
	case code == http.StatusAccepted && w.Header().Get("Content-Type") == "":
		w.Header().Set("Content-Type", "application/json") // as NeMo's Python SDK answers a notification
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *rewriter) Write(p []byte) (int, error) {
	if w.status != 0 {
		w.message = append(w.message, p...)
		return len(p), nil
	}
	if bytes.Contains(p, sdkParamsError) {
		// The SDK writes its one JSON answer in one Write.
		if q, ok := invalidParamsAnswer(p, w.id); ok {
			w.id = nil
			if _, err := w.ResponseWriter.Write(q); err != nil {
				return 0, err
			}
			return len(p), nil
		}
	}
	if w.id != nil {
		// The SDK writes its one JSON answer in one Write.
		id := w.id
		w.id = nil
		if q, ok := replaceID(p, id); ok {
			if _, err := w.ResponseWriter.Write(q); err != nil {
				return 0, err
			}
			return len(p), nil
		}
	}
	return w.ResponseWriter.Write(p)
}

// Flush flushes the underlying writer (SSE answers are never rewritten).
func (w *rewriter) Flush() {
	if w.status != 0 {
		return
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
		return
	}
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap returns the underlying ResponseWriter, for http.ResponseController.
func (w *rewriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// sdkParamsError starts the SDK's answer to params it cannot decode
// ("handling 'tools/call': invalid params: unmarshaling ...": a name that
// is not a string, a _meta that is not an object, ...).
var sdkParamsError = []byte(`,"error":{"code":-32602,"message":"handling '`)

// invalidParamsAnswer rewrites the SDK's answer p to params it cannot
// decode into Python's, whose pydantic validation refuses the same params:
// -32602 "Invalid request parameters", data "", with the request's id (id,
// when the door keeps the raw one, else the SDK's).
func invalidParamsAnswer(p, id []byte) ([]byte, bool) {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(p, &m) != nil || len(m.ID) == 0 {
		return nil, false
	}
	if id == nil {
		id = m.ID
	}
	b := make([]byte, 0, len(id)+96)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	return append(b, `,"error":{"code":-32602,"message":"Invalid request parameters","data":""}}`...), true
}

// sdkDispatchErrors are the prefixes of the SDK's text for a message it
// refuses at dispatch (checkRequest): an unknown method (jsonrpc2's
// ErrNotHandled), a request method without id, a notification method with
// an id, missing params (ErrInvalidRequest).
var sdkDispatchErrors = []string{"JSON RPC not handled: ", "invalid request: "}

// finish writes a captured error as JSON-RPC. The codes follow NeMo's
// Python SDK: -32700 for a body that is not JSON, -32602 for other 400s
// (a message that is not valid JSON-RPC), -32603 for 5xx, -32600 else.
// A message the SDK refuses at dispatch is answered as Python answers it:
// pydantic validates any message without a (valid) id as a notification,
// answered 202 and dropped when unknown; a request that the server cannot
// validate is answered 200 with the JSON-RPC error -32602 "Invalid request
// parameters" and the request's id.
func (w *rewriter) finish() {
	if w.status == 0 {
		return
	}
	msg := strings.TrimSpace(string(w.message))
	if w.status == http.StatusBadRequest && slices.ContainsFunc(sdkDispatchErrors, func(p string) bool { return strings.HasPrefix(msg, p) }) {
		if id, ok := topLevelID(w.body); ok {
			if id == nil {
				writeAccepted(w.ResponseWriter)
			} else {
				writeInvalidParams(w.ResponseWriter, id)
			}
			return
		}
	}
	var code int64 = jsonrpc.CodeInvalidRequest
	switch {
	case w.status >= 500:
		code = jsonrpc.CodeInternalError
	case w.status == http.StatusBadRequest && !json.Valid(w.body):
		code, msg = jsonrpc.CodeParseError, "Parse error: "+msg
	case w.status == http.StatusBadRequest:
		code, msg = jsonrpc.CodeInvalidParams, "Validation error: "+msg
	}
	writeRPCError(w.ResponseWriter, w.status, code, msg)
}

// hostPolicy is the DNS-rebinding check: Host, and Origin when present,
// must be a loopback name or an allowed host.
type hostPolicy struct {
	any       bool            // "*" was allowed
	hosts     map[string]bool // lower-case names, any port
	hostPorts map[string]bool // lower-case "name:port"
	anyOrigin bool            // "*" was allowed as an origin
	origins   map[string]bool // lower-case allowed origins (cors.allowed_origins); nil: none
}

// allowOrigins adds origins (cors.allowed_origins) that Origin may name
// whatever its host: "*" any.
func (p *hostPolicy) allowOrigins(origins []string) {
	for _, o := range origins {
		o = strings.ToLower(strings.TrimSpace(o))
		switch {
		case o == "*":
			p.anyOrigin = true
		case o != "":
			if p.origins == nil {
				p.origins = map[string]bool{}
			}
			p.origins[o] = true
		}
	}
}

func newHostPolicy(allowed []string) *hostPolicy {
	p := &hostPolicy{hosts: map[string]bool{}, hostPorts: map[string]bool{}}
	for _, h := range allowed {
		h = strings.ToLower(strings.TrimSpace(h))
		switch {
		case h == "*":
			p.any = true
		case h == "":
		default:
			if host, port, err := net.SplitHostPort(h); err == nil && port != "" {
				p.hostPorts[net.JoinHostPort(host, port)] = true
			} else {
				p.hosts[strings.Trim(h, "[]")] = true
			}
		}
	}
	return p
}

// check returns the 403 message for a refused request.
func (p *hostPolicy) check(r *http.Request) (string, bool) {
	if !p.allowed(r.Host) {
		return "Forbidden: invalid Host header " + strconv.Quote(r.Host), false
	}
	if o := r.Header.Get("Origin"); o != "" && !p.anyOrigin && !p.origins[strings.ToLower(o)] {
		u, err := url.Parse(o)
		if err != nil || u.Host == "" || !p.allowed(u.Host) {
			return "Forbidden: invalid Origin header " + strconv.Quote(o), false
		}
	}
	return "", true
}

func (p *hostPolicy) allowed(hostport string) bool {
	if p.any {
		return true
	}
	hp := strings.ToLower(hostport)
	host := hp
	if h, port, err := net.SplitHostPort(hp); err == nil {
		if p.hostPorts[net.JoinHostPort(h, port)] {
			return true
		}
		host = h
	}
	host = strings.Trim(host, "[]")
	return IsLoopback(host) || p.hosts[host]
}

// IsLoopback reports whether host (a name or an IP address, without port;
// IPv6 with or without brackets) is a loopback host: "localhost" (any
// case) or an address in 127.0.0.0/8 or ::1. A door whose instance listens
// on a loopback host turns its DNS-rebinding check on ([Options.Config]);
// the check accepts these names in Host and Origin.
func IsLoopback(host string) bool {
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
