package config

import "fmt"

// The defaults of the request parse and memory limits of a server block.
const (
	// DefaultMaxJSONDepth is max_json_depth's default and largest value:
	// arrays and objects nested 1000 deep, the JSON parser's own bound
	// (CPython's json.loads accepts somewhat deeper bodies, until its
	// RecursionError). NeMo Gym's real bodies nest 8 levels at most (the
	// goldens, the example rows).
	DefaultMaxJSONDepth = 1000
	// DefaultMaxJSONElements is max_json_elements's default: 2,000,000 JSON
	// values in one request body (a parse stopped there peaks at about 450
	// MB, against 1.7 GB for a 14 MiB body of 7M ints). The largest real
	// NeMo verify body of the goldens and example rows holds about 600
	// values; an RL verify body with token ids and log probabilities holds
	// one value per 3-7 bytes of JSON (8 turns of a 16k-token prompt: 0.9
	// MB, 300k values; 20 turns of 32k tokens, about 1M), and a body of
	// token ids within max_body_bytes' default 16 MiB holds under 2.4M.
	DefaultMaxJSONElements = 2_000_000
	// DefaultMaxInflightBodyBytes is max_inflight_body_bytes's default: 256
	// MiB of request bodies being read or held at once by one instance.
	DefaultMaxInflightBodyBytes = 256 << 20
)

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

// limitProblems defaults the limit keys in fw that data does not set (or
// sets to null), and reports the values out of range: max_json_depth
// between 1 and 1000, max_json_elements and max_inflight_body_bytes
// positive.
func (c *Config) limitProblems(bkey string, data map[string]any, fw *frameworkConfig, bad map[string]bool) Problems {
	set := func(k string) bool { _, ok := data[k]; return ok && !bad[k] }
	var ps Problems
	if !set("max_json_depth") {
		fw.MaxJSONDepth = DefaultMaxJSONDepth
	} else if fw.MaxJSONDepth < 1 || fw.MaxJSONDepth > DefaultMaxJSONDepth {
		ps = append(ps, c.src.problem(joinKey(bkey, "max_json_depth"),
			fmt.Sprintf("must be a nesting depth between 1 and %d (or null for the default, %d), got %d",
				DefaultMaxJSONDepth, DefaultMaxJSONDepth, fw.MaxJSONDepth), ""))
	}
	if !set("max_json_elements") {
		fw.MaxJSONElements = DefaultMaxJSONElements
	} else if fw.MaxJSONElements <= 0 {
		ps = append(ps, c.src.problem(joinKey(bkey, "max_json_elements"),
			fmt.Sprintf("must be a positive number of JSON values (or null for the default, %d), got %d",
				DefaultMaxJSONElements, fw.MaxJSONElements), ""))
	}
	if !set("max_inflight_body_bytes") {
		fw.MaxInflightBodyBytes = DefaultMaxInflightBodyBytes
	} else if fw.MaxInflightBodyBytes <= 0 {
		ps = append(ps, c.src.problem(joinKey(bkey, "max_inflight_body_bytes"),
			fmt.Sprintf("must be a positive number of bytes (or null for the default, 256 MiB), got %d", fw.MaxInflightBodyBytes), ""))
	}
	return ps
}
