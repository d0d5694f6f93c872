//go:build unix

package jvm

import (
	"io/fs"
	"syscall"
)

// ownerOf is the user id that owns the file info describes.
func ownerOf(info fs.FileInfo) (int, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
