package mcpexpose_test

// The lean path (lean.go) against the go-sdk path: one table of
// requests sent to a door with the lean path and to the same door with
// mcp.lean: false, over real HTTP; the answers must be the same bytes
// (status, every header but Date, the Set-Cookie's attributes, the body).
// Each row also says whether the lean path answers it (lean) or hands it
// to the go-sdk, so that the table cannot pass by sending everything to
// the SDK.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/mcpexpose"
	examplemcpweather "github.com/gymkit/gymkit/servers/example_mcp_weather"
	examplesessionstatemgmt "github.com/gymkit/gymkit/servers/example_session_state_mgmt"
)

// parityRoutes are tools of every answer shape: errors, panics, floats,
// HTML, logs to the client, Goexit.
func parityRoutes(r *framework.Router) {
	framework.Post(r, "/upper", func(_ context.Context, req UpperRequest) (UpperResponse, error) {
		return UpperResponse{Upper: strings.ToUpper(req.Text)}, nil
	})
	framework.Post(r, "/teapot", func(context.Context, framework.NoBody) (struct{}, error) {
		return struct{}{}, framework.Errorf(418, "short and stout")
	})
	framework.Post(r, "/unavailable", func(context.Context, framework.NoBody) (struct{}, error) {
		return struct{}{}, framework.Errorf(503, "later")
	})
	framework.Post(r, "/kaboom", func(context.Context, framework.NoBody) (struct{}, error) {
		return struct{}{}, framework.PythonError("RuntimeError", "kaboom")
	})
	framework.Post(r, "/boom", func(context.Context, framework.NoBody) (struct{}, error) { panic("boom") })
	framework.Post(r, "/goexit", func(context.Context, framework.NoBody) (struct{}, error) {
		runtime.Goexit()
		return struct{}{}, nil
	})
	framework.Post(r, "/big_error", func(_ context.Context, req BigError) (struct{}, error) {
		text := strings.Repeat(req.Text, req.N)
		if req.Invalid {
			// Invalid UTF-8 across the lean path's 32 KiB pieces: cut
			// sequences, and a lead byte before 40000 continuation bytes.
			text = strings.Repeat("ab\xe2\x82", 20000) + "\xf0" + strings.Repeat("\x80", 40000) + "\xf0\x9f\x98\x80z"
		}
		return struct{}{}, framework.Errorf(400, "%s", text)
	})
	framework.Post(r, "/plain", func(context.Context, framework.NoBody) (string, error) { return "plain hello", nil })
	framework.Post(r, "/numbers", func(context.Context, framework.NoBody) ([]int, error) { return []int{1, 2}, nil })
	framework.Post(r, "/nan", func(context.Context, framework.NoBody) (Measure, error) { return Measure{X: math.NaN()}, nil })
	framework.Post(r, "/floats", func(context.Context, framework.NoBody) (Floats, error) {
		return Floats{Tiny: 1e-05, Tinier: -1.5e-07, Big: 1e16, Huge: 1.5e22, Whole: 5, Nested: []float64{2.5e-06}}, nil
	})
	framework.Post(r, "/html", func(context.Context, framework.NoBody) (map[string]string, error) {
		return map[string]string{"s": "<b>&amp; é\u2028"}, nil
	})
	framework.Post(r, "/chatty", func(ctx context.Context, _ framework.NoBody) (map[string]string, error) {
		out := map[string]string{}
		for _, l := range []framework.ClientLogLevel{framework.ClientLogDebug, framework.ClientLogInfo, framework.ClientLogError, "loud"} {
			out[string(l)] = fmt.Sprint(framework.LogToClient(ctx, l, "a line", "k", 1))
		}
		out["progress"] = fmt.Sprint(framework.ReportProgress(ctx, 1, 2, "half"))
		_, _, err := framework.Elicit[NameAnswer](ctx, "Your name?", nameSchema)
		out["elicit"] = fmt.Sprint(err)
		return out, nil
	})
}

// BigError asks /big_error for an error whose text is Text repeated N
// times, or (Invalid) a text of invalid UTF-8.
type BigError struct {
	Text    string `json:"text"`
	N       int    `json:"n"`
	Invalid bool   `json:"invalid"`
}

// parityPair is one server behind two doors: lean (the default) and sdk
// (mcp.lean: false).
type parityPair struct {
	lean, sdk *host
	leanH     http.Handler // the lean host's handler, for in-process requests
	sdkH      http.Handler
	tokens    map[string][2]string // placeholder -> token of lean, of sdk
}

func newParityPair(t testing.TB, srv func() framework.Server, instance string, mod func(*mcpexpose.Options)) *parityPair {
	t.Helper()
	p := &parityPair{tokens: map[string][2]string{}}
	for i, sdkOnly := range []bool{false, true} {
		h, handler, err := compose(t, srv(), hostOptions{instance: instance, door: func(o *mcpexpose.Options) {
			o.Config.MCP.Lean = !sdkOnly
			if mod != nil {
				mod(o)
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(handler)
		t.Cleanup(ts.Close)
		h.URL = ts.URL
		if tt, ok := t.(*testing.T); ok {
			h.t = tt
		}
		if i == 0 {
			p.lean, p.leanH = h, handler
		} else {
			p.sdk, p.sdkH = h, handler
		}
	}
	return p
}

// seedBoth seeds one rollout on each door with body and records its tokens
// under placeholder.
func (p *parityPair) seedBoth(t testing.TB, placeholder, body string) {
	t.Helper()
	var toks [2]string
	for i, h := range []http.Handler{p.leanH, p.sdkH} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("POST", "/seed_session", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		h.ServeHTTP(rec, req)
		var seed struct {
			MCP struct {
				Headers map[string]string `json:"headers"`
			} `json:"mcp"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &seed); err != nil || rec.Code != 200 {
			return // a refused seed (a golden's bad row) mints no token
		}
		toks[i] = seed.MCP.Headers[mcpexpose.TokenHeader]
	}
	p.tokens[placeholder] = toks
}

// parityRow is one request: body and header pairs; "{{NAME}}" in either
// stands for a seeded rollout's token on each door.
type parityRow struct {
	name   string
	body   string
	header []string // name, value pairs over the defaults; a value "-" deletes
	lean   bool     // the lean path answers it
}

// answer is what a door answered, reduced to what must be equal.
type answer struct {
	status int
	header string // every header but Date, sorted; Set-Cookie without its value
	body   string
}

func (a answer) String() string { return fmt.Sprintf("%d\n%s\n%s", a.status, a.header, a.body) }

// reduce renders a response's status, headers and body for comparison.
func reduce(status int, hdr http.Header, body []byte) answer {
	var lines []string
	for k, vs := range hdr {
		if k == "Date" {
			continue
		}
		for _, v := range vs {
			if k == "Set-Cookie" {
				name, rest, _ := strings.Cut(v, "=")
				_, attrs, _ := strings.Cut(rest, ";")
				v = name + "=<value>;" + attrs
			}
			lines = append(lines, k+": "+v)
		}
	}
	slices.Sort(lines)
	return answer{status: status, header: strings.Join(lines, "\n"), body: string(body)}
}

// request builds the row's request for one door (0 lean, 1 sdk).
func (p *parityPair) request(row parityRow, door int, url string) *http.Request {
	subst := func(s string) string {
		for ph, toks := range p.tokens {
			s = strings.ReplaceAll(s, "{{"+ph+"}}", toks[door])
		}
		return s
	}
	req, _ := http.NewRequest("POST", url+"/mcp", strings.NewReader(subst(row.body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", both)
	req.Header.Set("Mcp-Protocol-Version", pv)
	for i := 0; i+1 < len(row.header); i += 2 {
		if row.header[i+1] == "-" {
			req.Header.Del(row.header[i])
			continue
		}
		req.Header.Set(row.header[i], subst(row.header[i+1]))
	}
	return req
}

// both sends row to both doors over HTTP and returns their answers, and
// whether the lean door's lean path answered it.
func (p *parityPair) both(t *testing.T, row parityRow) (lean, sdk answer, tookLean bool) {
	t.Helper()
	before := mcpexpose.LeanAnswers(p.lean.door)
	var got [2]answer
	for i, h := range []*host{p.lean, p.sdk} {
		resp, err := http.DefaultClient.Do(p.request(row, i, h.URL))
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		got[i] = reduce(resp.StatusCode, resp.Header, b)
	}
	if n := mcpexpose.LeanAnswers(p.sdk.door); n != 0 {
		t.Fatalf("the SDKOnly door answered %d requests on the lean path", n)
	}
	return got[0], got[1], mcpexpose.LeanAnswers(p.lean.door) > before
}

const (
	tok     = mcpexpose.TokenHeader
	initFmt = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
)

func callRow(name, id, params string, lean bool, header ...string) parityRow {
	return parityRow{name: name, body: `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":` + params + `}`,
		header: append([]string{tok, "{{T}}"}, header...), lean: lean}
}

func parityRows() []parityRow {
	call := func(name, tool, args string) parityRow {
		return callRow(name, "3", `{"name":`+quote(tool)+`,"arguments":`+args+`}`, true)
	}
	rows := []parityRow{
		// initialize: what clients send, every version, and the shapes
		// left to the SDK.
		{name: "initialize go-sdk client", body: `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"gymkit","version":"v1.2.3"},"protocolVersion":"2025-06-18"}}`, lean: true},
		{name: "initialize 2024-11-05", body: fmt.Sprintf(initFmt, "2024-11-05"), lean: true},
		{name: "initialize 2025-03-26 no header", body: fmt.Sprintf(initFmt, "2025-03-26"), header: []string{"Mcp-Protocol-Version", "-"}, lean: true},
		{name: "initialize 2025-11-25", body: fmt.Sprintf(initFmt, "2025-11-25"), lean: true},
		{name: "initialize unknown version", body: fmt.Sprintf(initFmt, "1999-01-01"), lean: true},
		{name: "initialize 2026-07-28", body: fmt.Sprintf(initFmt, "2026-07-28"), lean: true},
		{name: "initialize empty version", body: fmt.Sprintf(initFmt, ""), lean: true},
		{name: "initialize capabilities", body: `{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{},"sampling":{},"elicitation":{"form":{},"url":{}},"experimental":{}},"clientInfo":{"name":"claude-code","title":"Claude","version":"2","websiteUrl":"https://x"}}}`, lean: true},
		{name: "initialize no capabilities", body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`, lean: true},
		{name: "initialize bad header version", body: fmt.Sprintf(initFmt, "2025-06-18"), header: []string{"Mcp-Protocol-Version", "1999-01-01"}},
		{name: "initialize no version", body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`},
		{name: "initialize version not a string", body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":5}}`},
		{name: "initialize escaped version", body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-1\u0038"}}`},
		{name: "initialize _meta", body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","_meta":{}}}`},
		{name: "initialize experimental", body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"experimental":{"x":1}}}}`},
		{name: "initialize roots wrong type", body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":"yes"}}}}`},
		{name: "initialize clientInfo wrong type", body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","clientInfo":{"name":5}}}`},
		{name: "initialize clientInfo icons", body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","clientInfo":{"name":"t","version":"1","icons":[]}}}`},
		{name: "initialize version twice", body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","protocolVersion":"2025-06-18"}}`},
		{name: "initialize no params", body: `{"jsonrpc":"2.0","id":1,"method":"initialize"}`},
		{name: "initialize params null", body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":null}`},
		{name: "initialize as notification", body: `{"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2025-06-18"}}`},

		// notifications/initialized: 202 as the SDK path answers it.
		{name: "initialized", body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, lean: true},
		{name: "initialized params {}", body: `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`, lean: true},
		{name: "initialized no header", body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, header: []string{"Mcp-Protocol-Version", "-"}, lean: true},
		{name: "initialized with id", body: `{"jsonrpc":"2.0","id":4,"method":"notifications/initialized"}`},
		{name: "initialized _meta", body: `{"jsonrpc":"2.0","method":"notifications/initialized","params":{"_meta":{}}}`},
		{name: "initialized params null", body: `{"jsonrpc":"2.0","method":"notifications/initialized","params":null}`},

		// ping.
		{name: "ping", body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, lean: true},
		{name: "ping string id", body: `{"jsonrpc":"2.0","id":"p-1","method":"ping","params":{}}`, lean: true},
		{name: "ping _meta", body: `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"progressToken":1}}}`},
		{name: "ping as notification", body: `{"jsonrpc":"2.0","method":"ping"}`},

		// tools/list with and without tokens.
		{name: "tools/list token", body: listMsg, header: []string{tok, "{{T}}"}, lean: true},
		{name: "tools/list restricted token", body: listMsg, header: []string{tok, "{{R}}"}, lean: true},
		{name: "tools/list empty allow-list", body: listMsg, header: []string{tok, "{{E}}"}, lean: true},
		{name: "tools/list no token", body: listMsg, lean: true},
		{name: "tools/list forged token", body: listMsg, header: []string{tok, "eyJzaWQiOiJ4In0.AAAA"}, lean: true},
		{name: "tools/list params {}", body: `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`, lean: true},
		{name: "tools/list cursor", body: `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"abc"}}`},
		{name: "tools/list cursor not a string", body: `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":5}}`},
		{name: "tools/list as notification", body: `{"jsonrpc":"2.0","method":"tools/list"}`},

		// tools/call: successes and every isError of contract d.6.
		call("append", "append", `{"value":"x"}`),
		call("append again", "append", `{"value":"y é <b>"}`),
		call("append validation", "append", `{}`),
		call("append wrong type", "append", `{"value":5}`),
		call("append extra field", "append", `{"value":"z","other":[1,{"a":null}]}`),
		call("upper", "upper", `{"text":"abc"}`),
		call("raw_step", "raw_step", `{"a":[1,2.5e-7,true,null,"s"]}`),
		call("end_session", "end_session", `{}`),
		call("lookup catch-all", "lookup", `{"q":"x"}`),
		call("teapot", "teapot", `{}`),
		call("unavailable", "unavailable", `{}`),
		call("kaboom", "kaboom", `{}`),
		call("boom panic", "boom", `{}`),
		call("goexit", "goexit", `{}`),
		call("plain", "plain", `{}`),
		call("numbers", "numbers", `{}`),
		call("nan", "nan", `{}`),
		call("floats", "floats", `{}`),
		call("html", "html", `{}`),
		call("chatty", "chatty", `{}`),
		call("unknown tool", "get_time", `{}`),
		call("unknown tool unicode", "wétter ☀", `{}`),
		call("unknown tool empty", "", `{}`),
		call("verify is no tool", "verify", `{}`),
		callRow("arguments null", "3", `{"name":"append","arguments":null}`, true),
		callRow("arguments missing", "3", `{"name":"append"}`, true),
		callRow("arguments array", "3", `{"name":"append","arguments":["x"]}`, true),
		callRow("arguments JSON string", "3", `{"name":"append","arguments":"{\"value\":\"x\"}"}`, true),
		callRow("arguments number", "3", `{"name":"no_such","arguments":0}`, true),
		callRow("arguments false", "3", `{"name":"append","arguments":false}`, true),
		callRow("arguments before name", "3", `{"arguments":{"value":"o"},"name":"append"}`, true),
		callRow("white space", "3", " \n{ \"name\" : \"append\" ,\t\"arguments\" : { \"value\" : \"w\" } } ", true),
		callRow("no token", "3", `{"name":"append","arguments":{"value":"x"}}`, true, tok, "-"),
		callRow("empty token", "3", `{"name":"append","arguments":{"value":"x"}}`, true, tok, ""),
		callRow("forged token", "3", `{"name":"append","arguments":{"value":"x"}}`, true, tok, "eyJzaWQiOiJ4In0.AAAA"),
		callRow("unknown tool before token", "3", `{"name":"nope","arguments":{}}`, true, tok, "-"),
		callRow("not allowed", "3", `{"name":"raw_step","arguments":{}}`, true, tok, "{{R}}"),
		callRow("allowed", "3", `{"name":"append","arguments":{"value":"r"}}`, true, tok, "{{R}}"),
		callRow("empty allow-list", "3", `{"name":"append","arguments":{"value":"r"}}`, true, tok, "{{E}}"),
		callRow("token of another host's rollout", "3", `{"name":"append","arguments":{"value":"x"}}`, true, tok, "{{OTHER}}"),

		// tools/call shapes left to the SDK (or to preflight).
		callRow("progress token", "3", `{"name":"append","arguments":{"value":"p"},"_meta":{"progressToken":"t1"}}`, false),
		callRow("progress token, JSON only", "3", `{"name":"append","arguments":{"value":"p"},"_meta":{"progressToken":7}}`, false, "Accept", jsonCT),
		callRow("_meta not an object", "3", `{"name":"append","arguments":{},"_meta":5}`, false),
		callRow("escaped name", "3", `{"name":"\u0061ppend","arguments":{"value":"e"}}`, false),
		callRow("name a number", "3", `{"name":5,"arguments":{}}`, false),
		callRow("name null", "3", `{"name":null,"arguments":{}}`, false),
		callRow("no name", "3", `{"arguments":{}}`, false),
		callRow("params null", "3", `null`, false),
		callRow("params array", "3", `[]`, false),
		callRow("params extra key", "3", `{"name":"append","arguments":{"value":"k"},"task":{}}`, false),
		callRow("name twice", "3", `{"name":"nope","name":"append","arguments":{"value":"d"}}`, false),
		callRow("arguments twice", "3", `{"name":"append","arguments":[],"arguments":{"value":"d"}}`, false),
		{name: "tools/call no params", body: `{"jsonrpc":"2.0","id":3,"method":"tools/call"}`, header: []string{tok, "{{T}}"}},
		{name: "tools/call as notification", body: `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"append","arguments":{"value":"n"}}}`, header: []string{tok, "{{T}}"}},
		callRow("arguments invalid UTF-8", "3", "{\"name\":\"append\",\"arguments\":{\"value\":\"\xff\"}}", false),
		callRow("arguments NaN", "3", `{"name":"raw_step","arguments":{"x":NaN}}`, false),
		callRow("arguments escaped surrogates", "3", `{"name":"append","arguments":{"value":"\ud83d\ude00"}}`, false),
		callRow("arguments escapes", "3", `{"name":"append","arguments":{"value":"a\"b\\c\/d\n\u00e9"}}`, true),
		callRow("arguments deep", "3", `{"name":"raw_step","arguments":{"a":`+strings.Repeat("[", 100)+strings.Repeat("]", 100)+`}}`, true),
		// isError texts over 64 KiB, which the lean path writes escaped in
		// 32 KiB pieces: runes of 2, 3 and 4 bytes across the cuts (the
		// text starts with the 32-byte "HTTP 400 from POST /big_error: "),
		// JSON and HTML escapes, U+2028, invalid UTF-8; and a 422 echoing
		// a large non-ASCII input (json.dumps' \u escapes, escaped again).
		callRow("big isError 2-byte runes", "3", `{"name":"big_error","arguments":{"text":"é","n":40000}}`, true),
		callRow("big isError 3-byte runes", "3", `{"name":"big_error","arguments":{"text":"€","n":30000}}`, true),
		callRow("big isError 4-byte runes", "3", `{"name":"big_error","arguments":{"text":"😀","n":20000}}`, true),
		callRow("big isError escapes", "3", `{"name":"big_error","arguments":{"text":"<a href=\"x\">&amp;</a>\\\n\t\u0001\u007f\u2028é€😀","n":3000}}`, true),
		callRow("big isError invalid UTF-8", "3", `{"name":"big_error","arguments":{"invalid":true}}`, true),
		callRow("big 422 non-ASCII input", "3", `{"name":"append","arguments":{"value":["`+strings.Repeat(`é€😀\"<`, 20000)+`"]}}`, true),
		callRow("arguments big number", "3", `{"name":"raw_step","arguments":{"a":1e400,"b":123456789012345678901234567890}}`, true),
		callRow("Last-Event-ID", "3", `{"name":"append","arguments":{"value":"l"}}`, false, "Last-Event-ID", "1"),
		callRow("Accept JSON only", "3", `{"name":"append","arguments":{"value":"a"}}`, true, "Accept", jsonCT),
		callRow("Accept */*", "3", `{"name":"append","arguments":{"value":"a"}}`, true, "Accept", "*/*"),
		callRow("Content-Type with charset", "3", `{"name":"append","arguments":{"value":"c"}}`, true, "Content-Type", "application/json; charset=utf-8"),
		callRow("Content-Type list", "3", `{"name":"append","arguments":{"value":"c"}}`, true, "Content-Type", "application/json, text/plain"),
		callRow("no protocol header", "3", `{"name":"append","arguments":{"value":"h"}}`, true, "Mcp-Protocol-Version", "-"),
		callRow("protocol header 2024-11-05", "3", `{"name":"append","arguments":{"value":"h"}}`, true, "Mcp-Protocol-Version", "2024-11-05"),
		callRow("bad protocol header", "3", `{"name":"append","arguments":{"value":"h"}}`, false, "Mcp-Protocol-Version", "2026-07-28"),
		callRow("Mcp-Session-Id ignored", "3", `{"name":"append","arguments":{"value":"s"}}`, true, "Mcp-Session-Id", "abc"),
		callRow("Mcp-Method header", "3", `{"name":"append","arguments":{"value":"m"}}`, true, "Mcp-Method", "tools/list"),

		// ids.
		callRow("id string", `"abc-1"`, `{"name":"plain","arguments":{}}`, true),
		callRow("id empty string", `""`, `{"name":"plain","arguments":{}}`, true),
		callRow("id zero", `0`, `{"name":"plain","arguments":{}}`, true),
		callRow("id negative", `-42`, `{"name":"plain","arguments":{}}`, true),
		callRow("id 15 digits", `999999999999999`, `{"name":"plain","arguments":{}}`, true),
		callRow("id 16 digits", `9999999999999999`, `{"name":"plain","arguments":{}}`, false),
		callRow("id huge", `123456789012345678901234567890`, `{"name":"plain","arguments":{}}`, false),
		callRow("id -0", `-0`, `{"name":"plain","arguments":{}}`, false),
		callRow("id fraction", `1.5`, `{"name":"plain","arguments":{}}`, false),
		callRow("id exponent", `1e3`, `{"name":"plain","arguments":{}}`, false),
		callRow("id null", `null`, `{"name":"plain","arguments":{}}`, false),
		callRow("id true", `true`, `{"name":"plain","arguments":{}}`, false),
		callRow("id object", `{}`, `{"name":"plain","arguments":{}}`, false),
		callRow("id HTML", `"<a&b>"`, `{"name":"plain","arguments":{}}`, false),
		callRow("id unicode", `"é☀"`, `{"name":"plain","arguments":{}}`, false),
		callRow("id escaped", `"a\nb"`, `{"name":"plain","arguments":{}}`, false),
		callRow("id long string", `"`+strings.Repeat("i", 5000)+`"`, `{"name":"plain","arguments":{}}`, true),

		// Messages that are not a lean shape.
		{name: "unknown method", body: `{"jsonrpc":"2.0","id":1,"method":"foo/bar"}`},
		{name: "unknown notification", body: `{"jsonrpc":"2.0","method":"notifications/foo"}`},
		{name: "logging/setLevel", body: `{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"info"}}`},
		{name: "logging/setLevel bogus", body: `{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"loud"}}`},
		{name: "subscriptions/listen", body: `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{}}`},
		{name: "resources/list", body: `{"jsonrpc":"2.0","id":1,"method":"resources/list"}`},
		{name: "jsonrpc 1.0", body: `{"jsonrpc":"1.0","id":1,"method":"ping"}`},
		{name: "jsonrpc number", body: `{"jsonrpc":2.0,"id":1,"method":"ping"}`},
		{name: "no jsonrpc", body: `{"id":1,"method":"ping"}`},
		{name: "no method", body: `{"jsonrpc":"2.0","id":1}`},
		{name: "method number", body: `{"jsonrpc":"2.0","id":1,"method":5}`},
		{name: "method escaped", body: `{"jsonrpc":"2.0","id":1,"method":"pin\u0067"}`},
		{name: "key escaped", body: `{"jsonrpc":"2.0","id":1,"\u006dethod":"ping"}`},
		{name: "method twice", body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"ping"}`},
		{name: "id twice", body: `{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`},
		{name: "extra key", body: `{"jsonrpc":"2.0","id":1,"method":"ping","foo":1}`},
		{name: "result key", body: `{"jsonrpc":"2.0","id":1,"method":"ping","result":{}}`},
		{name: "a response", body: `{"jsonrpc":"2.0","id":1,"result":{}}`},
		{name: "batch", body: `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`},
		{name: "batch no header", body: `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, header: []string{"Mcp-Protocol-Version", "-"}},
		{name: "not an object", body: `"ping"`},
		{name: "number", body: `5`},
		{name: "null", body: `null`},
		{name: "empty object", body: `{}`},
		{name: "empty body", body: ``},
		{name: "white space only", body: " \n"},
		{name: "trailing data", body: `{"jsonrpc":"2.0","id":1,"method":"ping"} x`},
		{name: "two messages", body: `{"jsonrpc":"2.0","id":1,"method":"ping"}{"jsonrpc":"2.0","id":2,"method":"ping"}`},
		{name: "truncated", body: `{"jsonrpc":"2.0","id":1,"method":"ping"`},
		{name: "trailing comma", body: `{"jsonrpc":"2.0","id":1,"method":"ping",}`},
		{name: "single quotes", body: `{'jsonrpc':'2.0','id':1,'method':'ping'}`},
		{name: "BOM", body: "\ufeff{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"},
		{name: "invalid UTF-8 in method", body: "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xffng\"}"},
		{name: "control character", body: "{\"jsonrpc\":\"2.0\",\"id\":\"a\x01\",\"method\":\"ping\"}"},
		{name: "meta protocol version", body: `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-06-18"}}}`},
		{name: "too deep", body: `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":` + strings.Repeat("[", 2000) + strings.Repeat("]", 2000) + `}}`},
	}
	return rows
}

// TestLeanParity runs every row on both doors and wants the same answer,
// and the lean path to answer exactly the rows marked lean.
func TestLeanParity(t *testing.T) {
	t.Parallel()
	p := newParityPair(t, func() framework.Server { return &Store{extra: parityRoutes} }, "store", nil)
	p.seedBoth(t, "T", `{}`)
	p.seedBoth(t, "R", `{"allowed_tools":["append","nope"]}`)
	p.seedBoth(t, "E", `{"allowed_tools":[]}`)
	other := p.tokens["T"]
	p.tokens["OTHER"] = [2]string{other[1], other[0]} // each door gets the other's token
	for _, row := range parityRows() {
		lean, sdk, took := p.both(t, row)
		if lean != sdk {
			t.Errorf("%s: the lean door answered\n%s\nthe go-sdk door\n%s", row.name, lean, sdk)
		}
		if took != row.lean {
			t.Errorf("%s: lean path taken = %v, want %v (answer %s)", row.name, took, row.lean, lean)
		}
	}
	// The rollouts' state is the same on both doors: the same calls ran.
	r := p.both
	for _, ph := range []string{"T", "R"} {
		lean, sdk, _ := r(t, callRow("state "+ph, "9", `{"name":"append","arguments":{"value":"end"}}`, true, tok, "{{"+ph+"}}"))
		if lean != sdk || !strings.Contains(lean.body, `end`) {
			t.Errorf("final state of %s: lean %s\nsdk %s", ph, lean, sdk)
		}
	}
}

// TestLeanParityServerInfo: initialize with a configured serverInfo and
// instructions that JSON encoders write differently (HTML, U+2028, non-ASCII).
func TestLeanParityServerInfo(t *testing.T) {
	t.Parallel()
	p := newParityPair(t, func() framework.Server { return &Store{} }, "store", func(o *mcpexpose.Options) {
		o.Config.MCP.ServerInfo = config.MCPServerInfo{Name: "wé<b>", Version: "1.0&", Title: "T\u2028\"x\"", Instructions: "<do> é \u2029 \x7f \\ tab\t"}
	})
	for _, v := range []string{"2025-06-18", "2024-11-05", "bogus"} {
		row := parityRow{name: "initialize " + v, body: fmt.Sprintf(initFmt, v), lean: true}
		lean, sdk, took := p.both(t, row)
		if lean != sdk || !took {
			t.Errorf("%s (lean path %v): lean\n%s\nsdk\n%s", row.name, took, lean, sdk)
		}
	}
}

// TestLeanParityPeerGoldens replays every /mcp request of NeMo's recorded
// rollouts of the weather and counter servers
// (../shared/data/nemo-gym-peer/example_mcp_weather.jsonl,
// example_session_state_mgmt_resources_server.jsonl) on both doors of the
// same server: the same answers, and the lean path takes the ordinary ones.
func TestLeanParityPeerGoldens(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file, instance string
		srv            func() framework.Server
	}{
		{"example_mcp_weather.jsonl", "example_mcp_weather", func() framework.Server { return new(examplemcpweather.Weather) }},
		{"example_session_state_mgmt_resources_server.jsonl", "example_session_state_mgmt_resources_server",
			func() framework.Server { return new(examplesessionstatemgmt.Counter) }},
	} {
		t.Run(tc.instance, func(t *testing.T) {
			t.Parallel()
			replayPeerParity(t, filepath.Join("..", "..", "shared", "data", "nemo-gym-peer", tc.file), tc.instance, tc.srv)
		})
	}
}

func replayPeerParity(t *testing.T, path, instance string, srv func() framework.Server) {
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("no peer goldens: %v", err)
	}
	defer f.Close()
	p := newParityPair(t, srv, instance, nil)
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	mcpSteps, leanSteps := 0, 0
	for sc.Scan() {
		var line struct {
			Scenario string `json:"scenario"`
			Steps    []struct {
				Name    string            `json:"name"`
				Method  string            `json:"method"`
				Path    string            `json:"path"`
				Headers map[string]string `json:"headers"`
				Body    string            `json:"body"`
			} `json:"steps"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		for _, st := range line.Steps {
			switch {
			case st.Path == "/seed_session":
				p.seedBoth(t, "TOKEN", st.Body)
			case st.Path == "/mcp" && st.Method == "POST":
				row := parityRow{name: line.Scenario + ": " + st.Name, body: st.Body,
					header: []string{"Content-Type", "-", "Accept", "-", "Mcp-Protocol-Version", "-"}}
				for k, v := range st.Headers {
					row.header = append(row.header, k, v)
				}
				lean, sdk, took := p.both(t, row)
				if lean != sdk {
					t.Errorf("%s: the lean door answered\n%s\nthe go-sdk door\n%s", row.name, lean, sdk)
				}
				mcpSteps++
				if took {
					leanSteps++
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if mcpSteps < 20 || leanSteps < mcpSteps/3 {
		t.Errorf("%d /mcp steps replayed, %d on the lean path: want the goldens' ordinary requests to take it", mcpSteps, leanSteps)
	}
	t.Logf("%d /mcp golden requests, %d answered by the lean path", mcpSteps, leanSteps)
}
