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
	"net/http"
	"path/filepath"
	"strconv"
	"time"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/session"
)

// Name is the server type name under resources_servers.
const Name = "workplace_assistant"

func init() { framework.Register(Name, func() framework.Server { return New() }) }

// Defaults of the world lifetime keys.
const (
	DefaultWorldMaxIdle = time.Hour
	// DefaultMaxWorldBytes is the memory budget of the changed worlds kept
	// (max_world_bytes): 1 GiB, about 28,000 worlds of typical rollouts
	// (about 37 KB each).
	DefaultMaxWorldBytes = 1 << 30
	// DefaultMaxLiveWorlds is max_live_worlds' default: no count limit
	// (max_world_bytes bounds the worlds).
	DefaultMaxLiveWorlds = 0
)

// RetryAfter is the Retry-After of the 503 that refuses a new world when
// the world store is full.
const RetryAfter = 10 * time.Second

// Workplace is the server. Its config keys:
//
//	data_dir          the folder holding processed/ and raw/ (required)
//	tools_file        the JSON list of tool definitions exposed over MCP (required)
//	world_max_idle    drop a session's world after this idle time (default 1h; 0: never)
//	max_world_bytes   the estimated bytes of changed worlds kept at most; a tool call that
//	                  would change a new world beyond it answers 503 with Retry-After
//	                  (default 1 GiB; 0: no limit)
//	max_live_worlds   the number of changed worlds kept at most, refused beyond it as
//	                  above (default 0: no count limit)
//	keep_world_after_verify  keep a session's world after /verify (default false: dropped)
//	world_state       where a rollout's changed world lives: "memory" (in this process;
//	                  one replica) or "session" (its changes as a log in the session state
//	                  store, any replica; see below). Default: "session" when the host
//	                  shares the session state store (session.store: redis), else
//	                  "memory"; "memory" with a shared store is refused at start
//
// Under world_state: session (for replicas sharing session.store: redis,
// docs/deployment.md), each rollout's changes are a log of the tool calls
// that wrote, kept in the session state store under
// "workplace_assistant.changes" (see changeLog); every replica keeps the
// base tables and a small cache of worlds by session and log version, and
// rebuilds a world from the log when the store's version is not the cached
// one. There max_world_bytes and max_live_worlds bound that cache, evicting
// the least recently used world (rebuilt from the store on its next call):
// no call is refused 503, and the store's own limits (Redis maxmemory)
// bound the logs.
//
// data_dir and tools_file are config.Path values: relative ones resolve
// against the server folder, servers/workplace_assistant/ for the shipped
// configs/workplace_assistant.yaml, and against the working directory when
// set elsewhere (NEMO_GYM_CONFIG_DICT, the command line; see config.Path).
// A relative value set in Go, not through the config, resolves against the
// working directory in Provision.
type Workplace struct {
	framework.Base
	DataDir              config.Path   `koanf:"data_dir"`
	ToolsFile            config.Path   `koanf:"tools_file"`
	WorldMaxIdle         time.Duration `koanf:"world_max_idle"`
	MaxLiveWorlds        int           `koanf:"max_live_worlds"`
	MaxWorldBytes        int64         `koanf:"max_world_bytes"`
	KeepWorldAfterVerify bool          `koanf:"keep_world_after_verify"`
	WorldState           string        `koanf:"world_state"`

	data   *dataset
	specs  []toolSpec
	worlds *worldStore
	cache  *worldCache      // world_state: session
	now    func() time.Time // the store's clock (tests)
}

// New returns a server with the default lifetime settings.
func New() *Workplace {
	return &Workplace{WorldMaxIdle: DefaultWorldMaxIdle, MaxLiveWorlds: DefaultMaxLiveWorlds, MaxWorldBytes: DefaultMaxWorldBytes}
}

var (
	_ framework.Provisioner    = (*Workplace)(nil)
	_ framework.ToolsProvider  = (*Workplace)(nil)
	_ framework.SeedToolFilter = (*Workplace)(nil)
	_ framework.SessionCloser  = (*Workplace)(nil)
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
	dir, err := filepath.Abs(string(s.DataDir))
	if err != nil {
		return fmt.Errorf("data_dir: %w", err)
	}
	if s.data, err = loadDataset(dir); err != nil {
		return fmt.Errorf("data_dir %s: %w", dir, err)
	}
	toolsFile, err := filepath.Abs(string(s.ToolsFile))
	if err != nil {
		return fmt.Errorf("tools_file: %w", err)
	}
	if s.specs, err = loadToolSpecs(toolsFile); err != nil {
		return fmt.Errorf("tools_file %s: %w", toolsFile, err)
	}
	if s.WorldMaxIdle < 0 || s.MaxLiveWorlds < 0 || s.MaxWorldBytes < 0 {
		return errors.New("world_max_idle, max_live_worlds and max_world_bytes must not be negative")
	}
	now := s.now
	if now == nil {
		now = time.Now
	}
	if s.WorldState == "" {
		s.WorldState = WorldStateMemory
		if s.SharedSessionState() {
			s.WorldState = WorldStateSession
		}
	}
	switch s.WorldState {
	case WorldStateMemory:
		if s.SharedSessionState() {
			return errors.New(`world_state: memory keeps each rollout's world in one process, but session.store is shared (redis): ` +
				`a rollout's calls reach any replica, and each replica would answer from its own world; ` +
				`use world_state: session (the default with session.store: redis), or session.store: memory for one replica`)
		}
	case WorldStateSession:
		s.cache = newWorldCache(s.WorldMaxIdle, s.MaxLiveWorlds, s.MaxWorldBytes, now)
	default:
		return fmt.Errorf("world_state: %q is not memory or session", s.WorldState)
	}
	s.worlds = newWorldStore(s.WorldMaxIdle, s.MaxLiveWorlds, s.MaxWorldBytes, now)
	s.Logger().Debug("workplace data loaded", "data_dir", dir, "tools", len(s.specs),
		"world_max_idle", s.WorldMaxIdle.String(), "max_world_bytes", s.MaxWorldBytes,
		"max_live_worlds", s.MaxLiveWorlds)
	return nil
}

// loadToolSpecs reads the tools file: a JSON list of {"type":"function",
// "name", "description", "parameters", ...}, each naming one of the 27 tools.
func loadToolSpecs(path string) ([]toolSpec, error) {
	b, err := config.Path(path).ReadFile(0) // a regular file of at most config.MaxDataFileBytes
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

// AllowedToolsForSeed narrows a rollout's MCP tools to
// verifier_metadata.allowed_tools of the seed body when it is there (a list
// of tool names); absent or null, the rollout is unrestricted. It reads
// that one key of the row (framework.SeedBody.Get), not the rest of it.
func (s *Workplace) AllowedToolsForSeed(_ context.Context, seed *framework.SeedBody) ([]string, error) {
	meta, ok := seed.Get("verifier_metadata")
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

// worldKey is the session state key of a rollout's seed mark.
const worldKey = "workplace_assistant.world"

// A seedMark, kept in the session state under worldKey, is what a session
// remembers of its seed: a few bytes, so that a seed allocates no world.
type seedMark int

const (
	// markNone: never seeded, or released by /verify.
	markNone seedMark = iota
	// markFresh: seeded, no tool has changed the world since: the world
	// is the shared base, built afresh for each call.
	markFresh
	// markChanged: a tool changed the world, which the world store keeps
	// until verify, idle expiry or Release; once dropped, calls answer
	// "Session not initialized" as before.
	markChanged
)

// seed marks the session seeded and drops any world it had: the world is
// created by the first tool call that changes it (dispatch).
func (s *Workplace) seed(ctx context.Context, _ seedRequest) (struct{}, error) {
	id := session.ID(ctx)
	if id == "" {
		return struct{}{}, errors.New("no rollout session in the request context")
	}
	if s.cache != nil {
		return struct{}{}, s.seedSession(ctx, id)
	}
	// Writing the mark also keeps the session for its full lifetime.
	if err := session.Update(ctx, worldKey, func(m *seedMark) error { *m = markFresh; return nil }); err != nil {
		return struct{}{}, err
	}
	s.worlds.drop(id)
	return struct{}{}, nil
}

// output is the 200 body of every tool call.
type output struct {
	Output value `json:"output"`
}

var errNotSeeded = framework.Errorf(400, "Session not initialized. Please call seed_session first.")

// fullError is the retryable 503 refusing a new world: limit names the
// config key that is reached.
func fullError(limit string) error {
	return &framework.Error{Status: 503,
		Detail: fmt.Sprintf("Too many live rollouts: %s is reached (the worlds of other rollouts are kept, not evicted); retry after %d s", limit, int(RetryAfter/time.Second)),
		Header: http.Header{"Retry-After": {strconv.Itoa(int(RetryAfter / time.Second))}}}
}

// dispatch is POST /{tool}: the session's world, the body's non-null
// members as keyword arguments, and any exception turned into the output
// text "Error executing tool '<tool>': <str(e)>".
//
// A session with a kept world runs on it. A seeded session without one runs
// on a fresh world over the base tables; if the tool changed it, the world
// is kept from then on (or, the store being full, refused with a 503 and the
// change discarded). Any other session answers 400 "Session not
// initialized".
func (s *Workplace) dispatch(ctx context.Context, tool string, raw json.RawMessage) (any, error) {
	body, err := framework.ParseJSON(raw)
	if err != nil {
		return nil, err // the framework parsed it already
	}
	members := nonNull(body)
	id := session.ID(ctx)
	if id == "" {
		return nil, errNotSeeded
	}
	if s.cache != nil {
		return s.dispatchSession(ctx, id, tool, raw, members)
	}
	for {
		if w := s.worlds.get(id); w != nil {
			out, wrote, err := w.callBefore(ctx, tool, members)
			if errors.Is(err, context.DeadlineExceeded) {
				return nil, err // answered 504 already: the world is not written
			}
			if wrote {
				s.worlds.resize(id, w)
			}
			return toolOutput(tool, out, err), nil
		}
		mark, _, err := session.Get[seedMark](ctx, worldKey)
		if err != nil {
			return nil, err
		}
		if mark == markChanged && s.worlds.get(id) != nil {
			continue // a parallel call kept the world after this one looked: run on it
		}
		if mark != markFresh {
			return nil, errNotSeeded
		}
		w := s.data.newWorld()
		out, wrote, err := w.callTracked(tool, members)
		if !wrote {
			return toolOutput(tool, out, err), nil
		}
		existing, addErr := s.worlds.add(id, w)
		if limit, full := isStoreFull(addErr); full {
			return nil, fullError(limit)
		}
		if existing != nil {
			continue // a parallel call kept the session's world first: run on it
		}
		if err := session.Update(ctx, worldKey, func(m *seedMark) error {
			if *m == markNone {
				// Verified or closed while this call ran: endRollout has
				// cleared the mark, and may have freed the world before add
				// kept it. Keep nothing, as a call after the end would.
				return errNotSeeded
			}
			*m = markChanged
			return nil
		}); err != nil {
			s.worlds.drop(id)
			return nil, err
		}
		return toolOutput(tool, out, err), nil
	}
}

// toolOutput is the 200 answer of a call: the tool's result, or the
// exception's text.
func toolOutput(tool string, out value, err error) output {
	if err != nil {
		return output{vStr("Error executing tool '" + tool + "': " + err.Error())}
	}
	return output{out}
}

// LiveWorlds returns the number of session worlds held in memory (under
// world_state: session, the worlds in this replica's cache; otherwise the
// changed ones: an untouched seed holds none).
func (s *Workplace) LiveWorlds() int {
	if s.cache != nil {
		n, _ := s.cache.stats()
		return n
	}
	if s.worlds == nil {
		return 0
	}
	n, _ := s.worlds.stats()
	return n
}

// WorldBytes returns the estimated bytes of the session worlds held in
// memory, as max_world_bytes counts them.
func (s *Workplace) WorldBytes() int64 {
	if s.cache != nil {
		_, n := s.cache.stats()
		return n
	}
	if s.worlds == nil {
		return 0
	}
	_, n := s.worlds.stats()
	return n
}

// Close is the POST /close_session hook: it clears the rollout's seed mark
// and frees its world, as verify does (so that a tool call in flight keeps
// no world after the close); the host then deletes the session's state, so
// a later call of that session answers "Session not initialized" as an
// unseeded one does. It fails only with the state store's error, and is
// idempotent.
func (s *Workplace) Close(ctx context.Context) error {
	return s.endRollout(ctx)
}

// ReleaseWorld frees the world of the session sessionID, if it has one (the
// Close hook calls it). Its seed mark stays: a later call of that session
// then answers "Session not initialized" if the world had changed.
func (s *Workplace) ReleaseWorld(sessionID string) {
	if s.cache != nil {
		s.cache.drop(sessionID)
	}
	if s.worlds != nil {
		s.worlds.Release(sessionID)
	}
}
