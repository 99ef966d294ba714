package config

import "slices"

// Resolved returns the merged configuration tree (the files, env.yaml and the
// overrides) with every ${...} interpolation resolved, as NeMo Gym's
// ng_dump_config prints it: mappings are map[string]any, lists []any,
// scalars as YAML decoded them. Nothing is masked or defaulted: secrets are
// in clear (a caller that prints them masks them; gymkit config does) and
// absent keys stay absent. The result is a fresh tree the caller may change.
//
// The error is [Problems], one per key that cannot be resolved; the keys
// that can are still returned. Once an interpolation goes past one of its
// bounds (see [Problem.ExceedsBound]), nothing more is resolved: that one
// problem stands for every key left out. It is safe for concurrent use.
func (c *Config) Resolved() (map[string]any, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]any{}
	var ps Problems
	for _, k := range sortedKeys(c.res.root) {
		v, _, err := c.res.lookup(keyPath{k})
		c.flush(&ps)
		if err != nil {
			if len(ps) == 0 && !c.res.spent {
				ps = append(ps, c.src.problem(k, "cannot be resolved: "+err.Error(), ""))
			}
			continue
		}
		out[k] = deepCopy(v)
	}
	if b := c.res.budget; b != nil && !slices.ContainsFunc(ps, Problem.ExceedsBound) {
		// Reached before (by Load or Lookup): every key left out is left out for it.
		p := c.src.problem(b.key, b.msg, b.suggestion)
		p.bound = true
		ps = append(ps, p)
	}
	return out, ps.err()
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = deepCopy(e)
		}
		return l
	}
	return v
}
