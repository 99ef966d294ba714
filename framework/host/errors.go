package host

import (
	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/framework/internal/hostlink"
)

// StatusCode returns framework.StatusOf(err).CodeFor(d), the status door d
// answers for err (200 for a nil err), without rendering what the status
// does not depend on: a [*framework.ValidationError] is 422 on the MCP door
// whatever its items (no rendering at all), and on the HTTP door its body is
// rendered once and kept for the answer (a NaN or infinite input makes it a
// 500, see StatusOf). A metrics or logging interceptor should read the
// status so: StatusOf renders a 422 echoing a large input in both forms,
// each about the size of that input (the per-request memory bound of
// docs/security.md, "Exhaust memory").
func StatusCode(err error, d framework.Door) int {
	return hostlink.StatusCode(err, d == framework.DoorMCP)
}

// MCPErrorText returns framework.StatusOf(err).MCPText(tool), the MCP door's
// isError text for a failed call of tool, without the HTTP door's
// rendering: for a [*framework.ValidationError] the text is written once,
// so that a 422 echoing a large input costs one copy of it (the per-request
// memory bound of docs/security.md, "Exhaust memory").
func MCPErrorText(err error, tool string) string { return hostlink.MCPErrorText(err, tool) }

// JSONLimits bound the parse of one JSON document (see [CheckJSON]).
type JSONLimits struct {
	// MaxDepth is the deepest nesting of arrays and objects accepted; zero
	// or negative means config.DefaultMaxJSONDepth, and so does a larger
	// value.
	MaxDepth int
	// MaxElements is the most JSON values accepted (every scalar, array and
	// object counts one, object keys do not); zero or negative means
	// config.DefaultMaxJSONElements.
	MaxElements int
}

// CheckJSON reports whether data is exactly one JSON document as
// [framework.ParseJSON] reads it (trailing whitespace allowed) within lim,
// without building it. It returns nil, a syntax error (CPython's message,
// "Extra data: ..." for anything after the document), another parse error
// of ParseJSON, or, for a document beyond lim, a 413 *[framework.Error]
// whose string detail names the limit and its config key, as the HTTP door
// answers it:
//
//	Request body nested too deeply: more than 1000 levels of arrays and objects (max_json_depth)
//	Request body too complex: more than 1000000 JSON values (max_json_elements)
//
// The MCP door checks its bodies with it.
func CheckJSON(data []byte, lim JSONLimits) error {
	return hostlink.CheckJSON(data, lim.MaxDepth, lim.MaxElements)
}
