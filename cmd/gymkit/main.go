// Command gymkit runs gymkit resources servers: the HTTP servers that NeMo
// Gym's agents call during a rollout.
//
//	gymkit serve --config FILE [--config FILE ...] [flags] [key=value ...]
//	gymkit rollout --config FILE --input ROWS.jsonl --output RESULTS.jsonl [--door http|mcp] [flags] [key=value ...]
//	gymkit help [command]
//
// gymkit serve loads the YAML configuration (NeMo Gym's layout; see
// docs/config.md), serves every resources-server instance it names on its own
// host:port, prints one ready line per instance on stdout
// ("<instance> http://<host>:<port>") and drains on SIGINT or SIGTERM. Run
// "gymkit serve --help" for the flags and the override syntax.
//
// gymkit rollout replays dataset rows (recorded trajectories or ground-truth
// calls) through an instance's HTTP or MCP door, verifies each rollout and
// writes NeMo Gym's collector files (results, failures sidecar, aggregate
// metrics). Run "gymkit rollout --help".
//
// Exit status of serve: 0 after a clean shutdown or help; 1 when an instance
// fails to build, bind or serve, or the drain times out; 2 for a usage or
// configuration error (every problem is listed and nothing is bound). Of
// rollout: 0 when every rollout succeeded, 1 when any failed (the files are
// written all the same), 2 for a usage, configuration or input error.
//
// The binary includes every environment of servers/all.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	_ "github.com/gymkit/gymkit/servers/all" // registers the shipped server types
)

// Exit statuses.
const (
	exitOK    = 0
	exitError = 1 // build, bind, serve or drain failure
	exitUsage = 2 // bad arguments or configuration
)

// command is a gymkit subcommand.
type command struct {
	name    string
	summary string // one line for the command list
	usage   string // the complete help text
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) int
}

// commands are the subcommands in the order of the help text.
var commands = []*command{serveCommand, rolloutCommand}

const mainUsage = `gymkit runs gymkit resources servers: the HTTP servers that NeMo Gym's agents call
during a rollout (seed_session, tools, verify, aggregate_metrics).

Usage:

	gymkit <command> [arguments]

Commands:

%s
Run "gymkit help <command>" or "gymkit <command> --help" for a command's usage.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // the first signal drains; a second one ends the process at once
	}()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run is gymkit with the arguments after the program name; it returns the
// exit status. ctx is done when the process is asked to stop.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usageText())
		return exitUsage
	}
	name, rest := args[0], args[1:]
	switch name {
	case "-h", "-help", "--help":
		fmt.Fprint(stdout, usageText())
		return exitOK
	case "help":
		switch {
		case len(rest) == 0:
			fmt.Fprint(stdout, usageText())
			return exitOK
		case len(rest) == 1 && lookupCommand(rest[0]) != nil:
			fmt.Fprint(stdout, lookupCommand(rest[0]).usage)
			return exitOK
		}
		fmt.Fprintf(stderr, "gymkit help: unknown command %q\n\n%s", rest[0], usageText())
		return exitUsage
	}
	if c := lookupCommand(name); c != nil {
		return c.run(ctx, rest, stdout, stderr)
	}
	fmt.Fprintf(stderr, "gymkit: unknown command %q\n\n%s", name, usageText())
	return exitUsage
}

func lookupCommand(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

func usageText() string {
	list := ""
	for _, c := range commands {
		list += fmt.Sprintf("\t%-8s %s\n", c.name, c.summary)
	}
	list += fmt.Sprintf("\t%-8s %s\n", "help", "show the help of a command")
	return fmt.Sprintf(mainUsage, list)
}
