//go:build !unix

package cli

import "os/exec"

// ownProcessGroup leaves cmd as it is outside Unix: its context's end kills
// the process alone.
func ownProcessGroup(*exec.Cmd) {}

// killProcessGroup does nothing outside Unix.
func killProcessGroup(*exec.Cmd) {}
