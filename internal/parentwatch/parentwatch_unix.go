//go:build unix

package parentwatch

import (
	"errors"
	"os"
	"syscall"
)

// choose picks what a watch watches (see the package documentation): the
// parent when it is above PID 1 and in this process's group (or this
// process leads its group); else the group leader, and the parent too when
// it is above PID 1.
func choose() Target {
	ppid, pid, pgrp := os.Getppid(), os.Getpid(), syscall.Getpgrp()
	var t Target
	if ppid > 1 {
		t.Parent = ppid
	}
	if pgrp == pid || pgrp <= 1 {
		return t
	}
	if ppid > 1 {
		if g, err := syscall.Getpgid(ppid); err == nil && g == pgrp {
			return t
		}
	}
	t.Leader = pgrp
	return t
}

// alive reports whether process pid exists and has not exited: kill(pid,
// 0) does not answer ESRCH (EPERM: it exists, another user's) and, on
// Linux, it is not a zombie waiting for its parent to reap it.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	return !zombie(pid)
}
