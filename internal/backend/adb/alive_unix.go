//go:build unix

package adb

import (
	"errors"
	"syscall"
)

// processAlive says whether a process of this host still runs: signal 0
// checks without sending; EPERM is a live process of another user.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
