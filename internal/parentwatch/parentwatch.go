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
// A watch watches one or two processes, chosen when it starts ([Target]):
//
//   - The parent, when its process id is above 1 and it is in this process's
//     process group, or this process leads its own group. The watch reads
//     the parent's id (getppid) every [Interval] and fires when it differs
//     from the one at the start. On Linux and the other Unix systems a
//     process whose parent exits is reparented at once, to PID 1 or to the
//     nearest "subreaper" (prctl PR_SET_CHILD_SUBREAPER: systemd's user
//     manager, tini -s, a test), so its parent id changes then, whatever
//     killed the parent and whichever of its threads started the child.
//   - The leader of this process's group, when this process does not lead
//     its group and its parent is PID 1 (or 0) or a process outside its
//     group. Such a parent did not start this process: it adopted it, since
//     the process that started it had already exited when the watch began
//     (a launcher that dies while its servers are still starting: python
//     takes about 100 ms to run NeMo's app.py). A launcher's children stay
//     in its process group (NeMo's launcher neither starts a session nor
//     moves them: the recording's servers had the launcher's pid as their
//     process group id), so the group's leader stands for the launcher: the
//     watch fires at once when the leader has exited already, and otherwise
//     when it exits (kill(leader, 0) answers ESRCH, or, on Linux, the leader
//     is a zombie), read every [Interval]. A leader's process id is not
//     reused while its group has members.
//
// Linux's PR_SET_PDEATHSIG is not used: it fires when the parent *thread*
// that forked the child exits, even if the parent process lives on (a
// Python launcher may spawn from a worker thread), and a parent that dies
// before the child sets it is missed.
//
// What it cannot tell: a process whose parent is PID 1 (or 0) and which
// leads its own process group (or is in PID 1's) was either started by init
// (a container's entrypoint, or a launcher that is itself PID 1) or by a
// launcher that started it in a group of its own and died before the watch
// began; nothing is watched then. A process whose parent is alive watches
// that parent only: when the parent outlives the launcher (the bash of
// `(...) | tee` when the launcher is SIGKILLed, which bash survives), the
// watch does not fire. A process started in another group than its
// launcher's whose launcher died before the watch began watches the
// subreaper it was given, or nothing. On Windows a process's parent id does
// not change when the parent exits and there are no process groups, so
// nothing is watched there.
package parentwatch

import (
	"context"
	"fmt"
	"os"
	"time"
)

// Interval is how often a watch reads the parent's process id and, when it
// watches one, whether the group leader is alive: the watch fires at most
// this long after either is gone. One or two system calls per interval.
const Interval = 100 * time.Millisecond

// GoneError is the cause (context.Cause) of a watch's context once the
// process that started this one is gone.
type GoneError struct {
	Parent int // the parent's process id when the watch started
	Now    int // the parent's process id when the watch fired: 1, or a subreaper's
	// Leader is the process group leader whose exit fired the watch, or 0
	// when the parent id changed.
	Leader int
}

// Error says which process is gone: "the process that started this one
// (pid 123) is gone: the parent is now pid 1" when the parent changed, and
// "the process that started this one is gone: the leader of its process
// group (pid 123) has exited, and the parent is pid 1" when the group
// leader fired the watch.
func (e *GoneError) Error() string {
	if e.Leader != 0 {
		return fmt.Sprintf("the process that started this one is gone: the leader of its process group (pid %d) has exited, and the parent is pid %d", e.Leader, e.Now)
	}
	return fmt.Sprintf("the process that started this one (pid %d) is gone: the parent is now pid %d", e.Parent, e.Now)
}

// Target is what a watch watches (see the package documentation).
type Target struct {
	// Parent is the parent's process id at the start, watched until this
	// process's parent id differs from it; 0 when the parent is not watched
	// (it is PID 1 or 0, or on Windows).
	Parent int
	// Leader is the process id of this process's group leader, watched
	// until it exits; 0 when the group is not watched.
	Leader int
}

// Watch returns a copy of ctx that is canceled, with a [*GoneError] as its
// cause, once the process that started this one is gone, and what it
// watches. When the group leader it would watch has exited already, the
// returned context is canceled before Watch returns, and Target.Leader
// names it. The watch runs in one goroutine, which ends with the returned
// context (stop, ctx done, or the watch fired). stop cancels the context
// (cause context.Canceled) and ends the watch; call it once the context is
// no longer needed.
//
// When nothing can be watched (Target is zero: see the package
// documentation), the context ends only with ctx or stop. Watch may be
// called any number of times, from any goroutine; each call is its own
// watch.
func Watch(ctx context.Context) (_ context.Context, stop context.CancelFunc, target Target) {
	wctx, cancel := context.WithCancelCause(ctx)
	stop = func() { cancel(context.Canceled) }
	target = choose()
	started := os.Getppid()
	gone := func() *GoneError {
		now := os.Getppid()
		switch {
		case target.Parent != 0 && now != target.Parent:
			return &GoneError{Parent: target.Parent, Now: now}
		case target.Leader != 0 && !alive(target.Leader):
			return &GoneError{Parent: started, Now: now, Leader: target.Leader}
		}
		return nil
	}
	if target.Leader != 0 {
		if err := gone(); err != nil {
			cancel(err)
			return wctx, stop, target
		}
	}
	if target == (Target{}) {
		return wctx, stop, target
	}
	go func() {
		t := time.NewTicker(Interval)
		defer t.Stop()
		for {
			select {
			case <-wctx.Done():
				return
			case <-t.C:
				if err := gone(); err != nil {
					cancel(err)
					return
				}
			}
		}
	}()
	return wctx, stop, target
}
