// Package mathadvancedcalculations is NeMo Gym's math_advanced_calculations
// resources server (MultiVerseMathHardResourcesServer) in gymkit:
// "alternate universe" arithmetic. Eleven functions are served through one
// catch-all route, POST /{function}, and /verify rewards a rollout whose tool
// outputs contain every ground-truth number exactly. Behaviour:
// ../shared/spec/small-servers.md section 3; the tools compute
//
//	add(a, b)        = a + b + 1.2         subtract(a, b) = a - b - 3
//	multiply(a, b)   = 1.1 * a * b         divide(a, b)   = 0.5 * a / b
//	power(a, b)      = a ** (b + 2)        log(a, base)   = ln(a) / ln(|base + 1.5|)
//	sin(radians)     = cos(radians)        cos(radians)   = sin(radians)
//	pi()             = e                   negate(a)      = return_constant(a) = a
//
// On the wire:
//
//	POST /add    {"a":1,"b":2}      -> 200 {"solution":4.2}
//	POST /pi     {}                 -> 200 {"solution":2.718281828459045}
//	POST /divide {"a":1,"b":0}      -> 500 {"detail":"float division by zero"}
//	POST /add    {"a":1}            -> 500 {"detail":"add() missing 1 required positional argument: 'b'"}
//	POST /sqrt   {"a":4}            -> 404 {"detail":"Function not found"}
//	POST /add    {"a":"abc"}        -> 422 {"detail":[{"type":"float_parsing","loc":["body","a"],...}]}
//	POST /verify {responses_create_params, response, ground_truth:"[4.2]", id, depth, breadth}
//	                                -> 200 {"responses_create_params":...,"response":...,"reward":1.0}
//
// The body is validated first (422, even for an unknown function), then the
// function is looked up (404), then called with the present, non-null fields
// as keyword arguments; any Python exception is a 500 whose detail is its
// text, and NaN or infinite solutions are written as null.
//
// # Floats: the default build needs cgo and glibc
//
// Rewards compare tool outputs with ground truths that CPython computed with
// glibc's libm, bit for bit. Go's math.Sin, Cos, Log and Pow differ from
// glibc in the last bit for many inputs (about 25%, 2% and 48% of them), so
// the default build calls the C library's sin, cos, log, pow and atan2
// through cgo (linked with -lm), wrapped in CPython's special cases (domain
// checks, float ** rules, errno ERANGE on pow overflow). It needs
// CGO_ENABLED=1, a C compiler (gcc) and, for exact results, glibc on the
// machine that runs the server (musl and macOS libms differ). [Exact] reports
// the build in use.
//
// Built with the purego tag (or with cgo disabled), the package uses Go's math
// package instead: it is self-contained but inexact, and example rows 0 and 1
// of the dataset can then never reach reward 1.0 (sin(5) and
// sin(0.8390359525563191) come out 1 ulp off). Provision logs a warning in
// that build, and on a cgo build whose C library is not glibc.
//
// # MCP
//
// Unlike the Python original, which exposes no tools over MCP, the server's
// Tools hook exposes the eleven functions as catch-all tools, each with the
// input schema and description the dataset's rows give the model.
package mathadvancedcalculations

import (
	"context"
	"encoding/json"

	"github.com/gymkit/gymkit/framework"
)

// Name is the server type name under resources_servers.
const Name = "math_advanced_calculations"

func init() { framework.Register(Name, func() framework.Server { return new(Server) }) }

// Server is the server. It has no config keys of its own, no seed logic and
// no session state.
type Server struct {
	framework.Base
}

var (
	_ framework.ToolsProvider = (*Server)(nil)
	_ framework.Provisioner   = (*Server)(nil)
)

// Solution is a function's result: {"solution": x}, with NaN and ±Inf
// written as null.
type Solution struct {
	Solution float64 `json:"solution"`
}

// Routes declares the catch-all POST /{function} and /verify.
func (s *Server) Routes(r *framework.Router) {
	framework.Dispatch(r, s.dispatch)
	framework.Verify(r, s.verify)
}

// Provision warns when the float back end cannot reproduce the datasets'
// ground truths exactly.
func (s *Server) Provision(context.Context) error {
	if !Exact || !glibc {
		s.Logger().Warn("math_advanced_calculations: floats are not computed with glibc's libm; "+
			"some results differ from the datasets' ground truths in the last bit", "libm", libmName, "glibc", glibc)
	}
	return nil
}

// dispatch is route_to_python_function: validate the body (422), find the
// function (404), call it (500 on any exception).
func (s *Server) dispatch(_ context.Context, tool string, raw json.RawMessage) (any, error) {
	args, err := framework.Decode[Args](raw)
	if err != nil {
		return nil, err
	}
	f, ok := byName[tool]
	if !ok {
		return nil, framework.Errorf(404, "Function not found")
	}
	x, err := f.call(args)
	if err != nil {
		return nil, framework.Errorf(500, "%s", err.Error())
	}
	return Solution{Solution: x}, nil
}

// Tools exposes the eleven functions over MCP as catch-all tools, in the
// dataset's order, after any harvested tools (there are none).
func (s *Server) Tools(harvested []framework.Tool, catchall *framework.CatchAll) []framework.Tool {
	if catchall == nil {
		return harvested
	}
	out := append([]framework.Tool(nil), harvested...)
	yes, no := true, false
	for i := range functions {
		f := &functions[i]
		t := catchall.Tool(f.name, f.inputSchema(), f.description)
		t.OutputSchema = outputSchema
		t.Annotations = framework.Annotations{ReadOnly: &yes, Idempotent: &yes, OpenWorld: &no, Destructive: &no}
		out = append(out, t)
	}
	return out
}

// outputSchema is the schema of a successful result: {"solution": number},
// null for NaN and infinities.
var outputSchema = json.RawMessage(`{"type":"object","properties":{"solution":{"anyOf":[{"type":"number"},{"type":"null"}]}},"required":["solution"]}`)

// inputSchema is the function's JSON Schema, as the dataset's tool list
// gives it: its own parameters, all numbers, all required, no others.
func (f *function) inputSchema() json.RawMessage {
	props := framework.Value{Kind: framework.KindObject}
	req := framework.Value{Kind: framework.KindArray, Items: []framework.Value{}}
	for i, p := range f.params {
		props.Members = append(props.Members, framework.Member{Key: p, Value: framework.Value{
			Kind: framework.KindObject,
			Members: []framework.Member{
				{Key: "type", Value: framework.Value{Kind: framework.KindString, Str: "number"}},
				{Key: "description", Value: framework.Value{Kind: framework.KindString, Str: f.paramDocs[i]}},
			},
		}})
		req.Items = append(req.Items, framework.Value{Kind: framework.KindString, Str: p})
	}
	schema := framework.Value{Kind: framework.KindObject, Members: []framework.Member{
		// Key order as the Python server writes it (nemo-gym-peer
		// math_advanced_calculations__catchall_exposed.jsonl, tools/list).
		{Key: "properties", Value: props},
		{Key: "type", Value: framework.Value{Kind: framework.KindString, Str: "object"}},
		{Key: "required", Value: req},
		{Key: "additionalProperties", Value: framework.Value{Kind: framework.KindBool}},
	}}
	b, err := framework.MarshalJSON(schema, framework.JSONPython)
	if err != nil {
		panic(err) // a fixed, well-formed value
	}
	return b
}
