package config

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/knadh/koanf/v2"
)

// Defaults NeMo Gym uses for the top-level settings.
const (
	DefaultPortRangeLow   = 10001 // port_range_low
	DefaultPortRangeHigh  = 20000 // port_range_high
	DefaultHeadServerPort = 11000 // head_server.port, never assigned to an instance
)

const (
	envYAMLName    = "env.yaml"
	keyConfigPaths = "config_paths"

	typeResources = "resources_servers"
)

// serverTypeKeys are NeMo's second-level keys. Only resources_servers blocks are started.
var serverTypeKeys = []string{typeResources, "responses_api_agents", "responses_api_models", "environment_servers"}

// reservedTopLevel are NeMo's top-level settings (NEMO_GYM_RESERVED_TOP_LEVEL_KEYS), never
// instances even when they hold a mapping. Keys starting with uv_ are reserved too.
var reservedTopLevel = map[string]bool{
	"config_paths": true, "entrypoint": true, "default_host": true, "head_server": true,
	"disallowed_ports": true, "head_server_deps": true, "python_version": true,
	"pip_install_verbose": true, "use_absolute_ip": true, "skip_venv_if_present": true,
	"hf_token": true, "ray_head_node_address": true, "port_range_low": true, "port_range_high": true,
	"dry_run": true, "model_endpoint_readiness_timeout_seconds": true, "allow_openai_version_skew": true,
	"results_dir": true, "cache_dir": true, "_inherit_from": true, "_copy": true,
	"nemo_gym_log_dir": true, "verbose": true, "json": true, "query": true,
	"observability_enabled": true, "model_call_capture_dir": true, "token_id_capture": true,
	"component_name": true, "skip_verification": true, "skip_verification_reward": true,
	"telemetry": true, "allow_unsupported_pairing": true, "environment_server_name": true,
	"environment_server_routes": true, "environment_routing_mode": true, "tasksets": true,
	"rollout_input": true, "agent_bindings": true, "error_on_almost_servers": true,
}

// gymkitSettings are the top-level settings gymkit reads.
var gymkitSettings = []string{"default_host", "use_absolute_ip", "port_range_low", "port_range_high", "disallowed_ports", "head_server", "config_paths"}

func isReserved(key string) bool { return reservedTopLevel[key] || strings.HasPrefix(key, "uv_") }

// LoadOptions says where the configuration comes from. The zero value loads only env.yaml from
// the process's working directory.
type LoadOptions struct {
	// Files are the config files (--config, repeatable), merged in order: mappings merge deeply,
	// a later scalar or list replaces an earlier value. A file's top-level config_paths list pulls
	// in more files, merged before the file itself (NeMo's rule; see the package doc). Relative
	// paths, here and in config_paths, are resolved against WorkDir. With Dict set, Files are
	// merged after it, each by itself: config_paths is not followed.
	Files []string
	// Dict, when not nil, is a whole configuration that is already merged, as YAML bytes: what
	// NeMo's launcher (gym env start) hands every server process it starts in the environment
	// variable NEMO_GYM_CONFIG_DICT (OmegaConf's YAML of every --config file, include and
	// override, with a host and port written into every server block, interpolations left
	// unresolved). It is the first layer of the merge; Files, if any, and Overrides come after
	// it. With Dict set nothing else is read from the file system: config_paths is never
	// followed (not the dict's, which lists the launcher's own --config paths relative to the
	// launcher's working directory, nor that of Files or an override; it stays in the tree as a
	// plain value), and env.yaml is not read (the launcher already merged its own). Relative
	// paths of [Path] fields set in the dict resolve against WorkDir, which NeMo's launcher sets
	// to the server's folder. Keys and values are read as in a config file; the dict's problems
	// name it as a file, DictName:<line>. nil: no dict (a non-nil empty Dict is an empty
	// configuration). Load only reads Dict and keeps no reference to it.
	Dict []byte
	// DictName names Dict in problems and in [Config.Files], where a file's path would stand:
	// "NEMO_GYM_CONFIG_DICT:12: w.resources_servers.w.port: ...". "" means
	// "NEMO_GYM_CONFIG_DICT". Not used without Dict.
	DictName string
	// Instance, when not "", is the name (the top-level key) of the one resources-server
	// instance to load: NeMo's launcher names it in NEMO_GYM_CONFIG_PATH. Load then discovers,
	// validates and returns only that instance ([Config.Instances] holds it alone). Every other
	// top-level block (other instances, of gymkit's types or of types gymkit does not know such
	// as a Python server's, agents, models) and every other top-level value is neither served
	// nor validated, and no Info line is logged about it, but all stay in the merged tree, so
	// that the instance's ${...} interpolations resolve against them (${data_dir},
	// ${other_instance.resources_servers.type.domain}) and [Config.Lookup] reads them; the
	// ports configured on them are not picked by [Config.AssignPorts]. The top-level settings
	// gymkit reads (default_host, use_absolute_ip, port_range_low, port_range_high,
	// disallowed_ports, head_server.port) are read and checked as usual, and so is a
	// top-level key set on the command line (an override port=8000 is still refused). A name
	// that is no resources-server instance of the configuration is one problem, naming the
	// instances there and the closest one. "" loads every instance.
	Instance string
	// Overrides are command-line overrides applied after the files, env.yaml and Dict, in
	// order: "a.b.c=value", "+a.b.c=value" or "++a.b.c=value" (NeMo/Hydra spellings, all
	// meaning "set, creating the path"). The value is read as a YAML scalar or flow value: 9000,
	// true, null, [a, b], {k: v}, "quoted", an empty value is "". A mapping value merges into
	// the mapping already there.
	Overrides []string
	// WorkDir is where env.yaml is looked up and the base of relative paths: of Files and
	// config_paths, and of the [Path] values set in Dict, in an override or in a file outside a
	// server folder (see [Path]); "" means the process's working directory. A relative WorkDir
	// is made absolute against the process's working directory.
	WorkDir string
	// LookupEnv reads environment variables for ${oc.env:...}; nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// Logger receives an Info line for every agent or model block that is skipped (Debug with
	// Instance set), and Debug lines about the files loaded; nil means slog.Default().
	Logger *slog.Logger
}

// defaultDictName is LoadOptions.DictName's default: the variable NeMo's launcher sets.
const defaultDictName = "NEMO_GYM_CONFIG_DICT"

// Config is a merged, validated configuration. Its methods are safe for concurrent use.
type Config struct {
	mu        sync.Mutex
	files     []string
	src       *sources
	res       *resolver
	instances []Instance

	portLow, portHigh int
	avoid             []int // disallowed_ports, the head server's port, ports of skipped blocks
}

// Load reads the dict, the files, env.yaml and the overrides (see [LoadOptions]), merges them,
// resolves and validates every resources-server instance (only LoadOptions.Instance when it is
// set), and returns the result. It binds no port and opens no connection
// (except a host name lookup when use_absolute_ip is true).
//
// Every problem found is returned at once as [Problems]: files that cannot be read or parsed and
// malformed overrides first (Load stops there, with a nil *Config, when there are any), then bad
// top-level settings, then each instance's interpolation failures, ??? values, missing or unknown
// domain and mistyped framework keys. With problems of the second kind Load returns the *Config
// too, so that a caller can still [Instance.Decode] every instance and report all problems in one
// go; such a Config must not be served. Instance ports stay 0 when not configured until
// [Config.AssignPorts]. Server-specific keys are checked later, by [Instance.Decode]. An error
// that is not Problems means the working directory could not be determined.
func Load(opts LoadOptions) (*Config, error) {
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	lookupEnv := opts.LookupEnv
	if lookupEnv == nil {
		lookupEnv = os.LookupEnv
	}
	workDir := opts.WorkDir
	if workDir == "" || !filepath.IsAbs(workDir) {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("config: working directory: %w", err)
		}
		workDir = filepath.Join(wd, workDir)
	}

	// env.yaml and the overrides are read first: they may name more files in config_paths
	// (NeMo's +config_paths=[...]), which merge after LoadOptions.Files. With a dict, neither
	// env.yaml nor any config_paths is read: the dict is the merged configuration.
	ld := &loader{workDir: workDir, noIncludes: opts.Dict != nil}
	var dict, env *layer
	var dictProblems, envProblems []Problem
	if opts.Dict != nil {
		name := opts.DictName
		if name == "" {
			name = defaultDictName
		}
		dict, dictProblems = loadYAMLBytes(name, opts.Dict)
		if dict != nil {
			dict.base = workDir
		}
	} else {
		env, envProblems = ld.loadEnvYAML(filepath.Join(opts.WorkDir, envYAMLName))
	}
	over, overProblems := loadOverrides(opts.Overrides)
	over.base = workDir
	roots := slices.Clone(opts.Files)
	for _, l := range []*layer{over, env} {
		if opts.Dict == nil && l != nil && l.ko.Exists(keyConfigPaths) {
			paths, ps := configPaths(l)
			overProblems = append(overProblems, ps...)
			roots = append(roots, paths...)
			break
		}
	}
	layers := ld.loadFiles(roots)
	layers = append([]*layer{dict}, layers...)
	if len(ld.problems) == 0 && len(dictProblems) == 0 && len(envProblems) == 0 && len(overProblems) == 0 {
		overProblems = overrideInstanceProblems(opts.Overrides, append(slices.Clone(layers), env))
	}
	if loadProblems := slices.Concat(dictProblems, ld.problems, envProblems, overProblems); len(loadProblems) > 0 {
		return nil, Problems(loadProblems)
	}

	c := &Config{src: newSources()}
	c.src.workDir = workDir
	merged := koanf.New(".")
	for _, l := range append(layers, env, over) {
		if l == nil {
			continue
		}
		if l != over {
			c.files = append(c.files, l.name)
		}
		if err := merged.Merge(l.ko); err != nil {
			return nil, fmt.Errorf("config: merging %s: %w", l.name, err)
		}
		c.src.record("", l.ko.Raw(), l)
	}
	logger.Debug("config: loaded", "files", c.files, "overrides", len(opts.Overrides))
	tree := merged.Raw()
	c.res = newResolver(tree, lookupEnv)

	var ps Problems
	defaultHost := c.readSettings(&ps)
	if opts.Instance != "" {
		ps = append(ps, c.discoverOne(tree, opts.Instance, defaultHost, logger, lookupEnv)...)
	} else {
		ps = append(ps, c.discover(tree, defaultHost, logger, lookupEnv)...)
	}
	if len(c.instances) == 0 && len(ps) == 0 {
		ps = append(ps, Problem{Message: "no resources server instance in the configuration (a top-level key whose value has a resources_servers mapping)"})
	}
	if err := ps.err(); err != nil {
		return c, err
	}
	return c, nil
}

// flush moves the resolver's problems into ps.
func (c *Config) flush(ps *Problems) {
	for _, rp := range c.res.takeProblems() {
		p := c.src.problem(rp.key, rp.msg, rp.suggestion)
		p.bound = rp.bound
		*ps = append(*ps, p)
	}
}

// settings are the top-level keys gymkit honours.
type settings struct {
	DefaultHost     string `koanf:"default_host"`
	UseAbsoluteIP   bool   `koanf:"use_absolute_ip"`
	PortRangeLow    int    `koanf:"port_range_low"`
	PortRangeHigh   int    `koanf:"port_range_high"`
	DisallowedPorts []int  `koanf:"disallowed_ports"`
	HeadServerPort  *int   `koanf:"head_server_port"` // filled from head_server.port
}

// readSettings reads default_host, use_absolute_ip, port_range_low/high, disallowed_ports and
// head_server.port, and returns the host of instances without one.
func (c *Config) readSettings(ps *Problems) string {
	data := map[string]any{}
	keys := map[string]keyPath{
		"default_host": {"default_host"}, "use_absolute_ip": {"use_absolute_ip"},
		"port_range_low": {"port_range_low"}, "port_range_high": {"port_range_high"},
		"disallowed_ports": {"disallowed_ports"}, "head_server_port": {"head_server", "port"},
	}
	headPortSet := false
	for _, name := range sortedKeys(keys) {
		p := keys[name]
		v, found, err := c.res.lookup(p)
		if err != nil || !found {
			continue
		}
		if v == mandatory {
			*ps = append(*ps, c.mandatoryProblem(p.String()))
			continue
		}
		if name == "head_server_port" {
			headPortSet = true
		}
		data[name] = v
	}
	c.flush(ps)
	s := settings{PortRangeLow: DefaultPortRangeLow, PortRangeHigh: DefaultPortRangeHigh}
	for _, dp := range decodeProblems(decodeStrict(data, &s)) {
		key := dp.name
		if key == "head_server_port" {
			key = "head_server.port"
		}
		*ps = append(*ps, c.src.problem(key, dp.msg, ""))
	}

	c.portLow, c.portHigh = s.PortRangeLow, s.PortRangeHigh
	okRange := true
	for _, kp := range []struct {
		key  string
		port int
	}{{"port_range_low", s.PortRangeLow}, {"port_range_high", s.PortRangeHigh}} {
		if kp.port < 1 || kp.port > 65535 {
			*ps = append(*ps, c.src.problem(kp.key, fmt.Sprintf("must be a port between 1 and 65535, got %d", kp.port), ""))
			okRange = false
		}
	}
	if okRange && s.PortRangeLow > s.PortRangeHigh {
		*ps = append(*ps, c.src.problem("port_range_high", fmt.Sprintf("must not be below port_range_low (%d), got %d", s.PortRangeLow, s.PortRangeHigh), ""))
	}
	c.avoid = append(c.avoid, s.DisallowedPorts...)
	switch {
	case !headPortSet:
		c.avoid = append(c.avoid, DefaultHeadServerPort)
	case s.HeadServerPort != nil:
		c.avoid = append(c.avoid, *s.HeadServerPort)
	}

	switch {
	case s.UseAbsoluteIP:
		ip, err := hostIP()
		if err != nil {
			*ps = append(*ps, c.src.problem("use_absolute_ip", "cannot find this host's IP address: "+err.Error(), ""))
		}
		return ip
	case s.DefaultHost != "":
		if msg, sug := hostProblem(s.DefaultHost); msg != "" {
			*ps = append(*ps, c.src.problem("default_host", msg, sug))
		}
		return s.DefaultHost
	}
	return DefaultHost
}

// hostIP is NeMo's gethostbyname(gethostname()): the first IPv4 address of the host name.
func hostIP() (string, error) {
	name, err := os.Hostname()
	if err != nil {
		return "", err
	}
	addrs, err := net.LookupHost(name)
	if err != nil {
		return "", err
	}
	for _, a := range addrs {
		if ip := net.ParseIP(a); ip != nil && ip.To4() != nil {
			return a, nil
		}
	}
	if len(addrs) == 0 {
		return "", errors.New("no address for " + name)
	}
	return addrs[0], nil
}

// discover finds the instances, validates each, and logs the skipped blocks.
func (c *Config) discover(tree map[string]any, defaultHost string, logger *slog.Logger, lookupEnv func(string) (string, bool)) Problems {
	var ps Problems
	// Ports configured on skipped blocks are read with a separate resolver, so that a failure
	// there is neither reported nor remembered as reported.
	quiet := newResolver(tree, lookupEnv)
	var instanceLevel []string // top-level port, host, metrics.enabled, ...: see instanceKeyProblem
	for _, name := range sortedKeys(tree) {
		if isReserved(name) {
			continue
		}
		if s, ok := tree[name].(string); ok && (strings.HasPrefix(s, "${inherit_from:") || strings.HasPrefix(s, "${copy:")) {
			ps = append(ps, c.src.problem(name, "NeMo's inherit_from and copy directives are not supported by gymkit: write the block out", ""))
			continue
		}
		block, ok := tree[name].(map[string]any)
		if !ok && (instanceOnlyKeys[name] || isInstanceLevelKey(name) && !referenced(tree, name)) {
			instanceLevel = append(instanceLevel, name)
			continue
		}
		if ok && isInstanceLevelKey(name) && !hasServerType(block) && !referenced(tree, name) {
			// An override metrics.enabled=true: a framework key of an
			// instance block, given at the top level.
			instanceLevel = append(instanceLevel, leafPaths(keyPath{name}, block)...)
			continue
		}
		if !ok {
			// Free top-level values are allowed (interpolation sources like
			// policy_base_url), but one a single edit away from a setting
			// gymkit reads is almost surely a typo that would be ignored.
			for _, setting := range gymkitSettings {
				if name != setting && editDistance(strings.ToLower(name), setting) == 1 {
					ps = append(ps, c.src.problem(name, "unknown top-level key: not a setting gymkit reads", setting))
					break
				}
			}
			continue
		}
		var types []string
		for _, t := range serverTypeKeys {
			if _, ok := block[t]; ok {
				types = append(types, t)
			}
		}
		switch {
		case len(types) == 0:
			for _, k := range sortedKeys(block) {
				if slices.Contains(directiveKeys, k) {
					ps = append(ps, c.src.problem(keyPath{name, k}.String(), directiveMessage(k), ""))
				} else if s := suggest(k, serverTypeKeys); s != "" {
					ps = append(ps, c.src.problem(keyPath{name, k}.String(),
						"unknown server type key: this block is not a server and would be ignored", s))
				}
			}
		case !slices.Contains(types, typeResources):
			for _, t := range types {
				logger.Info("config: skipping block: gymkit serves only resources_servers",
					"block", name, "type", t, "file", c.src.first[keyPath{name, t}.String()].file)
				c.avoid = append(c.avoid, skippedPorts(quiet, keyPath{name, t})...)
			}
		case len(types) > 1:
			ps = append(ps, c.src.problem(name,
				fmt.Sprintf("has more than one server type (%s); an instance has exactly one", strings.Join(types, ", ")), ""))
		default:
			ps = append(ps, c.addInstance(name, block, defaultHost)...)
		}
	}
	for _, k := range instanceLevel {
		ps = append(ps, c.instanceKeyProblem(k))
	}
	// Two instances on one host and port cannot both start.
	byAddr := map[string]string{}
	for _, inst := range c.instances {
		if inst.Port == 0 {
			continue
		}
		addr := net.JoinHostPort(inst.Host, fmt.Sprint(inst.Port))
		if other, ok := byAddr[addr]; ok {
			ps = append(ps, c.src.problem(inst.Path()+".port", fmt.Sprintf("%s is also the address of instance %s", addr, other), ""))
			continue
		}
		byAddr[addr] = inst.Name
	}
	return ps
}

// addInstance validates the block of instance name (a mapping whose only server type key is
// resources_servers) and adds the instance to c.instances.
func (c *Config) addInstance(name string, block map[string]any, defaultHost string) Problems {
	if p, bad := c.instanceNameProblem(name, block); bad {
		return Problems{p}
	}
	var ps Problems
	// A key beside resources_servers (e.g. an override
	// <instance>.port=8000) would be ignored: say where it belongs.
	for _, k := range sortedKeys(block) {
		if k == typeResources {
			continue
		}
		hint := ""
		if rs, ok := block[typeResources].(map[string]any); ok && len(rs) == 1 && isFrameworkKey(k) {
			hint = keyPath{name, typeResources, sortedKeys(rs)[0], k}.String()
		}
		ps = append(ps, c.src.problem(keyPath{name, k}.String(),
			"unknown key beside resources_servers: an instance's keys go under resources_servers.<server type>", hint))
	}
	inst, ips := c.instance(name, defaultHost)
	if len(ips) > 0 {
		sortProblems(ips)
		ps = append(ps, ips...)
	}
	// Kept even with problems (when it got that far), so that a caller
	// can still Decode its server keys and list every problem at once.
	if inst.ServerType != "" {
		c.instances = append(c.instances, inst)
	}
	return ps
}

// discoverOne finds and validates the one instance named only (LoadOptions.Instance). The other
// top-level keys are left alone, except that the ports configured on other server blocks are
// avoided, and that a top-level instance key (port, host, metrics.enabled, ...) set on the
// command line is refused as [Config.discover] refuses it.
func (c *Config) discoverOne(tree map[string]any, only, defaultHost string, logger *slog.Logger, lookupEnv func(string) (string, bool)) Problems {
	var ps Problems
	quiet := newResolver(tree, lookupEnv)
	var instances, skipped []string // resources-server instances of the tree; other blocks
	var instanceLevel []string      // top-level port, host, metrics.enabled, ... set on the command line
	for _, name := range sortedKeys(tree) {
		if isReserved(name) {
			continue
		}
		block, ok := tree[name].(map[string]any)
		if c.src.last[name].file == commandLine {
			switch {
			case !ok && (instanceOnlyKeys[name] || isInstanceLevelKey(name) && !referenced(tree, name)):
				instanceLevel = append(instanceLevel, name)
				continue
			case ok && isInstanceLevelKey(name) && !hasServerType(block) && !referenced(tree, name):
				instanceLevel = append(instanceLevel, leafPaths(keyPath{name}, block)...)
				continue
			}
		}
		if !ok {
			continue
		}
		if _, ok := block[typeResources]; ok {
			instances = append(instances, name)
		}
		if name == only {
			continue
		}
		for _, t := range serverTypeKeys {
			if _, ok := block[t]; ok {
				skipped = append(skipped, name)
				c.avoid = append(c.avoid, skippedPorts(quiet, keyPath{name, t})...)
			}
		}
	}
	block, _ := tree[only].(map[string]any)
	var types []string
	for _, t := range serverTypeKeys {
		if _, ok := block[t]; ok {
			types = append(types, t)
		}
	}
	switch {
	case !slices.Contains(instances, only):
		list := "none"
		if len(instances) > 0 {
			list = strings.Join(instances, ", ")
		}
		ps = append(ps, Problem{File: c.firstFile(), Key: only,
			Message:    "no such resources-server instance to serve (a top-level key whose value has a resources_servers mapping); the instances of the configuration: " + list,
			Suggestion: suggest(only, instances)})
	case len(types) > 1:
		ps = append(ps, c.src.problem(only,
			fmt.Sprintf("has more than one server type (%s); an instance has exactly one", strings.Join(types, ", ")), ""))
	default:
		logger.Debug("config: loading one instance; the other blocks are kept for interpolation only", "instance", only, "others", skipped)
		ps = append(ps, c.addInstance(only, block, defaultHost)...)
	}
	for _, k := range instanceLevel {
		ps = append(ps, c.instanceKeyProblem(k))
	}
	return ps
}

// firstFile is the first layer merged (the dict, or the first file), for a problem about the
// whole configuration; "" when there is none.
func (c *Config) firstFile() string {
	if len(c.files) == 0 {
		return ""
	}
	return c.files[0]
}

// instanceOnlyKeys are the instance keys most often given at the top level
// by mistake (an override port=8000): gymkit refuses them there rather than
// ignore them.
var instanceOnlyKeys = map[string]bool{"port": true, "host": true}

// isInstanceLevelKey reports a framework key of an instance block
// (frameworkConfig's koanf keys: metrics, session, mcp, tool_timeout, ...)
// that is not one of NeMo's reserved top-level keys. NeMo's metadata keys
// (description, value, ...) are not among them: a top-level value of that
// name may be an interpolation source.
func isInstanceLevelKey(k string) bool {
	return isFrameworkKey(k) && !slices.Contains(metadataKeys, k) && !isReserved(k)
}

// referenced reports whether a string value anywhere in v interpolates the
// top-level key name (${name}, ${name.sub}, ${name[0]}, ${oc.select:name,..}):
// a top-level mcp: true read as ${mcp} is an interpolation source, not a
// misplaced key.
func referenced(v any, name string) bool {
	switch v := v.(type) {
	case string:
		for _, open := range []string{"${", "${oc.select:"} {
			for rest := v; ; {
				i := strings.Index(rest, open+name)
				if i < 0 {
					break
				}
				rest = rest[i+len(open)+len(name):]
				if rest == "" || strings.ContainsRune(".}[,", rune(rest[0])) {
					return true
				}
			}
		}
	case map[string]any:
		for _, e := range v {
			if referenced(e, name) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if referenced(e, name) {
				return true
			}
		}
	}
	return false
}

func hasServerType(block map[string]any) bool {
	for _, t := range serverTypeKeys {
		if _, ok := block[t]; ok {
			return true
		}
	}
	return false
}

// leafPaths are the dotted paths of the leaves under p in v (p itself for a
// scalar, a list or an empty mapping), sorted.
func leafPaths(p keyPath, v any) []string {
	m, ok := v.(map[string]any)
	if !ok || len(m) == 0 {
		return []string{p.String()}
	}
	var out []string
	for _, k := range sortedKeys(m) {
		out = append(out, leafPaths(append(slices.Clone(p), k), m[k])...)
	}
	return out
}

// instanceKeyProblem refuses a top-level port, host or other framework key of
// an instance block (key is its dotted path: metrics.enabled), suggesting the
// full key: <instance>.resources_servers.<type>.<key> when there is one instance,
// and for host, default_host (the host of every instance without one).
func (c *Config) instanceKeyProblem(key string) Problem {
	msg := "is not a top-level setting: it is an instance's key, under <instance>.resources_servers.<server type>"
	sug := ""
	if len(c.instances) == 1 {
		sug = c.instances[0].Path() + "." + key
	}
	if key == "host" {
		msg += "; default_host sets the host of every instance that has none"
		if sug == "" {
			sug = "default_host"
		}
	}
	return c.src.problem(key, msg, sug)
}

// skippedPorts returns the ports configured on the servers of a skipped block (errors ignored).
func skippedPorts(quiet *resolver, typePath keyPath) []int {
	servers, _, _ := quiet.lookup(typePath)
	m, _ := servers.(map[string]any)
	var ports []int
	for _, impl := range sortedKeys(m) {
		var s struct {
			Port int `koanf:"port"`
		}
		if block, ok := m[impl].(map[string]any); ok && decodeStrict(map[string]any{"port": block["port"]}, &s) == nil && s.Port > 0 {
			ports = append(ports, s.Port)
		}
	}
	return ports
}

// Files returns the files that were merged, in merge order (LoadOptions.DictName first when
// there is a dict, config_paths includes before the file that pulled them in, env.yaml last),
// as named in problems. The overrides are not listed.
func (c *Config) Files() []string {
	return slices.Clone(c.files)
}

// Instances returns the resources-server instances sorted by name. The slice is a copy; the Raw
// maps are shared and must not be modified.
func (c *Config) Instances() []Instance {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.instances)
}

// Instance returns the instance named name (its top-level key).
func (c *Config) Instance(name string) (Instance, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, inst := range c.instances {
		if inst.Name == name {
			return inst, true
		}
	}
	return Instance{}, false
}

// Lookup returns the resolved value at a dotted key path of the merged tree ("head_server.port",
// "policy_model.responses_api_models.openai_model.host", list items as "a.list[0]"): a string,
// bool, int, float64, nil, []any or map[string]any, to be treated as read-only. A missing key or
// a failed interpolation is returned as [Problems]. Host and port defaults are not written into
// the tree: read them from [Instance].
func (c *Config) Lookup(key string) (any, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, err := parseKey(key)
	if err != nil {
		return nil, Problems{{Key: key, Message: err.Error()}}
	}
	var ps Problems
	v, found, err := c.res.lookup(p)
	c.flush(&ps)
	switch {
	case !found:
		_, _, gerr := c.res.get(p)
		var re *refError
		errors.As(gerr, &re)
		msg, sug := "key not found", ""
		if re != nil {
			msg, sug = re.msg, re.suggestion
		}
		return nil, Problems{c.src.problem(key, msg, sug)}
	case err != nil:
		if len(ps) == 0 {
			ps = Problems{c.src.problem(key, "cannot be resolved (see the problems reported earlier)", "")}
		}
		return nil, ps
	}
	return v, nil
}
