package framework

import (
	"context"
	"fmt"
	"net/http"

	"github.com/gymkit/gymkit/internal/aggregate"
	"github.com/gymkit/gymkit/internal/lax"
	"github.com/gymkit/gymkit/internal/pyjson"
)

// aggregateMetrics is framework/host's AggregateMetrics (documented there).
func aggregateMetrics(ctx context.Context, srv Server, verifyResponses []Value) (Value, error) {
	var h aggregate.Hooks
	if mc, ok := srv.(MetricsComputer); ok {
		h.ComputeMetrics = func(tasks [][]pyjson.Value) (pyjson.Value, error) {
			res, err := mc.ComputeMetrics(ctx, tasks)
			if err != nil || res == nil {
				return pyjson.Value{Kind: pyjson.Object}, err
			}
			return objectValue(res, "ComputeMetrics")
		}
	}
	if km, ok := srv.(KeyMetricsProvider); ok {
		h.KeyMetrics = func(agent pyjson.Value) (pyjson.Value, error) {
			res, err := km.KeyMetrics(ctx, agent)
			if err != nil {
				return pyjson.Value{}, err
			}
			return objectValue(res, "KeyMetrics")
		}
	}
	return aggregate.Compute(verifyResponses, h)
}

func objectValue(x any, hook string) (pyjson.Value, error) {
	v, err := toValue(x)
	if err != nil {
		return v, fmt.Errorf("%s result: %w", hook, err)
	}
	if v.Kind == pyjson.Null {
		return pyjson.Value{Kind: pyjson.Object}, nil
	}
	if v.Kind != pyjson.Object {
		return v, fmt.Errorf("%s result must be a JSON object, got %s", hook, v.Kind)
	}
	return v, nil
}

func (a *app) aggregateHandler(w http.ResponseWriter, r *http.Request) {
	args, _, err := readBody(r, a.jsonLimits)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	t := Tool{Name: "aggregate_metrics", invoke: func(ctx context.Context, _ string, args *body, _ []byte) (any, error) {
		list, err := aggregateInput(args.value())
		if err != nil {
			return nil, err
		}
		return aggregateMetrics(ctx, a.srv, list)
	}}
	res, err := t.call(r.Context(), args, nil)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	a.writeResult(w, r, res)
}

// aggregateInput validates AggregateMetricsRequest {verify_responses:
// List[Dict[str, Any]]}.
func aggregateInput(body pyjson.Value) ([]pyjson.Value, error) {
	if body.Kind != pyjson.Object {
		return nil, modelAttributesError(body)
	}
	list, ok := body.Get("verify_responses")
	switch {
	case !ok:
		return nil, &ValidationError{items: []lax.ErrorItem{{Type: "missing", Loc: []any{"verify_responses"}, Msg: "Field required", Input: body}}}
	case list.Kind != pyjson.Array:
		return nil, &ValidationError{items: []lax.ErrorItem{{Type: "list_type", Loc: []any{"verify_responses"}, Msg: "Input should be a valid list", Input: list}}}
	}
	var items []lax.ErrorItem
	for i, el := range list.Items {
		if el.Kind != pyjson.Object {
			items = append(items, lax.ErrorItem{Type: "dict_type", Loc: []any{"verify_responses", i}, Msg: "Input should be a valid dictionary", Input: el})
		}
	}
	if items != nil {
		return nil, &ValidationError{items: items}
	}
	return list.Items, nil
}
