//go:build soak

package soak

// The soak runs in one process: the two hosts and the load that drives
// them, so that runtime.ReadMemStats (after a GC) and /proc/self/fd see the
// servers' heap, goroutines and descriptors (and the client's, which the
// checks allow for: a fixed pool of keep-alive connections). Phases:
//
//  1. warm-up: a few rounds of every kind of request (lazy caches, pools);
//  2. cookieless: -soak.cookieless requests that carry no cookie and write
//     no state, half on each door: HTTP tool calls outside a session (400
//     "Session not initialized"), cookieless /verify (a read), malformed
//     bodies (422); MCP tools/call and tools/list with a seed's token (NeMo's
//     MCP agents send no cookie) of read-only tools. The live heap must end
//     within -soak.heap-slack-mb of where it started (docs/security.md,
//     "Exhaust memory": 1,000,000 of them within a few MB);
//  3. cookieless writes: cookieless HTTP get_weather, whose tool writes state
//     into the fresh session: measured and bounded per request (the state
//     stays until the session idles out, session_idle_timeout, 1 h by
//     default);
//  4. mixed, for -soak.duration with -soak.concurrency workers, on a second
//     pair of instances whose session_idle_timeout (and workplace
//     world_max_idle) is -soak.idle (config overrides), after a short
//     warm-up of them: weather rollouts (seed, MCP handshake, HTTP and MCP
//     calls, verify with NeMo's bodies), workplace rollouts (seed,
//     concurrent sends of one rollout on both doors, a search that must find
//     every one of them: no lost update, verify), bad traffic on both doors,
//     cookieless reads. What the rollouts keep (their session state) idles
//     out, so the live heap must level off: it may grow by -soak.heap-slack-mb
//     over the phase, its peak in the last third may exceed its peak before
//     (once the first idle window could expire) by -soak.level-mb, and once
//     the instances have been quiet for an idle timeout and a sweep it must
//     be back within -soak.level-mb of where the phase started. The pair is
//     then stopped;
//  5. flood: live workplace rollouts each keep a changed world, then
//     -soak.seeds cookieless seeds arrive while new rollouts seed and write:
//     every live world survives, every new rollout gets its world
//     (docs/security.md, "Evict": 20,000 seeds evict nothing);
//  6. rest: idle connections closed; goroutines and descriptors must return
//     to their level before the first request.
//
// Every answer is checked (status, and the body's shape or exact bytes); a
// single wrong answer fails the soak. Errors logged by the hosts (faults)
// fail it too.

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gymkit/gymkit/server"
	_ "github.com/gymkit/gymkit/servers/all"
)

var (
	flagDuration    = flag.Duration("soak.duration", 2*time.Minute, "length of the mixed phase")
	flagConcurrency = flag.Int("soak.concurrency", 8, "concurrent clients")
	flagCookieless  = flag.Int("soak.cookieless", 200_000, "cookieless requests of the cookieless phase (1000000: the figure docs/security.md quotes)")
	flagWrites      = flag.Int("soak.cookieless-writes", 20_000, "cookieless state-writing requests of the cookieless-writes phase")
	flagSeeds       = flag.Int("soak.seeds", 20_000, "cookieless seeds of the flood phase")
	flagLive        = flag.Int("soak.live", 50, "live workplace rollouts that must survive the flood")
	flagHeapSlack   = flag.Float64("soak.heap-slack-mb", 4, "how far the live heap may move in the cookieless phase, in MB")
	flagPerRollout  = flag.Int("soak.rollout-bytes", 2048, "live heap a cookieless write (or seed) may keep, in bytes: its session state")
	flagIdle        = flag.Duration("soak.idle", 3*time.Second, "session_idle_timeout (and workplace world_max_idle) of the mixed phase's instances")
	flagLevel       = flag.Float64("soak.level-mb", 1, "how far the live heap's peak in the last third of the mixed phase may exceed its earlier peak, and the heap end above the phase's start after an idle timeout of quiet, in MB")
	flagSample      = flag.Duration("soak.sample", 5*time.Second, "sampling interval of heap, goroutines and fds")
)

const mib = 1 << 20

// ---- the environments ----

// env is one started instance.
type env struct {
	name   string // the instance name
	url    string
	cookie string // the session cookie's name
	stop   func() // stops the host and waits for its drain; idempotent
}

// repoRoot is the module root (two levels up from this package).
func repoRoot(t *testing.T) string {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// levelCounter is a slog handler that counts records per level and keeps
// the first few errors.
type levelCounter struct {
	warn, errs atomic.Int64
	mu         sync.Mutex
	first      []string
}

func (l *levelCounter) Enabled(context.Context, slog.Level) bool { return true }
func (l *levelCounter) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *levelCounter) WithGroup(string) slog.Handler            { return l }
func (l *levelCounter) Handle(_ context.Context, r slog.Record) error {
	switch {
	case r.Level >= slog.LevelError:
		l.errs.Add(1)
		l.mu.Lock()
		if len(l.first) < 5 {
			var b strings.Builder
			b.WriteString(r.Message)
			r.Attrs(func(a slog.Attr) bool { fmt.Fprintf(&b, " %s=%v", a.Key, a.Value); return true })
			l.first = append(l.first, b.String())
		}
		l.mu.Unlock()
	case r.Level >= slog.LevelWarn:
		l.warn.Add(1)
	}
	return nil
}

// start serves a shipped config through the real host on a free loopback
// port.
func start(t *testing.T, config string, logs *levelCounter, overrides ...string) *env {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	h, err := server.New(ctx, server.Options{
		Files:     []string{config},
		Overrides: overrides,
		WorkDir:   repoRoot(t),
		LookupEnv: func(string) (string, bool) { return "", false },
		Logger:    slog.New(logs),
		Ready:     io.Discard,
	})
	if err != nil {
		cancel()
		t.Fatalf("start %s: %v", config, err)
	}
	ins := h.Instances()
	if len(ins) != 1 {
		t.Fatalf("%s: %d instances, want 1", config, len(ins))
	}
	done := make(chan error, 1)
	go func() { done <- h.Serve(ctx) }()
	stop := sync.OnceFunc(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("drain: %v", err)
		}
	})
	t.Cleanup(stop)
	return &env{name: strings.TrimSuffix(filepath.Base(config), ".yaml"), url: ins[0].URL(), stop: stop}
}

// startPair starts the two environments, each with the overrides given
// (beside the workplace data's own), and learns their cookie names.
func startPair(t *testing.T, r *run, data string, logs *levelCounter, overrides func(instance string) []string) (weather, work *env) {
	t.Helper()
	weather = start(t, "servers/example_mcp_weather/configs/example_mcp_weather.yaml", logs, overrides("example_mcp_weather")...)
	work = start(t, "servers/workplace_assistant/configs/workplace_assistant.yaml", logs,
		append([]string{
			"workplace_assistant.resources_servers.workplace_assistant.data_dir=" + filepath.Join(data, "csv_data"),
			"workplace_assistant.resources_servers.workplace_assistant.tools_file=" + filepath.Join(data, "tools.json"),
		}, overrides("workplace_assistant")...)...)
	for _, e := range []*env{weather, work} {
		a := r.post(e, "/seed_session", `{}`, "")
		if c := (&http.Response{Header: a.header}).Cookies(); a.status != 200 || len(c) != 1 {
			t.Fatalf("%s seed: %d %q", e.name, a.status, a.header.Values("Set-Cookie"))
		} else {
			e.cookie = c[0].Name
		}
	}
	return weather, work
}

// ---- the load ----

// door counts requests per door.
type door int

const (
	doorHTTP door = iota
	doorMCP
)

// run is the shared state of a soak: the client, the counters and the
// failures.
type run struct {
	t        *testing.T
	client   *http.Client
	weather  *env
	work     *env
	requests [2]atomic.Int64 // per door
	failures atomic.Int64
	mu       sync.Mutex
	samples  []string // the first failures
	seq      atomic.Int64
}

// answer is one HTTP answer.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// fail records a wrong answer.
func (r *run) fail(format string, args ...any) {
	if r.failures.Add(1) > 20 {
		return
	}
	msg := fmt.Sprintf(format, args...)
	if len(msg) > 600 {
		msg = msg[:600] + "..."
	}
	r.mu.Lock()
	r.samples = append(r.samples, msg)
	r.mu.Unlock()
}

// do sends one request; hdr holds name, value pairs.
func (r *run) do(d door, e *env, path, body string, hdr ...string) answer {
	r.requests[d].Add(1)
	req, err := http.NewRequest(http.MethodPost, e.url+path, strings.NewReader(body))
	if err != nil {
		r.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := r.client.Do(req)
	if err != nil {
		r.fail("POST %s%s: %v", e.name, path, err)
		return answer{}
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		r.fail("POST %s%s: reading: %v", e.name, path, err)
	}
	return answer{status: resp.StatusCode, header: resp.Header, body: b}
}

// post is an HTTP-door call with the session cookie (none when "").
func (r *run) post(e *env, path, body, cookie string) answer {
	if cookie == "" {
		return r.do(doorHTTP, e, path, body)
	}
	return r.do(doorHTTP, e, path, body, "Cookie", e.cookie+"="+cookie)
}

// expect checks an HTTP answer's status and exact body ("" : any body).
func (r *run) expect(what string, a answer, status int, body string) bool {
	if a.status != status || (body != "" && string(a.body) != body) {
		r.fail("%s: %d %s, want %d %s", what, a.status, a.body, status, body)
		return false
	}
	if c := a.header.Values("Set-Cookie"); len(c) != 1 {
		r.fail("%s: Set-Cookie %q, want exactly one", what, c)
		return false
	}
	return true
}

// cookieOf returns the session cookie's value set by a.
func cookieOf(e *env, a answer) string {
	for _, c := range (&http.Response{Header: a.header}).Cookies() {
		if c.Name == e.cookie {
			return c.Value
		}
	}
	return ""
}

// rpc sends one JSON-RPC message to /mcp, with token when set, and no
// cookie (as NeMo's MCP agents send them).
func (r *run) rpc(e *env, msg, token string) answer {
	hdr := []string{"Accept", "application/json, text/event-stream", "Mcp-Protocol-Version", "2025-06-18"}
	if token != "" {
		hdr = append(hdr, "X-NeMo-Gym-Session-Token", token)
	}
	return r.do(doorMCP, e, "/mcp", msg, hdr...)
}

// toolResult is a decoded tools/call answer.
type toolResult struct {
	Result *struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		IsError           *bool           `json:"isError"`
	} `json:"result"`
}

// call sends tools/call and checks the answer's shape: 200, one text
// content, isError as wanted. It returns the text ("" on a wrong answer).
func (r *run) call(e *env, tool, args, token string, wantError bool) string {
	id := r.seq.Add(1)
	msg := `{"jsonrpc":"2.0","id":` + strconv.FormatInt(id, 10) + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
	a := r.rpc(e, msg, token)
	var res toolResult
	if a.status != 200 || json.Unmarshal(a.body, &res) != nil || res.Result == nil || res.Result.IsError == nil ||
		*res.Result.IsError != wantError || len(res.Result.Content) != 1 || res.Result.Content[0].Type != "text" ||
		!bytes.HasPrefix(a.body, []byte(`{"jsonrpc":"2.0","id":`+strconv.FormatInt(id, 10)+`,"result":`)) {
		r.fail("MCP %s %s: %d %s, want isError=%v", e.name, tool, a.status, a.body, wantError)
		return ""
	}
	text := res.Result.Content[0].Text
	if !wantError && strings.HasPrefix(text, "{") && !bytes.Equal(res.Result.StructuredContent, []byte(text)) {
		r.fail("MCP %s %s: structuredContent %s differs from the text %s", e.name, tool, res.Result.StructuredContent, text)
	}
	return text
}

// rpcError checks that msg is answered with status and the JSON-RPC error
// code.
func (r *run) rpcError(e *env, what, msg, token string, status, code int) {
	a := r.rpc(e, msg, token)
	var m struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if a.status != status || json.Unmarshal(a.body, &m) != nil || m.Error == nil || m.Error.Code != code {
		r.fail("MCP %s %s: %d %s, want %d and error %d", e.name, what, a.status, a.body, status, code)
	}
}

// seed starts a rollout the way NeMo's agents do: no cookie. It returns
// the session cookie and the MCP token.
func (r *run) seed(e *env, body string) (cookie, token string) {
	a := r.post(e, "/seed_session", body, "")
	var m struct {
		MCP struct {
			ServerName string            `json:"server_name"`
			URLPath    string            `json:"url_path"`
			Transport  string            `json:"transport"`
			Headers    map[string]string `json:"headers"`
		} `json:"mcp"`
	}
	if !r.expect(e.name+" seed", a, 200, "") || json.Unmarshal(a.body, &m) != nil ||
		m.MCP.ServerName != e.name || m.MCP.URLPath != "/mcp" || m.MCP.Transport != "http" || m.MCP.Headers["X-NeMo-Gym-Session-Token"] == "" {
		r.fail("%s seed: %s", e.name, a.body)
		return "", ""
	}
	cookie = cookieOf(e, a)
	if cookie == "" {
		r.fail("%s seed: no cookie %q", e.name, a.header.Values("Set-Cookie"))
	}
	return cookie, m.MCP.Headers["X-NeMo-Gym-Session-Token"]
}

// handshake is what an MCP client sends before its calls: initialize, the
// initialized notification, tools/list (with the token, as NeMo's agents).
func (r *run) handshake(e *env, token string, tools int) {
	a := r.rpc(e, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"soak","version":"1"}}}`, "")
	if a.status != 200 || !bytes.Contains(a.body, []byte(`"serverInfo":{"name":"`+e.name+`"`)) {
		r.fail("MCP %s initialize: %d %s", e.name, a.status, a.body)
	}
	if a := r.rpc(e, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, ""); a.status != 202 {
		r.fail("MCP %s initialized: %d %s", e.name, a.status, a.body)
	}
	a = r.rpc(e, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, token)
	var m struct {
		Result struct {
			Tools []json.RawMessage `json:"tools"`
		} `json:"result"`
	}
	if a.status != 200 || json.Unmarshal(a.body, &m) != nil || len(m.Result.Tools) != tools {
		r.fail("MCP %s tools/list: %d %.300s, want %d tools", e.name, a.status, a.body, tools)
	}
}

// ---- NeMo-style verify bodies ----

// fcall is one function call of a response.
type fcall struct{ name, args, output string }

// verifyBody is a /verify body as NeMo's agents send it: the model's
// function_call items (id, status), their function_call_output items ("id":
// null, "status": null, as the agent builds them), and the assistant's
// message (id, status, annotations).
func verifyBody(calls []fcall, final, extra string) string {
	var out []string
	for i, c := range calls {
		callID := fmt.Sprintf("call_%d", i)
		out = append(out,
			fmt.Sprintf(`{"id":"fc_%d","type":"function_call","call_id":%q,"name":%q,"arguments":%s,"status":"completed"}`, i, callID, c.name, strconv.Quote(c.args)),
			fmt.Sprintf(`{"id":null,"type":"function_call_output","call_id":%q,"output":%s,"status":null}`, callID, strconv.Quote(c.output)))
	}
	out = append(out, `{"id":"msg_1","type":"message","role":"assistant","status":"completed","content":[{"type":"output_text","text":`+strconv.Quote(final)+`,"annotations":[]}]}`)
	return `{"responses_create_params":{"input":[{"role":"user","content":"Go."}],"tools":[]},` +
		`"response":{"id":"resp_1","created_at":0,"model":"policy","object":"response","parallel_tool_calls":true,"tool_choice":"auto","tools":[],` +
		`"output":[` + strings.Join(out, ",") + `]}` + extra + `}`
}

// ---- the traffic ----

var cities = []string{"Paris", "Zürich", "São Paulo", "Tokyo", "Lagos"}

func sentence(city string) string { return "The weather in " + city + " is sunny and 72 F." }

// weatherRollout is one example_mcp_weather rollout on both doors.
func (r *run) weatherRollout(i int) {
	e := r.weather
	city := cities[i%len(cities)]
	cookie, token := r.seed(e, `{"verifier_metadata":{"expected_city":`+strconv.Quote(city)+`}}`)
	if token == "" {
		return
	}
	want := `{"weather":` + strconv.Quote(sentence(city)) + `}`
	var calls []fcall
	if i%2 == 0 {
		r.expect("weather get_weather", r.post(e, "/get_weather", `{"city":`+strconv.Quote(city)+`}`, cookie), 200, want)
		calls = append(calls, fcall{"get_weather", `{"city":` + strconv.Quote(city) + `}`, want})
	} else {
		r.handshake(e, token, 1)
		if text := r.call(e, "get_weather", `{"city":`+strconv.Quote(city)+`}`, token, false); text != "" && text != want {
			r.fail("MCP weather get_weather: %s, want %s", text, want)
		}
		// An MCP agent records the namespaced name.
		calls = append(calls, fcall{"mcp__" + e.name + "__get_weather", `{"city":` + strconv.Quote(city) + `}`, want})
	}
	a := r.post(e, "/verify", verifyBody(calls, sentence(city), `,"verifier_metadata":{"expected_city":`+strconv.Quote(city)+`}`), cookie)
	if r.expect("weather verify", a, 200, "") &&
		(!bytes.Contains(a.body, []byte(`"reward":1.0,`)) || !bytes.Contains(a.body, []byte(`"tool_call_seen":true`))) {
		r.fail("weather verify: reward not 1.0: %.400s", a.body)
	}
}

// sends is how many sends of one workplace rollout run at once.
const sends = 6

// workplaceRollout is one workplace_assistant rollout: concurrent sends of
// one rollout on both doors, a search that must find every one, verify.
func (r *run) workplaceRollout(i int) {
	e := r.work
	cookie, token := r.seed(e, `{}`)
	if token == "" {
		return
	}
	if i%4 == 0 {
		r.handshake(e, token, 27)
	}
	tag := fmt.Sprintf("soaktag%dx%d", i, r.seq.Add(1))
	calls := make([]fcall, sends)
	var wg sync.WaitGroup
	for k := range sends {
		args := fmt.Sprintf(`{"recipient":"kofi.mensah@atlas.com","subject":"%s %d","body":"Soak %d."}`, tag, k, k)
		calls[k] = fcall{"email_send_email", args, `{"output":"Email sent successfully."}`}
		wg.Go(func() {
			if k%2 == 0 {
				r.expect("workplace send", r.post(e, "/email_send_email", args, cookie), 200, `{"output":"Email sent successfully."}`)
				return
			}
			if text := r.call(e, "email_send_email", args, token, false); text != "" && text != `{"output":"Email sent successfully."}` {
				r.fail("MCP workplace send: %s", text)
			}
		})
	}
	wg.Wait()
	// No lost update: every send of the rollout is in its world.
	a := r.post(e, "/email_search_emails", `{"query":"`+tag+`","page_size":50}`, cookie)
	var found struct {
		Output struct {
			Emails []map[string]any `json:"emails"`
		} `json:"output"`
	}
	if r.expect("workplace search", a, 200, "") {
		if err := json.Unmarshal(a.body, &found); err != nil || len(found.Output.Emails) != sends {
			r.fail("workplace search: %d of %d sends found (lost update?): %.300s", len(found.Output.Emails), sends, a.body)
		}
	}
	gt, _ := json.Marshal(func() []map[string]string {
		var l []map[string]string
		for _, c := range calls {
			l = append(l, map[string]string{"name": c.name, "arguments": c.args})
		}
		return l
	}())
	a = r.post(e, "/verify", verifyBody(calls, "Sent.", `,"ground_truth":`+string(gt)+`,"id":`+strconv.Itoa(i)+`,"category":"workbench_email","environment_name":"workbench"`), cookie)
	if r.expect("workplace verify", a, 200, "") && !bytes.HasSuffix(a.body, []byte(`"reward":1.0}`)) {
		r.fail("workplace verify: reward not 1.0: %.300s", a.body[max(0, len(a.body)-300):])
	}
	// The world was freed at verify: the session is no longer seeded.
	r.expect("workplace call after verify", r.post(e, "/email_search_emails", `{"query":"x"}`, cookie), 400, notInitialized)
}

const notInitialized = `{"detail":"Session not initialized. Please call seed_session first."}`

// bad sends malformed and refused requests on both doors of both
// environments, each with its exact answer.
func (r *run) bad(token string) {
	w, p := r.weather, r.work
	if a := r.post(w, "/get_weather", `{"city":`, ""); a.status != 422 || !bytes.Contains(a.body, []byte(`"type":"json_invalid"`)) {
		r.fail("weather truncated body: %d %s", a.status, a.body)
	}
	if a := r.post(w, "/get_weather", `{"city":5}`, ""); a.status != 422 || !bytes.Contains(a.body, []byte(`"type":"string_type"`)) {
		r.fail("weather city 5: %d %s", a.status, a.body)
	}
	if a := r.post(w, "/verify", `{"response":[]}`, ""); a.status != 422 || !bytes.HasPrefix(a.body, []byte(`{"detail":[{"type":"missing","loc":["body","responses_create_params"]`)) {
		r.fail("weather verify without fields: %d %.300s", a.status, a.body)
	}
	r.expect("workplace send without a session", r.post(p, "/email_send_email", `{"recipient":"a@b.co","subject":"s","body":"b"}`, ""), 400, notInitialized)
	r.expect("workplace send with a forged cookie", r.post(p, "/email_send_email", `{"recipient":"a@b.co","subject":"s","body":"b"}`, "forged.cookie"), 400, notInitialized)
	if text := r.call(w, "get_weather", `{"city":"Paris"}`, "", true); text != "" && text != "Missing X-NeMo-Gym-Session-Token for Gym MCP tool call." {
		r.fail("MCP tokenless: %s", text)
	}
	forged := "A" + token[1:]
	if token[0] == 'A' {
		forged = "B" + token[1:]
	}
	if text := r.call(p, "email_send_email", `{"recipient":"a@b.co","subject":"s","body":"b"}`, forged, true); text != "" && text != "Invalid Gym MCP session token." {
		r.fail("MCP forged token: %s", text)
	}
	if text := r.call(w, "get_weather", `{"city":5}`, token, true); text != "" && !strings.HasPrefix(text, "HTTP 422 from POST /get_weather: ") {
		r.fail("MCP city 5: %s", text)
	}
	r.rpcError(w, "parse error", `{"jsonrpc":"2.0","id":1,"method":`, "", 400, -32700)
	r.rpcError(p, "setLevel bogus", `{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"bogus"}}`, "", 200, -32602)
	r.rpcError(w, "name 5", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5}}`, token, 200, -32602)
	r.rpcError(p, "batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, "", 400, -32602)
}

// cookieless sends one request without a cookie that writes no state:
// even i on the HTTP door, odd i on the MCP door with a token (wtok, ptok:
// seeded sessions of weather and workplace).
func (r *run) cookieless(i int, wtok, ptok string) {
	w, p := r.weather, r.work
	switch i % 8 {
	case 0:
		r.expect("cookieless workplace call", r.post(p, "/email_search_emails", `{"query":"kofi"}`, ""), 400, notInitialized)
	case 2:
		a := r.post(w, "/verify", verifyBody(nil, sentence("Paris"), ""), "")
		if r.expect("cookieless weather verify", a, 200, "") && !bytes.Contains(a.body, []byte(`"reward":0.0,`)) {
			r.fail("cookieless weather verify: %.300s", a.body)
		}
	case 4:
		if a := r.post(w, "/get_weather", `{"town":"Paris"}`, ""); a.status != 422 || !bytes.Contains(a.body, []byte(`"type":"missing"`)) {
			r.fail("cookieless weather missing city: %d %s", a.status, a.body)
		}
	case 6:
		if a := r.post(p, "/company_directory_find_email_address", `{"name":`, ""); a.status != 422 {
			r.fail("cookieless truncated body: %d %s", a.status, a.body)
		}
	case 1:
		if text := r.call(p, "email_get_email_information_by_id", `{"email_id":"00000259","field":"subject"}`, ptok, false); text != "" && text != `{"output":{"subject":"Task Update on Create wireframe for homepage"}}` {
			r.fail("MCP workplace email by id: %.300s", text)
		}
	case 3:
		if text := r.call(p, "company_directory_find_email_address", `{"name":"kofi"}`, ptok, false); text != "" && !strings.HasPrefix(text, `{"output":[`) {
			r.fail("MCP workplace directory: %.300s", text)
		}
	case 5:
		a := r.rpc(w, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, wtok)
		if a.status != 200 || !bytes.HasPrefix(a.body, []byte(`{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"get_weather",`)) {
			r.fail("MCP weather tools/list: %d %.300s", a.status, a.body)
		}
	case 7:
		if text := r.call(p, "company_directory_find_email_address", `{"name":"sam"}`, ptok, false); text != "" && !strings.HasPrefix(text, `{"output":[`) {
			r.fail("MCP workplace directory: %.300s", text)
		}
	}
}

// ---- sampling ----

// sample is one reading of the process.
type sample struct {
	at         time.Duration
	heap       uint64 // live heap after a GC, bytes
	goroutines int
	fds        int
	done       int64 // work items started in the phase when sampled
}

func take(t0 time.Time) sample {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fds := -1
	if ents, err := os.ReadDir("/proc/self/fd"); err == nil {
		fds = len(ents)
	}
	return sample{at: time.Since(t0), heap: ms.HeapAlloc, goroutines: runtime.NumGoroutine(), fds: fds}
}

// phase is one phase's figures.
type phase struct {
	name               string
	elapsed            time.Duration
	http, mcp          int64
	start, middle, end sample
	samples            []sample // every sample of the phase, in order
	note               string
}

// drive runs work(i) on n workers for i = 0, 1, ... while more(i, elapsed)
// holds, sampling every interval; it returns the phase's figures.
func (r *run) drive(name string, n int, more func(i int64, elapsed time.Duration) bool, work func(i int64)) *phase {
	t0 := time.Now()
	ph := &phase{name: name, start: take(t0)}
	h0, m0 := r.requests[doorHTTP].Load(), r.requests[doorMCP].Load()
	var next atomic.Int64
	var wg sync.WaitGroup
	// gate lets the sampler wait for the requests in flight, so that every
	// sample is of a quiescent process (the live heap without the garbage
	// and buffers of running requests).
	var gate sync.RWMutex
	for range n {
		wg.Go(func() {
			for {
				gate.RLock()
				i := next.Add(1) - 1
				if !more(i, time.Since(t0)) {
					gate.RUnlock()
					return
				}
				work(i)
				gate.RUnlock()
			}
		})
	}
	stop := make(chan struct{})
	var samples []sample
	var sw sync.WaitGroup
	sw.Go(func() {
		tick := time.NewTicker(*flagSample)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				gate.Lock()
				s := take(t0)
				s.done = next.Load()
				gate.Unlock()
				samples = append(samples, s)
			}
		}
	})
	wg.Wait()
	close(stop)
	sw.Wait()
	ph.elapsed = time.Since(t0)
	ph.http, ph.mcp = r.requests[doorHTTP].Load()-h0, r.requests[doorMCP].Load()-m0
	ph.end = take(t0)
	ph.end.done = next.Load()
	ph.middle = ph.end
	if len(samples) > 0 {
		ph.middle = samples[len(samples)/2]
	}
	ph.samples = samples
	return ph
}

func mb(b uint64) string { return fmt.Sprintf("%.1f", float64(b)/mib) }

func rate(n int64, d time.Duration) string {
	if d <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", float64(n)/d.Seconds())
}

// table prints the summary.
func table(t *testing.T, phases []*phase) {
	var b strings.Builder
	fmt.Fprintf(&b, "\n%-18s %8s %9s %7s %9s %7s  %-20s %-14s %-12s\n", "phase", "time", "HTTP req", "req/s", "MCP req", "req/s",
		"heap MB (s/m/e)", "goroutines", "fds")
	for _, p := range phases {
		fmt.Fprintf(&b, "%-18s %8s %9d %7s %9d %7s  %-20s %-14s %-12s\n", p.name, p.elapsed.Round(100*time.Millisecond),
			p.http, rate(p.http, p.elapsed), p.mcp, rate(p.mcp, p.elapsed),
			mb(p.start.heap)+"/"+mb(p.middle.heap)+"/"+mb(p.end.heap),
			fmt.Sprintf("%d/%d/%d", p.start.goroutines, p.middle.goroutines, p.end.goroutines),
			fmt.Sprintf("%d/%d/%d", p.start.fds, p.middle.fds, p.end.fds))
	}
	for _, p := range phases {
		if p.note != "" {
			fmt.Fprintf(&b, "  %s: %s\n", p.name, p.note)
		}
	}
	t.Log(b.String())
}

// ---- the soak ----

func TestSoak(t *testing.T) {
	logs := &levelCounter{}
	data := filepath.Join(repoRoot(t), "..", "shared", "data", "nemo-gym", "workplace_assistant")
	if _, err := os.Stat(data); err != nil {
		t.Fatalf("the workplace_assistant data is missing (%v): the soak needs ../shared beside the repository", err)
	}
	conc := max(1, *flagConcurrency)
	transport := &http.Transport{MaxIdleConns: 4 * conc, MaxIdleConnsPerHost: 4 * conc, IdleConnTimeout: time.Minute}
	r := &run{t: t, client: &http.Client{Transport: transport, Timeout: time.Minute}}
	rest := take(time.Now()) // before any connection
	r.weather, r.work = startPair(t, r, data, logs, func(string) []string { return nil })
	_, wtok := r.seed(r.weather, `{}`)
	_, ptok := r.seed(r.work, `{}`)
	if wtok == "" || ptok == "" {
		t.Fatalf("no tokens: %v", r.samples)
	}
	var phases []*phase
	failIf := func(cond bool, format string, args ...any) {
		if cond {
			t.Errorf(format, args...)
		}
	}

	// 1. warm-up.
	phases = append(phases, r.drive("warm-up", conc, func(i int64, _ time.Duration) bool { return i < 400 }, func(i int64) {
		switch i % 4 {
		case 0:
			r.weatherRollout(int(i))
		case 1:
			r.workplaceRollout(int(i))
		case 2:
			r.bad(wtok)
		default:
			for k := range 16 {
				r.cookieless(k, wtok, ptok)
			}
		}
	}))

	// 2. cookieless: no cookie, no state written.
	n := int64(*flagCookieless)
	ph := r.drive("cookieless", conc, func(i int64, _ time.Duration) bool { return i < n }, func(i int64) { r.cookieless(int(i), wtok, ptok) })
	grew := int64(ph.end.heap) - int64(ph.start.heap)
	ph.note = fmt.Sprintf("%d requests without a cookie moved the live heap by %+.2f MB (limit %.0f MB)", n, float64(grew)/mib, *flagHeapSlack)
	failIf(float64(grew) > *flagHeapSlack*mib || float64(-grew) > *flagHeapSlack*mib, "cookieless: %s", ph.note)
	for _, s := range ph.samples {
		failIf(float64(s.heap) > float64(ph.start.heap)+*flagHeapSlack*mib, "cookieless: live heap %s MB at %s (start %s MB): not level",
			mb(s.heap), s.at.Round(time.Second), mb(ph.start.heap))
	}
	phases = append(phases, ph)

	// 3. cookieless writes: each stores the fresh session's state.
	nw := int64(*flagWrites)
	ph = r.drive("cookieless writes", conc, func(i int64, _ time.Duration) bool { return i < nw }, func(i int64) {
		city := cities[i%int64(len(cities))]
		r.expect("cookieless get_weather", r.post(r.weather, "/get_weather", `{"city":`+strconv.Quote(city)+`}`, ""), 200,
			`{"weather":`+strconv.Quote(sentence(city))+`}`)
	})
	per := (int64(ph.end.heap) - int64(ph.start.heap)) / max(nw, 1)
	ph.note = fmt.Sprintf("%d cookieless get_weather calls (the tool writes state, kept until the session idles out): %d B of live heap each (limit %d)", nw, per, *flagPerRollout)
	failIf(per > int64(*flagPerRollout), "cookieless writes: %s", ph.note)
	phases = append(phases, ph)

	// 4. mixed, for the duration, on a pair of instances whose sessions idle
	// out after -soak.idle: the live heap must level off.
	idle := *flagIdle
	mw, mp := startPair(t, r, data, logs, func(instance string) []string {
		o := []string{instance + ".resources_servers." + instance + ".session_idle_timeout=" + idle.String()}
		if instance == "workplace_assistant" {
			o = append(o, instance+".resources_servers."+instance+".world_max_idle="+idle.String())
		}
		return o
	})
	_, mwtok := r.seed(mw, `{}`)
	_, mptok := r.seed(mp, `{}`)
	if mwtok == "" || mptok == "" {
		t.Fatalf("no tokens for the mixed phase: %v", r.samples)
	}
	first, firstWork := r.weather, r.work
	r.weather, r.work = mw, mp
	var rollouts atomic.Int64
	mixed := func(i int64) {
		switch i % 10 {
		case 0, 1, 2:
			rollouts.Add(1)
			r.weatherRollout(int(i))
		case 3, 4, 5:
			rollouts.Add(1)
			r.workplaceRollout(int(i))
		case 6, 7:
			r.bad(mwtok)
		default:
			for k := range 8 {
				r.cookieless(int(i)+k, mwtok, mptok)
			}
		}
	}
	phases = append(phases, r.drive("mixed warm-up", conc, func(i int64, _ time.Duration) bool { return i < 400 }, mixed))
	rollouts.Store(0)
	dur := *flagDuration
	ph = r.drive("mixed", conc, func(_ int64, el time.Duration) bool { return el < dur }, mixed)
	// Level: the highest sample of the last third (the end's included)
	// against the highest of the first two thirds once the sessions of the
	// first idle window could expire (the live set is what one idle window
	// of rollouts keeps, so it follows the request rate, which varies on a
	// shared machine: comparing peaks absorbs that, while growth that does
	// not level off still shows by its rate times a third of the phase).
	cut := ph.elapsed * 2 / 3
	settled := idle + 2*time.Second // an idle timeout and a sweep
	var ref, top uint64 = 0, ph.end.heap
	for _, s := range ph.samples {
		switch {
		case s.at >= cut:
			top = max(top, s.heap)
		case s.at >= settled || s.at >= cut/2:
			ref = max(ref, s.heap)
		}
	}
	if ref == 0 { // too short a phase for samples: its start
		ref = ph.start.heap
	}
	lastThird := int64(top) - int64(ref)
	grew = int64(ph.end.heap) - int64(ph.start.heap)
	// Quiet for an idle timeout and two sweeps: the state the rollouts kept
	// is freed.
	q0 := time.Now()
	time.Sleep(idle + 2*max(min(idle/10, time.Minute), time.Second))
	quiet := take(q0)
	afterQuiet := int64(quiet.heap) - int64(ph.start.heap)
	ph.note = fmt.Sprintf("%d rollouts (session_idle_timeout %s): live heap %+.2f MB over the phase (limit %.0f MB); its last third's peak "+
		"%+.2f MB above the earlier peak (after %s, limit %.1f MB); %+.2f MB after %s of quiet (limit %.1f MB)",
		rollouts.Load(), idle, float64(grew)/mib, *flagHeapSlack, float64(lastThird)/mib, cut.Round(time.Second),
		*flagLevel, float64(afterQuiet)/mib, quiet.at.Round(time.Second), *flagLevel)
	failIf(grew > int64(*flagHeapSlack*mib), "mixed: %s", ph.note)
	failIf(lastThird > int64(*flagLevel*mib), "mixed: growth does not level off: %s", ph.note)
	failIf(afterQuiet > int64(*flagLevel*mib), "mixed: idle session state not freed: %s", ph.note)
	failIf(ph.end.goroutines > ph.start.goroutines+4*conc+16, "mixed: goroutines %d -> %d", ph.start.goroutines, ph.end.goroutines)
	failIf(ph.end.fds > ph.start.fds+4*conc+8, "mixed: fds %d -> %d", ph.start.fds, ph.end.fds)
	phases = append(phases, ph)
	r.weather, r.work = first, firstWork
	mw.stop()
	mp.stop()

	// 5. flood: live worlds survive 20,000 cookieless seeds.
	phases = append(phases, r.flood(conc))

	// 6. rest: every connection closed, the process back where it started.
	transport.CloseIdleConnections()
	var end sample
	for deadline := time.Now().Add(10 * time.Second); ; {
		end = take(time.Now())
		if (end.goroutines <= rest.goroutines+12 && end.fds <= rest.fds+4) || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	phases = append(phases, &phase{name: "rest", start: rest, middle: end, end: end,
		note: fmt.Sprintf("before the first request: %d goroutines, %d fds; at rest after the soak: %d goroutines, %d fds",
			rest.goroutines, rest.fds, end.goroutines, end.fds)})
	failIf(end.goroutines > rest.goroutines+12, "rest: goroutines %d -> %d (a leak)", rest.goroutines, end.goroutines)
	failIf(end.fds > rest.fds+4, "rest: fds %d -> %d (a leak)", rest.fds, end.fds)

	table(t, phases)
	t.Logf("log records: %d warnings, %d errors", logs.warn.Load(), logs.errs.Load())
	if n := logs.errs.Load(); n > 0 {
		t.Errorf("the hosts logged %d errors (faults), first: %q", n, logs.first)
	}
	if n := r.failures.Load(); n > 0 {
		t.Errorf("%d wrong answers, first:\n%s", n, strings.Join(r.samples, "\n"))
	}
}

// flood keeps -soak.live workplace rollouts with a changed world, sends
// -soak.seeds cookieless seeds while new rollouts seed and write, and then
// checks that every live world is intact and every new rollout got its
// world.
func (r *run) flood(conc int) *phase {
	e := r.work
	type live struct{ cookie, token, tag string }
	mk := func(i int, kind string) live {
		cookie, token := r.seed(e, `{}`)
		tag := fmt.Sprintf("flood%s%d", kind, i)
		r.expect("flood live send", r.post(e, "/email_send_email", `{"recipient":"a@b.co","subject":"`+tag+`","body":"keep me"}`, cookie), 200,
			`{"output":"Email sent successfully."}`)
		return live{cookie, token, tag}
	}
	lives := make([]live, *flagLive)
	for i := range lives {
		lives[i] = mk(i, "live")
	}
	seeds := int64(*flagSeeds)
	var mu sync.Mutex
	var during []live
	ph := r.drive("flood", conc, func(i int64, _ time.Duration) bool { return i < seeds }, func(i int64) {
		if i%1000 == 500 {
			l := mk(int(i), "during")
			mu.Lock()
			during = append(during, l)
			mu.Unlock()
		}
		a := r.post(e, "/seed_session", `{}`, "")
		if !r.expect("flood seed", a, 200, "") || !bytes.HasPrefix(a.body, []byte(`{"mcp":{"server_name":"workplace_assistant"`)) {
			r.fail("flood seed: %s", a.body)
		}
	})
	lost := 0
	for _, l := range slices.Concat(lives, during) {
		a := r.post(e, "/email_search_emails", `{"query":"`+l.tag+`"}`, l.cookie)
		if a.status != 200 || !bytes.Contains(a.body, []byte(`"subject":"`+l.tag+`"`)) {
			lost++
			r.fail("flood: rollout %s lost its world: %d %.200s", l.tag, a.status, a.body)
		}
		// And it keeps working on the MCP door.
		if text := r.call(e, "email_search_emails", `{"query":"`+l.tag+`"}`, l.token, false); text != "" && !strings.Contains(text, `"subject":"`+l.tag+`"`) {
			lost++
			r.fail("flood: rollout %s lost its world over MCP: %.200s", l.tag, text)
		}
	}
	ph.note = fmt.Sprintf("%d cookieless seeds: %d live rollouts and %d seeded during the flood, %d lost their world; live heap %+.2f MB (%d B per seed)",
		seeds, len(lives), len(during), lost, (float64(ph.end.heap)-float64(ph.start.heap))/mib, (int64(ph.end.heap)-int64(ph.start.heap))/max(seeds, 1))
	if per := (int64(ph.end.heap) - int64(ph.start.heap)) / max(seeds, 1); per > int64(*flagPerRollout) {
		r.fail("flood: %d B of live heap per cookieless seed (limit %d)", per, *flagPerRollout)
	}
	return ph
}
