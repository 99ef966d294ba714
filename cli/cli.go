// Package cli is the gymkit command as a library: every subcommand, flag,
// help text and config check of the gymkit binary, for a program of your own
// module that carries only your environments. A user's main.go is three lines:
//
//	package main
//
//	import (
//		"context"
//		"os"
//
//		"github.com/gymkit/gymkit/cli"
//		_ "example.com/myenvs/servers/myenv" // registers the myenv server type
//	)
//
//	func main() { os.Exit(cli.Main(context.Background(), os.Args)) }
//
// The package imports no environment (nothing of servers/...), so the binary
// registers exactly the server types its main package imports, and needs no
// cgo unless one of them does. gymkit's own binary (cmd/gymkit) is the same
// three lines with servers/all.
//
// The subcommands (docs/cli.md has them all):
//
//	gymkit serve --config FILE [--config FILE ...] [flags] [key=value ...]
//	gymkit serve --nemo            (under NeMo's launcher: NEMO_GYM_CONFIG_DICT, NEMO_GYM_CONFIG_PATH)
//	gymkit rollout --config FILE --input ROWS.jsonl --output RESULTS.jsonl [--door http|mcp] [flags]
//	gymkit compare --reference URL --config FILE --input ROWS.jsonl [--door http|mcp] [--allow FILE] [--report FILE]
//	gymkit check --config FILE ... [key=value ...]
//	gymkit check --nemo [--search-dir DIR ...] CONFIG ... [key=value ...]   (what gym env start would do)
//	gymkit config --config FILE ... [key=value ...]
//	gymkit tools --config FILE [--instance NAME] [--seed JSON|@file] [--json]
//	gymkit types
//	gymkit new NAME [--dispatcher] [--module PATH] [--dir DIR]
//	gymkit help [command]
//	gymkit --version (or any subcommand's --version)
//
// gymkit serve loads the YAML configuration (NeMo Gym's layout; see
// docs/config.md), serves every resources-server instance it names on its own
// host:port, prints one ready line per instance on stdout
// ("<instance> http://<host>:<port>") and drains on SIGINT or SIGTERM (under
// --nemo it stops at once instead, and also when its parent process is gone:
// docs/cli.md, "Under NeMo's launcher").
//
// gymkit rollout replays dataset rows (recorded trajectories or ground-truth
// calls) through an instance's HTTP or MCP door, verifies each rollout and
// writes NeMo Gym's collector files (results, failures sidecar, aggregate
// metrics).
//
// gymkit compare replays the same rows against a reference server (the
// Python original) and a gymkit instance, step by step through rollout's
// client, and reports every difference of status, content type, Set-Cookie
// attributes and body (with Python's number forms) that an allow-list file
// does not accept.
//
// Exit status of serve: 0 after a clean shutdown or help; 1 when an instance
// fails to build, bind or serve, or the drain times out; 2 for a usage or
// configuration error (every problem is listed and nothing is bound). Of
// rollout: 0 when every rollout succeeded, 1 when any failed (the files are
// written all the same), 2 for a usage, configuration or input error. Of
// compare: 0 when every difference is allowed, 1 when one is not (or a
// step got no answer), 2 for a usage, configuration, input or allow-list
// error.
package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
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
var commands = []*command{serveCommand, rolloutCommand, compareCommand, checkCommand, configCommand, toolsCommand, typesCommand, newCommand}

const mainUsage = `gymkit runs gymkit resources servers: the HTTP servers that NeMo Gym's agents call
during a rollout (seed_session, tools, verify, aggregate_metrics).

Usage:

	gymkit <command> [arguments]

Commands:

%s
Run "gymkit help <command>" or "gymkit <command> --help" for a command's usage.
`

// Main runs the gymkit command line and returns its exit status, for
// os.Exit: args is the whole command line with the program name first
// (os.Args), stdout and stderr are the process's. ctx is also done at the
// first SIGINT or SIGTERM, with the cause "interrupt signal received" or
// "terminated signal received" (serve then drains, serve --nemo stops at
// once, rollout stops starting rollouts); a second signal ends the process
// at once (Go's default). Under serve --nemo, SIGHUP counts as SIGTERM
// ("hangup signal received"; not when it was ignored at start, as under
// nohup), every signal after the first is ignored
// (NeMo's launcher sends a second SIGINT right after the terminal's), and
// the process exits within 900 ms of the first whatever blocks it
// (docs/cli.md). The exit statuses are 0 (success or help), 1 (a build,
// bind, serve, drain or rollout failure) and 2 (a usage or configuration
// error); each subcommand's help states its own.
//
// Main may be called once per process (it installs the signal handler);
// [Run] is the same without signals or process streams.
func Main(ctx context.Context, args []string) int {
	policy := &signalPolicy{sigs: make(chan os.Signal, 1)}
	ctx, cancel := context.WithCancelCause(context.WithValue(ctx, signalPolicyKey{}, policy))
	defer cancel(nil)
	signal.Notify(policy.sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig := <-policy.sigs
		cancel(signalCause{sig})
		if !policy.absorb.Load() {
			signal.Stop(policy.sigs) // a second signal ends the process at once
			return
		}
		for range policy.sigs { // serve --nemo: later signals change nothing
		}
	}()
	if len(args) > 0 {
		args = args[1:]
	}
	return Run(ctx, args, os.Stdout, os.Stderr)
}

// signalPolicy is what Main does with the signals after the first. Main
// puts it in the context it gives the subcommand; a subcommand sets absorb
// (serve --nemo) before it starts its work.
type signalPolicy struct {
	sigs   chan os.Signal // Main's signal channel
	absorb atomic.Bool    // ignore every later SIGINT, SIGTERM and SIGHUP
}

type signalPolicyKey struct{}

// nemoSignals applies serve --nemo's signal policy when ctx comes from
// Main: SIGHUP is caught as SIGTERM is (the first cancels ctx), unless the
// process was started with SIGHUP ignored (nohup), and every signal after
// the first is ignored until the process exits. It reports whether ctx
// comes from Main; under Run it does nothing.
func nemoSignals(ctx context.Context) bool {
	p, ok := ctx.Value(signalPolicyKey{}).(*signalPolicy)
	if ok {
		p.absorb.Store(true)
		if !signal.Ignored(syscall.SIGHUP) {
			signal.Notify(p.sigs, syscall.SIGHUP)
		}
	}
	return ok
}

// signalCause is the cause of Main's context at the first signal; its text
// is signal.NotifyContext's ("interrupt signal received").
type signalCause struct{ sig os.Signal }

func (c signalCause) Error() string { return c.sig.String() + " signal received" }

// Run is gymkit with the arguments after the program name (os.Args[1:]),
// writing on stdout and stderr; it returns the exit status (see [Main]).
// ctx done asks a running serve or rollout to stop. Run installs no signal
// handler and is safe to call from tests, one call at a time per set of
// writers; each call is independent of the others except that all share
// the process's registered server types (framework.Register).
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usageText())
		return exitUsage
	}
	name, rest := args[0], args[1:]
	if wantsVersion(args) {
		fmt.Fprint(stdout, versionText())
		return exitOK
	}
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
	list += fmt.Sprintf("\t%-8s %s\n", "--version", "print gymkit's version (also after any command)")
	return fmt.Sprintf(mainUsage, list)
}

// wantsVersion reports whether --version (or -version) is among the
// arguments before "--": every subcommand then prints the version.
func wantsVersion(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "--version", "-version":
			return true
		}
	}
	return false
}
