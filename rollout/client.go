package rollout

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/internal/pyjson"
)

// DefaultRequestTimeout is how long one request of a rollout (the seed, a
// tool call, the verify, aggregate_metrics) may take, from sending it to the
// last byte of its answer, unless [ClientOptions.RequestTimeout] says
// otherwise: 10 minutes. A /verify that calls an LLM judge (NeMo's
// equivalence_llm_judge may ask it three times in a row, each a full
// generation on a busy model server) or a tool that runs code can take
// minutes; ten is well above that, and still ends a rollout whose server
// never answers.
const DefaultRequestTimeout = 10 * time.Minute

// DefaultMaxAnswerBytes is the largest answer body one request of a rollout
// may receive unless [ClientOptions.MaxAnswerBytes] says otherwise: 64 MiB.
// A /verify answer echoes its request, so it is about as large as the
// verify body, which an instance accepts up to max_body_bytes (16 MiB by
// default); 64 MiB is four times that. What a rollout holds for an answer
// is a small multiple of it (see the package documentation).
const DefaultMaxAnswerBytes = 64 << 20

// DefaultMaxAnswerValues is the most JSON values an answer the client
// parses may hold unless [ClientOptions.MaxAnswerValues] says otherwise:
// 4,000,000, twice an instance's max_json_elements default (a /verify
// answer echoes a request of up to 2,000,000 values and adds its own). An
// answer is also parsed at most 1000 levels deep (max_json_depth's
// default).
const DefaultMaxAnswerValues = 4_000_000

// MaxAnswerBytesLimit is the largest [ClientOptions.MaxAnswerBytes]: 1 GiB.
// An answer is held whole and parsed (see the package documentation for
// what a rollout holds at its peak), so a larger bound would bound nothing.
const MaxAnswerBytesLimit = 1 << 30

// reachTimeout bounds the first GET / of a run (see [Run]): a liveness
// answer needs no judge.
const reachTimeout = 30 * time.Second

// TimeoutError is a request that got no complete answer within the
// client's request timeout ([ClientOptions.RequestTimeout]); the rollout
// fails with the class [FailureTimeout].
type TimeoutError struct {
	// Route is the request: "POST /seed_session", "POST /get_weather",
	// "POST /mcp tools/call get_weather", "GET /".
	Route string
	// Timeout is the bound that was reached.
	Timeout time.Duration
}

// Error is "<Route>: no answer within <Timeout> (--request-timeout)".
func (e *TimeoutError) Error() string {
	return fmt.Sprintf("%s: no answer within %v (--request-timeout)", e.Route, e.Timeout)
}

// AnswerTooLargeError is an answer beyond the client's bounds: its body is
// larger than [ClientOptions.MaxAnswerBytes] (the client stops reading at
// the bound), or, parsed, it holds more JSON values than
// [ClientOptions.MaxAnswerValues] or nests deeper than 1000 levels (the
// parse stops there). The rollout fails with the class [FailureTooLarge].
type AnswerTooLargeError struct {
	// Route is the request, as in [TimeoutError].
	Route string
	// Max is the bound in bytes; 0 for a bound of values or depth.
	Max int64
	// Values is the bound of JSON values passed, or 0.
	Values int
	// Depth is the nesting bound passed, or 0.
	Depth int
}

// Error is "<Route>: the answer is larger than <Max> bytes
// (--max-answer-bytes)", "<Route>: the answer holds more than <Values>
// JSON values (--max-answer-values)" or "<Route>: the answer is nested
// deeper than <Depth> levels".
func (e *AnswerTooLargeError) Error() string {
	switch {
	case e.Values > 0:
		return fmt.Sprintf("%s: the answer holds more than %d JSON values (--max-answer-values)", e.Route, e.Values)
	case e.Depth > 0:
		return fmt.Sprintf("%s: the answer is nested deeper than %d levels of arrays and objects", e.Route, e.Depth)
	}
	return fmt.Sprintf("%s: the answer is larger than %d bytes (--max-answer-bytes)", e.Route, e.Max)
}

// RolloutError is a rollout that did not complete ([Client.Rollout]): its
// seed or verify failed or a request could not be made or answered.
type RolloutError struct {
	// Class is the failure's _ng_failure_class: [FailureSeed],
	// [FailureVerify], [FailureTransport], [FailureTimeout] or
	// [FailureTooLarge].
	Class string
	// Msg is the reason, as written to the failures file's
	// _ng_failure_error, e.g. "HTTP 422 from POST /seed_session: {...}".
	Msg string

	noMCP bool // the seed answer has no "mcp" key (the MCP door): see NoMCPError
}

// Error is "<Class>: <Msg>".
func (e *RolloutError) Error() string { return e.Class + ": " + e.Msg }

// Exchange is one step of a rollout as its client saw it: one request and
// its answer. [Client.Rollout] reports the seed, each tool call that was
// sent (a call whose arguments are not JSON is not sent, as in
// simple_agent) and the verify.
type Exchange struct {
	// Step is "seed_session", "verify", or the tool's name as called (the
	// bare name, without an mcp__<server>__ prefix).
	Step string
	// Route is the request: "POST /seed_session", "POST /<tool>",
	// "POST <url_path> tools/call <tool>" on the MCP door, "POST /verify".
	Route string
	// Request is the request body as sent (on the MCP door, the JSON-RPC
	// message).
	Request []byte
	// Status is the answer's HTTP status; 0 when there was no answer.
	Status int
	// Header holds the answer's headers (Content-Type, Set-Cookie, ...);
	// nil when there was no answer.
	Header http.Header
	// Body is the answer's body, whole; nil when there was no answer or it
	// could not be read whole.
	Body []byte
	// Err is why there is no complete answer: a *[TimeoutError], an
	// *[AnswerTooLargeError], or a transport error (connection refused or
	// reset, an MCP protocol failure). nil when the answer is complete,
	// whatever its status.
	Err error
}

// ClientOptions configure [NewClient].
type ClientOptions struct {
	// URL is the instance's base URL ("http://127.0.0.1:8000"). Required.
	URL string
	// Door is how tools are called: DoorHTTP (the default, "") or DoorMCP.
	Door Door
	// Instance is the instance's name, when known: the mcp__<instance>__
	// prefix stripped from recorded call names on the HTTP door (over MCP
	// the seed's server_name is used). "" strips any such prefix.
	Instance string
	// HTTPClient makes every request, both doors; nil means a pooled
	// client for DefaultConcurrency rollouts at once. Its Transport carries
	// the MCP requests too. The bounds below apply whatever the client.
	HTTPClient *http.Client
	// RequestTimeout bounds each request, from sending it to the last byte
	// of its answer; 0 means DefaultRequestTimeout. A negative value is
	// refused.
	RequestTimeout time.Duration
	// MaxAnswerBytes bounds each answer's body in bytes; 0 means
	// DefaultMaxAnswerBytes. A negative value, or one above
	// MaxAnswerBytesLimit, is refused.
	MaxAnswerBytes int64
	// MaxAnswerValues bounds the JSON values of each answer the client
	// parses (the seed, the verify, aggregate_metrics); 0 means
	// DefaultMaxAnswerValues. A negative value is refused.
	MaxAnswerValues int
	// Now is the clock of the response's created_at; nil means time.Now.
	Now func() time.Time
}

// Client runs rollouts against one instance without a model, as NeMo's
// agents do: seed, the row's tool calls through the door, verify (see the
// package documentation). Each request is bounded in time and answer size.
// Build it with [NewClient]; it is safe for concurrent use, one rollout
// per goroutine.
type Client struct {
	base    string // base URL without a trailing "/"
	door    Door
	server  string // the instance name when known (MCP prefix normalization)
	http    *http.Client
	mcp     *mcp.Client
	now     func() time.Time
	timeout time.Duration
	max     int64
	values  int // MaxAnswerValues
}

// NewClient returns a Client for opts. The error names an unknown door, a
// missing URL or a negative bound.
func NewClient(opts ClientOptions) (*Client, error) {
	switch {
	case opts.URL == "":
		return nil, errors.New("rollout: the client needs the instance's URL")
	case opts.Door != "" && opts.Door != DoorHTTP && opts.Door != DoorMCP:
		return nil, fmt.Errorf("rollout: unknown door %q: http or mcp", opts.Door)
	case opts.RequestTimeout < 0:
		return nil, fmt.Errorf("rollout: negative request timeout %v", opts.RequestTimeout)
	case opts.MaxAnswerBytes < 0:
		return nil, fmt.Errorf("rollout: negative answer bound %d", opts.MaxAnswerBytes)
	case opts.MaxAnswerBytes > MaxAnswerBytesLimit:
		return nil, fmt.Errorf("rollout: answer bound %d above MaxAnswerBytesLimit (%d)", opts.MaxAnswerBytes, int64(MaxAnswerBytesLimit))
	case opts.MaxAnswerValues < 0:
		return nil, fmt.Errorf("rollout: negative answer values bound %d", opts.MaxAnswerValues)
	}
	c := &Client{
		base:    strings.TrimRight(opts.URL, "/"),
		door:    opts.Door,
		server:  opts.Instance,
		http:    opts.HTTPClient,
		mcp:     mcp.NewClient(&mcp.Implementation{Name: "gymkit-rollout", Version: "1"}, nil),
		now:     opts.Now,
		timeout: opts.RequestTimeout,
		max:     opts.MaxAnswerBytes,
		values:  opts.MaxAnswerValues,
	}
	if c.door == "" {
		c.door = DoorHTTP
	}
	if c.http == nil {
		c.http = pooledClient(DefaultConcurrency)
	}
	if c.now == nil {
		c.now = time.Now
	}
	if c.timeout == 0 {
		c.timeout = DefaultRequestTimeout
	}
	if c.max == 0 {
		c.max = DefaultMaxAnswerBytes
	}
	if c.values == 0 {
		c.values = DefaultMaxAnswerValues
	}
	return c, nil
}

// parse reads an answer of route as a JSON document within the client's
// bounds of values and depth: only its top level when shallow (a lazy tree,
// pyjson.ParseLazyView: its nested arrays and objects stay spans of b,
// written out as the same bytes the whole tree would give; about the cost
// of its text, where a tree costs 72 bytes per JSON value), else the whole
// tree. A document beyond the bounds is an *AnswerTooLargeError; a syntax
// error is returned as is. A shallow value never leaves the package
// (pyjson.Materialize before it does).
func (c *Client) parse(route string, b []byte, shallow bool) (framework.Value, error) {
	lim := c.limits()
	var v framework.Value
	var err error
	if shallow {
		v, err = pyjson.ParseLazyView(b, lim)
	} else {
		v, err = pyjson.ParseLimited(b, lim)
	}
	return v, c.beyond(route, err)
}

// limits are the client's bounds of a parse.
func (c *Client) limits() pyjson.Limits {
	return pyjson.Limits{MaxDepth: pyjson.MaxDepth, MaxElements: c.values}
}

// beyond turns a parse's failure past the client's bounds into an
// *AnswerTooLargeError; any other error is returned as is.
func (c *Client) beyond(route string, err error) error {
	switch {
	case errors.Is(err, pyjson.ErrTooManyElements):
		return &AnswerTooLargeError{Route: route, Values: c.values}
	case errors.Is(err, pyjson.ErrTooDeep):
		return &AnswerTooLargeError{Route: route, Depth: pyjson.MaxDepth}
	}
	return err
}

// Rollout runs one rollout of row, a row as NeMo's collector materializes
// it (see [ReadRows]): POST /seed_session with the row, the row's calls in
// order through the door, POST /verify. pos numbers the rollout within its
// run: the response's id is resp_gymkit_<pos> and the calls' ids are
// fc_gymkit_<pos>_<n>. observe, when not nil, is called with each step's
// [Exchange] as soon as it is complete, in order, on the calling goroutine.
//
// The result is the verify answer. A tool's error answer is an output, not
// a failure; the error is a *[RolloutError] when the seed or verify answer
// is not a 2xx JSON object or a request got no complete answer (the
// rollout stops at that step).
func (c *Client) Rollout(ctx context.Context, pos int, row framework.Value, observe func(Exchange)) (framework.Value, error) {
	o := c.run(ctx, pos, row, observe, false)
	if o.failed != nil {
		return framework.Value{}, o.failed
	}
	return pyjson.Materialize(o.verified), nil
}

// Replay is [Client.Rollout] for a caller that reads the exchanges, not the
// verify answer's value (gymkit compare): the same requests, the same
// error, without building the answer's tree (a verify answer of many small
// values costs about 36 times its size as a tree).
func (c *Client) Replay(ctx context.Context, pos int, row framework.Value, observe func(Exchange)) error {
	if o := c.run(ctx, pos, row, observe, true); o.failed != nil {
		return o.failed
	}
	return nil
}

// Reach makes one GET / to the instance, within the request timeout or 30
// seconds, whichever is shorter: any HTTP answer, whatever its status,
// means the instance is there. The error is an *[UnreachableError].
func (c *Client) Reach(ctx context.Context) error {
	return reach(ctx, c.http, c.base, min(c.timeout, reachTimeout))
}

// classOf is the failure class of an Exchange's error.
func classOf(err error) string {
	var te *TimeoutError
	var le *AnswerTooLargeError
	switch {
	case errors.As(err, &te):
		return FailureTimeout
	case errors.As(err, &le):
		return FailureTooLarge
	}
	return FailureTransport
}

// post sends a JSON body to path with the jar's cookies, within the
// client's bounds, and updates the jar from the answer (when there is
// one). The Exchange's Err is set when there is no complete answer.
func (c *Client) post(ctx context.Context, jar *cookies, step, path string, body []byte) Exchange {
	route := "POST " + path
	ex := Exchange{Step: step, Route: route, Request: body}
	rctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, c.base+path, bytes.NewReader(body))
	if err != nil {
		ex.Err = fmt.Errorf("%s: %w", route, err)
		return ex
	}
	req.Header.Set("Content-Type", "application/json")
	if jar.header != "" {
		req.Header.Set("Cookie", jar.header)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		ex.Err = c.bounded(ctx, rctx, route, err, "")
		return ex
	}
	defer resp.Body.Close()
	ex.Status, ex.Header = resp.StatusCode, resp.Header
	jar.update(resp)
	ex.Body, ex.Err = c.readAnswer(ctx, rctx, route, resp)
	return ex
}

// check is parse without the value: the kind of the document's root, or
// the error parse would return, at the cost of a scan.
func (c *Client) check(route string, b []byte) (framework.Kind, error) {
	k, err := pyjson.CheckKind(b, c.limits())
	return k, c.beyond(route, err)
}

// readAnswer reads a whole answer body of at most c.max bytes: into one
// buffer of its Content-Length when it has one (not io.ReadAll's doublings,
// which hold up to twice the body), else growing.
func (c *Client) readAnswer(ctx, rctx context.Context, route string, resp *http.Response) ([]byte, error) {
	if resp.ContentLength > c.max {
		return nil, &AnswerTooLargeError{Route: route, Max: c.max}
	}
	var b []byte
	var err error
	if n := resp.ContentLength; n >= 0 {
		b = make([]byte, n)
		_, err = io.ReadFull(resp.Body, b)
		if err == nil {
			// net/http fails a body longer than its Content-Length; one
			// that ends early is io.ErrUnexpectedEOF above.
			var one [1]byte
			if k, _ := resp.Body.Read(one[:]); k > 0 {
				err = errors.New("the answer is longer than its Content-Length")
			}
		}
	} else {
		b, err = readUnsized(resp.Body, c.max+1)
	}
	if err != nil {
		return nil, c.bounded(ctx, rctx, route, err, "reading the answer: ")
	}
	if int64(len(b)) > c.max {
		return nil, &AnswerTooLargeError{Route: route, Max: c.max}
	}
	return b, nil
}

// readUnsized reads r to its end, or to limit bytes, for an answer without
// a Content-Length: into chunks that double in size up to 4 MiB, joined
// into one buffer of the exact size at the end, so that it holds at most
// about twice what it read, at the join (io.ReadAll's growing copies hold
// up to three times), and an answer cut at limit never more than limit.
func readUnsized(r io.Reader, limit int64) ([]byte, error) {
	var chunks [][]byte
	size, total := 64<<10, int64(0)
	for total < limit {
		buf := make([]byte, min(int64(size), limit-total))
		n, err := io.ReadFull(r, buf)
		chunks = append(chunks, buf[:n])
		total += int64(n)
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		size = min(2*size, 4<<20)
	}
	if len(chunks) == 1 {
		return chunks[0], nil
	}
	out := make([]byte, 0, total)
	for _, ch := range chunks {
		out = append(out, ch...)
	}
	return out, nil
}

// bounded turns err, a failure of a request made under rctx (ctx with the
// request timeout), into a *TimeoutError when the timeout ended it (and
// not ctx), else "<route>: <what><err>".
func (c *Client) bounded(ctx, rctx context.Context, route string, err error, what string) error {
	if errors.Is(rctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		return &TimeoutError{Route: route, Timeout: c.timeout}
	}
	return fmt.Errorf("%s: %s%w", route, what, err)
}

// mcpTransport is the HTTP transport of one rollout's MCP session: it adds
// the seed's headers (the session token) to every request, bounds each
// request in time and answer size, and keeps the answer of the last
// tools/call for its Exchange. The go-sdk client reads answers on its own
// goroutines and does not wrap transport errors, so a bound's failure is
// also kept here, for the door to report.
type mcpTransport struct {
	c      *Client
	path   string // the MCP endpoint's path, for routes
	header http.Header

	mu     sync.Mutex
	failed error    // the first bound failure (*TimeoutError, *AnswerTooLargeError)
	last   *capture // the answer of the last tools/call
}

// capture is a tools/call answer as it is read.
type capture struct {
	request []byte
	status  int
	header  http.Header
	mu      sync.Mutex
	body    bytes.Buffer
	err     error
}

func (t *mcpTransport) fail(err error) error {
	t.mu.Lock()
	if t.failed == nil {
		t.failed = err
	}
	t.mu.Unlock()
	return err
}

// failure returns the first bound failure, if any.
func (t *mcpTransport) failure() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.failed
}

// take returns and forgets the last tools/call answer.
func (t *mcpTransport) take() *capture {
	t.mu.Lock()
	defer t.mu.Unlock()
	cp := t.last
	t.last = nil
	return cp
}

func (t *mcpTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	var body []byte
	if r.Body != nil {
		b, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	var msg struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	_ = json.Unmarshal(body, &msg)
	route := r.Method + " " + t.path
	if msg.Method != "" {
		route += " " + msg.Method
	}
	if msg.Method == "tools/call" {
		route += " " + msg.Params.Name
	}

	ctx := r.Context()
	rctx, cancel := context.WithTimeout(ctx, t.c.timeout)
	r = r.Clone(rctx)
	for k, vs := range t.header {
		r.Header[k] = vs
	}
	if body != nil {
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		r.ContentLength = int64(len(body))
	}
	base := t.c.http.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	resp, err := base.RoundTrip(r)
	if err != nil {
		err = t.c.bounded(ctx, rctx, route, err, "")
		cancel()
		var te *TimeoutError
		if errors.As(err, &te) {
			t.fail(err)
		}
		return nil, err
	}
	if resp.ContentLength > t.c.max {
		resp.Body.Close()
		cancel()
		return nil, t.fail(&AnswerTooLargeError{Route: route, Max: t.c.max})
	}
	bb := &boundedBody{t: t, rc: resp.Body, ctx: ctx, rctx: rctx, cancel: cancel, route: route, left: t.c.max}
	if msg.Method == "tools/call" {
		bb.cp = &capture{request: body, status: resp.StatusCode, header: resp.Header}
		t.mu.Lock()
		t.last = bb.cp
		t.mu.Unlock()
	}
	resp.Body = bb
	return resp, nil
}

// boundedBody is an MCP answer's body: at most the client's bound is read,
// the request's timeout covers the reading, and a tools/call answer is
// copied into its capture.
type boundedBody struct {
	t         *mcpTransport
	rc        io.ReadCloser
	ctx, rctx context.Context
	cancel    context.CancelFunc
	route     string
	left      int64 // bytes that may still be read
	cp        *capture
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.rc.Read(p)
	if int64(n) > b.left {
		n = int(b.left)
		err = b.t.fail(&AnswerTooLargeError{Route: b.route, Max: b.t.c.max})
	}
	b.left -= int64(n)
	if err != nil && !errors.Is(err, io.EOF) {
		var le *AnswerTooLargeError
		if !errors.As(err, &le) {
			err = b.t.c.bounded(b.ctx, b.rctx, b.route, err, "reading the answer: ")
			var te *TimeoutError
			if errors.As(err, &te) {
				b.t.fail(err)
			}
		}
	}
	if b.cp != nil {
		b.cp.mu.Lock()
		b.cp.body.Write(p[:n])
		if err != nil && !errors.Is(err, io.EOF) {
			b.cp.err = err
		}
		b.cp.mu.Unlock()
	}
	return n, err
}

func (b *boundedBody) Close() error {
	b.cancel()
	return b.rc.Close()
}

// exchange is the Exchange of a tools/call answer as read so far.
func (cp *capture) exchange(step, route string) Exchange {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	return Exchange{Step: step, Route: route, Request: cp.request, Status: cp.status, Header: cp.header,
		Body: bytes.Clone(cp.body.Bytes()), Err: cp.err}
}
