//go:build unix

package cli

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup starts cmd in a process group of its own, which its
// context's end kills whole (SIGKILL): a child that holds its pipes dies
// with it.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

// killProcessGroup kills what is left of cmd's process group (see
// ownProcessGroup) once cmd has exited.
func killProcessGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
