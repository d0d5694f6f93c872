// Package adbserver runs a private, real adb server (Debian's adb, found on
// PATH) with fake devices from package adbd (internal/fake/adbd) attached to it, so that
// tests and `droidstar bench` can drive the whole device path through real
// ADB without a phone.
//
// The server runs in the foreground (`adb -P PORT nodaemon server`) as a
// child of this process, on a free port, with its own HOME (and so its own
// ~/.android/adbkey) and TMPDIR (its log), so that it neither disturbs
// nor is disturbed by a user's adb server on 5037; Close kills it and waits
// for it. Fakes listen on ports outside 5555-5585, the range every adb
// server scans for emulators, so no other server grabs them.
//
// Attach connects a fake with the server's host:connect service (what `adb
// connect` sends) and polls host:devices until the fake is listed in its
// state. What Debian's adb 29.0.6 says for each adbd.State:
//   - Ready: "connected to 127.0.0.1:PORT"; listed as "device" with
//     product:, model: and device: from the fake's banner (adb devices -l).
//   - Unauthorized: "failed to authenticate to 127.0.0.1:PORT" at once;
//     listed as "unauthorized".
//   - Offline: listed as "offline" at once, while connect answers "failed
//     to connect to 127.0.0.1:PORT" only after a 10 s handshake timeout,
//     which is why Attach does not wait for connect's answer.
//
// `adb connect` exits 0 in all three cases.
//
// This package must not import testing: the droidstar binary uses it.
// NewT takes the small TB interface that *testing.T satisfies.
package adbserver

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/droidstar/droidstar/internal/fake/adbd"
)

// Server is a private adb server.
type Server struct {
	adb  string
	port int
	home string
	tmp  string
	env  []string

	cmd    *exec.Cmd
	exited chan struct{}
	stderr *lockedBuffer

	mu        sync.Mutex
	devices   []*adbd.Device
	closeOnce sync.Once
	closeErr  error
}

// startTimeout bounds how long a new server may take to answer.
const startTimeout = 10 * time.Second

// attachTimeout bounds how long a fake may take to reach its state in
// `adb devices`.
const attachTimeout = 10 * time.Second

// ErrNoADB is returned by Start when adb is not on PATH.
var ErrNoADB = errors.New("adb is not on PATH; install it (Debian/Ubuntu: apt-get install adb)")

// Start starts a private adb server. ctx bounds the start only; the
// server runs until Close.
func Start(ctx context.Context) (*Server, error) {
	adb, err := exec.LookPath("adb")
	if err != nil {
		return nil, ErrNoADB
	}
	port, err := freePort()
	if err != nil {
		return nil, fmt.Errorf("adbserver: pick a port: %w", err)
	}
	s := &Server{adb: adb, port: port, exited: make(chan struct{}), stderr: &lockedBuffer{}}
	if s.home, err = os.MkdirTemp("", "adbserver-home-"); err != nil {
		return nil, fmt.Errorf("adbserver: %w", err)
	}
	if s.tmp, err = os.MkdirTemp("", "adbserver-tmp-"); err != nil {
		os.RemoveAll(s.home)
		return nil, fmt.Errorf("adbserver: %w", err)
	}
	s.env = serverEnv(os.Environ(), s.home, s.tmp, port)
	// nodaemon keeps the server our child: start-server would fork a
	// daemon we could neither wait for nor be sure to kill.
	s.cmd = exec.Command(adb, "-P", strconv.Itoa(port), "nodaemon", "server")
	s.cmd.Env = s.env
	s.cmd.Dir = s.tmp
	s.cmd.Stdout = s.stderr
	s.cmd.Stderr = s.stderr
	dieWithParent(s.cmd)
	if err := s.cmd.Start(); err != nil {
		s.removeDirs()
		return nil, fmt.Errorf("adbserver: start %s: %w", adb, err)
	}
	go func() {
		s.cmd.Wait()
		close(s.exited)
	}()
	if err := s.waitReady(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// serverEnv is env without whatever would point adb at another server or
// other keys, plus the private directories and port.
func serverEnv(env []string, home, tmp string, port int) []string {
	drop := map[string]bool{
		"HOME": true, "TMPDIR": true, "ANDROID_ADB_SERVER_PORT": true, "ANDROID_ADB_SERVER_ADDRESS": true,
		"ADB_SERVER_SOCKET": true, "ANDROID_SERIAL": true, "ADB_VENDOR_KEYS": true, "ANDROID_SDK_HOME": true,
		"ANDROID_USER_HOME": true, "ANDROID_EMULATOR_HOME": true, "ADB_TRACE": true, "ADB_MDNS": true,
		"ADB_MDNS_AUTO_CONNECT": true, "ADB_LIBUSB": true,
	}
	out := make([]string, 0, len(env)+6)
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if !drop[k] {
			out = append(out, kv)
		}
	}
	return append(out,
		"HOME="+home,
		"TMPDIR="+tmp,
		"ANDROID_ADB_SERVER_PORT="+strconv.Itoa(port),
		// Newer adb servers browse mDNS and USB; neither has anything to
		// offer a private server, and adb 29 ignores these.
		"ADB_MDNS=0",
		"ADB_LIBUSB=0",
	)
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// waitReady polls host:version until the server answers.
func (s *Server) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	var last error
	for {
		v, err := s.Query(ctx, "host:version")
		if err == nil {
			if _, perr := strconv.ParseUint(v, 16, 32); perr == nil {
				return nil
			}
			err = fmt.Errorf("host:version answered %q", v)
		}
		last = err
		select {
		case <-s.exited:
			return fmt.Errorf("adbserver: the adb server exited at start: %s", strings.TrimSpace(s.stderr.String()))
		case <-ctx.Done():
			return fmt.Errorf("adbserver: the adb server on port %d did not answer within %s: %v\n%s", s.port, startTimeout, last, s.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Port is the server's port.
func (s *Server) Port() int { return s.port }

// Addr is the server's address, "127.0.0.1:PORT".
func (s *Server) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

// Env is an environment (this process's, with HOME, TMPDIR and
// ANDROID_ADB_SERVER_PORT replaced) that points adb, or droidstar, at
// this server.
func (s *Server) Env() []string { return append([]string(nil), s.env...) }

// Log is what the server has printed so far, for explaining failures.
func (s *Server) Log() string { return s.stderr.String() }

// Command is the adb client run against this server, for callers that
// need it in the background or want its streams.
func (s *Server) Command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, s.adb, append([]string{"-P", strconv.Itoa(s.port)}, args...)...)
	cmd.Env = s.env
	cmd.Dir = s.tmp
	// Ends a client whose context is done even if it spawned helpers
	// that keep its pipes open.
	cmd.WaitDelay = 2 * time.Second
	return cmd
}

// ADB runs the adb client against this server and returns its stdout and
// stderr together. A non-zero exit is an *exec.ExitError, wrapped with
// the output.
func (s *Server) ADB(ctx context.Context, args ...string) (string, error) {
	out, err := s.Command(ctx, args...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("adb %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}

// Query sends one host service request (host:version, host:devices-l,
// host:connect:ADDR, ...) to the server and returns its answer.
func (s *Server) Query(ctx context.Context, service string) (string, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", s.Addr())
	if err != nil {
		return "", err
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Now()) })
	defer stop()
	if _, err := fmt.Fprintf(c, "%04x%s", len(service), service); err != nil {
		return "", err
	}
	r := bufio.NewReader(c)
	status := make([]byte, 4)
	if _, err := io.ReadFull(r, status); err != nil {
		return "", fmt.Errorf("%s: %w", service, err)
	}
	msg, err := readHex(r)
	if err != nil {
		if string(status) == "OKAY" && errors.Is(err, io.EOF) {
			// host:kill and the like answer OKAY alone.
			return "", nil
		}
		return "", fmt.Errorf("%s: %w", service, err)
	}
	if string(status) != "OKAY" {
		return "", fmt.Errorf("%s: %s", service, msg)
	}
	return msg, nil
}

func readHex(r io.Reader) (string, error) {
	var h [4]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return "", err
	}
	n, err := strconv.ParseUint(string(h[:]), 16, 32)
	if err != nil {
		return "", fmt.Errorf("bad length %q", h[:])
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", err
	}
	return string(b), nil
}

// Devices returns the state of every device the server knows, by serial.
func (s *Server) Devices(ctx context.Context) (map[string]string, error) {
	out, err := s.Query(ctx, "host:devices")
	if err != nil {
		return nil, err
	}
	states := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) >= 2 {
			states[f[0]] = f[1]
		}
	}
	return states, nil
}

// Attach starts a fake device, connects the server to it and waits until
// `adb devices` lists it in the state cfg.State leads to: "device",
// "unauthorized" or "offline". The fake is closed by Close, or by the
// caller earlier.
func (s *Server) Attach(ctx context.Context, cfg adbd.Config) (*adbd.Device, error) {
	d, err := adbd.Start(cfg)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*adbd.Device, error) {
		s.Query(context.WithoutCancel(ctx), "host:disconnect:"+d.Addr())
		d.Close()
		return nil, err
	}
	s.mu.Lock()
	s.devices = append(s.devices, d)
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, attachTimeout)
	defer cancel()
	serial := d.Addr()
	want := cfg.State.String()
	connected := make(chan error, 1)
	go func() {
		// host:connect answers only once the handshake is done or has
		// timed out (10 s for an offline device), so it runs beside the
		// polling below, which sees the state as soon as it is listed.
		out, err := s.Query(ctx, "host:connect:"+serial)
		if err == nil && !strings.HasPrefix(out, "connected to") && !strings.HasPrefix(out, "already connected to") {
			err = errors.New(out)
		}
		connected <- err
	}()
	var connectErr error
	for {
		states, err := s.Devices(ctx)
		if err == nil && states[serial] == want {
			return d, nil
		}
		select {
		case connectErr = <-connected:
			// Only a ready device makes the server say "connected to": an
			// unauthorized one gets "failed to authenticate to", an
			// offline one "failed to connect to" after 10 s.
			if connectErr != nil && cfg.State == adbd.Ready {
				return fail(fmt.Errorf("adbserver: adb connect %s: %w", serial, connectErr))
			}
			connected = nil
		case <-ctx.Done():
			got := "not listed"
			if states, err := s.Devices(context.WithoutCancel(ctx)); err == nil && states[serial] != "" {
				got = states[serial]
			}
			return fail(fmt.Errorf("adbserver: %s did not become %q within %s (adb devices: %s; connect: %v)", serial, want, attachTimeout, got, connectErr))
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Close disconnects and closes the fakes, kills the server, waits for it
// to exit, and removes its directories.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.mu.Lock()
		devices := s.devices
		s.devices = nil
		s.mu.Unlock()
		var errs []error
		select {
		case <-s.exited:
		default:
			for _, d := range devices {
				s.Query(ctx, "host:disconnect:"+d.Addr())
			}
			s.Query(ctx, "host:kill")
			select {
			case <-s.exited:
			case <-time.After(3 * time.Second):
				s.cmd.Process.Kill()
				<-s.exited
			}
		}
		for _, d := range devices {
			if err := d.Close(); err != nil {
				errs = append(errs, err)
			}
		}
		if err := s.removeDirs(); err != nil {
			errs = append(errs, err)
		}
		s.closeErr = errors.Join(errs...)
	})
	return s.closeErr
}

func (s *Server) removeDirs() error {
	return errors.Join(os.RemoveAll(s.home), os.RemoveAll(s.tmp))
}

// Dirs are the server's private HOME and TMPDIR.
func (s *Server) Dirs() (home, tmp string) { return s.home, s.tmp }

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.b.Len() < 1<<20 {
		b.b.Write(p)
	}
	return len(p), nil
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
