package config

import (
	"strings"
	"testing"
)

func TestLimitKeys(t *testing.T) {
	t.Parallel()
	dir := writeDir(t, map[string]string{"c.yaml": server("a", "max_json_depth: 64", "max_json_elements: 5000",
		"max_inflight_body_bytes: 1048576") + server("b", "max_json_depth: null", "max_json_elements: null", "max_inflight_body_bytes: null")})
	c := mustLoad(t, opts(dir, []string{"c.yaml"}))
	a, _ := c.Instance("a")
	if a.MaxJSONDepth != 64 || a.MaxJSONElements != 5000 || a.MaxInflightBodyBytes != 1<<20 {
		t.Errorf("a: depth %d, elements %d, inflight %d; want 64, 5000, 1048576", a.MaxJSONDepth, a.MaxJSONElements, a.MaxInflightBodyBytes)
	}
	b, _ := c.Instance("b")
	if b.MaxJSONDepth != DefaultMaxJSONDepth || b.MaxJSONElements != DefaultMaxJSONElements || b.MaxInflightBodyBytes != DefaultMaxInflightBodyBytes {
		t.Errorf("b (null): depth %d, elements %d, inflight %d; want the defaults", b.MaxJSONDepth, b.MaxJSONElements, b.MaxInflightBodyBytes)
	}
}

func TestLimitProblems(t *testing.T) {
	t.Parallel()
	const blk = "w.resources_servers.w"
	for _, tt := range []struct{ line, key, message string }{
		{"max_json_depth: 0", "max_json_depth", "must be a nesting depth between 1 and 1000"},
		{"max_json_depth: 1001", "max_json_depth", "must be a nesting depth between 1 and 1000"},
		{"max_json_depth: deep", "max_json_depth", "expected an integer"},
		{"max_json_elements: -1", "max_json_elements", "must be a positive number of JSON values"},
		{"max_inflight_body_bytes: 0", "max_inflight_body_bytes", "must be a positive number of bytes"},
	} {
		t.Run(tt.line, func(t *testing.T) {
			t.Parallel()
			if p, _ := loadProblem(t, server("w", tt.line), blk+"."+tt.key); !strings.Contains(p.Message, tt.message) {
				t.Errorf("problem = %+v, want %q", p, tt.message)
			}
		})
	}
}
