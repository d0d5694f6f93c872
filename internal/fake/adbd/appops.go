package adbd

import (
	"slices"
	"strings"
)

// App-op modes as AppOpsManager.modeToName prints them (MODE_ALLOWED 0,
// MODE_IGNORED 1, MODE_ERRORED "deny" 2, MODE_DEFAULT 3, MODE_FOREGROUND
// 4), which are also the names appops set takes (Shell.strModeToMode).
const (
	ModeAllow      = "allow"
	ModeIgnore     = "ignore"
	ModeDeny       = "deny"
	ModeDefault    = "default"
	ModeForeground = "foreground"
)

var opModes = []string{ModeAllow, ModeIgnore, ModeDeny, ModeDefault, ModeForeground}

// locationOps maps the foreground location permissions to their app-ops
// (AppOpsManager.permissionToOp).
var locationOps = map[string]string{
	"android.permission.ACCESS_COARSE_LOCATION": "COARSE_LOCATION",
	"android.permission.ACCESS_FINE_LOCATION":   "FINE_LOCATION",
}

// backgroundLocation is the permission whose grant lets the location ops
// be allowed in the background too.
const backgroundLocation = "android.permission.ACCESS_BACKGROUND_LOCATION"

// knownOps are the op names the fake's appops accepts; all default to
// MODE_ALLOWED (AppOpsManager.sOpDefaultMode).
var knownOps = []string{"COARSE_LOCATION", "FINE_LOCATION", "CAMERA", "RECORD_AUDIO"}

// opKey is one op of one app for one user: the uid modes are per uid, and
// an app's uid differs per user (UserHandle.getUid).
type opKey struct {
	pkg  string
	user int
	op   string
}

// syncLocationOpsLocked sets the location ops' uid modes from the grants,
// as PermissionPolicyService does from Android 10 whenever an app's
// runtime permissions change (onPermissionsChanged →
// synchronizePackagePermissionsAndAppOpsForUser): a foreground location
// permission granted without ACCESS_BACKGROUND_LOCATION makes its op
// MODE_FOREGROUND, with it MODE_ALLOWED (which is the op's default, so the
// uid mode goes: AppOpsService.setUidMode removes a mode equal to the
// default). So a grant puts back a mode that appops set changed before it.
// Not synced: permissions not granted (the fake has no revoke).
func (d *Device) syncLocationOpsLocked(pkg string, user int) {
	if d.sdk() < 29 {
		return
	}
	granted := d.grants[pkg][user]
	for perm, op := range locationOps {
		if !slices.Contains(granted, perm) {
			continue
		}
		k := opKey{pkg, user, op}
		if slices.Contains(granted, backgroundLocation) {
			delete(d.uidModes, k)
		} else {
			d.uidModes[k] = ModeForeground
		}
	}
}

// appops is the app-ops service's shell command (AppOpsService.Shell,
// onShellCommand), its set and get:
//
//	appops set [--user U] [--uid] PKG OP MODE
//	appops get [--user U] PKG [OP]
//
// --user defaults to the current user. set changes the package's mode,
// with --uid the mode of the app's uid for that user, which takes over
// from the package's (AppOpsService.checkOperation and noteOperation:
// "If there is a non-default per UID policy ... it takes over, otherwise
// use the per package policy"). get prints the uid's modes first, each
// line "Uid mode: OP: MODE", then the package's "OP: MODE" (the fake
// records no access times, which Android appends as "; time=..."), or
// "No operations." and, for one op, "Default mode: allow".
func (p *proc) appops(args []string) int {
	if len(args) == 0 {
		p.errf("AppOps service (appops) commands: set, get (fakeadbd)")
		return 255
	}
	verb := args[0]
	if verb != "set" && verb != "get" {
		p.errf("Unknown command: %s", verb)
		return 255
	}
	user, uid := p.d.cfg.CurrentUser, false
	var rest []string
	for i := 1; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--user" && i+1 < len(args):
			n, ok := p.d.parseUser(args[i+1])
			if !ok || n < 0 {
				p.errf("Error: invalid user: %s", args[i+1])
				return 255
			}
			user = n
			i++
		case a == "--uid":
			uid = true
		default:
			rest = append(rest, a)
		}
	}
	want := 3
	if verb == "get" {
		want = 2
		if len(rest) == 1 {
			want = 1
		}
	}
	if len(rest) != want {
		p.errf("Error: expected %s", map[string]string{"set": "PACKAGE OP MODE", "get": "PACKAGE [OP]"}[verb])
		return 255
	}
	pkg := rest[0]
	p.d.mu.Lock()
	defer p.d.mu.Unlock()
	if _, ok := p.d.packages[pkg]; !ok || !slices.Contains(p.d.installedFor[pkg], user) {
		// Shell.parseUserPackageOp: the package has no uid in that user.
		p.errf("Error: No UID for %s in user %d", pkg, user)
		return 255
	}
	op := ""
	if len(rest) > 1 {
		op = rest[1]
		if !slices.Contains(knownOps, op) {
			p.errf("Error: Unknown operation string: %s", op)
			return 255
		}
	}
	k := opKey{pkg, user, op}
	if verb == "set" {
		mode := rest[2]
		if !slices.Contains(opModes, mode) {
			p.errf("Error: Mode %s is not valid", mode)
			return 255
		}
		modes := p.d.pkgModes
		if uid {
			modes = p.d.uidModes
		}
		// A uid mode equal to the op's default is no uid mode
		// (AppOpsService.setUidMode); a package mode is kept as set.
		if uid && mode == ModeAllow {
			delete(modes, k)
		} else {
			modes[k] = mode
		}
		return 0
	}
	ops := knownOps
	if op != "" {
		ops = []string{op}
	}
	var lines []string
	for _, o := range ops {
		if m, ok := p.d.uidModes[opKey{pkg, user, o}]; ok {
			lines = append(lines, "Uid mode: "+o+": "+m)
		}
	}
	for _, o := range ops {
		if m, ok := p.d.pkgModes[opKey{pkg, user, o}]; ok {
			lines = append(lines, o+": "+m)
		}
	}
	if len(lines) == 0 {
		p.outf("No operations.")
		if op != "" {
			p.outf("Default mode: %s", ModeAllow)
		}
		return 0
	}
	p.outf("%s", strings.Join(lines, "\n"))
	return 0
}

// OpMode is what an app-op evaluates to for the app now, as AppOpsService
// decides when the app notes it: the uid mode when there is one, else the
// package's, else the op's default (allow); a MODE_FOREGROUND evaluated
// for the app's process. Every app of the fake runs under am instrument,
// which from Android 11 (SDK 30) gives a process the capabilities
// PROCESS_CAPABILITY_INSTRUMENTATION_DEFAULTS (ActivityManager: camera,
// microphone and audio control, 70; in Android 11 OomAdjuster's default
// for PROCESS_STATE_FOREGROUND_SERVICE without a foreground service,
// PROCESS_CAPABILITY_ALL_IMPLICIT = camera and microphone) but never
// PROCESS_CAPABILITY_FOREGROUND_LOCATION: so a location op in foreground
// mode evaluates to ignore there (AppOpsUidStateTrackerImpl.evalModeInternal,
// Android 11's AppOpsService.UidState.evalMode: an op whose capability
// the uid lacks is MODE_IGNORED). Before Android 11 a foreground mode
// evaluates to allow here: not modelled (the process-state rule of
// Android 10 is not confirmed from sources).
func (a App) OpMode(op string) string {
	if a.d == nil {
		return ModeIgnore
	}
	a.d.mu.Lock()
	k := opKey{a.Package, a.User, op}
	mode, ok := a.d.uidModes[k]
	if !ok {
		if mode, ok = a.d.pkgModes[k]; !ok {
			mode = ModeAllow
		}
	}
	a.d.mu.Unlock()
	if mode == ModeForeground {
		if _, location := locationOpSet[op]; location && a.d.sdk() >= 30 {
			return ModeIgnore
		}
		return ModeAllow
	}
	return mode
}

var locationOpSet = map[string]struct{}{"COARSE_LOCATION": {}, "FINE_LOCATION": {}}

// Discovers says whether BluetoothAdapter.startDiscovery's location check
// lets the app through now (a simulated harness answers false from
// startDiscovery otherwise): from Android 10 the Bluetooth app's
// AdapterService.startDiscovery requires, of an app targeting below
// Android 10 as the harness does, Utils.checkCallerHasCoarseLocation:
// location on for the user (blockedByLocationOff: secure location_mode
// not 0), ACCESS_COARSE_LOCATION granted, and the location op allowed
// when noted (Android 10-11 "check coarse, but note fine", whose switch
// op is COARSE_LOCATION; from Android 12 PermissionChecker notes
// COARSE_LOCATION). Before Android 10 discovery needs none of it.
func (a App) Discovers() bool {
	if a.d == nil {
		return false
	}
	if a.d.sdk() < 29 {
		return true
	}
	a.d.mu.Lock()
	mode := a.d.secure["location_mode"]
	a.d.mu.Unlock()
	if mode == "" || mode == "0" {
		return false
	}
	return a.Granted("android.permission.ACCESS_COARSE_LOCATION") && a.OpMode("COARSE_LOCATION") == ModeAllow
}

// AppOp is the raw mode an op has for a package and user, as appops get
// prints it: the uid mode (uid true) when there is one, else the
// package's; "" when neither is set.
func (d *Device) AppOp(pkg string, user int, op string) (mode string, uid bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	k := opKey{pkg, user, op}
	if m, ok := d.uidModes[k]; ok {
		return m, true
	}
	return d.pkgModes[k], false
}
