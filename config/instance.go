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

// metadataKeys are framework keys NeMo's tools read (not gymkit): accepted with any value.
var metadataKeys = []string{"verified", "description", "value", "datasets", "allowed_agents", "allowed_model_types"}

// secretKeys are the keys the instance secrets are read from (see
// Config.secrets): framework keys without a field of their own.
var secretKeys = []string{"session_secret", "mcp_token_secret"}

// frameworkKeys are every key of a server block that is not the server's
// own: the koanf keys of Instance, secretKeys and metadataKeys.
var frameworkKeys = func() []string {
	keys := append(slices.Clone(metadataKeys), secretKeys...)
	t := reflect.TypeFor[Instance]()
	for i := range t.NumField() {
		if k := t.Field(i).Tag.Get("koanf"); k != "" && k != "-" {
			keys = append(keys, k)
		}
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
// It is the one settings struct of an instance: the framework's keys of the block are its fields
// (the koanf tag names the key; docs/config.md lists them all), decoded and type-checked by Load
// over [Defaults], the only place their defaults are written; the host, the MCP door and the
// framework read them from here. session_secret and its older name mcp_token_secret are read
// into SessionSecrets, and NeMo's metadata keys verified, description, value, datasets,
// allowed_agents and allowed_model_types are accepted with any value. For these keys null means
// the default, as if absent. Every other key belongs to the server ([Instance.Decode]), where
// null is pydantic's None: the field's zero value, not its default.
//
// A new framework key is a field here (with its koanf tag, its doc comment and, if it has one,
// its default in [Defaults]), a row in docs/config.md (TestDocsListEveryKey fails without it) and
// the code that reads it.
type Instance struct {
	// Name is the top-level key: the MCP server_name, the session cookie suffix, the log field.
	Name string
	// ServerType is the single key under resources_servers, the framework.Register name.
	ServerType string
	// Entrypoint (entrypoint) is NeMo's Python entry point: accepted, not used.
	Entrypoint string `koanf:"entrypoint"`
	// NumWorkers (num_workers) is accepted, not used: one gymkit process serves every request
	// of an instance concurrently.
	NumWorkers int `koanf:"num_workers"`
	// Host is the address to listen on: host, else the top-level default_host, else 127.0.0.1
	// (with use_absolute_ip: true, this host's IPv4 address instead of default_host).
	Host string `koanf:"host"`
	// Port is the TCP port; 0 (port absent, null or 0) until [Config.AssignPorts] picks one.
	Port int `koanf:"port"`
	// Domain is one of NeMo's domains: math, coding, agent, knowledge, instruction_following,
	// long_context, safety, games, translation, e2e, rlhf, other. Required.
	Domain string `koanf:"domain"`
	// ExposeToolsOverMCP serves the tools over MCP at /mcp too (expose_tools_over_mcp, default false).
	ExposeToolsOverMCP bool `koanf:"expose_tools_over_mcp"`
	// SessionSecrets are the instance secrets (session_secret, a string or a list of strings; or
	// its older name mcp_token_secret, refused when both are set to different values): the first
	// signs the session cookies and the MCP session tokens (under distinct derived keys), and all
	// verify them, for rotation. nil when unset, empty or an empty list (the host then uses a
	// random per-process secret, with a warning); an entry is never empty. It prints redacted
	// (see [Secrets]).
	SessionSecrets Secrets `koanf:"-"`
	// AllowWeakSecret (allow_weak_secret, default false) lets the host accept secrets that break
	// the strength rule (session.CheckSecret: at least 32 bytes, at least 10 distinct), with a
	// warning: for development only.
	AllowWeakSecret bool `koanf:"allow_weak_secret"`
	// MCPAllowedHosts are extra Host header values the MCP door accepts (mcp_allowed_hosts); nil
	// when not configured.
	MCPAllowedHosts []string `koanf:"mcp_allowed_hosts"`
	// MaxBodyBytes limits request bodies on both doors (max_body_bytes, > 0; default
	// [DefaultMaxBodyBytes], 16 MiB).
	MaxBodyBytes int64 `koanf:"max_body_bytes"`
	// SessionIdleTimeout (session_idle_timeout, > 0; default [DefaultSessionIdleTimeout], 1h)
	// ends a rollout session that had no request for that long: its cookie is refused and its
	// state dropped.
	SessionIdleTimeout time.Duration `koanf:"session_idle_timeout"`
	// SessionLifetime (session_lifetime, > 0; default [DefaultSessionLifetime], 336h) ends a
	// rollout session that long after its first answer, however active: the cookie's Max-Age.
	SessionLifetime time.Duration `koanf:"session_lifetime"`
	// CloseSession is close_session (default true): false makes POST /close_session answer 404
	// instead of freeing the rollout's state. It stays a reserved name either way.
	CloseSession bool `koanf:"close_session"`
	// OpenAPI is openapi (default true): false makes GET /openapi.json and GET /docs answer 404
	// {"detail":"Not Found"}, as FastAPI(openapi_url=None) does.
	OpenAPI bool `koanf:"openapi"`
	// BodyReadTimeout (body_read_timeout, > 0; default [DefaultBodyReadTimeout], 30s) bounds how
	// long a client may take to send a request body once its headers are read; it does not limit
	// how long a tool runs.
	BodyReadTimeout time.Duration `koanf:"body_read_timeout"`
	// ToolTimeout (tool_timeout, >= 0; default 0, no limit) bounds every tool call on both doors:
	// a call still running after it is answered 504 {"detail":"Tool '<name>' timed out after
	// <d>"} (over MCP the isError "HTTP 504 from POST /<name>: ..."), its context is canceled,
	// the answer does not wait for the handler, and a session.Update it makes from then on
	// writes nothing (session.ErrDeadline). Not /seed_session, /verify or /aggregate_metrics.
	ToolTimeout time.Duration `koanf:"tool_timeout"`
	// ToolTimeouts (tool_timeouts, a mapping of tool name to duration, each >= 0; 0 is no limit)
	// replace ToolTimeout for the tools they name; nil when not configured. Without a Dispatch
	// route every name must be a typed tool's (the instance does not start otherwise); with
	// one, any name may be a dispatcher tool.
	ToolTimeouts map[string]time.Duration `koanf:"tool_timeouts"`
	// MaxJSONDepth (max_json_depth, 1-1000; default [DefaultMaxJSONDepth], 1000) bounds the
	// nesting of arrays and objects in a request body, on both doors: a deeper body is answered
	// 413 {"detail": "Request body nested too deeply: ... (max_json_depth)"}.
	MaxJSONDepth int `koanf:"max_json_depth"`
	// MaxJSONElements (max_json_elements, > 0; default [DefaultMaxJSONElements], 2,000,000)
	// bounds the JSON values of a request body (every scalar, array and object counts one),
	// on both doors, checked while parsing so that the memory a parse takes is bounded by it: a
	// body with more is answered 413 {"detail":"Request body too complex: ...
	// (max_json_elements)"}.
	MaxJSONElements int `koanf:"max_json_elements"`
	// MaxInflightBodyBytes (max_inflight_body_bytes, > 0; default
	// [DefaultMaxInflightBodyBytes], 256 MiB) bounds the bytes of the request bodies that one
	// instance reads and holds at once; a request that does not fit within a second is answered
	// 503 with Retry-After. The host raises a value below MaxBodyBytes + 1 to it.
	MaxInflightBodyBytes int64 `koanf:"max_inflight_body_bytes"`
	// MaskInternalErrors (mask_internal_errors, default false) replaces the detail of every 500
	// answer, on both doors, with "Internal error (id <id>)", <id> being 16 random hex digits
	// logged ("internal error masked", at Error) with the real error: HTTP keeps the shape (a
	// JSON string for a plain error or a panic, {"detail": ...} for an Errorf 500); over MCP the
	// isError text is "HTTP 500 from POST /<tool>: Internal error (id <id>)". Other statuses, a
	// detail an environment's ErrorTexter chose, and the MCP door's own answers are left alone.
	MaskInternalErrors bool `koanf:"mask_internal_errors"`
	// MCP is the mcp block (mcp.tools, mcp.server_info, mcp.coerce_json_strings, ...): how the
	// MCP door presents the instance to MCP clients; its defaults are NeMo Gym's behaviour.
	MCP MCPConfig `koanf:"mcp"`
	// Auth is the auth block: bearer authentication of /mcp (and, with auth.http, of the HTTP
	// routes); nil (absent or null) authenticates nothing, as NeMo Gym.
	Auth *AuthConfig `koanf:"auth"`
	// CORS is the cors block: the origins whose browsers may call /mcp; nil (absent or null)
	// allows none.
	CORS *CORSConfig `koanf:"cors"`
	// Metrics is the metrics block (metrics.enabled, metrics.path, metrics.auth): the
	// instance's Prometheus endpoint; Enabled false (the default) serves none.
	Metrics MetricsConfig `koanf:"metrics"`
	// Session is the session block: where rollout state is kept (session.store: memory, the
	// default, or redis with session.url; see [SessionConfig]).
	Session SessionConfig `koanf:"session"`
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

	// The framework keys decode over the defaults: a key the block does not set (or sets to
	// null) keeps its default. An absent host is default_host.
	fw := Defaults()
	fw.Host = defaultHost
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
	if v, ok := data["host"]; ok && v != nil && !bad["host"] { // null: default_host, checked where it is set
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
	if fw.Session.Prefix == "" {
		fw.Session.Prefix = DefaultSessionPrefix(name)
	}
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
	if fw.Host == "" {
		fw.Host = defaultHost
	}
	first := c.src.first[bkey]
	fw.Name, fw.ServerType = name, serverType
	fw.SessionSecrets = secrets
	fw.Raw, fw.File, fw.Line, fw.src = raw, first.file, first.line, c.src
	return fw, ps
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
