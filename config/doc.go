// Package config loads gymkit's instance configuration: NeMo Gym's YAML layout, merged from
// several files, env.yaml and command-line overrides, with OmegaConf-style interpolation, and
// checked strictly so that every mistake is reported, with its file, line, key path and the
// closest known key, before any port is bound.
//
// # Use
//
//	cfg, err := config.Load(config.LoadOptions{Files: files, Overrides: overrides})
//	// err is config.Problems: print it and exit 2.
//	var problems config.Problems
//	for _, inst := range cfg.Instances() {
//		srv := newServer(inst.ServerType)
//		var ps config.Problems
//		if err := inst.Decode(srv); errors.As(err, &ps) {
//			problems = append(problems, ps...) // report every instance's problems at once
//		}
//	}
//	err = cfg.AssignPorts(nil) // then Instances() have their ports
//
// # Layout
//
//	example_mcp_weather:               # instance name
//	  resources_servers:
//	    example_mcp_weather:           # server type (framework.Register name)
//	      domain: agent                # required, one of NeMo's domains
//	      port: 8080                   # optional; a free port in [10001, 20000] otherwise
//	      default_city: Paris          # the server's own keys: Instance.Decode
//
// An instance is a top-level key whose value holds a resources_servers mapping with exactly one
// server type. Blocks of agents and models (responses_api_agents, responses_api_models,
// environment_servers) are skipped with an Info log line naming them; NeMo's reserved top-level
// keys (config_paths, default_host, head_server, disallowed_ports, port_range_low,
// port_range_high, use_absolute_ip, ..., uv_*) are never instances. A block whose key is close to
// resources_servers ("resource_servers") is reported rather than silently ignored. See
// [Instance] for the framework's keys of a server block. A top-level port or host (an override
// port=8000), or another framework key of a server block (metrics.enabled=true, session.store,
// mcp.lean, tool_timeout, session_secret, ...; not NeMo's metadata keys such as description),
// is refused with the full key suggested when there is one instance: they belong to one instance.
// A framework-named top-level value that an interpolation reads (mcp: true and ${mcp}) is allowed.
//
// A server's own keys are its struct's koanf-tagged fields ([Instance.Decode]). There a key set
// to null is pydantic's None, not the default: the field gets its zero value (nil for a
// pointer, slice, map or interface), while an absent key keeps the factory's default; for the
// framework's keys null means the default ([Defaults] holds every default of the framework
// keys). A field tagged required:"true" must be set, and a
// relative [Path] value resolves against its server folder: the folder holding configs/ for a
// value set in <folder>/configs/<name>.yaml, the working directory (LoadOptions.WorkDir) for one
// set anywhere else (another file, env.yaml even in a folder named configs, the dict, the
// command line).
//
// # Merge order
//
//  1. LoadOptions.Files in order, each after the files its top-level config_paths pulls in
//     (NeMo's rule: an included file is overridden by the file that includes it; siblings in
//     listed order). config_paths may also be given in env.yaml or as an override
//     ("+config_paths=[a.yaml,b.yaml]", NeMo's legacy way); those files come after
//     LoadOptions.Files. A file already loaded is not loaded again. Relative paths are resolved
//     against LoadOptions.WorkDir.
//  2. env.yaml from LoadOptions.WorkDir, when it exists (conventionally secrets and
//     ${policy_base_url}-style values).
//  3. LoadOptions.Overrides, in order.
//
// Mappings merge deeply; a scalar or list replaces what was there; null replaces too.
//
// # Under NeMo's launcher
//
// NeMo Gym's launcher (gym env start) hands each server process the whole merged configuration
// as YAML in NEMO_GYM_CONFIG_DICT, and the name of the instance to serve in
// NEMO_GYM_CONFIG_PATH. [LoadOptions].Dict takes the former for what it is, the merged
// configuration: it is the first layer, nothing else is read from the file system (no
// config_paths, no env.yaml; LoadOptions.Files and Overrides still merge after it), and its
// problems name it like a file (NEMO_GYM_CONFIG_DICT:12: key: message). [LoadOptions].Instance
// takes the latter: only that instance is discovered, validated and returned, while every
// other block (other instances, Python servers of types gymkit does not know, agents, models,
// global values) stays in the tree for the instance's interpolations and [Config.Lookup].
//
//	cfg, err := config.Load(config.LoadOptions{
//		Dict:     []byte(os.Getenv("NEMO_GYM_CONFIG_DICT")),
//		Instance: os.Getenv("NEMO_GYM_CONFIG_PATH"),
//	})
//
// # Interpolation
//
// After merging, values are resolved on demand (only what a started instance or a top-level
// setting needs, so an agent block's unresolved ${policy_base_url} is not an error):
//
//	${a.b.c}              the value at a.b.c of the merged tree; list items as ${a.l[0]} or ${a.l.0}
//	${.x} ${..x}          relative: x in the same mapping, or in the mapping above it
//	port: ${base.port}    a value that is exactly one interpolation keeps its type (int, bool, map, list)
//	url: http://${h}:${p} anything else is a string; scalars render as 8080, true, 0.5, null
//	${oc.env:NAME}        environment variable NAME; an error when it is unset
//	${oc.env:NAME,dflt}   with a default (a string, '' quoted, null, or a nested ${...})
//	${oc.decode:${oc.env:PORT,8080}}  a string read as a YAML scalar or flow value (here an int)
//	\${not.a.reference}   a literal ${
//
// Interpolations nest (${oc.env:X,${a.b}}, ${servers.${name}.port}). A reference to a missing
// key is a problem naming it (with the closest existing key), a cycle is a problem showing it
// (a.b -> c -> a.b), a reference to a ??? value is a problem, and a mapping or list cannot be
// part of a longer string.
//
// ??? (OmegaConf's mandatory value) is a problem when it is left anywhere in the server block of
// an instance, or in a top-level setting gymkit reads; elsewhere (agent blocks, unused keys) it
// is fine.
//
// # Ports and hosts
//
// An instance's host defaults to default_host, else 127.0.0.1 (with use_absolute_ip: true, to
// the host's IPv4 address). Ports are assigned by [Config.AssignPorts], NeMo's way.
//
// # Not supported
//
//   - NeMo's _inherit_from, _copy and _delete_key directives and the ${inherit_from:...} and
//     ${copy:...} resolvers: reported as problems in a server block or as a top-level block,
//     never silently ignored there. OmegaConf resolvers other than oc.env and oc.decode
//     (oc.select, oc.create, oc.dict.*, ...) are problems too.
//   - Hydra's ~key deletion override; list indices in override keys (a.l[0]=x); keys that
//     contain dots (koanf's delimiter).
//   - env.yaml lookup in NEMO_GYM_EXTRA_ROOTS or the NeMo install root (only WorkDir), and NeMo's
//     legacy config path aliases.
//   - An instance whose top-level value is itself an interpolation (`my_server: ${other}`):
//     instance blocks must be mappings in the files.
//   - YAML 1.1 spellings: yes/no/on/off are strings in YAML 1.2 (Decode still converts them for
//     bool fields). Dates (2024-01-01) stay strings, as in OmegaConf. Inside a longer string,
//     true and null render as "true" and "null", not Python's "True" and "None".
package config
