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
// connect` sends), waits for the event that settles the fake's state, and
// checks that host:devices lists it so. What Debian's adb 29.0.6 says for
// each adbd.State:
//   - Ready: "connected to 127.0.0.1:PORT" once the fake's CNXN put the
//     transport online; listed as "device" with product:, model: and
//     device: from the fake's banner (adb devices -l).
//   - Unauthorized: "failed to authenticate to 127.0.0.1:PORT" at once;
//     listed as "unauthorized".
//   - Offline: listed as "offline" as soon as the server's CNXN has reached
//     the fake, while connect answers "failed to connect to
//     127.0.0.1:PORT" only after a 10 s handshake timeout, which is why
//     Attach waits for the fake's side instead.
//
// `adb connect` exits 0 in all three cases.
//
// Attach never polls, and Query lets the server close the connection
// first, as adb's own client does. Both matter to adb 29.0.6: a client
// that hung up on host:connect as soon as it had the answer, while the
// server was tearing down the request's service socket and its main loop
// was kept busy by host:devices every 20 ms, made the server use freed
// sockets and die (SIGSEGV, or "fdevent_epoll.cpp:88] failed to unregister
// fd <garbage> with epoll: Bad file descriptor") once in a few hundred
// to a few thousand attaches under load. TestADBErrors saw the dead
// server as a device that "did not become device within 10s".
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
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
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

	// life ends when Close has stopped the server; requests left running
	// (an offline device's connect) use it and are tracked by background.
	life       context.Context
	endLife    context.CancelFunc
	background sync.WaitGroup
}

// startTimeout bounds how long a new server may take to answer.
const startTimeout = 10 * time.Second

// attachTimeout bounds Attach when the server stops answering.
const attachTimeout = 30 * time.Second

// ErrNoADB is returned by Start when adb is not on PATH.
var ErrNoADB = errors.New("adb is not on PATH; install it (Debian/Ubuntu: apt-get install adb)")

// Start starts a private adb server. ctx bounds the start only; the
// server runs until Close.
func Start(ctx context.Context) (*Server, error) {
	adb, err := exec.LookPath("adb")
	if err != nil {
		return nil, ErrNoADB
	}
	// The port stays reserved until the server listens on it: picked and
	// let go, it could be handed to another socket (any test's fake, or a
	// connection's local end) during the second the server takes to make
	// its key, and the server would fail to listen.
	port, release, err := ReservePort()
	if err != nil {
		return nil, fmt.Errorf("adbserver: pick a port: %w", err)
	}
	defer release()
	s := &Server{adb: adb, port: port, exited: make(chan struct{}), stderr: &lockedBuffer{}}
	s.life, s.endLife = context.WithCancel(context.Background())
	if s.home, err = os.MkdirTemp("", "adbserver-home-"); err != nil {
		return nil, fmt.Errorf("adbserver: %w", err)
	}
	if s.tmp, err = os.MkdirTemp("", "adbserver-tmp-"); err != nil {
		os.RemoveAll(s.home)
		return nil, fmt.Errorf("adbserver: %w", err)
	}
	s.env = serverEnv(os.Environ(), s.home, s.tmp, port)
	// fork-server is what adb itself runs when it starts a server: the
	// process stays our child (start-server would fork a daemon we could
	// neither wait for nor be sure to kill), logs to $TMPDIR/adb.UID.log,
	// and writes "OK\n" on --reply-fd once it accepts clients (listening,
	// its key loaded, its device scan done), which spares polling for it.
	ready, readyW, err := os.Pipe()
	if err != nil {
		s.removeDirs()
		return nil, fmt.Errorf("adbserver: %w", err)
	}
	defer ready.Close()
	s.cmd = exec.Command(adb, "-P", strconv.Itoa(port), "fork-server", "server", "--reply-fd", "3")
	s.cmd.ExtraFiles = []*os.File{readyW}
	s.cmd.Env = s.env
	s.cmd.Dir = s.tmp
	s.cmd.Stdout = s.stderr
	s.cmd.Stderr = s.stderr
	dieWithParent(s.cmd)
	err = s.cmd.Start()
	// The server has its own copy; ours would keep EOF away if it died.
	readyW.Close()
	if err != nil {
		s.removeDirs()
		return nil, fmt.Errorf("adbserver: start %s: %w", adb, err)
	}
	go func() {
		s.cmd.Wait()
		close(s.exited)
	}()
	if err := s.waitReady(ctx, ready); err != nil {
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

// waitReady waits for the server's "OK" on its reply pipe; EOF instead
// means it died first.
func (s *Server) waitReady(ctx context.Context, ready io.Reader) error {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	said := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(ready, 16))
		said <- string(b)
	}()
	select {
	case ok := <-said:
		if ok == "OK\n" {
			return nil
		}
		<-s.exited
		return fmt.Errorf("adbserver: the adb server exited at start (it said %q): %s", ok, strings.TrimSpace(s.Log()))
	case <-ctx.Done():
		return fmt.Errorf("adbserver: the adb server on port %d was not ready within %s:\n%s", s.port, startTimeout, s.Log())
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
func (s *Server) Log() string {
	// Once running, a fork-server logs to $TMPDIR/adb.UID.log (stdout and
	// stderr included); what it printed before that went to the pipe.
	logs, _ := filepath.Glob(filepath.Join(s.tmp, "adb.*.log"))
	out := s.stderr.String()
	for _, f := range logs {
		b, _ := os.ReadFile(f)
		out += string(b)
	}
	return out
}

// Command is the adb client run against this server, for callers that
// need it in the background or want its streams.
func (s *Server) Command(ctx context.Context, args ...string) *exec.Cmd {
	// -H 127.0.0.1 makes the server a remote one to adb, which then never
	// starts a server of its own: if this one died, `adb -P PORT` would
	// start a daemon on its port that nothing ever stops, and the command
	// would talk to that instead of failing.
	cmd := exec.CommandContext(ctx, s.adb, append([]string{"-H", "127.0.0.1", "-P", strconv.Itoa(s.port)}, args...)...)
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
	// As adb's own client does (adb_query's ReadOrderlyShutdown), let the
	// server close first: it does once it is done with the request, and a
	// client hanging up at the same moment only adds a race to adb's.
	io.Copy(io.Discard, r)
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

// Attach starts a fake device, connects the server to it and returns once
// `adb devices` lists it in the state cfg.State leads to: "device",
// "unauthorized" or "offline". It waits on events, never on time: adb's
// answer to connect for a ready or an unauthorized device, the device
// having received the server's CNXN for an offline one (see
// attachOffline). The fake is closed by Close, or by the caller earlier.
func (s *Server) Attach(ctx context.Context, cfg adbd.Config) (*adbd.Device, error) {
	d, err := adbd.Start(cfg)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.devices = append(s.devices, d)
	s.mu.Unlock()
	// Only a server that stops answering makes this bound matter; adb's
	// own handshake timeout (10 s) answers first otherwise.
	ctx, cancel := context.WithTimeout(ctx, attachTimeout)
	defer cancel()
	serial := d.Addr()
	fail := func(err error) (*adbd.Device, error) {
		if s.gone() {
			// Say so rather than leave a dead server to be guessed from
			// refused connections.
			err = fmt.Errorf("%w; the adb server has exited: %s", err, lastLines(s.Log(), 5))
		} else {
			s.Query(context.WithoutCancel(ctx), "host:disconnect:"+serial)
		}
		d.Close()
		return nil, fmt.Errorf("adbserver: attach %s (%s): %w", serial, cfg.State, err)
	}

	var answer string
	switch cfg.State {
	case adbd.Offline:
		if err := s.attachOffline(ctx, d); err != nil {
			return fail(err)
		}
	default:
		// adb answers once the handshake is done: after the device's
		// CNXN has put the transport online, or after the device has
		// asked for a signature adb has no key for.
		answer, err = s.Query(ctx, "host:connect:"+serial)
		if err != nil {
			return fail(fmt.Errorf("adb connect: %w", err))
		}
		want := "connected to " + serial
		if cfg.State == adbd.Unauthorized {
			want = "failed to authenticate to " + serial
		}
		if answer != want {
			// "already connected to" would mean that a fake which closed
			// while attached left this server a transport, which adb
			// retries every 10 s, and the kernel gave its port to this
			// fake: the fake would come up at adb's next attempt, not now.
			return fail(fmt.Errorf("adb connect answered %q, want %q", answer, want))
		}
	}
	states, err := s.Devices(ctx)
	if err != nil {
		return fail(fmt.Errorf("adb devices: %w", err))
	}
	if got, want := states[serial], cfg.State.String(); got != want {
		if got == "" {
			got = "not listed"
		}
		return fail(fmt.Errorf("adb devices lists it as %s, want %s (adb connect answered %q)", got, want, answer))
	}
	return d, nil
}

// attachOffline connects the server to a device that never answers its
// CNXN. adb answers that connect only after its 10 s handshake timeout
// ("failed to connect to"), so the request is left to finish on its own
// rather than hung up on. The device is listed as offline from the moment
// the server's CNXN reached it: adb registers the transport, sends its
// CNXN and puts it in the list in one turn of its main loop, which serves
// a later host:devices only after that turn.
func (s *Server) attachOffline(ctx context.Context, d *adbd.Device) error {
	s.background.Add(1)
	go func() {
		defer s.background.Done()
		s.Query(s.life, "host:connect:"+d.Addr())
	}()
	return d.WaitHandshake(ctx)
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
		// The server is gone, so its connections have ended too.
		s.endLife()
		s.background.Wait()
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

// gone says whether the server process has exited. A refused connection
// means its listener is closed, which only its exit does, so then it
// waits for the exit to be reaped rather than guess.
func (s *Server) gone() bool {
	select {
	case <-s.exited:
		return true
	default:
	}
	c, err := net.Dial("tcp", s.Addr())
	if err == nil {
		c.Close()
		return false
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		return false
	}
	<-s.exited
	return true
}

// lastLines is the end of a log, for error messages.
func lastLines(log string, n int) string {
	lines := strings.Split(strings.TrimRight(log, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
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
