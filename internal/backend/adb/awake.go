package adb

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/droidstar/droidstar/internal/adbclient"
)

// StayOnSetting is the global setting `svc power stayon` writes: a mask of
// the power sources (BatteryManager.BATTERY_PLUGGED_AC 1, _USB 2,
// _WIRELESS 4) on which the screen stays on.
const StayOnSetting = "stay_on_while_plugged_in"

// pluggedUSB is BatteryManager.BATTERY_PLUGGED_USB.
const pluggedUSB = 2

// Awake keeps devices awake while executors run on them. The first
// executor on a device reads its stay-on setting and, unless the screen
// already stays on over USB, sets it with `svc power stayon usb`; the last
// executor on the device to close puts the value it read back. Staying
// awake is a convenience: a device that will not stay on (a shell that
// may not write settings) is warned about, once, and learning goes on. Executors
// sharing an Awake (every executor of one droidstar command) therefore
// never fight over the setting, also when one device serves several of
// them. The CPU is kept awake by the harness's own partial wake lock.
type Awake struct {
	warn io.Writer
	mu   sync.Mutex
	devs map[string]*stayOn
}

// NewAwake returns an Awake that holds no device yet. warn (may be nil)
// hears about a setting that could not be put back, with the command that
// puts it back by hand: a user who asked for silence still needs that.
func NewAwake(warn io.Writer) *Awake { return &Awake{warn: warn, devs: map[string]*stayOn{}} }

// stayOn is one device's share of an Awake.
type stayOn struct {
	mu    sync.Mutex // held while the device is read or written
	users int        // executors holding the device
	// restore is the value to put back when the last one leaves, or ""
	// when droidstar changed nothing.
	restore string
	// failed says the first holder could not keep the device awake: the
	// others do not try again, nor warn again.
	failed bool
}

// hold keeps dev awake until the returned release is called; release
// restores the device's setting when it is the last holder and says
// what went wrong doing so. When the device cannot be kept awake, the
// first holder gets a warning for the model (and the log hears it at
// once); the run goes on with the device's setting as it was.
func (a *Awake) hold(ctx context.Context, dev *adbclient.Device) (release func() error, warning string) {
	serial := dev.Serial()
	a.mu.Lock()
	s := a.devs[serial]
	if s == nil {
		s = &stayOn{}
		a.devs[serial] = s
	}
	a.mu.Unlock()

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.users == 0 && !s.failed {
		restore, err := keepAwake(ctx, dev)
		if err != nil {
			s.failed = true
			warning = fmt.Sprintf("device %s: cannot keep its screen on (%v); learning goes on, but a device that sleeps "+
				"answers late or not at all: keep it awake by hand, or pass --keep-awake=false to skip this", serial, err)
			if a.warn != nil {
				fmt.Fprintf(a.warn, "droidstar: %s\n", warning)
			}
		}
		s.restore = restore
	}
	s.users++
	var once sync.Once
	return func() error {
		var err error
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.users--
			if s.users > 0 || s.restore == "" {
				return
			}
			// The run's context may be cancelled (Ctrl-C): the device's
			// setting is put back regardless.
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			if err = restoreStayOn(rctx, dev, s.restore); err != nil {
				err = fmt.Errorf("device %s: put %s back to %s: %w", serial, StayOnSetting, s.restore, err)
				if a.warn != nil {
					fmt.Fprintf(a.warn, "droidstar: %v; put it back by hand with: adb -s %s shell %s\n", err, serial, restoreCommand(s.restore))
				}
			}
			s.restore = ""
		})
		return err
	}, warning
}

// keepAwake makes the screen stay on while the device is plugged in over
// USB and returns the setting's value before, for restoreStayOn; ""
// when it already stayed on over USB and nothing was changed. svc exits 0
// even when it does not understand its arguments, so the setting is read
// back.
func keepAwake(ctx context.Context, dev *adbclient.Device) (string, error) {
	before, err := readStayOn(ctx, dev)
	if err != nil {
		return "", err
	}
	if n, err := strconv.Atoi(before); err == nil && n&pluggedUSB != 0 {
		return "", nil
	}
	if err := shellOK(ctx, dev, "svc power stayon usb"); err != nil {
		return "", err
	}
	after, err := readStayOn(ctx, dev)
	if err != nil {
		return "", err
	}
	if n, err := strconv.Atoi(after); err != nil || n&pluggedUSB == 0 {
		return "", fmt.Errorf("svc power stayon usb left %s at %s", StayOnSetting, after)
	}
	return before, nil
}

// readStayOn reads the stay-on setting: a number, or "null" when it was
// never written.
func readStayOn(ctx context.Context, dev *adbclient.Device) (string, error) {
	cmd := "settings get global " + StayOnSetting
	r, err := dev.Shell(ctx, cmd)
	if err != nil {
		return "", err
	}
	v := strings.TrimSpace(r.Stdout)
	if _, nerr := strconv.Atoi(v); r.Exit != 0 || (nerr != nil && v != "null") {
		return "", fmt.Errorf("%s: exit status %d, printed %s", cmd, r.Exit, printed(r))
	}
	return v, nil
}

// restoreStayOn puts the setting back as it was: the number, or no entry
// at all.
func restoreStayOn(ctx context.Context, dev *adbclient.Device, v string) error {
	return shellOK(ctx, dev, restoreCommand(v))
}

func restoreCommand(v string) string {
	if v == "null" {
		return "settings delete global " + StayOnSetting
	}
	return "settings put global " + StayOnSetting + " " + v
}

// CurrentUser is the Android user in the foreground, whom the harness runs
// as and gets its permissions for: `am get-current-user`, which Android 7
// (SDK 24) added; before, user 0.
func CurrentUser(ctx context.Context, dev *adbclient.Device, sdk int) (int, error) {
	if sdk < 24 {
		return 0, nil
	}
	r, err := dev.Shell(ctx, "am get-current-user")
	if err != nil {
		return 0, fmt.Errorf("device %s: am get-current-user: %w", dev.Serial(), err)
	}
	user, perr := strconv.Atoi(strings.TrimSpace(r.Stdout))
	if r.Exit != 0 || perr != nil || user < 0 {
		return 0, fmt.Errorf("device %s: am get-current-user: exit status %d, printed %s", dev.Serial(), r.Exit, printed(r))
	}
	return user, nil
}

// ForegroundUser is CurrentUser for a device whose properties are not read
// yet.
func ForegroundUser(ctx context.Context, dev *adbclient.Device) (int, error) {
	props, err := dev.Properties(ctx)
	if err != nil {
		return 0, fmt.Errorf("device %s: read its properties: %w", dev.Serial(), err)
	}
	return CurrentUser(ctx, dev, Describe(dev.Serial(), props).SDK)
}

// printed quotes what a command printed, for an error that says why its
// output could not be used.
func printed(r adbclient.ShellResult) string {
	out := strconv.Quote(strings.TrimSpace(r.Stdout))
	if e := strings.TrimSpace(r.Stderr); e != "" {
		out += " and on stderr " + strconv.Quote(e)
	}
	return out
}
