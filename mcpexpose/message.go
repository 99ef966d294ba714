package mcpexpose

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The door reads a request body before the go-sdk does only where the SDK
// would answer differently from NeMo's Python SDK (MCP 1.29, pydantic
// RequestId = strict int | str, JSONRPCNotification with extra fields
// allowed). A few byte searches decide whether a body needs a closer look;
// an ordinary call ({"jsonrpc":"2.0","id":3,"method":"tools/call",...})
// needs none, so the hot path costs no JSON decode:
//
//   - a batch (a JSON array) is refused, as Python refuses it;
//   - an unsupported Mcp-Protocol-Version header is checked after the body
//     is parsed and validated, and not on initialize (Python's order);
//   - an id that is neither a string nor an integer makes the message a
//     notification, as in Python: 202, nothing runs;
//   - an integer id longer than 15 digits, which the SDK would decode
//     through float64, is echoed exactly (the SDK's answer gets the raw
//     token back);
//   - subscriptions/listen, which the SDK answers with an SSE stream,
//     gets Python's answer to a method it does not know;
//   - a tools/call whose params have no string "name" (missing, null, a
//     number) gets Python's -32602 "Invalid request parameters" (the SDK
//     would read a missing or null name as "", an unknown tool);
//   - "params": null is dropped, so that it reads as missing params, and
//     params that are neither an object nor null make the message invalid
//     JSON-RPC (400, -32602), as pydantic reads them;
//   - _meta["io.modelcontextprotocol/protocolVersion"] (a 2026-07-28 key
//     that makes the SDK check the header against it) is removed: Python
//     ignores _meta.
//
// After the SDK, a message it refuses at dispatch (an unknown method, a
// request method without id, a notification with an id, missing params)
// gets Python's answer too: 202 for a notification, else a JSON-RPC error
// -32602 "Invalid request parameters" with the request's id (see
// [rewriter.finish]); so does a request whose params the SDK cannot decode
// (see invalidParamsAnswer), and a tools/call whose arguments are not an
// object (see argumentsOK).

// Byte patterns of the quick checks.
var (
	keyID       = []byte(`"id"`)
	keyParams   = []byte(`"params"`)
	keyName     = []byte(`"name"`)
	toolsCall   = []byte(`"` + methodToolsCall + `"`)
	metaVersion = []byte(metaKeyProtocolVersion)
	listen      = []byte(methodListen)
)

const (
	// metaKeyProtocolVersion is the go-sdk's SEP-2575 _meta key.
	metaKeyProtocolVersion = "io.modelcontextprotocol/protocolVersion"
	methodListen           = "subscriptions/listen"
	methodInitialize       = "initialize"
	methodToolsCall        = "tools/call"
	// maxSafeIDDigits is the longest integer id the SDK keeps exactly (it
	// decodes ids as float64, exact up to 2^53).
	maxSafeIDDigits = 15
)

// preflight is the door's look at a request body before the SDK. It either
// answers the request itself (done), or returns the body the SDK reads,
// the raw id to put back into the SDK's answer (nil: the SDK's is exact),
// and whether the SDK must not see the Mcp-Protocol-Version header.
func preflight(w http.ResponseWriter, body []byte, version string) (sdkBody, echoID []byte, dropVersion, done bool) {
	badVersion := version != "" && !slices.Contains(protocolVersions, version)
	first := skipSpace(body, 0)
	batch := first < len(body) && body[first] == '['
	if !badVersion && !batch &&
		!valueAfter(body, keyID, riskyID) &&
		!valueAfter(body, keyParams, notObject) &&
		!bytes.Contains(body, metaVersion) &&
		!bytes.Contains(body, listen) &&
		!(bytes.Contains(body, toolsCall) && (!bytes.Contains(body, keyName) || valueAfter(body, keyName, notString))) {
		return body, nil, false, false // the hot path
	}
	if !json.Valid(body) {
		// The SDK answers the parse error (-32700), before any version check.
		return body, nil, badVersion, false
	}
	if batch {
		writeRPCError(w, http.StatusBadRequest, jsonrpc.CodeInvalidParams, "Validation error: JSON-RPC batches are not supported")
		return nil, nil, false, true
	}
	var m map[string]json.RawMessage
	_ = json.Unmarshal(body, &m) // nil unless an object
	var method string
	isRequest := m != nil && string(m["jsonrpc"]) == `"2.0"` && json.Unmarshal(m["method"], &method) == nil
	id, hasID := m["id"]
	kind := idKind(id)
	params, hasParams := m["params"]
	if isRequest && hasParams && params[0] != '{' && string(params) != "null" {
		// Neither a request nor a notification for pydantic.
		writeRPCError(w, http.StatusBadRequest, jsonrpc.CodeInvalidParams, "Validation error: params must be an object or null")
		return nil, nil, false, true
	}
	if badVersion {
		if !isRequest {
			if _, err := jsonrpc.DecodeMessage(body); err != nil {
				return body, nil, true, false // the SDK answers the validation error (-32602)
			}
		}
		if !isRequest || method != methodInitialize || (kind != idString && kind != idInt && kind != idLongInt) {
			writeRPCError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "Bad Request: Unsupported protocol version: "+version+
				". Supported versions: "+strings.Join(protocolVersions, ", "))
			return nil, nil, false, true
		}
		dropVersion = true // Python does not check the header on initialize
	}
	if !isRequest {
		return body, nil, dropVersion, false // the SDK answers
	}
	switch kind {
	case idOther:
		// Not a RequestId: pydantic validates the message as a notification
		// (an extra "id" field), which the server then drops.
		writeAccepted(w)
		return nil, nil, false, true
	case idLongInt:
		echoID = id
	case idNull:
		hasID = false
	}
	if method == methodListen {
		if hasID {
			writeInvalidParams(w, id)
		} else {
			writeAccepted(w)
		}
		return nil, nil, false, true
	}
	if method == methodToolsCall && hasID && hasParams && params[0] == '{' && !nameIsString(params) {
		// CallToolRequestParams.name is a required str for pydantic; the
		// SDK would read a missing or null name as "" (an unknown tool).
		writeInvalidParams(w, id)
		return nil, nil, false, true
	}
	changed := false
	if hasParams && string(params) == "null" {
		delete(m, "params") // missing: the SDK then answers as for no params
		changed = true
	} else if hasParams && bytes.Contains(params, metaVersion) {
		if q, ok := dropMetaVersion(params); ok {
			m["params"] = q
			changed = true
		}
	}
	if !changed {
		return body, echoID, dropVersion, false
	}
	b, err := marshalRaw(m)
	if err != nil {
		return body, echoID, dropVersion, false
	}
	return b, echoID, dropVersion, false
}

// dropMetaVersion removes _meta[metaKeyProtocolVersion] from the params
// object p.
func dropMetaVersion(p json.RawMessage) (json.RawMessage, bool) {
	var params map[string]json.RawMessage
	if json.Unmarshal(p, &params) != nil {
		return nil, false
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(params["_meta"], &meta) != nil {
		return nil, false
	}
	if _, ok := meta[metaKeyProtocolVersion]; !ok {
		return nil, false
	}
	delete(meta, metaKeyProtocolVersion)
	b, err := marshalRaw(meta)
	if err != nil {
		return nil, false
	}
	params["_meta"] = b
	if b, err = marshalRaw(params); err != nil {
		return nil, false
	}
	return b, true
}

// marshalRaw encodes m without HTML escaping.
func marshalRaw(m map[string]json.RawMessage) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// The kinds of a raw JSON-RPC id.
const (
	idAbsent  = iota
	idNull    // null: no id
	idString  // a string
	idInt     // an integer the SDK keeps exactly
	idLongInt // an integer the SDK would round
	idOther   // a fraction, an exponent, a boolean, an object, an array
)

func idKind(raw []byte) int {
	switch {
	case len(raw) == 0:
		return idAbsent
	case raw[0] == 'n':
		return idNull
	case raw[0] == '"':
		return idString
	case raw[0] == '-' || '0' <= raw[0] && raw[0] <= '9':
		digits, integer := numberShape(raw)
		switch {
		case !integer:
			return idOther
		case digits > maxSafeIDDigits:
			return idLongInt
		}
		return idInt
	}
	return idOther
}

// numberShape returns the number of integer digits at the start of the
// JSON number v, and whether v is an integer (no fraction or exponent).
func numberShape(v []byte) (digits int, integer bool) {
	i := 0
	if i < len(v) && v[i] == '-' {
		i++
	}
	for i < len(v) && '0' <= v[i] && v[i] <= '9' {
		i++
		digits++
	}
	return digits, i == len(v) || v[i] != '.' && v[i] != 'e' && v[i] != 'E'
}

// riskyID reports whether the value at the start of v is an id the SDK
// does not keep as Python does: anything but a string, null, or a short
// integer.
func riskyID(v []byte) bool {
	switch c := v[0]; {
	case c == '"' || c == 'n':
		return false
	case c == '-' || '0' <= c && c <= '9':
		digits, integer := numberShape(v)
		return !integer || digits > maxSafeIDDigits
	}
	return true
}

// notString reports whether the value at the start of v is not a string.
func notString(v []byte) bool { return v[0] != '"' }

// nameIsString reports whether the params object p has a string "name".
func nameIsString(p json.RawMessage) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(p, &m) != nil {
		return true // the SDK answers what it cannot decode
	}
	name := m["name"]
	return len(name) > 0 && name[0] == '"'
}

// notObject reports whether the value at the start of v is not an object.
func notObject(v []byte) bool { return v[0] != '{' }

// valueAfter reports whether some occurrence of the key (a quoted name)
// followed by a colon, anywhere in body, has a value for which f is true.
// Occurrences inside nested values or strings only cost a closer look.
func valueAfter(body, key []byte, f func([]byte) bool) bool {
	for i := 0; ; {
		j := bytes.Index(body[i:], key)
		if j < 0 {
			return false
		}
		i += j + len(key)
		k := skipSpace(body, i)
		if k >= len(body) || body[k] != ':' {
			continue
		}
		if k = skipSpace(body, k+1); k < len(body) && f(body[k:]) {
			return true
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// topLevelID returns the raw "id" of the JSON object body; ok is false
// when body is not an object, and id is nil when there is no id or it is
// null.
func topLevelID(body []byte) (id json.RawMessage, ok bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil || m == nil {
		return nil, false
	}
	id = m["id"]
	if idKind(id) == idNull {
		id = nil
	}
	return id, true
}

// writeAccepted answers a notification as NeMo's Python SDK does: 202,
// Content-Type application/json, no body.
func writeAccepted(w http.ResponseWriter) {
	h := w.Header()
	h.Del("Content-Length")
	h.Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusAccepted)
}

// writeInvalidParams writes the answer of NeMo's Python SDK to a request it
// cannot validate (an unknown method, missing params, ...): 200 and the
// JSON-RPC error -32602 "Invalid request parameters" with the request's id.
func writeInvalidParams(w http.ResponseWriter, id []byte) {
	b := make([]byte, 0, len(id)+96)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"error":{"code":-32602,"message":"Invalid request parameters","data":""}}`...)
	h := w.Header()
	h.Del("Content-Length")
	h.Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

// replaceID returns the SDK's answer p ({"jsonrpc":"2.0","id":<int>,...})
// with the id token replaced by id.
func replaceID(p, id []byte) ([]byte, bool) {
	const prefix = `{"jsonrpc":"2.0","id":`
	if !bytes.HasPrefix(p, []byte(prefix)) {
		return nil, false
	}
	end := len(prefix)
	for end < len(p) && (p[end] == '-' || '0' <= p[end] && p[end] <= '9') {
		end++
	}
	if end == len(prefix) {
		return nil, false
	}
	out := make([]byte, 0, len(p)+len(id))
	out = append(out, prefix...)
	out = append(out, id...)
	return append(out, p[end:]...), true
}
