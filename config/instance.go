package config

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"
)

// Domains are the values NeMo accepts for domain (nemo_gym/config_types.py Domain).
var domains = []string{
	"math", "coding", "agent", "knowledge", "instruction_following", "long_context",
	"safety", "games", "translation", "e2e", "rlhf", "other",
}

// frameworkConfig holds the keys of a server block that belong to the framework and that gymkit
// reads. They are type-checked by Load; NumWorkers and Entrypoint are accepted and not used.
type frameworkConfig struct {
	Entrypoint         string        `koanf:"entrypoint"`
	Domain             string        `koanf:"domain"`
	Host               string        `koanf:"host"`
	Port               int           `koanf:"port"`
	NumWorkers         int           `koanf:"num_workers"`
	ExposeToolsOverMCP bool          `koanf:"expose_tools_over_mcp"`
	SessionSecret      any           `koanf:"session_secret"`   // a string or a list: see secretList
	MCPTokenSecret     any           `koanf:"mcp_token_secret"` // session_secret's older name
	AllowWeakSecret    bool          `koanf:"allow_weak_secret"`
	MCPAllowedHosts    []string      `koanf:"mcp_allowed_hosts"`
	MaxBodyBytes       int64         `koanf:"max_body_bytes"`
	SessionIdleTimeout time.Duration `koanf:"session_idle_timeout"`
	SessionLifetime    time.Duration `koanf:"session_lifetime"`
	CloseSession       bool          `koanf:"close_session"`
	// OpenAPI is openapi (default true): GET /openapi.json and GET /docs.
	OpenAPI         bool          `koanf:"openapi"`
	BodyReadTimeout time.Duration `koanf:"body_read_timeout"`
	ToolTimeout     time.Duration `koanf:"tool_timeout"`
	ToolTimeouts    toolTimeouts  `koanf:"tool_timeouts"`
	MaxJSONDepth    int           `koanf:"max_json_depth"`
	MaxJSONElements int           `koanf:"max_json_elements"`
	// MaxInflightBodyBytes is max_inflight_body_bytes.
	MaxInflightBodyBytes int64 `koanf:"max_inflight_body_bytes"`
	// MaskInternalErrors is mask_internal_errors.
	MaskInternalErrors bool `koanf:"mask_internal_errors"`
	// MCP is the mcp block (see MCPConfig).
	MCP MCPConfig `koanf:"mcp"`
	// Auth is the auth block (see AuthConfig); nil when absent or null.
	Auth *AuthConfig `koanf:"auth"`
	// CORS is the cors block (see CORSConfig); nil when absent or null.
	CORS *CORSConfig `koanf:"cors"`
	// Metrics is the metrics block (see MetricsConfig).
	Metrics MetricsConfig `koanf:"metrics"`
	// Session is the session block (see SessionConfig).
	Session SessionConfig `koanf:"session"`
}

// metadataKeys are framework keys NeMo's tools read (not gymkit): accepted with any value.
var metadataKeys = []string{"verified", "description", "value", "datasets", "allowed_agents", "allowed_model_types"}

// frameworkKeys are every key of a server block that is not the server's own.
var frameworkKeys = func() []string {
	keys := slices.Clone(metadataKeys)
	t := reflect.TypeFor[frameworkConfig]()
	for i := range t.NumField() {
		keys = append(keys, t.Field(i).Tag.Get("koanf"))
	}
	slices.Sort(keys)
	return keys
}()

func isFrameworkKey(k string) bool {
	_, found := slices.BinarySearch(frameworkKeys, k)
	return found
}

// Instance is one resources-server instance: a top-level key whose value holds a
// resources_servers mapping with exactly one server type, as in
//
//	example_mcp_weather:          # Name
//	  resources_servers:
//	    example_mcp_weather:      # ServerType; this mapping is Raw
//	      domain: agent
//	      default_city: Paris     # a server-specific key, see Decode
//
// The framework's keys are type-checked and defaulted here: entrypoint (accepted, not used),
// domain, host, port, num_workers (accepted, not used), expose_tools_over_mcp, session_secret (and
// its older name mcp_token_secret), allow_weak_secret, mcp_allowed_hosts, max_body_bytes,
// session_idle_timeout, session_lifetime, close_session, openapi, body_read_timeout, tool_timeout,
// tool_timeouts, max_json_depth, max_json_elements, max_inflight_body_bytes, mask_internal_errors, mcp (a mapping of
// tools, server_info and coerce_json_strings, see [MCPConfig]), auth (bearer authentication, see
// [AuthConfig]), cors (see [CORSConfig]), metrics (see [MetricsConfig]), and NeMo's metadata
// verified, description, value, datasets, allowed_agents and allowed_model_types (any value).
// For these keys null means the default, as if absent. Every other key belongs to the server
// ([Instance.Decode]), where null is pydantic's None: the field's zero value, not its default.
type Instance struct {
	// Name is the top-level key: the MCP server_name, the session cookie suffix, the log field.
	Name string
	// ServerType is the single key under resources_servers, the framework.Register name.
	ServerType string
	// Host is the address to listen on: host, else the top-level default_host, else 127.0.0.1
	// (with use_absolute_ip: true, this host's IPv4 address instead of default_host).
	Host string
	// Port is the TCP port; 0 (port absent, null or 0) until [Config.AssignPorts] picks one.
	Port int
	// Domain is one of NeMo's domains: math, coding, agent, knowledge, instruction_following,
	// long_context, safety, games, translation, e2e, rlhf, other. Required.
	Domain string
	// ExposeToolsOverMCP serves the tools over MCP at /mcp too (expose_tools_over_mcp, default false).
	ExposeToolsOverMCP bool
	// SessionSecrets are the instance secrets (session_secret, a string or a list of strings; or
	// its older name mcp_token_secret, refused when both are set to different values): the first
	// signs the session cookies and the MCP session tokens (under distinct derived keys), and all
	// verify them, for rotation. nil when unset, empty or an empty list (the host then uses a
	// random per-process secret, with a warning); an entry is never empty. It prints redacted
	// (see [Secrets]).
	SessionSecrets Secrets
	// AllowWeakSecret (allow_weak_secret, default false) lets the host accept secrets that break
	// the strength rule (session.CheckSecret: at least 32 bytes, at least 10 distinct), with a
	// warning: for development only.
	AllowWeakSecret bool
	// MCPAllowedHosts are extra Host header values the MCP door accepts (mcp_allowed_hosts); nil
	// when not configured.
	MCPAllowedHosts []string
	// MaxBodyBytes limits request bodies on both doors (max_body_bytes, > 0; default 16 MiB).
	MaxBodyBytes int64
	// SessionIdleTimeout (session_idle_timeout, > 0; default [DefaultSessionIdleTimeout], 1h)
	// ends a rollout session that had no request for that long: its cookie is refused and its
	// state dropped. Zero only in an Instance built without YAML (the host then uses the
	// default).
	SessionIdleTimeout time.Duration
	// SessionLifetime (session_lifetime, > 0; default [DefaultSessionLifetime], 336h) ends a
	// rollout session that long after its first answer, however active: the cookie's Max-Age.
	// Zero only in an Instance built without YAML (the host then uses the default).
	SessionLifetime time.Duration
	// NoCloseSession is close_session: false (default true): POST /close_session then answers
	// 404 instead of freeing the rollout's state. It stays a reserved name either way.
	NoCloseSession bool
	// NoOpenAPI is openapi: false (default true): GET /openapi.json and GET /docs then answer
	// 404 {"detail":"Not Found"}, as FastAPI(openapi_url=None) does.
	NoOpenAPI bool
	// BodyReadTimeout (body_read_timeout, > 0; default [DefaultBodyReadTimeout], 30s) bounds how
	// long a client may take to send a request body once its headers are read; it does not limit
	// how long a tool runs. Zero only in an Instance built without YAML (the host then uses the
	// default).
	BodyReadTimeout time.Duration
	// ToolTimeout (tool_timeout, >= 0; default 0, no limit) bounds every tool call on both doors:
	// past it the call is answered 504 (see host.Options.ToolTimeout).
	ToolTimeout time.Duration
	// ToolTimeouts (tool_timeouts, a mapping of tool name to duration, each >= 0; 0 is no limit)
	// replace ToolTimeout for the tools they name; nil when not configured.
	ToolTimeouts map[string]time.Duration
	// MaxJSONDepth (max_json_depth, 1-1000; default [DefaultMaxJSONDepth], 1000) bounds the
	// nesting of arrays and objects in a request body, on both doors (413 beyond).
	MaxJSONDepth int
	// MaxJSONElements (max_json_elements, > 0; default [DefaultMaxJSONElements], 2,000,000)
	// bounds the JSON values of a request body, on both doors (413 beyond).
	MaxJSONElements int
	// MaxInflightBodyBytes (max_inflight_body_bytes, > 0; default
	// [DefaultMaxInflightBodyBytes], 256 MiB) bounds the bytes of the request bodies that one
	// instance reads and holds at once; a request that does not fit within a second is answered
	// 503 with Retry-After.
	MaxInflightBodyBytes int64
	// MaskInternalErrors (mask_internal_errors, default false) replaces the detail of every 500
	// answer, on both doors, with a generic text and an error id that is logged with the real
	// detail (see host.Options.MaskInternalErrors).
	MaskInternalErrors bool
	// MCP is the mcp block (mcp.tools, mcp.server_info, mcp.coerce_json_strings): how the MCP
	// door presents the instance to MCP clients; the zero value is NeMo Gym's behaviour.
	MCP MCPConfig
	// Auth is the auth block: bearer authentication of /mcp (and, with auth.http, of the HTTP
	// routes); nil (absent or null) authenticates nothing, as NeMo Gym.
	Auth *AuthConfig
	// CORS is the cors block: the origins whose browsers may call /mcp; nil (absent or null)
	// allows none.
	CORS *CORSConfig
	// Metrics is the metrics block (metrics.enabled, metrics.path, metrics.auth): the
	// instance's Prometheus endpoint; the zero value (Enabled false) serves none. Path is ""
	// unless set, which the host reads as [DefaultMetricsPath].
	Metrics MetricsConfig
	// Session is the session block: where rollout state is kept (session.store: memory, the
	// default, or redis with session.url; see [SessionConfig]).
	Session SessionConfig
	// Raw is the server block with every interpolation resolved, as written (no defaults
	// filled in). Read-only: it may share maps with other values of the configuration.
	Raw map[string]any
	// File and Line are where the server block was first defined ("" and 0 when unknown),
	// for messages.
	File string
	Line int

	src *sources
	// seePath, when set, is called by Decode with every non-empty Path value
	// before it is resolved (see PathKeys).
	seePath func(key, value string)
}

// Path returns the dotted key path of the server block: "<Name>.resources_servers.<ServerType>".
func (inst Instance) Path() string {
	return keyPath{inst.Name, typeResources, inst.ServerType}.String()
}

// instance resolves and validates the instance named name.
// instance reads one instance block. With problems in the framework keys it
// still returns the Instance (so that its server keys can be decoded and
// checked too); a zero Instance means the block could not be read at all.
func (c *Config) instance(name, defaultHost string) (Instance, Problems) {
	var ps Problems
	rsPath := keyPath{name, typeResources}
	v, _, err := c.res.lookup(rsPath)
	c.flush(&ps)
	rs, ok := v.(map[string]any)
	switch {
	case err != nil && len(rs) == 0:
		return Instance{}, ps // reported by the resolver
	case v == mandatory:
		return Instance{}, append(ps, c.mandatoryProblem(rsPath.String()))
	case !ok:
		return Instance{}, append(ps, c.src.problem(rsPath.String(), fmt.Sprintf("must be a mapping with exactly one server type, got %s", describe(v)), ""))
	case len(rs) != 1:
		msg := "is empty; it must hold exactly one server type"
		if len(rs) > 1 {
			msg = fmt.Sprintf("holds %d server types (%s); an instance has exactly one", len(rs), strings.Join(sortedKeys(rs), ", "))
		}
		return Instance{}, append(ps, c.src.problem(rsPath.String(), msg, ""))
	}
	serverType := sortedKeys(rs)[0]
	blockPath := rsPath.with(serverType)
	bkey := blockPath.String()
	block, ok := rs[serverType].(map[string]any)
	switch {
	case rs[serverType] == mandatory:
		return Instance{}, append(ps, c.mandatoryProblem(bkey))
	case !ok:
		return Instance{}, append(ps, c.src.problem(bkey, fmt.Sprintf("must be a mapping of the server's keys, got %s", describe(rs[serverType])), ""))
	}

	ps = append(ps, c.blockProblems(bkey, block)...)

	fw := frameworkConfig{MaxBodyBytes: DefaultMaxBodyBytes, SessionIdleTimeout: DefaultSessionIdleTimeout,
		SessionLifetime: DefaultSessionLifetime, CloseSession: true, OpenAPI: true}
	data := map[string]any{}
	for k, v := range block {
		if isFrameworkKey(k) && !slices.Contains(metadataKeys, k) && v != mandatory {
			data[k] = v
		}
	}
	for _, k := range []string{"max_body_bytes", "session_idle_timeout", "session_lifetime", "close_session", "openapi", "mcp", "auth", "cors", "metrics", "session"} {
		if v, ok := data[k]; ok && v == nil {
			delete(data, k) // null means the default
		}
	}
	dropNullTimeouts(data)
	dropNullLimits(data)
	bad := map[string]bool{} // keys with a type error
	for _, dp := range decodeProblems(decodeStrict(data, &fw)) {
		ps = append(ps, c.src.problem(joinKey(bkey, dp.name), dp.msg, ""))
		bad[dp.name] = true
	}

	domainKey := joinKey(bkey, "domain")
	_, hasDomain := data["domain"]
	switch {
	case c.res.failed[domainKey] || block["domain"] == mandatory || bad["domain"]:
	case !hasDomain || fw.Domain == "":
		ps = append(ps, c.src.problem(domainKey, "is required: one of "+strings.Join(domains, ", "), ""))
	case !slices.Contains(domains, fw.Domain):
		ps = append(ps, c.src.problem(domainKey,
			fmt.Sprintf("unknown domain %q: one of %s", fw.Domain, strings.Join(domains, ", ")), suggest(fw.Domain, domains)))
	}
	if _, ok := data["port"]; ok && !bad["port"] && (fw.Port < 0 || fw.Port > 65535) {
		ps = append(ps, c.src.problem(joinKey(bkey, "port"), fmt.Sprintf("must be a port between 1 and 65535 (or absent to pick a free one), got %d", fw.Port), ""))
	}
	if _, ok := data["max_body_bytes"]; ok && !bad["max_body_bytes"] && fw.MaxBodyBytes <= 0 {
		ps = append(ps, c.src.problem(joinKey(bkey, "max_body_bytes"), fmt.Sprintf("must be a positive number of bytes, got %d", fw.MaxBodyBytes), ""))
	}
	if _, ok := data["host"]; ok && !bad["host"] {
		if msg, sug := hostProblem(fw.Host); msg != "" {
			ps = append(ps, c.src.problem(joinKey(bkey, "host"), msg, sug))
		}
	}
	ps = append(ps, c.sessionProblems(bkey, data, &fw, bad)...)
	ps = append(ps, c.timeoutProblems(bkey, data, &fw, bad)...)
	ps = append(ps, c.limitProblems(bkey, data, &fw, bad)...)
	ps = append(ps, c.mcpProblems(bkey, data, &fw, bad)...)
	ps = append(ps, c.authProblems(bkey, data, &fw, bad)...)
	ps = append(ps, c.metricsProblems(bkey, data, &fw, bad)...)
	secrets, sps := c.secrets(bkey, data, bad)
	ps = append(ps, sps...)
	ps = append(ps, c.sessionStoreProblems(bkey, data, &fw, bad, secrets)...)
	raw, copied := block, false // secrets redacted, in a copy
	if sb, ok := block["session"].(map[string]any); ok {
		if u, ok := sb["url"].(string); ok && redactURL(u) != u {
			raw, copied = maps.Clone(block), true
			sb = maps.Clone(sb)
			sb["url"] = redactURL(u)
			raw["session"] = sb
		}
	}
	for _, k := range []string{"session_secret", "mcp_token_secret"} {
		if v, ok := block[k]; ok && v != nil && v != "" {
			if !copied {
				raw, copied = maps.Clone(block), true
			}
			raw[k] = Redacted
		}
	}
	host := fw.Host
	if host == "" {
		host = defaultHost
	}
	first := c.src.first[bkey]
	return Instance{
		Name:               name,
		ServerType:         serverType,
		Host:               host,
		Port:               fw.Port,
		Domain:             fw.Domain,
		ExposeToolsOverMCP: fw.ExposeToolsOverMCP,
		SessionSecrets:     secrets,
		AllowWeakSecret:    fw.AllowWeakSecret,
		MCPAllowedHosts:    fw.MCPAllowedHosts,
		MaxBodyBytes:       fw.MaxBodyBytes,
		SessionIdleTimeout: fw.SessionIdleTimeout,
		SessionLifetime:    fw.SessionLifetime,
		NoCloseSession:     !fw.CloseSession,
		NoOpenAPI:          !fw.OpenAPI,
		BodyReadTimeout:    fw.BodyReadTimeout,
		ToolTimeout:        fw.ToolTimeout,
		ToolTimeouts:       fw.ToolTimeouts,
		Raw:                raw,
		File:               first.file,
		Line:               first.line,
		src:                c.src,

		MaxJSONDepth:         fw.MaxJSONDepth,
		MaxJSONElements:      fw.MaxJSONElements,
		MaxInflightBodyBytes: fw.MaxInflightBodyBytes,
		MaskInternalErrors:   fw.MaskInternalErrors,
		MCP:                  fw.MCP,
		Auth:                 fw.Auth,
		CORS:                 fw.CORS,
		Metrics:              fw.Metrics,
		Session:              fw.Session,
	}, ps
}

// directiveKeys are NeMo's config directives, which gymkit does not implement.
var directiveKeys = []string{"_inherit_from", "_copy", "_delete_key"}

func directiveMessage(key string) string {
	return fmt.Sprintf("NeMo's %s directive is not supported by gymkit: write the values out", key)
}

func (c *Config) mandatoryProblem(key string) Problem {
	return c.src.problem(key, "??? (a mandatory value) was never set: set it in a config file, in env.yaml or with "+key+"=<value> on the command line", "")
}

// blockProblems reports every ??? and every NeMo directive key left under key.
func (c *Config) blockProblems(key string, v any) Problems {
	var ps Problems
	switch x := v.(type) {
	case string:
		if x == mandatory {
			ps = append(ps, c.mandatoryProblem(key))
		}
	case map[string]any:
		for _, k := range sortedKeys(x) {
			if slices.Contains(directiveKeys, k) {
				ps = append(ps, c.src.problem(joinKey(key, k), directiveMessage(k), ""))
				continue
			}
			ps = append(ps, c.blockProblems(joinKey(key, k), x[k])...)
		}
	case []any:
		for i, item := range x {
			ps = append(ps, c.blockProblems(fmt.Sprintf("%s[%d]", key, i), item)...)
		}
	}
	return ps
}
