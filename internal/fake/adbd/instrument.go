package adbd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// DefaultSocket is the harness's abstract socket when am instrument has no
// -e socket.
const DefaultSocket = "droidstar-harness"

// ShellDataDir is the folder the adb shell owns (SELinux type
// shell_data_file), where the host stages a run's files.
const ShellDataDir = "/data/local/tmp"

// harnessTag is the harness's logcat tag.
const harnessTag = "droidstar-harness"

// What am instrument -w prints when the instrumentation ends. The app's
// death (force-stop, a reinstall, the device going away) is reported by
// the activity manager as a crash; a harness that finishes after a bye or
// fails calls finish(code, results) with code 0 or 1 and its one result
// (harness-apk's HarnessInstrumentation.onStart).
const (
	resultCrashed = "INSTRUMENTATION_RESULT: shortMsg=Process crashed.\nINSTRUMENTATION_CODE: 0"
	resultBye     = "INSTRUMENTATION_RESULT: droidstar-harness=bye\nINSTRUMENTATION_CODE: 0"
)

// am is the activity manager's shell command: instrument, force-stop and
// get-current-user.
func (p *proc) am(args []string) int {
	if len(args) == 0 {
		p.errf("usage: am instrument|force-stop|get-current-user ... (fakeadbd)")
		return 1
	}
	switch args[0] {
	case "instrument":
		return p.instrument(args[1:])
	case "force-stop":
		return p.forceStopCmd(args[1:])
	case "get-current-user":
		if p.d.sdk() >= 24 {
			p.outf("%d", p.d.cfg.CurrentUser)
			return 0
		}
	}
	if p.d.sdk() < 24 {
		// Android 6's Am.onRun: BaseCommand.showError prints the usage,
		// a blank line and the error to stderr, and am still exits 0.
		p.errf("usage: am [subcommand] [options]")
		p.errf("(fakeadbd: the rest of am's usage)")
		p.errf("")
		p.errf("Error: unknown command '%s'", args[0])
		return 0
	}
	p.errf("Unknown command: %s", args[0])
	return 1
}

// sdk is the device's API level.
func (d *Device) sdk() int {
	n, _ := strconv.Atoi(d.props["ro.build.version.sdk"])
	return n
}

func (p *proc) instrument(args []string) int {
	wait := false
	extras := map[string]string{}
	component := ""
	// Instrument.userId defaults to UserHandle.USER_CURRENT.
	user := p.d.cfg.CurrentUser
	for i := 0; i < len(args); i++ {
		switch a := args[i]; a {
		case "-w":
			wait = true
		case "-r", "-m", "--no-window-animation", "--no-hidden-api-checks", "--no-test-api-access", "--no-isolated-storage", "--no-restart":
		case "-e", "--es":
			if i+2 >= len(args) {
				p.errf("Error: -e needs a key and a value")
				return 1
			}
			extras[args[i+1]] = args[i+2]
			i += 2
		case "--user":
			if i+1 >= len(args) {
				p.errf("Error: --user needs a user id")
				return 1
			}
			i++
			n, ok := p.d.parseUser(args[i])
			if !ok {
				p.errf("java.lang.NumberFormatException: For input string: \"%s\"", args[i])
				return 1
			}
			if n < 0 {
				p.errf("Error: Can't start instrumentation with user 'all'")
				return 1
			}
			user = n
		case "-p", "--abi":
			i++
		default:
			if strings.HasPrefix(a, "-") {
				p.errf("Error: Unknown option: %s", a)
				return 1
			}
			component = a
		}
	}
	pkg, cls, ok := strings.Cut(component, "/")
	if !ok || pkg == "" || cls == "" {
		p.errf("Error: Bad component name: %s", component)
		return 1
	}
	if strings.HasPrefix(cls, ".") {
		cls = pkg + cls
	}
	full := pkg + "/" + cls
	// An app not installed for the user (or a user that does not exist)
	// has no instrumentation info to find.
	if !p.d.InstalledFor(pkg, user) || pkg != HarnessPackage || cls != HarnessInstrumentation {
		p.outf("INSTRUMENTATION_STATUS: id=ActivityManagerService")
		p.outf("INSTRUMENTATION_STATUS: Error=Unable to find instrumentation info for: ComponentInfo{%s}", full)
		p.outf("INSTRUMENTATION_STATUS_CODE: -1")
		p.errf("android.util.AndroidException: INSTRUMENTATION_FAILED: %s", full)
		p.errf("\tat com.android.commands.am.Instrument.run(Instrument.java:519)")
		p.errf("\tat com.android.commands.am.Am.runInstrument(Am.java:202)")
		p.errf("\tat com.android.commands.am.Am.onRun(Am.java:80)")
		return 1
	}
	in := p.d.startInstrumentation(pkg, full, user, extras)
	if !wait {
		return 0
	}
	select {
	case <-in.done:
		p.outf("%s", in.result)
		return 0
	case <-p.ctx.Done():
		// The host closed the stream: am dies, the instrumentation lives on.
		return 130
	}
}

// instrumentation is one run of the harness's instrumentation: an app
// process that listens on an abstract socket and serves one connection
// after another until a bye.
type instrumentation struct {
	d         *Device
	pkg, comp string
	socket    string
	pid       int
	user      int // the Android user the app process runs as
	serve     func(context.Context, io.ReadWriteCloser) bool

	ctx    context.Context
	cancel context.CancelFunc

	// turn lets one connection in at a time, as the harness's accept
	// loop does; later ones wait, connected, in the backlog.
	turn chan struct{}

	once   sync.Once
	done   chan struct{}
	result string // what am instrument -w prints; set before done closes
	conns  int
}

// logKey finds where a context's Log lines go.
type logKey struct{}

type logSink struct {
	d   *Device
	pid int
}

// Log appends a line to the logcat of the device that ctx comes from (the
// contexts a HarnessFunc and its serve func get), under the harness
// process's pid; it does nothing with any other context. priority is
// logcat's letter: 'V', 'D', 'I', 'W', 'E' or 'F'.
func Log(ctx context.Context, priority byte, tag, msg string) {
	if s, ok := ctx.Value(logKey{}).(logSink); ok {
		s.d.logPID(s.pid, priority, tag, "%s", msg)
	}
}

// appKey finds the App a context's harness runs as.
type appKey struct{}

// App is the app process a HarnessFunc serves in: its package, pid and
// the Android user it runs as (am instrument --user, else the current
// user).
type App struct {
	d       *Device
	Package string
	PID     int
	User    int
}

// Granted says whether the app holds a runtime permission now, for its
// own user: runtime permissions are granted per user, and a grant takes
// effect in a running app at once. A harness that lacks a permission
// should fail the callins that need it, as the framework does (see
// simharness.Options.Throws).
func (a App) Granted(perm string) bool {
	if a.d == nil {
		return false
	}
	return slices.Contains(a.d.Granted(a.Package, a.User), perm)
}

// AppOf returns the app process that the contexts a HarnessFunc and its
// serve func get belong to; false for any other context.
func AppOf(ctx context.Context) (App, bool) {
	a, ok := ctx.Value(appKey{}).(App)
	return a, ok
}

func (d *Device) startInstrumentation(pkg, comp string, user int, extras map[string]string) *instrumentation {
	// As the activity manager does, a new run replaces the app's process.
	d.forceStop(pkg, "start instr")
	pid := d.newPID()
	ctx := context.WithValue(d.ctx, logKey{}, logSink{d: d, pid: pid})
	ctx, cancel := context.WithCancel(context.WithValue(ctx, appKey{}, App{d: d, Package: pkg, PID: pid, User: user}))
	in := &instrumentation{d: d, pkg: pkg, comp: comp, pid: pid, user: user, ctx: ctx, cancel: cancel,
		turn: make(chan struct{}, 1), done: make(chan struct{})}
	in.socket = extras["socket"]
	if in.socket == "" {
		in.socket = DefaultSocket
	}
	d.mu.Lock()
	d.instrs[pkg] = in
	d.mu.Unlock()
	// Force-stop and Device.Close end the process by cancelling ctx.
	context.AfterFunc(ctx, func() { in.finish(resultCrashed) })
	d.logf('I', "ActivityManager", "Start proc %d:%s/u%da86 for added application %s", pid, pkg, user, pkg)

	if d.cfg.HarnessNeverListens {
		msg := "java.lang.IllegalStateException: the harness never opens its socket (fakeadbd Config.HarnessNeverListens)"
		long := fmt.Sprintf("java.lang.RuntimeException: Exception thrown in onCreate() of ComponentInfo{%s}: %s", comp, msg)
		d.logPID(pid, 'E', harnessTag, "harness failed: %s", msg)
		d.logPID(pid, 'E', "AndroidRuntime", "FATAL EXCEPTION: main")
		d.logPID(pid, 'E', "AndroidRuntime", "Process: %s, PID: %d", pkg, pid)
		d.logPID(pid, 'E', "AndroidRuntime", "%s", long)
		d.logf('I', "ActivityManager", "Process %s (pid %d) has died: fore TOP", pkg, pid)
		in.finish(fmt.Sprintf("INSTRUMENTATION_RESULT: shortMsg=java.lang.RuntimeException\nINSTRUMENTATION_RESULT: longMsg=%s\nINSTRUMENTATION_CODE: 0", long))
		return in
	}

	run := HarnessRun{Run: extras["run"]}
	appDir := fmt.Sprintf("/data/user/%d/%s", in.user, pkg)
	d.logPID(pid, 'I', harnessTag, "starting: socket %s, run %s, staging %s", in.socket, run.Run, extras["staging"])
	fail := func(err error) *instrumentation {
		d.logPID(pid, 'E', harnessTag, "harness failed: %v", err)
		in.finish(fmt.Sprintf("INSTRUMENTATION_RESULT: droidstar-harness=error: %v\nINSTRUMENTATION_CODE: 1", err))
		return in
	}
	if dev := extras["staging"]; dev != "" {
		run.Staging = d.hostPath(dev)
	}
	run.FilesRoot = d.hostPath(appDir + "/files")
	run.CodeCache = d.hostPath(appDir + "/code_cache")
	run.ShellData = d.hostPath(ShellDataDir)
	for _, dir := range []string{run.FilesRoot, run.CodeCache, run.ShellData} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fail(fmt.Errorf("java.io.IOException: cannot create %s: %v", dir, err))
		}
	}
	if d.cfg.Harness == nil {
		return fail(errors.New("java.lang.IllegalStateException: no harness (fakeadbd Config.Harness is nil)"))
	}
	serve, err := d.cfg.Harness(ctx, run)
	if err != nil {
		return fail(err)
	}
	in.serve = serve
	d.mu.Lock()
	if other := d.sockets[in.socket]; other != nil && other != in {
		d.mu.Unlock()
		return fail(errors.New("java.io.IOException: Address already in use"))
	}
	select {
	case <-in.done:
		// Stopped while its harness was starting: never listens.
	default:
		d.sockets[in.socket] = in
		d.changedLocked()
	}
	d.mu.Unlock()
	d.logPID(pid, 'I', harnessTag, "listening on localabstract:%s (sdk %s)", in.socket, d.props["ro.build.version.sdk"])
	return in
}

// finish ends the instrumentation once: its socket disappears, its
// connections close, and am instrument -w prints result.
func (in *instrumentation) finish(result string) {
	in.once.Do(func() {
		d := in.d
		d.mu.Lock()
		if d.sockets[in.socket] == in {
			delete(d.sockets, in.socket)
			d.changedLocked()
		}
		if d.instrs[in.pkg] == in {
			delete(d.instrs, in.pkg)
		}
		in.result = result
		close(in.done)
		d.mu.Unlock()
		in.cancel()
	})
}

// handle serves one localabstract: stream to the harness's socket.
func (in *instrumentation) handle(s *stream) {
	select {
	case in.turn <- struct{}{}:
	case <-in.ctx.Done():
		return
	case <-s.closed:
		return
	}
	defer func() { <-in.turn }()
	if in.ctx.Err() != nil {
		return
	}
	d := in.d
	d.mu.Lock()
	in.conns++
	n := in.conns
	d.mu.Unlock()
	d.logPID(in.pid, 'I', harnessTag, "connection %d accepted (uid 2000)", n)
	// The app's death closes its sockets.
	stop := context.AfterFunc(in.ctx, func() { s.Close() })
	bye := in.serve(in.ctx, s)
	stop()
	s.Close()
	switch {
	case bye:
		d.logPID(in.pid, 'I', harnessTag, "bye on connection %d: finishing", n)
		in.finish(resultBye)
	case in.ctx.Err() == nil:
		d.logPID(in.pid, 'I', harnessTag, "connection %d closed without bye; listening again", n)
	}
}

// pidof is toybox's pidof: the pids of the running processes of each
// name, on one line, and exit 1 when there is none. The only processes
// the fake knows by name are its instrumentations' apps, named by their
// package as Android names an app's default process.
func (p *proc) pidof(args []string) int {
	var pids []string
	p.d.mu.Lock()
	for _, name := range args {
		if in := p.d.instrs[name]; in != nil {
			pids = append(pids, strconv.Itoa(in.pid))
		}
	}
	p.d.mu.Unlock()
	if len(pids) == 0 {
		return 1
	}
	p.outf("%s", strings.Join(pids, " "))
	return 0
}

// Crash ends the app process that ctx belongs to (the contexts a
// HarnessFunc and its serve func get) as an uncaught exception on its
// main thread does on Android; it does nothing with any other context.
// RuntimeInit's handler writes the FATAL EXCEPTION report to the crash
// buffer under the app's pid (frameworks/base
// core/java/com/android/internal/os/RuntimeInit.java,
// KillApplicationHandler), the activity manager finishes the
// instrumentation with the crash's short and long messages and result
// code 0, Activity.RESULT_CANCELED (services/core/java/com/android/
// server/am/AppErrors.java, crashApplicationInner: "if the process is
// running instrumentation, finish it"), which am instrument -r prints
// as INSTRUMENTATION_RESULT lines and INSTRUMENTATION_CODE: 0
// (cmds/am/src/com/android/commands/am/Instrument.java), and the process
// is killed, closing its sockets.
func Crash(ctx context.Context, exception, message string, stack ...string) {
	a, ok := AppOf(ctx)
	if !ok || a.d == nil {
		return
	}
	d := a.d
	d.mu.Lock()
	in := d.instrs[a.Package]
	d.mu.Unlock()
	if in == nil || in.pid != a.PID {
		return
	}
	long := exception
	if message != "" {
		long += ": " + message
	}
	d.logCrash(a.PID, "AndroidRuntime", "FATAL EXCEPTION: main")
	d.logCrash(a.PID, "AndroidRuntime", "Process: %s, PID: %d", a.Package, a.PID)
	d.logCrash(a.PID, "AndroidRuntime", "%s", long)
	for _, frame := range stack {
		d.logCrash(a.PID, "AndroidRuntime", "\tat %s", frame)
	}
	d.logf('W', "ActivityManager", "Error in app %s running instrumentation ComponentInfo{%s}:", a.Package, in.comp)
	d.logf('W', "ActivityManager", "  %s", exception)
	d.logf('W', "ActivityManager", "  %s", long)
	d.logf('I', "ActivityManager", "Process %s (pid %d) has died: fore TOP", a.Package, a.PID)
	in.finish(fmt.Sprintf("INSTRUMENTATION_RESULT: shortMsg=%s\nINSTRUMENTATION_RESULT: longMsg=%s\nINSTRUMENTATION_CODE: 0", exception, long))
}

// KillApp ends pkg's running instrumentation as a process killed from
// outside does (the low-memory killer, kill -9 as root): no crash report,
// the activity manager notes the death and finishes the instrumentation
// with shortMsg=Process crashed. and code 0
// (ActivityManagerService.cleanUpApplicationRecordLocked, handleAppDied:
// "Crash of app ... running instrumentation ...", RESULT_CANCELED), and
// the socket's connections close. It says whether an instrumentation ran.
func (d *Device) KillApp(pkg string) bool {
	d.mu.Lock()
	in := d.instrs[pkg]
	d.mu.Unlock()
	if in == nil {
		return false
	}
	d.logf('I', "ActivityManager", "Process %s (pid %d) has died: fore TOP", pkg, in.pid)
	d.logf('W', "ActivityManager", "Crash of app %s running instrumentation ComponentInfo{%s}", pkg, in.comp)
	in.finish(resultCrashed)
	return true
}
