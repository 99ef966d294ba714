package rollout_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/rollout"
	_ "github.com/gymkit/gymkit/servers/workplace_assistant"
)

// configPath is the absolute path of a shipped environment's config.
func configPath(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "servers", name, "configs", name+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// sharedData is the absolute path of a file of NeMo Gym's example data.
func sharedData(t *testing.T, rel string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "shared", "data", "nemo-gym", rel))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func start(t *testing.T, opts rollout.EmbedOptions) *rollout.Embedded {
	t.Helper()
	opts.WorkDir = t.TempDir() // no env.yaml
	e, err := rollout.Start(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// Acceptance: the five ground-truth rows of NeMo Gym's workplace_assistant
// example data score 1.0 through both doors of an in-process instance. The
// shipped config serves as it is from a temporary working directory: its
// relative data_dir and tools_file resolve against its server folder.
func TestWorkplaceGroundTruthBothDoors(t *testing.T) {
	t.Parallel()
	e := start(t, rollout.EmbedOptions{Files: []string{configPath(t, "workplace_assistant")}})
	for _, door := range []rollout.Door{rollout.DoorHTTP, rollout.DoorMCP} {
		t.Run(string(door), func(t *testing.T) {
			t.Parallel()
			r := collect(t, rollout.Options{Input: sharedData(t, "workplace_assistant/example.jsonl"), URL: e.URL, Door: door, Instance: e.Instance.Name})
			if r.err != nil || r.sum.Total != 5 || r.sum.Succeeded != 5 {
				t.Fatalf("err %v, summary %+v\n%s", r.err, r.sum, r.stdout)
			}
			for _, res := range r.results {
				if got := jsonText(t, field(t, res, "reward")); got != "1.0" {
					t.Errorf("task %s: reward %s", jsonText(t, field(t, res, "_ng_task_index")), got)
				}
				name := field(t, res, "response", "output", 0, "name").Str
				if door == rollout.DoorMCP && !strings.HasPrefix(name, "mcp__workplace_assistant__") || door == rollout.DoorHTTP && strings.HasPrefix(name, "mcp__") {
					t.Errorf("recorded name %q on the %s door", name, door)
				}
			}
			if got := jsonText(t, r.sum.Agents[0].KeyMetrics); got != `{"mean/reward":1.0}` {
				t.Errorf("key metrics %s", got)
			}
		})
	}
}

// Start serves a configured instance in process: both doors work, on a
// loopback port whatever the configured host and port.
func TestStartWeather(t *testing.T) {
	t.Parallel()
	e := start(t, rollout.EmbedOptions{
		Files:     []string{configPath(t, "example_mcp_weather")},
		Overrides: []string{"example_mcp_weather.resources_servers.example_mcp_weather.host=0.0.0.0", "example_mcp_weather.resources_servers.example_mcp_weather.port=1"},
	})
	if !strings.HasPrefix(e.URL, "http://127.0.0.1:") || e.Instance.Name != "example_mcp_weather" {
		t.Fatalf("URL %s, instance %s", e.URL, e.Instance.Name)
	}
	for _, door := range []rollout.Door{rollout.DoorHTTP, rollout.DoorMCP} {
		r := collect(t, rollout.Options{Input: weatherRows, URL: e.URL, Door: door, Instance: e.Instance.Name})
		if r.err != nil || r.sum.Succeeded != 5 {
			t.Fatalf("%s: err %v, summary %+v", door, r.err, r.sum)
		}
	}
}

func TestStartSelectsInstance(t *testing.T) {
	t.Parallel()
	files := []string{configPath(t, "example_mcp_weather"), configPath(t, "example_session_state_mgmt")}
	_, err := rollout.Start(context.Background(), rollout.EmbedOptions{Files: files, WorkDir: t.TempDir()})
	var ue *rollout.UsageError
	if !errors.As(err, &ue) || err.Error() != "the configuration has 2 instances (example_mcp_weather, example_session_state_mgmt_resources_server): choose one with --instance NAME" {
		t.Errorf("no --instance: %v", err)
	}
	_, err = rollout.Start(context.Background(), rollout.EmbedOptions{Files: files, WorkDir: t.TempDir(), Instance: "example_mcp_wether"})
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), `no instance "example_mcp_wether" in the configuration; its instances: example_mcp_weather, example_session_state_mgmt_resources_server (did you mean "example_mcp_weather"?)`) {
		t.Errorf("unknown --instance: %v", err)
	}
	e := start(t, rollout.EmbedOptions{Files: files, Instance: "example_session_state_mgmt_resources_server"})
	if e.Instance.ServerType != "example_session_state_mgmt" {
		t.Errorf("started %s", e.Instance.ServerType)
	}
	_, err = rollout.Start(context.Background(), rollout.EmbedOptions{Files: files, WorkDir: t.TempDir(), Instance: "example_mcp_weather",
		Overrides: []string{"example_mcp_weather.resources_servers.example_mcp_weather.default_cty=Paris"}})
	var ps config.Problems
	if !errors.As(err, &ps) || !strings.Contains(err.Error(), "default_cty") {
		t.Errorf("unknown key: %v", err)
	}
}
