// Package workplace is NeMo Gym's workplace_assistant resources server in
// gymkit: 27 tools over a simulated company (emails, calendar, web analytics,
// project tasks, CRM, a staff directory) loaded from the NeMo Gym CSV data,
// one copy-on-write world per rollout session, and a verifier that replays
// the model's calls and the ground truth on two fresh worlds and compares
// the resulting tables. Behaviour, byte for byte:
// ../shared/spec/workplace-assistant.md.
//
// The server is a dispatcher (framework.Dispatch): POST /<tool> with the
// arguments as a JSON object answers 200 {"output": ...}, whatever the tool
// did, as the Python original does.
//
//	POST /seed_session                      -> {}
//	POST /email_send_email {"recipient":"a@b.co","subject":"s","body":"b"}
//	                                        -> {"output":"Email sent successfully."}
//	POST /verify {responses_create_params, response, ground_truth, id, category, environment_name}
//	                                        -> {"responses_create_params":...,"response":...,"reward":1.0}
package workplace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/session"
)

// Name is the server type name under resources_servers.
const Name = "workplace_assistant"

func init() { framework.Register(Name, func() framework.Server { return New() }) }

// Defaults of the world lifetime keys.
const (
	DefaultWorldMaxIdle  = time.Hour
	DefaultMaxLiveWorlds = 10000
)

// Workplace is the server. Its config keys:
//
//	data_dir          the folder holding processed/ and raw/ (required)
//	tools_file        the JSON list of tool definitions exposed over MCP (required)
//	world_max_idle    drop a session's world after this idle time (default 1h; 0: never)
//	max_live_worlds   keep at most this many worlds, least recently used dropped first
//	                  (default 10000; 0: no limit)
//	keep_world_after_verify  keep a session's world after /verify (default false: dropped)
//
// Relative paths resolve against the working directory.
type Workplace struct {
	framework.Base
	DataDir              string        `koanf:"data_dir"`
	ToolsFile            string        `koanf:"tools_file"`
	WorldMaxIdle         time.Duration `koanf:"world_max_idle"`
	MaxLiveWorlds        int           `koanf:"max_live_worlds"`
	KeepWorldAfterVerify bool          `koanf:"keep_world_after_verify"`

	data   *dataset
	specs  []toolSpec
	worlds *worldStore
	now    func() time.Time // the store's clock (tests)
}

// New returns a server with the default lifetime settings.
func New() *Workplace {
	return &Workplace{WorldMaxIdle: DefaultWorldMaxIdle, MaxLiveWorlds: DefaultMaxLiveWorlds}
}

var (
	_ framework.Provisioner       = (*Workplace)(nil)
	_ framework.ToolsProvider     = (*Workplace)(nil)
	_ framework.SessionToolFilter = (*Workplace)(nil)
)

// toolSpec is one entry of the tools file.
type toolSpec struct {
	Name        string
	Description string
	Parameters  json.RawMessage
}

// Provision loads the CSV data and the tool definitions once; every world
// shares them.
func (s *Workplace) Provision(context.Context) error {
	if s.DataDir == "" {
		return errors.New("data_dir is required: the folder holding processed/ and raw/")
	}
	if s.ToolsFile == "" {
		return errors.New("tools_file is required: the JSON list of the tool definitions")
	}
	dir, err := filepath.Abs(s.DataDir)
	if err != nil {
		return fmt.Errorf("data_dir: %w", err)
	}
	if s.data, err = loadDataset(dir); err != nil {
		return fmt.Errorf("data_dir %s: %w", dir, err)
	}
	toolsFile, err := filepath.Abs(s.ToolsFile)
	if err != nil {
		return fmt.Errorf("tools_file: %w", err)
	}
	if s.specs, err = loadToolSpecs(toolsFile); err != nil {
		return fmt.Errorf("tools_file %s: %w", toolsFile, err)
	}
	if s.WorldMaxIdle < 0 || s.MaxLiveWorlds < 0 {
		return errors.New("world_max_idle and max_live_worlds must not be negative")
	}
	now := s.now
	if now == nil {
		now = time.Now
	}
	s.worlds = newWorldStore(s.WorldMaxIdle, s.MaxLiveWorlds, now)
	s.Logger().Debug("workplace data loaded", "data_dir", dir, "tools", len(s.specs),
		"world_max_idle", s.WorldMaxIdle.String(), "max_live_worlds", s.MaxLiveWorlds)
	return nil
}

// loadToolSpecs reads the tools file: a JSON list of {"type":"function",
// "name", "description", "parameters", ...}, each naming one of the 27 tools.
func loadToolSpecs(path string) ([]toolSpec, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	v, err := framework.ParseJSON(b)
	if err != nil {
		return nil, err
	}
	if v.Kind != framework.KindArray {
		return nil, errors.New("want a JSON list of tool definitions")
	}
	var specs []toolSpec
	seen := map[string]bool{}
	for i, it := range v.Items {
		name, _ := it.Get("name")
		desc, _ := it.Get("description")
		params, ok := it.Get("parameters")
		if name.Kind != framework.KindString || !ok || params.Kind != framework.KindObject {
			return nil, fmt.Errorf("entry %d: want a name and a parameters object", i)
		}
		if toolByName[name.Str] == nil {
			return nil, fmt.Errorf("entry %d: unknown tool %q", i, name.Str)
		}
		if seen[name.Str] {
			return nil, fmt.Errorf("entry %d: tool %q listed twice", i, name.Str)
		}
		seen[name.Str] = true
		raw, err := framework.MarshalJSON(params, framework.JSONPython)
		if err != nil {
			return nil, fmt.Errorf("entry %d: %w", i, err)
		}
		d := ""
		if desc.Kind == framework.KindString {
			d = desc.Str
		}
		specs = append(specs, toolSpec{Name: name.Str, Description: d, Parameters: raw})
	}
	return specs, nil
}

// Routes declares the catch-all tool route, the seed and verify.
func (s *Workplace) Routes(r *framework.Router) {
	framework.Dispatch(r, s.dispatch)
	framework.SeedSession(r, s.seed)
	framework.Verify(r, s.verify)
}

// Tools exposes the tools of the tools file over MCP, in file order, through
// the dispatcher (NeMo's mcp_tools override).
func (s *Workplace) Tools(harvested []framework.Tool, catchall *framework.CatchAll) []framework.Tool {
	out := append([]framework.Tool(nil), harvested...)
	for _, sp := range s.specs {
		out = append(out, catchall.Tool(sp.Name, sp.Parameters, sp.Description))
	}
	return out
}

// AllowedToolsForSession narrows a rollout's MCP tools to
// verifier_metadata.allowed_tools of the seed body when it is there (a list
// of tool names); absent or null, the rollout is unrestricted.
func (s *Workplace) AllowedToolsForSession(_ context.Context, seedBody json.RawMessage) ([]string, error) {
	if len(seedBody) == 0 {
		return nil, nil
	}
	body, err := framework.ParseJSON(seedBody)
	if err != nil || body.Kind != framework.KindObject {
		return nil, nil
	}
	meta, ok := body.Get("verifier_metadata")
	if !ok || meta.Kind == framework.KindNull {
		return nil, nil
	}
	if meta.Kind != framework.KindObject {
		return nil, fmt.Errorf("verifier_metadata must be an object, got %s", framework.PythonTypeName(meta))
	}
	list, ok := meta.Get("allowed_tools")
	if !ok || list.Kind == framework.KindNull {
		return nil, nil
	}
	if list.Kind != framework.KindArray {
		return nil, fmt.Errorf("verifier_metadata.allowed_tools must be a list of tool names, got %s", framework.PythonTypeName(list))
	}
	names := make([]string, 0, len(list.Items))
	for _, it := range list.Items {
		if it.Kind != framework.KindString {
			return nil, fmt.Errorf("verifier_metadata.allowed_tools must hold strings, got %s", framework.PythonTypeName(it))
		}
		names = append(names, it.Str)
	}
	return names, nil
}

// seedRequest is any JSON object (the dataset row); nothing in it is used.
type seedRequest struct{}

// seed gives the session a fresh world, replacing any world it had.
func (s *Workplace) seed(ctx context.Context, _ seedRequest) (struct{}, error) {
	id := session.ID(ctx)
	if id == "" {
		return struct{}{}, errors.New("no rollout session in the request context")
	}
	// The world lives in process memory keyed by the id, not in the state
	// store: keep the session for its full lifetime (session.Keep).
	if err := session.Keep(ctx); err != nil {
		return struct{}{}, err
	}
	s.worlds.put(id, s.data.newWorld())
	return struct{}{}, nil
}

// output is the 200 body of every tool call.
type output struct {
	Output value `json:"output"`
}

var errNotSeeded = framework.Errorf(400, "Session not initialized. Please call seed_session first.")

// dispatch is POST /{tool}: the session's world, the body's non-null
// members as keyword arguments, and any exception turned into the output
// text "Error executing tool '<tool>': <str(e)>".
func (s *Workplace) dispatch(ctx context.Context, tool string, raw json.RawMessage) (any, error) {
	w := s.worlds.get(session.ID(ctx))
	if w == nil {
		return nil, errNotSeeded
	}
	body, err := framework.ParseJSON(raw)
	if err != nil {
		return nil, err // the framework parsed it already
	}
	members := make([]framework.Member, 0, len(body.Members))
	for _, m := range body.Members {
		if m.Value.Kind != framework.KindNull {
			members = append(members, m)
		}
	}
	out, err := w.call(tool, members)
	if err != nil {
		return output{vStr("Error executing tool '" + tool + "': " + err.Error())}, nil
	}
	return output{out}, nil
}

// LiveWorlds returns the number of session worlds held in memory.
func (s *Workplace) LiveWorlds() int {
	if s.worlds == nil {
		return 0
	}
	return s.worlds.live()
}
