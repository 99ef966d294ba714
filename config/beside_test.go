package config_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/config"
)

// TestKeyBesideResourcesServers: an instance-level key (often an override
// like weather.port=8000) is a problem naming where it belongs, not ignored.
func TestKeyBesideResourcesServers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "w.yaml")
	yaml := "weather:\n  resources_servers:\n    example_mcp_weather:\n      domain: agent\n"
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := config.Load(config.LoadOptions{Files: []string{path}, WorkDir: dir, Overrides: []string{"weather.port=8000"}})
	var ps config.Problems
	if !errors.As(err, &ps) || len(ps) != 1 {
		t.Fatalf("got %v, want one problem", err)
	}
	msg := ps[0].Error()
	for _, want := range []string{"weather.port", "unknown key beside resources_servers", "did you mean `weather.resources_servers.example_mcp_weather.port`"} {
		if !strings.Contains(msg, want) {
			t.Errorf("problem %q does not contain %q", msg, want)
		}
	}
}

// TestTopLevelNearMiss: a top-level value whose name is a near miss of a
// setting gymkit reads (default_hots) is a problem, not silently ignored;
// other free values (interpolation sources) are fine.
func TestTopLevelNearMiss(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "w.yaml")
	yaml := "policy_base_url: http://x\nweather:\n  resources_servers:\n    example_mcp_weather:\n      domain: agent\n"
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := config.Load(config.LoadOptions{Files: []string{path}, WorkDir: dir, Overrides: []string{"default_hots=0.0.0.0"}})
	var ps config.Problems
	if !errors.As(err, &ps) || len(ps) != 1 || !strings.Contains(ps[0].Error(), "did you mean `default_host`") {
		t.Fatalf("got %v, want one problem suggesting default_host", err)
	}
}
