package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/framework/host"
	"github.com/gymkit/gymkit/internal/buildinfo"
	"github.com/gymkit/gymkit/mcpexpose"
	"github.com/gymkit/gymkit/server"
	"github.com/gymkit/gymkit/session"
	"go.yaml.in/yaml/v3"
)

// The introspection subcommands: none binds a port.
var (
	checkCommand  = &command{name: "check", summary: "report every problem serve would refuse to start with, serving nothing (--nemo: what NeMo's launcher would do)", usage: checkUsage, run: runCheck}
	configCommand = &command{name: "config", summary: "print the merged, resolved configuration as YAML (secrets masked)", usage: configUsage, run: runConfig}
	toolsCommand  = &command{name: "tools", summary: "print what tools/list shows, optionally narrowed for a seed body", usage: toolsUsage, run: runTools}
	typesCommand  = &command{name: "types", summary: "list the registered server types", usage: typesUsage, run: runTypes}
)

const commonFlagsUsage = `  -c, --config FILE         a config file to merge; repeatable
      --log-format FORMAT   log format on stderr: text or json (default text)
      --log-level LEVEL     debug, info, warn or error (default error)
      --version             print gymkit's version and exit
  -h, --help                show this help
`

const checkUsage = `Usage: gymkit check --config FILE [--config FILE ...] [flags] [key=value ...]
       gymkit check --nemo [--search-dir DIR ...] CONFIG [CONFIG ...] [key=value ...]

Load the configuration as gymkit serve loads it (files, env.yaml, overrides), then
build every instance and its MCP door as serve builds them: the server type, its keys,
Provision, the routes and their schemas, the exposed tools and the session secret.
Every problem is reported at once; no port is bound (a port already in use is found
only by serve).

On success, one line per instance on stdout:

	ok <instance> (<server type>) <host>:<port|auto> <N> tools[, mcp on][, session store redis at <addr>: answers|does not answer]

<N> tools are those tools/list lists (gymkit tools prints them): the typed tools, or
what the server's Tools hook exposes (a dispatcher's tools included), narrowed by
mcp.tools; with mcp off, those it would list with expose_tools_over_mcp: true.

With session.store: redis, check pings the store (as serve does, once, at most 1s
here): a store that does not answer is noted on the ok line and logged at Warn,
not a problem, since serve starts and answers 503 until it does.

Flags:
      --nemo                check a NeMo launcher config (see below)
      --search-dir DIR      with --nemo: a root to search first, as gym env start's; repeatable
` + commonFlagsUsage + `
Exit status: 0 when serve would start; 2 for a usage or configuration problem
(file, line, key, message and the closest known key, as serve reports them); 1 when
an instance fails to build (Provision, a refused route or tool schema, the MCP door).

With --nemo: what NeMo Gym's launcher would do with a launcher config, before
anything starts. Run it where you would run gym env start, with the same arguments
(CONFIG or --config CONFIG, --search-dir DIR, +key=value, ++key=value). It looks up
every server folder <type>/<name> as the launcher does: under each root of
NEMO_GYM_EXTRA_ROOTS (--search-dir folders first), then the working directory, then
NeMo's install root (the folder above the nemo_gym package python3 imports); the
first folder holding requirements.txt or pyproject.toml wins. The config files are
looked up under the same roots. It prints the roots, the configs and every server's
folder on stdout, then each finding on stderr as

	<kind>: <instance or key>: <message>

A resources server is gymkit's when its folder's app.py is gymkit's (the GYMKIT_APP
line gymkit new writes), whichever module it comes from. Its keys are checked in
process when this binary registers its type, else by the check of the binary its
app.py would run (GYMKIT_BIN, else its module's bin/<binary> when built; a note says
how to check them when there is none).

The kinds:
  shadowed   a gymkit server whose folder would be another server's: NeMo's own
             Python server of that name, when no earlier root holds the gymkit
             folder with requirements.txt
  not-found  no root holds the folder (a Python server: only when NeMo's install
             root is known)
  layout     a folder without its entrypoint file, or with both requirements.txt
             and pyproject.toml; a gymkit server without an entrypoint key
  setup      the setup step would run uv (no .venv with skip_venv_if_present: true)
             and uv is not on PATH
  path       a path key of a gymkit server type that will not name an existing
             file under the launcher, where a relative path resolves against the
             server folder (such as a top-level data_dir: data/shared it interpolates)
  port       two servers on one port; a port in disallowed_ports or the head
             server's; a port (or the head server's) in use on this host now
             (found by listening on it for an instant)
  config     a problem serve --nemo would refuse a gymkit instance for
  binary     GYMKIT_BIN is set (every gymkit app.py then runs that binary) and does
             not register a gymkit server's type, or is not a binary
Guide: docs/nemo.md.

Exit status with --nemo: 0 no findings; 1 findings; 2 for a usage error, a config
file that no root holds, or one that cannot be read.
`

const configUsage = `Usage: gymkit config --config FILE [--config FILE ...] [flags] [key=value ...]

Print the merged configuration (the files, env.yaml and the overrides, every
${...} interpolation resolved) as YAML on stdout, as NeMo Gym's ng_dump_config prints
it. Secrets are masked: session_secret and mcp_token_secret of every server block, and
every key whose name contains secret, token, password, api_key or apikey, print as
<redacted>. The configuration is checked as by gymkit check's first step.

Flags:
` + commonFlagsUsage + `
Exit status: 0 when printed; 2 for a usage or configuration problem.
`

const toolsUsage = `Usage: gymkit tools --config FILE [--instance NAME] [--seed JSON|@FILE] [--json] [key=value ...]

Print the tools an instance's MCP door lists (tools/list), building the instance in
process and binding no port. With --seed, the seed body is sent to /seed_session first
and tools/list is asked with the session token it returns, so the list is narrowed by
the server's AllowedToolsForSession (or AllowedToolsForSeed) hook for that seed (and by mcp.tools). An instance
with expose_tools_over_mcp: false is shown as it would be with it on (and says so).

Plain output: one block per tool, sorted by name:

	<tool>(<argument>: <type>, <optional argument>?: <type>[ = <default, as JSON>])
	    <description>

--json prints the tools/list result exactly as the door answers it.

Flags:
  -c, --config FILE         a config file to merge; repeatable
      --instance NAME       the instance, when the configuration has several
      --seed JSON|@FILE     a seed_session body, inline or read from FILE
      --json                print the tools/list result as JSON
      --log-format FORMAT   log format on stderr: text or json (default text)
      --log-level LEVEL     debug, info, warn or error (default error)
      --version             print gymkit's version and exit
  -h, --help                show this help

Exit status: 0 when printed; 1 when the instance fails to build or the seed is
refused (its answer is printed); 2 for a usage or configuration problem.
`

const typesUsage = `Usage: gymkit types

List the server types registered in this binary (framework.Register), one per line,
sorted: the names a config's resources_servers block may use. A binary of your own
module lists only the environments its main package imports; with none imported,
it prints one line saying so.

Exit status: 0.
`

// introArgs are the arguments of check, config and tools.
type introArgs struct {
	commonFlags
	overrides []string
	instance  string
	seed      string // tools: the body, or @file
	json      bool
}

func parseIntroArgs(args []string, tools bool) (introArgs, error) {
	a := introArgs{commonFlags: commonFlags{logFormat: "text", logLevel: slog.LevelError}}
	s := argScanner{
		known: func(name string) bool {
			switch name {
			case "c", "config", "log-format", "log-level":
				return true
			case "instance", "seed", "json":
				return tools
			}
			return false
		},
		hints: map[string]string{".yaml": "--config", ".yml": "--config"},
		usage: "config files are given with --config FILE, overrides have the form key=value",
		set: func(flag, name, value string) error {
			if ok, err := a.commonFlags.set(flag, name, value); ok {
				return err
			}
			switch name {
			case "instance":
				a.instance = value
			case "seed":
				a.seed = value
			case "json":
				b, err := strconv.ParseBool(value)
				if err != nil {
					return fmt.Errorf("flag %s: %q is not true or false", flag, value)
				}
				a.json = b
			}
			return nil
		},
		bools: map[string]bool{"json": tools},
	}
	var err error
	a.overrides, err = s.scan(args)
	if err == nil && len(a.files) == 0 {
		err = errors.New("--config FILE is required")
	}
	return a, err
}

// usageFailure prints a usage error of command c and returns exitUsage.
func usageFailure(stderr io.Writer, name, usage string, err error) int {
	synopsis, _, _ := strings.Cut(usage, "\n")
	fmt.Fprintf(stderr, "gymkit %s: %v\n%s\nRun \"gymkit %s --help\" for the flags.\n", name, err, synopsis, name)
	return exitUsage
}

func load(a introArgs, log *slog.Logger) (*config.Config, error) {
	return config.Load(config.LoadOptions{Files: a.files, Overrides: a.overrides, Logger: log})
}

// buildAll builds every instance of cfg as server.New does, without
// assigning ports or binding. It returns the built instances, the
// configuration problems and the build errors.
func buildAll(ctx context.Context, cfg *config.Config, log *slog.Logger) ([]*server.Instance, config.Problems, []error) {
	var problems config.Problems
	var built []*server.Instance
	var errs []error
	for _, ci := range cfg.Instances() {
		inst, err := buildOne(ctx, ci, log)
		var ps config.Problems
		switch {
		case errors.As(err, &ps):
			problems = append(problems, ps...)
		case err != nil:
			errs = append(errs, err)
		default:
			built = append(built, inst)
		}
	}
	return built, problems, errs
}

// buildOne builds one instance in process: host.Lookup, Decode,
// server.NewInstance (Provision, routes, the MCP door). Its port stays as
// configured (0: assigned by serve).
func buildOne(ctx context.Context, ci config.Instance, log *slog.Logger) (*server.Instance, error) {
	factory, err := host.Lookup(ci.ServerType)
	if err != nil {
		return nil, config.Problems{{File: ci.File, Line: ci.Line, Key: ci.Path(),
			Message: unknownTypeMessage(ci.ServerType, host.Names()), Suggestion: config.Suggest(ci.ServerType, host.Names())}}
	}
	srv := factory()
	if err := ci.Decode(srv); err != nil {
		var ps config.Problems
		if errors.As(err, &ps) {
			return nil, ps
		}
		return nil, fmt.Errorf("instance %q (server type %q): %w", ci.Name, ci.ServerType, err)
	}
	return server.NewInstance(ctx, srv, ci, server.InstanceOptions{Logger: log})
}

func runCheck(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if hasNemoFlag(args) {
		return runCheckNemo(ctx, args, stdout, stderr)
	}
	a, err := parseIntroArgs(args, false)
	if errors.Is(err, errHelp) {
		fmt.Fprint(stdout, checkUsage)
		return exitOK
	}
	if err != nil {
		return usageFailure(stderr, "check", checkUsage, err)
	}
	log := newLogger(stderr, a.logFormat, a.logLevel)
	cfg, err := load(a, log)
	var problems config.Problems
	if err != nil && (cfg == nil || !errors.As(err, &problems)) {
		fmt.Fprintf(stderr, "gymkit check: %v\n", err)
		return exitUsage
	}
	built, more, errs := buildAll(ctx, cfg, log)
	problems = append(problems, more...)
	errs = dropRepeated(errs, problems)
	n := len(problems) + len(errs)
	if n == 0 {
		for _, in := range built {
			port := "auto"
			if in.Config.Port != 0 {
				port = strconv.Itoa(in.Config.Port)
			}
			line := fmt.Sprintf("ok %s (%s) %s:%s %s", in.Name, in.ServerType, in.Config.Host, port, plural(len(in.ListedTools()), "tool"))
			if in.Config.ExposeToolsOverMCP {
				line += ", mcp on"
			}
			line += storeNote(ctx, in)
			fmt.Fprintln(stdout, line)
		}
		return exitOK
	}
	fmt.Fprintf(stderr, "gymkit check: %d problem%s; gymkit serve would not start:\n", n, map[bool]string{true: "", false: "s"}[n == 1])
	for _, p := range problems {
		fmt.Fprintf(stderr, "\t%v\n", p)
	}
	for _, e := range errs {
		fmt.Fprintf(stderr, "\t%s\n", strings.ReplaceAll(e.Error(), "\n", "\n\t\t"))
	}
	if len(problems) > 0 {
		return exitUsage
	}
	return exitError
}

func runConfig(_ context.Context, args []string, stdout, stderr io.Writer) int {
	a, err := parseIntroArgs(args, false)
	if errors.Is(err, errHelp) {
		fmt.Fprint(stdout, configUsage)
		return exitOK
	}
	if err != nil {
		return usageFailure(stderr, "config", configUsage, err)
	}
	cfg, err := load(a, newLogger(stderr, a.logFormat, a.logLevel))
	if err != nil {
		fmt.Fprintf(stderr, "gymkit config: %v\n", err)
		return exitUsage
	}
	out, err := dumpConfig(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "gymkit config: %v\n", err)
		return exitUsage
	}
	_, _ = stdout.Write(out)
	return exitOK
}

func runTypes(_ context.Context, args []string, stdout, stderr io.Writer) int {
	for _, arg := range args {
		if arg == "-h" || arg == "--help" || arg == "-help" {
			fmt.Fprint(stdout, typesUsage)
			return exitOK
		}
		return usageFailure(stderr, "types", typesUsage, fmt.Errorf("unexpected argument %q", arg))
	}
	writeTypes(stdout, host.Names())
	return exitOK
}

func runTools(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	a, err := parseIntroArgs(args, true)
	if errors.Is(err, errHelp) {
		fmt.Fprint(stdout, toolsUsage)
		return exitOK
	}
	if err != nil {
		return usageFailure(stderr, "tools", toolsUsage, err)
	}
	fail := func(code int, format string, args ...any) int {
		fmt.Fprintf(stderr, "gymkit tools: "+format+"\n", args...)
		return code
	}
	var seed []byte
	if a.seed != "" {
		if file, ok := strings.CutPrefix(a.seed, "@"); ok {
			if seed, err = os.ReadFile(file); err != nil {
				return fail(exitUsage, "--seed: %v", err)
			}
		} else {
			seed = []byte(a.seed)
		}
		if !json.Valid(seed) {
			return fail(exitUsage, "--seed: not a JSON document: %.80q", seed)
		}
	}
	log := newLogger(stderr, a.logFormat, a.logLevel)
	cfg, err := load(a, log)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	ci, err := pickInstance(cfg, a.instance)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	off := !ci.ExposeToolsOverMCP
	ci.ExposeToolsOverMCP = true
	if len(ci.SessionSecrets) == 0 {
		ci.SessionSecrets = config.Secrets{string(session.RandomSecret())}
	}
	inst, err := buildOne(ctx, ci, log)
	var ps config.Problems
	if errors.As(err, &ps) {
		return fail(exitUsage, "%v", ps)
	}
	if err != nil {
		return fail(exitError, "%v", err)
	}
	h := inst.Handler()
	var token string
	if seed != nil {
		code, body, _ := inproc(h, "/seed_session", seed, nil)
		if code/100 != 2 {
			return fail(exitError, "POST /seed_session answered %d: %s", code, body)
		}
		var ans struct {
			MCP struct {
				Headers map[string]string `json:"headers"`
			} `json:"mcp"`
		}
		if err := json.Unmarshal(body, &ans); err != nil || ans.MCP.Headers[mcpexpose.TokenHeader] == "" {
			return fail(exitError, "the seed answer has no MCP session token: %s", body)
		}
		token = ans.MCP.Headers[mcpexpose.TokenHeader]
	}
	hdr := http.Header{"Accept": {"application/json, text/event-stream"}, "Mcp-Protocol-Version": {"2025-06-18"}}
	if token != "" {
		hdr.Set(mcpexpose.TokenHeader, token)
	}
	code, body, _ := inproc(h, mcpexpose.URLPath, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), hdr)
	var rpc struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(body, &rpc); code != http.StatusOK || err != nil || rpc.Result == nil {
		return fail(exitError, "tools/list answered %d: %s", code, body)
	}
	if a.json {
		var buf bytes.Buffer
		_ = json.Indent(&buf, rpc.Result, "", "  ")
		buf.WriteByte('\n')
		_, _ = stdout.Write(buf.Bytes())
		return exitOK
	}
	return printTools(stdout, stderr, inst, rpc.Result, seed != nil, off)
}

// pickInstance is the named instance, or the only one.
func pickInstance(cfg *config.Config, name string) (config.Instance, error) {
	cis := cfg.Instances()
	names := make([]string, len(cis))
	for i, ci := range cis {
		names[i] = ci.Name
	}
	if name == "" {
		if len(cis) != 1 {
			return config.Instance{}, fmt.Errorf("the configuration has %d instances (%s): choose one with --instance NAME", len(cis), strings.Join(names, ", "))
		}
		return cis[0], nil
	}
	ci, ok := cfg.Instance(name)
	if !ok {
		msg := fmt.Sprintf("no instance %q in the configuration; its instances: %s", name, strings.Join(names, ", "))
		if s := config.Suggest(name, names); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		}
		return config.Instance{}, errors.New(msg)
	}
	return ci, nil
}

// inproc POSTs body to path on h in memory, as a loopback client would.
func inproc(h http.Handler, path string, body []byte, hdr http.Header) (int, []byte, http.Header) {
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1"+path, bytes.NewReader(body))
	req.Host = "127.0.0.1"
	req.RemoteAddr = "127.0.0.1:1"
	req.Header.Set("Content-Type", "application/json")
	for k, vs := range hdr {
		req.Header[k] = vs
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes(), rec.Header()
}

// printTools writes the plain form of a tools/list result.
func printTools(stdout, stderr io.Writer, inst *server.Instance, result json.RawMessage, seeded, off bool) int {
	v, err := framework.ParseJSON(result)
	if err != nil {
		fmt.Fprintf(stderr, "gymkit tools: %v\n", err)
		return exitError
	}
	list, _ := v.Get("tools")
	head := fmt.Sprintf("%s (%s): %s over MCP", inst.Name, inst.ServerType, plural(len(list.Items), "tool"))
	if seeded {
		head += ", for this seed"
	}
	fmt.Fprintln(stdout, head)
	if off {
		fmt.Fprintln(stdout, "(expose_tools_over_mcp is false: the instance serves them over HTTP only)")
	}
	for _, t := range list.Items {
		name, _ := t.Get("name")
		desc, _ := t.Get("description")
		schema, _ := t.Get("inputSchema")
		props, _ := schema.Get("properties")
		req, _ := schema.Get("required")
		var required []string
		for _, r := range req.Items {
			required = append(required, r.Str)
		}
		var params []string
		for _, m := range props.Members {
			opt := "?"
			if slices.Contains(required, m.Key) {
				opt = ""
			}
			param := m.Key + opt + ": " + schemaType(m.Value)
			if def, ok := m.Value.Get("default"); ok {
				if b, err := def.MarshalJSON(); err == nil {
					param += " = " + string(b)
				}
			}
			params = append(params, param)
		}
		if ap, ok := schema.Get("additionalProperties"); len(params) == 0 && ok && ap.Kind == framework.KindBool && ap.Bool {
			params = append(params, "{...}") // a dict body: any JSON object
		} else if ok && ap.Kind == framework.KindBool && ap.Bool {
			params = append(params, "...") // and any other key (extra="allow")
		}
		fmt.Fprintf(stdout, "\n%s(%s)\n", name.Str, strings.Join(params, ", "))
		if d := strings.TrimSpace(desc.Str); d != "" {
			fmt.Fprintf(stdout, "    %s\n", strings.ReplaceAll(d, "\n", "\n    "))
		}
	}
	return exitOK
}

// schemaType is a short type of a JSON Schema: its type, a list's item type
// ([]string), anyOf alternatives joined by |, "any" otherwise.
func schemaType(s framework.Value) string {
	if t, ok := s.Get("type"); ok {
		switch t.Kind {
		case framework.KindString:
			if t.Str == "array" {
				if it, ok := s.Get("items"); ok {
					return "[]" + schemaType(it)
				}
			}
			return t.Str
		case framework.KindArray:
			var parts []string
			for _, x := range t.Items {
				parts = append(parts, x.Str)
			}
			return strings.Join(parts, "|")
		}
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := s.Get(k); ok {
			var parts []string
			for _, x := range alts.Items {
				parts = append(parts, schemaType(x))
			}
			return strings.Join(parts, "|")
		}
	}
	if _, ok := s.Get("enum"); ok {
		return "enum"
	}
	return "any"
}

// versionText is what --version prints.
func versionText() string {
	in := buildinfo.Read()
	s := "gymkit " + in.Version
	if in.Replace != "" {
		s += " => " + in.Replace
	}
	if in.Main != "" {
		s += ", in " + in.Main
	}
	if in.Revision != "" {
		s += ", revision " + in.Revision
		if in.Modified {
			s += " (modified)"
		}
	}
	return s + "\n"
}

// secretWords mark keys whose string values gymkit config masks.
var secretWords = []string{"secret", "token", "password", "passwd", "api_key", "apikey", "private_key"}

func isSecretKey(k string) bool {
	k = strings.ToLower(k)
	for _, w := range secretWords {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}

// mask replaces the string values (and lists of strings) under secret keys
// with config.Redacted, in place.
func mask(v any, secret bool) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = mask(e, secret || isSecretKey(k))
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = mask(e, secret)
		}
		return x
	case string:
		if secret && x != "" {
			return config.Redacted
		}
	}
	return v
}

// dumpConfig is the resolved, masked tree as YAML.
func dumpConfig(cfg *config.Config) ([]byte, error) {
	tree, err := cfg.Resolved()
	if err != nil {
		return nil, err
	}
	mask(tree, false)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(tree); err != nil {
		return nil, err
	}
	_ = enc.Close()
	return buf.Bytes(), nil
}

// storeNote is the ok line's note on a Redis session store: its address and
// whether it answered a Ping within server.ReadyPingTimeout ("" for the
// memory store).
func storeNote(ctx context.Context, in *server.Instance) string {
	if in.Config.Session.Store != config.SessionStoreRedis || in.Sessions == nil {
		return ""
	}
	st := in.Sessions.State()
	for {
		u, ok := st.(interface{ Unwrap() session.StateStore })
		if !ok {
			break
		}
		st = u.Unwrap()
	}
	note := ", session store redis"
	if a, ok := st.(interface{ Addr() string }); ok {
		note += " at " + a.Addr()
	}
	p, ok := st.(server.StorePinger)
	if !ok {
		return note
	}
	pctx, cancel := context.WithTimeout(ctx, server.ReadyPingTimeout)
	defer cancel()
	if err := p.Ping(pctx); err != nil {
		return note + ": does not answer (serve starts; calls that read or write rollout state answer 503 until it does)"
	}
	return note + ": answers"
}

// dropRepeated leaves out the build errors that repeat a config problem
// (the build refuses what the loader already reported, such as
// session.store: redis without session_secret): each is printed once, with
// its file and line.
func dropRepeated(errs []error, problems config.Problems) []error {
	var out []error
	for _, e := range errs {
		repeated := false
		for _, p := range problems {
			if p.Message != "" && strings.HasSuffix(e.Error(), ": "+p.Message) {
				repeated = true
				break
			}
		}
		if !repeated {
			out = append(out, e)
		}
	}
	return out
}
