package mcpexpose

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/framework/host"
)

// This file holds what the door offers general MCP clients on top of
// NeMo's contract, each off by default: a configured allow-list
// (mcp.tools), the initialize answer (mcp.server_info: an empty name is
// the instance name, an empty version gymkit's module version in this
// binary, "(devel)" in a build without module information) and the repair
// of arguments sent as JSON strings (mcp.coerce_json_strings).

// implementation is the initialize result's serverInfo.
func (d *Door) implementation() *mcp.Implementation {
	impl := &mcp.Implementation{Name: d.info.Name, Version: d.info.Version, Title: d.info.Title}
	if impl.Name == "" {
		impl.Name = d.instance
	}
	if impl.Version == "" {
		impl.Version = gymkitVersion()
	}
	return impl
}

// allowListed returns the tools of tools that the configured allow-list
// (mcp.tools) names, all of them without one, in their order. It logs
// once, as a warning, the names of the list that are not among tools,
// each with the closest existing name.
func (d *Door) allowListed(tools []framework.Tool) []framework.Tool {
	if d.allow == nil {
		return tools
	}
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	var missing []any
	for _, n := range d.allow {
		if !slices.Contains(names, n) && !slices.ContainsFunc(missing, func(m any) bool { return m.(string) == n }) {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		parts := make([]string, len(missing))
		for i, m := range missing {
			parts[i] = m.(string)
			if c := closest(m.(string), names); c != "" {
				parts[i] += " (closest: " + c + ")"
			}
		}
		d.logAttrs(context.Background(), "mcp.tools names tools that are not exposed; they are ignored", warn,
			"unknown", strings.Join(parts, ", "), "exposed", strings.Join(names, ", "))
	}
	out := make([]framework.Tool, 0, len(tools))
	for _, t := range tools {
		if slices.Contains(d.allow, t.Name) {
			out = append(out, t)
		}
	}
	return out
}

// closest returns the name of names nearest to word by edit distance
// (ties: the first in names), or "" when names is empty.
func closest(word string, names []string) string {
	best, bestDist := "", -1
	for _, n := range names {
		if d := editDistance(word, n); bestDist < 0 || d < bestDist {
			best, bestDist = n, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes
// (tool names are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// ArgumentRepairs returns how many tools/call arguments the door has
// decoded from JSON strings since it was made (mcp.coerce_json_strings;
// always 0 when it is off): one per repaired field. It is safe for
// concurrent use, for a metrics exporter to read.
func (d *Door) ArgumentRepairs() uint64 { return d.repairs.Load() }

// repairFields returns the top-level properties of the input schema whose
// schema asks for an array or an object and never accepts a string: the
// fields whose string values the door may decode. nil when there is none.
func repairFields(schema json.RawMessage) map[string]bool {
	var root struct {
		Properties  map[string]json.RawMessage `json:"properties"`
		Defs        map[string]json.RawMessage `json:"$defs"`
		Definitions map[string]json.RawMessage `json:"definitions"`
	}
	if json.Unmarshal(schema, &root) != nil {
		return nil
	}
	var fields map[string]bool
	for name, prop := range root.Properties {
		types := map[string]bool{}
		schemaTypes(prop, root.Defs, root.Definitions, types, 0)
		if (types["array"] || types["object"]) && !types["string"] {
			if fields == nil {
				fields = map[string]bool{}
			}
			fields[name] = true
		}
	}
	return fields
}

// schemaTypes adds to types the JSON types that the schema s names: its
// "type" (a string or a list), the types of its anyOf and oneOf branches,
// and those of a local $ref (#/$defs/<name> or #/definitions/<name>), a few
// levels deep. A schema without any (an empty schema, a const) adds
// "string", so that its strings are left alone.
func schemaTypes(s json.RawMessage, defs, definitions map[string]json.RawMessage, types map[string]bool, depth int) {
	var node struct {
		Type  json.RawMessage   `json:"type"`
		AnyOf []json.RawMessage `json:"anyOf"`
		OneOf []json.RawMessage `json:"oneOf"`
		Ref   string            `json:"$ref"`
	}
	if depth > 4 || json.Unmarshal(s, &node) != nil {
		types["string"] = true
		return
	}
	found := false
	var one string
	var many []string
	switch {
	case json.Unmarshal(node.Type, &one) == nil:
		types[one], found = true, true
	case json.Unmarshal(node.Type, &many) == nil:
		for _, t := range many {
			types[t], found = true, true
		}
	}
	for _, branch := range append(slices.Clone(node.AnyOf), node.OneOf...) {
		schemaTypes(branch, defs, definitions, types, depth+1)
		found = true
	}
	if node.Ref != "" {
		var target json.RawMessage
		if name, ok := strings.CutPrefix(node.Ref, "#/$defs/"); ok {
			target = defs[name]
		} else if name, ok := strings.CutPrefix(node.Ref, "#/definitions/"); ok {
			target = definitions[name]
		}
		if target == nil {
			types["string"] = true // a reference the door cannot follow: leave the value alone
			return
		}
		schemaTypes(target, defs, definitions, types, depth+1)
		found = true
	}
	if !found {
		types["string"] = true
	}
}

// repairArgs decodes, in the tools/call arguments args (a JSON object),
// the string values of e's repairable fields that start with [ or {
// (after white space) and parse as JSON, counting and logging (at debug)
// each repair. Every other byte of args is kept; args is returned as is
// when nothing is repaired or it is not an object.
func (d *Door) repairArgs(ctx context.Context, e *exposed, args json.RawMessage) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(args))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return args
	}
	type splice struct {
		start, end int
		value      []byte
		field      string
	}
	var splices []splice
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return args
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return args
		}
		end := int(dec.InputOffset())
		if !e.repair[key] || len(raw) == 0 || raw[0] != '"' {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) != nil {
			continue
		}
		inner := bytes.TrimLeft([]byte(s), " \t\r\n")
		if len(inner) == 0 || (inner[0] != '[' && inner[0] != '{') || !json.Valid(inner) {
			continue
		}
		splices = append(splices, splice{start: end - len(raw), end: end, value: inner, field: key})
	}
	if splices == nil {
		return args
	}
	out := make([]byte, 0, len(args))
	last := 0
	for _, sp := range splices {
		out = append(out, args[last:sp.start]...)
		out = append(out, sp.value...)
		last = sp.end
	}
	out = append(out, args[last:]...)
	if host.CheckJSON(out, d.jsonLimits) != nil {
		return args // decoded, the arguments would break max_json_depth or max_json_elements
	}
	for _, sp := range splices {
		d.repairs.Add(1)
		d.logAttrs(ctx, "decoded a tools/call argument sent as a JSON string", slog.LevelDebug,
			"tool", e.tool.Name, "field", sp.field)
	}
	return out
}
