package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/gymkit/gymkit/config"
	rl "github.com/gymkit/gymkit/rollout"
)

// The rollout command joins the command list here, after serve.
var rolloutCommand = &command{
	name:    "rollout",
	summary: "replay dataset rows through an instance and write NeMo's rollout files",
	usage:   rolloutUsage,
	run:     runRollout,
}

const rolloutUsage = `Usage: gymkit rollout --config FILE --input ROWS.jsonl --output RESULTS.jsonl [flags] [key=value ...]

Replay dataset rows against a resources-server instance, without a model, and write
what NeMo Gym's rollout collector (gym eval run / ng_collect_rollouts) writes.

For each row and repeat: POST /seed_session with the row (with _ng_task_index,
_ng_rollout_index and agent_ref, as NeMo's agents send it); replay the row's function
calls in order through the chosen door; then POST /verify with the row and a
Responses API "response" holding the calls, their outputs as the server returned
them, and the row's final assistant message. The calls are the function_call items
of the row's response.output (a recorded rollout), else its ground_truth list of
{"name", "arguments"}. A row with neither (no call and no final assistant message to
replay) is still seeded and verified, with a response that has no output, which
environments score 0: before any rollout, one warning line per such row on stderr
names the row (counted from 0), its input line and why, e.g.

  gymkit rollout: warning: row 2 (input line 3) has nothing to replay: it has no
  recorded "response", and its "ground_truth" is a string, not a list of {"name",
  "arguments"} calls; it is only seeded and verified, with a response that has no output

Doors:
  http   POST /<tool> with the rollout's cookie, as simple_agent does; the output is
         the raw answer, whatever its status.
  mcp    MCP tools/call at the seed's mcp url_path with its session token, as
         claude_code_agent does; calls are recorded as mcp__<server_name>__<tool> and
         the output is the result's text. Needs expose_tools_over_mcp: true.

A tool's error answer is an output. A rollout fails only when the seed or verify
answer is not a 2xx JSON object or a request cannot be made or gets no complete answer
within --request-timeout, --max-answer-bytes and --max-answer-values; it is then
written to the failures
file with its class (seed_failed, verify_failed, transport, timeout,
answer_too_large), listed on stderr with its task and rollout index, and the run
goes on.

Files (beside --output, named from its stem):
  RESULTS.jsonl                         one line per successful rollout, in completion order
  RESULTS_materialized_inputs.jsonl     the rows as sent, task-major
  RESULTS_failures.jsonl                failed rollouts (appended to; created even if empty)
  RESULTS_aggregate_metrics.json        one POST /aggregate_metrics over the results

Instance:
  By default gymkit starts the configured instance in process on 127.0.0.1, at a
  free port in port_range_low..port_range_high (or --port N); its configured host and
  port are not used. --url targets a running instance instead;
  --config is then optional and only names the instance. Config files and key=value
  overrides work as for gymkit serve (see gymkit serve --help).

Flags:
  -c, --config FILE         a config file to merge; repeatable
  -i, --input FILE          the rows (JSONL); required
  -o, --output FILE         the results file (JSONL); required
      --door DOOR           http or mcp (default http)
      --instance NAME       the instance, when the configuration has several
      --url URL             the base URL of a running instance (http://127.0.0.1:8000)
      --concurrency N       rollouts at once (default 8)
      --limit N             use only the first N rows (default: all)
      --num-repeats N       rollouts per row, task-major: abc -> aabbcc (default 1);
                            rows × N is at most 1000000 rollouts
      --port N              the port of the instance started in process (default: a
                            free one in port_range_low..port_range_high, 10001-20000)
      --agent-name NAME     agent_ref name of rows without one (default
                            <instance>_simple_agent, or <instance>_claude_code_agent
                            with --door mcp; simple_agent or claude_code_agent with
                            --url and no --config: the instance is not known)
      --request-timeout D   the longest one request (seed, tool call, verify,
                            aggregate_metrics) may take, to the last byte of its
                            answer, as a Go duration: 90s, 10m (default 10m: a verify
                            that asks an LLM judge can take minutes); the rollout then
                            fails with the class timeout
      --max-answer-bytes N  the largest answer body of one request, in bytes, or with
                            a KiB, MiB or GiB suffix (default 64MiB: four times the
                            16 MiB verify body an instance accepts by default, which
                            its answer echoes), at most 1GiB; the rollout then fails
                            with the class answer_too_large
      --max-answer-values N the most JSON values of an answer the client parses (the
                            seed, the verify; default 4000000: twice the 2,000,000 of
                            an instance's max_json_elements, which a verify answer
                            echoes); also answer_too_large beyond
      --log-format FORMAT   the in-process instance's logs on stderr: text or json
      --log-level LEVEL     debug, info, warn or error (default error)
  -h, --help                show this help

Examples:
  gymkit rollout --config servers/example_mcp_weather/configs/example_mcp_weather.yaml \
      --input rows.jsonl --output /tmp/weather.jsonl --door mcp

  gymkit rollout --url http://127.0.0.1:8000 --input rows.jsonl --output /tmp/out.jsonl \
      --num-repeats 4 --concurrency 16

Progress: a progress bar on stderr when it is a terminal; otherwise the collector's
"Finished N / M rollouts" lines on stdout.

Exit status: 0 when every rollout succeeded; 1 when any failed (every file is still
written), the aggregate metrics could not be computed, the instance failed to build,
or --url cannot be reached (one error; nothing is run or written); 2 for a usage, configuration or input error (nothing was run).
`

// rolloutArgs are gymkit rollout's parsed arguments.
type rolloutArgs struct {
	commonFlags // --config, --log-format, --log-level
	overrides   []string
	input       string
	output      string
	door        rl.Door
	instance    string
	url         string
	concurrency int
	limit       int
	numRepeats  int
	agentName   string
	port        int // --port: the embedded instance's loopback port; 0: one in port_range_*
	bounds          // --request-timeout, --max-answer-bytes, --max-answer-values
}

// bounds are the client's per-request bounds (--request-timeout,
// --max-answer-bytes, --max-answer-values), shared by rollout and compare;
// zero means the default.
type bounds struct {
	requestTimeout  time.Duration
	maxAnswerBytes  int64
	maxAnswerValues int
}

// set applies --request-timeout, --max-answer-bytes or --max-answer-values
// and reports whether name was one of them.
func (b *bounds) set(flag, name, value string) (bool, error) {
	switch name {
	case "max-answer-values":
		n, err := strconv.Atoi(value)
		if err != nil || n <= 0 {
			return true, fmt.Errorf("flag %s: %q is not a positive number of JSON values", flag, value)
		}
		b.maxAnswerValues = n
	case "request-timeout":
		d, err := time.ParseDuration(value)
		if err != nil || d <= 0 {
			return true, fmt.Errorf("flag %s: %q is not a positive duration such as 90s or 10m", flag, value)
		}
		b.requestTimeout = d
	case "max-answer-bytes":
		n, err := parseBytes(value)
		if err != nil {
			return true, fmt.Errorf("flag %s: %v", flag, err)
		}
		if n > rl.MaxAnswerBytesLimit {
			return true, fmt.Errorf("flag %s: %q is more than %dGiB, the largest answer bound (an answer is held in memory, parsed)", flag, value, rl.MaxAnswerBytesLimit>>30)
		}
		b.maxAnswerBytes = n
	default:
		return false, nil
	}
	return true, nil
}

// parseBytes reads a positive number of bytes: an integer, optionally
// followed by KiB, MiB or GiB (powers of 1024).
func parseBytes(s string) (int64, error) {
	num, mult := s, int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}} {
		if strings.HasSuffix(s, u.suffix) {
			num, mult = strings.TrimSuffix(s, u.suffix), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("%q is not a positive number of bytes (an integer, optionally with a KiB, MiB or GiB suffix)", s)
	}
	return n * mult, nil
}

// parseRolloutArgs reads gymkit rollout's arguments with gymkit serve's
// conventions: flags and key=value overrides interleaved, one or two dashes,
// a value inline after "=" or in the next argument, every argument after
// "--" an override.
func parseRolloutArgs(args []string) (rolloutArgs, error) {
	a := rolloutArgs{door: rl.DoorHTTP, commonFlags: commonFlags{logFormat: "text", logLevel: slog.LevelError}}
	s := argScanner{
		known: knownRolloutFlag,
		hints: map[string]string{".yaml": "--config", ".yml": "--config", ".jsonl": "--input"},
		usage: "rows are given with --input FILE, config files with --config FILE, overrides have the form key=value",
		set: func(flag, name, value string) error {
			positive := func(zeroOK bool) (int, error) {
				n, err := strconv.Atoi(value)
				if err != nil || n < 0 || (n == 0 && !zeroOK) {
					return 0, fmt.Errorf("flag %s: %q is not a positive integer", flag, value)
				}
				return n, nil
			}
			if ok, err := a.commonFlags.set(flag, name, value); ok {
				return err
			}
			if ok, err := a.bounds.set(flag, name, value); ok {
				return err
			}
			var err error
			switch name {
			case "i", "input":
				a.input = value
			case "o", "output":
				a.output = value
			case "door":
				if value != string(rl.DoorHTTP) && value != string(rl.DoorMCP) {
					return fmt.Errorf("flag %s: %q is not a door: http or mcp", flag, value)
				}
				a.door = rl.Door(value)
			case "instance":
				a.instance = value
			case "url":
				if !strings.HasPrefix(value, "http://") && !strings.HasPrefix(value, "https://") {
					return fmt.Errorf("flag %s: %q is not an http:// or https:// URL", flag, value)
				}
				a.url = value
			case "concurrency":
				a.concurrency, err = positive(false)
			case "limit":
				a.limit, err = positive(true)
			case "num-repeats":
				a.numRepeats, err = positive(false)
				if err == nil && a.numRepeats > rl.MaxRollouts {
					return fmt.Errorf("flag %s: %d repeats of one row are more than the %d rollouts a run makes", flag, a.numRepeats, rl.MaxRollouts)
				}
			case "agent-name":
				a.agentName = value
			case "port":
				n, err := strconv.Atoi(value)
				if err != nil || n < 1 || n > 65535 {
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
	case a.input == "":
		return a, errors.New("--input FILE is required")
	case a.output == "":
		return a, errors.New("--output FILE is required")
	case len(a.files) == 0 && a.url == "":
		return a, errors.New("--config FILE is required (or --url URL of a running instance)")
	case a.url != "" && len(a.overrides) > 0 && len(a.files) == 0:
		return a, errors.New("key=value overrides need --config FILE")
	case a.url != "" && a.port != 0:
		return a, errors.New("--port is the port of the instance gymkit rollout starts; with --url it serves nothing")
	}
	for _, o := range a.overrides {
		key, _, _ := strings.Cut(strings.TrimLeft(o, "+"), "=")
		if flag, ok := collectorOptions[key]; ok {
			return a, fmt.Errorf("%q is a NeMo collector option, not a config key: here it is the flag %s", o, flag)
		}
	}
	return a, nil
}

// collectorOptions are NeMo's `gym eval run` / ng_collect_rollouts options
// that users type as +key=value out of habit; gymkit rollout has flags for
// them (or does not support them) and would otherwise take them as config
// overrides that change nothing.
var collectorOptions = map[string]string{
	"num_repeats":             "--num-repeats N",
	"limit":                   "--limit N",
	"num_samples_in_parallel": "--concurrency N",
	"agent_name":              "--agent-name NAME",
	"input_jsonl_fpath":       "--input FILE",
	"output_jsonl_fpath":      "--output FILE",
	"resume_from_cache":       "(not supported: the results file is rewritten)",
	"disable_aggregation":     "(not supported: aggregation always runs)",
	"num_repeats_add_seed":    "(not supported)",
}

func knownRolloutFlag(name string) bool {
	switch name {
	case "c", "config", "i", "input", "o", "output", "door", "instance", "url", "concurrency", "limit",
		"num-repeats", "agent-name", "log-format", "log-level", "port", "request-timeout", "max-answer-bytes", "max-answer-values":
		return true
	}
	return false
}

// runRollout is gymkit rollout.
func runRollout(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	a, err := parseRolloutArgs(args)
	if errors.Is(err, errHelp) {
		fmt.Fprint(stdout, rolloutUsage)
		return exitOK
	}
	if err != nil {
		synopsis, _, _ := strings.Cut(rolloutUsage, "\n")
		fmt.Fprintf(stderr, "gymkit rollout: %v\n%s\nRun \"gymkit rollout --help\" for the flags.\n", err, synopsis)
		return exitUsage
	}
	logger := newLogger(stderr, a.logFormat, a.logLevel)
	fail := func(code int, format string, args ...any) int {
		fmt.Fprintf(stderr, "gymkit rollout: "+format+"\n", args...)
		return code
	}
	configError := func(err error) int {
		var problems config.Problems
		var usage *rl.UsageError
		if errors.As(err, &problems) || errors.As(err, &usage) {
			explainProblems(problems) // in place: err holds the same elements
			return fail(exitUsage, "%v", err)
		}
		return fail(exitError, "%v", err)
	}

	// The rows are checked before an instance is started or reached.
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
	if err := rl.CheckRollouts(a.input, a.limit, a.numRepeats); err != nil {
		return fail(exitUsage, "%v", err)
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
		fmt.Fprintf(stderr, "gymkit rollout: instance %s (%s) serving in process at %s\n", instance, e.Instance.ServerType, base)
	}

	var progress rl.Progress
	if f, ok := stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		progress = rl.NewProgressBar(stderr)
	}
	sum, err := rl.Run(ctx, rl.Options{
		Input: a.input, Output: a.output, URL: base, Door: a.door, Instance: instance, AgentName: a.agentName,
		Concurrency: a.concurrency, Limit: a.limit, NumRepeats: a.numRepeats,
		Stdout: stdout, Warn: stderr, Progress: progress,
		RequestTimeout: a.requestTimeout, MaxAnswerBytes: a.maxAnswerBytes, MaxAnswerValues: a.maxAnswerValues,
	})
	var inputErr *rl.InputError
	var noMCP *rl.NoMCPError
	if errors.As(err, &inputErr) || errors.As(err, &noMCP) {
		return fail(exitUsage, "%v", err) // the wrong door: one error, as with --config
	}
	if sum == nil {
		return fail(exitError, "%v", err)
	}
	printSummary(stdout, stderr, sum, a.door, instance)
	if err != nil {
		return fail(exitError, "%v", err)
	}
	if sum.Failed > 0 || sum.NotRun > 0 {
		return exitError
	}
	return exitOK
}

// printSummary writes gymkit's one-line summary on stdout and the first
// failures on stderr.
func printSummary(stdout, stderr io.Writer, sum *rl.Summary, door rl.Door, instance string) {
	of := ""
	if instance != "" {
		of = " of " + instance
	}
	line := fmt.Sprintf("gymkit rollout: %s through the %s door%s: %d succeeded, %d failed", plural(sum.Total, "rollout"), door, of, sum.Succeeded, sum.Failed)
	if len(sum.ByClass) > 0 {
		var parts []string
		for _, class := range slices.Sorted(maps.Keys(sum.ByClass)) {
			parts = append(parts, fmt.Sprintf("%s: %d", class, sum.ByClass[class]))
		}
		line += " (" + strings.Join(parts, ", ") + ")"
	}
	if sum.NotRun > 0 {
		line += fmt.Sprintf(", %d not run", sum.NotRun)
	}
	fmt.Fprintln(stdout, line)
	if sum.Failed > 0 {
		where := "they are"
		if sum.Failed == 1 {
			where = "it is"
		}
		fmt.Fprintf(stderr, "gymkit rollout: %s failed; %s in %s:\n", plural(sum.Failed, "rollout"), where, sum.Paths.Failures)
		for _, f := range sum.Failures {
			fmt.Fprintf(stderr, "  task %s rollout %s: %s: %s\n", f.TaskIndex, f.RolloutIndex, f.Class, f.Error)
		}
		if n := sum.Failed - len(sum.Failures); n > 0 {
			fmt.Fprintf(stderr, "  ... and %d more\n", n)
		}
	}
}

// plural is "1 rollout", "0 rollouts", "2 rollouts".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
