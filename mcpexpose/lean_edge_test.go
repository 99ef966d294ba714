package mcpexpose_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/framework"
)

// edgeRows are the inputs of the lean path's review: tool names
// and arguments of every unicode, escape, duplicate, case and size edge,
// ids and methods of the forms the SDK reads differently, params of wrong
// types, header variants (Accept, Content-Type, Mcp-Protocol-Version,
// Last-Event-ID, tokens forged, truncated or of a restricted rollout) and
// white space. Each must get the same answer from both doors; which path
// answers is free (falling back is always allowed).
func edgeRows() []parityRow {
	call := func(name, params string, header ...string) parityRow {
		return callRow(name, "3", params, false, header...)
	}
	msg := func(name, body string, header ...string) parityRow {
		return parityRow{name: name, body: body, header: append([]string{tok, "{{T}}"}, header...)}
	}
	return []parityRow{
		call("name U+2028", `{"name":"no`+"\u2028"+`pe","arguments":{}}`),
		call("name HTML", `{"name":"<no&pe>","arguments":{}}`),
		call("name empty", `{"name":"","arguments":{}}`),
		call("name long", `{"name":"`+strings.Repeat("x", 70000)+`","arguments":{}}`),
		call("name U+FFFD", `{"name":"`+"\ufffd"+`","arguments":{}}`),
		call("name BOM", `{"name":"`+"\ufeff"+`append","arguments":{"value":"x"}}`),
		call("name case", `{"name":"Append","arguments":{"value":"x"}}`),
		call("args dup keys", `{"name":"append","arguments":{"value":"a","value":"b"}}`),
		call("args dup keys 2", `{"name":"append","arguments":{"value":5,"value":"b"}}`),
		call("args case key", `{"name":"append","arguments":{"Value":"a"}}`),
		call("args case key both", `{"name":"append","arguments":{"value":"a","VALUE":"b"}}`),
		call("args U+2028", `{"name":"append","arguments":{"value":"`+"\u2028"+`"}}`),
		call("args escaped U+2028", `{"name":"append","arguments":{"value":"\u2028"}}`),
		call("args lone surrogate", `{"name":"append","arguments":{"value":"\ud800"}}`),
		call("args invalid utf8", "{\"name\":\"append\",\"arguments\":{\"value\":\"\xff\"}}"),
		call("args encoded surrogate", "{\"name\":\"append\",\"arguments\":{\"value\":\"\xed\xa0\x80\"}}"),
		call("args whitespace", "{ \"name\" :\t\"append\" ,\r\n\"arguments\" : { \"value\" : \"w\" } }"),
		call("args escaped key", `{"name":"append","arguments":{"\u0076alue":"e"}}`),
		call("args deep 600", `{"name":"raw_step","arguments":{"a":`+strings.Repeat("[", 600)+strings.Repeat("]", 600)+`}}`),
		call("args deep 511", `{"name":"raw_step","arguments":{"a":`+strings.Repeat("[", 509)+strings.Repeat("]", 509)+`}}`),
		call("args deep 520", `{"name":"raw_step","arguments":{"a":`+strings.Repeat("[", 520)+strings.Repeat("]", 520)+`}}`),
		call("args big", `{"name":"append","arguments":{"value":"`+strings.Repeat("y", 200000)+`"}}`),
		call("args big wrong", `{"name":"append","arguments":{"value":[`+strings.Repeat("1,", 50000)+`1]}}`),
		call("args -0", `{"name":"raw_step","arguments":{"a":-0,"b":-0.0,"c":1.0,"d":1e2,"e":1E+2}}`),
		call("args string", `{"name":"append","arguments":"x"}`),
		call("args empty", `{"name":"append","arguments":{}}`),
		call("args nested null", `{"name":"append","arguments":{"value":null}}`),
		call("not allowed tool R", `{"name":"raw_step","arguments":{}}`, tok, "{{R}}"),
		call("unknown tool R", `{"name":"zzz","arguments":{}}`, tok, "{{R}}"),
		call("expired-ish token", `{"name":"append","arguments":{"value":"x"}}`, tok, "{{T}}x"),
		call("token trailing space", `{"name":"append","arguments":{"value":"x"}}`, tok, "{{T}} "),
		call("token truncated", `{"name":"append","arguments":{"value":"x"}}`, tok, "{{T}}"[:3]),
		call("pv lowercase", `{"name":"append","arguments":{"value":"x"}}`, "Mcp-Protocol-Version", "2025-06-18 "),
		call("pv list", `{"name":"append","arguments":{"value":"x"}}`, "Mcp-Protocol-Version", "2025-06-18, 2025-03-26"),
		call("pv empty", `{"name":"append","arguments":{"value":"x"}}`, "Mcp-Protocol-Version", ""),
		call("pv 2026", `{"name":"append","arguments":{"value":"x"}}`, "Mcp-Protocol-Version", "2026-07-28"),
		call("accept upper", `{"name":"append","arguments":{"value":"x"}}`, "Accept", "APPLICATION/JSON"),
		call("accept q0", `{"name":"append","arguments":{"value":"x"}}`, "Accept", "application/json;q=0"),
		call("accept sse only", `{"name":"append","arguments":{"value":"x"}}`, "Accept", "text/event-stream"),
		call("accept json sse q", `{"name":"append","arguments":{"value":"x"}}`, "Accept", "application/json;q=0.9, text/event-stream;q=0.1"),
		call("accept application/*", `{"name":"append","arguments":{"value":"x"}}`, "Accept", "application/*"),
		call("accept empty", `{"name":"append","arguments":{"value":"x"}}`, "Accept", ""),
		call("ct upper", `{"name":"append","arguments":{"value":"x"}}`, "Content-Type", "APPLICATION/JSON"),
		call("ct charset latin1", `{"name":"append","arguments":{"value":"x"}}`, "Content-Type", "application/json; charset=latin-1"),
		call("ct bad param", `{"name":"append","arguments":{"value":"x"}}`, "Content-Type", "application/json; ;"),
		call("ct spaces", `{"name":"append","arguments":{"value":"x"}}`, "Content-Type", "application/json "),
		call("Last-Event-ID empty", `{"name":"append","arguments":{"value":"x"}}`, "Last-Event-ID", ""),
		call("progress token null", `{"name":"append","arguments":{"value":"x"},"_meta":{"progressToken":null}}`),
		msg("id 1.0", `{"jsonrpc":"2.0","id":1.0,"method":"ping"}`),
		msg("id 1e2", `{"jsonrpc":"2.0","id":1e2,"method":"ping"}`),
		msg("id -0.0", `{"jsonrpc":"2.0","id":-0.0,"method":"ping"}`),
		msg("id 2^53", `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`),
		msg("id neg huge", `{"jsonrpc":"2.0","id":-123456789012345678901234567890,"method":"ping"}`),
		msg("id escaped slash", `{"jsonrpc":"2.0","id":"a\/b","method":"ping"}`),
		msg("id U+2028", `{"jsonrpc":"2.0","id":"`+"\u2028"+`","method":"ping"}`),
		msg("id null ping", `{"jsonrpc":"2.0","id":null,"method":"ping"}`),
		msg("id quote", `{"jsonrpc":"2.0","id":"'x'","method":"ping"}`),
		msg("id tilde", `{"jsonrpc":"2.0","id":"~ `+"\x7f"+`","method":"ping"}`),
		msg("method Ping", `{"jsonrpc":"2.0","id":1,"method":"Ping"}`),
		msg("method TOOLS/LIST", `{"jsonrpc":"2.0","id":1,"method":"TOOLS/LIST"}`),
		msg("method tools/call space", `{"jsonrpc":"2.0","id":1,"method":"tools/call ","params":{"name":"append"}}`),
		msg("key case Method", `{"jsonrpc":"2.0","id":1,"Method":"ping"}`),
		msg("key case both", `{"jsonrpc":"2.0","id":1,"method":"ping","Method":"tools/list"}`),
		msg("key case ID", `{"jsonrpc":"2.0","ID":1.5,"method":"ping"}`),
		msg("key case Params", `{"jsonrpc":"2.0","id":1,"method":"tools/list","Params":{"cursor":5}}`),
		msg("jsonrpc twice", `{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"ping"}`),
		msg("jsonrpc escaped", `{"jsonrpc":"2\u002e0","id":1,"method":"ping"}`),
		msg("params twice", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{},"params":{}}`),
		msg("ping params array", `{"jsonrpc":"2.0","id":1,"method":"ping","params":[]}`),
		msg("ping params string", `{"jsonrpc":"2.0","id":1,"method":"ping","params":"x"}`),
		msg("ping params extra", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":1}}`),
		msg("list params ws", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{ }}`),
		msg("list params null", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":null}`),
		msg("list cursor null", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":null}}`),
		msg("list R", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, tok, "{{R}}"),
		msg("list forged", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, tok, "{{T}}x"),
		msg("init caps null", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":null}}`),
		msg("init clientInfo null", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","clientInfo":null}}`),
		msg("init clientInfo empty", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","clientInfo":{}}}`),
		msg("init roots null", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":null}}}`),
		msg("init listChanged null", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":null}}}}`),
		msg("init caps twice", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{}},"capabilities":{}}}`),
		msg("init extensions", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"extensions":{}}}}`),
		msg("init sampling tools", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"sampling":{"tools":{}}}}}`),
		msg("init elicitation null form", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{"form":null}}}}`),
		msg("init version U+2028", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+"\u2028"+`"}}`),
		msg("init version header mismatch", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`, "Mcp-Protocol-Version", "2024-11-05"),
		msg("init clientInfo unicode", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","clientInfo":{"name":"é<>","version":"`+"\u2028"+`"}}}`),
		msg("init websiteUrl bad", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","clientInfo":{"name":"a","version":"1","websiteUrl":"not a url"}}}`),
		msg("initialized params extra", `{"jsonrpc":"2.0","method":"notifications/initialized","params":{"x":1}}`),
		msg("initialized bad pv", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, "Mcp-Protocol-Version", "1999-01-01"),
		msg("ping bad pv", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, "Mcp-Protocol-Version", "1999-01-01"),
		msg("BOM after ws", " \ufeff{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"),
		msg("form feed", "{\"jsonrpc\":\"2.0\",\f\"id\":1,\"method\":\"ping\"}"),
		msg("trailing NUL", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\x00"),
		msg("trailing ws", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n\t "),
		msg("leading ws", "\r\n\t {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"),
		msg("NaN in params", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":NaN}}`),
		msg("utf16", "\xff\xfe{\x00}\x00"),
	}
}

// TestLeanParityEdges sends edgeRows to a lean door and to the same door
// with SDKOnly and wants the same status, headers and body.
func TestLeanParityEdges(t *testing.T) {
	t.Parallel()
	p := newParityPair(t, func() framework.Server { return &Store{extra: parityRoutes} }, "store", nil)
	p.seedBoth(t, "T", `{}`)
	p.seedBoth(t, "R", `{"allowed_tools":["append","nope"]}`)
	for _, row := range edgeRows() {
		if lean, sdk, took := p.both(t, row); lean != sdk {
			t.Errorf("%s (lean path %v): the lean door answered\n%.600s\nthe go-sdk door\n%.600s", row.name, took, lean, sdk)
		}
	}
}

// TestLeanParityRepeatedHeaders: a header sent twice (two tokens of
// different rollouts, two protocol versions, two Content-Types or Accepts,
// empty Last-Event-IDs) gets the same answer from both doors.
func TestLeanParityRepeatedHeaders(t *testing.T) {
	t.Parallel()
	p := newParityPair(t, func() framework.Server { return &Store{extra: parityRoutes} }, "store", nil)
	p.seedBoth(t, "T", `{}`)
	p.seedBoth(t, "R", `{"allowed_tools":["append"]}`)
	callMsg := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"raw_step","arguments":{}}}`
	ping := `{"jsonrpc":"2.0","id":3,"method":"ping"}`
	list := `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`
	for _, tc := range []struct {
		name, body string
		add        []string
	}{
		{"two tokens T R", callMsg, []string{tok, "{{T}}", tok, "{{R}}"}},
		{"two tokens R T", callMsg, []string{tok, "{{R}}", tok, "{{T}}"}},
		{"two tokens list", list, []string{tok, "{{R}}", tok, "{{T}}"}},
		{"two pv good bad", ping, []string{"Mcp-Protocol-Version", "2025-06-18", "Mcp-Protocol-Version", "1999"}},
		{"two pv bad good", ping, []string{"Mcp-Protocol-Version", "1999", "Mcp-Protocol-Version", "2025-06-18"}},
		{"two pv call", callMsg, []string{tok, "{{T}}", "Mcp-Protocol-Version", "2025-06-18", "Mcp-Protocol-Version", "2024-11-05"}},
		{"two ct", ping, []string{"Content-Type", "application/json", "Content-Type", "text/plain"}},
		{"two ct 2", ping, []string{"Content-Type", "application/json; charset=utf-8", "Content-Type", "text/plain"}},
		{"two accept", ping, []string{"Accept", "text/html", "Accept", "application/json"}},
		{"two accept sse", ping, []string{"Accept", "text/event-stream", "Accept", "application/json"}},
		{"two Last-Event-ID", ping, []string{"Last-Event-ID", "", "Last-Event-ID", ""}},
		{"Mcp-Session-Id twice", ping, []string{"Mcp-Session-Id", "a", "Mcp-Session-Id", "b"}},
	} {
		var got [2]answer
		for door, h := range []http.Handler{p.leanH, p.sdkH} {
			req := p.request(parityRow{body: tc.body}, door, "http://127.0.0.1")
			req.Host = "127.0.0.1"
			for i := 0; i+1 < len(tc.add); i += 2 {
				if i == 0 || tc.add[i] != tc.add[i-2] {
					req.Header.Del(tc.add[i])
				}
			}
			for i := 0; i+1 < len(tc.add); i += 2 {
				v := tc.add[i+1]
				for ph, toks := range p.tokens {
					v = strings.ReplaceAll(v, "{{"+ph+"}}", toks[door])
				}
				req.Header.Add(tc.add[i], v)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			got[door] = reduce(rec.Code, rec.Header(), rec.Body.Bytes())
		}
		if got[0] != got[1] {
			t.Errorf("%s: the lean door answered\n%.500s\nthe go-sdk door\n%.500s", tc.name, got[0], got[1])
		}
	}
}
