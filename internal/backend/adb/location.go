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

// OpMode is an app-op's mode for the harness, as appops get prints it:
// Mode is the uid's mode when Uid, else the package's; "" when neither is
// set, which is the op's default (allow for the location ops).
type OpMode struct {
	Op   string `json:"op"`
	Mode string `json:"mode"`
	Uid  bool   `json:"uid,omitempty"`
}

// Effective is the mode the op has for a process of the harness, which
// am instrument starts without the foreground-location capability: a
// foreground mode is ignored there from Android 11.
func (m OpMode) Effective(sdk int) string {
	switch {
	case m.Mode == "":
		return "allow"
	case m.Mode == "foreground" && sdk >= 30:
		return "ignore"
	case m.Mode == "foreground":
		return "allow"
	}
	return m.Mode
}

// ReadOpMode reads an app-op's mode for the harness and one user with
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
		mode = strings.TrimSpace(mode)
		if uid {
			return OpMode{Op: op, Mode: mode, Uid: true}, nil
		}
		if m.Mode == "" {
			m.Mode = mode
		}
	}
	return m, nil
}

// allowLocation sets the uid mode of the location ops of perms to allow
// for the harness's user and returns what puts the modes back. Called
// after the grants.
func (e *Executor) allowLocation(ctx context.Context, perms []string) error {
	if e.opts.KeepLocationOps || e.info.SDK < locationOpsSDK {
		return nil
	}
	for _, op := range locationOps(perms) {
		before, err := ReadOpMode(ctx, e.dev, e.user, op)
		if err != nil {
			return fmt.Errorf("device %s: read the harness's %s app-op: %w", e.dev.Serial(), op, err)
		}
		if !before.Uid {
			// No uid mode is the default, allow, which setting allow
			// leaves as it was; a package mode stays as it is, since the
			// uid mode set below takes over from it.
			before.Mode = ""
		}
		if err := shellOK(ctx, e.dev, setOpCommand(e.user, op, "allow")); err != nil {
			return fmt.Errorf("device %s: allow the harness's %s app-op (an instrumented process has no foreground location from Android 11): %w", e.dev.Serial(), op, err)
		}
		if before.Mode != "" && before.Mode != "allow" {
			e.locationRestore = append(e.locationRestore, before)
		}
	}
	return nil
}

// setOpCommand sets the uid mode of an op for the harness and a user.
func setOpCommand(user int, op, mode string) string {
	return fmt.Sprintf("appops set --user %d --uid %s %s %s", user, HarnessPackage, op, mode)
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
		cmd := setOpCommand(e.user, m.Op, m.Mode)
		if err := shellOK(ctx, e.dev, cmd); err != nil {
			errs = append(errs, fmt.Sprintf("put the harness's %s app-op back to %s: %v; put it back by hand with: adb -s %s shell %s", m.Op, m.Mode, err, e.dev.Serial(), cmd))
		}
	}
	e.locationRestore = nil
	if len(errs) > 0 {
		return fmt.Errorf("device %s: %s", e.dev.Serial(), strings.Join(errs, "; "))
	}
	return nil
}
