package adb

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/droidstar/droidstar/internal/adbclient"
)

// Location for the purposes that need it.
//
// From Android 10 a foreground location permission granted without
// ACCESS_BACKGROUND_LOCATION leaves the app's location app-op in
// foreground mode (PermissionPolicyService sets the uid's mode whenever
// the app's permissions change). From Android 11 a foreground mode is
// evaluated against the process's capabilities, and a process started by
// am instrument gets PROCESS_CAPABILITY_INSTRUMENTATION_DEFAULTS (camera,
// microphone, audio control; in Android 11 OomAdjuster's implicit camera
// and microphone) but never PROCESS_CAPABILITY_FOREGROUND_LOCATION
// (frameworks/base ActivityManager, OomAdjuster.getDefaultCapability), so
// the op evaluates to ignored (AppOpsUidStateTrackerImpl.evalModeInternal;
// Android 11's AppOpsService.UidState.evalMode). Whatever notes the op then
// fails: BluetoothAdapter.startDiscovery returns false (the Bluetooth
// app's Utils.checkCallerHasCoarseLocation notes the location op), and a
// purpose with `error_if: false` would learn that as a restriction.
//
// MODE_ALLOWED is not subject to that check (evalMode returns every mode
// but MODE_FOREGROUND as it is), so a run of a purpose that declares a
// location permission sets the uid mode of its op to allow for the user
// the harness runs as, after the grants (a later grant would sync the mode
// back to foreground), and puts the mode it found back when it ends. The
// uid mode, not the package's: `appops set` without --uid sets the
// package's mode, and a uid mode takes over from it (AppOpsService
// noteOperation: "If there is a non-default per UID policy ... it takes
// over, otherwise use the per package policy").
//
// From Android 10 (SDK 29), where the foreground mode appears; whether
// Android 10 already refuses an instrumented process is not confirmed
// from sources, and allowing the op there changes nothing else.
const locationOpsSDK = 29

// LocationOps maps the foreground location permissions to their app-ops
// (AppOpsManager.permissionToOp).
var LocationOps = map[string]string{
	"android.permission.ACCESS_COARSE_LOCATION": "COARSE_LOCATION",
	"android.permission.ACCESS_FINE_LOCATION":   "FINE_LOCATION",
}

// locationOps lists the app-ops of the location permissions among perms,
// in perms' order.
func locationOps(perms []string) []string {
	var ops []string
	for _, p := range perms {
		if op, ok := LocationOps[p]; ok {
			ops = append(ops, op)
		}
	}
	return ops
}

// OpMode is an app-op's modes for the harness and one user, as appops get
// prints them: the uid's and the package's, "" where unset. The uid mode,
// when set, decides; else the package's; else the op's default, allow for
// the location ops (AppOpsService.noteOperation).
type OpMode struct {
	Op      string `json:"op"`
	Uid     string `json:"uid_mode,omitempty"`
	Package string `json:"package_mode,omitempty"`
}

// Mode is the mode that decides, "" for the default.
func (m OpMode) Mode() string {
	if m.Uid != "" {
		return m.Uid
	}
	return m.Package
}

// Effective is the mode the op has for a process of the harness, which
// am instrument starts without the foreground-location capability: a
// foreground mode is ignored there from Android 11.
func (m OpMode) Effective(sdk int) string {
	switch mode := m.Mode(); {
	case mode == "":
		return "allow"
	case mode == "foreground" && sdk >= 30:
		return "ignore"
	case mode == "foreground":
		return "allow"
	default:
		return mode
	}
}

// ReadOpMode reads an app-op's modes for the harness and one user with
// `appops get --user U PKG OP`, which prints the uid's mode first ("Uid
// mode: OP: MODE"), then the package's ("OP: MODE; time=..."), or "No
// operations." (AppOpsService.Shell, get).
func ReadOpMode(ctx context.Context, dev *adbclient.Device, user int, op string) (OpMode, error) {
	cmd := fmt.Sprintf("appops get --user %d %s %s", user, HarnessPackage, op)
	r, err := dev.Shell(ctx, cmd)
	if err != nil {
		return OpMode{}, err
	}
	if r.Exit != 0 {
		return OpMode{}, fmt.Errorf("%s: exit status %d: %s", cmd, r.Exit, strings.TrimSpace(r.Stderr+" "+r.Stdout))
	}
	m := OpMode{Op: op}
	for _, line := range strings.Split(r.Stdout, "\n") {
		line = strings.TrimSpace(line)
		uid := false
		if rest, ok := strings.CutPrefix(line, "Uid mode: "); ok {
			line, uid = rest, true
		}
		rest, ok := strings.CutPrefix(line, op+": ")
		if !ok {
			continue
		}
		mode, _, _ := strings.Cut(rest, ";")
		if uid {
			m.Uid = strings.TrimSpace(mode)
		} else {
			m.Package = strings.TrimSpace(mode)
		}
	}
	return m, nil
}

// allowLocation allows the location ops of perms for the harness's user
// and keeps what puts their modes back. Called after the grants. The uid
// mode is set to allow, which is the op's default, so the package's mode
// decides then: one that is not allow is set to allow too.
func (e *Executor) allowLocation(ctx context.Context, perms []string) error {
	if e.opts.KeepLocationOps || e.info.SDK < locationOpsSDK {
		return nil
	}
	for _, op := range locationOps(perms) {
		before, err := ReadOpMode(ctx, e.dev, e.user, op)
		if err != nil {
			return fmt.Errorf("device %s: read the harness's %s app-op: %w", e.dev.Serial(), op, err)
		}
		for _, set := range []struct {
			uid  bool
			mode string
		}{{true, before.Uid}, {false, before.Package}} {
			if set.mode == "" || set.mode == "allow" {
				continue
			}
			if err := shellOK(ctx, e.dev, setOpCommand(e.user, set.uid, op, "allow")); err != nil {
				return fmt.Errorf("device %s: allow the harness's %s app-op (an instrumented process has no foreground location from Android 11): %w", e.dev.Serial(), op, err)
			}
			e.locationRestore = append(e.locationRestore, opRestore{uid: set.uid, op: op, mode: set.mode})
		}
	}
	return nil
}

// opRestore is a mode to put back.
type opRestore struct {
	uid      bool
	op, mode string
}

// setOpCommand sets the uid's or the package's mode of an op for the
// harness and a user.
func setOpCommand(user int, uid bool, op, mode string) string {
	flag := ""
	if uid {
		flag = " --uid"
	}
	return fmt.Sprintf("appops set --user %d%s %s %s %s", user, flag, HarnessPackage, op, mode)
}

// restoreLocation puts back the location ops' modes allowLocation found,
// best effort (the device may be gone), and says what it could not put
// back, with the command that does it by hand.
func (e *Executor) restoreLocation() error {
	if len(e.locationRestore) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var errs []string
	for _, m := range e.locationRestore {
		cmd := setOpCommand(e.user, m.uid, m.op, m.mode)
		if err := shellOK(ctx, e.dev, cmd); err != nil {
			errs = append(errs, fmt.Sprintf("put the harness's %s app-op back to %s: %v; put it back by hand with: adb -s %s shell %s", m.op, m.mode, err, e.dev.Serial(), cmd))
		}
	}
	e.locationRestore = nil
	if len(errs) > 0 {
		return fmt.Errorf("device %s: %s", e.dev.Serial(), strings.Join(errs, "; "))
	}
	return nil
}
