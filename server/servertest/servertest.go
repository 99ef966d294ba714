// Package servertest runs gymkit instances in tests, through real HTTP.
//
//	ts := servertest.New(t, new(examplemcpweather.Weather), servertest.Options{})
//	ro := ts.Rollout()                                  // one rollout's cookie jar, NeMo-style
//	ro.Post("/seed_session", `{}`)
//	res := ro.Post("/get_weather", `{"city":"Paris"}`)
//	// res.Status == 200, string(res.Body) == `{"weather":"The weather in Paris is sunny and 72 F."}`
//
// With Options.MCP, the same rollout over MCP (the go-sdk client, bound to
// the seed's session token):
//
//	ro.Post("/seed_session", `{}`)
//	res := ro.MCP().CallTool("get_weather", map[string]any{"city": "Paris"})
//	// res.IsError == false, res.Text == `{"weather":"The weather in Paris is sunny and 72 F."}`
package servertest

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/server"
)

// Options configure [New].
type Options struct {
	// Name is the instance name; "" uses the server type.
	Name string
	// ServerType is the registered type name used for the cookie; "" means
	// "test".
	ServerType string
	// MCP serves the tools over MCP at /mcp too, as expose_tools_over_mcp:
	// true does (the seed answer then carries the "mcp" key and token).
	MCP bool
	// Config is YAML for the instance's server block: the lines that would
	// sit under resources_servers.<type> in an instance config, the
	// server's own keys ("max_guesses: 3") and the framework's alike
	// ("max_body_bytes: 4096", "mcp: {stateful: true}"). New loads it with
	// the config package exactly as gymkit serve loads a file: the
	// framework keys over their defaults (config.Defaults), the server's
	// keys decoded strictly into the server value (config.Instance.Decode;
	// an absent key keeps the value srv holds, or its field's default
	// tag); a problem fails the test, located as
	// "servertest.Options.Config:<line>" (its line plus 4). domain is other;
	// session_secret is a fixed test secret and expose_tools_over_mcp is
	// MCP unless Config sets them. A relative config.Path value resolves
	// against the process's working directory, which under go test is the
	// package's folder: for an environment, servers/<type>/, the folder its
	// servers/<type>/configs/<type>.yaml resolves against too, so a
	// relative path names the same file here as under gymkit serve (see
	// config.Path). Nothing else is read: no env.yaml, no config_paths.
	// Empty: every key takes its default.
	Config string
	// Logger receives the instance's logs (each tool call's INFO line,
	// request errors, recovered panics), as server.InstanceOptions.Logger.
	// Nil: slog's default logger (stderr). Quiet a test with
	// slog.New(slog.DiscardHandler), or keep the lines with the test's
	// output through a handler writing to t.Output().
	Logger *slog.Logger
}

// Server is a started instance.
type Server struct {
	*httptest.Server
	Instance *server.Instance
	t        testing.TB
}

// New builds srv as an instance, from its configuration as gymkit serve
// builds one (see [Options.Config]), and serves it on a loopback
// httptest.Server, closed when the test ends. A configuration problem or a
// build error fails the test.
func New(t testing.TB, srv framework.Server, opts Options) *Server {
	t.Helper()
	if opts.ServerType == "" {
		opts.ServerType = "test"
	}
	if opts.Name == "" {
		opts.Name = opts.ServerType
	}
	cfg := loadConfig(t, srv, opts)
	inst, err := server.NewInstance(context.Background(), srv, cfg, server.InstanceOptions{Logger: opts.Logger})
	if err != nil {
		t.Fatalf("servertest: %v", err)
	}
	ts := httptest.NewServer(inst.Handler())
	t.Cleanup(ts.Close)
	return &Server{Server: ts, Instance: inst, t: t}
}

// testSecret signs a test instance's cookies and tokens: a fixed secret,
// so that tests see no per-process secret warning.
const testSecret = "servertest-secret-0123456789abcdef0123"

// loadConfig loads opts.Config as the one instance of a configuration
// given as config.LoadOptions.Dict, so that relative paths resolve
// against the working directory and no file is read, and decodes the
// server's keys into srv.
func loadConfig(t testing.TB, srv framework.Server, opts Options) config.Instance {
	t.Helper()
	var b strings.Builder
	b.WriteString(opts.Name + ":\n  resources_servers:\n    " + opts.ServerType + ":\n      domain: other\n")
	for _, line := range strings.Split(opts.Config, "\n") {
		b.WriteString("      " + line + "\n")
	}
	sets := func(keys ...string) bool {
		return slices.ContainsFunc(keys, func(k string) bool {
			return regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(k) + `\s*:`).MatchString(opts.Config)
		})
	}
	if !sets("session_secret", "mcp_token_secret") {
		b.WriteString("      session_secret: " + testSecret + "\n")
	}
	if opts.MCP && !sets("expose_tools_over_mcp") {
		b.WriteString("      expose_tools_over_mcp: true\n")
	}
	cfg, err := config.Load(config.LoadOptions{Dict: []byte(b.String()), DictName: "servertest.Options.Config", Instance: opts.Name,
		LookupEnv: os.LookupEnv, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("servertest: %v", err) // config's errors start with "config: "
	}
	inst, ok := cfg.Instance(opts.Name)
	if !ok {
		t.Fatalf("servertest: config: no instance %q", opts.Name)
	}
	if err := inst.Decode(srv); err != nil {
		t.Fatalf("servertest: %v", err) // config's errors start with "config: "
	}
	return inst
}

// Response is one HTTP answer.
type Response struct {
	Status int         // the HTTP status code, e.g. 200
	Header http.Header // the response headers
	Body   []byte      // the whole body, read before the call returned
}

// SetCookies returns the response's Set-Cookie header values.
func (r *Response) SetCookies() []string { return r.Header.Values("Set-Cookie") }

// JSON decodes the body into a generic value (encoding/json), failing the test
// on error.
func (r *Response) JSON(t testing.TB) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(r.Body, &v); err != nil {
		t.Fatalf("servertest: body %q is not JSON: %v", r.Body, err)
	}
	return v
}

// Rollout is one rollout's client: it sends its cookie with every request and
// replaces it with every response's Set-Cookie, as NeMo's simple_agent does
// (contract b): an answer without one, such as Python's unhandled-exception
// 500, empties the jar, so the next request starts a new session, exactly as
// a NeMo agent's would (nemo-gym-peer/workplace_assistant.jsonl, "unhandled
// 500 mid-rollout, then the next call"). Safe for concurrent use.
//
// A successful POST /seed_session answer's MCP session token is kept too
// ([Rollout.Token]), and [Rollout.MCP] is a go-sdk client bound to it.
type Rollout struct {
	s      *Server
	mu     sync.Mutex
	cookie string // "name=value" or ""
	mcpState
}

// Rollout returns a new client without a cookie.
func (s *Server) Rollout() *Rollout { return &Rollout{s: s} }

// Cookie returns the current "name=value" cookie ("" before any response
// and after a response without Set-Cookie).
func (r *Rollout) Cookie() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cookie
}

// Post sends body (a string or []byte sent as is, anything else encoded with
// encoding/json) with Content-Type application/json.
func (r *Rollout) Post(path string, body any) *Response {
	return r.Do("POST", path, map[string]string{"Content-Type": "application/json"}, body)
}

// Do sends one request with the given headers and body (nil for none).
func (r *Rollout) Do(method, path string, headers map[string]string, body any) *Response {
	t := r.s.t
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		enc, err := json.Marshal(b)
		if err != nil {
			t.Fatalf("servertest: encoding body: %v", err)
		}
		rd = bytes.NewReader(enc)
	}
	req, err := http.NewRequest(method, r.s.URL+path, rd)
	if err != nil {
		t.Fatalf("servertest: %v", err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	if c := r.Cookie(); c != "" {
		req.Header.Set("Cookie", c)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("servertest: %s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("servertest: reading %s %s: %v", method, path, err)
	}
	nv := ""
	if sc := resp.Header.Values("Set-Cookie"); len(sc) > 0 {
		nv, _, _ = strings.Cut(sc[len(sc)-1], ";")
	}
	r.mu.Lock()
	r.cookie = nv
	r.mu.Unlock()
	res := &Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
	r.noteSeed(path, res)
	return res
}

var hostPort = regexp.MustCompile(`^http://(127\.0\.0\.1|localhost|\[::1\]):\d+`)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// Golden compares got with the file testdata/<name> (relative to the test's
// package directory) and fails the test on a difference; with -update it
// rewrites the file instead.
func Golden(t testing.TB, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden %s: %v (run with -update to create it)", path, err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("golden %s differs (run with -update after checking):\n--- want\n%s\n--- got\n%s", path, want, got)
	}
}

// Exchange renders a request and its response as golden text: the request
// line, its headers and body, then the status, the number of Set-Cookie
// headers, selected response headers (Content-Type, Allow, Location, Vary)
// and the exact body.
func Exchange(method, path string, reqHeaders map[string]string, reqBody string, res *Response) []byte {
	var b bytes.Buffer
	b.WriteString(method + " " + path + "\n")
	for _, k := range sortedKeys(reqHeaders) {
		b.WriteString(k + ": " + reqHeaders[k] + "\n")
	}
	b.WriteString("\n" + reqBody + "\n--- response\n")
	b.WriteString(http.StatusText(res.Status) + " " + itoa(res.Status) + "\n")
	b.WriteString("Set-Cookie count: " + itoa(len(res.SetCookies())) + "\n")
	for _, h := range []string{"Content-Type", "Allow", "Location", "Vary"} {
		if v := strings.Join(res.Header.Values(h), ", "); v != "" {
			v = hostPort.ReplaceAllString(v, "http://HOST")
			b.WriteString(h + ": " + v + "\n")
		}
	}
	b.WriteString("\n")
	b.Write(res.Body)
	b.WriteString("\n")
	return b.Bytes()
}

func itoa(n int) string { return strconv.Itoa(n) }

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
