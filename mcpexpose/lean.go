package mcpexpose

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"slices"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gymkit/gymkit/framework"
)

// The lean path answers the common stateless request itself,
// without the go-sdk: one POST holding one JSON-RPC message of a shape it
// knows (tools/call, tools/list, initialize and ping with an id, and the
// notification notifications/initialized), read once from the body that
// ServeHTTP already read and checked. Its answers are the SDK path's, byte
// for byte (status, headers, body; TestLeanParity and FuzzLeanParity run
// both paths on the same requests), and it goes through the same code for
// everything that is gymkit's: the token check, the allow-lists, the
// rollout session, framework.Tool.Call (so the framework's interceptors,
// timeouts and error masking) and the encoding of results.
//
// Anything else falls back to the SDK, which stays the reference: a
// stateful door, a message with _meta (a progress token, SEP-2575's
// protocol version), params or keys the lean reader does not know, ids
// other than short integers and plain strings, any escape in a key or a
// method, a string the SDK's decoder might read differently (invalid
// UTF-8, an escaped surrogate), headers the SDK checks (Last-Event-ID),
// batches, and every message preflight rewrites. "Falls back" costs only
// the scan of the lean reader: the SDK then serves the request as before.

// leanMsg is one JSON-RPC message as the lean reader read it.
type leanMsg struct {
	id     []byte // the raw id (a short integer or a plain string); nil: none
	method string
	params []byte // the raw params object; nil: none
}

// Methods the lean path answers.
const (
	methodPing        = "ping"
	methodToolsList   = "tools/list"
	methodInitialized = "notifications/initialized"
)

// leanMaxDepth bounds the nesting the lean reader follows (the SDK's
// decoder refuses more than 1000 levels; deeper bodies fall back).
const leanMaxDepth = 512

// serveLean answers r from body when the lean path knows the message, and
// reports whether it did. It writes nothing when it returns false.
func (d *Door) serveLean(w http.ResponseWriter, r *http.Request, body []byte, streamOK bool) bool {
	if len(r.Header.Values("Last-Event-ID")) > 0 {
		return false // the SDK refuses it on a POST
	}
	m, ok := readLean(body)
	if !ok {
		return false
	}
	switch m.method {
	case methodToolsCall:
		return d.leanCall(w, r, m, streamOK)
	case methodToolsList:
		if m.id == nil || !emptyParams(m.params) {
			return false
		}
		writeLeanResult(w, m.id, d.listRaw(r.Header.Get(TokenHeader)))
		return true
	case methodPing:
		if m.id == nil || !emptyParams(m.params) {
			return false
		}
		writeLeanResult(w, m.id, []byte("{}"))
		return true
	case methodInitialize:
		if m.id == nil {
			return false
		}
		version, ok := initializeParamsOK(m.params)
		if !ok {
			return false
		}
		writeLeanResult(w, m.id, d.initResult(version))
		return true
	case methodInitialized:
		if m.id != nil || !emptyParams(m.params) {
			return false
		}
		writeAccepted(w) // the SDK's 202, with the Content-Type the rewriter adds
		return true
	}
	return false
}

// leanCall answers a tools/call: params {"name": <string>, "arguments":
// <object, null or absent>}, nothing else.
func (d *Door) leanCall(w http.ResponseWriter, r *http.Request, m leanMsg, streamOK bool) bool {
	if m.id == nil || m.params == nil {
		return false
	}
	var name, args []byte
	hasName, hasArgs, argsOK := false, false, true
	ok := eachMember(m.params, func(key, val []byte) bool {
		switch string(key) {
		case "name":
			if hasName || val[0] != '"' || bytes.IndexByte(val, '\\') >= 0 {
				return false // repeated, not a string (preflight's), or escaped: the SDK's
			}
			name, hasName = val[1:len(val)-1], true
		case "arguments":
			if hasArgs {
				return false
			}
			hasArgs = true
			switch val[0] {
			case '{':
				args = val
			case 'n':
			default:
				argsOK = false // Python's CallToolRequestParams refuses it (see argumentsOK)
			}
		default:
			return false // _meta (a progress token, ...) and anything else
		}
		return true
	})
	if !ok || !hasName {
		return false
	}
	if !argsOK {
		writeLeanInvalidParams(w, m.id)
		return true
	}
	tool := string(name)
	writeLeanCall(w, m.id, d.leanRun(r, tool, args, streamOK))
	return true
}

// leanRun runs the tool call as the door's method middleware does, a panic
// included.
func (d *Door) leanRun(r *http.Request, name string, args json.RawMessage, streamOK bool) (res *callResult) {
	ctx := r.Context()
	defer func() {
		if p := recover(); p != nil {
			d.logAttrs(ctx, "MCP request panicked", slog.LevelError, "method", methodToolsCall, "panic", p, "stack", string(debug.Stack()))
			res = errorResult(framework.StatusOf(fmt.Errorf("panic: %v", p)).MCPText(name))
		}
	}()
	return d.callTool(callSite{http: ctx, streamOK: streamOK}, nil, name, r.Header.Get(TokenHeader), args)
}

// emptyParams reports whether p is absent or an empty object.
func emptyParams(p []byte) bool {
	return p == nil || eachMember(p, func(_, _ []byte) bool { return false })
}

// initializeParamsOK reads initialize params the lean path answers:
// {"protocolVersion": <plain string>, "capabilities": {...},
// "clientInfo": {...}}, capabilities and clientInfo of known shapes (see
// capabilitiesOK, clientInfoOK) or absent. It returns the client's
// version.
func initializeParamsOK(p []byte) (version string, ok bool) {
	if p == nil {
		return "", false
	}
	hasVersion := false
	ok = eachMember(p, func(key, val []byte) bool {
		switch string(key) {
		case "protocolVersion":
			if hasVersion || val[0] != '"' || bytes.IndexByte(val, '\\') >= 0 {
				return false // repeated, not a string, or escaped: the SDK's
			}
			version, hasVersion = string(val[1:len(val)-1]), true
			return true
		case "capabilities":
			return capabilitiesOK(val)
		case "clientInfo":
			return clientInfoOK(val)
		}
		return false
	})
	return version, ok && hasVersion
}

// capabilitiesOK reports whether v is a ClientCapabilities object the lean
// path knows: roots ({} or {"listChanged": <bool>}), sampling and
// elicitation ({}, or elicitation's {"form": {}, "url": {}}), experimental
// and extensions ({}).
func capabilitiesOK(v []byte) bool {
	if v[0] != '{' {
		return false
	}
	return eachMember(v, func(key, val []byte) bool {
		switch string(key) {
		case "roots":
			return val[0] == '{' && eachMember(val, func(k, b []byte) bool {
				return string(k) == "listChanged" && (b[0] == 't' || b[0] == 'f')
			})
		case "elicitation":
			return val[0] == '{' && eachMember(val, func(k, b []byte) bool {
				return (string(k) == "form" || string(k) == "url") && emptyParams(b)
			})
		case "sampling", "experimental", "extensions":
			return emptyParams(val)
		}
		return false
	})
}

// clientInfoOK reports whether v is an Implementation object of strings
// only: name, title, description, version, websiteUrl.
func clientInfoOK(v []byte) bool {
	if v[0] != '{' {
		return false
	}
	return eachMember(v, func(key, val []byte) bool {
		switch string(key) {
		case "name", "title", "description", "version", "websiteUrl":
			return val[0] == '"'
		}
		return false
	})
}

// initResult returns the initialize result for a client that asked for
// version: that version when the door speaks it, else the newest it
// speaks (the SDK's negotiation).
func (d *Door) initResult(version string) []byte {
	if b, ok := d.initResults[version]; ok {
		return b
	}
	return d.initResults[""]
}

// renderInitResults pre-renders the initialize results, one per protocol
// version the door speaks and the newest under "" (see initResult), with
// the capabilities and serverInfo the SDK server was given.
func (d *Door) renderInitResults(caps *mcp.ServerCapabilities) error {
	d.initResults = make(map[string][]byte, len(protocolVersions)+1)
	for _, v := range protocolVersions {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false) // as the SDK writes its messages
		err := enc.Encode(&mcp.InitializeResult{Capabilities: caps, Instructions: d.info.Instructions,
			ProtocolVersion: v, ServerInfo: d.implementation()})
		if err != nil {
			return fmt.Errorf("rendering the initialize result: %w", err)
		}
		d.initResults[v] = bytes.TrimRight(buf.Bytes(), "\n")
	}
	d.initResults[""] = d.initResults[slices.Max(protocolVersions)]
	return nil
}

// writeLeanResult writes the SDK's answer to a call: 200, its headers, and
// {"jsonrpc":"2.0","id":<id>,"result":<result>}.
func writeLeanResult(w http.ResponseWriter, id, result []byte) {
	if len(result) < leanCopyMax {
		b := make([]byte, 0, len(id)+len(result)+32)
		b = append(b, `{"jsonrpc":"2.0","id":`...)
		b = append(b, id...)
		b = append(b, `,"result":`...)
		b = append(b, result...)
		writeLeanBody(w, append(b, '}'))
		return
	}
	// A large result (a 422 that echoes a big input) is written as it is,
	// between its envelope's two ends, not copied into one more buffer of its
	// size (the per-request memory bound of docs/security.md, "Exhaust
	// memory"). net/http sends either form chunked: the answer's bytes and
	// headers are the same.
	head := make([]byte, 0, len(id)+32)
	head = append(head, `{"jsonrpc":"2.0","id":`...)
	head = append(head, id...)
	head = append(head, `,"result":`...)
	writeLeanBody(w, head)
	_, _ = w.Write(result)
	_, _ = w.Write([]byte{'}'})
}

// leanCopyMax is the result size from which writeLeanResult writes the
// result without copying it: far above net/http's 2048-byte buffer before
// chunking, so that either way the answer goes chunked.
const leanCopyMax = 64 << 10

// writeLeanCall writes the answer to a call as writeLeanResult does. An
// isError text of leanCopyMax bytes or more (a 422 echoing a large input)
// is written in pieces of leanChunk bytes, each escaped as appendString
// escapes the whole text (escapes are per rune and pieces end before a
// rune's first byte, so the bytes are the same), instead of being rendered
// into one more buffer of its size (the per-request memory bound of
// docs/security.md, "Exhaust memory").
func writeLeanCall(w http.ResponseWriter, id []byte, res *callResult) {
	text := res.errText
	if res.raw != nil || len(text) < leanCopyMax {
		raw, _ := res.MarshalJSON() // pre-rendered, or a small isError text
		writeLeanResult(w, id, raw)
		return
	}
	head := make([]byte, 0, len(id)+64)
	head = append(head, `{"jsonrpc":"2.0","id":`...)
	head = append(head, id...)
	head = append(head, `,"result":`...)
	head = append(head, errorHead...)
	writeLeanBody(w, append(head, '"'))
	buf := make([]byte, 0, leanChunk+leanChunk/4+8)
	for len(text) > 0 {
		n := min(len(text), leanChunk)
		for n < len(text) && n > 0 && !utf8.RuneStart(text[n]) {
			n-- // end the piece before a rune's first byte
		}
		if n == 0 {
			n = min(len(text), leanChunk) // no rune start within the piece (invalid UTF-8): any cut is one
		}
		q := appendString(buf[:0], text[:n])
		_, _ = w.Write(q[1 : len(q)-1]) // without the quotes
		text = text[n:]
	}
	_, _ = w.Write([]byte(`"` + errorTail + `}`))
}

// leanChunk is the size of the pieces writeLeanCall escapes a large
// isError text in.
const leanChunk = 32 << 10

// writeLeanInvalidParams writes the SDK's answer to a call that failed with
// errInvalidParams (200, as for protocols before 2026-07-28).
func writeLeanInvalidParams(w http.ResponseWriter, id []byte) {
	b := make([]byte, 0, len(id)+96)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	writeLeanBody(w, append(b, `,"error":{"code":-32602,"message":"Invalid request parameters","data":""}}`...))
}

func writeLeanBody(w http.ResponseWriter, b []byte) {
	h := w.Header()
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

// readLean reads body as one JSON-RPC message of the shape the lean path
// answers: an object with "jsonrpc": "2.0", "method" (a plain string), and
// optionally "id" (a short integer or a plain string) and "params" (an
// object), each once, nothing else, every value well-formed JSON as the
// SDK's decoder reads it (see skipValue), then only white space.
func readLean(body []byte) (m leanMsg, ok bool) {
	var seen [4]bool
	version := false
	end, ok := members(body, skipSpace(body, 0), func(key, val []byte) bool {
		var k int
		switch string(key) {
		case "jsonrpc":
			k, version = 0, string(val) == `"2.0"`
			if !version {
				return false
			}
		case "id":
			k = 1
			if !leanID(val) {
				return false
			}
			m.id = val
		case "method":
			k = 2
			if val[0] != '"' || bytes.IndexByte(val, '\\') >= 0 {
				return false
			}
			m.method = string(val[1 : len(val)-1])
		case "params":
			k = 3
			if val[0] != '{' {
				return false // null and the rest: preflight's and the SDK's
			}
			m.params = val
		default:
			return false
		}
		if seen[k] {
			return false // a repeated key: the SDK keeps the last, Python too; not ours
		}
		seen[k] = true
		return true
	})
	return m, ok && skipSpace(body, end) == len(body) && version && seen[2]
}

// leanID reports whether the raw id v is one the SDK echoes byte for byte:
// an integer of at most 15 digits without leading zeros (not -0), or a
// string of printable ASCII without escapes and without the characters an
// HTML-escaping encoder would change (<, >, &).
func leanID(v []byte) bool {
	switch c := v[0]; {
	case c == '"':
		for _, c := range v[1 : len(v)-1] {
			if c < 0x20 || c > 0x7e || c == '\\' || c == '<' || c == '>' || c == '&' {
				return false
			}
		}
		return true
	case c == '-' || '0' <= c && c <= '9':
		digits := v
		if c == '-' {
			digits = v[1:]
		}
		if len(digits) == 0 || len(digits) > maxSafeIDDigits {
			return false
		}
		for _, d := range digits {
			if d < '0' || d > '9' {
				return false
			}
		}
		return digits[0] != '0' || len(digits) == 1 && c != '-'
	}
	return false
}

// eachMember calls f with the raw key (without quotes) and the raw value
// of each member of the JSON object obj, and reports whether obj is one
// object (checked as skipValue checks values) whose keys have no escapes
// and f returned true for each member. An empty object calls f never.
func eachMember(obj []byte, f func(key, val []byte) bool) bool {
	end, ok := members(obj, 0, f)
	return ok && end == len(obj)
}

// members walks the JSON object at b[i] as eachMember does, in one pass,
// and returns its end (after the closing brace).
func members(b []byte, i int, f func(key, val []byte) bool) (end int, ok bool) {
	if i >= len(b) || b[i] != '{' {
		return i, false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	for i < len(b) {
		if b[i] != '"' {
			return i, false
		}
		ke, ok := skipString(b, i)
		if !ok {
			return i, false
		}
		key := b[i+1 : ke-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			return i, false
		}
		i = skipSpace(b, ke)
		if i >= len(b) || b[i] != ':' {
			return i, false
		}
		i = skipSpace(b, i+1)
		ve, ok := skipValue(b, i, 1)
		if !ok || !f(key, b[i:ve]) {
			return i, false
		}
		i = skipSpace(b, ve)
		if i >= len(b) {
			return i, false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return i + 1, true
		default:
			return i, false
		}
	}
	return i, false
}

// skipValue returns the end of the JSON value at b[i], checking it
// strictly: RFC 8259 syntax, strings of valid UTF-8 without control
// characters and without escaped surrogates, at most leanMaxDepth levels.
// ok is false for anything else (the lean path then falls back).
func skipValue(b []byte, i, depth int) (end int, ok bool) {
	if i >= len(b) || depth > leanMaxDepth {
		return i, false
	}
	switch c := b[i]; {
	case c == '"':
		return skipString(b, i)
	case c == '{' || c == '[':
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == closer {
			return i + 1, true
		}
		for {
			if c == '{' {
				if i >= len(b) || b[i] != '"' {
					return i, false
				}
				if i, ok = skipString(b, i); !ok {
					return i, false
				}
				i = skipSpace(b, i)
				if i >= len(b) || b[i] != ':' {
					return i, false
				}
				i = skipSpace(b, i+1)
			}
			if i, ok = skipValue(b, i, depth+1); !ok {
				return i, false
			}
			i = skipSpace(b, i)
			if i >= len(b) {
				return i, false
			}
			switch b[i] {
			case ',':
				i = skipSpace(b, i+1)
			case closer:
				return i + 1, true
			default:
				return i, false
			}
		}
	case c == 't':
		return skipLiteral(b, i, "true")
	case c == 'f':
		return skipLiteral(b, i, "false")
	case c == 'n':
		return skipLiteral(b, i, "null")
	case c == '-' || '0' <= c && c <= '9':
		return skipNumber(b, i)
	}
	return i, false
}

func skipLiteral(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return i, false
	}
	return i + len(lit), true
}

// skipNumber checks a JSON number (-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?).
func skipNumber(b []byte, i int) (int, bool) {
	if b[i] == '-' {
		i++
	}
	digits := func() bool {
		start := i
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		return i > start
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case !digits():
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return i, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return i, false
		}
	}
	return i, true
}

// skipString returns the end (after the closing quote) of the JSON string
// at b[i].
func skipString(b []byte, i int) (int, bool) {
	i++
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			return i + 1, true
		case c == '\\':
			if i+1 >= len(b) {
				return i, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if len(b)-i < 6 {
					return i, false
				}
				var r rune
				for _, h := range b[i+2 : i+6] {
					r <<= 4
					switch {
					case '0' <= h && h <= '9':
						r |= rune(h - '0')
					case 'a' <= h && h <= 'f':
						r |= rune(h - 'a' + 10)
					case 'A' <= h && h <= 'F':
						r |= rune(h - 'A' + 10)
					default:
						return i, false
					}
				}
				if 0xD800 <= r && r <= 0xDFFF {
					return i, false // surrogates: decoders differ on lone ones
				}
				i += 6
			default:
				return i, false
			}
		case c < 0x20:
			return i, false
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size <= 1 {
				return i, false
			}
			i += size
		}
	}
	return i, false
}

// errLeanLog is what framework.LogToClient returns on the lean path for a
// message at or above the stateless level (info): the error the SDK path
// returns for it, since a stateless JSON answer has no stream to carry the
// message (the message is dropped on both paths).
var errLeanLog = errors.New("rejected by transport: undelivered message: stream not connected or already closed")

// leanLog is client.Log on the lean path, for a valid MCP level: a
// stateless call's log level is the SDK's default, info, so a debug
// message is not sent (nil), and any other cannot be (errLeanLog).
func leanLog(level framework.ClientLogLevel) error {
	if level == framework.ClientLogDebug {
		return nil
	}
	return errLeanLog
}
