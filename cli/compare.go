package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gymkit/gymkit/compare"
	"github.com/gymkit/gymkit/config"
	rl "github.com/gymkit/gymkit/rollout"
)

// The compare command joins the command list after rollout.
var compareCommand = &command{
	name:    "compare",
	summary: "replay rows against a reference server and a gymkit instance and diff every answer",
	usage:   compareUsage,
	run:     runCompare,
}

const compareUsage = `Usage: gymkit compare --reference URL (--config FILE | --url URL) --input ROWS.jsonl [flags] [key=value ...]

Check a port of a NeMo Gym environment against its original: replay dataset rows or
recorded rollouts against a reference server (the Python original, by URL) and a
gymkit instance, each side step by step as NeMo's agents send them, and compare
every answer.

Each side runs each row's rollout as gymkit rollout does (the same client): POST
/seed_session with the row, the row's function calls in order through the door, then
POST /verify; the cookie jar is replaced by each answer (as simple_agent does), and
on the MCP door each side calls with its own token, from its own seed. Rollouts run
one at a time, the reference's first; both sides get the same created_at.

Each step's answers are compared on:
  status        the HTTP status
  content-type  the Content-Type header
  set-cookie    each cookie's attributes, lower-cased, in order, and the part of its
                name after "___" (not the name's first part: NeMo's Python class
                name, gymkit's server type; not the value)
  body          the bytes, then, when both are JSON, the values with Python's number
                forms (body $.reward: 1 vs 1.0 (number form)), missing and extra keys
                and items, types, key order
Each side's per-rollout values are masked in its bodies first: its MCP token
(<TOKEN>), its cookies' values (<COOKIE>), the session ids they carry (<SESSION_ID>).

The readable report goes to stdout as the rollouts complete: one line per rollout,
each step that is not equal with its differences (reference vs gymkit), then the
summary. --report FILE also writes it as JSON.

Allow-list (--allow FILE): a YAML list of the differences accepted, each with the
route of its step, a JSON path in the body (or below it) or a header, and the reason:
  - route: POST /verify
    path: $.judge_evaluations[*].response.created_at
    reason: the judge model answers with its own clock
  - route: "*"                       # every route; "*" matches any run of characters
    header: set-cookie               # :status, content-type or set-cookie
    reason: the reference runs with a shorter session lifetime
Paths: $ (the whole body), .name or ["odd name"], [3], [*] any item, .* any member,
(json) the JSON text inside a string ($.result.content[0].text(json).reward).
Routes: POST /seed_session, POST /<tool>, POST /mcp tools/call <tool>, POST /verify.
A missing step, a different route, or a request without a complete answer is never
allowed. docs/examples/compare-allow.yaml allow-lists fields NeMo takes from the clock.

gymkit side:
  By default gymkit starts the configured instance in process on 127.0.0.1 at a free
  port in port_range_low..port_range_high (or --port N), as gymkit rollout does. --url
  targets a running gymkit instance instead; --config is then optional and only names
  the instance. Config files and key=value overrides work as for gymkit serve.

Flags:
      --reference URL       the reference server's base URL; required
  -c, --config FILE         gymkit's config file to merge; repeatable
      --url URL             a running gymkit instance instead of one started in process
  -i, --input FILE          the rows (JSONL), as gymkit rollout reads them; required
      --door DOOR           http or mcp (default http)
      --allow FILE          the allow-list (YAML; above)
      --report FILE         write the report as JSON to FILE
      --instance NAME       the instance, when the configuration has several
      --limit N             use only the first N rows (default: all)
      --agent-name NAME     agent_ref name of rows without one (as gymkit rollout)
      --port N              the port of the instance started in process
      --request-timeout D   the longest one request may take, to the last byte of its
                            answer (default 10m, as gymkit rollout)
      --max-answer-bytes N  the largest answer body, in bytes or with a KiB, MiB or GiB
                            suffix (default 64MiB, at most 1GiB, as gymkit rollout)
      --max-answer-values N the most JSON values of an answer parsed, compared as
                            JSON (default 4000000, as gymkit rollout)
      --log-format FORMAT   the in-process instance's logs on stderr: text or json
      --log-level LEVEL     debug, info, warn or error (default error)
  -h, --help                show this help

Example:
  gymkit compare --reference http://127.0.0.1:8000 \
      --config servers/example_mcp_weather/configs/example_mcp_weather.yaml \
      --input rows.jsonl --door mcp --allow compare-allow.yaml --report /tmp/compare.json

Exit status: 0 when every step's answers are equal or their differences allowed; 1 when
a difference is not allowed, a step got no complete answer on a side, a server cannot
be reached, the instance fails to build, or the report cannot be written at the end;
2 for a usage, configuration, input or allow-list error, or a --report file that
cannot be opened or is the --input or --allow file (nothing was run).
`

// compareArgs are gymkit compare's parsed arguments.
type compareArgs struct {
	commonFlags // --config, --log-format, --log-level
	overrides   []string
	reference   string
	url         string
	input       string
	door        rl.Door
	allow       string
	report      string
	instance    string
	limit       int
	agentName   string
	port        int
	bounds      // --request-timeout, --max-answer-bytes, --max-answer-values
}

func knownCompareFlag(name string) bool {
	switch name {
	case "reference", "c", "config", "url", "i", "input", "door", "allow", "report", "instance", "limit",
		"agent-name", "port", "request-timeout", "max-answer-bytes", "max-answer-values", "log-format", "log-level":
		return true
	}
	return false
}

// parseCompareArgs reads gymkit compare's arguments with gymkit serve's
// conventions (see parseRolloutArgs).
func parseCompareArgs(args []string) (compareArgs, error) {
	a := compareArgs{door: rl.DoorHTTP, commonFlags: commonFlags{logFormat: "text", logLevel: slog.LevelError}}
	httpURL := func(flag, value string) (string, error) {
		if !strings.HasPrefix(value, "http://") && !strings.HasPrefix(value, "https://") {
			return "", fmt.Errorf("flag %s: %q is not an http:// or https:// URL", flag, value)
		}
		return value, nil
	}
	s := argScanner{
		known: knownCompareFlag,
		hints: map[string]string{".yaml": "--config", ".yml": "--config", ".jsonl": "--input"},
		usage: "rows are given with --input FILE, config files with --config FILE, overrides have the form key=value",
		set: func(flag, name, value string) error {
			if ok, err := a.commonFlags.set(flag, name, value); ok {
				return err
			}
			if ok, err := a.bounds.set(flag, name, value); ok {
				return err
			}
			var err error
			switch name {
			case "reference":
				a.reference, err = httpURL(flag, value)
			case "url":
				a.url, err = httpURL(flag, value)
			case "i", "input":
				a.input = value
			case "door":
				if value != string(rl.DoorHTTP) && value != string(rl.DoorMCP) {
					return fmt.Errorf("flag %s: %q is not a door: http or mcp", flag, value)
				}
				a.door = rl.Door(value)
			case "allow":
				a.allow = value
			case "report":
				a.report = value
			case "instance":
				a.instance = value
			case "limit":
				n, perr := strconv.Atoi(value)
				if perr != nil || n < 0 {
					return fmt.Errorf("flag %s: %q is not a positive integer", flag, value)
				}
				a.limit = n
			case "agent-name":
				a.agentName = value
			case "port":
				n, perr := strconv.Atoi(value)
				if perr != nil || n < 1 || n > 65535 {
					return fmt.Errorf("flag %s: %q is not a port between 1 and 65535", flag, value)
				}
				a.port = n
			}
			return err
		},
	}
	var err error
	if a.overrides, err = s.scan(args); err != nil {
		return a, err
	}
	switch {
	case a.reference == "":
		return a, errors.New("--reference URL (the reference server, e.g. the Python original) is required")
	case a.input == "":
		return a, errors.New("--input FILE is required")
	case len(a.files) == 0 && a.url == "":
		return a, errors.New("--config FILE is required (or --url URL of a running gymkit instance)")
	case a.url != "" && len(a.overrides) > 0 && len(a.files) == 0:
		return a, errors.New("key=value overrides need --config FILE")
	case a.url != "" && a.port != 0:
		return a, errors.New("--port is the port of the instance gymkit compare starts; with --url it serves nothing")
	}
	return a, nil
}

// runCompare is gymkit compare.
func runCompare(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	a, err := parseCompareArgs(args)
	if errors.Is(err, errHelp) {
		fmt.Fprint(stdout, compareUsage)
		return exitOK
	}
	if err != nil {
		synopsis, _, _ := strings.Cut(compareUsage, "\n")
		fmt.Fprintf(stderr, "gymkit compare: %v\n%s\nRun \"gymkit compare --help\" for the flags.\n", err, synopsis)
		return exitUsage
	}
	logger := newLogger(stderr, a.logFormat, a.logLevel)
	fail := func(code int, format string, args ...any) int {
		fmt.Fprintf(stderr, "gymkit compare: "+format+"\n", args...)
		return code
	}
	configError := func(err error) int {
		var problems config.Problems
		var usage *rl.UsageError
		if errors.As(err, &problems) || errors.As(err, &usage) {
			explainProblems(problems)
			return fail(exitUsage, "%v", err)
		}
		return fail(exitError, "%v", err)
	}

	// The rows and the allow-list are checked before an instance is
	// started or reached.
	if fi, err := os.Stat(a.input); err != nil || fi.IsDir() {
		msg := "is a directory, not a file of rows"
		var pe *fs.PathError
		if errors.As(err, &pe) {
			msg = pe.Err.Error()
		} else if err != nil {
			msg = err.Error()
		}
		return fail(exitUsage, "%v", &rl.InputError{Path: a.input, Msg: msg})
	}
	if err := rl.CheckInput(a.input, a.limit); err != nil {
		return fail(exitUsage, "%v", err)
	}
	var allow *compare.AllowList
	if a.allow != "" {
		if allow, err = compare.LoadAllowList(a.allow); err != nil {
			return fail(exitUsage, "allow-list: %v", err)
		}
	}
	var report *reportFile
	if a.report != "" {
		for _, other := range []struct{ flag, path string }{{"--input", a.input}, {"--allow", a.allow}} {
			if other.path != "" && sameFile(a.report, other.path) {
				return fail(exitUsage, "--report %s is the %s file: the report would overwrite it", a.report, other.flag)
			}
		}
		if report, err = openReport(a.report); err != nil {
			return fail(exitUsage, "--report: %v", err)
		}
		defer report.discard()
	}

	eopts := rl.EmbedOptions{Files: a.files, Overrides: a.overrides, Instance: a.instance, Logger: logger, Port: a.port}
	base, instance := a.url, ""
	if a.url != "" {
		if len(a.files) > 0 {
			_, ci, err := rl.SelectInstance(eopts)
			if err != nil {
				return configError(err)
			}
			instance = ci.Name
		}
	} else {
		e, err := rl.Start(ctx, eopts)
		if err != nil {
			return configError(err)
		}
		defer e.Close()
		if a.door == rl.DoorMCP && !e.Instance.Config.ExposeToolsOverMCP {
			return fail(exitUsage, "--door mcp: instance %q does not serve MCP; set expose_tools_over_mcp: true (override: %s.expose_tools_over_mcp=true)",
				e.Instance.Name, e.Instance.Config.Path())
		}
		base, instance = e.URL, e.Instance.Name
		fmt.Fprintf(stderr, "gymkit compare: instance %s (%s) serving in process at %s\n", instance, e.Instance.ServerType, base)
	}

	rep, err := compare.Run(ctx, compare.Options{
		Input: a.input, Limit: a.limit, Door: a.door, Reference: a.reference, Gymkit: base, Instance: instance,
		AgentName: a.agentName, Allow: allow, AllowFile: a.allow,
		RequestTimeout: a.requestTimeout, MaxAnswerBytes: a.maxAnswerBytes, MaxAnswerValues: a.maxAnswerValues, Out: stdout,
	})
	if err != nil {
		var inputErr *rl.InputError
		if errors.As(err, &inputErr) {
			return fail(exitUsage, "%v", err)
		}
		return fail(exitError, "%v", err)
	}
	code := exitOK
	if report != nil {
		if err := report.write(rep); err != nil {
			code = fail(exitError, "writing the report: %v", err)
		} else {
			fmt.Fprintf(stdout, "gymkit compare: report written to %s\n", a.report)
		}
	}
	if !rep.OK() {
		s := rep.Summary
		switch {
		case s.NotRun > 0:
			fmt.Fprintf(stderr, "gymkit compare: interrupted: %d of %d rollouts not compared\n", s.NotRun, s.Rollouts+s.NotRun)
		default:
			fmt.Fprintf(stderr, "gymkit compare: %s not in the allow-list, in %d of %s\n",
				plural(s.Differences, "difference"), s.Different, plural(s.Steps, "step"))
		}
		return exitError
	}
	return code
}

// reportFile is the --report file, opened before anything runs so that one
// that cannot be written is refused at once.
type reportFile struct {
	f       *os.File
	created bool // the file did not exist: removed again when no report is written
	written bool
}

// openReport opens path for writing (creating its folder and the file, not
// truncating it yet).
func openReport(path string) (*reportFile, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	_, statErr := os.Stat(path)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	return &reportFile{f: f, created: errors.Is(statErr, fs.ErrNotExist)}, nil
}

// write replaces the file's content with the JSON report and closes it.
func (r *reportFile) write(rep *compare.Report) error {
	r.written = true
	if err := r.f.Truncate(0); err != nil {
		r.f.Close()
		return err
	}
	if err := rep.WriteJSON(r.f); err != nil {
		r.f.Close()
		return err
	}
	return r.f.Close()
}

// discard closes a report file that was not written, and removes it when
// openReport created it.
func (r *reportFile) discard() {
	if r.written {
		return
	}
	r.f.Close()
	if r.created {
		os.Remove(r.f.Name())
	}
}

// sameFile reports whether two paths name the same file (an existing one,
// or the same absolute path).
func sameFile(a, b string) bool {
	x, errA := os.Stat(a)
	y, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(x, y)
	}
	ax, _ := filepath.Abs(a)
	bx, _ := filepath.Abs(b)
	return ax == bx
}
