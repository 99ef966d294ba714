package cli

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"time"

	"github.com/gymkit/gymkit/internal/parentwatch"
)

// The process lifecycle of gymkit serve --nemo (docs/cli.md, "Under NeMo's
// launcher"; what the launcher does is recorded in
// ../shared/data/nemo-launcher/README.md, "How it stops the processes"):
//
//   - the first SIGINT, SIGTERM or SIGHUP stops the server at once
//     (server.Options.StopAtOnce): the launcher waits 1 s per server, one
//     after another, then SIGKILLs it;
//   - the signals after the first are ignored (Main's signalPolicy): Ctrl-C
//     gives each server the terminal's SIGINT and, 1-4 ms later, the
//     launcher's;
//   - the server stops, as at a signal, once the process that started it is
//     gone (internal/parentwatch): a launcher that was SIGKILLed, crashed or
//     got SIGTERM, or the bash of its `(...) | tee` command
//     (nemo_gym_log_dir), leaves its servers running otherwise; a launcher
//     gone before the server started is one error, and nothing is served;
//   - once stopping, the process exits within stopDeadline whatever blocks
//     it (a log write on a stderr nobody reads, a slow config load), with
//     status 1 when the deadline ends it.

// stopDeadline is how long serve --nemo may take to stop once a signal came
// or its parent is gone, before its watchdog ends the process: within the
// 1 s the launcher gives each server.
const stopDeadline = 900 * time.Millisecond

// nemoLifecycle applies serve --nemo's signal policy to ctx (when it comes
// from Main: later signals ignored, SIGHUP handled as SIGTERM, and the
// watchdog that ends the process stopDeadline after the stop began) and
// returns a copy of ctx that is also canceled, with a
// *parentwatch.GoneError cause, once the process that started this one is
// gone; that copy is canceled already when it was gone before the watch
// began. stop ends the watch. It logs, at Debug, what it watches.
func nemoLifecycle(ctx context.Context, log *slog.Logger) (_ context.Context, stop context.CancelFunc) {
	main := nemoSignals(ctx)
	ctx, stop, target := parentwatch.Watch(ctx)
	switch {
	case target.Leader != 0:
		log.Debug("watching the process group leader, since the parent did not start this process: gymkit stops once the leader is gone", "ppid", os.Getppid(), "leader", target.Leader)
	case target.Parent != 0:
		log.Debug("watching the parent process: gymkit stops once it is gone", "ppid", target.Parent)
	default:
		log.Debug("not watching the parent process: started by PID 1 in a process group of its own (or on Windows), gymkit cannot tell when its launcher is gone", "ppid", os.Getppid())
	}
	if main {
		go watchdog(ctx)
	}
	return ctx, stop
}

// watchdog ends the process with status 1 stopDeadline after ctx is done
// with a cause other than context.Canceled (a signal, the parent gone),
// whatever the rest of the process is blocked on. It does no I/O before it
// exits: a write may be what blocks.
func watchdog(ctx context.Context) {
	<-ctx.Done()
	if errors.Is(context.Cause(ctx), context.Canceled) {
		return // stopped by serve itself, on its way out
	}
	time.Sleep(stopDeadline)
	os.Exit(exitError)
}

// parentGoneAtStart reports the cause when ctx (from nemoLifecycle) was
// canceled because the process that started this one was gone before the
// watch began.
func parentGoneAtStart(ctx context.Context) (*parentwatch.GoneError, bool) {
	var gone *parentwatch.GoneError
	if ctx.Err() == nil || !errors.As(context.Cause(ctx), &gone) {
		return nil, false
	}
	return gone, true
}

// portInUseHint is the end of gymkit serve's one-line error for a port
// already in use (server.ListenError).
func portInUseHint(nemo bool) string {
	if nemo {
		return "; NeMo's launcher assigned it (NEMO_GYM_CONFIG_DICT): is a server of an earlier launch still running?"
	}
	return "; stop what listens there, or configure another port (without a port, an instance gets a free one)"
}
