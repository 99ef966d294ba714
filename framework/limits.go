package framework

import (
	"errors"
	"net/http"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/internal/pyjson"
)

// resolveLimits returns the parse limits of a request body: max_json_depth
// and max_json_elements, zero or negative meaning their defaults, and a
// depth beyond the default meaning the default too.
func resolveLimits(maxDepth, maxElements int) pyjson.Limits {
	if maxDepth <= 0 || maxDepth > config.DefaultMaxJSONDepth {
		maxDepth = config.DefaultMaxJSONDepth
	}
	if maxElements <= 0 {
		maxElements = config.DefaultMaxJSONElements
	}
	return pyjson.Limits{MaxDepth: maxDepth, MaxElements: maxElements}
}

// checkJSON is framework/host's CheckJSON (documented there).
func checkJSON(data []byte, maxDepth, maxElements int) error {
	err := pyjson.Check(data, resolveLimits(maxDepth, maxElements))
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
