package framework

import (
	"errors"
	"net/http"

	"github.com/gymkit/gymkit/internal/pyjson"
)

// The defaults of the request body parse limits (config max_json_depth and
// max_json_elements, [Options.MaxJSONDepth] and [Options.MaxJSONElements]).
const (
	// DefaultMaxJSONDepth is the deepest nesting of arrays and objects a
	// request body may have, and the most that can be configured: 1000, the
	// parser's own bound (CPython's json.loads accepts somewhat deeper
	// bodies, until its RecursionError). NeMo Gym's real bodies nest 8
	// levels at most (the goldens, the example rows).
	DefaultMaxJSONDepth = pyjson.MaxDepth
	// DefaultMaxJSONElements is the most JSON values a request body may
	// hold: 2,000,000 (a parse stopped there peaks at about 450 MB today,
	// against 1.7 GB for a 14 MiB body of 7M ints). The largest real NeMo
	// verify body of the goldens and example rows holds about 600 values;
	// an RL verify body with token ids and log probabilities holds one
	// value per 3-7 bytes of JSON (8 turns of a 16k-token prompt: 0.9 MB,
	// 300k values; 20 turns of 32k tokens, about 1M), and a body of token
	// ids within max_body_bytes' default 16 MiB holds under 2.4M.
	DefaultMaxJSONElements = 2_000_000
)

// JSONLimits bound the parse of one JSON document (see [CheckJSON]).
type JSONLimits struct {
	// MaxDepth is the deepest nesting of arrays and objects accepted; zero
	// or negative means DefaultMaxJSONDepth, and so does a larger value.
	MaxDepth int
	// MaxElements is the most JSON values accepted (every scalar, array and
	// object counts one, object keys do not); zero or negative means
	// DefaultMaxJSONElements.
	MaxElements int
}

// resolved returns l with its defaults filled in.
func (l JSONLimits) resolved() JSONLimits {
	if l.MaxDepth <= 0 || l.MaxDepth > DefaultMaxJSONDepth {
		l.MaxDepth = DefaultMaxJSONDepth
	}
	if l.MaxElements <= 0 {
		l.MaxElements = DefaultMaxJSONElements
	}
	return l
}

func (l JSONLimits) pyjson() pyjson.Limits {
	return pyjson.Limits{MaxDepth: l.MaxDepth, MaxElements: l.MaxElements}
}

// CheckJSON reports whether data is exactly one JSON document as
// [ParseJSON] reads it (trailing whitespace allowed) within lim, without
// building it. It returns nil, a *[JSONSyntaxError] (CPython's message,
// "Extra data: ..." for anything after the document), one of the ErrJSON*
// values, or, for a document beyond lim, a 413 *[Error] whose string
// detail names the limit and its config key, as the HTTP door answers it:
//
//	Request body nested too deeply: more than 1000 levels of arrays and objects (max_json_depth)
//	Request body too complex: more than 1000000 JSON values (max_json_elements)
//
// The MCP door checks its bodies with it.
func CheckJSON(data []byte, lim JSONLimits) error {
	err := pyjson.Check(data, lim.resolved().pyjson())
	if fe := jsonLimitError(err); fe != nil {
		return fe
	}
	return err
}

// jsonLimitError turns a parse's *pyjson.LimitError into the 413 answer
// naming the limit; nil for any other error.
func jsonLimitError(err error) *Error {
	var le *pyjson.LimitError
	if !errors.As(err, &le) {
		return nil
	}
	if le.Kind == pyjson.LimitDepth {
		return Errorf(http.StatusRequestEntityTooLarge,
			"Request body nested too deeply: more than %d levels of arrays and objects (max_json_depth)", le.Max).(*Error)
	}
	return Errorf(http.StatusRequestEntityTooLarge,
		"Request body too complex: more than %d JSON values (max_json_elements)", le.Max).(*Error)
}
