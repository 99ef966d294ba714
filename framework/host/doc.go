// Package host is the framework's API for programs that host environments:
// gymkit's server and MCP door, a host of one's own, tests of hosts.
// Environment authors never need it: what an environment uses is package
// framework (go doc github.com/gymkit/gymkit/framework).
//
// A host builds an environment's routes once ([Build], with the registry's
// factory from [Lookup]), serves the App's HTTP handler inside its own
// layers (the session middleware, body limits, authentication, which puts
// the caller in the request context with [WithPrincipal]), and may expose
// the App's tools over another door: the MCP door (package mcpexpose) calls
// them with [framework.Tool.Call], gives each call its MCP client
// ([WithMCPClient]), and answers a failed call with [MCPErrorText].
//
//	app, err := host.Build(ctx, srv, host.Options{Name: "weather", Logger: log})
//	if err != nil {
//		return err
//	}
//	handler := sessions.Middleware(app.Handler())
//
// Package framework keeps the implementation; this package reaches it
// through an internal bridge, so its functions cost one indirect call.
package host
