// Package parentwatch notices that the process that started this one is
// gone, so that a server started by a launcher does not outlive it.
//
// gymkit serve --nemo uses it (docs/cli.md, "Under NeMo's launcher"): NeMo's
// launcher starts each server as its child and stops it with SIGINT, but a
// launcher that is SIGKILLed, crashes, gets SIGTERM, or runs its servers
// under `(...) | tee` (its nemo_gym_log_dir setting: the server's parent is
// then a bash the launcher SIGKILLs, and the server gets no SIGINT) leaves
// its servers running, reparented
// (../shared/data/nemo-launcher/README.md, "How it stops the processes").
//
// The watch reads the parent's process id (getppid) every [Interval] and
// fires when it differs from the one at the start. On Linux and the other
// Unix systems a process whose parent exits is reparented at once, to PID 1
// or to the nearest "subreaper" (prctl PR_SET_CHILD_SUBREAPER: systemd's user
// manager, tini -s, a test), so its parent id changes then, whatever killed
// the parent and whichever of its threads started the child. Linux's
// PR_SET_PDEATHSIG is not used: it fires when the parent *thread* that forked
// the child exits, even if the parent process lives on (a Python launcher
// may spawn from a worker thread), and a parent that dies before the child
// sets it is missed.
//
// What it cannot tell: a process whose parent is PID 1 (or 0) when the
// watch starts was either started by init (a container's entrypoint, or a
// launcher that is itself PID 1) or orphaned before it looked; both are
// served, and nothing is watched. A launcher that dies in the few tens of
// milliseconds between starting the child and the watch (for gymkit under
// NeMo: while python runs app.py, before it execs gymkit) leaves the child
// with PID 1 or a subreaper as its parent at the start: PID 1 is not
// watched, a subreaper is watched as if it were the launcher. On Windows a
// process's parent id does not change when the parent exits, so nothing is
// watched there either.
package parentwatch

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"time"
)

// Interval is how often a watch reads the parent's process id: the watch
// fires at most this long after the parent is gone. One getppid call per
// interval.
const Interval = 100 * time.Millisecond

// GoneError is the cause (context.Cause) of a watch's context once the
// parent is gone.
type GoneError struct {
	Parent int // the parent's process id when the watch started
	Now    int // the parent's process id now: 1, or a subreaper's
}

// Error names both process ids: "the process that started this one (pid
// 123) is gone: the parent is now pid 1".
func (e *GoneError) Error() string {
	return fmt.Sprintf("the process that started this one (pid %d) is gone: the parent is now pid %d", e.Parent, e.Now)
}

// Watch returns a copy of ctx that is canceled, with a [*GoneError] as its
// cause, once this process's parent id differs from the one it has now, and
// the parent id it watches. The watch reads the parent id every [Interval]
// in one goroutine, which ends with the returned context (stop, ctx done,
// or the parent gone). stop cancels the context (cause context.Canceled)
// and ends the watch; call it once the context is no longer needed.
//
// When the parent id is 0 or 1 now, or on Windows (see the package
// documentation), nothing is watched: the returned id is 0 and the context
// ends only with ctx or stop. Watch may be called any number of times, from
// any goroutine; each call is its own watch.
func Watch(ctx context.Context) (_ context.Context, stop context.CancelFunc, parent int) {
	wctx, cancel := context.WithCancelCause(ctx)
	stop = func() { cancel(context.Canceled) }
	parent = os.Getppid()
	if parent <= 1 || runtime.GOOS == "windows" {
		return wctx, stop, 0
	}
	go func() {
		t := time.NewTicker(Interval)
		defer t.Stop()
		for {
			select {
			case <-wctx.Done():
				return
			case <-t.C:
				if now := os.Getppid(); now != parent {
					cancel(&GoneError{Parent: parent, Now: now})
					return
				}
			}
		}
	}()
	return wctx, stop, parent
}
