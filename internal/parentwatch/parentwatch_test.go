//go:build unix

package parentwatch_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gymkit/gymkit/internal/parentwatch"
)

// roleEnv makes the test binary play a part in a process tree (see
// TestMain) instead of running the tests; parentEnv is the pid of the
// process that started it.
const (
	roleEnv   = "PARENTWATCH_TEST_ROLE"
	parentEnv = "PARENTWATCH_TEST_PARENT"
)

// The parts:
//   - "parent" starts a "child" (stdout shared) and waits forever;
//   - "child" watches, prints "watching <parent> <leader> <ppid>" (the
//     Target and its parent id), then "gone <cause>" when the watch fires,
//     and exits 0;
//   - "short-parent" starts a "late-child" and exits at once;
//   - "late-child" waits until its parent is gone, then does what "child"
//     does;
//   - "leader" starts a "short-parent" and waits forever.
func TestMain(m *testing.M) {
	switch role := os.Getenv(roleEnv); role {
	case "":
		os.Exit(m.Run())
	case "parent", "short-parent", "leader":
		next := map[string]string{"parent": "child", "short-parent": "late-child", "leader": "short-parent"}[role]
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), roleEnv+"="+next, parentEnv+"="+strconv.Itoa(os.Getpid()))
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if role == "short-parent" {
			os.Exit(0)
		}
		// Sleep, not select {}: with no goroutine left to run, the runtime
		// would end this process as deadlocked before the test kills it.
		time.Sleep(time.Hour)
		os.Exit(0)
	case "child", "late-child":
		if role == "late-child" {
			parent, _ := strconv.Atoi(os.Getenv(parentEnv))
			for deadline := time.Now().Add(30 * time.Second); os.Getppid() == parent && time.Now().Before(deadline); {
				time.Sleep(time.Millisecond)
			}
		}
		ctx, stop, target := parentwatch.Watch(context.Background())
		defer stop()
		fmt.Printf("watching %d %d %d\n", target.Parent, target.Leader, os.Getppid())
		<-ctx.Done()
		fmt.Printf("gone %v\n", context.Cause(ctx))
		os.Exit(0)
	}
	os.Exit(3)
}

// start runs the test binary in role with its stdout on a pipe, and returns
// the command and a reader of that pipe. With group, the process leads a
// process group of its own, as a launcher started from an interactive shell
// does. The process (its group, with group) is killed at cleanup.
func start(t *testing.T, role string, group bool) (*exec.Cmd, *bufio.Reader) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: group}
	// GORACE: built with -race (make test), a part would sleep 1 s at exit.
	cmd.Env = append(os.Environ(), roleEnv+"="+role, "GORACE=atexit_sleep_ms=0")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if group {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd, bufio.NewReader(out)
}

// line reads one line of r, failing the test after 30 s.
func line(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	got := make(chan string, 1)
	go func() {
		s, err := r.ReadString('\n')
		if err != nil && err != io.EOF {
			s = "read error: " + err.Error()
		}
		got <- strings.TrimSuffix(s, "\n")
	}()
	select {
	case s := <-got:
		return s
	case <-time.After(30 * time.Second):
		t.Fatal("no line after 30s")
		return ""
	}
}

// watching reads a part's "watching <parent> <leader> <ppid>" line.
func watching(t *testing.T, out *bufio.Reader) (target parentwatch.Target, ppid int) {
	t.Helper()
	l := line(t, out)
	if _, err := fmt.Sscanf(l, "watching %d %d %d", &target.Parent, &target.Leader, &ppid); err != nil {
		t.Fatalf("the watching part says %q", l)
	}
	return target, ppid
}

// A child whose parent is SIGKILLed sees its watch fire within 1 s, with a
// GoneError naming the old parent and the new one.
func TestWatchParentKilled(t *testing.T) {
	t.Parallel()
	parent, out := start(t, "parent", false)
	if target, ppid := watching(t, out); target != (parentwatch.Target{Parent: parent.Process.Pid}) || ppid != parent.Process.Pid {
		t.Fatalf("child watches %+v with parent pid %d, want it watching its parent, pid %d, alone", target, ppid, parent.Process.Pid)
	}
	killed := time.Now()
	if err := parent.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	l := line(t, out)
	elapsed := time.Since(killed)
	prefix := fmt.Sprintf("gone the process that started this one (pid %d) is gone: the parent is now pid ", parent.Process.Pid)
	now, err := strconv.Atoi(strings.TrimPrefix(l, prefix))
	if !strings.HasPrefix(l, prefix) || err != nil || now == parent.Process.Pid {
		t.Fatalf("child says %q, want %q and the new parent's pid", l, prefix)
	}
	if elapsed > time.Second {
		t.Errorf("the watch fired %v after the parent was killed, want at most 1s", elapsed)
	}
}

// With the parent alive the watch does not fire; stop ends it with
// context.Canceled.
func TestWatchParentAlive(t *testing.T) {
	t.Parallel()
	ctx, stop, target := parentwatch.Watch(context.Background())
	if target.Parent != os.Getppid() {
		t.Fatalf("watching %+v, want the parent, pid %d", target, os.Getppid())
	}
	time.Sleep(5 * parentwatch.Interval)
	if err := context.Cause(ctx); err != nil {
		t.Fatalf("the watch fired with the parent alive: %v", err)
	}
	stop()
	if err := context.Cause(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("cause after stop = %v, want context.Canceled", err)
	}
}

// A process whose parent, the leader of its process group (a launcher
// started from an interactive shell), exited before the watch began: its
// parent is PID 1 or a subreaper, outside the group, so the watch looks at
// the group's leader, finds it gone (here a zombie not reaped yet) and
// fires at once.
func TestWatchStartedOrphaned(t *testing.T) {
	t.Parallel()
	launcher, out := start(t, "short-parent", true)
	pid := launcher.Process.Pid
	if target, ppid := watching(t, out); target.Leader != pid || ppid == pid {
		t.Fatalf("late child watches %+v with parent pid %d, want it watching its group leader, pid %d", target, ppid, pid)
	}
	prefix := fmt.Sprintf("gone the process that started this one is gone: the leader of its process group (pid %d) has exited, and the parent is pid ", pid)
	if l := line(t, out); !strings.HasPrefix(l, prefix) {
		t.Fatalf("late child says %q, want %q and its parent's pid", l, prefix)
	}
}

// A process orphaned before its watch began while the leader of its group
// (the launcher) lives on watches that leader: the watch fires within 1 s
// of its death, not before.
func TestWatchGroupLeader(t *testing.T) {
	t.Parallel()
	leader, out := start(t, "leader", true)
	pid := leader.Process.Pid
	if target, ppid := watching(t, out); target.Leader != pid || ppid == pid {
		t.Fatalf("late child watches %+v with parent pid %d, want it watching its group leader, pid %d", target, ppid, pid)
	}
	time.Sleep(3 * parentwatch.Interval)
	killed := time.Now()
	if err := leader.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	l := line(t, out) // the first line after "watching": the watch did not fire before the kill
	elapsed := time.Since(killed)
	if prefix := fmt.Sprintf("gone the process that started this one is gone: the leader of its process group (pid %d) has exited, and the parent is pid ", pid); !strings.HasPrefix(l, prefix) {
		t.Fatalf("late child says %q, want %q and its parent's pid", l, prefix)
	}
	if elapsed > time.Second {
		t.Errorf("the watch fired %v after the leader was killed, want at most 1s", elapsed)
	}
}
