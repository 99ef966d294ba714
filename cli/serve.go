package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/server"
)

var serveCommand = &command{
	name:    "serve",
	summary: "serve the resources-server instances of YAML config files",
	usage:   serveUsage,
	run:     runServe,
}

const serveUsage = `Usage: gymkit serve --config FILE [--config FILE ...] [flags] [key=value ...]

Serve every resources-server instance of the configuration, each on its own host:port.
Once every instance is listening, gymkit prints one line per instance on stdout and
nothing else:

	<instance> http://<host>:<port>

An instance with expose_tools_over_mcp: true also serves its tools over MCP at /mcp,
and its line ends with " mcp=http://<host>:<port>/mcp" (docs/mcp.md).

Request logs and messages go to stderr. SIGINT or SIGTERM stops accepting connections,
lets the requests in flight finish (up to --drain-timeout), then exits 0; a second
signal exits at once.

Under --nemo, SIGINT, SIGTERM or SIGHUP stops at once instead, since NeMo's launcher
kills a server 1s after its SIGINT: the requests in flight are cut (each logged as
"request cut" with instance, method and path) and gymkit exits 0; the signals that
follow are ignored (Ctrl-C brings the terminal's SIGINT, then the launcher's);
whatever blocks the stop (a stderr nobody reads, a slow load), the process exits
within 900ms (status 1 then). gymkit --nemo also stops, the same way, once the
process that started it is gone (the launcher killed or crashed, or the bash of its
"| tee" command), and serves nothing when the launcher died before it started
(exit 1). docs/cli.md, "Under NeMo's launcher", has the details and the cases gymkit
cannot tell.

Config files:
  YAML files in NeMo Gym's layout (<instance>: resources_servers: <server type>: {...}).
  They merge in the order given, a later file winning key by key; then env.yaml from
  the working directory; then the overrides. An instance without a port gets a free
  one in 10001-20000. Reference: docs/config.md.

Overrides:
  Any argument of the form key=value, anywhere on the command line, sets the dotted
  key path of the merged configuration, creating it when missing (NeMo's +key=value
  and ++key=value spellings mean the same). The value is read as YAML: 9000, true,
  null, [a, b], {k: v}, 'quoted'. Quote the argument for your shell when it holds
  spaces or brackets.

Flags:
  -c, --config FILE         a config file to merge; repeatable
      --log-format FORMAT   log format on stderr: text or json (default text)
      --log-level LEVEL     debug, info, warn or error (default info)
      --nemo                serve the one instance NeMo's launcher (gym env start) names
                            in NEMO_GYM_CONFIG_PATH, at the host and port the merged
                            config in NEMO_GYM_CONFIG_DICT (YAML) assigns; the dict is
                            read as it is (not its config_paths, not env.yaml) and its
                            other blocks serve its ${...} only; the default when
                            NEMO_GYM_CONFIG_DICT is set and no --config is given
      --drain-timeout D     how long to wait for the requests in flight on shutdown,
                            a Go duration (default 30s; 0 waits as long as they take);
                            refused with --nemo, which does not wait
  -h, --help                show this help

Examples:
  gymkit serve --config servers/example_mcp_weather/configs/example_mcp_weather.yaml

  gymkit serve -c servers/example_mcp_weather/configs/example_mcp_weather.yaml \
      example_mcp_weather.resources_servers.example_mcp_weather.port=8000

  gymkit serve -c servers/example_mcp_weather/configs/example_mcp_weather.yaml \
      -c servers/example_session_state_mgmt/configs/example_session_state_mgmt.yaml \
      ++example_mcp_weather.resources_servers.example_mcp_weather.host=0.0.0.0 --log-format json

Exit status: 0 after a clean shutdown; 1 when an instance fails to build, bind or
serve, or the drain times out (a port already in use is one line: instance "x":
port N on HOST is already in use); 2 for a usage or configuration error (every
problem is listed, with its file, line, key and the closest known key; nothing is
bound).
`

// serveArgs are gymkit serve's parsed arguments.
type serveArgs struct {
	commonFlags  // --config, --log-format ("text" or "json"), --log-level
	overrides    []string
	drainTimeout time.Duration // server.Options.DrainTimeout: negative = no limit
	drainSet     bool          // --drain-timeout was given
	nemo         bool          // --nemo: the config of NeMo's launcher (NEMO_GYM_CONFIG_DICT, NEMO_GYM_CONFIG_PATH)
}

// errHelp is parseServeArgs's answer to -h or --help.
var errHelp = errors.New("help requested")

// parseServeArgs reads gymkit serve's arguments. Flags and overrides may be
// interleaved: an argument starting with "-" is a flag (one or two dashes,
// its value inline after "=" or in the next argument), any other argument
// containing "=" (or starting with "~") is an override ("key=value",
// "+key=value", "++key=value", kept as written for config.Load), and after
// "--" every argument is an override. It returns errHelp for -h/--help, and an error naming the
// argument for an unknown flag, a missing or bad value, or a stray argument.
func parseServeArgs(args []string) (serveArgs, error) {
	a := serveArgs{commonFlags: commonFlags{logFormat: "text", logLevel: slog.LevelInfo}, drainTimeout: server.DefaultDrainTimeout}
	s := argScanner{
		known: knownServeFlag,
		hints: map[string]string{".yaml": "--config", ".yml": "--config"},
		usage: "config files are given with --config FILE, overrides have the form key=value",
		bools: map[string]bool{"nemo": true},
		set: func(flag, name, value string) error {
			if ok, err := a.commonFlags.set(flag, name, value); ok {
				return err
			}
			switch name {
			case "nemo":
				b, err := strconv.ParseBool(value)
				if err != nil {
					return fmt.Errorf("flag %s: %q is not true or false", flag, value)
				}
				a.nemo = b
			case "drain-timeout":
				d, err := time.ParseDuration(value)
				if err != nil || d < 0 {
					return fmt.Errorf("flag %s: %q is not a duration such as 30s or 2m (0: no limit)", flag, value)
				}
				if d == 0 {
					d = -1 // server.Options: negative means no limit
				}
				a.drainTimeout, a.drainSet = d, true
			}
			return nil
		},
	}
	var err error
	a.overrides, err = s.scan(args)
	if err != nil {
		return a, err
	}
	return a, nil
}

// newLogger is the slog logger of a command: text or json records on w at
// level and above.
func newLogger(w io.Writer, format string, level slog.Level) *slog.Logger {
	hopts := &slog.HandlerOptions{Level: level}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, hopts))
	}
	return slog.New(slog.NewTextHandler(w, hopts))
}

func knownServeFlag(name string) bool {
	switch name {
	case "c", "config", "log-format", "log-level", "drain-timeout", "nemo":
		return true
	}
	return false
}

// runServe is gymkit serve.
func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	a, err := parseServeArgs(args)
	if errors.Is(err, errHelp) {
		fmt.Fprint(stdout, serveUsage)
		return exitOK
	}
	if err != nil {
		synopsis, _, _ := strings.Cut(serveUsage, "\n")
		fmt.Fprintf(stderr, "gymkit serve: %v\n%s\nRun \"gymkit serve --help\" for the flags, config files and overrides.\n", err, synopsis)
		return exitUsage
	}
	logger := newLogger(stderr, a.logFormat, a.logLevel)
	nemo := a.nemo || (len(a.files) == 0 && os.Getenv(envConfigDict) != "")
	opts := server.Options{
		Files:        a.files,
		Overrides:    a.overrides,
		Logger:       logger,
		Ready:        stdout,
		DrainTimeout: a.drainTimeout,
		StopAtOnce:   nemo,
	}
	if nemo {
		if a.drainSet {
			fmt.Fprintf(stderr, "gymkit serve: --drain-timeout does not apply under --nemo: serve --nemo stops at once, since NeMo's launcher kills a server 1s after its SIGINT\n")
			return exitUsage
		}
		var stop context.CancelFunc
		ctx, stop = nemoLifecycle(ctx, logger)
		defer stop()
		if gone, ok := parentGoneAtStart(ctx); ok {
			fmt.Fprintf(stderr, "gymkit serve: --nemo: %v: not serving\n", gone)
			return exitError
		}
		dict, name, err := nemoEnv(os.LookupEnv)
		if err != nil {
			fmt.Fprintf(stderr, "gymkit serve: --nemo: %v\n", err)
			return exitUsage
		}
		opts.Dict, opts.DictName, opts.Instance = []byte(dict), envConfigDict, name
	}
	if len(a.files) == 0 && opts.Dict == nil {
		synopsis, _, _ := strings.Cut(serveUsage, "\n")
		fmt.Fprintf(stderr, "gymkit serve: no --config FILE was given\n%s\nRun \"gymkit serve --help\" for the flags, config files and overrides.\n", synopsis)
		return exitUsage
	}
	err = server.Run(ctx, opts)
	var problems config.Problems
	var listenErr *server.ListenError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &problems):
		explainProblems(problems)
		if nemo {
			gymkitBinHint(problems, os.Getenv("GYMKIT_BIN"))
		}
		fmt.Fprintf(stderr, "gymkit serve: %v\n", problems)
		return exitUsage
	case errors.As(err, &listenErr) && listenErr.InUse():
		fmt.Fprintf(stderr, "gymkit serve: %v%s\n", listenErr, portInUseHint(nemo))
		return exitError
	}
	fmt.Fprintf(stderr, "gymkit serve: %v\n", err)
	return exitError
}

// The environment of NeMo's launcher (nemo-gym-contract c.4): the whole
// merged config as YAML, and the name of the instance to serve.
const (
	envConfigDict = "NEMO_GYM_CONFIG_DICT"
	envConfigPath = "NEMO_GYM_CONFIG_PATH"
)

// nemoEnv reads NeMo's launcher environment: the whole merged config (YAML)
// and the name of the instance to serve, both required and not empty. The
// config is given to config.Load as LoadOptions.Dict, as it is: never
// rewritten, its config_paths never read.
func nemoEnv(lookup func(string) (string, bool)) (dict, instance string, err error) {
	dict, ok := lookup(envConfigDict)
	if !ok || strings.TrimSpace(dict) == "" {
		return "", "", fmt.Errorf("%s is not set: NeMo's launcher sets it to the merged config (YAML)", envConfigDict)
	}
	instance, ok = lookup(envConfigPath)
	if !ok || instance == "" {
		return "", "", fmt.Errorf("%s is not set: NeMo's launcher sets it to the instance's top-level name", envConfigPath)
	}
	return dict, instance, nil
}
