package adbd

import (
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	harnessapk "github.com/droidstar/droidstar/harness-apk"
)

// HarnessPackage is the package of the droidstar harness app. pm install
// does not parse manifests: every APK it installs is this package.
const HarnessPackage = "org.droidstar.harness"

// HarnessInstrumentation is the harness's instrumentation class, the only
// instrumentation the fake can run.
const HarnessInstrumentation = "org.droidstar.harness.HarnessInstrumentation"

func apkPath(pkg string) string { return "/data/app/" + pkg + "-1/base.apk" }

// pm is the package manager's shell command, for the subcommands the
// harness's life cycle needs.
func (p *proc) pm(args []string) int {
	if len(args) == 0 {
		p.errf("usage: pm path|install|uninstall|grant|list ... (fakeadbd)")
		return 1
	}
	switch args[0] {
	case "path":
		return p.pmPath(args[1:])
	case "install":
		return p.pmInstall(args[1:])
	case "uninstall":
		return p.pmUninstall(args[1:])
	case "grant":
		return p.pmGrant(args[1:])
	case "list":
		return p.pmList(args[1:])
	case "query-services":
		return p.pmQueryServices(args[1:])
	}
	p.errf("Unknown command: %s", args[0])
	return 1
}

// operands drops the options of a pm subcommand; those in withValue take
// the next argument as their value.
func operands(args []string, withValue ...string) (opts map[string]string, rest []string) {
	opts = map[string]string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" {
			rest = append(rest, a)
			continue
		}
		if slices.Contains(withValue, a) && i+1 < len(args) {
			opts[a] = args[i+1]
			i++
			continue
		}
		opts[a] = ""
	}
	return opts, rest
}

// pmPath answers for one user: --user N, else user 0
// (PackageManagerShellCommand.runPath defaults to UserHandle.USER_SYSTEM),
// and prints nothing, exit 1, when the package is not installed for that
// user (getPackageInfo for the user returns null).
func (p *proc) pmPath(args []string) int {
	opts, rest := operands(args, "--user")
	if len(rest) != 1 {
		p.errf("Error: package name not specified")
		return 1
	}
	user := 0
	if u, ok := opts["--user"]; ok {
		n, ok := p.d.parseUser(u)
		if !ok || n < 0 {
			p.errf("Error: invalid user %s", u)
			return 1
		}
		user = n
	}
	p.d.mu.Lock()
	apk, ok := p.d.packages[rest[0]]
	ok = ok && slices.Contains(p.d.installedFor[rest[0]], user)
	p.d.mu.Unlock()
	if !ok {
		return 1
	}
	p.outf("package:%s", apk)
	return 0
}

// pmInstall installs an APK from a device path, or from stdin with -S
// SIZE as `adb install` streams it through exec:cmd package install.
func (p *proc) pmInstall(args []string) int {
	opts, rest := operands(args, "-S", "--user", "-i", "--abi", "--install-location", "--originating-uri", "--referrer", "-p", "--pkg", "--install-reason")
	var data []byte
	if s, ok := opts["-S"]; ok {
		size, err := strconv.ParseInt(s, 10, 64)
		if err != nil || size < 0 || size > 1<<30 {
			p.errf("Error: invalid size %s", s)
			return 1
		}
		data = make([]byte, size)
		if _, err := io.ReadFull(p.stdin, data); err != nil {
			p.outf("Failure [INSTALL_FAILED_INTERNAL_ERROR: the APK ended after %d of %d bytes]", len(data), size)
			return 1
		}
	} else {
		if len(rest) == 0 {
			p.errf("Error: must either specify a package size or an APK file")
			return 1
		}
		var err error
		data, err = os.ReadFile(p.d.hostPath(rest[0]))
		if err != nil {
			p.outf("Failure [INSTALL_FAILED_INVALID_URI]")
			return 1
		}
	}
	if f := p.d.cfg.InstallFailure; f != "" {
		p.outf("%s", f)
		return 1
	}
	// Without --user, for every user: PackageManagerShellCommand's install
	// params default to UserHandle.USER_ALL, which doCreateSession turns
	// into INSTALL_ALL_USERS.
	users := p.d.users()
	if u, ok := opts["--user"]; ok {
		n, ok := p.d.parseUser(u)
		if !ok {
			p.errf("Error: invalid user %s", u)
			return 1
		}
		if n >= 0 {
			if !p.d.userExists(n) {
				p.outf("Failure [INSTALL_FAILED_INTERNAL_ERROR: User %d does not exist]", n)
				return 1
			}
			users = []int{n}
		}
	}
	pkg := HarnessPackage
	// Installing replaces the app: its process dies, as with force-stop.
	p.d.forceStop(pkg, "installPackageLI")
	apk := apkPath(pkg)
	host := p.d.hostPath(apk)
	if err := os.MkdirAll(filepath.Dir(host), 0o755); err != nil {
		p.outf("Failure [INSTALL_FAILED_INTERNAL_ERROR: %v]", err)
		return 1
	}
	if err := os.WriteFile(host, data, 0o644); err != nil {
		p.outf("Failure [INSTALL_FAILED_INTERNAL_ERROR: %v]", err)
		return 1
	}
	p.d.mu.Lock()
	p.d.packages[pkg] = apk
	for _, u := range users {
		if !slices.Contains(p.d.installedFor[pkg], u) {
			p.d.installedFor[pkg] = append(p.d.installedFor[pkg], u)
		}
	}
	p.d.mu.Unlock()
	p.d.logf('I', "PackageManager", "installed %s at %s (%d bytes)", pkg, path.Dir(apk), len(data))
	p.outf("Success")
	return 0
}

// pmUninstall removes a package for every user, or with --user N for that
// user only (PackageManagerShellCommand.runUninstall: USER_ALL unless
// told), the code going with the last user.
func (p *proc) pmUninstall(args []string) int {
	opts, rest := operands(args, "--user", "--versionCode")
	if len(rest) != 1 {
		p.errf("Error: package name not specified")
		return 1
	}
	pkg := rest[0]
	user := -1
	if u, ok := opts["--user"]; ok {
		n, ok := p.d.parseUser(u)
		if !ok {
			p.errf("Error: invalid user %s", u)
			return 1
		}
		user = n
	}
	p.d.mu.Lock()
	apk, ok := p.d.packages[pkg]
	ok = ok && (user < 0 || slices.Contains(p.d.installedFor[pkg], user))
	if ok && user >= 0 && len(p.d.installedFor[pkg]) > 1 {
		p.d.installedFor[pkg] = slices.DeleteFunc(p.d.installedFor[pkg], func(u int) bool { return u == user })
		p.d.mu.Unlock()
		p.outf("Success")
		return 0
	}
	p.d.mu.Unlock()
	if !ok {
		p.outf("Failure [DELETE_FAILED_INTERNAL_ERROR]")
		return 1
	}
	p.d.forceStop(pkg, "uninstall pkg")
	os.RemoveAll(p.d.hostPath(path.Dir(apk)))
	p.d.mu.Lock()
	delete(p.d.packages, pkg)
	delete(p.d.installedFor, pkg)
	delete(p.d.grants, pkg)
	for _, modes := range []map[opKey]string{p.d.uidModes, p.d.pkgModes} {
		for k := range modes {
			if k.pkg == pkg {
				delete(modes, k)
			}
		}
	}
	p.d.mu.Unlock()
	p.outf("Success")
	return 0
}

// pmGrant records a grant for one user: --user N, else user 0, as
// PackageManagerShellCommand.runGrantRevokePermission defaults to
// UserHandle.USER_SYSTEM (the current user does not matter). It refuses
// what the permission manager refuses, in its order
// (PermissionManagerServiceImpl.grantRuntimePermissionInternal, frameworks/base
// services/core/java/com/android/server/pm/permission): a user the device
// lacks is only logged; then an unknown package, a permission the platform
// does not define, one that is neither runtime (dangerous) nor development
// (an install-time one, normal or signature: "not a changeable permission
// type"), and one the package's manifest does not request each throw.
func (p *proc) pmGrant(args []string) int {
	opts, rest := operands(args, "--user")
	if len(rest) != 2 {
		p.errf("Error: no package or permission specified")
		return 1
	}
	user := 0
	if u, ok := opts["--user"]; ok {
		n, ok := p.d.parseUser(u)
		if !ok || n < 0 {
			return p.shellException("grant", "java.lang.NumberFormatException", fmt.Sprintf("For input string: \"%s\"", u))
		}
		user = n
	}
	pkg, perm := rest[0], rest[1]
	if !p.d.userExists(user) {
		// The permission manager logs and returns: the grant "succeeds".
		p.d.logf('E', "PermissionManager", "No such user:%d", user)
		return 0
	}
	p.d.mu.Lock()
	defer p.d.mu.Unlock()
	if _, ok := p.d.packages[pkg]; !ok {
		return p.shellException("grant", "java.lang.IllegalArgumentException", "Unknown package: "+pkg)
	}
	level, known := protectionLevels[perm]
	switch {
	case !known:
		return p.shellException("grant", "java.lang.IllegalArgumentException", "Unknown permission: "+perm)
	case level != dangerous:
		return p.shellException("grant", "java.lang.SecurityException", fmt.Sprintf("Permission %s requested by %s is not a changeable permission type", perm, pkg))
	case !slices.Contains(p.d.requestedPermissions(), perm):
		return p.shellException("grant", "java.lang.SecurityException", fmt.Sprintf("Package %s has not requested permission %s", pkg, perm))
	}
	if p.d.grants[pkg] == nil {
		p.d.grants[pkg] = map[int][]string{}
	}
	if !slices.Contains(p.d.grants[pkg][user], perm) {
		p.d.grants[pkg][user] = append(p.d.grants[pkg][user], perm)
		// A change of the app's permissions re-syncs its ops.
		p.d.syncLocationOpsLocked(pkg, user)
	}
	return 0
}

// shellException prints what a system service's shell command prints
// when the call throws, and returns its exit status 255:
// BasicShellCommandHandler.exec (frameworks/libs/modules-utils, formerly
// ShellCommand.exec) catches the Throwable, prints an empty line,
// "Exception occurred while executing 'CMD':" and the stack trace to
// stderr, and returns -1. The fake prints the trace's first line alone:
// its frames differ from release to release.
func (p *proc) shellException(cmd, class, msg string) int {
	p.errf("")
	p.errf("Exception occurred while executing '%s':", cmd)
	p.errf("%s: %s", class, msg)
	return 255
}

// protectionLevel is a permission's base protection level, the one
// PermissionInfo.getProtection answers.
type protectionLevel int

const (
	normal protectionLevel = iota
	dangerous
)

// protectionLevels are the base protection levels of the platform
// permissions the fake knows, from their <permission> elements in
// frameworks/base core/res/AndroidManifest.xml (the "normal permissions"
// list of API 23 onwards has INTERNET, BLUETOOTH, BLUETOOTH_ADMIN,
// ACCESS_NETWORK_STATE and WAKE_LOCK). A permission missing here is one the
// platform does not define, as far as the fake is concerned; none is a
// development one (signature|development, such as WRITE_SECURE_SETTINGS,
// which pm grant may grant).
var protectionLevels = map[string]protectionLevel{
	"android.permission.RECORD_AUDIO":           dangerous,
	"android.permission.ACCESS_COARSE_LOCATION": dangerous,
	"android.permission.ACCESS_FINE_LOCATION":   dangerous,
	"android.permission.WRITE_EXTERNAL_STORAGE": dangerous,
	"android.permission.READ_EXTERNAL_STORAGE":  dangerous,
	"android.permission.CAMERA":                 dangerous,
	"android.permission.READ_PHONE_STATE":       dangerous,
	"android.permission.INTERNET":               normal,
	"android.permission.BLUETOOTH":              normal,
	"android.permission.BLUETOOTH_ADMIN":        normal,
	"android.permission.ACCESS_NETWORK_STATE":   normal,
	"android.permission.WAKE_LOCK":              normal,
}

// requestedPermissions are what the installed harness app's manifest
// requests: Config.RequestedPermissions, else the real manifest's.
func (d *Device) requestedPermissions() []string {
	if d.cfg.RequestedPermissions != nil {
		return d.cfg.RequestedPermissions
	}
	return harnessapk.RequestedPermissions()
}

// parseUser reads a --user argument as Am.parseUserArg does: a user id,
// "current" (or "cur") for the current user, "all" as -1.
func (d *Device) parseUser(arg string) (int, bool) {
	switch arg {
	case "current", "cur":
		return d.cfg.CurrentUser, true
	case "all":
		return -1, true
	}
	n, err := strconv.Atoi(arg)
	return n, err == nil && n >= 0
}

// userExists says whether a user is on the device: the system user and
// the current one.
func (d *Device) userExists(user int) bool { return user == 0 || user == d.cfg.CurrentUser }

// users are the users on the device.
func (d *Device) users() []int {
	if d.cfg.CurrentUser == 0 {
		return []int{0}
	}
	return []int{0, d.cfg.CurrentUser}
}

func (p *proc) pmList(args []string) int {
	if len(args) == 0 {
		p.errf("Error: didn't specify type of data to list")
		return 1
	}
	opts, rest := operands(args[1:], "--user", "--uid")
	filter := ""
	if len(rest) > 0 {
		filter = rest[0]
	}
	p.d.mu.Lock()
	pkgs := make([]string, 0, len(p.d.packages))
	for pkg := range p.d.packages {
		if strings.Contains(pkg, filter) {
			pkgs = append(pkgs, pkg)
		}
	}
	apks := make(map[string]string, len(p.d.packages))
	for k, v := range p.d.packages {
		apks[k] = v
	}
	p.d.mu.Unlock()
	sort.Strings(pkgs)
	switch args[0] {
	case "features":
		return p.pmListFeatures()
	case "packages":
		for _, pkg := range pkgs {
			if _, ok := opts["-f"]; ok {
				p.outf("package:%s=%s", apks[pkg], pkg)
			} else {
				p.outf("package:%s", pkg)
			}
		}
		return 0
	case "instrumentation":
		for _, pkg := range pkgs {
			if pkg == HarnessPackage {
				p.outf("instrumentation:%s/%s (target=%s)", pkg, HarnessInstrumentation, pkg)
			}
		}
		return 0
	}
	p.errf("Error: unknown list type '%s'", args[0])
	return 1
}

// newPID hands out the pid of a new app process.
func (d *Device) newPID() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.nextPID += 7
	return d.nextPID
}

func (d *Device) forceStop(pkg, reason string) {
	d.mu.Lock()
	in := d.instrs[pkg]
	d.mu.Unlock()
	if in == nil {
		return
	}
	d.logf('I', "ActivityManager", "Killing %d:%s/u%da86 (adj 0): stop %s due to %s", in.pid, pkg, in.user, pkg, reason)
	in.finish(resultCrashed)
}

func (p *proc) forceStopCmd(args []string) int {
	_, rest := operands(args, "--user")
	if len(rest) != 1 {
		p.errf("Error: package name not specified")
		return 1
	}
	p.d.logf('I', "ActivityManager", "Force stopping %s appid=10086 user=0: from pid %d", rest[0], systemPID+1000)
	p.d.forceStop(rest[0], "from pid "+fmt.Sprint(systemPID+1000))
	return 0
}
