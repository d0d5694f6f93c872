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

// ReservePort picks a free port of 127.0.0.1 for an adb server to come
// (Start's, or one a test has adb start) and keeps it from the kernel
// until release: a socket bound to it with SO_REUSEADDR but not listening
// makes the kernel hand the port to no one else, neither to a listener on
// port 0 nor as a connection's local end, while the adb server, which sets
// SO_REUSEADDR too, may still bind and listen on it.
func ReservePort() (port int, release func(), err error) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return 0, nil, err
	}
	release = func() { syscall.Close(fd) }
	if err := syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1); err != nil {
		release()
		return 0, nil, err
	}
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		release()
		return 0, nil, err
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		release()
		return 0, nil, err
	}
	return sa.(*syscall.SockaddrInet4).Port, release, nil
}
