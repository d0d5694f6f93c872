package adbserver

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the server die with this process, so that a test
// binary killed by its timeout leaves no adb server behind.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
