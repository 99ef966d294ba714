// Package server hosts gymkit's resources-server instances: it loads their
// YAML configuration, builds each instance (its routes, its rollout sessions,
// its body limit and, when its config says so, its /mcp door), binds each to
// its own host:port, serves them, and drains them on shutdown. It is what
// gymkit serve runs:
//
//	package main
//
//	import (
//		"context"
//		"errors"
//		"fmt"
//		"os"
//		"os/signal"
//		"syscall"
//
//		"github.com/gymkit/gymkit/config"
//		"github.com/gymkit/gymkit/server"
//		_ "github.com/gymkit/gymkit/servers/all" // registers the server types
//	)
//
//	func main() {
//		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
//		defer stop()
//		err := server.Run(ctx, server.Options{
//			Files:     []string{"servers/example_mcp_weather/configs/example_mcp_weather.yaml"},
//			Overrides: []string{"example_mcp_weather.resources_servers.example_mcp_weather.port=8000"},
//		})
//		// stdout: example_mcp_weather http://127.0.0.1:8000 mcp=http://127.0.0.1:8000/mcp
//		var problems config.Problems
//		switch {
//		case errors.As(err, &problems):
//			fmt.Fprintln(os.Stderr, problems) // every problem; nothing was bound
//			os.Exit(2)
//		case err != nil:
//			fmt.Fprintln(os.Stderr, err)
//			os.Exit(1)
//		}
//	}
//
// # Instances
//
// [New] loads the configuration (package config), makes a fresh value of each
// instance's server type (host.Lookup), decodes the instance's own keys
// into it, assigns free ports, builds each instance with [NewInstance] and
// binds it. Configuration problems of every instance are reported together,
// as config.Problems, before any port is bound. [NewInstance] alone builds
// one instance from a server value and its config.Instance (loaded, or
// config.Defaults() changed), for tests (package servertest) and in-process
// use.
//
// # Serving and draining
//
// [Host.Serve] serves each instance with its own http.Server, prints one
// ready line per instance ("<instance> http://<host>:<port>") once all are
// serving, and logs every request with log/slog. When its context is done
// (gymkit serve: SIGINT or SIGTERM) it stops accepting connections and lets
// the requests in flight finish, up to [Options.DrainTimeout]. There is a
// [ReadHeaderTimeout] and an [IdleTimeout] but no read or write timeout,
// because a tool call may legitimately take minutes.
//
// # Extensions
//
// An [Extension] adds to each instance while it is built: it may set the
// framework's hooks (host.Options.AfterSeed, NormalizeToolName) before
// the routes are built, wrap the routes or mount routes beside them (inside
// the instance's body limit and session layers), and announce an endpoint on
// the ready line ([Instance.Announce]). The MCP door is built this way, and
// so are GET /openapi.json and GET /docs (see [OpenAPI]; the last extension,
// so that they list every route; config openapi: false leaves them out).
//
// # Health and metrics
//
// Every instance answers GET /health/live (200 while it serves) and GET
// /health/ready (503 while its session store's Ping fails, see
// [StorePinger], or while it drains, see [Instance.Drain] and
// [Options.ReadyDrainDelay]). With metrics.enabled in its config it serves
// its Prometheus metrics at GET /metrics (metrics.path), from a registry of
// its own: tool calls, errors and latency per tool and door, HTTP routes,
// refused seeds, the session store. docs/operations.md lists every metric.
package server
