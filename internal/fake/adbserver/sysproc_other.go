//go:build !linux

package adbserver

import "os/exec"

// dieWithParent does nothing where the kernel cannot tie a child's life
// to its parent's; Close still kills the server.
func dieWithParent(cmd *exec.Cmd) {}
