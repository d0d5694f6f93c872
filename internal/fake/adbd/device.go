package adbd

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
)

// State is how a fake device answers the host's handshake, and so the
// state `adb devices` lists it in.
type State int

const (
	// Ready answers CNXN with CNXN: adb lists the device as "device".
	Ready State = iota
	// Unauthorized answers CNXN with an AUTH token and accepts no
	// signature or public key: adb lists it as "unauthorized".
	Unauthorized
	// Offline accepts the TCP connection and never answers: adb lists it
	// as "offline".
	Offline
)

// String is the state's name in `adb devices`.
func (s State) String() string {
	switch s {
	case Ready:
		return "device"
	case Unauthorized:
		return "unauthorized"
	case Offline:
		return "offline"
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// HarnessFunc starts the harness of one `am instrument` run. The returned
// serve func serves one connection to the harness's abstract socket and
// reports whether it ended with the protocol's bye, after which the
// instrumentation finishes. serve must return once conn is closed or ctx
// is done (am force-stop, Device.Close). An error is logged to logcat and
// ends the instrumentation as a failed harness does.
type HarnessFunc func(ctx context.Context, run HarnessRun) (serve func(ctx context.Context, conn io.ReadWriteCloser) (bye bool), err error)

// HarnessRun is what the app process of one `am instrument` run sees: host
// folders that stand for its device paths.
type HarnessRun struct {
	// Run and Staging are the instrumentation's `-e run ID` and the host
	// folder of its `-e staging DIR` (empty without one).
	Run, Staging string
	// FilesRoot and CodeCache are the app's own folders
	// (/data/user/0/org.droidstar.harness/files and code_cache); they
	// exist when HarnessFunc is called.
	FilesRoot, CodeCache string
	// ShellData is the host folder of /data/local/tmp, where the app may
	// read but not create, append to or unlink files (see the package
	// doc); JVMHarness holds the JVM to that.
	ShellData string
}

// Config describes a fake device.
type Config struct {
	// Props answer getprop and fill the CNXN banner. Missing ones among
	// ro.product.model, ro.product.name, ro.product.device,
	// ro.product.manufacturer, ro.build.version.release and
	// ro.build.version.sdk get defaults (see DefaultProps). The banner's
	// three may not contain ':', ';' or '=', which would break its syntax.
	Props map[string]string
	// State is the handshake behaviour; the zero value is Ready.
	State State
	// Harness is started by `am instrument` of the harness's
	// instrumentation, when org.droidstar.harness is installed. Nil makes
	// every instrumentation fail as a harness that throws.
	Harness HarnessFunc
	// InstallFailure, when set, is what pm install prints (for example
	// "Failure [INSTALL_FAILED_INSUFFICIENT_STORAGE]") before exiting 1.
	InstallFailure string
	// HarnessNeverListens makes the instrumentation crash before it opens
	// its socket, as an app that throws in onCreate does: a FATAL
	// EXCEPTION in logcat and INSTRUMENTATION_RESULT shortMsg/longMsg.
	HarnessNeverListens bool
	// Root is the host directory that backs the device's filesystem;
	// empty means a temporary directory removed by Close.
	Root string
	// CurrentUser is the foreground user: what am get-current-user prints
	// (Android 7 and later), and whom am instrument runs as without
	// --user. Users 0 and CurrentUser exist.
	CurrentUser int
	// GlobalSettings is the global settings table (settings get, put and
	// delete global, svc power stayon); nil means DefaultGlobalSettings,
	// and a key missing from a given map is unset ("null").
	GlobalSettings map[string]string
	// StayOnIgnored makes svc power stayon change nothing and still exit
	// 0, as on a build whose shell may not write settings:
	// PowerManagerService.BinderService.setStayOnSetting (frameworks/base,
	// services/core/java/com/android/server/power/PowerManagerService.java)
	// writes only for root or a caller Settings.checkAndNoteWriteSettingsOperation
	// lets through, and otherwise returns without a word.
	StayOnIgnored bool
	// SecureSettings is the secure settings table (settings get and put
	// secure: location_mode); nil means DefaultSecureSettings.
	SecureSettings map[string]string
	// SELinux is what getenforce prints: Enforcing (when empty),
	// Permissive or Disabled. It changes nothing else: the app's file
	// rules are the HarnessFunc's (JVMHarness).
	SELinux string
	// Features are the system features pm list features prints; nil means
	// DefaultFeatures.
	Features []string
	// Services maps an intent action to the components that pm
	// query-services resolves for it; nil means DefaultServices.
	Services map[string][]string
	// RequestedPermissions are the permissions the installed harness
	// app's manifest requests, the only ones pm grant grants; nil means
	// the real manifest's (harnessapk.RequestedPermissions).
	RequestedPermissions []string
	// ShellUmask is the adb shell's umask, which the modes of the folders
	// its mkdir makes follow; zero means 022 (0755 folders). A device's
	// is not pinned by anything droidstar may rely on, so tests set a
	// strict one to show that what is staged is opened to the app with
	// chmod whatever it is.
	ShellUmask os.FileMode
}

// DefaultGlobalSettings are a fresh device's global settings, as far as
// the fake knows them: stay-on-while-plugged-in off (SettingsProvider's
// def_stay_on_while_plugged_in).
var DefaultGlobalSettings = map[string]string{"stay_on_while_plugged_in": "0"}

// DefaultProps are the properties a Config gets for those it lacks.
var DefaultProps = map[string]string{
	"ro.product.model":         "Fake",
	"ro.product.name":          "fake",
	"ro.product.device":        "fake",
	"ro.product.manufacturer":  "droidstar",
	"ro.build.version.release": "9",
	"ro.build.version.sdk":     "28",
}

// bannerProps are the properties the CNXN banner carries, in adbd's order.
var bannerProps = []string{"ro.product.name", "ro.product.model", "ro.product.device"}

// features are what the banner advertises: only what the fake implements,
// since the host picks its code paths by them (advertising stat_v2 without
// serving STA2 breaks adb push).
const features = "shell_v2,cmd"

// Device is a running fake device.
type Device struct {
	cfg      Config
	props    map[string]string
	ln       net.Listener
	root     string
	tempRoot bool

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu        sync.Mutex
	closed    bool
	unplugged bool
	conns     map[*conn]struct{}
	packages  map[string]string // package -> APK path on the device
	// installedFor are the users each package is installed for: Android
	// keeps one copy of the code and an installed flag per user
	// (PackageUserState), and a user created after an app was installed
	// does not get it (Settings.createNewUserLI installs only system
	// packages for a new user).
	installedFor map[string][]int
	grants       map[string]map[int][]string // package -> user -> permissions
	// uidModes and pkgModes are the app-op modes appops set (and, for
	// uid modes, pm grant: syncLocationOpsLocked) gave; an op missing
	// from both has its default.
	uidModes map[opKey]string
	pkgModes map[opKey]string
	settings map[string]string // the global settings table
	secure   map[string]string // the secure settings table
	// history keeps every value a global setting took, "null" for unset.
	history map[string][]string
	sockets map[string]*instrumentation // abstract socket name -> owner
	instrs  map[string]*instrumentation // package -> running instrumentation
	log     []logEntry
	nextPID int
	// handshakes counts the hosts' CNXNs the device has handled.
	handshakes int
	// changed is closed, and replaced, whenever the log, the set of
	// listening sockets or handshakes changes, waking the Wait methods.
	changed   chan struct{}
	closeErr  error
	closeOnce sync.Once
}

// Start starts a fake device listening on 127.0.0.1 at a random port
// outside 5555-5585 (see listen). Start validates the banner's properties
// and prepares Root; the device serves until Close.
func Start(cfg Config) (*Device, error) {
	props := make(map[string]string, len(cfg.Props)+len(DefaultProps))
	for k, v := range DefaultProps {
		props[k] = v
	}
	for k, v := range cfg.Props {
		props[k] = v
	}
	for _, k := range bannerProps {
		if strings.ContainsAny(props[k], ":;=") {
			return nil, fmt.Errorf("fakeadbd: property %s=%q: the CNXN banner cannot carry ':', ';' or '='", k, props[k])
		}
	}
	d := &Device{
		cfg:          cfg,
		props:        props,
		root:         cfg.Root,
		conns:        map[*conn]struct{}{},
		packages:     map[string]string{},
		installedFor: map[string][]int{},
		grants:       map[string]map[int][]string{},
		uidModes:     map[opKey]string{},
		pkgModes:     map[opKey]string{},
		settings:     map[string]string{},
		secure:       map[string]string{},
		history:      map[string][]string{},
		sockets:      map[string]*instrumentation{},
		instrs:       map[string]*instrumentation{},
		nextPID:      4000,
		changed:      make(chan struct{}),
	}
	settings := cfg.GlobalSettings
	if settings == nil {
		settings = DefaultGlobalSettings
	}
	for k, v := range settings {
		d.settings[k] = v
		d.history[k] = []string{v}
	}
	secure := cfg.SecureSettings
	if secure == nil {
		secure = DefaultSecureSettings
	}
	for k, v := range secure {
		d.secure[k] = v
	}
	if d.root == "" {
		dir, err := os.MkdirTemp("", "fakeadbd-")
		if err != nil {
			return nil, fmt.Errorf("fakeadbd: %w", err)
		}
		d.root, d.tempRoot = dir, true
	}
	for _, dir := range []string{"/data/local/tmp", "/data/app", "/data/data", "/sdcard", "/system/bin"} {
		if err := os.MkdirAll(d.hostPath(dir), 0o755); err != nil {
			d.removeRoot()
			return nil, fmt.Errorf("fakeadbd: %w", err)
		}
	}
	// /data/local/tmp is rwxrwx--x, shell's (system/core rootdir/init.rc:
	// mkdir /data/local/tmp 0771 shell shell): an app may pass through it
	// but not list it, which the app's file rules read from this mode.
	if err := os.Chmod(d.hostPath(ShellDataDir), 0o771); err != nil {
		d.removeRoot()
		return nil, fmt.Errorf("fakeadbd: %w", err)
	}
	ln, err := listen()
	if err != nil {
		d.removeRoot()
		return nil, fmt.Errorf("fakeadbd: %w", err)
	}
	d.ln = ln
	d.ctx, d.cancel = context.WithCancel(context.WithValue(context.Background(), logKey{}, logSink{d: d, pid: systemPID}))
	d.wg.Add(1)
	go d.accept()
	return d, nil
}

// listen listens on a random local port outside 5555-5585: any adb
// server on the machine probes that range for emulators and would take
// the fake over. A kernel with a lowered ephemeral range could hand one
// out, so such ports are held until a good one comes.
func listen() (net.Listener, error) {
	var held []net.Listener
	defer func() {
		for _, l := range held {
			l.Close()
		}
	}()
	for range 64 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		if p := ln.Addr().(*net.TCPAddr).Port; p < 5555 || p > 5585 {
			return ln, nil
		}
		held = append(held, ln)
	}
	return nil, errors.New("no free port outside the emulator range 5555-5585")
}

// Addr is the device's address, "127.0.0.1:PORT", which is also the
// serial adb gives it after `adb connect`.
func (d *Device) Addr() string { return d.ln.Addr().String() }

// Root is the host directory that backs the device's filesystem.
func (d *Device) Root() string { return d.root }

// Installed says whether a package is installed, for any user.
func (d *Device) Installed(pkg string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	_, ok := d.packages[pkg]
	return ok
}

// InstalledFor says whether a package is installed for user.
func (d *Device) InstalledFor(pkg string, user int) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Contains(d.installedFor[pkg], user)
}

// Running says whether an app process of pkg (an instrumentation) runs:
// none once am instrument has finished or the app was force-stopped.
func (d *Device) Running(pkg string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	_, ok := d.instrs[pkg]
	return ok
}

// Granted lists the permissions pm grant gave a package for one user,
// sorted: runtime permissions are granted per user.
func (d *Device) Granted(pkg string, user int) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.grantedLocked(pkg, user)
}

func (d *Device) grantedLocked(pkg string, user int) []string {
	g := append([]string(nil), d.grants[pkg][user]...)
	sort.Strings(g)
	return g
}

// SettingHistory lists the values a global setting took, oldest first:
// the device's own, then one per settings put or delete and svc power
// stayon, whether or not it changed ("null" while unset).
func (d *Device) SettingHistory(key string) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if h, ok := d.history[key]; ok {
		return append([]string(nil), h...)
	}
	return []string{"null"}
}

// changedLocked wakes the goroutines waiting in waitUntil; d.mu is held.
func (d *Device) changedLocked() {
	close(d.changed)
	d.changed = make(chan struct{})
}

// waitUntil waits until cond, called with d.mu held, is true; it checks
// again after every change of the log or of the listening sockets. It
// fails when ctx ends or the device closes.
func (d *Device) waitUntil(ctx context.Context, cond func() bool) error {
	for {
		d.mu.Lock()
		ok, changed := cond(), d.changed
		d.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		case <-d.ctx.Done():
			return errors.New("the device closed")
		}
	}
}

// WaitListening waits until an instrumentation listens on the abstract
// socket name, so that a localabstract:name stream reaches it.
func (d *Device) WaitListening(ctx context.Context, name string) error {
	err := d.waitUntil(ctx, func() bool { return d.sockets[name] != nil })
	if err != nil {
		return fmt.Errorf("fakeadbd: nothing listens on localabstract:%s (%w); logcat:\n%s", name, err, strings.Join(d.Logcat(), "\n"))
	}
	return nil
}

// WaitHandshake waits until an adb server has sent the device its CNXN
// and the device has answered it as its State says: with its own CNXN
// (Ready), with an AUTH token (Unauthorized), or not at all (Offline).
func (d *Device) WaitHandshake(ctx context.Context) error {
	if err := d.waitUntil(ctx, func() bool { return d.handshakes > 0 }); err != nil {
		return fmt.Errorf("fakeadbd: no adb server sent %s its CNXN (%w)", d.Addr(), err)
	}
	return nil
}

// WaitLog waits until a line of the log contains substr.
func (d *Device) WaitLog(ctx context.Context, substr string) error {
	err := d.waitUntil(ctx, func() bool {
		for _, e := range d.log {
			if strings.Contains(e.String(), substr) {
				return true
			}
		}
		return false
	})
	if err != nil {
		return fmt.Errorf("fakeadbd: logcat has no %q (%w); it has:\n%s", substr, err, strings.Join(d.Logcat(), "\n"))
	}
	return nil
}

// Unplug takes the device away from its hosts as a phone that drops off
// the network does: its connections close, its instrumentations die, and
// every new connection is closed at once, so adb lists it as offline and
// keeps trying to reconnect. Unlike Close it keeps the device's port until
// Close: a server retries that address every 10 s, and a fake the kernel
// gave it to would be attached under this device's serial, taking the
// commands meant for it (logcat, am force-stop) from another test.
func (d *Device) Unplug() { d.disconnect(&d.unplugged) }

// disconnect sets flag (closed or unplugged) under the device's lock, so
// that new connections are refused from then on, stops the running
// instrumentations and closes every open connection.
func (d *Device) disconnect(flag *bool) {
	d.mu.Lock()
	*flag = true
	conns := make([]*conn, 0, len(d.conns))
	for c := range d.conns {
		conns = append(conns, c)
	}
	d.mu.Unlock()
	d.cancel()
	for _, c := range conns {
		c.nc.Close()
	}
}

// Close closes the listener and every connection, stops the running
// instrumentations and waits for everything the device started (harness
// goroutines and processes included) to end.
func (d *Device) Close() error {
	d.closeOnce.Do(func() {
		d.disconnect(&d.closed)
		err := d.ln.Close()
		d.wg.Wait()
		if rerr := d.removeRoot(); err == nil {
			err = rerr
		}
		if errors.Is(err, net.ErrClosed) {
			err = nil
		}
		d.closeErr = err
	})
	return d.closeErr
}

func (d *Device) removeRoot() error {
	if !d.tempRoot {
		return nil
	}
	return os.RemoveAll(d.root)
}

// goTracked runs f on a goroutine that Close waits for, unless the device
// is already closing.
func (d *Device) goTracked(f func()) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return false
	}
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		f()
	}()
	return true
}

func (d *Device) accept() {
	defer d.wg.Done()
	for {
		nc, err := d.ln.Accept()
		if err != nil {
			return
		}
		c := &conn{d: d, nc: nc, streams: map[uint32]*stream{}, hostMax: hostMaxDataFloor}
		d.mu.Lock()
		if d.closed {
			d.mu.Unlock()
			nc.Close()
			return
		}
		if d.unplugged {
			d.mu.Unlock()
			nc.Close()
			continue
		}
		d.conns[c] = struct{}{}
		d.wg.Add(1)
		d.mu.Unlock()
		go func() {
			defer d.wg.Done()
			c.serve()
			d.mu.Lock()
			delete(d.conns, c)
			d.mu.Unlock()
		}()
	}
}

// banner is the CNXN payload of a ready device.
func (d *Device) banner() string {
	var b strings.Builder
	b.WriteString("device::")
	for _, k := range bannerProps {
		fmt.Fprintf(&b, "%s=%s;", k, d.props[k])
	}
	b.WriteString("features=" + features)
	return b.String()
}

// conn is one TCP connection from an adb server.
type conn struct {
	d  *Device
	nc net.Conn

	wmu sync.Mutex // one message at a time on the wire

	mu      sync.Mutex
	streams map[uint32]*stream
	nextID  uint32
	hostMax int
	online  bool
}

func (c *conn) send(cmd, arg0, arg1 uint32, data []byte) error {
	b := encode(message{cmd: cmd, arg0: arg0, arg1: arg1, data: data})
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.nc.Write(b)
	return err
}

func (c *conn) serve() {
	defer func() {
		c.nc.Close()
		c.mu.Lock()
		streams := make([]*stream, 0, len(c.streams))
		for _, s := range c.streams {
			streams = append(streams, s)
		}
		c.mu.Unlock()
		for _, s := range streams {
			s.markClosed()
		}
	}()
	for {
		m, err := readMessage(c.nc)
		if err != nil {
			return
		}
		c.handle(m)
	}
}

// handle acts on one message from the host. Messages are handled one at a
// time in the order they arrived, which Write relies on: an OKAY handled
// before a CLSE is seen by the stream before the CLSE is.
func (c *conn) handle(m message) {
	switch m.cmd {
	case cmdCNXN:
		c.handshake(m)
		c.d.mu.Lock()
		c.d.handshakes++
		c.d.changedLocked()
		c.d.mu.Unlock()
	case cmdAUTH:
		// Every answer to a token (a signature, then the public key) is
		// refused by asking again, so the host stays unauthorized; the
		// host sends its public key only once and then waits for a
		// user who never taps "allow".
		if c.d.cfg.State == Unauthorized && m.arg0 == authSignature {
			c.sendToken()
		}
	case cmdOPEN:
		if c.isOnline() {
			c.open(m.arg0, strings.TrimRight(string(m.data), "\x00"))
		}
	case cmdOKAY:
		if s := c.stream(m.arg1); s != nil {
			select {
			case s.okay <- struct{}{}:
			default:
			}
		}
	case cmdWRTE:
		if s := c.stream(m.arg1); s != nil {
			s.deliver(m.data)
		}
	case cmdCLSE:
		if s := c.stream(m.arg1); s != nil {
			s.markClosed()
		}
	}
}

func (c *conn) isOnline() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.online
}

func (c *conn) handshake(m message) {
	switch c.d.cfg.State {
	case Offline:
		return
	case Unauthorized:
		c.sendToken()
		return
	}
	version := min(m.arg0, adbVersion)
	if version < adbVersionMin {
		version = adbVersionMin
	}
	c.mu.Lock()
	// The host's maxdata bounds our WRTEs; it offers 1 MiB, we use less
	// so that a stream never hogs the connection for long.
	c.hostMax = max(hostMaxDataFloor, min(int(m.arg1), maxData))
	c.online = true
	// A second CNXN means the host started over: its old streams are gone.
	old := make([]*stream, 0, len(c.streams))
	for _, s := range c.streams {
		old = append(old, s)
	}
	c.mu.Unlock()
	for _, s := range old {
		s.markClosed()
	}
	c.send(cmdCNXN, version, maxData, []byte(c.d.banner()))
}

func (c *conn) sendToken() {
	token := make([]byte, 20)
	rand.Read(token)
	c.send(cmdAUTH, authToken, 0, token)
}

func (c *conn) stream(local uint32) *stream {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.streams[local]
}

func (c *conn) open(remote uint32, service string) {
	h := c.d.route(service)
	if h == nil {
		// adbd's answer to a service it cannot start, and to a socket
		// nobody listens on: the host reports the stream as closed.
		c.send(cmdCLSE, 0, remote, nil)
		return
	}
	c.mu.Lock()
	c.nextID++
	s := newStream(c, c.nextID, remote)
	c.streams[s.local] = s
	c.mu.Unlock()
	c.send(cmdOKAY, s.local, remote, nil)
	ok := c.d.goTracked(func() {
		defer s.Close()
		h(s)
	})
	if !ok {
		s.Close()
	}
}

func (c *conn) forget(s *stream) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.streams[s.local] == s {
		delete(c.streams, s.local)
	}
}

// route finds the handler of a service, or nil to refuse it.
func (d *Device) route(service string) func(*stream) {
	name, rest, _ := strings.Cut(service, ":")
	opts := strings.Split(name, ",")
	switch {
	case opts[0] == "shell":
		v2 := false
		for _, o := range opts[1:] {
			v2 = v2 || o == "v2"
		}
		return func(s *stream) { d.serveShell(s, rest, v2) }
	case name == "exec":
		return func(s *stream) { d.serveShell(s, rest, false) }
	case name == "sync":
		return d.serveSync
	case name == "localabstract":
		d.mu.Lock()
		in := d.sockets[rest]
		d.mu.Unlock()
		if in == nil {
			return nil
		}
		return in.handle
	}
	return nil
}

// hostPath maps a device path (absolute, or relative to the shell's
// working directory /) into Root; ".." cannot climb out of it.
func (d *Device) hostPath(p string) string {
	return filepath.Join(d.root, filepath.FromSlash(cleanDevPath(p)))
}
