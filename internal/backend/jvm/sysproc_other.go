//go:build !linux && !windows

package jvm

import (
	"os/exec"
	"syscall"
)

// ownGroup puts the harness JVM in a process group of its own, so that a
// Ctrl-C at the terminal reaches droidstar alone (see sysproc_linux.go).
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}
