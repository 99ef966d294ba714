package server

import (
	"net/http"
	"slices"
	"strings"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/framework/host"
	"github.com/gymkit/gymkit/mcpexpose"
)

// mcpExtension is the MCP door (package mcpexpose) as an [Extension]: built
// into every instance whose config says expose_tools_over_mcp: true, before
// any other extension. Configure makes the door and gives host.Build its
// seams (the "mcp" key of the seed answer, verify-time name normalization);
// Mount attaches the built App (the startup refusals), announces " mcp=<url>"
// on the ready line and serves /mcp, /mcp/ and /ng-rollout/<id>/mcp inside the
// session and body-limit layers.
func mcpExtension() Extension {
	var door *mcpexpose.Door
	return Extension{
		Name: "mcp",
		Configure: func(inst *Instance, opts *host.Options) error {
			d, err := mcpexpose.New(mcpexpose.Options{Config: &inst.Config,
				Secret: inst.secrets[0], OldSecrets: inst.secrets[1:], Sessions: inst.Sessions, Logger: inst.Logger})
			if err != nil {
				return err
			}
			door = d
			inst.mcpRepairs = d.ArgumentRepairs // gymkit_mcp_argument_repairs_total
			inst.mcpTools = d.Tools
			opts.AfterSeed, opts.NormalizeToolName = d.AfterSeed, d.NormalizeToolName
			return nil
		},
		Mount: func(inst *Instance, next http.Handler) (http.Handler, error) {
			if err := door.Attach(inst.App); err != nil {
				return nil, err
			}
			inst.Announce("mcp", mcpexpose.URLPath)
			return door.Mount(next), nil
		},
		OwnsBody: isMCPPath,
	}
}

// isMCPPath reports whether r is for the MCP door: /mcp or /mcp/...,
// possibly under /ng-rollout/<id>/ (the door enforces max_body_bytes itself).
func isMCPPath(r *http.Request) bool {
	p := r.URL.Path
	if rest, ok := strings.CutPrefix(p, "/ng-rollout/"); ok {
		if _, tail, ok := strings.Cut(rest, "/"); ok {
			p = "/" + tail
		}
	}
	return p == mcpexpose.URLPath || strings.HasPrefix(p, mcpexpose.URLPath+"/")
}

// ListedTools returns the tools an unrestricted MCP tools/list of the
// instance lists, sorted by name: the server's Tools hook's answer
// (framework.ToolsProvider: the typed tools it keeps and the tools it mints,
// such as a dispatcher's catch-all tools), or every typed tool without a
// hook, narrowed by mcp.tools. With expose_tools_over_mcp on it is the MCP
// door's own list; with it off, the list the door would show if it were
// on, as gymkit tools shows it (the door's startup checks not applied; nil
// when the Tools hook panicked).
func (in *Instance) ListedTools() []framework.Tool {
	if in.mcpTools != nil {
		return in.mcpTools()
	}
	if in.App == nil {
		return nil
	}
	tools, err := in.App.ExposedTools()
	if err != nil {
		return nil // a panicking Tools hook (the door, when on, failed the startup with it)
	}
	if allow := in.Config.MCP.Tools; allow != nil {
		tools = slices.DeleteFunc(tools, func(t framework.Tool) bool { return !slices.Contains(allow, t.Name) })
	}
	slices.SortStableFunc(tools, func(a, b framework.Tool) int { return strings.Compare(a.Name, b.Name) })
	return tools
}
