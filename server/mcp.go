package server

import (
	"net/http"
	"strings"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/mcpexpose"
)

// mcpExtension is the MCP door (package mcpexpose) as an [Extension]: built
// into every instance whose config says expose_tools_over_mcp: true, before
// any other extension. Configure makes the door and gives framework.Build its
// seams (the "mcp" key of the seed answer, verify-time name normalization);
// Mount attaches the built App (the startup refusals), announces " mcp=<url>"
// on the ready line and serves /mcp, /mcp/ and /ng-rollout/<id>/mcp inside the
// session and body-limit layers.
func mcpExtension() Extension {
	var door *mcpexpose.Door
	return Extension{
		Name: "mcp",
		Configure: func(inst *Instance, opts *framework.Options) error {
			d, err := mcpexpose.New(mcpexpose.Options{
				Instance:       inst.Name,
				ServerType:     inst.ServerType,
				Secret:         inst.secrets[0],
				OldSecrets:     inst.secrets[1:],
				AllowedHosts:   inst.Config.MCPAllowedHosts,
				AllowedOrigins: corsOrigins(inst.Config.CORS),
				Loopback:       mcpexpose.IsLoopback(inst.Config.Host),
				MaxBodyBytes:   inst.MaxBodyBytes,
				JSONLimits: framework.JSONLimits{MaxDepth: inst.Config.MaxJSONDepth,
					MaxElements: inst.Config.MaxJSONElements},
				Sessions: inst.Sessions,
				Logger:   inst.Logger,
				Tools:    inst.Config.MCP.Tools,
				ServerInfo: mcpexpose.ServerInfo{Name: inst.Config.MCP.ServerInfo.Name,
					Version: inst.Config.MCP.ServerInfo.Version, Title: inst.Config.MCP.ServerInfo.Title,
					Instructions: inst.Config.MCP.ServerInfo.Instructions},
				CoerceJSONStrings:       inst.Config.MCP.CoerceJSONStrings,
				Stateful:                inst.Config.MCP.Stateful,
				SessionIdleTimeout:      inst.Config.MCP.SessionIdleTimeout,
				MaxSessionsPerPrincipal: inst.Config.MCP.MaxSessionsPerPrincipal,
				ConfirmTimeout:          inst.Config.MCP.ConfirmTimeout,
				SDKOnly:                 inst.Config.MCP.Lean != nil && !*inst.Config.MCP.Lean,
			})
			if err != nil {
				return err
			}
			door = d
			inst.mcpRepairs = d.ArgumentRepairs // gymkit_mcp_argument_repairs_total
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

// corsOrigins returns cors.allowed_origins (nil without a cors block).
func corsOrigins(c *config.CORSConfig) []string {
	if c == nil {
		return nil
	}
	return c.AllowedOrigins
}
