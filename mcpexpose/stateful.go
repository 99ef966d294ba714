package mcpexpose

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/framework/host"
	"github.com/gymkit/gymkit/session"
)

// sessionHeader is the Streamable HTTP session header.
const sessionHeader = "Mcp-Session-Id"

// mcpSessions is the stateful door's record of the MCP sessions the SDK
// made: who owns each (the principal of its initialize), when it was last
// used, and the rollout session of its tokenless calls. It is the authority
// on which ids exist: an id it does not know, or knows for another
// principal, or that idled out, is answered 404 before the SDK sees it.
type mcpSessions struct {
	idle time.Duration
	max  int
	now  func() time.Time

	mu      sync.Mutex
	byID    map[string]*mcpSession
	count   map[string]int  // live sessions (and reservations) per principal
	removed func(id string) // closes the SDK session; nil in tests
}

type mcpSession struct {
	owner    string
	last     time.Time
	inflight int
	rollout  string // the rollout session id of tokenless calls; "" until the first
}

func newMCPSessions(idle time.Duration, max int) *mcpSessions {
	return &mcpSessions{idle: idle, max: max, now: time.Now, byID: map[string]*mcpSession{}, count: map[string]int{}}
}

// principalKey is a principal as a map key: its type and value, so that
// the API key "a" and a JWT subject "a" (both strings) are one principal,
// as they are one caller to the tools. nil (no auth) is "".
func principalKey(p any) string {
	if p == nil {
		return ""
	}
	return fmt.Sprintf("%T\x00%v", p, p)
}

// expiredLocked reports whether s idled out.
func (m *mcpSessions) expiredLocked(s *mcpSession, now time.Time) bool {
	return s.inflight == 0 && now.Sub(s.last) > m.idle
}

// dropLocked forgets id.
func (m *mcpSessions) dropLocked(id string, s *mcpSession) {
	delete(m.byID, id)
	if m.count[s.owner]--; m.count[s.owner] <= 0 {
		delete(m.count, s.owner)
	}
	if m.removed != nil {
		go m.removed(id)
	}
}

// reserve takes one of owner's session slots for an initialize, after
// dropping every idled-out session; false when owner has max live ones.
func (m *mcpSessions) reserve(owner string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	for id, s := range m.byID {
		if m.expiredLocked(s, now) {
			m.dropLocked(id, s)
		}
	}
	if m.count[owner] >= m.max {
		return false
	}
	m.count[owner]++
	return true
}

// release gives back a reservation that made no session.
func (m *mcpSessions) release(owner string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.count[owner]--; m.count[owner] <= 0 {
		delete(m.count, owner)
	}
}

// add records the session id made under owner's reservation, in flight.
func (m *mcpSessions) add(id, owner string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.byID[id] = &mcpSession{owner: owner, last: m.now(), inflight: 1}
}

// enter marks a request of owner on id in flight (when busy; a GET stream
// is not); false (answer 404) when id is unknown, owned by another
// principal, or idled out.
func (m *mcpSessions) enter(id, owner string, busy bool) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.byID[id]
	if s == nil || s.owner != owner {
		return false
	}
	if now := m.now(); m.expiredLocked(s, now) {
		m.dropLocked(id, s)
		return false
	}
	if busy {
		s.inflight++
	}
	return true
}

// leave ends a request on id; gone forgets the session (DELETE answered).
func (m *mcpSessions) leave(id string, gone bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.byID[id]
	if s == nil {
		return
	}
	s.inflight--
	s.last = m.now()
	if gone {
		delete(m.byID, id)
		if m.count[s.owner]--; m.count[s.owner] <= 0 {
			delete(m.count, s.owner)
		}
	}
}

// rolloutID returns the rollout session id of id's tokenless calls, minting
// it on the first.
func (m *mcpSessions) rolloutID(id string) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.byID[id]
	if s == nil {
		return "", false
	}
	if s.rollout == "" {
		s.rollout = session.NewID()
	}
	return s.rollout, true
}

// writeSessionNotFound is the SDK's answer to an unknown session id (404
// "session not found"), as the rewriter turns it into JSON-RPC: the answer to
// another principal's id too, so that it cannot tell the two apart.
func writeSessionNotFound(w http.ResponseWriter) {
	writeRPCError(w, http.StatusNotFound, jsonrpc.CodeInvalidRequest, "session not found")
}

// serveStateful answers the stateful door's requests that carry or make a
// session, around the SDK: it checks the session's owner (404 otherwise),
// bounds the sessions per principal (429), records the session an
// initialize makes before its answer leaves, and forgets a deleted one.
func (d *Door) serveStateful(w http.ResponseWriter, x *exchange, sw *streamWriter) {
	r := &x.req
	owner := principalKey(framework.PrincipalOf(r.Context()))
	sid := r.Header.Get(sessionHeader)
	if sid == "" {
		if r.Method != http.MethodPost {
			writeRPCError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "Bad Request: Mcp-Session-Id header is required")
			return
		}
		if !d.mcpSessions.reserve(owner) {
			w.Header().Set("Retry-After", "60")
			writeRPCError(w, http.StatusTooManyRequests, jsonrpc.CodeInvalidRequest,
				fmt.Sprintf("Too Many Requests: this principal has %d MCP sessions (mcp.max_sessions_per_principal); DELETE one or let it idle out", d.mcpSessions.max))
			return
		}
		made := ""
		sw.onCommit = func(h http.Header) {
			if id := h.Get(sessionHeader); id != "" {
				made = id
				d.mcpSessions.add(id, owner)
			}
		}
		d.sdk.ServeHTTP(sw, r)
		sw.finish()
		if made == "" {
			d.mcpSessions.release(owner)
			return
		}
		d.mcpSessions.leave(made, false)
		return
	}
	// The GET stream does not keep a session alive: it stays open while
	// the client is idle.
	busy := r.Method != http.MethodGet
	if !d.mcpSessions.enter(sid, owner, busy) {
		writeSessionNotFound(w)
		return
	}
	x.sid = sid
	d.sdk.ServeHTTP(sw, r)
	sw.finish()
	if busy {
		d.mcpSessions.leave(sid, r.Method == http.MethodDelete && sw.status == http.StatusNoContent)
	}
}

// progressCall reports whether body is a tools/call with a progress token.
func progressCall(body []byte) bool {
	if !bytes.Contains(body, []byte("progressToken")) {
		return false
	}
	var m struct {
		Method string `json:"method"`
		Params struct {
			Meta struct {
				ProgressToken json.RawMessage `json:"progressToken"`
			} `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &m) != nil || m.Method != "tools/call" {
		return false
	}
	t := bytes.TrimSpace(m.Params.Meta.ProgressToken)
	return len(t) > 0 && string(t) != "null"
}

// streamWriter sits between an SSE-mode SDK handler and the rewriter: it
// answers as plain JSON (the response event's data, Content-Type
// application/json) unless something other than the response comes first
// (a progress or log notification, an elicitation request) and the client
// accepts text/event-stream, in which case it switches the answer to the
// stream at that event and passes every event on. Without a stream, those
// messages are dropped (Elicit refuses beforehand). Answers that are not a
// 200 event stream (202, errors, DELETE's 204) pass through.
type streamWriter struct {
	rw       *rewriter
	streamOK bool
	onCommit func(http.Header) // called once before anything goes downstream

	stream bool // a GET: the session's stream, never turned into JSON

	decided  bool // the answer's kind is known
	sse      bool // the SDK answers an event stream
	switched bool // the answer is a stream downstream
	status   int  // status written downstream (200 when implicit)
	id       []byte
}

func (s *streamWriter) Header() http.Header { return s.rw.Header() }

func (s *streamWriter) commit() {
	if s.onCommit != nil {
		f := s.onCommit
		s.onCommit = nil
		f(s.rw.Header())
	}
}

func (s *streamWriter) decide(code int) {
	if s.decided {
		return
	}
	s.decided = true
	s.sse = code == http.StatusOK && strings.HasPrefix(s.Header().Get("Content-Type"), "text/event-stream")
	if s.sse {
		s.id, s.rw.id = s.rw.id, nil // the response's id is put back here
		s.switched = s.stream
	}
}

func (s *streamWriter) WriteHeader(code int) {
	s.decide(code)
	if s.sse && !s.switched {
		return // the 200 goes with the first event, as JSON or as a stream
	}
	s.commit()
	s.status = code
	s.rw.WriteHeader(code)
}

// Write takes one SSE event per call (the SDK writes each event whole).
func (s *streamWriter) Write(p []byte) (int, error) {
	s.decide(http.StatusOK)
	if !s.sse {
		s.commit()
		if s.status == 0 {
			s.status = http.StatusOK
		}
		return s.rw.Write(p)
	}
	data := eventData(p)
	if len(data) == 0 {
		// A priming or empty event: only on a stream.
		if s.switched {
			return s.rw.Write(p)
		}
		return len(p), nil
	}
	response := isResponse(data)
	if response && s.id != nil {
		if q, ok := replaceID(data, s.id); ok {
			data = q
			p = append(append([]byte("event: message\ndata: "), data...), "\n\n"...)
		}
	}
	switch {
	case s.switched:
		n, err := s.rw.Write(p)
		s.flush()
		if err != nil {
			return n, err
		}
		return len(p), nil
	case response:
		// Nothing came before the answer: plain JSON, as the JSON handler
		// answers.
		h := s.Header()
		h.Set("Content-Type", "application/json")
		h.Del("Connection")
		s.commit()
		s.status = http.StatusOK
		if _, err := s.rw.Write(data); err != nil {
			return 0, err
		}
		return len(p), nil
	case s.streamOK:
		s.switched = true
		s.commit()
		s.status = http.StatusOK
		if _, err := s.rw.Write(p); err != nil {
			return 0, err
		}
		s.flush()
		return len(p), nil
	}
	return len(p), nil // a notification the client cannot receive
}

func (s *streamWriter) flush() {
	if f, ok := s.rw.ResponseWriter.(http.Flusher); ok {
		f.Flush()
		return
	}
	_ = http.NewResponseController(s.rw.ResponseWriter).Flush()
}

// Flush flushes a stream or a passed-through answer; a held-back SSE answer
// stays unwritten (its headers are not committed).
func (s *streamWriter) Flush() {
	if s.decided && (!s.sse || s.switched) {
		s.rw.Flush()
	}
}

// Unwrap returns the rewriter, for http.ResponseController.
func (s *streamWriter) Unwrap() http.ResponseWriter { return s.rw }

// finish completes the answer: the rewriter's captured error, or a held
// 200 that never got an event.
func (s *streamWriter) finish() {
	if s.sse && !s.switched && s.status == 0 {
		// The SDK ended the stream without a message (the client went
		// away): nothing to write.
		s.commit()
	}
	s.rw.finish()
}

// eventData returns the data of one SSE event ("data: ..." lines joined).
func eventData(p []byte) []byte {
	var out []byte
	for line := range bytes.SplitSeq(p, []byte("\n")) {
		if d, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
			if out != nil {
				out = append(out, '\n')
			}
			out = append(out, d...)
		} else if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			out = append(out, d...)
		}
	}
	return bytes.TrimSpace(out)
}

// isResponse reports whether the JSON-RPC message data is a response (it
// has a result or an error, and no method).
func isResponse(data []byte) bool {
	var m struct {
		Method *string          `json:"method"`
		Result json.RawMessage  `json:"result"`
		Error  *json.RawMessage `json:"error"`
	}
	if json.Unmarshal(data, &m) != nil {
		return false
	}
	return m.Method == nil && (m.Result != nil || m.Error != nil)
}

// callContext is a tool call's context on the MCP door: the HTTP request's
// (its values, its cancellation), whose values fall back to the SDK's
// handler context (the SDK finds the call there when the tool sends it a
// notification or a request, so that they ride the call's own stream).
type callContext struct {
	context.Context
	sdk context.Context
}

func (c callContext) Value(key any) any {
	if v := c.Context.Value(key); v != nil {
		return v
	}
	return c.sdk.Value(key)
}

// client is the host.MCPClient of one tools/call.
type client struct {
	d        *Door
	req      *mcp.CallToolRequest
	streamOK bool
}

func (c *client) Progress(ctx context.Context, progress, total float64, message string) error {
	if c.req == nil {
		return nil // the lean path: a call without a progress token (see lean.go)
	}
	tok := c.req.Params.GetProgressToken()
	if tok == nil || c.req.Session == nil {
		return nil
	}
	return c.req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
		ProgressToken: tok, Progress: progress, Total: total, Message: message})
}

func (c *client) Log(ctx context.Context, level framework.ClientLogLevel, logger string, data any) error {
	if c.req != nil && c.req.Session == nil {
		return nil
	}
	if !loggingLevels[mcp.LoggingLevel(level)] {
		return fmt.Errorf("mcpexpose: %q is not an MCP log level", level)
	}
	if c.req == nil {
		return leanLog(level)
	}
	return c.req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: mcp.LoggingLevel(level), Logger: logger, Data: data})
}

func (c *client) Elicit(ctx context.Context, message string, schema json.RawMessage) (host.ElicitAnswer, error) {
	switch {
	case !c.d.stateful:
		return host.ElicitAnswer{}, fmt.Errorf("%w: the MCP door is stateless (set mcp.stateful: true to let tools ask the client)",
			framework.ErrElicitationUnavailable)
	case !c.streamOK:
		return host.ElicitAnswer{}, fmt.Errorf("%w: the call's Accept header does not allow text/event-stream",
			framework.ErrElicitationUnavailable)
	case c.req == nil || c.req.Session == nil:
		return host.ElicitAnswer{}, fmt.Errorf("%w: no MCP session", framework.ErrElicitationUnavailable)
	}
	if ip := c.req.Session.InitializeParams(); ip == nil || ip.Capabilities == nil || ip.Capabilities.Elicitation == nil {
		return host.ElicitAnswer{}, fmt.Errorf("%w: the client did not declare the elicitation capability",
			framework.ErrElicitationUnavailable)
	}
	var sch any
	if len(schema) > 0 {
		sch = schema
	}
	res, err := c.req.Session.Elicit(ctx, &mcp.ElicitParams{Message: message, RequestedSchema: sch})
	if err != nil {
		if ctx.Err() != nil {
			return host.ElicitAnswer{}, fmt.Errorf("elicitation: %w", ctx.Err())
		}
		return host.ElicitAnswer{}, fmt.Errorf("elicitation: %w", err)
	}
	ans := host.ElicitAnswer{Action: framework.ElicitAction(res.Action)}
	if res.Action == "accept" && res.Content != nil {
		b, err := json.Marshal(res.Content)
		if err != nil {
			return host.ElicitAnswer{}, fmt.Errorf("elicitation: %w", err)
		}
		ans.Content = b
	}
	return ans, nil
}

func (c *client) ConfirmTimeout() time.Duration { return c.d.confirmTimeout }
