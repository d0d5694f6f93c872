package jvm

import "os/exec"

// ownGroup does nothing on Windows, whose console sends Ctrl-C its own way.
func ownGroup(cmd *exec.Cmd) {}
