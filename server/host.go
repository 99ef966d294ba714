package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/framework/host"
)

// HTTP server settings of every instance a [Host] serves.
const (
	// ReadHeaderTimeout bounds how long a client may take to send a request's
	// headers (slow-loris protection).
	ReadHeaderTimeout = 10 * time.Second
	// IdleTimeout is how long a keep-alive connection may wait for its next
	// request. It is longer than the keep-alive timeouts of common clients
	// (aiohttp 15 s, httpx 5 s), so a client never reuses a connection the
	// server is closing.
	IdleTimeout = 120 * time.Second
	// DefaultDrainTimeout is how long [Host.Serve] waits for the requests in
	// flight when it stops, unless [Options.DrainTimeout] says otherwise.
	DefaultDrainTimeout = 30 * time.Second
)

// There is no ReadTimeout and no WriteTimeout: a tool call may legitimately
// take minutes (a sandboxed test run, a model call). A body upload is
// bounded by max_body_bytes and, in time, by each instance's
// body_read_timeout (see [Instance.Handler]), which ends once the body is
// read; a tool call, by tool_timeout when configured. Timeouts of whole
// requests otherwise belong to the agent.

// Options configure [New] and [Run]. The zero value loads only env.yaml from
// the working directory.
type Options struct {
	// Files are the YAML config files (gymkit serve --config), merged in
	// order; see config.LoadOptions.Files. Relative paths are resolved against
	// WorkDir.
	Files []string
	// Overrides are "key=value", "+key=value" or "++key=value" overrides
	// applied after the files and env.yaml; see config.LoadOptions.Overrides.
	Overrides []string
	// WorkDir is where env.yaml is looked up and relative paths are resolved;
	// "" means the process's working directory.
	WorkDir string
	// Dict, when not nil, is the whole merged configuration as YAML, as NeMo's
	// launcher hands it in NEMO_GYM_CONFIG_DICT (gymkit serve --nemo): the
	// first layer, with no config_paths and no env.yaml read; DictName names
	// it in problems ("" means "NEMO_GYM_CONFIG_DICT"). See
	// config.LoadOptions.Dict.
	Dict     []byte
	DictName string
	// Instance, when not "", is the one instance to build and serve (NeMo's
	// NEMO_GYM_CONFIG_PATH); the configuration's other blocks are neither
	// built nor validated, and a name that is no instance is a
	// config.Problems error. "" serves every instance. See
	// config.LoadOptions.Instance.
	Instance string
	// LookupEnv reads environment variables for ${oc.env:...}; nil means
	// os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// Logger receives the request logs (one Info record "request" per request
	// with instance, method, path, status, bytes and duration), the
	// lifecycle messages and the instances' errors. nil means slog.Default().
	Logger *slog.Logger
	// Ready receives the ready lines (see [Host.Serve]); nil means os.Stdout.
	Ready io.Writer
	// DrainTimeout bounds how long [Host.Serve] waits for the requests in
	// flight once its context is done. 0 means DefaultDrainTimeout (30 s); a
	// negative value means no limit.
	DrainTimeout time.Duration
	// Extensions are applied to every instance, in order; see [Extension].
	Extensions []Extension
	// ReadyDrainDelay is how long [Host.Serve] keeps serving, with every
	// instance draining (GET /health/ready answers 503), once its context
	// is done and before it stops accepting connections: time for a load
	// balancer's readiness probe to take the replica out of rotation
	// (docs/operations.md). 0 (the default) stops accepting at once.
	ReadyDrainDelay time.Duration
	// StopAtOnce makes [Host.Serve] stop without draining once its context
	// is done (gymkit serve --nemo: NeMo's launcher kills a server that has
	// not exited 1 s after its SIGINT; docs/cli.md, "Under NeMo's
	// launcher"). Every listener and connection is closed at once, the
	// contexts of the requests in flight are canceled, each of them is
	// logged as cut (one Warn record "request cut" with instance, method,
	// path and duration, instead of its "request" record) and Serve returns
	// without waiting for their handlers. DrainTimeout and ReadyDrainDelay
	// are then not used. false (the default) drains.
	StopAtOnce bool
}

// Host is a set of built instances, each bound to its own host:port and not
// yet serving. Make one with [New]; then call [Host.Serve] once, or
// [Host.Close] to release the ports without serving. The methods are safe
// for concurrent use.
type Host struct {
	instances []*Instance
	listeners []net.Listener // parallel to instances
	log       *slog.Logger
	ready     io.Writer
	drain     time.Duration
	delay     time.Duration // Options.ReadyDrainDelay
	atOnce    bool          // Options.StopAtOnce

	mu    sync.Mutex
	spent bool // Serve or Close was called
}

// New loads the configuration of opts, builds every resources-server instance
// it names and binds each to its host:port. It does not serve; see
// [Host.Serve].
//
// The steps, each finishing for every instance before the next begins:
//
//  1. config.Load: the dict, the files, env.yaml and the overrides.
//  2. For each instance: host.Lookup(server type), a fresh server value
//     from the factory, and config.Instance.Decode of its own keys into it.
//  3. Config.AssignPorts: a free port for every instance without one; the
//     listener opened to probe a port is the one the instance serves on.
//  4. [NewInstance] for each instance (host.Build, which runs Provision).
//  5. net.Listen on every configured host:port.
//
// The error of steps 1 to 3 is config.Problems (get it with errors.As),
// listing every problem of the step: file, line, key, message and the
// closest known key or value; an unknown server type is a problem on the
// instance's server block that lists the registered types. Until step 3
// nothing is bound. A build error (4) joins the errors of every instance
// that failed; a bind error (5) is a [*ListenError] naming the instance, the
// port and the host. On any
// error every port opened so far is closed again.
func New(ctx context.Context, opts Options) (*Host, error) {
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	cfg, err := config.Load(config.LoadOptions{
		Files: opts.Files, Overrides: opts.Overrides, WorkDir: opts.WorkDir,
		Dict: opts.Dict, DictName: opts.DictName, Instance: opts.Instance,
		LookupEnv: opts.LookupEnv, Logger: log,
	})
	var problems config.Problems
	if err != nil {
		if cfg == nil || !errors.As(err, &problems) {
			return nil, err
		}
		// Keep going: the instances' own keys may have problems too, and the
		// user should see them all at once.
	}

	cis := cfg.Instances()
	servers := make([]framework.Server, len(cis))
	for i, ci := range cis {
		factory, err := host.Lookup(ci.ServerType)
		if err != nil {
			problems = append(problems, config.Problem{File: ci.File, Line: ci.Line, Key: ci.Path(),
				Message: err.Error(), Suggestion: config.Suggest(ci.ServerType, host.Names())})
			continue
		}
		srv := factory()
		if err := ci.Decode(srv); err != nil {
			var ps config.Problems
			if !errors.As(err, &ps) {
				return nil, fmt.Errorf("instance %q (server type %q): %w", ci.Name, ci.ServerType, err)
			}
			problems = append(problems, ps...)
			continue
		}
		servers[i] = srv
	}
	if len(problems) > 0 {
		return nil, problems
	}

	// Ports: a probe that keeps the listener it opened, so that nothing can
	// take the port between the pick and the serve.
	held := map[string]net.Listener{}
	closeHeld := func() {
		for _, ln := range held {
			_ = ln.Close()
		}
	}
	err = cfg.AssignPorts(func(host string, port int) error {
		ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
		if err != nil {
			return err
		}
		held[net.JoinHostPort(host, strconv.Itoa(port))] = ln
		return nil
	})
	if err != nil {
		closeHeld()
		return nil, err
	}
	cis = cfg.Instances() // now with their ports

	h := &Host{log: log, ready: opts.Ready, drain: opts.DrainTimeout, delay: opts.ReadyDrainDelay, atOnce: opts.StopAtOnce}
	if h.ready == nil {
		h.ready = os.Stdout
	}
	var errs []error
	for i, ci := range cis {
		in, err := NewInstance(ctx, servers[i], ci, InstanceOptions{Logger: log, Extensions: opts.Extensions})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		h.instances = append(h.instances, in)
	}
	if err := errors.Join(errs...); err != nil {
		closeHeld()
		return nil, err
	}

	for _, in := range h.instances {
		addr := net.JoinHostPort(in.Config.Host, strconv.Itoa(in.Config.Port))
		ln, ok := held[addr]
		delete(held, addr)
		var err error
		if !ok {
			ln, err = net.Listen("tcp", addr)
		}
		if err != nil {
			closeHeld()
			for _, ln := range h.listeners {
				_ = ln.Close()
			}
			return nil, &ListenError{Instance: in.Name, Host: in.Config.Host, Port: in.Config.Port, Err: err}
		}
		in.url = "http://" + addr
		h.listeners = append(h.listeners, ln)
	}
	closeHeld() // probes AssignPorts did not keep (none, normally)
	return h, nil
}

// ListenError is [New]'s error when an instance's configured host:port
// cannot be listened on. Its message is one line naming the instance, the
// port and the host: "instance "x": port 12345 on 127.0.0.1 is already in
// use" when a socket, of this process or another, holds it
// ([ListenError.InUse]), else
// "instance "x": cannot listen on 127.0.0.1:12345: <Err>". Get it with
// errors.As; Unwrap returns Err.
type ListenError struct {
	Instance string // the instance's top-level name
	Host     string // the configured host, as written (0.0.0.0 stays 0.0.0.0)
	Port     int    // the configured port
	Err      error  // net.Listen's error
}

// InUse reports whether the port is taken by another socket (EADDRINUSE).
func (e *ListenError) InUse() bool { return errors.Is(e.Err, syscall.EADDRINUSE) }

// Error returns the one-line message described at [ListenError].
func (e *ListenError) Error() string {
	if e.InUse() {
		return fmt.Sprintf("instance %q: port %d on %s is already in use", e.Instance, e.Port, e.Host)
	}
	return fmt.Sprintf("instance %q: cannot listen on %s: %v", e.Instance, net.JoinHostPort(e.Host, strconv.Itoa(e.Port)), e.Err)
}

// Unwrap returns the error of net.Listen.
func (e *ListenError) Unwrap() error { return e.Err }

// Instances returns the host's instances in configuration order (by instance
// name), each with its [Instance.URL].
func (h *Host) Instances() []*Instance { return append([]*Instance(nil), h.instances...) }

// Serve serves every instance on its listener until ctx is done, then drains.
//
// Once every instance is serving, Serve writes one ready line per instance to
// Options.Ready, in configuration order, each in one Write:
//
//	<instance> http://<host>:<port>
//
// with the configured host as written (0.0.0.0 stays 0.0.0.0) and the bound
// port, followed by " <name>=<url>" for each endpoint an extension announced
// (see [Instance.Announce]). Nothing else is written there.
//
// Each instance is an http.Server with ReadHeaderTimeout and IdleTimeout and
// no read or write timeout (a tool call may take minutes); the instance's
// handler sets the body read deadline itself. Every request is
// logged once it is answered (see [Options.Logger]); the path is logged as
// received, /ng-rollout/<id>/ prefix included.
//
// When ctx is done, Serve marks every instance draining ([Instance.Drain]:
// GET /health/ready answers 503), keeps serving for
// [Options.ReadyDrainDelay], then stops accepting connections on every instance,
// closes idle connections and waits for the requests in flight to finish,
// up to the drain timeout ([Options.DrainTimeout]); their contexts are not
// canceled. It returns nil after a complete drain, and an error when the
// timeout closed requests still running or when an instance could not
// serve (which stops the others too).
//
// With [Options.StopAtOnce], Serve does not drain: when ctx is done it
// closes every listener and connection at once, cancels the contexts of the
// requests in flight, logs each of them as cut ("request cut": instance,
// method, path, duration) and returns nil without waiting for their
// handlers (an instance that could not serve: its error). The process can
// then exit within milliseconds.
//
// Serve may be called once; the listeners are closed when it returns.
func (h *Host) Serve(ctx context.Context) error {
	if err := h.spend(); err != nil {
		return err
	}
	servers := make([]*http.Server, len(h.instances))
	errc := make(chan error, len(h.instances))
	errorLog := slog.NewLogLogger(h.log.Handler(), slog.LevelWarn)
	// Stopping at once: the requests' contexts derive from base, canceled
	// at the stop, and every instance lists its requests in flight.
	base, cancelBase := context.WithCancel(context.Background())
	defer cancelBase()
	inflight := make([]*inflightLog, len(h.instances))
	for i, in := range h.instances {
		srv := &http.Server{
			ReadHeaderTimeout: ReadHeaderTimeout,
			IdleTimeout:       IdleTimeout,
			ErrorLog:          errorLog,
		}
		if h.atOnce {
			inflight[i] = new(inflightLog)
			srv.BaseContext = func(net.Listener) context.Context { return base }
		}
		srv.Handler = logRequests(in.Logger, in.Handler(), inflight[i])
		servers[i] = srv
		go func() {
			if err := srv.Serve(h.listeners[i]); !errors.Is(err, http.ErrServerClosed) {
				errc <- fmt.Errorf("instance %q: %w", in.Name, err)
			}
		}()
	}
	stopSweeps := startSweeps(h.instances)
	defer stopSweeps()
	for _, in := range h.instances {
		in.Logger.Info("serving", "server_type", in.ServerType, "url", in.url)
		if _, err := io.WriteString(h.ready, in.readyLine()+"\n"); err != nil {
			h.log.Warn("cannot write the ready line", "instance", in.Name, "error", err)
		}
	}

	if h.atOnce {
		var serveErr error
		select {
		case <-ctx.Done():
			h.log.Info("stopping at once: no new connections; the requests in flight are cut", "cause", context.Cause(ctx))
		case serveErr = <-errc:
			h.log.Error("an instance stopped serving; stopping all at once", "error", serveErr)
		}
		// Listed as cut first, so that a handler that returns once its
		// connection is closed is not logged as answered.
		for i := range servers {
			inflight[i].cut(h.instances[i].Logger)
		}
		for _, srv := range servers {
			_ = srv.Close() // the listener and every connection
		}
		cancelBase()
		h.closeStores()
		if serveErr != nil {
			return serveErr
		}
		h.log.Info("stopped")
		return nil
	}

	timeout := h.drain
	if timeout == 0 {
		timeout = DefaultDrainTimeout
	}
	var serveErr error
	select {
	case <-ctx.Done():
		h.log.Info("draining: no new connections; waiting for the requests in flight",
			"cause", context.Cause(ctx), "timeout", timeoutText(timeout))
	case serveErr = <-errc:
		h.log.Error("an instance stopped serving; draining all", "error", serveErr, "timeout", timeoutText(timeout))
	}
	for _, in := range h.instances {
		in.Drain() // /health/ready answers 503 from now on
	}
	if h.delay > 0 && serveErr == nil {
		h.log.Info("draining: not ready; still serving until the load balancer notices", "delay", h.delay)
		time.Sleep(h.delay)
	}
	drainCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	if timeout > 0 {
		var cancelTimeout context.CancelFunc
		drainCtx, cancelTimeout = context.WithTimeout(drainCtx, timeout)
		defer cancelTimeout()
	}

	var wg sync.WaitGroup
	var mu sync.Mutex
	var forced []string
	for i, srv := range servers {
		wg.Go(func() {
			if err := srv.Shutdown(drainCtx); err != nil {
				_ = srv.Close()
				mu.Lock()
				forced = append(forced, h.instances[i].Name)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	h.closeStores()
	if serveErr != nil {
		return serveErr
	}
	if len(forced) > 0 {
		return fmt.Errorf("drain timeout: requests still running after %v were cut off (instances %v)", timeout, forced)
	}
	h.log.Info("stopped")
	return nil
}

func timeoutText(d time.Duration) string {
	if d < 0 {
		return "none"
	}
	return d.String()
}

// Close releases the listeners of a Host that has not served. After Serve,
// or a second time, it does nothing and returns nil.
func (h *Host) Close() error {
	if h.spend() != nil {
		return nil
	}
	var errs []error
	for _, ln := range h.listeners {
		errs = append(errs, ln.Close())
	}
	h.closeStores()
	return errors.Join(errs...)
}

// closeStores closes the session store of every instance that has one to
// close (a Redis client).
func (h *Host) closeStores() {
	for _, in := range h.instances {
		if in.closeStore != nil {
			_ = in.closeStore()
		}
	}
}

func (h *Host) spend() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.spent {
		return errors.New("server: Host.Serve called after Serve or Close")
	}
	h.spent = true
	return nil
}

// Run is [New] followed by [Host.Serve]: it loads, builds and binds every
// instance of opts, writes the ready lines, serves until ctx is done (for
// gymkit serve, the first SIGINT or SIGTERM) and drains. When ctx is
// already done once the instances are bound, it releases them and returns
// nil without serving. Its errors are those of New and Serve; config.Problems means a
// configuration error, found before anything was bound.
func Run(ctx context.Context, opts Options) error {
	h, err := New(ctx, opts)
	if err != nil {
		return err
	}
	if ctx.Err() != nil {
		return h.Close()
	}
	return h.Serve(ctx)
}

// startSweeps starts one goroutine per instance that frees expired session
// state (session.Manager.Sweep) every SweepInterval (1 s to 1 min), so an
// instance that goes quiet still frees its idle rollouts' state. The
// returned function stops them and waits for them to end.
func startSweeps(instances []*Instance) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	for _, in := range instances {
		wg.Go(func() {
			t := time.NewTicker(in.Sessions.SweepInterval())
			defer t.Stop()
			for {
				select {
				case <-done:
					return
				case <-t.C:
					if n, err := in.Sessions.Sweep(context.Background()); err != nil {
						in.Logger.Warn("sweeping expired session state", "error", err)
					} else if n > 0 {
						in.Logger.Debug("swept expired session state", "sessions", n)
					}
				}
			}
		})
	}
	return func() {
		close(done)
		wg.Wait()
	}
}
