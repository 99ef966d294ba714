package server_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/config/configtest"
	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/framework/host"
	"github.com/gymkit/gymkit/internal/testkit/syncbuf"
	"github.com/gymkit/gymkit/server"
)

// gatedType is a test server type: POST /wait closes its gate's started
// channel, then waits for release (or the request's end).
const gatedType = "server_test_gated"

func init() { framework.Register(gatedType, func() framework.Server { return new(gated) }) }

type gated struct {
	framework.Base
	Gate string `koanf:"gate"` // a key of gates
}

type gate struct {
	started, release chan struct{}
	canceled         chan struct{} // closed when the request's context is done before release
	once, cancelOnce sync.Once
}

var gates sync.Map // gate name -> *gate

// newGate registers a gate for the test and returns its name.
func newGate(t *testing.T) (string, *gate) {
	g := &gate{started: make(chan struct{}), release: make(chan struct{}), canceled: make(chan struct{})}
	gates.Store(t.Name(), g)
	t.Cleanup(func() { gates.Delete(t.Name()) })
	return t.Name(), g
}

type waitResponse struct {
	Done bool `json:"done"`
}

func (s *gated) Routes(r *framework.Router) {
	framework.Post(r, "/wait", func(ctx context.Context, _ framework.NoBody) (waitResponse, error) {
		v, ok := gates.Load(s.Gate)
		if !ok {
			return waitResponse{Done: true}, nil
		}
		g := v.(*gate)
		g.once.Do(func() { close(g.started) })
		select {
		case <-g.release:
			return waitResponse{Done: true}, nil
		case <-ctx.Done():
			g.cancelOnce.Do(func() { close(g.canceled) })
			return waitResponse{}, ctx.Err()
		}
	})
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{Reward: 1}, nil
	})
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer = syncbuf.Buffer

// writeConfig writes a config file with one instance of gatedType named
// name, with the extra lines of its server block, and returns its path.
func writeConfig(t *testing.T, name string, block ...string) string {
	t.Helper()
	text := name + ":\n  resources_servers:\n    " + gatedType + ":\n      domain: other\n"
	for _, l := range block {
		text += "      " + l + "\n"
	}
	p := filepath.Join(t.TempDir(), "gymkit.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func holdPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().(*net.TCPAddr).Port
}

func post(t *testing.T, client *http.Client, url, body string) (*http.Response, string) {
	t.Helper()
	resp, err := client.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// NewInstance serves with the configuration as given: config.Defaults()'s
// values, or the configuration's own; one without its defaults (a zero
// limit) is refused, not defaulted again.
func TestNewInstanceDefaultsFromConfig(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		name string
		cfg  config.Instance
		want int64
	}{
		{"default", configtest.Named(config.Defaults(), "a", gatedType), config.DefaultMaxBodyBytes},
		{"from config", configtest.Over(config.Instance{Name: "a", ServerType: gatedType, MaxBodyBytes: 100}), 100},
	}
	for _, tt := range tests {
		in, err := server.NewInstance(ctx, new(gated), tt.cfg, server.InstanceOptions{})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if in.Name != "a" || in.ServerType != gatedType || in.Config.MaxBodyBytes != tt.want || in.Sessions.CookieName() != gatedType+"___a" {
			t.Errorf("%s: instance %q %q limit %d cookie %q, want a %s %d %s___a",
				tt.name, in.Name, in.ServerType, in.Config.MaxBodyBytes, in.Sessions.CookieName(), gatedType, tt.want, gatedType)
		}
	}
	if _, err := server.NewInstance(ctx, new(gated), configtest.Named(config.Defaults(), "a", ""), server.InstanceOptions{}); err == nil {
		t.Error("NewInstance without a server type: no error")
	}
	bare := config.Instance{Name: "a", ServerType: gatedType} // not from config.Load nor config.Defaults()
	if _, err := server.NewInstance(ctx, new(gated), bare, server.InstanceOptions{}); err == nil || !strings.Contains(err.Error(), "max_body_bytes is not positive") {
		t.Errorf("NewInstance with a zero max_body_bytes: %v, want it refused", err)
	}
}

// An extension sets framework hooks before the build, mounts a route beside
// the instance's routes (inside the body limit and the session layer), and
// announces it.
func TestExtension(t *testing.T) {
	t.Parallel()
	var configured, mounted *server.Instance
	ext := server.Extension{
		Name: "door",
		Configure: func(inst *server.Instance, fo *host.Options) error {
			configured = inst
			if inst.App != nil || fo.Name != "ext" {
				t.Errorf("Configure: App %v, framework options name %q; want nil and ext", inst.App, fo.Name)
			}
			fo.AfterSeed = func(_ context.Context, body *framework.SeedBody, result []byte) ([]byte, error) {
				return []byte(`{"door":` + strconv.Quote(string(result)) + `}`), nil
			}
			return nil
		},
		Mount: func(inst *server.Instance, next http.Handler) (http.Handler, error) {
			mounted = inst
			inst.Announce("extra", "/extra")
			mux := http.NewServeMux()
			mux.HandleFunc("POST /extra", func(w http.ResponseWriter, r *http.Request) {
				b, err := io.ReadAll(r.Body)
				if err != nil {
					http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
					return
				}
				fmt.Fprintf(w, "extra %d", len(b))
			})
			mux.Handle("/", next)
			return mux, nil
		},
	}
	in, err := server.NewInstance(context.Background(), new(gated), configtest.Over(config.Instance{Name: "ext", ServerType: gatedType, MaxBodyBytes: 8}), server.InstanceOptions{Extensions: []server.Extension{ext}})
	if err != nil {
		t.Fatal(err)
	}
	if configured != in || mounted != in || in.App == nil || in.Sessions == nil {
		t.Errorf("the extension got %p and %p, want the instance %p with its App and Sessions", configured, mounted, in)
	}
	if got := in.Endpoints(); len(got) != 1 || got[0] != (server.Endpoint{Name: "extra", Path: "/extra"}) {
		t.Errorf("Endpoints() = %v", got)
	}
	ts := httptest.NewServer(in.Handler())
	defer ts.Close()
	for _, tc := range []struct{ path, body, want string }{
		{"/extra", "1234", "extra 4"},
		{"/wait", "{}", `{"done":true}`},
		{"/seed_session", "{}", `{"door":"{}"}`},
		{"/extra", "123456789", `{"detail":"Request body too large: limit is 8 bytes"}`},
	} {
		resp, got := post(t, ts.Client(), ts.URL+tc.path, tc.body)
		if got != tc.want || len(resp.Header.Values("Set-Cookie")) != 1 {
			t.Errorf("POST %s %q = %q with %d Set-Cookie, want %q with 1", tc.path, tc.body, got, len(resp.Header.Values("Set-Cookie")), tc.want)
		}
	}

	for _, bad := range []server.Extension{
		{Name: "closed", Configure: func(*server.Instance, *host.Options) error { return errors.New("no door today") }},
		{Name: "closed", Mount: func(*server.Instance, http.Handler) (http.Handler, error) { return nil, errors.New("no door today") }},
	} {
		_, err = server.NewInstance(context.Background(), new(gated), configtest.Named(config.Defaults(), "ext", gatedType), server.InstanceOptions{Extensions: []server.Extension{bad}})
		if want := `instance "ext" (server type "` + gatedType + `"): extension "closed": no door today`; err == nil || err.Error() != want {
			t.Errorf("NewInstance with a failing extension: %v, want %s", err, want)
		}
	}
}

// waitForText polls buf until it contains a line matching re.
func waitForText(t *testing.T, buf *syncBuffer, re *regexp.Regexp) []string {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		if m := re.FindStringSubmatch(buf.String()); m != nil {
			return m
		}
	}
	t.Fatalf("no match for %s in %q", re, buf.String())
	return nil
}

// Serve prints the ready line once the instance serves, logs each request,
// and on cancellation stops accepting connections and lets the request in
// flight finish.
func TestHostServeAndDrain(t *testing.T) {
	t.Parallel()
	gateName, g := newGate(t)
	var ready, logs syncBuffer
	announce := server.Extension{Name: "announce", Mount: func(inst *server.Instance, next http.Handler) (http.Handler, error) {
		inst.Announce("extra", "/extra")
		return next, nil
	}}
	h, err := server.New(context.Background(), server.Options{
		Files:      []string{writeConfig(t, "gated", "gate: "+strconv.Quote(gateName))},
		WorkDir:    t.TempDir(),
		Logger:     slog.New(slog.NewTextHandler(&logs, nil)),
		Ready:      &ready,
		Extensions: []server.Extension{announce},
	})
	if err != nil {
		t.Fatal(err)
	}
	ins := h.Instances()
	if len(ins) != 1 || !strings.HasPrefix(ins[0].URL(), "http://127.0.0.1:") || ins[0].Config.Port == 0 {
		t.Fatalf("Instances() = %v", ins)
	}
	url := ins[0].URL()
	if ready.String() != "" {
		t.Errorf("ready line %q before Serve", ready.String())
	}

	ctx, cancel := context.WithCancelCause(context.Background())
	served := make(chan error, 1)
	go func() { served <- h.Serve(ctx) }()
	line := regexp.MustCompile(`^gated (http://127\.0\.0\.1:\d+) extra=(http://127\.0\.0\.1:\d+)/extra\n$`)
	m := waitForText(t, &ready, line)
	if m[1] != url || m[2] != url {
		t.Errorf("ready line %q, want the URL %s", ready.String(), url)
	}

	client := &http.Client{}
	resp, body := post(t, client, url+"/ng-rollout/run-1/seed_session", `{}`)
	if resp.StatusCode != 200 || body != "{}" {
		t.Errorf("seed = %d %s", resp.StatusCode, body)
	}
	waitForText(t, &logs, regexp.MustCompile(`level=INFO msg=request instance=gated method=POST path=/ng-rollout/run-1/seed_session status=200 bytes=2 duration=\S+\n`))

	type answer struct {
		status int
		body   string
		err    error
	}
	done := make(chan answer, 1)
	go func() {
		resp, err := client.Post(url+"/wait", "application/json", strings.NewReader(`{}`))
		if err != nil {
			done <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		done <- answer{resp.StatusCode, string(b), err}
	}()
	<-g.started
	cancel(errors.New("test says stop"))
	host := strings.TrimPrefix(url, "http://")
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(2 * time.Millisecond) {
		c, err := net.Dial("tcp", host)
		if err != nil {
			break
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("still accepting connections after the context was canceled")
		}
	}
	select {
	case err := <-served:
		t.Fatalf("Serve returned %v before the request in flight finished", err)
	default:
	}
	close(g.release)
	if a := <-done; a.err != nil || a.status != 200 || a.body != `{"done":true}` {
		t.Errorf("the request in flight got %d %s (%v)", a.status, a.body, a.err)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve = %v, want nil after a complete drain", err)
	}
	if !strings.Contains(logs.String(), `cause="test says stop"`) || !strings.Contains(logs.String(), "msg=stopped") {
		t.Errorf("logs:\n%s", logs.String())
	}
	if err := h.Serve(context.Background()); err == nil {
		t.Error("a second Serve: no error")
	}
}

// A request that outlasts the drain timeout is cut off and Serve says so.
func TestHostDrainTimeout(t *testing.T) {
	t.Parallel()
	gateName, g := newGate(t)
	defer close(g.release)
	var ready syncBuffer
	h, err := server.New(context.Background(), server.Options{
		Files:        []string{writeConfig(t, "gated", "gate: "+strconv.Quote(gateName))},
		WorkDir:      t.TempDir(),
		Logger:       slog.New(slog.DiscardHandler),
		Ready:        &ready,
		DrainTimeout: 20 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- h.Serve(ctx) }()
	failed := make(chan error, 1)
	go func() {
		resp, err := http.Post(h.Instances()[0].URL()+"/wait", "application/json", strings.NewReader("{}"))
		if err == nil {
			resp.Body.Close()
		}
		failed <- err
	}()
	<-g.started
	cancel()
	if err := <-served; err == nil || !strings.Contains(err.Error(), "drain timeout") || !strings.Contains(err.Error(), "gated") {
		t.Errorf("Serve = %v, want a drain timeout naming the instance", err)
	}
	if err := <-failed; err == nil {
		t.Error("the request cut off by the drain timeout got an answer")
	}
}

// With StopAtOnce, a canceled context stops Serve without a drain: it
// returns nil while the requests in flight of two instances are still
// blocked in their handlers, their clients get no answer, their contexts are
// canceled, each is logged once as cut (instance, method, path) and never
// as an answered request, and the ports no longer accept connections.
func TestHostStopAtOnce(t *testing.T) {
	t.Parallel()
	nameA, gA := newGate(t)
	gB := &gate{started: make(chan struct{}), release: make(chan struct{}), canceled: make(chan struct{})}
	nameB := t.Name() + "/b"
	gates.Store(nameB, gB)
	t.Cleanup(func() { gates.Delete(nameB) })
	defer close(gA.release)
	defer close(gB.release)
	text := ""
	for _, in := range []struct{ name, gate string }{{"a", nameA}, {"b", nameB}} {
		text += in.name + ":\n  resources_servers:\n    " + gatedType + ":\n      domain: other\n      gate: " + strconv.Quote(in.gate) + "\n"
	}
	cfg := filepath.Join(t.TempDir(), "two.yaml")
	if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var ready, logs syncBuffer
	h, err := server.New(context.Background(), server.Options{
		Files: []string{cfg}, WorkDir: t.TempDir(),
		Logger: slog.New(slog.NewTextHandler(&logs, nil)), Ready: &ready,
		DrainTimeout: time.Hour, ReadyDrainDelay: time.Hour, // not used when stopping at once
		StopAtOnce: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	served := make(chan error, 1)
	go func() { served <- h.Serve(ctx) }()
	waitForText(t, &ready, regexp.MustCompile(`(?m)^b http://`))
	urlA, urlB := h.Instances()[0].URL(), h.Instances()[1].URL()

	if resp, body := post(t, http.DefaultClient, urlA+"/seed_session", `{}`); resp.StatusCode != 200 || body != "{}" {
		t.Errorf("seed = %d %s", resp.StatusCode, body)
	}
	waitForText(t, &logs, regexp.MustCompile(`msg=request instance=a method=POST path=/seed_session status=200 `))
	answers := make(chan error, 2)
	for _, u := range []string{urlA + "/wait", urlB + "/ng-rollout/r1/wait"} {
		go func() {
			resp, err := http.Post(u, "application/json", strings.NewReader(`{}`))
			if err == nil {
				resp.Body.Close()
				err = fmt.Errorf("answered %d", resp.StatusCode)
			} else {
				err = nil
			}
			answers <- err
		}()
	}
	<-gA.started
	<-gB.started
	cancel(errors.New("test says stop"))
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve = %v, want nil", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Serve did not return while requests were in flight")
	}
	for range 2 {
		if err := <-answers; err != nil {
			t.Errorf("a request in flight: %v, want no answer", err)
		}
	}
	<-gA.canceled // the handlers' contexts are canceled
	<-gB.canceled
	for _, u := range []string{urlA, urlB} {
		if c, err := net.Dial("tcp", strings.TrimPrefix(u, "http://")); err == nil {
			c.Close()
			t.Errorf("%s still accepts connections after Serve returned", u)
		}
	}
	// The handlers have returned (or are about to): their "request" records
	// would come now; give them a moment to show up.
	time.Sleep(50 * time.Millisecond)
	out := logs.String()
	for _, want := range []string{
		`level=INFO msg="stopping at once: no new connections; the requests in flight are cut" cause="test says stop"`,
		`level=WARN msg="request cut" instance=a method=POST path=/wait duration=`,
		`level=WARN msg="request cut" instance=b method=POST path=/ng-rollout/r1/wait duration=`,
		`level=INFO msg=stopped`,
	} {
		if strings.Count(out, want) != 1 {
			t.Errorf("logs hold %q %d times, want once:\n%s", want, strings.Count(out, want), out)
		}
	}
	if strings.Contains(out, "msg=request instance=a method=POST path=/wait") || strings.Contains(out, "path=/ng-rollout/r1/wait status=") {
		t.Errorf("a cut request was also logged as answered:\n%s", out)
	}
	if strings.Contains(out, "draining") {
		t.Errorf("stopping at once drained:\n%s", out)
	}
}

// Configuration problems of every instance come back together as
// config.Problems, before any port is bound (the held port would otherwise
// be a bind error).
func TestNewProblemsBeforeBinding(t *testing.T) {
	t.Parallel()
	port := holdPort(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "bad.yaml")
	err := os.WriteFile(p, []byte(`a:
  resources_servers:
    `+gatedType+`:
      domain: other
      port: `+strconv.Itoa(port)+`
      gates: x
b:
  resources_servers:
    no_such_type:
      domain: other
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	_, err = server.New(context.Background(), server.Options{Files: []string{p}, WorkDir: dir, Logger: slog.New(slog.DiscardHandler)})
	var ps config.Problems
	if !errors.As(err, &ps) || len(ps) != 2 {
		t.Fatalf("New = %v, want 2 config problems", err)
	}
	want := []config.Problem{
		{File: p, Line: 6, Key: "a.resources_servers." + gatedType + ".gates", Message: "unknown key", Suggestion: "gate"},
		{File: p, Line: 9, Key: "b.resources_servers.no_such_type"},
	}
	for i, w := range want {
		got := ps[i]
		if got.File != w.File || got.Line != w.Line || got.Key != w.Key || got.Suggestion != w.Suggestion ||
			(w.Message != "" && got.Message != w.Message) {
			t.Errorf("problem %d = %+v, want %+v", i, got, w)
		}
	}
	if !strings.Contains(ps[1].Message, `unknown server type "no_such_type" (registered: `) || !strings.Contains(ps[1].Message, gatedType) {
		t.Errorf("unknown server type problem: %q", ps[1].Message)
	}
}

// A port already taken is one line naming the instance, the port and the
// host (a *server.ListenError that says InUse); an address that cannot be
// bound for another reason names the address and net.Listen's error.
func TestNewBindFailure(t *testing.T) {
	t.Parallel()
	port := holdPort(t)
	_, err := server.New(context.Background(), server.Options{
		Files: []string{writeConfig(t, "busy", "port: "+strconv.Itoa(port))}, WorkDir: t.TempDir(),
		Logger: slog.New(slog.DiscardHandler),
	})
	want := fmt.Sprintf(`instance "busy": port %d on 127.0.0.1 is already in use`, port)
	var le *server.ListenError
	if err == nil || err.Error() != want || !errors.As(err, &le) || !le.InUse() || le.Instance != "busy" || le.Port != port || le.Host != "127.0.0.1" {
		t.Errorf("New = %v (%#v), want %q from a ListenError that says InUse", err, le, want)
	}
	var ps config.Problems
	if errors.As(err, &ps) {
		t.Errorf("a bind failure is config.Problems: %v", err)
	}

	// 192.0.2.1 (TEST-NET-1) is no address of this machine: not InUse.
	_, err = server.New(context.Background(), server.Options{
		Files: []string{writeConfig(t, "nowhere", "host: 192.0.2.1", "port: "+strconv.Itoa(port))}, WorkDir: t.TempDir(),
		Logger: slog.New(slog.DiscardHandler),
	})
	want = fmt.Sprintf(`instance "nowhere": cannot listen on 192.0.2.1:%d: listen tcp 192.0.2.1:%d: bind: `, port, port)
	if err == nil || !strings.HasPrefix(err.Error(), want) || !errors.As(err, &le) || le.InUse() {
		t.Errorf("New = %v, want an error starting %q from a ListenError that does not say InUse", err, want)
	}
}

// Close releases the ports of a Host that never served.
func TestHostClose(t *testing.T) {
	t.Parallel()
	h, err := server.New(context.Background(), server.Options{
		Files: []string{writeConfig(t, "closed")}, WorkDir: t.TempDir(), Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	addr := strings.TrimPrefix(h.Instances()[0].URL(), "http://")
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("the port is still taken after Close: %v", err)
	}
	ln.Close()
	if err := h.Close(); err != nil {
		t.Errorf("a second Close = %v", err)
	}
	if err := h.Serve(context.Background()); err == nil {
		t.Error("Serve after Close: no error")
	}
}
