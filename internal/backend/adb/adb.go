// Package adb runs queries on Android devices and emulators: the harness
// app is installed when missing or different from the one droidstar
// embeds, the purpose's files are pushed, its runtime permissions granted,
// the harness started with am instrument, and the wire protocol spoken over
// an ADB stream to the harness's abstract socket. Each executor is one
// device.
package adb

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/droidstar/droidstar/internal/adbclient"
	"github.com/droidstar/droidstar/internal/backend"
	"github.com/droidstar/droidstar/internal/harness"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/purpose"
)

// Options configure the device executors.
type Options struct {
	// APK is the harness app (the one embedded in droidstar).
	APK []byte
	// Host identifies droidstar in the hello.
	Host string
	// SocketTimeout bounds the wait for the harness to open its socket
	// after am instrument; 0 means DefaultSocketTimeout.
	SocketTimeout time.Duration
	// Dir is the device folder under which each run stages its files for
	// the harness to copy; empty means DefaultDir.
	Dir string
	// Log receives one line per setup step a person may wait on
	// (installing the harness, restarting a hung one); nil discards them.
	// Executors share it, so it must be safe for concurrent use.
	Log io.Writer
	// Awake keeps the devices' screens on while their executors run;
	// nil leaves the devices' stay-on setting alone.
	Awake *Awake
	// KeepLocationOps leaves the harness's location app-ops as the device
	// has them, instead of allowing them for the run of a purpose that
	// declares a location permission (location.go): on Android 11 and
	// later, a purpose that needs location then learns refusals.
	KeepLocationOps bool
	// Deadline bounds each run request (deadline.go); the zero value
	// picks the defaults.
	Deadline Deadline
}

const (
	// DefaultSocketTimeout covers a cold app start on a slow emulator.
	DefaultSocketTimeout = 30 * time.Second
	// DefaultDir is where the adb shell may create files and the harness
	// app may only read them (SELinux type shell_data_file: apps may not
	// create, append to or unlink files there, AOSP system/sepolicy
	// app_neverallows.te), on every Android version droidstar supports.
	// The harness copies a run's folder into its own files folder at
	// start (harness-apk/PROTOCOL.md).
	DefaultDir = "/data/local/tmp/droidstar"
	// Instrumentation is the harness's component, as am instrument wants it.
	Instrumentation = HarnessPackage + "/.HarnessInstrumentation"
)

// Executor is the harness on one device.
type Executor struct {
	dev     *adbclient.Device
	info    model.DeviceInfo
	client  *harness.Client
	inst    *instrumentation
	user    int          // the Android user the harness runs as
	claim   *claim       // this run's hold on the device (claim.go)
	release func() error // lets the device sleep again (Options.Awake)
	// awakeWarning says the device could not be kept awake; the first
	// results the executor returns carry it into the model.
	awakeWarning string
	// locationRestore are the location app-op modes to put back when the
	// run ends (location.go).
	locationRestore []opRestore
	runDir          string
	marker          string // logged before the harness starts
	hello           harness.Hello
	closeMu         sync.Mutex
	closed          bool

	// What a restart needs to start the harness again (deadline.go).
	opts     Options
	config   *harness.Configuration
	socket   string
	runID    string
	budget   budget
	restarts int
	// pid is the harness app's process, as pidof saw it once it
	// answered (0 when pidof could not tell): its crash report is
	// found by it.
	pid int
	// reviver starts a harness that died again and finds the query that
	// killed it (ExecuteBatch).
	reviver *backend.Reviver
	// timeouts are the runs' own quiescence timeouts (SetQuiescence,
	// SetWaitTimeouts), or harness.PurposeQuiescence. The request
	// deadlines stay the purpose's, which are longer.
	timeouts harness.Quiet
}

// SetQuiescence implements backend.QuiescenceSetter: the runs from now on
// ask the harness for waits of d (at most the purpose's quiescence, which
// the harness enforces).
func (e *Executor) SetQuiescence(d time.Duration) { e.timeouts.Quiescence = d }

// SetWaitTimeouts implements backend.WaitTimeoutSetter: the runs from now
// on give each wait its own timeout (run's "waits").
func (e *Executor) SetWaitTimeouts(timeouts func(query []string) []time.Duration) {
	e.timeouts.Waits = timeouts
}

// Start prepares one device for a purpose and connects to its harness. A
// purpose the harness cannot resolve fails here, as a purpose error at the
// offending line, before any query runs.
func Start(ctx context.Context, p *purpose.Purpose, dev *adbclient.Device, o Options) (*Executor, error) {
	// What cannot work is refused before the device is touched.
	if err := CheckPermissions(p); err != nil {
		return nil, err
	}
	files, err := harness.StagedFiles(p)
	if err != nil {
		return nil, err
	}
	return open(ctx, dev, o, p.Permissions, files, harness.Configure(p), newBudget(p, o.Deadline))
}

// open is what Start and StartHarness share: the device's user, awake,
// the harness installed, the permissions granted, the files staged and
// the harness started; with a configuration, also configured.
func open(ctx context.Context, dev *adbclient.Device, o Options, perms []string, files []harness.StagedFile, config *harness.Configuration, b budget) (_ *Executor, err error) {
	serial := dev.Serial()
	props, err := dev.Properties(ctx)
	if err != nil {
		return nil, fmt.Errorf("device %s: read its properties: %w", serial, err)
	}
	e := &Executor{dev: dev, info: Describe(serial, props), opts: o, config: config, budget: b, timeouts: harness.Quiet{Quiescence: harness.PurposeQuiescence}}
	e.reviver = &backend.Reviver{
		Run: e.executeHanging,
		Restart: func(ctx context.Context, d *backend.DiedError) error {
			return e.restart(ctx, fmt.Sprintf("%s died (%s)", d.Process, d.Status), "died")
		},
	}
	// Claimed before anything on the device changes: another run's
	// harness, files and settings are not this run's to replace.
	if e.claim, err = defaultClaimer().acquire(ctx, dev, o.Log); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			e.claim.release()
		}
	}()
	// pm grant goes to user 0 and am instrument to the current user unless
	// told otherwise: both are told, so that they agree.
	if e.user, err = CurrentUser(ctx, dev, e.info.SDK); err != nil {
		return nil, err
	}
	e.info.User = &e.user
	if o.Awake != nil {
		e.release, e.awakeWarning = o.Awake.hold(ctx, dev)
		defer func() {
			if err != nil {
				e.release()
			}
		}()
	}
	if _, err := EnsureHarness(ctx, dev, o.APK, o.Log, e.user); err != nil {
		return nil, err
	}
	if err := e.grant(ctx, perms); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			if e.client != nil {
				e.client.Close()
			}
			e.cleanup()
			e.restoreLocation()
		}
	}()
	// After the grants, which sync the location ops back to foreground.
	if err := e.allowLocation(ctx, perms); err != nil {
		return nil, err
	}
	if err := e.stage(ctx, files); err != nil {
		return nil, err
	}
	if config == nil {
		err = e.start(ctx, e.socket)
	} else {
		err = e.launch(ctx, e.socket)
	}
	if err != nil {
		return nil, err
	}
	return e, nil
}

// grant grants the harness the runtime permissions among perms; Android
// grants the others at install, and before Android 6 all of them.
func (e *Executor) grant(ctx context.Context, perms []string) error {
	if e.info.SDK < 23 {
		return nil
	}
	for _, perm := range perms {
		if !runtimePermission(perm) {
			continue
		}
		if err := shellOK(ctx, e.dev, fmt.Sprintf("pm grant --user %d %s %s", e.user, HarnessPackage, adbclient.Quote(perm))); err != nil {
			return fmt.Errorf("device %s: grant %s to the harness: %w", e.dev.Serial(), perm, err)
		}
	}
	return nil
}

// stage pushes files into a fresh run folder for the harness to copy:
// what every session on a device starts with. On error the caller cleans
// up (Executor.cleanup) what it left.
func (e *Executor) stage(ctx context.Context, files []harness.StagedFile) error {
	dev, serial := e.dev, e.dev.Serial()
	e.runID = randomID()
	base := e.opts.Dir
	if base == "" {
		base = DefaultDir
	}
	e.runDir = path.Join(base, e.runID)
	if base == DefaultDir {
		// droidstar's own folder: what is in it was left by runs cut
		// short. None can still be in use, since this run holds the
		// device's claim (claim.go). A folder given with --device-dir may
		// hold the user's files.
		if err := shellOK(ctx, dev, "rm -rf "+adbclient.Quote(DefaultDir)); err != nil {
			return fmt.Errorf("device %s: remove earlier runs' files from %s: %w", serial, DefaultDir, err)
		}
	}
	if err := e.pushFiles(ctx, files); err != nil {
		return err
	}
	e.socket = "droidstar-" + e.runID
	// The device log outlives runs: this line marks where this one starts,
	// so a failure shows only its own lines.
	e.marker = "droidstar run " + e.runID + " starts"
	dev.Shell(ctx, "log -t "+LogTag+" "+adbclient.Quote(e.marker))
	return nil
}

// start starts the harness with am instrument on socket, to copy the
// staged run folder, and connects to it.
func (e *Executor) start(ctx context.Context, socket string) (err error) {
	serial := e.dev.Serial()
	e.inst, err = startInstrumentation(ctx, e.dev, socket, e.runDir, e.runID, e.user)
	if err != nil {
		return fmt.Errorf("device %s: start the harness: %w", serial, err)
	}
	timeout := e.opts.SocketTimeout
	if timeout <= 0 {
		timeout = DefaultSocketTimeout
	}
	e.client, err = e.connect(ctx, socket, timeout, e.opts.Host)
	if err != nil {
		return err
	}
	// The app's pid finds its crash report if it dies; a device that
	// cannot tell (no pidof before Android 6) gets am instrument's words.
	e.pid = 0
	if r, perr := e.dev.Shell(ctx, "pidof "+HarnessPackage); perr == nil && r.Exit == 0 {
		if f := strings.Fields(r.Stdout); len(f) == 1 {
			e.pid, _ = strconv.Atoi(f[0])
		}
	}
	return nil
}

// launch starts the harness and configures it: at Start, and again when a
// restart replaces a hung harness (deadline.go).
func (e *Executor) launch(ctx context.Context, socket string) error {
	if err := e.start(ctx, socket); err != nil {
		return err
	}
	if _, err := e.client.Configure(ctx, e.config); err != nil {
		var perr purpose.ErrorList
		if errors.As(err, &perr) {
			return err
		}
		return e.explain(ctx, fmt.Errorf("device %s: configure the harness: %w", e.dev.Serial(), err))
	}
	return nil
}

// Describe reads what the learned model records about a device from its
// properties.
func Describe(serial string, props map[string]string) model.DeviceInfo {
	sdk, _ := strconv.Atoi(strings.TrimSpace(props["ro.build.version.sdk"]))
	name := strings.TrimSpace(props["ro.product.model"])
	if m := strings.TrimSpace(props["ro.product.manufacturer"]); m != "" && name != "" && !strings.HasPrefix(strings.ToLower(name), strings.ToLower(m)) {
		name = m + " " + name
	}
	return model.DeviceInfo{Serial: serial, Platform: "android", Model: name, Release: strings.TrimSpace(props["ro.build.version.release"]), SDK: sdk}
}

// pushFiles copies the purpose's files and jars into the run's staging
// folder and lets the harness app, which runs under its own uid, read
// them; it writes only in the copy it makes.
func (e *Executor) pushFiles(ctx context.Context, files []harness.StagedFile) error {
	serial := e.dev.Serial()
	dirs := []string{e.runDir + "/" + harness.JarDir}
	for _, f := range files {
		if dir := path.Dir(e.runDir + "/" + f.Name); !slices.Contains(dirs, dir) && dir != e.runDir {
			dirs = append(dirs, dir)
		}
	}
	quoted := make([]string, len(dirs))
	for i, d := range dirs {
		quoted[i] = adbclient.Quote(d)
	}
	if err := shellOK(ctx, e.dev, "mkdir -p "+strings.Join(quoted, " ")); err != nil {
		return fmt.Errorf("device %s: create %s: %w", serial, e.runDir, err)
	}
	for _, f := range files {
		to := e.runDir + "/" + f.Name
		if err := e.dev.Push(ctx, bytes.NewReader(f.Data), to, 0o644, time.Now()); err != nil {
			return fmt.Errorf("device %s: push %s: %w", serial, to, err)
		}
	}
	// The device folder too: mkdir -p made it with the shell's umask,
	// which nothing pins (a 077 one would leave the app, another uid, no
	// way through it to the run's folder).
	if err := shellOK(ctx, e.dev, "chmod 755 "+adbclient.Quote(path.Dir(e.runDir))+" && chmod -R 755 "+adbclient.Quote(e.runDir)); err != nil {
		return fmt.Errorf("device %s: open %s to the harness: %w", serial, e.runDir, err)
	}
	return nil
}

// connect waits for the harness's socket and says hello. The socket
// appears some time after am instrument starts the app, so the stream is
// retried until the deadline; a stream that opens but closes at once means
// nobody listens yet.
func (e *Executor) connect(ctx context.Context, socket string, timeout time.Duration, host string) (*harness.Client, error) {
	serial := e.dev.Serial()
	deadline := time.Now().Add(timeout)
	var last error
	for attempt := 0; ; attempt++ {
		if e.inst.exited() {
			return nil, e.explain(ctx, fmt.Errorf("device %s: the harness ended before it opened its socket", serial))
		}
		attemptCtx, cancel := context.WithTimeout(ctx, max(time.Until(deadline), time.Second))
		stream, err := e.dev.Open(attemptCtx, "localabstract:"+socket)
		if err == nil {
			client := harness.NewClient(stream, "harness on "+serial)
			h, herr := client.Hello(attemptCtx, host)
			if herr == nil {
				e.hello = h
				cancel()
				return client, nil
			}
			client.Close()
			var re *harness.RemoteError
			if errors.As(herr, &re) {
				cancel()
				return nil, fmt.Errorf("device %s: %w", serial, herr)
			}
			err = herr
		}
		cancel()
		last = err
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if time.Now().After(deadline) {
			break
		}
		// Polling is the only way to learn that an abstract socket exists.
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-e.inst.done:
		case <-time.After(retryDelay(attempt)):
		}
	}
	return nil, e.explain(ctx, fmt.Errorf("device %s: the harness did not open its socket localabstract:%s within %s (last attempt: %v)", serial, socket, timeout, last))
}

func retryDelay(attempt int) time.Duration {
	return min(50*time.Millisecond<<min(attempt, 4), 500*time.Millisecond)
}

// Describe reports the device for the model's metadata.
func (e *Executor) Describe() model.DeviceInfo { return e.info }

// Close says bye, lets the instrumentation finish, and removes the run's
// files from the device.
func (e *Executor) Close() error {
	e.closeMu.Lock()
	defer e.closeMu.Unlock()
	if e.closed {
		return nil
	}
	e.closed = true
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var byeErr error
	if e.client != nil {
		byeErr = e.client.Bye(ctx)
		e.client.Close()
	}
	e.cleanup()
	// Once the harness has stopped: its ops are its own until then.
	locationErr := e.restoreLocation()
	var releaseErr error
	if e.release != nil {
		releaseErr = e.release()
	}
	releaseErr = errors.Join(locationErr, releaseErr)
	// Last: the device is another run's to use only once this one has
	// put everything back.
	e.claim.release()
	if byeErr != nil && !errors.Is(byeErr, harness.ErrClosed) {
		return errors.Join(fmt.Errorf("device %s: %w", e.dev.Serial(), byeErr), releaseErr)
	}
	return releaseErr
}

// cleanup stops the instrumentation if it is still running and removes
// the run's folder; it is best effort, since the device may be gone.
func (e *Executor) cleanup() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if e.inst != nil {
		if !e.inst.wait(ctx, 3*time.Second) {
			e.dev.Shell(ctx, "am force-stop "+HarnessPackage)
		}
		e.inst.close()
	}
	if e.runDir != "" {
		e.dev.Shell(ctx, "rm -rf "+adbclient.Quote(e.runDir))
	}
}

// explain adds what am instrument printed and the harness's logcat lines
// to an error, so that a crash shows its stack trace rather than only
// "connection closed".
func (e *Executor) explain(ctx context.Context, err error) error {
	var b strings.Builder
	b.WriteString(err.Error())
	if e.inst != nil {
		if out := strings.TrimSpace(e.inst.output()); out != "" {
			fmt.Fprintf(&b, "\nam instrument said:\n%s", indent(out))
		}
	}
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	lines, lerr := HarnessLog(lctx, e.dev, e.marker, 20)
	var gone *adbclient.DeviceStateError
	switch {
	case errors.As(lerr, &gone):
		// Unplugged, or adb lost it: say so rather than leave the user
		// guessing from "connection closed".
		fmt.Fprintf(&b, "\nthe device is gone: %v", gone)
	case lerr != nil:
		// adb may not have noticed yet that it is gone.
		fmt.Fprintf(&b, "\nthe device does not answer: %v", lerr)
	case len(lines) > 0:
		fmt.Fprintf(&b, "\nlogcat (harness and crashes, last %d lines):\n%s", len(lines), indent(strings.Join(lines, "\n")))
	}
	return &explained{msg: b.String(), err: err}
}

type explained struct {
	msg string
	err error
}

func (e *explained) Error() string { return e.msg }
func (e *explained) Unwrap() error { return e.err }

func indent(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}

// HarnessLog returns the device log's last lines that concern the harness:
// its own tag, crashes, and the activity manager's words about it; only
// those after the last line holding marker, when there is one.
func HarnessLog(ctx context.Context, dev *adbclient.Device, marker string, limit int) ([]string, error) {
	r, err := dev.Shell(ctx, "logcat -d -v threadtime -t 2000")
	if err != nil {
		return nil, err
	}
	if r.Exit != 0 {
		return nil, fmt.Errorf("logcat exited with %d: %s", r.Exit, strings.TrimSpace(r.Stderr))
	}
	var keep []string
	for _, line := range strings.Split(r.Stdout, "\n") {
		line = strings.TrimRight(line, "\r")
		if marker != "" && strings.HasSuffix(line, ": "+marker) {
			keep = keep[:0]
			continue
		}
		if relevantLogLine(line) {
			keep = append(keep, line)
		}
	}
	if len(keep) > limit {
		keep = keep[len(keep)-limit:]
	}
	return keep, nil
}

func relevantLogLine(line string) bool {
	switch {
	case strings.Contains(line, " "+LogTag+":") || strings.Contains(line, " "+LogTag+" "):
		return true
	case strings.Contains(line, " AndroidRuntime:"):
		return true
	case strings.Contains(line, HarnessPackage):
		return true
	}
	return false
}

// LogTag is the harness's logcat tag.
const LogTag = "droidstar-harness"

func randomID() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// shellOK runs a command that prints nothing of interest and must succeed.
func shellOK(ctx context.Context, dev *adbclient.Device, cmd string) error {
	r, err := dev.Shell(ctx, cmd)
	if err != nil {
		return err
	}
	if r.Exit != 0 {
		msg := strings.TrimSpace(r.Stderr + "\n" + r.Stdout)
		if msg == "" {
			msg = "no output"
		}
		return fmt.Errorf("%s: exit status %d: %s", cmd, r.Exit, msg)
	}
	return nil
}
