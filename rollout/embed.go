package rollout

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/framework/host"
	"github.com/gymkit/gymkit/server"
	"github.com/gymkit/gymkit/session"
)

// EmbedOptions configure [Start].
type EmbedOptions struct {
	// Files, Overrides, WorkDir and LookupEnv are as in server.Options.
	Files     []string
	Overrides []string
	WorkDir   string
	LookupEnv func(string) (string, bool)
	// Instance selects the instance to start; "" is allowed only when the
	// configuration has exactly one.
	Instance string
	// Logger receives the instance's logs; nil means slog.Default().
	Logger *slog.Logger
	// Port is the loopback port to serve on (gymkit rollout --port); 0
	// means a free port in the configuration's [port_range_low,
	// port_range_high] (default 10001-20000) outside disallowed_ports and
	// the other instances' ports, picked as gymkit serve picks one
	// (config.Config.AssignPorts). The instance's configured port is not
	// used either way.
	Port int
}

// UsageError is a wrong --instance (none given for a configuration of
// several, or an unknown name); it lists the instances.
type UsageError struct {
	Msg string // the whole message, naming the instances
}

// Error returns Msg.
func (e *UsageError) Error() string { return e.Msg }

// Embedded is an instance served in process on a loopback port.
type Embedded struct {
	// Instance is the built instance (its Name is the MCP server_name).
	Instance *server.Instance
	// URL is its base URL, http://127.0.0.1:<port>.
	URL string

	srv   *http.Server
	done  chan struct{}
	conns atomic.Int64 // client connections open now (ConnState)
}

// SelectInstance loads the configuration and returns the instance named
// name, or the only one when name is "". The error is config.Problems for
// a configuration problem, or a *UsageError.
func SelectInstance(opts EmbedOptions) (*config.Config, config.Instance, error) {
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	cfg, err := config.Load(config.LoadOptions{Files: opts.Files, Overrides: opts.Overrides,
		WorkDir: opts.WorkDir, LookupEnv: opts.LookupEnv, Logger: log})
	if err != nil {
		return nil, config.Instance{}, err
	}
	cis := cfg.Instances()
	names := make([]string, len(cis))
	for i, ci := range cis {
		names[i] = ci.Name
	}
	if opts.Instance == "" {
		if len(cis) != 1 {
			return nil, config.Instance{}, &UsageError{fmt.Sprintf("the configuration has %d instances (%s): choose one with --instance NAME",
				len(cis), strings.Join(names, ", "))}
		}
		return cfg, cis[0], nil
	}
	ci, ok := cfg.Instance(opts.Instance)
	if !ok {
		msg := fmt.Sprintf("no instance %q in the configuration; its instances: %s", opts.Instance, strings.Join(names, ", "))
		if s := config.Suggest(opts.Instance, names); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		}
		return nil, config.Instance{}, &UsageError{msg}
	}
	return cfg, ci, nil
}

// Start builds the selected instance of the configuration in process, as
// gymkit serve builds it (host.Lookup, the strict decode of its keys,
// server.NewInstance with the MCP door when expose_tools_over_mcp is on),
// and serves it on 127.0.0.1 at EmbedOptions.Port, or a free port in the
// configuration's port_range_low..port_range_high, so that both doors are
// real HTTP. The configured host and port are not used. An instance without a
// session_secret gets a random one (the tokens live as long as the
// process anyway). Close stops it.
func Start(ctx context.Context, opts EmbedOptions) (*Embedded, error) {
	cfg, ci, err := SelectInstance(opts)
	if err != nil {
		return nil, err
	}
	factory, err := host.Lookup(ci.ServerType)
	if err != nil {
		return nil, config.Problems{{File: ci.File, Line: ci.Line, Key: ci.Path(),
			Message: err.Error(), Suggestion: config.Suggest(ci.ServerType, host.Names())}}
	}
	srv := factory()
	if err := ci.Decode(srv); err != nil {
		return nil, err
	}
	if len(ci.SessionSecrets) == 0 {
		ci.SessionSecrets = config.Secrets{string(session.RandomSecret())}
	}
	var ln net.Listener
	if opts.Port != 0 {
		if ln, err = net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(opts.Port))); err != nil {
			return nil, fmt.Errorf("serving instance %s in process: %w", ci.Name, err)
		}
	} else if ln, err = listenInRange(cfg, ci.Name); err != nil {
		return nil, fmt.Errorf("serving instance %s in process: %w", ci.Name, err)
	}
	ci.Host, ci.Port = "127.0.0.1", ln.Addr().(*net.TCPAddr).Port
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	inst, err := server.NewInstance(ctx, srv, ci, server.InstanceOptions{Logger: log})
	if err != nil {
		ln.Close()
		return nil, err
	}
	e := &Embedded{
		Instance: inst,
		URL:      "http://" + net.JoinHostPort(ci.Host, strconv.Itoa(ci.Port)),
		done:     make(chan struct{}),
	}
	e.srv = &http.Server{Handler: inst.Handler(), ReadHeaderTimeout: server.ReadHeaderTimeout, IdleTimeout: server.IdleTimeout,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		ConnState: func(_ net.Conn, st http.ConnState) {
			switch st {
			case http.StateNew:
				e.conns.Add(1)
			case http.StateClosed, http.StateHijacked:
				e.conns.Add(-1)
			}
		}}
	go func() {
		defer close(e.done)
		if err := e.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("embedded instance stopped serving", "instance", inst.Name, "error", err)
		}
	}()
	return e, nil
}

// OpenConns is the number of client connections open on the instance now
// (accepted and not yet closed, idle ones included). After [Run] returns it
// falls to 0 as soon as the instance has read the closes of the client's
// connections, so that Close has nothing to wait for.
func (e *Embedded) OpenConns() int { return int(e.conns.Load()) }

// Close stops the instance, waiting up to 5 seconds for requests in flight.
func (e *Embedded) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := e.srv.Shutdown(ctx)
	if err != nil {
		err = e.srv.Close()
	}
	<-e.done
	return err
}

// listenInRange listens on a free loopback port in the configuration's
// [port_range_low, port_range_high] (default 10001-20000), avoiding
// disallowed_ports, head_server.port (default 11000) and the ports of the
// other instances, probing up to 50 random ports as config.AssignPorts does.
// Load has already checked these keys.
func listenInRange(cfg *config.Config, name string) (net.Listener, error) {
	low, high := config.DefaultPortRangeLow, config.DefaultPortRangeHigh
	if n, ok := intKey(cfg, "port_range_low"); ok {
		low = n
	}
	if n, ok := intKey(cfg, "port_range_high"); ok {
		high = n
	}
	avoid := map[int]bool{11000: true}
	if v, err := cfg.Lookup("head_server.port"); err == nil {
		delete(avoid, 11000)
		if n, ok := asInt(v); ok {
			avoid[n] = true
		}
	}
	if v, err := cfg.Lookup("disallowed_ports"); err == nil {
		if list, ok := v.([]any); ok {
			for _, x := range list {
				if n, ok := asInt(x); ok {
					avoid[n] = true
				}
			}
		}
	}
	for _, ci := range cfg.Instances() {
		if ci.Name != name && ci.Port != 0 {
			avoid[ci.Port] = true
		}
	}
	var free []int
	for p := low; p <= high; p++ {
		if !avoid[p] {
			free = append(free, p)
		}
	}
	for tried := 0; tried < 50 && len(free) > 0; tried++ {
		j := rand.IntN(len(free))
		p := free[j]
		free[j] = free[len(free)-1]
		free = free[:len(free)-1]
		if ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p))); err == nil {
			return ln, nil
		}
	}
	return nil, fmt.Errorf("no free loopback port in [%d, %d] (port_range_low, port_range_high), avoiding disallowed_ports, the head server's port and the ports of other servers; choose one with --port N", low, high)
}

func intKey(cfg *config.Config, key string) (int, bool) {
	v, err := cfg.Lookup(key)
	if err != nil {
		return 0, false
	}
	return asInt(v)
}

func asInt(v any) (int, bool) {
	switch n := v.(type) {
	case int:
		return n, true
	case int64:
		return int(n), true
	case uint64:
		return int(n), true
	case float64:
		return int(n), n == float64(int(n))
	}
	return 0, false
}
