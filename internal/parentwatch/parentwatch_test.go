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
//   - "child" watches its parent, prints "watching <watched> <ppid>", then
//     "gone <cause>" when the watch fires, and exits 0;
//   - "short-parent" starts a "late-child" and exits at once;
//   - "late-child" waits until its parent is gone, then starts a watch and
//     prints "watching <watched> <ppid>".
func TestMain(m *testing.M) {
	switch os.Getenv(roleEnv) {
	case "":
		os.Exit(m.Run())
	case "parent", "short-parent":
		next := "child"
		if os.Getenv(roleEnv) == "short-parent" {
			next = "late-child"
		}
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), roleEnv+"="+next, parentEnv+"="+strconv.Itoa(os.Getpid()))
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if next == "late-child" {
			os.Exit(0)
		}
		select {}
	case "child":
		ctx, stop, watched := parentwatch.Watch(context.Background())
		defer stop()
		fmt.Printf("watching %d %d\n", watched, os.Getppid())
		<-ctx.Done()
		fmt.Printf("gone %v\n", context.Cause(ctx))
		os.Exit(0)
	case "late-child":
		parent, _ := strconv.Atoi(os.Getenv(parentEnv))
		for deadline := time.Now().Add(30 * time.Second); os.Getppid() == parent && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
		_, stop, watched := parentwatch.Watch(context.Background())
		stop()
		fmt.Printf("watching %d %d\n", watched, os.Getppid())
		os.Exit(0)
	}
	os.Exit(3)
}

// start runs the test binary in role with its stdout on a pipe, and returns
// the command and a reader of that pipe. The process is killed at cleanup.
func start(t *testing.T, role string) (*exec.Cmd, *bufio.Reader) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
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
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
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

// A child whose parent is SIGKILLed sees its watch fire within 1 s, with a
// GoneError naming the old parent and the new one.
func TestWatchParentKilled(t *testing.T) {
	t.Parallel()
	parent, out := start(t, "parent")
	var watched, ppid int
	if l := line(t, out); func() bool { _, err := fmt.Sscanf(l, "watching %d %d", &watched, &ppid); return err != nil }() ||
		watched != parent.Process.Pid || ppid != parent.Process.Pid {
		t.Fatalf("child says %q, want it watching its parent, pid %d", l, parent.Process.Pid)
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
	ctx, stop, watched := parentwatch.Watch(context.Background())
	if watched != os.Getppid() {
		t.Fatalf("watching pid %d, want the parent, pid %d", watched, os.Getppid())
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

// A process whose parent is already gone when it starts watching: with PID
// 1 as its parent it watches nothing (watched 0); with a subreaper, it
// watches the subreaper.
func TestWatchStartedOrphaned(t *testing.T) {
	t.Parallel()
	_, out := start(t, "short-parent")
	var watched, ppid int
	if l := line(t, out); func() bool { _, err := fmt.Sscanf(l, "watching %d %d", &watched, &ppid); return err != nil }() {
		t.Fatalf("late child says %q", l)
	}
	want := ppid
	if ppid <= 1 {
		want = 0
	}
	if watched != want {
		t.Errorf("with parent pid %d at the start, the watch watches pid %d, want %d", ppid, watched, want)
	}
}
