package config_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/gymkit/gymkit/config"
)

// Weather is a server type's configuration: its own keys, decoded strictly.
type Weather struct {
	DefaultCity string `koanf:"default_city"`
	Units       string `koanf:"units"`
}

func Example() {
	dir, _ := os.MkdirTemp("", "gymkit-config-example")
	defer os.RemoveAll(dir)
	_ = os.WriteFile(filepath.Join(dir, "weather.yaml"), []byte(`
example_mcp_weather:
  resources_servers:
    example_mcp_weather:
      entrypoint: app.py
      domain: agent
      expose_tools_over_mcp: true
      mcp_token_secret: ${oc.env:GYMKIT_MCP_TOKEN_SECRET,dev-secret}
      default_city: ${cities.home}
cities:
  home: Paris
`), 0o644)

	cfg, err := config.Load(config.LoadOptions{
		Files:     []string{"weather.yaml"},
		Overrides: []string{"example_mcp_weather.resources_servers.example_mcp_weather.port=9000"},
		WorkDir:   dir,
		LookupEnv: func(string) (string, bool) { return "", false },
	})
	if err != nil {
		fmt.Println(err) // config.Problems: every problem, one per line
		return
	}
	for _, inst := range cfg.Instances() {
		w := Weather{Units: "metric"} // defaults survive absent keys
		if err := inst.Decode(&w); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s (%s) on %s:%d, domain %s, mcp %v, secret %q\n",
			inst.Name, inst.ServerType, inst.Host, inst.Port, inst.Domain, inst.ExposeToolsOverMCP, inst.SessionSecrets[0])
		fmt.Printf("%+v\n", w)
	}

	// Output:
	// example_mcp_weather (example_mcp_weather) on 127.0.0.1:9000, domain agent, mcp true, secret "dev-secret"
	// {DefaultCity:Paris Units:metric}
}

// Mistakes are reported all at once, each with its file, line, key path and the closest known
// key or value; a command line tool prints the error and exits 2.
func Example_problems() {
	dir, _ := os.MkdirTemp("", "gymkit-config-example")
	defer os.RemoveAll(dir)
	_ = os.WriteFile(filepath.Join(dir, "weather.yaml"), []byte(`weather:
  resources_servers:
    example_mcp_weather:
      domain: agnet
      port: eighty
      defualt_city: Paris
`), 0o644)
	load := func(overrides ...string) (*config.Config, error) {
		return config.Load(config.LoadOptions{Files: []string{"weather.yaml"}, Overrides: overrides, WorkDir: dir})
	}

	_, err := load()
	fmt.Println(err)

	// Server-specific keys are checked when the server's struct is known.
	cfg, _ := load("weather.resources_servers.example_mcp_weather.domain=agent", "++weather.resources_servers.example_mcp_weather.port=8080")
	inst, _ := cfg.Instance("weather")
	fmt.Println(inst.Decode(&Weather{}))
	// Output:
	// config: 2 problems:
	//	weather.yaml:4: weather.resources_servers.example_mcp_weather.domain: unknown domain "agnet": one of math, coding, agent, knowledge, instruction_following, long_context, safety, games, translation, e2e, rlhf, other; did you mean `agent`?
	//	weather.yaml:5: weather.resources_servers.example_mcp_weather.port: expected an integer, got string "eighty"
	// config: weather.yaml:6: weather.resources_servers.example_mcp_weather.defualt_city: unknown key; did you mean `default_city`?
}
