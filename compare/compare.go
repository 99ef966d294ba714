package compare

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/internal/pyjson"
	"github.com/gymkit/gymkit/mcpexpose"
	"github.com/gymkit/gymkit/rollout"
)

// The fields a [Difference] is in.
const (
	// FieldStatus: the HTTP status.
	FieldStatus = "status"
	// FieldContentType: the Content-Type header.
	FieldContentType = "content-type"
	// FieldSetCookie: the Set-Cookie headers, each as the part of the
	// cookie's name after "___" (the instance name) and its attributes,
	// lower-cased, in order, an expires date written <date>; neither the
	// name's first part (NeMo: the Python class name, gymkit: the server
	// type) nor the value is compared.
	FieldSetCookie = "set-cookie"
	// FieldBody: the body, at a JSON path.
	FieldBody = "body"
	// FieldError: a side got no complete answer (a transport failure, the
	// request timeout, the answer bound); never allowed.
	FieldError = "error"
	// FieldStep: only one side sent this step (the other's rollout
	// stopped earlier); never allowed.
	FieldStep = "step"
	// FieldRoute: the sides sent the step to different routes (the MCP
	// door's url_path differs); never allowed.
	FieldRoute = "route"
)

// The kinds of a body [Difference].
const (
	// KindValue: two scalars (or strings) differ.
	KindValue = "value"
	// KindNumberForm: two numbers are the same number written differently,
	// as Python's forms tell them apart: 1 vs 1.0, 1e-05 vs 1e-5.
	KindNumberForm = "number form"
	// KindType: the JSON types differ ("1" vs 1, null vs {}).
	KindType = "type"
	// KindMissing: the reference has the key or item, gymkit does not.
	KindMissing = "missing"
	// KindExtra: gymkit has the key or item, the reference does not.
	KindExtra = "extra"
	// KindKeyOrder: an object's common keys are in another order.
	KindKeyOrder = "key order"
	// KindBytes: the bodies are not both JSON, or are the same JSON in
	// other bytes (whitespace, escapes, a repeated key); the difference
	// shows both from a little before the first differing byte.
	KindBytes = "bytes"
)

// The outcomes of a step and of a rollout.
const (
	// OutcomeEqual: no difference.
	OutcomeEqual = "equal"
	// OutcomeAllowed: every difference is allowed by the allow-list.
	OutcomeAllowed = "allowed"
	// OutcomeDifferent: at least one difference is not allowed.
	OutcomeDifferent = "different"
)

// Result texts of a rollout.
const (
	// ResultVerified: the rollout got a 2xx JSON object from /verify.
	ResultVerified = "verified"
)

// maxDifferences bounds the differences kept per step (the others are
// judged and counted in Step.MoreDifferences as they are found, and decide
// the outcome all the same).
const maxDifferences = 100

// Options configure [Run].
type Options struct {
	// Input is the rows file (JSONL): dataset rows or recorded rollouts,
	// read and materialized as gymkit rollout reads them
	// ([rollout.ReadRows]). Required.
	Input string
	// Limit uses only the first Limit rows; 0 uses all.
	Limit int
	// Door is how tools are called on both sides: rollout.DoorHTTP (the
	// default) or rollout.DoorMCP.
	Door rollout.Door
	// Reference is the base URL of the reference server (the Python
	// original). Required.
	Reference string
	// Gymkit is the base URL of the gymkit instance. Required.
	Gymkit string
	// Instance is the gymkit instance's name, when known: it names the
	// default agent and the mcp__<instance>__ prefix of recorded calls.
	Instance string
	// AgentName is the agent_ref name of rows without one; "" means
	// rollout.DefaultAgentName(Instance, Door).
	AgentName string
	// Allow is the allow-list; nil allows nothing.
	Allow *AllowList
	// AllowFile is the allow-list's path, as the report names it.
	AllowFile string
	// RequestTimeout, MaxAnswerBytes and MaxAnswerValues bound every
	// request of both sides as in rollout.ClientOptions (0:
	// rollout.DefaultRequestTimeout, rollout.DefaultMaxAnswerBytes,
	// rollout.DefaultMaxAnswerValues); MaxAnswerValues also bounds each body
	// compared as JSON (beyond it, the bodies are compared as bytes).
	RequestTimeout  time.Duration
	MaxAnswerBytes  int64
	MaxAnswerValues int
	// HTTPClient makes every request of both sides; nil means a pooled
	// client. Run closes its idle connections when it returns.
	HTTPClient *http.Client
	// Out receives the readable report as the rollouts complete: one line
	// per rollout, each step that is not equal with its differences, then
	// the summary. nil discards it.
	Out io.Writer
	// Now is the clock of the responses' created_at, read once: both sides
	// get the same verify bodies. nil means time.Now.
	Now func() time.Time
}

// Report is the outcome of a [Run], as written to the JSON report file
// (gymkit compare --report; cli/testdata/compare_report.json shows one).
// Run returns it complete; its methods only read it, and may be called
// from several goroutines at once.
type Report struct {
	// Reference and Gymkit are the two base URLs.
	Reference string `json:"reference"`
	Gymkit    string `json:"gymkit"`
	// Instance is the gymkit instance's name ("" when not known).
	Instance string `json:"instance"`
	// Door is "http" or "mcp".
	Door string `json:"door"`
	// Input is the rows file, as given.
	Input string `json:"input"`
	// AllowList is the allow-list file, as given; null when none.
	AllowList *string `json:"allow_list"`
	// Summary counts the rollouts, steps and differences.
	Summary Summary `json:"summary"`
	// Rollouts are the rollouts compared, in row order.
	Rollouts []Rollout `json:"rollouts"`
	// UnusedRules are the allow-list rules ("file:line") that allowed no
	// difference.
	UnusedRules []string `json:"unused_rules"`
}

// Summary counts a [Report].
type Summary struct {
	// Rollouts is the number of rollouts compared (rows, after Limit).
	Rollouts int `json:"rollouts"`
	// NotRun is the number of rollouts not compared because the context
	// was done.
	NotRun int `json:"not_run"`
	// Steps is the number of steps compared; Equal, Allowed and Different
	// count them by outcome.
	Steps     int `json:"steps"`
	Equal     int `json:"equal"`
	Allowed   int `json:"allowed"`
	Different int `json:"different"`
	// Differences is the number of differences not allowed;
	// AllowedDifferences the number the allow-list allowed.
	Differences        int `json:"differences"`
	AllowedDifferences int `json:"allowed_differences"`
}

// Rollout is one row's rollout on both sides.
type Rollout struct {
	// Line is the row's 1-based line in the input.
	Line int `json:"line"`
	// TaskIndex and RolloutIndex are the row's _ng_task_index and
	// _ng_rollout_index (JSON).
	TaskIndex    json.RawMessage `json:"task_index"`
	RolloutIndex json.RawMessage `json:"rollout_index"`
	// Outcome is the worst of its steps' outcomes.
	Outcome string `json:"outcome"`
	// ReferenceResult and GymkitResult are each side's end: "verified", or
	// the failure class and reason, as gymkit rollout writes them
	// ("seed_failed: HTTP 422 from POST /seed_session: ...").
	ReferenceResult string `json:"reference_result"`
	GymkitResult    string `json:"gymkit_result"`
	// Steps are the steps in order: seed_session, each tool call sent,
	// verify.
	Steps []Step `json:"steps"`
}

// Step is one request of a rollout, compared.
type Step struct {
	// N is the step's 1-based position in its rollout.
	N int `json:"n"`
	// Step is "seed_session", "verify" or the tool's name.
	Step string `json:"step"`
	// Route is the request, as allow-list rules match it: "POST
	// /seed_session", "POST /<tool>", "POST /mcp tools/call <tool>", "POST
	// /verify" (the reference's when the sides differ).
	Route string `json:"route"`
	// Outcome is OutcomeEqual, OutcomeAllowed or OutcomeDifferent.
	Outcome string `json:"outcome"`
	// RequestsDiffer reports that the two sides were sent different
	// bodies: the agent builds the verify body from the tools' answers, so
	// an earlier difference shows here too.
	RequestsDiffer bool `json:"requests_differ"`
	// Differences are the step's differences (at most 100), allowed ones
	// included; MoreDifferences counts those left out.
	Differences     []Difference `json:"differences"`
	MoreDifferences int          `json:"more_differences,omitempty"`

	notAllowed, allowed int // the differences by judgement, all of them
}

// Difference is one difference between the reference's answer and
// gymkit's.
type Difference struct {
	// Field is where it is: FieldStatus, FieldContentType, FieldSetCookie,
	// FieldBody, FieldError, FieldStep or FieldRoute.
	Field string `json:"field"`
	// Path is the JSON path of a body difference ("$.response.output[0]",
	// `$["odd key"]`, "$.result.content[0].text(json).reward").
	Path string `json:"path,omitempty"`
	// Kind is a body difference's kind: KindValue, KindNumberForm,
	// KindType, KindMissing, KindExtra, KindKeyOrder or KindBytes.
	Kind string `json:"kind,omitempty"`
	// Reference and Gymkit are the two sides' values as text: JSON as the
	// server wrote it for a body (so a number form reads 1 vs 1.0), the
	// header or status otherwise; null where a side has none.
	Reference *string `json:"reference"`
	Gymkit    *string `json:"gymkit"`
	// Note explains a bytes difference.
	Note string `json:"note,omitempty"`
	// Allowed is the rule that allows the difference; nil when none does.
	Allowed *Allowed `json:"allowed,omitempty"`

	segs []segment // the body path, for the allow-list
}

// Allowed names the rule that allows a difference.
type Allowed struct {
	// Rule is where the rule is written, "file:line".
	Rule string `json:"rule"`
	// Reason is the rule's reason.
	Reason string `json:"reason"`
}

// OK reports whether every step was compared and every difference is
// allowed: gymkit compare's exit status 0.
func (r *Report) OK() bool { return r.Summary.Different == 0 && r.Summary.NotRun == 0 }

// WriteJSON writes the report as indented JSON (two spaces, no HTML
// escaping) followed by a newline.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// Run replays the rows of opts.Input against the reference and the gymkit
// instance, one rollout at a time, each side as gymkit rollout replays it
// (the same client: seed, the calls through the door, verify; cookie jar
// replaced by each answer; on the MCP door each side's own token from its
// own seed), and compares the two sides step by step: status, content
// type, Set-Cookie attributes and body. Each side's per-rollout values are
// masked in its bodies before they are compared: its MCP token (<TOKEN>),
// its session cookies' values (<COOKIE>) and the session ids they carry
// (<SESSION_ID>; Starlette's signed JSON cookie and gymkit's).
//
// Both URLs are reached first (GET /); the error is then a
// *rollout.UnreachableError prefixed with "reference: " or "gymkit: ",
// or an *rollout.InputError for the rows. A rollout that fails on a side
// is compared as far as it went; it is no error of Run. When ctx is done,
// Run stops between rollouts and counts the rest in Summary.NotRun. The
// differences are judged against opts.Allow as they are found. Several
// Runs may go on at once; they share nothing but what opts gives them
// (opts.HTTPClient, opts.Out).
func Run(ctx context.Context, opts Options) (*Report, error) {
	if opts.Door == "" {
		opts.Door = rollout.DoorHTTP
	}
	if opts.AgentName == "" {
		opts.AgentName = rollout.DefaultAgentName(opts.Instance, opts.Door)
	}
	out := opts.Out
	if out == nil {
		out = io.Discard
	}
	rows, err := rollout.ReadRows(opts.Input, opts.Limit, 1, opts.AgentName)
	if err != nil {
		return nil, err
	}
	hc := opts.HTTPClient
	if hc == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConnsPerHost = 4
		hc = &http.Client{Transport: t}
	}
	defer hc.CloseIdleConnections()
	start := time.Now()
	if opts.Now != nil {
		start = opts.Now()
	}
	now := func() time.Time { return start }
	client := func(url string) (*rollout.Client, error) {
		return rollout.NewClient(rollout.ClientOptions{URL: url, Door: opts.Door, Instance: opts.Instance, HTTPClient: hc,
			RequestTimeout: opts.RequestTimeout, MaxAnswerBytes: opts.MaxAnswerBytes, MaxAnswerValues: opts.MaxAnswerValues, Now: now})
	}
	ref, err := client(opts.Reference)
	if err != nil {
		return nil, fmt.Errorf("reference: %w", err)
	}
	gym, err := client(opts.Gymkit)
	if err != nil {
		return nil, fmt.Errorf("gymkit: %w", err)
	}
	if err := ref.Reach(ctx); err != nil {
		return nil, fmt.Errorf("reference: %w", err)
	}
	if err := gym.Reach(ctx); err != nil {
		return nil, fmt.Errorf("gymkit: %w", err)
	}

	rep := &Report{Reference: opts.Reference, Gymkit: opts.Gymkit, Instance: opts.Instance, Door: string(opts.Door),
		Input: opts.Input, Rollouts: []Rollout{}, UnusedRules: []string{}}
	if opts.AllowFile != "" {
		rep.AllowList = strp(opts.AllowFile)
	}
	label := opts.Gymkit
	if opts.Instance != "" {
		label += " (" + opts.Instance + ")"
	}
	fmt.Fprintf(out, "gymkit compare: reference %s, gymkit %s, door %s, %s\n", opts.Reference, label, opts.Door, plural(len(rows), "rollout"))
	used := map[*Rule]bool{}
	for pos, row := range rows {
		if ctx.Err() != nil {
			rep.Summary.NotRun = len(rows) - pos
			break
		}
		var refEx, gymEx []rollout.Exchange
		refErr := ref.Replay(ctx, pos, row.Value, func(e rollout.Exchange) { refEx = append(refEx, e) })
		gymErr := gym.Replay(ctx, pos, row.Value, func(e rollout.Exchange) { gymEx = append(gymEx, e) })
		if ctx.Err() != nil {
			rep.Summary.NotRun = len(rows) - pos
			break
		}
		values := opts.MaxAnswerValues
		if values == 0 {
			values = rollout.DefaultMaxAnswerValues
		}
		ro := compareRollout(row, refEx, gymEx, opts.Allow, used, values)
		ro.ReferenceResult, ro.GymkitResult = result(refErr), result(gymErr)
		rep.add(ro)
		writeRollout(out, ro)
	}
	if opts.Allow != nil {
		for _, r := range opts.Allow.Rules {
			if !used[r] {
				rep.UnusedRules = append(rep.UnusedRules, r.Where())
			}
		}
	}
	writeSummary(out, rep)
	return rep, nil
}

// result is a side's end of a rollout, as a text.
func result(err error) string {
	if err == nil {
		return ResultVerified
	}
	return err.Error()
}

// add counts a rollout into the report.
func (r *Report) add(ro Rollout) {
	r.Rollouts = append(r.Rollouts, ro)
	s := &r.Summary
	s.Rollouts++
	for _, st := range ro.Steps {
		s.Steps++
		s.Differences += st.notAllowed
		s.AllowedDifferences += st.allowed
		switch st.Outcome {
		case OutcomeEqual:
			s.Equal++
		case OutcomeAllowed:
			s.Allowed++
		default:
			s.Different++
		}
	}
}

// compareRollout compares the two sides' steps in order; values bounds
// each body compared as JSON.
func compareRollout(row rollout.Row, ref, got []rollout.Exchange, allow *AllowList, used map[*Rule]bool, values int) Rollout {
	ti, _ := row.Value.Get("_ng_task_index")
	ri, _ := row.Value.Get("_ng_rollout_index")
	ro := Rollout{Line: row.Line, TaskIndex: rawJSON(ti), RolloutIndex: rawJSON(ri), Outcome: OutcomeEqual, Steps: []Step{}}
	refMask, gotMask := masksOf(ref), masksOf(got)
	for i := range max(len(ref), len(got)) {
		var r, g *rollout.Exchange
		if i < len(ref) {
			r = &ref[i]
		}
		if i < len(got) {
			g = &got[i]
		}
		st := compareStep(i+1, r, g, refMask, gotMask, allow, used, values)
		ro.Steps = append(ro.Steps, st)
		if worse(st.Outcome, ro.Outcome) {
			ro.Outcome = st.Outcome
		}
	}
	return ro
}

// worse reports whether outcome a is worse than b.
func worse(a, b string) bool {
	rank := map[string]int{OutcomeEqual: 0, OutcomeAllowed: 1, OutcomeDifferent: 2}
	return rank[a] > rank[b]
}

// sink receives a step's differences as they are found: it judges each
// against the allow-list at once, counts it, and keeps the first
// maxDifferences, so that two bodies differing at millions of places cost
// no more memory than that.
type sink struct {
	st     *Step
	routes []string // the step's routes: the reference's, and gymkit's when it differs
	allow  *AllowList
	used   map[*Rule]bool
	found  int // differences found
}

func (s *sink) add(d Difference) {
	if s.judge(&d) {
		s.st.Differences = append(s.st.Differences, d)
	}
}

// body sends a body difference of kind at path; ref and got give the two
// sides' texts (nil: absent) and are called, and path copied, only for a
// difference that is kept, so that the differences left out cost nothing
// but their judgement.
func (s *sink) body(kind string, path []segment, ref, got func() *string) {
	d := Difference{Field: FieldBody, Kind: kind, segs: path}
	if !s.judge(&d) {
		return
	}
	d.segs = append([]segment{}, path...)
	d.Path = renderPath(d.segs)
	if ref != nil {
		d.Reference = ref()
	}
	if got != nil {
		d.Gymkit = got()
	}
	s.st.Differences = append(s.st.Differences, d)
}

// judge counts d as allowed (setting d.Allowed) or not and reports whether
// it is kept: among the first maxDifferences, else counted in
// MoreDifferences.
func (s *sink) judge(d *Difference) bool {
	s.found++
	if r := s.allow.allows(s.routes, d); r != nil {
		s.used[r] = true
		d.Allowed = &Allowed{Rule: r.Where(), Reason: r.Reason}
		s.st.allowed++
	} else {
		s.st.notAllowed++
	}
	if len(s.st.Differences) < maxDifferences {
		return true
	}
	s.st.MoreDifferences++
	return false
}

// outcome sets the step's outcome from its judged differences.
func (s *sink) outcome() {
	switch {
	case s.st.notAllowed > 0:
		s.st.Outcome = OutcomeDifferent
	case s.st.allowed > 0:
		s.st.Outcome = OutcomeAllowed
	default:
		s.st.Outcome = OutcomeEqual
	}
}

// compareStep compares one step, either side of which may be missing, and
// judges its differences against allow; values bounds each body compared
// as JSON.
func compareStep(n int, ref, got *rollout.Exchange, refMask, gotMask *masker, allow *AllowList, used map[*Rule]bool, values int) (st Step) {
	st = Step{N: n, Differences: []Difference{}}
	out := &sink{st: &st, allow: allow, used: used}
	defer out.outcome() // on the result: st is named
	switch {
	case ref == nil:
		st.Step, st.Route = got.Step, got.Route
		out.routes = []string{got.Route}
		out.add(Difference{Field: FieldStep, Gymkit: strp(got.Route), Note: "the reference's rollout stopped before this step"})
		return st
	case got == nil:
		st.Step, st.Route = ref.Step, ref.Route
		out.routes = []string{ref.Route}
		out.add(Difference{Field: FieldStep, Reference: strp(ref.Route), Note: "gymkit's rollout stopped before this step"})
		return st
	}
	st.Step, st.Route = ref.Step, ref.Route
	out.routes = []string{ref.Route}
	if ref.Route != got.Route {
		out.routes = append(out.routes, got.Route)
		out.add(Difference{Field: FieldRoute, Reference: strp(ref.Route), Gymkit: strp(got.Route)})
	}
	st.RequestsDiffer = !bytes.Equal(refMask.apply(ref.Request), gotMask.apply(got.Request))
	if ref.Err != nil || got.Err != nil {
		out.add(Difference{Field: FieldError, Reference: strp(outcomeText(ref)), Gymkit: strp(outcomeText(got))})
		return st
	}
	if ref.Status != got.Status {
		out.add(Difference{Field: FieldStatus, Reference: strp(fmt.Sprint(ref.Status)), Gymkit: strp(fmt.Sprint(got.Status))})
	}
	rct, gct := headerValue(ref.Header, "Content-Type"), headerValue(got.Header, "Content-Type")
	if !equalPtr(rct, gct) {
		out.add(Difference{Field: FieldContentType, Reference: rct, Gymkit: gct})
	}
	rc, gc := setCookies(ref.Header), setCookies(got.Header)
	if !equalPtr(rc, gc) {
		out.add(Difference{Field: FieldSetCookie, Reference: rc, Gymkit: gc})
	}
	diffBodies(refMask.apply(ref.Body), gotMask.apply(got.Body), pyjson.Limits{MaxDepth: pyjson.MaxDepth, MaxElements: values}, out)
	return st
}

// outcomeText is what a side's step came to: its error, or "answered <status>".
func outcomeText(ex *rollout.Exchange) string {
	if ex.Err != nil {
		return ex.Err.Error()
	}
	return fmt.Sprintf("answered %d", ex.Status)
}

// headerValue is the header's values joined by ", "; nil when absent.
func headerValue(h http.Header, key string) *string {
	if vs := h.Values(key); len(vs) > 0 {
		return strp(strings.Join(vs, ", "))
	}
	return nil
}

// setCookies is the Set-Cookie lines of an answer as compared: for each,
// the part of the cookie's name after "___" (the whole name without one),
// ": " and its attributes lower-cased, in order, an expires date written
// <date>; joined by " | ". nil when there is none.
func setCookies(h http.Header) *string {
	var out []string
	for _, line := range h.Values("Set-Cookie") {
		parts := strings.Split(line, ";")
		name, _, _ := strings.Cut(strings.TrimSpace(parts[0]), "=")
		if i := strings.Index(name, "___"); i >= 0 {
			name = name[i+3:]
		}
		var attrs []string
		for _, p := range parts[1:] {
			p = strings.ToLower(strings.TrimSpace(p))
			if p == "" {
				continue
			}
			if strings.HasPrefix(p, "expires=") {
				p = "expires=<date>"
			}
			attrs = append(attrs, p)
		}
		out = append(out, name+": "+strings.Join(attrs, "; "))
	}
	if len(out) == 0 {
		return nil
	}
	return strp(strings.Join(out, " | "))
}

func equalPtr(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// rawJSON is v's JSON text.
func rawJSON(v framework.Value) json.RawMessage {
	b, err := framework.MarshalJSON(v, framework.JSONPydantic)
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}

// masker replaces one side's per-rollout values in its bodies.
type masker struct {
	values []string // longest first
	names  map[string]string
}

// minMasked is the shortest value masked (shorter ones would hit text by
// chance).
const minMasked = 8

// masksOf collects a side's per-rollout values from its exchanges: the MCP
// headers of its seed answer (the session token), the values of its
// Set-Cookie headers and the session ids they carry.
func masksOf(exs []rollout.Exchange) *masker {
	m := &masker{names: map[string]string{}}
	add := func(v, name string) {
		if len(v) < minMasked {
			return
		}
		if _, ok := m.names[v]; !ok {
			m.names[v] = name
			m.values = append(m.values, v)
		}
	}
	for _, ex := range exs {
		for _, line := range ex.Header.Values("Set-Cookie") {
			c, err := http.ParseSetCookie(line)
			if err != nil {
				continue
			}
			add(c.Value, "<COOKIE>")
			if id := sessionID(c.Value); id != "" {
				add(id, "<SESSION_ID>")
			}
		}
		if ex.Step == "seed_session" {
			if v, err := framework.ParseJSON(ex.Body); err == nil {
				meta, _ := v.Get(mcpexpose.SeedKey)
				hs, _ := meta.Get("headers")
				for _, h := range hs.Members {
					if h.Value.Kind == framework.KindString {
						add(h.Value.Str, "<TOKEN>")
					}
				}
			}
		}
	}
	slices.SortStableFunc(m.values, func(a, b string) int { return len(b) - len(a) })
	return m
}

// apply returns b with the side's values masked: b itself when none is in
// it (no copy).
func (m *masker) apply(b []byte) []byte {
	for _, v := range m.values {
		if bytes.Contains(b, []byte(v)) {
			b = bytes.ReplaceAll(b, []byte(v), []byte(m.names[v]))
		}
	}
	return b
}

// sessionID reads the session id a session cookie's value carries, without
// checking its signature: Starlette's SessionMiddleware (NeMo's Python
// servers) writes base64(JSON) "." timestamp "." signature with the JSON
// {"session_id": "<uuid>"}; gymkit writes base64url of a version byte (2),
// the id's 16 bytes and the rest (session/cookie.go). "" when it is
// neither.
func sessionID(value string) string {
	if head, _, ok := strings.Cut(value, "."); ok {
		if b, err := base64.StdEncoding.DecodeString(head); err == nil {
			var s struct {
				ID string `json:"session_id"`
			}
			if json.Unmarshal(b, &s) == nil {
				return s.ID
			}
		}
		return ""
	}
	b, err := base64.RawURLEncoding.DecodeString(value)
	if err != nil || len(b) != 63 || b[0] != 2 {
		return ""
	}
	id := fmt.Sprintf("%x", b[1:17])
	return id[0:8] + "-" + id[8:12] + "-" + id[12:16] + "-" + id[16:20] + "-" + id[20:32]
}
