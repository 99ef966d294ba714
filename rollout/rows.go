package rollout

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/internal/pyjson"
)

// The collector's bookkeeping keys (NeMo's global_config names).
const (
	keyTaskIndex    = "_ng_task_index"
	keyRolloutIndex = "_ng_rollout_index"
	keyAgentRef     = "agent_ref"
	keyRCP          = "responses_create_params"
	keyResponse     = "response"
	keySkillsRef    = "skills_ref"
	keyAttemptIndex = "_ng_attempt_index"
	keyRolloutID    = "_ng_rollout_id"
	keyFailureClass = "_ng_failure_class"
	keyNoPersist    = "_ng_no_persist"
)

// InputError is a problem with the input rows, found before any rollout
// runs (gymkit rollout exits 2).
type InputError struct {
	Path string // the input file, as given
	Line int    // 1-based; 0 when the problem is the file itself
	Msg  string // what is wrong, without the file and line
}

// Error is "input <Path>: <Msg>", or with a Line
// "input <Path> line <Line>: <Msg>".
func (e *InputError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("input %s: %s", e.Path, e.Msg)
	}
	return fmt.Sprintf("input %s line %d: %s", e.Path, e.Line, e.Msg)
}

// inputRow is one line of the input file.
type inputRow struct {
	line int             // 1-based line number
	raw  string          // the line as Python iterates it: with its "\n", if any
	row  framework.Value // the parsed object
}

// readRows reads the input JSONL as the collector does: the first limit
// lines (0: all), each a JSON object. Blank lines are skipped (and not
// counted against the limit); the collector would fail on them.
func readRows(path string, limit int) ([]inputRow, error) {
	f, err := os.Open(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &InputError{Path: path, Msg: err.Error()}
	}
	defer f.Close()
	r := bufio.NewReader(f)
	var rows []inputRow
	for n := 1; limit <= 0 || len(rows) < limit; n++ {
		line, err := r.ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, &InputError{Path: path, Line: n, Msg: err.Error()}
		}
		if strings.TrimSpace(line) != "" {
			v, perr := framework.ParseJSON([]byte(line))
			switch {
			case perr != nil:
				return nil, &InputError{Path: path, Line: n, Msg: "not JSON: " + perr.Error()}
			case v.Kind != framework.KindObject:
				return nil, &InputError{Path: path, Line: n, Msg: "not a JSON object"}
			}
			if rcp, ok := v.Get(keyRCP); !ok || rcp.Kind != framework.KindObject {
				return nil, &InputError{Path: path, Line: n,
					Msg: "the row has no responses_create_params object (NeMo's collector requires one)"}
			}
			rows = append(rows, inputRow{line: n, raw: line, row: v})
		}
		if errors.Is(err, io.EOF) {
			break
		}
	}
	if len(rows) == 0 {
		return nil, &InputError{Path: path, Msg: "no rows"}
	}
	return rows, nil
}

// materialize expands the rows as the collector's _preprocess_rows_from_config
// does (python-compat 2.1), in task-major order ("abc to aabbcc"):
//
//   - agent_ref: {"name": agentName} appended when the row has none;
//   - _ng_task_index: kept when present, else assigned by de-duplicating on
//     the raw line (identical lines share a task and keep counting rollouts);
//   - _ng_rollout_index: 0.. per task index, set in place or appended.
//
// Each returned row is a deep copy.
func materialize(rows []inputRow, numRepeats int, agentName string) []framework.Value {
	m := newMaterializer(rows, numRepeats, agentName)
	out := make([]framework.Value, m.len())
	for pos := range out {
		out[pos] = m.row(pos)
	}
	return out
}

// materializer makes the rollouts' rows of [materialize] one at a time, on
// demand, so that a run holds its input rows, not rows × repeats copies.
type materializer struct {
	base       []framework.Value // each input row with agent_ref and _ng_task_index
	first      []int             // the _ng_rollout_index of each input row's first rollout
	numRepeats int
}

func newMaterializer(rows []inputRow, numRepeats int, agentName string) *materializer {
	m := &materializer{numRepeats: max(numRepeats, 1)}
	lineTask := map[string]int{}
	nextRollout := map[string]int{} // by the task index's JSON text
	for _, in := range rows {
		row := clone(in.row)
		if _, ok := row.Get(keyAgentRef); !ok {
			set(&row, keyAgentRef, framework.ObjectValue(framework.Member{Key: "name", Value: framework.StringValue(agentName)}))
		}
		if _, ok := row.Get(keyTaskIndex); !ok {
			t, seen := lineTask[in.raw]
			if !seen {
				t = len(lineTask)
				lineTask[in.raw] = t
			}
			set(&row, keyTaskIndex, intValue(t))
		}
		ti, _ := row.Get(keyTaskIndex)
		k := text(ti)
		m.base = append(m.base, row)
		m.first = append(m.first, nextRollout[k])
		nextRollout[k] += m.numRepeats
	}
	return m
}

// len is the number of rollouts: input rows × repeats.
func (m *materializer) len() int { return len(m.base) * m.numRepeats }

// row returns a deep copy of the row of rollout pos (0 <= pos < len()).
func (m *materializer) row(pos int) framework.Value {
	i := pos / m.numRepeats
	r := clone(m.base[i])
	set(&r, keyRolloutIndex, intValue(m.first[i]+pos%m.numRepeats))
	return r
}

// agents returns each agent's name and number of rollouts, in the order
// the agents first appear.
func (m *materializer) agents() []agentCount {
	var out []agentCount
	at := map[string]int{}
	for _, row := range m.base {
		name := agentName(row)
		i, ok := at[name]
		if !ok {
			i = len(out)
			at[name] = i
			out = append(out, agentCount{name: name})
		}
		out[i].n += m.numRepeats
	}
	return out
}

// agentCount is an agent's number of rollouts in a run.
type agentCount struct {
	name string
	n    int
}

// agentName returns agent_ref.name of a materialized row ("" when it has
// none or it is not a string).
func agentName(row framework.Value) string {
	ref, _ := row.Get(keyAgentRef)
	ref = pyjson.Materialize(ref) // a result kept for aggregation is shallow (detach)
	name, ok := ref.Get("name")
	if !ok || name.Kind != framework.KindString {
		return ""
	}
	return name.Str
}

// Paths of the collector's files for an output path (python-compat 2.1,
// 2.3, 2.4), with Python's pathlib stem and suffix rules.
type Paths struct {
	Results      string // the output path itself
	Materialized string // <stem>_materialized_inputs.jsonl
	Failures     string // <stem>_failures.jsonl
	Aggregate    string // <stem>_aggregate_metrics.json
}

// PathsFor returns the file paths of a run writing output.
func PathsFor(output string) Paths {
	dir, name := filepath.Split(output)
	stem := name
	if i := strings.LastIndexByte(name, '.'); i > 0 && i < len(name)-1 {
		stem = name[:i]
	}
	return Paths{
		Results:      output,
		Materialized: dir + stem + "_materialized_inputs.jsonl",
		Failures:     dir + stem + "_failures.jsonl",
		Aggregate:    dir + stem + "_aggregate_metrics.json",
	}
}

// Row is one rollout's row, as [ReadRows] returns it.
type Row struct {
	// Line is the row's 1-based line in the input file.
	Line int
	// Value is the row as NeMo's collector sends it to /seed_session:
	// with agent_ref, _ng_task_index and _ng_rollout_index (see [Run]).
	Value framework.Value
}

// ReadRows reads the rows file at path as [Run] does (the first limit rows
// when limit is positive, each a JSON object with responses_create_params)
// and materializes them as NeMo's collector does: numRepeats rollouts per
// row (0 means 1), task-major, agent_ref {"name": agentName} given to rows
// without one, _ng_task_index and _ng_rollout_index set. The error is an
// *[InputError] naming the file and line. It is safe for concurrent use.
func ReadRows(path string, limit, numRepeats int, agentName string) ([]Row, error) {
	in, err := readRows(path, limit)
	if err != nil {
		return nil, err
	}
	numRepeats = max(numRepeats, 1)
	vs := materialize(in, numRepeats, agentName)
	rows := make([]Row, len(vs))
	for i, v := range vs {
		rows[i] = Row{Line: in[i/numRepeats].line, Value: v}
	}
	return rows, nil
}
