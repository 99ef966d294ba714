package config

import "fmt"

// limitKeys are the limit keys of a server block; null means the default.
var limitKeys = []string{"max_json_depth", "max_json_elements", "max_inflight_body_bytes"}

// dropNullLimits deletes the limit keys set to null from data: null means
// the default.
func dropNullLimits(data map[string]any) {
	for _, k := range limitKeys {
		if v, ok := data[k]; ok && v == nil {
			delete(data, k)
		}
	}
}

// limitProblems reports the limit keys of data set out of range:
// max_json_depth between 1 and 1000, max_json_elements and
// max_inflight_body_bytes positive. A key not set (or set to null) keeps
// its default in fw.
func (c *Config) limitProblems(bkey string, data map[string]any, fw *Instance, bad map[string]bool) Problems {
	set := func(k string) bool { _, ok := data[k]; return ok && !bad[k] }
	var ps Problems
	if set("max_json_depth") && (fw.MaxJSONDepth < 1 || fw.MaxJSONDepth > DefaultMaxJSONDepth) {
		ps = append(ps, c.src.problem(joinKey(bkey, "max_json_depth"),
			fmt.Sprintf("must be a nesting depth between 1 and %d (or null for the default, %d), got %d",
				DefaultMaxJSONDepth, DefaultMaxJSONDepth, fw.MaxJSONDepth), ""))
	}
	if set("max_json_elements") && fw.MaxJSONElements <= 0 {
		ps = append(ps, c.src.problem(joinKey(bkey, "max_json_elements"),
			fmt.Sprintf("must be a positive number of JSON values (or null for the default, %d), got %d",
				DefaultMaxJSONElements, fw.MaxJSONElements), ""))
	}
	if set("max_inflight_body_bytes") && fw.MaxInflightBodyBytes <= 0 {
		ps = append(ps, c.src.problem(joinKey(bkey, "max_inflight_body_bytes"),
			fmt.Sprintf("must be a positive number of bytes (or null for the default, 256 MiB), got %d", fw.MaxInflightBodyBytes), ""))
	}
	return ps
}
