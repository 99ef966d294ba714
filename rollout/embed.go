package rollout

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/framework"
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
}

// UsageError is a wrong --instance (none given for a configuration of
// several, or an unknown name); it lists the instances.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Embedded is an instance served in process on a loopback port.
type Embedded struct {
	// Instance is the built instance (its Name is the MCP server_name).
	Instance *server.Instance
	// URL is its base URL, http://127.0.0.1:<port>.
	URL string

	srv  *http.Server
	done chan struct{}
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
// gymkit serve builds it (framework.Lookup, the strict decode of its keys,
// server.NewInstance with the MCP door when expose_tools_over_mcp is on),
// and serves it on 127.0.0.1 at a free port, so that both doors are real
// HTTP. The configured host and port are not used. An instance without a
// session_secret gets a random one (the tokens live as long as the
// process anyway). Close stops it.
func Start(ctx context.Context, opts EmbedOptions) (*Embedded, error) {
	_, ci, err := SelectInstance(opts)
	if err != nil {
		return nil, err
	}
	factory, err := framework.Lookup(ci.ServerType)
	if err != nil {
		return nil, config.Problems{{File: ci.File, Line: ci.Line, Key: ci.Path(),
			Message: err.Error(), Suggestion: config.Suggest(ci.ServerType, framework.Names())}}
	}
	srv := factory()
	if err := ci.Decode(srv); err != nil {
		return nil, err
	}
	if len(ci.SessionSecrets) == 0 {
		ci.SessionSecrets = config.Secrets{string(session.RandomSecret())}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	ci.Host, ci.Port = "127.0.0.1", ln.Addr().(*net.TCPAddr).Port
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	inst, err := server.NewInstance(ctx, srv, server.InstanceOptions{Config: ci, Logger: log})
	if err != nil {
		ln.Close()
		return nil, err
	}
	e := &Embedded{
		Instance: inst,
		URL:      "http://" + net.JoinHostPort(ci.Host, strconv.Itoa(ci.Port)),
		srv: &http.Server{Handler: inst.Handler(), ReadHeaderTimeout: server.ReadHeaderTimeout, IdleTimeout: server.IdleTimeout,
			ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)},
		done: make(chan struct{}),
	}
	go func() {
		defer close(e.done)
		if err := e.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("embedded instance stopped serving", "instance", inst.Name, "error", err)
		}
	}()
	return e, nil
}

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
