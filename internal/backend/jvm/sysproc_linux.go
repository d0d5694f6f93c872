package jvm

import (
	"os/exec"
	"syscall"
)

// ownGroup puts the harness JVM in a process group of its own, so that a
// Ctrl-C at the terminal reaches droidstar alone: droidstar then lets the
// running query finish and ends the JVM itself, instead of the JVM dying
// mid-query with status 130. The JVM dies with droidstar, so a second
// Ctrl-C (droidstar ends at once) leaves no JVM running.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
