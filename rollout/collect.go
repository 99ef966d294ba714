package rollout

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/internal/pyjson"
)

// DefaultConcurrency is how many rollouts run at once unless
// Options.Concurrency says otherwise.
const DefaultConcurrency = 8

// MaxRollouts is the most rollouts one [Run] makes, rows × NumRepeats:
// 1,000,000. A run keeps every successful result (stripped) until it posts
// them to /aggregate_metrics, as NeMo's collector does, and writes every
// row to the materialized inputs file: beyond this, it would fill memory or
// disk before it finished. More is an *[InputError], before anything runs.
const MaxRollouts = 1_000_000

// NoMCPError is [Run]'s error on the MCP door when the instance's
// /seed_session answers without an "mcp" key: the instance does not serve
// MCP (expose_tools_over_mcp is off), so no rollout can call a tool. Run
// stops at the first such answer; that rollout and the ones not finished
// are counted in Summary.NotRun, and written nowhere.
type NoMCPError struct {
	URL string // the instance's base URL
}

// Error is "--door mcp: the instance at <URL> does not serve MCP: ...".
func (e *NoMCPError) Error() string {
	return fmt.Sprintf(`--door mcp: the instance at %s does not serve MCP: its /seed_session answer has no "mcp" key (set expose_tools_over_mcp: true in its config, or use --door http)`, e.URL)
}

// Options configure [Run].
type Options struct {
	// Input is the path of the rows (JSONL). Required.
	Input string
	// Output is the path of the results JSONL; the other files go beside it
	// (see [PathsFor]). Required.
	Output string
	// URL is the base URL of the instance ("http://127.0.0.1:8000").
	// Required.
	URL string
	// Door is how tools are called: DoorHTTP (the default) or DoorMCP.
	Door Door
	// Instance is the instance's name, when known: it names the default
	// agent and is the mcp__<instance>__ prefix stripped from recorded call
	// names on the HTTP door (over MCP the seed's server_name is used).
	Instance string
	// AgentName is the agent_ref name given to rows without one (NeMo's
	// +agent_name). "" means [DefaultAgentName](Instance, Door).
	AgentName string
	// Concurrency is how many rollouts run at once; 0 means
	// DefaultConcurrency.
	Concurrency int
	// Limit reads only the first Limit rows; 0 reads all.
	Limit int
	// NumRepeats is how many rollouts each row gets (task-major); 0 means 1.
	NumRepeats int
	// HTTPClient makes every request (seed, tools, verify, MCP,
	// aggregate_metrics); nil means a pooled client with enough idle
	// connections for Concurrency. RequestTimeout and MaxAnswerBytes bound
	// every request whatever the client. Run closes the client's idle
	// connections when it returns (http.Client.CloseIdleConnections), so
	// that the instance's drain does not wait for connections the client
	// keeps (Go's http.Server.Shutdown waits up to 5 s for one dialed but
	// never used).
	HTTPClient *http.Client
	// RequestTimeout bounds each request, from sending it to the last byte
	// of its answer (a rollout whose request reaches it fails with
	// FailureTimeout); 0 means DefaultRequestTimeout. The first GET / of
	// the run is bounded by the smaller of this and 30 seconds.
	RequestTimeout time.Duration
	// MaxAnswerBytes bounds each answer's body in bytes (a rollout whose
	// answer exceeds it fails with FailureTooLarge); 0 means
	// DefaultMaxAnswerBytes.
	MaxAnswerBytes int64
	// MaxAnswerValues bounds the JSON values of each answer parsed (a
	// rollout whose answer exceeds it fails with FailureTooLarge); 0 means
	// DefaultMaxAnswerValues.
	MaxAnswerValues int
	// Warn receives the warnings, one line per row with nothing to replay
	// (see [Run]); nil: os.Stderr.
	Warn io.Writer
	// Stdout receives the collector's prints (python-compat 2.5); nil
	// discards them.
	Stdout io.Writer
	// Progress shows the progress; nil prints the collector's "Finished N /
	// M rollouts" lines on Stdout instead.
	Progress Progress
	// Now is the clock (created_at, elapsed times); nil means time.Now.
	Now func() time.Time
}

// DefaultAgentName is the agent_ref name of rows without one, named as NeMo
// names the agent that drives an environment through that door:
// "<instance>_simple_agent" over HTTP and "<instance>_claude_code_agent"
// over MCP (without an instance name: "simple_agent", "claude_code_agent").
func DefaultAgentName(instance string, door Door) string {
	agent := "simple_agent"
	if door == DoorMCP {
		agent = "claude_code_agent"
	}
	if instance == "" {
		return agent
	}
	return instance + "_" + agent
}

// Progress shows a run's progress.
type Progress interface {
	// Start is called once, with the number of rollouts.
	Start(total int)
	// Done is called after each rollout.
	Done()
	// Finish is called once all rollouts are done.
	Finish()
}

// Summary is the outcome of a run.
type Summary struct {
	// Paths are the files written (Paths.Aggregate only when Aggregated).
	Paths Paths
	// Total is the number of rollouts (rows × repeats).
	Total int
	// Succeeded rollouts were written to the results file.
	Succeeded int
	// Failed rollouts were written to the failures file (or nowhere, for a
	// verify answer with a truthy _ng_no_persist); ByClass counts them by
	// _ng_failure_class ("no_persist" for those).
	Failed  int
	ByClass map[string]int
	// Failures are the first failures, in completion order.
	Failures []Failure
	// NotRun rollouts were not started or were cut off because the context
	// was done; they are written nowhere.
	NotRun int
	// Aggregated reports that the aggregate metrics file was written.
	Aggregated bool
	// Agents are the agents' key metrics, in the order computed.
	Agents []AgentMetrics
}

// Failure is one failed rollout.
type Failure struct {
	TaskIndex, RolloutIndex string // JSON text
	// Class is the failure's _ng_failure_class, as in Summary.ByClass.
	Class string
	// Error is the failure's message, as written to the failures file.
	Error string
}

// AgentMetrics are one agent's key metrics (an ordered JSON object).
type AgentMetrics struct {
	// Name is the agent's name, as in the aggregate metrics file.
	Name string
	// KeyMetrics is the agent's key_metrics object, in its key order.
	KeyMetrics framework.Value
}

// maxFailures bounds Summary.Failures.
const maxFailures = 20

// Run replays the rows of opts.Input against the instance at opts.URL and
// writes the collector's files (python-compat section 2):
//
//   - <stem>_materialized_inputs.jsonl: the rows with agent_ref,
//     _ng_task_index and _ng_rollout_index, task-major, before any rollout;
//   - the results file: one line per successful rollout, in completion
//     order: the verify answer with _ng_task_index, _ng_rollout_index and
//     agent_ref set (then skills_ref, _ng_attempt_index, _ng_rollout_id when
//     the row has them);
//   - <stem>_failures.jsonl (appended to, created even when empty): rollouts
//     whose verify answer has a non-null _ng_failure_class, and gymkit's own
//     failures (FailureSeed, FailureVerify, FailureTransport, FailureTimeout,
//     FailureTooLarge);
//   - <stem>_aggregate_metrics.json: one POST /aggregate_metrics per agent
//     with the successful rows, stripped as the collector strips them.
//
// A row with nothing to replay (no tool call and no final assistant
// message: no recorded "response" with an "output" list, and no
// "ground_truth" list of {"name", "arguments"} calls) is still seeded and
// verified, with a response that has no output (which environments score
// 0); before any rollout runs, Run writes one warning line per such row to
// opts.Warn, naming the row (counted from 0 in the input, as
// _ng_task_index counts distinct rows), its input line and why.
//
// A failed rollout is counted and written, never fatal. The error is an
// *InputError for bad input (nothing was run), an *UnreachableError when
// no connection to opts.URL can be made (one request, GET /, before any
// file is written or rollout run: one clear error rather than one transport
// failure per rollout), or a file or
// /aggregate_metrics failure; the Summary is returned whenever rollouts
// ran. When ctx is done, the rollouts not finished are written nowhere and
// counted in NotRun, and there is no aggregation.
func Run(ctx context.Context, opts Options) (*Summary, error) {
	if opts.Door == "" {
		opts.Door = DoorHTTP
	}
	if opts.Door != DoorHTTP && opts.Door != DoorMCP {
		return nil, fmt.Errorf("rollout: unknown door %q: http or mcp", opts.Door)
	}
	if opts.Input == "" || opts.Output == "" || opts.URL == "" {
		return nil, errors.New("rollout: Input, Output and URL are required")
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = DefaultConcurrency
	}
	if opts.NumRepeats <= 0 {
		opts.NumRepeats = 1
	}
	if opts.AgentName == "" {
		opts.AgentName = DefaultAgentName(opts.Instance, opts.Door)
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	out := opts.Stdout
	if out == nil {
		out = io.Discard
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc = pooledClient(opts.Concurrency)
	}
	defer hc.CloseIdleConnections()
	c, err := NewClient(ClientOptions{URL: opts.URL, Door: opts.Door, Instance: opts.Instance, HTTPClient: hc,
		RequestTimeout: opts.RequestTimeout, MaxAnswerBytes: opts.MaxAnswerBytes, MaxAnswerValues: opts.MaxAnswerValues, Now: now})
	if err != nil {
		return nil, err
	}

	if opts.Limit > 0 {
		fmt.Fprintf(out, "Limiting the number of rows to %d\n", opts.Limit)
	}
	fmt.Fprintf(out, "Repeating rows %d times (in a pattern of abc to aabbcc)!\n", opts.NumRepeats)
	in, err := readRows(opts.Input, opts.Limit)
	if err != nil {
		return nil, err
	}
	if err := tooManyRollouts(opts.Input, len(in), opts.NumRepeats); err != nil {
		return nil, err
	}
	mat := newMaterializer(in, opts.NumRepeats, opts.AgentName)
	total := mat.len()
	warn := opts.Warn
	if warn == nil {
		warn = os.Stderr
	}
	for i, r := range in {
		if why := nothingToReplay(r.row); why != "" {
			fmt.Fprintf(warn, "gymkit rollout: warning: row %d (input line %d) has nothing to replay: %s; it is only seeded and verified, with a response that has no output\n", i, r.line, why)
		}
	}

	paths := PathsFor(opts.Output)
	if same(opts.Input, paths.Results) || same(opts.Input, paths.Materialized) || same(opts.Input, paths.Failures) {
		return nil, &InputError{Path: opts.Input, Msg: "the output files would overwrite the input"}
	}
	if err := c.Reach(ctx); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(opts.Output), 0o755); err != nil {
		return nil, err
	}
	fmt.Fprintln(out, "Clearing output fpath since `resume_from_cache=False`!")
	if err := writeRows(paths.Materialized, mat); err != nil {
		return nil, err
	}
	if err := os.Remove(paths.Results); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	results, err := os.OpenFile(paths.Results, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer results.Close()
	failures, err := os.OpenFile(paths.Failures, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer failures.Close()
	fmt.Fprintf(out, "Querying with %d concurrent requests\n", opts.Concurrency)

	sum := &Summary{Paths: paths, Total: total, ByClass: map[string]int{}}
	var progress *nemoProgress
	if opts.Progress == nil {
		progress = newNemoProgress(out, mat.agents(), now)
	} else {
		opts.Progress.Start(total)
	}

	// Rollouts run on opts.Concurrency workers, in row order, each row made
	// when its rollout starts; this goroutine writes each result as it
	// completes. runCtx is ctx, also canceled when the instance turns out not
	// to serve the door (no rollout could succeed).
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	var noMCP *NoMCPError
	type done struct {
		pos     int
		row     framework.Value
		outcome rolloutOutcome
	}
	next := make(chan int)
	doneCh := make(chan done)
	var wg sync.WaitGroup
	for range min(opts.Concurrency, total) {
		wg.Go(func() {
			for pos := range next {
				row := mat.row(pos)
				doneCh <- done{pos, row, c.run(runCtx, pos, row, nil, false)}
			}
		})
	}
	go func() {
		defer close(next)
		for pos := range total {
			select {
			case next <- pos:
			case <-runCtx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(doneCh) }()

	var persisted []int                   // positions of the rows written to the results file
	stripped := map[int]framework.Value{} // their results, stripped for /aggregate_metrics
	var writeErr error
	finished := 0
	for d := range doneCh {
		row := d.row
		if f := d.outcome.failed; f != nil && f.noMCP && noMCP == nil {
			noMCP = &NoMCPError{URL: opts.URL}
			stop() // every other rollout would fail the same way
			continue
		}
		if d.outcome.failed != nil && runCtx.Err() != nil {
			continue // cut off: written nowhere, as NeMo's kill-shaped failures
		}
		finished++
		var result framework.Value
		class := ""
		if f := d.outcome.failed; f != nil {
			result = d.outcome.body
			set(&result, "reward", floatValue(0))
			set(&result, keyFailureClass, framework.StringValue(f.Class))
			set(&result, keyFailureError, framework.StringValue(f.Msg))
			class = f.Class
		} else {
			result = d.outcome.verified
			if fc, ok := result.Get(keyFailureClass); ok && fc.Kind != framework.KindNull {
				class = fc.Str
				if fc.Kind != framework.KindString {
					class = text(fc)
				}
			}
		}
		stamp(&result, row)
		line, err := compact(result)
		if err != nil {
			writeErr = errors.Join(writeErr, fmt.Errorf("encoding the result of task %s rollout %s: %w", index(row, keyTaskIndex), index(row, keyRolloutIndex), err))
			continue
		}
		line = append(line, '\n')
		noPersist := false
		if np, ok := result.Get(keyNoPersist); ok && truthy(pyjson.Materialize(np)) {
			noPersist = true
		}
		switch {
		case noPersist:
			sum.count("no_persist", row, "the verify answer has a truthy _ng_no_persist: written nowhere")
		case class != "":
			msg := ""
			if d.outcome.failed != nil {
				msg = d.outcome.failed.Msg
			} else if e, ok := result.Get("_ng_failure_judge_error"); ok {
				msg = e.Str
			}
			sum.count(class, row, msg)
			if _, err := failures.Write(line); err != nil {
				writeErr = errors.Join(writeErr, err)
			}
		default:
			sum.Succeeded++
			persisted = append(persisted, d.pos)
			if _, err := results.Write(line); err != nil {
				writeErr = errors.Join(writeErr, err)
			}
			// Kept until /aggregate_metrics, in its own bytes: not a view
			// of the whole verify answer (its response and
			// responses_create_params are stripped).
			kept, err := detach(strip(result))
			if err != nil {
				writeErr = errors.Join(writeErr, err)
			}
			stripped[d.pos] = kept
		}
		if progress != nil {
			progress.done(row, result)
		} else {
			opts.Progress.Done()
		}
	}
	if opts.Progress != nil {
		opts.Progress.Finish()
	}
	sum.NotRun = total - finished
	if err := errors.Join(writeErr, results.Close(), failures.Close()); err != nil {
		return sum, err
	}
	if noMCP != nil {
		return sum, noMCP
	}
	if ctx.Err() != nil {
		fmt.Fprintf(out, "Interrupted: %d of %d rollouts not run; skipping the aggregate metrics\n", sum.NotRun, sum.Total)
		printFinal(out, paths, false)
		return sum, nil
	}

	fmt.Fprintln(out, "Sorting results to ensure consistent ordering")
	// A stripped result carries its row's agent_ref and indexes (stamp).
	slices.SortStableFunc(persisted, func(a, b int) int { return compareRows(stripped[a], stripped[b]) })
	fmt.Fprintln(out, "Computing aggregate metrics")
	err = c.aggregate(ctx, out, sum, paths, persisted, stripped)
	printFinal(out, paths, sum.Aggregated)
	return sum, err
}

func (s *Summary) count(class string, row framework.Value, msg string) {
	s.Failed++
	s.ByClass[class]++
	if len(s.Failures) < maxFailures {
		s.Failures = append(s.Failures, Failure{TaskIndex: index(row, keyTaskIndex), RolloutIndex: index(row, keyRolloutIndex), Class: class, Error: msg})
	}
}

func index(row framework.Value, key string) string {
	v, _ := row.Get(key)
	return text(v)
}

// stamp sets the collector's keys of a result from its row (python-compat
// 2.2): _ng_task_index, _ng_rollout_index, agent_ref, then skills_ref,
// _ng_attempt_index and _ng_rollout_id when the row has them; in place when
// the result has them already.
func stamp(result *framework.Value, row framework.Value) {
	for _, k := range []string{keyTaskIndex, keyRolloutIndex, keyAgentRef} {
		v, _ := row.Get(k)
		set(result, k, v)
	}
	for _, k := range []string{keySkillsRef, keyAttemptIndex, keyRolloutID} {
		if v, ok := row.Get(k); ok {
			set(result, k, v)
		}
	}
}

// compareRows orders rows by (task, rollout) index: numbers numerically,
// then other values by their JSON text.
func compareRows(a, b framework.Value) int {
	for _, k := range []string{keyTaskIndex, keyRolloutIndex} {
		x, _ := a.Get(k)
		y, _ := b.Get(k)
		if c := compareValues(x, y); c != 0 {
			return c
		}
	}
	return 0
}

func compareValues(x, y framework.Value) int {
	if x.Kind == framework.KindNumber && y.Kind == framework.KindNumber {
		fx, _ := x.Float()
		fy, _ := y.Float()
		switch {
		case fx < fy:
			return -1
		case fx > fy:
			return 1
		}
		return 0
	}
	if x.Kind != y.Kind {
		return int(x.Kind) - int(y.Kind)
	}
	return strings.Compare(text(x), text(y))
}

// aggregate calls /aggregate_metrics once per agent (normally one) with the
// persisted rows in (task, rollout) order, stripped as the collector strips
// them (python-compat 2.4), prints each agent's key metrics and writes the
// aggregate metrics file. Without persisted rows nothing is written.
func (c *Client) aggregate(ctx context.Context, out io.Writer, sum *Summary, paths Paths, persisted []int, stripped map[int]framework.Value) error {
	if len(persisted) == 0 {
		return nil
	}
	var agents []string
	byAgent := map[string][]framework.Value{}
	for _, pos := range persisted {
		name := agentName(stripped[pos])
		if name == "" {
			continue
		}
		if _, seen := byAgent[name]; !seen {
			agents = append(agents, name)
		}
		byAgent[name] = append(byAgent[name], stripped[pos])
	}
	var entries []framework.Value
	for _, name := range agents {
		body, err := compact(framework.ObjectValue(framework.Member{Key: "verify_responses", Value: framework.ArrayValue(byAgent[name]...)}))
		if err != nil {
			return fmt.Errorf("aggregate_metrics for %s: encoding the request: %w", name, err)
		}
		ex := c.post(ctx, &cookies{}, "aggregate_metrics", "/aggregate_metrics", body)
		if ex.Err != nil {
			return fmt.Errorf("aggregate_metrics for %s: %w", name, ex.Err)
		}
		status, answer := ex.Status, ex.Body
		if status/100 != 2 {
			return fmt.Errorf("aggregate_metrics for %s: %s", name, httpError(status, "/aggregate_metrics", answer))
		}
		agg, err := c.parse(ex.Route, answer, false)
		var tooLarge *AnswerTooLargeError
		if errors.As(err, &tooLarge) {
			return fmt.Errorf("aggregate_metrics for %s: %w", name, err)
		}
		if err != nil || agg.Kind != framework.KindObject {
			return fmt.Errorf("aggregate_metrics for %s: the answer is not a JSON object: %s", name, clip(answer))
		}
		field := func(k string, empty framework.Value) framework.Value {
			if v, ok := agg.Get(k); ok {
				return v
			}
			return empty
		}
		key := field("key_metrics", framework.ObjectValue())
		entries = append(entries, framework.ObjectValue(
			framework.Member{Key: keyAgentRef, Value: framework.ObjectValue(framework.Member{Key: "name", Value: framework.StringValue(name)})},
			framework.Member{Key: "agent_metrics", Value: field("agent_metrics", framework.ObjectValue())},
			framework.Member{Key: "key_metrics", Value: key},
			framework.Member{Key: "group_level_metrics", Value: field("group_level_metrics", framework.ArrayValue())},
		))
		printed, err := indented(key, 4, framework.JSONPythonDumps)
		if err != nil {
			return fmt.Errorf("aggregate_metrics for %s: %w", name, err)
		}
		fmt.Fprintf(out, "\nKey metrics for %s:\n%s\n", name, printed)
		sum.Agents = append(sum.Agents, AgentMetrics{Name: name, KeyMetrics: key})
	}
	file, err := indented(framework.ArrayValue(entries...), 2, framework.JSONPydantic)
	if err != nil {
		return err
	}
	if err := os.WriteFile(paths.Aggregate, file, 0o644); err != nil {
		return err
	}
	sum.Aggregated = true
	return nil
}

// detach returns v (an object parsed shallow, see Client.parse) in bytes of
// its own, parsed shallow again: what v holds no longer keeps the answer it
// came from in memory.
func detach(v framework.Value) (framework.Value, error) {
	b, err := compact(v)
	if err != nil {
		return framework.Value{}, err
	}
	return pyjson.ParseLazyView(b, pyjson.Limits{})
}

// strip removes the heavy keys of a result and keeps a truthy
// response.usage as "response": {"usage": ...}, the last key.
func strip(result framework.Value) framework.Value {
	e := without(result, "response", "responses_create_params", "ng_agent_observations", "ng_model_call_capture", "ng_trajectory")
	if resp, ok := result.Get("response"); ok {
		if usage, ok := resp.Get("usage"); ok && truthy(usage) {
			e.Members = append(e.Members, framework.Member{Key: "response", Value: framework.ObjectValue(framework.Member{Key: "usage", Value: usage})})
		}
	}
	return e
}

func printFinal(out io.Writer, paths Paths, aggregated bool) {
	agg := "None"
	if aggregated {
		agg = paths.Aggregate
	}
	fmt.Fprintf(out, "Finished rollout collection! View results at:\nFully materialized inputs: %s\nRollouts: %s\nAggregate metrics: %s\n",
		paths.Materialized, paths.Results, agg)
}

// writeRows writes one compact JSON line per rollout's row, each made as
// it is written.
func writeRows(path string, m *materializer) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for pos := range m.len() {
		b, err := compact(m.row(pos))
		if err != nil {
			f.Close()
			return err
		}
		w.Write(b)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// same reports whether two paths name the same file.
func same(a, b string) bool {
	x, err1 := os.Stat(a)
	y, err2 := os.Stat(b)
	if err1 == nil && err2 == nil {
		return os.SameFile(x, y)
	}
	ax, _ := filepath.Abs(a)
	bx, _ := filepath.Abs(b)
	return ax == bx
}

// UnreachableError is [Run]'s answer when the instance at URL cannot be
// reached at all (connection refused, no such host, TLS failure): nothing
// was run or written.
type UnreachableError struct {
	URL string // the instance's base URL
	Err error  // the transport's error
}

// Error is "cannot reach the instance at <URL>: <Err>".
func (e *UnreachableError) Error() string {
	return fmt.Sprintf("cannot reach the instance at %s: %v", e.URL, e.Err)
}

// Unwrap returns the transport's error, for errors.Is and errors.As.
func (e *UnreachableError) Unwrap() error { return e.Err }

// reach makes one GET request to base/ within timeout: any HTTP answer,
// whatever its status, means the instance is reachable.
func reach(ctx context.Context, hc *http.Client, base string, timeout time.Duration) error {
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, base+"/", nil)
	if err != nil {
		return &UnreachableError{URL: base, Err: err}
	}
	resp, err := hc.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		if errors.Is(rctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
			err = fmt.Errorf("no answer to GET / within %v", timeout)
		}
		return &UnreachableError{URL: base, Err: err}
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	return nil
}

// pooledClient is an HTTP client that keeps enough idle connections for the
// workers, without timeouts.
func pooledClient(concurrency int) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 0
	t.MaxIdleConnsPerHost = 2*concurrency + 2
	return &http.Client{Transport: t}
}

// nemoProgress prints the collector's progress lines (python-compat 2.5)
// each time the share of finished rollouts reaches a new whole percent, and
// at 99.5%.
type nemoProgress struct {
	out     io.Writer
	total   int
	start   time.Time
	now     func() time.Time
	n       int
	printed float64 // the last threshold printed
	agents  []string
	left    map[string]int
	found   map[string]int
	totals  map[string]int
	sums    map[string]*averages
}

// averages are running means of the numeric top-level fields not starting
// with "_", in first-seen order.
type averages struct {
	keys  []string
	sum   map[string]float64
	count map[string]int
}

func newNemoProgress(out io.Writer, agents []agentCount, now func() time.Time) *nemoProgress {
	p := &nemoProgress{out: out, start: now(), now: now,
		left: map[string]int{}, found: map[string]int{}, totals: map[string]int{}, sums: map[string]*averages{}}
	for _, a := range agents {
		if _, ok := p.totals[a.name]; !ok {
			p.agents = append(p.agents, a.name)
			p.sums[a.name] = &averages{sum: map[string]float64{}, count: map[string]int{}}
		}
		p.totals[a.name] += a.n
		p.left[a.name] += a.n
		p.total += a.n
	}
	return p
}

func (p *nemoProgress) done(row, result framework.Value) {
	name := agentName(row)
	p.n++
	p.found[name]++
	p.left[name]--
	a := p.sums[name]
	for _, m := range result.Members {
		if strings.HasPrefix(m.Key, "_") {
			continue
		}
		var f float64
		switch m.Value.Kind {
		case framework.KindBool:
			if m.Value.Bool {
				f = 1
			}
		case framework.KindNumber:
			f, _ = m.Value.Float()
		default:
			continue
		}
		if _, ok := a.count[m.Key]; !ok {
			a.keys = append(a.keys, m.Key)
		}
		a.sum[m.Key] += f
		a.count[m.Key]++
	}

	pct := 100 * float64(p.n) / float64(p.total)
	threshold := math.Floor(pct)
	if pct >= 99.5 && pct < 100 {
		threshold = 99.5
	}
	if threshold <= p.printed || threshold < 1 {
		return
	}
	p.printed = threshold
	elapsed := p.now().Sub(p.start)
	secs := int(elapsed.Seconds())
	rate := float64(p.n) / math.Max(elapsed.Minutes(), 1e-9)
	var b strings.Builder
	fmt.Fprintf(&b, "Finished %d / %d rollouts (%d%%) in %d:%02d:%02d (%.2f rollouts/min). Examples left:\n",
		p.n, p.total, int(pct), secs/3600, secs/60%60, secs%60, rate)
	type agentLeft struct {
		name string
		n    int
	}
	var lefts []agentLeft
	for _, n := range p.agents {
		if p.left[n] > 0 {
			lefts = append(lefts, agentLeft{n, p.left[n]})
		}
	}
	slices.SortStableFunc(lefts, func(x, y agentLeft) int { return y.n - x.n })
	for i, l := range lefts[:min(len(lefts), 5)] {
		fmt.Fprintf(&b, "%d. %s: %d\n", i+1, l.name, l.n)
	}
	for _, n := range p.agents {
		if p.found[n] == 0 {
			continue
		}
		fmt.Fprintf(&b, "Found %d / %d (%.2f%%) rollouts for `%s`.\n", p.found[n], p.totals[n], 100*float64(p.found[n])/float64(p.totals[n]), n)
		a := p.sums[n]
		avg := framework.ObjectValue()
		for _, k := range a.keys {
			avg.Members = append(avg.Members, framework.Member{Key: k, Value: floatValue(a.sum[k] / float64(a.count[k]))})
		}
		js, _ := indented(avg, 4, framework.JSONPythonDumps)
		b.Write(js)
		b.WriteByte('\n')
	}
	io.WriteString(p.out, b.String())
}
