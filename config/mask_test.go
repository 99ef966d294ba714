package config

import "testing"

func TestMaskInternalErrorsKey(t *testing.T) {
	t.Parallel()
	dir := writeDir(t, map[string]string{"c.yaml": server("a", "mask_internal_errors: true") + server("b")})
	c := mustLoad(t, opts(dir, []string{"c.yaml"}))
	if a, _ := c.Instance("a"); !a.MaskInternalErrors {
		t.Error("a: mask_internal_errors: true not read")
	}
	if b, _ := c.Instance("b"); b.MaskInternalErrors {
		t.Error("b: masking is on by default")
	}
	dir = writeDir(t, map[string]string{"c.yaml": server("w", "mask_internal_errors: maybe")})
	if _, err := Load(opts(dir, []string{"c.yaml"})); err == nil {
		t.Error("mask_internal_errors: maybe was accepted")
	}
}
