package workplace

import (
	"context"
	"slices"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/pycompat/pandas"
	"github.com/gymkit/gymkit/pycompat/pystr"
	"github.com/gymkit/gymkit/pycompat/pyval"
	"github.com/gymkit/gymkit/session"
)

// VerifyRequest is the /verify body (WorkbenchVerifyRequest): the common
// fields plus the task's ground truth, id, category and environment name,
// all required. Other keys are dropped.
type VerifyRequest struct {
	framework.VerifyRequest
	// GroundTruth is list[dict[str, str]] | str; checked by the handler.
	GroundTruth     framework.Value `json:"ground_truth" required:"true"`
	ID              int64           `json:"id" required:"true"`
	Category        string          `json:"category" required:"true"`
	EnvironmentName string          `json:"environment_name" required:"true"`
}

// VerifyResponse is {"responses_create_params","response","reward"}.
type VerifyResponse struct {
	framework.VerifyResponse
}

// action is one call to replay.
type action struct {
	name, arguments string
	ok              bool // has both keys as strings
}

// verify replays the predicted calls and the ground truth on two fresh
// worlds and compares the five tables (spec section 7). The session's own
// world is not consulted; it is released unless keep_world_after_verify.
func (s *Workplace) verify(ctx context.Context, req VerifyRequest) (VerifyResponse, error) {
	gt, err := groundTruthActions(req.GroundTruth)
	if err != nil {
		return VerifyResponse{}, err
	}
	var pred []action
	for _, it := range req.Response.FunctionCalls() {
		pred = append(pred, action{name: it.Name, arguments: it.Arguments, ok: true})
	}
	equal, err := s.score(pred, gt)
	if err != nil {
		return VerifyResponse{}, err
	}
	if !s.KeepWorldAfterVerify {
		if err := s.endRollout(ctx); err != nil {
			return VerifyResponse{}, err
		}
	}
	var resp VerifyResponse
	if equal {
		resp.Reward = 1.0
	}
	return resp, nil
}

// endRollout clears the session's seed mark and frees its world, so that
// a later call answers "Session not initialized" as a call after a dropped
// world always has. An unseeded session is not written to. The mark is
// cleared first: a call in flight that creates the world (dispatch) either
// set its mark before, and its world is freed here, or finds the mark
// cleared and frees its world itself, so no world outlives the rollout.
func (s *Workplace) endRollout(ctx context.Context) error {
	id := session.ID(ctx)
	if id == "" {
		return nil
	}
	if s.cache != nil {
		return s.endSession(ctx, id)
	}
	mark, _, err := session.Get[seedMark](ctx, worldKey)
	if err == nil && mark != markNone {
		err = session.Update(ctx, worldKey, func(m *seedMark) error { *m = markNone; return nil })
	}
	s.worlds.drop(id)
	return err
}

// score reports whether the predicted actions leave the same tables as the
// ground truth.
func (s *Workplace) score(pred, gt []action) (bool, error) {
	pw, gw := s.data.newWorld(), s.data.newWorld()
	replay(pw, pred)
	replay(gw, gt)
	return sameTables(pw, gw)
}

// replay runs each action on w, skipping any that raises (unknown tool,
// arguments that are not a JSON object, bad keyword, runtime error). Nulls
// are passed, not dropped.
func replay(w *world, actions []action) {
	for _, a := range actions {
		if !a.ok {
			continue
		}
		if toolByName[a.name] == nil {
			continue
		}
		args, err := framework.ParseJSON([]byte(a.arguments))
		if err != nil || args.Kind != framework.KindObject {
			continue
		}
		_, _ = w.call(a.name, args.Members)
	}
}

// groundTruthActions validates ground_truth as list[dict[str, str]] | str
// (pydantic's smart union, with both branches' errors on failure) and
// returns its actions; a string holds none (iterating it yields characters,
// each of which fails).
func groundTruthActions(v framework.Value) ([]action, error) {
	if v.Kind == framework.KindString {
		return nil, nil
	}
	var items []framework.Value
	loc := func(rest ...any) []any {
		return append([]any{"body", "ground_truth", "list[dict[str,str]]"}, rest...)
	}
	if v.Kind != framework.KindArray {
		items = append(items, errItem("list_type", loc(), "Input should be a valid list", v))
	} else {
		for i, it := range v.Items {
			if it.Kind != framework.KindObject {
				items = append(items, errItem("dict_type", loc(i), "Input should be a valid dictionary", it))
				continue
			}
			for _, m := range it.Members {
				if m.Value.Kind != framework.KindString {
					items = append(items, errItem("string_type", loc(i, m.Key), "Input should be a valid string", m.Value))
				}
			}
		}
	}
	if len(items) > 0 {
		items = append(items, errItem("string_type", []any{"body", "ground_truth", "str"}, "Input should be a valid string", v))
		return nil, framework.NewError(422, framework.Value{Kind: framework.KindArray, Items: items})
	}
	out := make([]action, 0, len(v.Items))
	for _, it := range v.Items {
		name, ok1 := it.Get("name")
		args, ok2 := it.Get("arguments")
		out = append(out, action{name: name.Str, arguments: args.Str, ok: ok1 && ok2})
	}
	return out, nil
}

// errItem builds one FastAPI 422 item {"type","loc","msg","input"}.
func errItem(typ string, loc []any, msg string, input framework.Value) framework.Value {
	l := make([]framework.Value, len(loc))
	for i, x := range loc {
		switch x := x.(type) {
		case string:
			l[i] = vStr(x)
		case int:
			l[i] = vInt(x)
		}
	}
	var o object
	o.add("type", vStr(typ))
	o.add("loc", vList(l))
	o.add("msg", vStr(msg))
	o.add("input", input)
	return o.value()
}

// sameTables compares calendar, emails, plots, tasks and CRM of two worlds as
// the reference does: every column but status, list_name and board lowered
// with .str.lower() (non-strings become missing), then DataFrame.equals (row
// labels included; missing equals missing; Python == for the rest).
//
// Copy-on-write makes most of it free: a table both worlds still share is
// the same base table, and a row both tables still share is the same base
// row; neither is lowered nor compared cell by cell.
func sameTables(a, b *world) (bool, error) {
	for _, w := range []*world{a, b} {
		for i := range nTables {
			if a.get(i) == b.get(i) {
				continue // the base table: lowerable, and equal to itself
			}
			if err := checkLowerable(w.get(i)); err != nil {
				return false, err
			}
		}
	}
	for i := range nTables {
		if ta, tb := a.get(i), b.get(i); ta != tb && !tablesEqual(ta, tb) {
			return false, nil
		}
	}
	return true, nil
}

// notLowered are the columns compared as stored.
var notLowered = map[string]bool{"status": true, "list_name": true, "board": true}

// checkLowerable raises what convert_strs_to_lowercase raises: a lowered
// column without a .str accessor (only numbers, or only bools) is pandas'
// AttributeError, and verify answers 500.
func checkLowerable(t *table) error {
	for c, name := range t.Columns() {
		if notLowered[name] {
			continue
		}
		if err := t.Column(c).CheckStr(); err != nil {
			return framework.PythonError("AttributeError", err.Error())
		}
	}
	return nil
}

func tablesEqual(a, b *table) bool {
	if !slices.Equal(a.Columns(), b.Columns()) || a.Len() != b.Len() || !slices.Equal(a.Labels(), b.Labels()) {
		return false
	}
	for i := range a.Rows() {
		ra, rb := a.Row(i), b.Row(i)
		if len(ra) > 0 && &ra[0] == &rb[0] {
			continue // the same row
		}
		for c, name := range a.Columns() {
			if !cellsEqual(ra[c], rb[c], !notLowered[name]) {
				return false
			}
		}
	}
	return true
}

// cellsEqual compares two cells after the lowering transform when lower is
// set: strings by their lower case, every non-string as missing; missing
// equals missing; otherwise Python ==.
func cellsEqual(x, y value, lower bool) bool {
	if lower {
		xs, ys := isStr(x), isStr(y)
		switch {
		case !xs || !ys:
			return !xs && !ys
		case x.Str == y.Str:
			return true
		}
		return pystr.Lower(x.Str) == pystr.Lower(y.Str)
	}
	if pandas.IsNA(x) || pandas.IsNA(y) {
		return pandas.IsNA(x) && pandas.IsNA(y)
	}
	return pyval.Equal(x, y)
}
