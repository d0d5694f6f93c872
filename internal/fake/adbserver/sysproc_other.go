//go:build !linux

package adbserver

import (
	"net"
	"os/exec"
)

// dieWithParent does nothing where the kernel cannot tie a child's life
// to its parent's; Close still kills the server.
func dieWithParent(cmd *exec.Cmd) {}

// ReservePort picks a free port of 127.0.0.1. Here it cannot be kept
// from other sockets until the server listens on it.
func ReservePort() (port int, release func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, nil, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, func() {}, nil
}
