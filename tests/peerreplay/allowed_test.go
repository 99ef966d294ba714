package peerreplay

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
)

// The differences from NeMo Gym's Python servers that gymkit keeps on
// purpose, each with its reason (documented in docs/mcp.md and
// docs/environments.md, "Differences from NeMo Gym"). Anything else fails the
// replay.
const (
	whyFastAPIPages  = "GET /openapi.json is generated from the Go types (gymkit's component names and titles, NeMo's base models for seed and verify) and GET /docs is a self-contained page, not Swagger UI from a CDN: status, content type and cookie as FastAPI's, the bodies differ"
	whyBodyLimit     = "bodies over max_body_bytes (16 MiB by default) get 413"
	whyWorldDropped  = "workplace_assistant drops a rollout's world at /verify (bounded memory; NeMo keeps it for ever)"
	whyAllowHook     = "an environment's own allow-list hook answers malformed seeds its own way"
	whyToolsList     = "tools/list is sorted by name and adds outputSchema and annotations; schema titles are Go names"
	whyInitialize    = "initialize: capabilities, serverInfo.version and the key order of its result are gymkit's"
	whyTransportText = "the message text of transport-level JSON-RPC 400s (Python prints pydantic dumps)"
	whyAcceptAny     = "Accept: */* on /mcp is accepted (it covers both media types the MCP spec asks for; Python: 406)"
	whyStatelessGET  = "stateless GET /mcp answers 405 with Allow: POST (Python holds an empty event stream open for ever)"
	whyAllowOn405    = "405 answers carry Allow, as HTTP requires"
)

// allowedReason returns why a difference is allowed, or "" when it is not.
func allowedReason(file string, sc scenario, st step, d diff) string {
	mcp := strings.HasSuffix(st.Path, "/mcp") || strings.HasSuffix(st.Path, "/mcp/")
	switch {
	case (st.Path == "/openapi.json" || st.Path == "/docs") && d.field == "body":
		return whyFastAPIPages
	case st.Body != nil && xRun.MatchString(*st.Body) && st.Peer.Status == 200:
		// Only the oversized verify body carries {{X*N}}.
		return whyBodyLimit
	case strings.HasPrefix(file, "workplace_assistant") && strings.Contains(sc.Scenario, "after verify") &&
		strings.Contains(st.Name, "after verify"):
		return whyWorldDropped
	case file == "workplace_assistant__allow_list_hook" &&
		(st.Name == "seed allowed_tools not a list" || st.Name == "seed verifier_metadata not an object"):
		return whyAllowHook
	case d.field == "allow" && d.peer == "<none>" && st.Peer.Status == 405:
		return whyAllowOn405
	case mcp && st.Method == "GET":
		return whyStatelessGET
	case mcp && st.Headers["Accept"] == "*/*":
		return whyAcceptAny
	case mcp && d.field == "body" && isMethod(st, "tools/list") && sameToolsList(d.peer, d.got):
		return whyToolsList
	case mcp && d.field == "body" && isMethod(st, "initialize") && sameInitialize(d.peer, d.got):
		return whyInitialize
	case mcp && d.field == "body" && st.Peer.Status == 400 && sameRPCErrorButText(d.peer, d.got):
		return whyTransportText
	}
	return ""
}

// isMethod reports whether the step's JSON-RPC request calls method.
func isMethod(st step, method string) bool {
	if st.Body == nil {
		return false
	}
	var req struct {
		Method string `json:"method"`
	}
	return json.Unmarshal([]byte(*st.Body), &req) == nil && req.Method == method
}

// sameToolsList reports whether two tools/list answers hold the same tools
// once sorted by name, without outputSchema, annotations and schema titles.
func sameToolsList(peer, got string) bool {
	norm := func(s string) any {
		var v map[string]any
		if json.Unmarshal([]byte(s), &v) != nil {
			return nil
		}
		res, _ := v["result"].(map[string]any)
		tools, _ := res["tools"].([]any)
		for _, t := range tools {
			if m, ok := t.(map[string]any); ok {
				delete(m, "outputSchema")
				delete(m, "annotations")
				dropTitles(m["inputSchema"])
			}
		}
		slices.SortFunc(tools, func(a, b any) int {
			return strings.Compare(toolName(a), toolName(b))
		})
		return v
	}
	p, g := norm(peer), norm(got)
	return p != nil && reflect.DeepEqual(p, g)
}

func toolName(t any) string {
	m, _ := t.(map[string]any)
	s, _ := m["name"].(string)
	return s
}

// dropTitles removes the string "title" keywords of a JSON Schema.
func dropTitles(v any) {
	switch x := v.(type) {
	case map[string]any:
		if _, ok := x["title"].(string); ok {
			delete(x, "title")
		}
		for k, c := range x {
			if k == "properties" {
				if props, ok := c.(map[string]any); ok {
					for _, p := range props {
						dropTitles(p)
					}
				}
				continue
			}
			dropTitles(c)
		}
	case []any:
		for _, c := range x {
			dropTitles(c)
		}
	}
}

// sameInitialize reports whether two initialize answers agree but for
// capabilities, serverInfo.version and key order.
func sameInitialize(peer, got string) bool {
	norm := func(s string) any {
		var v map[string]any
		if json.Unmarshal([]byte(s), &v) != nil {
			return nil
		}
		if res, ok := v["result"].(map[string]any); ok {
			delete(res, "capabilities")
			if si, ok := res["serverInfo"].(map[string]any); ok {
				delete(si, "version")
			}
		}
		return v
	}
	p, g := norm(peer), norm(got)
	return p != nil && reflect.DeepEqual(p, g)
}

// sameRPCErrorButText reports whether two JSON-RPC error answers agree but
// for error.message.
func sameRPCErrorButText(peer, got string) bool {
	norm := func(s string) any {
		var v map[string]any
		if json.Unmarshal([]byte(s), &v) != nil {
			return nil
		}
		e, ok := v["error"].(map[string]any)
		if !ok {
			return nil
		}
		delete(e, "message")
		return v
	}
	p, g := norm(peer), norm(got)
	return p != nil && reflect.DeepEqual(p, g)
}
