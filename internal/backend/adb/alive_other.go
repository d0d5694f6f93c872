//go:build !unix

package adb

// processAlive cannot tell here: a claim of this host is then stale only
// by its age (ClaimStale).
func processAlive(pid int) bool { return true }
