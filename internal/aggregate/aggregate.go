// Package aggregate computes NeMo Gym's POST /aggregate_metrics result
// (nemo_gym/reward_profile.py compute_aggregate_metrics, pandas 2.3 and numpy
// 2.3 underneath) bit for bit: the statistics with numpy's pairwise summation
// and pandas' two-pass variance, pandas' int/float typing of max and min, the
// key orders, group_level_metrics with rollout_infos, agent_metrics,
// key_metrics, the compute_metrics merge, and the exceptions Python raises.
//
// The rules are spec/python-compat.md section 1; this package is their
// executable form.
package aggregate

import (
	"fmt"
	"slices"

	"github.com/gymkit/gymkit/internal/pyjson"
)

// Key names NeMo Gym gives the rollout indices.
const (
	// TaskIndexKey is the key of a rollout's task index (the group key).
	TaskIndexKey = "_ng_task_index"
	// RolloutIndexKey is the key of a rollout's repeat index within its task.
	RolloutIndexKey = "_ng_rollout_index"
	// PerTaskMetricsKey is the compute_metrics result key whose items are
	// merged into group_level_metrics instead of agent_metrics.
	PerTaskMetricsKey = "per_task_metrics"
)

// Hooks are a server's overrides of NeMo Gym's compute_metrics and
// get_key_metrics. A nil func is NeMo's default.
type Hooks struct {
	// ComputeMetrics receives the raw verify responses grouped by task:
	// tasks[i] holds task i's elements in request order, tasks ordered by
	// task index. It returns a JSON object whose "per_task_metrics" list
	// (items {"_ng_task_index": T, ...}) is merged into the matching groups
	// and whose other keys are merged into agent_metrics (existing keys
	// replaced in place, new keys appended). nil returns {}.
	ComputeMetrics func(tasks [][]pyjson.Value) (pyjson.Value, error)
	// KeyMetrics receives agent_metrics after the compute_metrics merge and
	// returns the key_metrics object. nil returns every "mean/" entry of
	// agent_metrics in order.
	KeyMetrics func(agentMetrics pyjson.Value) (pyjson.Value, error)
}

// Result keys, in AggregateMetrics field order.
const (
	keyGroups = "group_level_metrics"
	keyAgent  = "agent_metrics"
	keyKey    = "key_metrics"
)

// statNames are the statistics in output order (stat-major).
var statNames = [5]string{"mean/", "max/", "min/", "median/", "std/"}

// entry is one verify response with its parsed rollout key.
type entry struct {
	idx           int // position in the request
	task, rollout pyjson.Value
	tkey, rkey    idxKey
	group         int
}

// Compute returns NeMo Gym's AggregateMetrics for verifyResponses as a JSON
// object {"group_level_metrics":[...],"agent_metrics":{...},"key_metrics":
// {...}}. Float statistics are float literals (Python's repr digits), max/min
// are int literals when pandas would keep them int64.
//
// Every element must be a JSON object (the request model's 422 is the
// caller's concern). Inputs NeMo Gym fails on give an *Error whose text is
// Python's exception repr: a missing _ng_task_index or _ng_rollout_index, a
// duplicate (task, rollout) pair, a "response" that is not an object, a
// truthy "usage" that is not an object, an array or object index
// (unhashable), string and number indices mixed (unorderable). Two inputs
// Python accepts with degenerate results are refused with a ValueError
// instead: a null or NaN index. A result of more than MaxStatEntries
// statistics is refused with a MemoryError (a gymkit bound, see there).
// Errors from the hooks are returned unchanged. An empty list gives the
// three keys empty and calls no hook.
//
// Time and memory are proportional to the present numeric values plus the
// result: each group describes only the fields present in it.
func Compute(verifyResponses []pyjson.Value, h Hooks) (pyjson.Value, error) {
	if len(verifyResponses) == 0 {
		return result(pyjson.ArrayValue(), pyjson.ObjectValue(), pyjson.ObjectValue()), nil
	}
	for i, vr := range verifyResponses {
		if vr.Kind != pyjson.Object {
			return pyjson.Value{}, fmt.Errorf("aggregate: verify_responses[%d] is a JSON %s, not an object", i, vr.Kind)
		}
	}

	entries, err := indexRollouts(verifyResponses)
	if err != nil {
		return pyjson.Value{}, err
	}
	sorted, err := sortEntries(entries)
	if err != nil {
		return pyjson.Value{}, err
	}

	// Groups: runs of equal task keys in sorted order.
	type group struct {
		lo, hi   int          // records [lo, hi) in sorted order
		task     pyjson.Value // first-seen raw task value (request order)
		firstIdx int
		infos    []pyjson.Value
	}
	var groups []group
	for i, e := range sorted {
		if len(groups) == 0 || sorted[groups[len(groups)-1].lo].tkey.canon != e.tkey.canon {
			groups = append(groups, group{lo: i, hi: i, task: e.task, firstIdx: e.idx})
		}
		g := &groups[len(groups)-1]
		g.hi = i + 1
		if e.idx < g.firstIdx {
			g.firstIdx, g.task = e.idx, e.task
		}
		entries[e.idx].group = len(groups) - 1
	}

	// Records: rollout_infos and the numeric columns, in sorted order.
	tab := newTable(len(sorted))
	for pos, e := range sorted {
		vr := verifyResponses[e.idx]
		info, usage, err := rolloutInfo(vr, e)
		if err != nil {
			return pyjson.Value{}, err
		}
		g := &groups[entries[e.idx].group]
		g.infos = append(g.infos, info)
		// result["response"].get("usage"): an absent response is {}.
		if resp, ok := vr.Get("response"); ok && resp.Kind != pyjson.Object {
			return pyjson.Value{}, pyErr("AttributeError", "'"+pyTypeName(resp)+"' object has no attribute 'get'")
		}
		// result | usage: usage values replace same-named keys in place,
		// new usage keys follow.
		inUsage := newMemberIndex(usage.Members, len(vr.Members))
		for _, m := range vr.Members {
			v := m.Value
			if i := inUsage.find(m.Key); i >= 0 {
				v = usage.Members[i].Value
			}
			tab.add(pos, m.Key, v)
		}
		if len(usage.Members) > 0 {
			inResult := newMemberIndex(vr.Members, len(usage.Members))
			for _, m := range usage.Members {
				if inResult.find(m.Key) < 0 {
					tab.add(pos, m.Key, m.Value)
				}
			}
		}
	}
	tab.finish()

	// Each group's statistics cover only the columns present in it (the
	// others would be all-NaN and dropped); refuse outputs too large to build.
	bounds := make([]int, len(groups))
	for gi, g := range groups {
		bounds[gi] = g.lo
	}
	segs, segStart := tab.groupSegments(bounds)
	if err := checkOutputSize(len(segs), len(tab.cols)); err != nil {
		return pyjson.Value{}, err
	}

	groupVals := make([]*omap, len(groups))
	for gi, g := range groups {
		gs := segs[segStart[gi]:segStart[gi+1]]
		o := newOmap(len(statNames)*len(gs) + 7)
		o.append(TaskIndexKey, g.task)
		tab.appendStats(o, gs, tab.describe(gs, g.lo, g.hi-g.lo))
		o.append("sample", pyjson.ObjectValue(pyjson.Member{Key: "agent_ref", Value: pyjson.ObjectValue(
			pyjson.Member{Key: "name", Value: pyjson.StringValue("agent")})}))
		nr := int64(g.hi - g.lo)
		o.append("num_rollouts", intValue(nr))
		o.append("expected_num_rollouts", intValue(nr))
		o.append("missing_num_rollouts", intValue(0))
		o.append("reward_profile_completion_pct", pyjson.NumberValue("100.0"))
		o.append("rollout_infos", pyjson.ArrayValue(g.infos...))
		groupVals[gi] = o
	}

	agent := newOmap(len(statNames) * len(tab.cols))
	all := tab.allSegments()
	tab.appendStats(agent, all, tab.describe(all, 0, tab.n))

	// compute_metrics (the default returns {}).
	if h.ComputeMetrics != nil {
		tasks := make([][]pyjson.Value, len(groups))
		for i, vr := range verifyResponses {
			g := entries[i].group
			tasks[g] = append(tasks[g], vr)
		}
		custom, err := h.ComputeMetrics(tasks)
		if err != nil {
			return pyjson.Value{}, err
		}
		if err := mergeCustom(custom, groupVals, agent); err != nil {
			return pyjson.Value{}, err
		}
	}

	agentVal := agent.value()
	var keyVal pyjson.Value
	if h.KeyMetrics != nil {
		keyVal, err = h.KeyMetrics(agentVal)
		if err != nil {
			return pyjson.Value{}, err
		}
		if keyVal.Kind != pyjson.Object {
			return pyjson.Value{}, fmt.Errorf("aggregate: key metrics hook returned a JSON %s, not an object", keyVal.Kind)
		}
	} else {
		keyVal = DefaultKeyMetrics(agentVal)
	}

	gl := make([]pyjson.Value, len(groupVals))
	for i, o := range groupVals {
		gl[i] = o.value()
	}
	return result(pyjson.ArrayValue(gl...), agentVal, keyVal), nil
}

// DefaultKeyMetrics is NeMo Gym's default get_key_metrics: every entry of
// agentMetrics whose key starts with "mean/", in order.
func DefaultKeyMetrics(agentMetrics pyjson.Value) pyjson.Value {
	out := pyjson.ObjectValue()
	for _, m := range agentMetrics.Members {
		if len(m.Key) >= 5 && m.Key[:5] == "mean/" {
			out.Members = append(out.Members, m)
		}
	}
	return out
}

func result(groups, agent, key pyjson.Value) pyjson.Value {
	return pyjson.ObjectValue(
		pyjson.Member{Key: keyGroups, Value: groups},
		pyjson.Member{Key: keyAgent, Value: agent},
		pyjson.Member{Key: keyKey, Value: key},
	)
}

// indexRollouts reproduces RewardProfiler.align_rows_and_results' indexing:
// first the synthetic rows {task: vr.get(task, 0), rollout: vr.get(rollout,
// 0)} are indexed (duplicates raise ValueError), then the results, whose
// missing indices raise KeyError.
func indexRollouts(vrs []pyjson.Value) ([]entry, error) {
	entries := make([]entry, len(vrs))
	seen := make(map[[2]canon]struct{}, len(vrs))
	zero := pyjson.NumberValue("0")
	for i, vr := range vrs {
		t, ok := vr.Get(TaskIndexKey)
		if !ok {
			t = zero
		}
		r, ok := vr.Get(RolloutIndexKey)
		if !ok {
			r = zero
		}
		tk, err := makeKey(t)
		if err != nil {
			return nil, err
		}
		rk, err := makeKey(r)
		if err != nil {
			return nil, err
		}
		k := [2]canon{tk.canon, rk.canon}
		if _, dup := seen[k]; dup {
			return nil, pyErr("ValueError", "Duplicate materialized input row for rollout key ("+pyjson.Repr(t)+", "+pyjson.Repr(r)+")")
		}
		seen[k] = struct{}{}
		entries[i] = entry{idx: i, task: t, rollout: r, tkey: tk, rkey: rk}
	}
	for _, vr := range vrs {
		if _, ok := vr.Get(TaskIndexKey); !ok {
			return nil, pyErr("KeyError", TaskIndexKey)
		}
		if _, ok := vr.Get(RolloutIndexKey); !ok {
			return nil, pyErr("KeyError", RolloutIndexKey)
		}
	}
	return entries, nil
}

// sortEntries returns the entries in (task, rollout) order, as Python sorts
// the rollout-key tuples. It sorts indices to keep the swaps cheap.
func sortEntries(entries []entry) ([]entry, error) {
	order := make([]int32, len(entries))
	for i := range order {
		order[i] = int32(i)
	}
	var cmpErr error
	slices.SortFunc(order, func(i, j int32) int {
		a, b := &entries[i], &entries[j]
		if a.tkey.canon != b.tkey.canon {
			c, ok := compareKeys(a.tkey, b.tkey)
			if !ok && cmpErr == nil {
				cmpErr = pyErr("TypeError", "'<' not supported between instances of '"+pyTypeName(a.task)+"' and '"+pyTypeName(b.task)+"'")
			}
			return c
		}
		c, ok := compareKeys(a.rkey, b.rkey)
		if !ok && cmpErr == nil {
			cmpErr = pyErr("TypeError", "'<' not supported between instances of '"+pyTypeName(a.rollout)+"' and '"+pyTypeName(b.rollout)+"'")
		}
		return c
	})
	if cmpErr != nil {
		return nil, cmpErr
	}
	sorted := make([]entry, len(entries))
	for i, k := range order {
		sorted[i] = entries[k]
	}
	return sorted, nil
}

// rolloutInfo is RewardProfiler.rollout_info_from_result. It also returns
// the element's usage object (empty when absent or falsy).
func rolloutInfo(vr pyjson.Value, e entry) (pyjson.Value, pyjson.Value, error) {
	// (result.get("response") or {}).get("usage") or {}
	usage := pyjson.ObjectValue()
	if resp, ok := vr.Get("response"); ok && truthy(resp) {
		if resp.Kind != pyjson.Object {
			return pyjson.Value{}, pyjson.Value{}, pyErr("AttributeError", "'"+pyTypeName(resp)+"' object has no attribute 'get'")
		}
		if u, ok := resp.Get("usage"); ok && truthy(u) {
			if u.Kind != pyjson.Object {
				return pyjson.Value{}, pyjson.Value{}, pyErr("AttributeError", "'"+pyTypeName(u)+"' object has no attribute 'items'")
			}
			usage = u
		}
	}
	size := 4
	for _, m := range usage.Members {
		if isNumeric(m.Value) {
			size++
		}
	}
	for _, m := range vr.Members {
		if isNumeric(m.Value) {
			size++
		}
	}

	o := newOmap(size)
	o.append("rollout_id", pyjson.StringValue(pyStr(e.task)+":"+pyStr(e.rollout)))
	o.append(TaskIndexKey, e.task)
	o.append(RolloutIndexKey, e.rollout)
	if reward, ok := vr.Get("reward"); ok {
		o.append("reward", reward)
	}
	for _, m := range usage.Members {
		if isNumeric(m.Value) {
			o.set(m.Key, boolToInt(m.Value))
		}
	}
	for _, m := range vr.Members {
		switch m.Key {
		case TaskIndexKey, RolloutIndexKey, "reward", "response":
			continue
		}
		if isNumeric(m.Value) {
			o.set(m.Key, boolToInt(m.Value))
		}
	}
	return o.value(), usage, nil
}

// isNumeric reports whether Python's isinstance(v, (int, float)) holds for
// the value json.loads makes of v (bools included).
func isNumeric(v pyjson.Value) bool { return v.Kind == pyjson.Number || v.Kind == pyjson.Bool }

// boolToInt turns a bool into the int 1 or 0, as int(v) does; numbers pass.
func boolToInt(v pyjson.Value) pyjson.Value {
	if v.Kind != pyjson.Bool {
		return v
	}
	if v.Bool {
		return pyjson.NumberValue("1")
	}
	return pyjson.NumberValue("0")
}

// mergeCustom applies compute_aggregate_metrics' handling of the
// compute_metrics result: per_task_metrics is popped and merged into the
// groups by task index, the rest updates agent_metrics.
func mergeCustom(custom pyjson.Value, groups []*omap, agent *omap) error {
	if custom.Kind != pyjson.Object {
		return pyErr("AttributeError", "'"+pyTypeName(custom)+"' object has no attribute 'pop'")
	}
	var ptm pyjson.Value
	rest := make([]pyjson.Member, 0, len(custom.Members))
	for _, m := range custom.Members {
		if m.Key == PerTaskMetricsKey {
			ptm = m.Value
			continue
		}
		rest = append(rest, m)
	}
	if truthy(ptm) {
		var items []pyjson.Value
		switch ptm.Kind {
		case pyjson.Array:
			items = ptm.Items
		case pyjson.Object, pyjson.String:
			// Iterating a dict or str yields strings; str["..."] fails.
			return pyErr("TypeError", "string indices must be integers, not 'str'")
		default:
			return pyErr("TypeError", "'"+pyTypeName(ptm)+"' object is not iterable")
		}
		byIdx := make(map[canon]pyjson.Value, len(items))
		for _, m := range items {
			switch m.Kind {
			case pyjson.Object:
			case pyjson.String:
				return pyErr("TypeError", "string indices must be integers, not 'str'")
			case pyjson.Array:
				return pyErr("TypeError", "list indices must be integers or slices, not str")
			default:
				return pyErr("TypeError", "'"+pyTypeName(m)+"' object is not subscriptable")
			}
			t, ok := m.Get(TaskIndexKey)
			if !ok {
				return pyErr("KeyError", TaskIndexKey)
			}
			switch t.Kind {
			case pyjson.Array, pyjson.Object:
				return pyErr("TypeError", "unhashable type: '"+pyTypeName(t)+"'")
			}
			k, err := makeKey(t)
			if err != nil {
				continue // None or NaN: matches no group
			}
			byIdx[k.canon] = m
		}
		for _, g := range groups {
			t, _ := g.get(TaskIndexKey)
			k, err := makeKey(t)
			if err != nil {
				continue
			}
			m, ok := byIdx[k.canon]
			if !ok {
				continue
			}
			for _, mm := range m.Members {
				if mm.Key != TaskIndexKey {
					g.set(mm.Key, mm.Value)
				}
			}
		}
	}
	for _, m := range rest {
		agent.set(m.Key, m.Value)
	}
	return nil
}
