package framework

import (
	"errors"
	"net/http"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/internal/pyjson"
)

// defaultLimits are the parse limits of a request body with
// max_json_depth's and max_json_elements's defaults.
func defaultLimits() pyjson.Limits {
	d := config.Defaults()
	return pyjson.Limits{MaxDepth: d.MaxJSONDepth, MaxElements: d.MaxJSONElements}
}

// checkJSON is framework/host's CheckJSON (documented there).
func checkJSON(data []byte, maxDepth, maxElements int) error {
	lim := defaultLimits()
	if maxDepth > 0 && maxDepth < lim.MaxDepth {
		lim.MaxDepth = maxDepth
	}
	if maxElements > 0 {
		lim.MaxElements = maxElements
	}
	err := pyjson.Check(data, lim)
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
