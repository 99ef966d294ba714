// Package peerreplay replays the recorded answers of NeMo Gym's real Python
// resources servers (../shared/data/nemo-gym-peer, one file per server, one
// line per rollout scenario) against gymkit's own environments, started from
// their shipped configs through the real host with expose_tools_over_mcp on,
// and compares every answer: status, Content-Type, Allow, the Set-Cookie
// attributes, Vary and the body bytes.
//
// The peer files record no Vary header; their README notes that NeMo sends
// "Vary: Cookie". Starlette's SessionMiddleware (starlette/middleware/
// sessions.py, the version the README names) adds "vary: Cookie" when the
// session was read or written and the cookie when it was written, both at
// the start of the answer it passes on; NeMo's add_session_id middleware
// (nemo_gym/server_utils.py) writes the session on every request. So a
// NeMo answer carries "Vary: Cookie" exactly when it carries the session
// cookie: every answer but the unhandled-exception 500s, which NeMo's
// exception middleware writes outside SessionMiddleware. The replay
// expects the same of gymkit.
//
// Run it for one file, with a readable diff of each differing body:
//
//	go test ./tests/peerreplay -run 'TestPeerReplay/example_mcp_weather$' -v
//	PEER_DIFF=all go test ./tests/peerreplay -v   # allowed differences too
//
// Every difference is printed (one line each) with a count per file; the
// test fails on any difference that is not in the allowed list below
// (allowed.go), each of which carries its reason.
package peerreplay

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gymkit/gymkit/server"
	_ "github.com/gymkit/gymkit/servers/all"
)

// scenario is one line of a peer file.
type scenario struct {
	ServerDir string `json:"server_dir"`
	Instance  string `json:"instance"`
	Variant   string `json:"variant"`
	Scenario  string `json:"scenario"`
	Kind      string `json:"kind"`
	Steps     []step `json:"steps"`
	// Deterministic is false on lines that are a picture of an answer's
	// shape, not a golden (grl_tetris__nondeterministic_sample.jsonl: the
	// Python server's pieces are not reproducible across processes); such
	// lines are never replayed. Absent means true.
	Deterministic *bool  `json:"deterministic"`
	Note          string `json:"note"`
}

type step struct {
	Name    string            `json:"name"`
	Method  string            `json:"method"`
	Path    string            `json:"path"`
	Headers map[string]string `json:"headers"`
	Body    *string           `json:"body"`
	BodyB64 *string           `json:"body_b64"`
	Peer    answer            `json:"peer"`
}

type answer struct {
	Status      int         `json:"status"`
	ContentType *string     `json:"content_type"`
	Allow       *string     `json:"allow"`
	SetCookie   []setCookie `json:"set_cookie"`
	Body        *string     `json:"body"`
}

type setCookie struct {
	NameSuffix string `json:"name_suffix"`
	Attrs      string `json:"attrs"`
}

// variants maps a peer file's variant to the shipped config that serves it
// and the overrides it needs.
var variants = map[string]struct {
	config    string
	overrides []string
}{
	"weather":         {config: "servers/example_mcp_weather/configs/example_mcp_weather.yaml"},
	"state":           {config: "servers/example_session_state_mgmt/configs/example_session_state_mgmt.yaml"},
	"math":            {config: "servers/math_advanced_calculations/configs/math_advanced_calculations.yaml"},
	"math_mcp":        {config: "servers/math_advanced_calculations/configs/math_advanced_calculations.yaml"},
	"workplace":       {config: "servers/workplace_assistant/configs/workplace_assistant.yaml"},
	"workplace_allow": {config: "servers/workplace_assistant/configs/workplace_assistant.yaml"},
}

// pending lists the peer variants of environments gymkit does not ship yet,
// each with the reason its file is skipped. A skip is logged, never silent;
// the change that ports an environment removes its entry and adds it to
// variants above.
var pending = map[string]string{
	"abstention":                    "LLM-judge environment not ported yet (no servers/abstention)",
	"equivalence_llm_judge":         "LLM-judge environment not ported yet (no servers/equivalence_llm_judge)",
	"equivalence_llm_judge__openqa": "LLM-judge environment not ported yet (no servers/equivalence_llm_judge)",
	"multichallenge":                "LLM-judge environment not ported yet (no servers/multichallenge)",
	"simpleqa":                      "LLM-judge environment not ported yet (no servers/simpleqa)",
	"blackjack":                     "gymnasium-style environment not ported yet (no servers/blackjack)",
	"example_multi_turn_gymnasium":  "gymnasium-style environment not ported yet (no servers/example_multi_turn_gymnasium)",
	"grl_sokoban":                   "gymnasium-style environment not ported yet (no servers/grl_sokoban)",
	"grl_tetris":                    "gymnasium-style environment not ported yet (no servers/grl_tetris)",
	"mcqa":                          "text-verification environment not ported yet (no servers/mcqa)",
	"mcqa__template_metadata":       "text-verification environment not ported yet (no servers/mcqa)",
	"hotpotqa_qa":                   "text-verification environment not ported yet (no servers/hotpotqa_qa)",
	"xlam_fc":                       "text-verification environment not ported yet (no servers/xlam_fc)",
	"structured_outputs":            "text-verification environment not ported yet (no servers/structured_outputs)",
	"code_gen":                      "code-execution environment not ported yet (no servers/code_gen)",
}

// repoRoot is the module root (two levels up from this package).
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func peerDir(t *testing.T) string {
	return filepath.Join(repoRoot(t), "..", "shared", "data", "nemo-gym-peer")
}

func TestPeerReplay(t *testing.T) {
	replayAll(t, "")
}

// TestPendingNotShipped fails once an environment is ported but its peer
// variant is still listed as pending (its replay would be skipped).
func TestPendingNotShipped(t *testing.T) {
	for v := range pending {
		if _, ok := variants[v]; ok {
			t.Errorf("variant %q is in both variants and pending: remove it from pending", v)
		}
	}
}

// replayAll replays every peer file as a parallel subtest named after it,
// with the session state in the Redis at redisURL ("" for in memory).
func replayAll(t *testing.T, redisURL string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(peerDir(t), "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no peer files under %s (%v): the replay needs ../shared beside the repository", peerDir(t), err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			replayFile(t, name, f, redisURL)
		})
	}
}

func readScenarios(t *testing.T, path string) []scenario {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []scenario
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var s scenario
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// startHost serves the variant's shipped config on a free loopback port
// through the real host and returns its base URL. With redisURL, the
// instance keeps its rollout state in that Redis (see redisOverrides).
func startHost(t *testing.T, sc scenario, redisURL string) string {
	t.Helper()
	variant := sc.Variant
	v, ok := variants[variant]
	if !ok {
		t.Fatalf("peer variant %q has no config in variants", variant)
	}
	// The shipped configs serve as they are: workplace's relative data_dir
	// and tools_file resolve against its server folder
	// (servers/workplace_assistant/), whatever the working directory.
	overrides := slices.Clone(v.overrides)
	if redisURL != "" {
		overrides = append(overrides, redisOverrides(t, sc, redisURL)...)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h, err := server.New(ctx, server.Options{
		Files:     []string{v.config},
		Overrides: overrides,
		WorkDir:   repoRoot(t),
		LookupEnv: func(string) (string, bool) { return "", false },
		Logger:    slog.New(slog.DiscardHandler),
		Ready:     io.Discard,
	})
	if err != nil {
		cancel()
		t.Fatalf("start %s: %v", v.config, err)
	}
	ins := h.Instances()
	if len(ins) != 1 {
		t.Fatalf("%s: %d instances, want 1", v.config, len(ins))
	}
	done := make(chan error, 1)
	go func() { done <- h.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("drain: %v", err)
		}
	})
	return ins[0].URL()
}

// diff is one difference between gymkit's answer and the peer's.
type diff struct {
	scenario, step, field string
	peer, got             string
}

func (d diff) String() string {
	return fmt.Sprintf("%s / %s: %s: peer %s, gymkit %s", d.scenario, d.step, d.field, clip(d.peer), clip(d.got))
}

func clip(s string) string {
	if len(s) > 160 {
		return strconv.Quote(s[:160]) + "..."
	}
	return strconv.Quote(s)
}

var xRun = regexp.MustCompile(`\{\{X\*(\d+)\}\}`)

func expand(s, token string) string {
	s = strings.ReplaceAll(s, "{{TOKEN}}", token)
	return xRun.ReplaceAllStringFunc(s, func(m string) string {
		n, _ := strconv.Atoi(xRun.FindStringSubmatch(m)[1])
		return strings.Repeat("x", n)
	})
}

func replayFile(t *testing.T, name, path, redisURL string) {
	var scenarios []scenario
	shape := 0
	for _, sc := range readScenarios(t, path) {
		if sc.Deterministic != nil && !*sc.Deterministic {
			shape++ // a picture of the answers' shape, not a golden
			continue
		}
		scenarios = append(scenarios, sc)
	}
	if len(scenarios) == 0 {
		t.Skipf("%s: all %d lines are marked \"deterministic\": false (not goldens); nothing to replay", name, shape)
	}
	if shape > 0 {
		t.Logf("%s: %d lines marked \"deterministic\": false are not replayed", name, shape)
	}
	if reason, ok := pending[scenarios[0].Variant]; ok {
		t.Skipf("%s: variant %q pending: %s", name, scenarios[0].Variant, reason)
	}
	base := startHost(t, scenarios[0], redisURL)
	client := &http.Client{
		Timeout:       30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	t.Cleanup(client.CloseIdleConnections)
	showAll := os.Getenv("PEER_DIFF") == "all"

	var diffs, unexpected []diff
	steps := 0
	for _, sc := range scenarios {
		jar := ""   // the Cookie header: replaced by each answer's Set-Cookie
		token := "" // the MCP token of the last /seed_session answer
		for _, st := range sc.Steps {
			steps++
			ds, newJar, newToken := replayStep(t, client, base, sc, st, jar, token)
			jar = newJar
			if newToken != "" {
				token = newToken
			}
			for _, d := range ds {
				diffs = append(diffs, d)
				reason := allowedReason(name, sc, st, d)
				switch {
				case reason == "":
					unexpected = append(unexpected, d)
					t.Logf("DIFF %s", d)
					if testing.Verbose() {
						t.Logf("%s", bodyDiff(d))
					}
				case showAll:
					t.Logf("allowed (%s): %s", reason, d)
				}
			}
		}
	}
	t.Logf("%s: %d scenarios, %d steps, %d differences, %d not allowed", name, len(scenarios), steps, len(diffs), len(unexpected))
	if len(unexpected) > 0 {
		t.Errorf("%d differences from NeMo Gym's Python server are not in the allowed list (see the DIFF lines)", len(unexpected))
	}
}

// replayStep sends one recorded request and compares the answer.
func replayStep(t *testing.T, client *http.Client, base string, sc scenario, st step, jar, token string) ([]diff, string, string) {
	t.Helper()
	var body []byte
	switch {
	case st.BodyB64 != nil:
		b, err := base64.StdEncoding.DecodeString(*st.BodyB64)
		if err != nil {
			t.Fatalf("%s / %s: body_b64: %v", sc.Scenario, st.Name, err)
		}
		body = b
	case st.Body != nil:
		body = []byte(expand(*st.Body, token))
	}
	u, err := url.Parse(base + st.Path)
	if err != nil {
		t.Fatalf("%s / %s: path %q: %v", sc.Scenario, st.Name, st.Path, err)
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(st.Method, base, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.URL = u
	for k, v := range st.Headers {
		req.Header.Set(k, expand(v, token))
	}
	if jar != "" {
		req.Header.Set("Cookie", jar)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := client.Do(req.WithContext(ctx))
	if err != nil {
		return []diff{{sc.Scenario, st.Name, "transport", "an answer", err.Error()}}, "", ""
	}
	defer res.Body.Close()

	var ds []diff
	add := func(field, peer, got string) {
		if peer != got {
			ds = append(ds, diff{sc.Scenario, st.Name, field, peer, got})
		}
	}
	add("status", strconv.Itoa(st.Peer.Status), strconv.Itoa(res.StatusCode))
	add("content-type", optional(st.Peer.ContentType), optionalHeader(res.Header, "Content-Type"))
	add("allow", optional(st.Peer.Allow), optionalHeader(res.Header, "Allow"))

	// Set-Cookie: the attributes and the name's suffix after "___".
	var gotCookies []string
	newJar := ""
	for _, c := range res.Cookies() {
		attrs := cookieAttrs(res.Header.Values("Set-Cookie"), c.Name)
		suffix := c.Name
		if i := strings.Index(suffix, "___"); i >= 0 {
			suffix = suffix[i+3:]
		}
		gotCookies = append(gotCookies, suffix+": "+attrs)
		newJar = c.Name + "=" + c.Value
	}
	var peerCookies []string
	for _, c := range st.Peer.SetCookie {
		peerCookies = append(peerCookies, c.NameSuffix+": "+c.Attrs)
	}
	add("set-cookie", strings.Join(peerCookies, " | "), strings.Join(gotCookies, " | "))
	peerVary := "<none>" // Vary goes with the session cookie (see the package comment)
	if len(st.Peer.SetCookie) > 0 {
		peerVary = "Cookie"
	}
	add("vary", peerVary, optionalHeader(res.Header, "Vary"))

	// The body: a held-open event stream is recorded as a marker.
	gotBody, minted := readBody(res, st.Peer.Body)
	if minted != "" {
		gotBody = strings.ReplaceAll(gotBody, minted, "<TOKEN>")
	}
	peerBody := ""
	if st.Peer.Body != nil {
		peerBody = expand(*st.Peer.Body, token)
	}
	add("body", peerBody, gotBody)

	newToken := ""
	if strings.HasSuffix(st.Path, "/seed_session") {
		newToken = minted
	}
	return ds, newJar, newToken
}

// readBody reads the answer's body and the MCP token it carries, if any.
func readBody(res *http.Response, peer *string) (string, string) {
	if strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") && peer != nil && strings.HasPrefix(*peer, "<stream") {
		buf := make([]byte, 4096)
		done := make(chan int, 1)
		go func() { n, _ := io.ReadAtLeast(res.Body, buf, 1); done <- n }()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			return "<stream still open after 2s>", ""
		}
	}
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return "<read error: " + err.Error() + ">", ""
	}
	var seed struct {
		MCP struct {
			Headers map[string]string `json:"headers"`
		} `json:"mcp"`
	}
	if json.Unmarshal(b, &seed) == nil {
		return string(b), seed.MCP.Headers["X-NeMo-Gym-Session-Token"]
	}
	return string(b), ""
}

func optional(s *string) string {
	if s == nil {
		return "<none>"
	}
	return *s
}

func optionalHeader(h http.Header, key string) string {
	if v := h.Values(key); len(v) > 0 {
		return strings.Join(v, ", ")
	}
	return "<none>"
}

// cookieAttrs returns the attributes of the named cookie's Set-Cookie line,
// lower-cased and joined by "; " as the peer files record them.
func cookieAttrs(lines []string, name string) string {
	for _, l := range lines {
		parts := strings.Split(l, ";")
		if !strings.HasPrefix(strings.TrimSpace(parts[0]), name+"=") {
			continue
		}
		var attrs []string
		for _, p := range parts[1:] {
			if p = strings.TrimSpace(p); p != "" {
				attrs = append(attrs, strings.ToLower(p))
			}
		}
		return strings.Join(attrs, "; ")
	}
	return ""
}

// bodyDiff renders a difference readably: for JSON bodies, the first paths
// where the two trees differ; else both texts.
func bodyDiff(d diff) string {
	if d.field != "body" {
		return ""
	}
	var p, g any
	if json.Unmarshal([]byte(d.peer), &p) == nil && json.Unmarshal([]byte(d.got), &g) == nil {
		var out []string
		walkDiff("$", p, g, &out)
		if len(out) > 0 {
			if len(out) > 12 {
				out = append(out[:12], fmt.Sprintf("... %d more", len(out)-12))
			}
			return "    " + strings.Join(out, "\n    ")
		}
		return "    same JSON values, different bytes (key order or number forms):\n    peer   " + clip(firstDifference(d.peer, d.got)) + "\n    gymkit " + clip(firstDifference(d.got, d.peer))
	}
	return "    peer   " + clip(d.peer) + "\n    gymkit " + clip(d.got)
}

// firstDifference returns a from a little before the first byte where a and
// b differ.
func firstDifference(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return a[max(0, i-40):]
}

func walkDiff(path string, p, g any, out *[]string) {
	switch pv := p.(type) {
	case map[string]any:
		gv, ok := g.(map[string]any)
		if !ok {
			*out = append(*out, fmt.Sprintf("%s: peer %s, gymkit %s", path, short(p), short(g)))
			return
		}
		keys := make([]string, 0, len(pv))
		for k := range pv {
			keys = append(keys, k)
		}
		for k := range gv {
			if _, ok := pv[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			a, inP := pv[k]
			b, inG := gv[k]
			switch {
			case !inP:
				*out = append(*out, fmt.Sprintf("%s.%s: only gymkit has it: %s", path, k, short(b)))
			case !inG:
				*out = append(*out, fmt.Sprintf("%s.%s: only the peer has it: %s", path, k, short(a)))
			default:
				walkDiff(path+"."+k, a, b, out)
			}
		}
	case []any:
		gv, ok := g.([]any)
		if !ok {
			*out = append(*out, fmt.Sprintf("%s: peer %s, gymkit %s", path, short(p), short(g)))
			return
		}
		if len(pv) != len(gv) {
			*out = append(*out, fmt.Sprintf("%s: peer has %d items, gymkit %d", path, len(pv), len(gv)))
		}
		for i := range min(len(pv), len(gv)) {
			walkDiff(fmt.Sprintf("%s[%d]", path, i), pv[i], gv[i], out)
		}
	default:
		if fmt.Sprint(p) != fmt.Sprint(g) || fmt.Sprintf("%T", p) != fmt.Sprintf("%T", g) {
			*out = append(*out, fmt.Sprintf("%s: peer %s, gymkit %s", path, short(p), short(g)))
		}
	}
}

func short(v any) string {
	b, _ := json.Marshal(v)
	return clip(string(b))
}
