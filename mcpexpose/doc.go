// Package mcpexpose is gymkit's MCP door: it serves an instance's typed
// tools over MCP (Streamable HTTP, stateless with JSON responses by default;
// MCP sessions with mcp.stateful) at /mcp,
// reaching the same framework.Tool values, the same rollout session and the
// same errors as the HTTP door, as NeMo Gym's expose_tools_over_mcp does
// (contract section d). Environments never import it: the host (package
// server) wires it when the instance's YAML says expose_tools_over_mcp: true.
//
//	cfg := config.Defaults() // or an instance of config.Load: the mcp block, the limits
//	cfg.Name = "weather"
//	sm := session.MustNewManager(session.Options{CookieName: "example_mcp_weather___weather"})
//	door, err := mcpexpose.New(mcpexpose.Options{Config: &cfg, Secret: secret, Sessions: sm})
//	if err != nil { ... }
//	app, err := host.Build(ctx, new(examplemcpweather.Weather), host.Options{
//		Name:              "weather",
//		Config:            &cfg,
//		AfterSeed:         door.AfterSeed,         // the "mcp" key of /seed_session
//		NormalizeToolName: door.NormalizeToolName, // mcp__weather__get_weather -> get_weather at /verify
//	})
//	if err != nil { ... }
//	if err := door.Attach(app); err != nil { ... } // startup checks, Tools hook, MCP server
//	log.Fatal(http.ListenAndServe("127.0.0.1:8080", sm.Middleware(door.Mount(app.Handler()))))
//
// An agent then seeds over HTTP, reads {"mcp": {"server_name", "url_path",
// "transport", "headers": {"X-NeMo-Gym-Session-Token": ...}}} from the
// answer, and calls tools/list and tools/call on /mcp with that header.
//
// # Talking back to the client
//
// Every tools/call's context carries a host.MCPClient: the tool's
// framework.ReportProgress and framework.LogToClient ride the call's answer,
// which the door turns into an event stream at the first message (a call
// that sends none is answered as JSON); framework.Elicit and
// framework.Confirm need mcp.stateful (a stateless server cannot send
// requests) and refuse otherwise. See docs/mcp.md.
//
// # Tools
//
// The exposed tools are the server's Tools hook's answer
// (framework.ToolsProvider; default: every typed route), validated once at
// [Door.Attach]. tools/list shows them sorted by name, with gymkit's own
// input schema, the output schema of object results and the annotations,
// rendered once at startup. tools/call runs framework's [framework.Tool.Call]
// directly: no fake HTTP request, no second schema inference.
//
// # Sessions and tokens
//
// /seed_session's answer gets a signed token (HMAC-SHA256 under the
// instance's mcp_token_secret) carrying the seed's rollout session id, the
// instance name and the rollout's allow-list (framework.SessionToolFilter:
// nil unrestricted, empty nothing). A tools/call runs in that session
// (session.WithID), so an HTTP call with the cookie and an MCP call with
// the token change the same state.
//
// # Errors
//
// Every tool failure is an isError result whose text is contract d.6's:
// unknown tool, missing or invalid token, not allowed, or
// "HTTP <status> from POST /<tool>: <detail>" (framework.StatusOf); a
// panic is recovered as a 500, and so is a runtime.Goexit (the tool runs
// on a goroutine of the door's, under the HTTP request's context, which a
// client that goes away cancels). Transport errors are JSON-RPC error
// bodies with id "server-error", as NeMo's Python SDK writes them, and
// the messages the go-sdk alone would answer otherwise (batches, odd or
// large ids, unknown methods and notifications, null params, params the
// Python SDK's models refuse such as tools/call arguments that are not an
// object, the protocol-version header's place in the checks, a bad
// Content-Type) get Python's answers, as the recorded answers of NeMo's
// Python servers show them (tests/peerreplay).
//
// # The lean path
//
// A stateless door answers the common requests itself: a POST
// holding one tools/call, tools/list, initialize, ping or
// notifications/initialized of the shapes agents send is read once by the
// door's own reader and answered with the bytes the go-sdk path answers
// (status, headers, body; TestLeanParity and FuzzLeanParity compare the two
// paths), through the same token, allow-list, session and
// framework.Tool.Call code. Everything else (_meta and progress streams,
// other methods, batches, unusual ids, a stateful door) is served by the
// go-sdk as before. mcp.lean: false turns the lean path off. See lean.go for the shapes it takes.
//
// docs/mcp.md describes the door for users: wiring, tokens, allow-lists,
// the differences from Python, and the conformance results.
package mcpexpose
