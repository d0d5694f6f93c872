// Package adbd is a fake Android device: the device side (adbd) of the
// ADB transport protocol over TCP, with just enough of a phone behind it
// (a shell, a filesystem, a package manager, am instrument, logcat and
// abstract sockets) for droidstar's adb backend to run end to end through
// a real adb server, which attaches it with `adb connect 127.0.0.1:PORT`
// (see package adbserver). No Android runtime runs here: the harness app's
// instrumentation is simulated, and its socket is served by a HarnessFunc,
// for example JVMHarness, which runs the real harness core on the host
// JVM.
//
// # API
//
//	func Start(cfg Config) (*Device, error)
//	func (d *Device) Addr() string         // "127.0.0.1:PORT", also adb's serial for it
//	func (d *Device) Root() string         // host directory backing the device's filesystem
//	func (d *Device) Logcat() []string     // what logcat -d prints
//	func (d *Device) WaitLog(ctx context.Context, substr string) error
//	func (d *Device) WaitListening(ctx context.Context, socket string) error
//	func (d *Device) WaitHandshake(ctx context.Context) error
//	func (d *Device) Installed(pkg string) bool
//	func (d *Device) Granted(pkg string, user int) []string
//	func (d *Device) Running(pkg string) bool // an app process of pkg runs
//	func (d *Device) SettingHistory(key string) []string // every value a global setting took
//	func (d *Device) Unplug()              // drops off the network; keeps its port until Close
//	func (d *Device) Close() error
//	func JVMHarness(java, jar string) HarnessFunc
//	func Log(ctx context.Context, priority byte, tag, msg string)
//	func AppOf(ctx context.Context) (App, bool) // the app a HarnessFunc serves in
//	func (a App) Granted(perm string) bool   // for a.User, now
//	func (a App) OpMode(op string) string    // an app-op's mode for the running app
//	func (a App) Discovers() bool            // startDiscovery's location check
//	func (d *Device) AppOp(pkg string, user int, op string) (mode string, uid bool)
//
// WaitLog, WaitListening and WaitHandshake let a test wait for what the
// device has done (a line in its log, a harness socket that listens, a
// host's CNXN answered) instead of polling for it: they wake on every
// change of the log, the sockets and the handshakes.
//
// Config sets the properties (getprop and the CNXN banner), the handshake
// State (Ready, Unauthorized, Offline), the Harness, what the device says
// about itself (CurrentUser, SELinux, Features, Services, GlobalSettings,
// SecureSettings), what the harness app's manifest requests
// (RequestedPermissions, by default the real manifest's), and failure modes
// (InstallFailure, HarnessNeverListens). Start listens on a random port of
// 127.0.0.1, never in 5555-5585, the range adb servers scan for emulators.
//
// # Transport
//
// Messages are 24-byte little-endian headers (command, arg0, arg1, data
// length, data checksum, magic) and a payload. The device answers the
// host's CNXN with its own (version min(host's, 0x01000001), maxdata 256
// KiB, banner `device::ro.product.name=..;ro.product.model=..;
// ro.product.device=..;features=shell_v2,cmd`), without AUTH. It
// advertises only what it implements: the host chooses its code paths by
// features, and for example advertising stat_v2 without serving it breaks
// adb push. Each stream has at most one WRTE in flight each way: the
// device sends the next one after the host's OKAY, and acknowledges the
// host's once the service has taken the data. Streams close wholly with
// CLSE (ADB has no half-close); a service that cannot start, or an
// abstract socket nobody listens on, is refused with CLSE, which the host
// reports as a closed stream.
//
// What the real adb server (Debian's 29.0.6) shows for each State:
//   - Ready: `adb connect` prints "connected to 127.0.0.1:PORT"; `adb
//     devices -l` lists "device product:NAME model:MODEL device:DEVICE
//     transport_id:N".
//   - Unauthorized (AUTH TOKEN on CNXN, every signature answered by a new
//     token, the public key ignored): `adb connect` prints "failed to
//     authenticate to 127.0.0.1:PORT" at once and exits 0; the device is
//     listed "unauthorized"; `adb -s SERIAL shell` fails with "error:
//     device unauthorized." and a hint about $ADB_VENDOR_KEYS.
//   - Offline (CNXN never answered): the device is listed "offline" at
//     once; `adb connect` prints "failed to connect to 127.0.0.1:PORT"
//     after its 10 s handshake timeout and still exits 0; the device stays
//     listed; `adb shell` fails with "error: device offline".
//
// A device that closes or is unplugged stays listed as "offline" while
// the server keeps trying to reconnect (at once, then every 10 s), until
// `adb disconnect`.
//
// # Services
//
// shell:CMD and exec:CMD run CMD with stdout and stderr merged into the
// stream and stdin read raw from it; no exit code reaches the host.
// shell,v2,...:CMD (shell protocol, used by adb 29 because of the shell_v2
// feature) sends packets of [id][uint32 LE length][data]: stdout (1),
// stderr (2) and the exit code (3, one byte, after which the stream
// closes), and reads stdin (0) and close-stdin (4) packets; `adb shell`
// exits with the command's status.
//
// sync: speaks version 1 of the file sync protocol: STAT, LIST, SEND
// (creating parent directories as adbd does), RECV and QUIT; DATA chunks
// are at most 64 KiB. Failures carry adbd's words: "couldn't create file:
// Read-only file system", "secure_mkdirs failed: ...", "open failed:
// ...", which adb prints as "adb: error: failed to copy 'A' to 'B': remote
// couldn't create file: Read-only file system".
//
// localabstract:NAME connects to an instrumentation's socket, one
// connection at a time (later ones wait, as in the harness's accept loop).
//
// # The device
//
// Device paths map into Root; relative ones are relative to /, the shell's
// working directory. /data, /sdcard, /storage and /mnt are writable; /,
// /system and everything else are read-only (EROFS), as on a phone.
//
// # Android's rules for the app
//
// The tests run as root, which the kernel refuses nothing: the rules below
// are the fake's own, each from the AOSP source that makes Android refuse
// it. JVMHarness holds the harness JVM to the file rules with a security
// manager (rules/AndroidFileRules.java), which answers a refusal with a
// SecurityException whose message says EACCES and why; on a device the
// call fails with EACCES (an IOException or false) instead.
//   - Unix modes, checked before SELinux as the kernel checks DAC first
//     (fs/namei.c generic_permission, then the LSM hook). What adb stages
//     under /data/local/tmp belongs to the shell (uid and gid 2000), and
//     the app runs under its own uid (u0_a86 here), in neither, so the
//     "other" bits decide: every folder from /data/local/tmp down needs
//     o+x, a file or folder the app reads needs o+r, an existing file it
//     writes needs o+w, and a file it creates or unlinks needs o+w on its
//     folder (fs/namei.c may_create and may_delete ask for write and
//     search on the folder before the SELinux hooks security_inode_create
//     and security_inode_unlink run). /data/local/tmp itself is 0771 (system/core
//     rootdir/init.rc: mkdir /data/local/tmp 0771 shell shell): apps pass
//     through it but cannot list it. The security manager reads the modes
//     (chmod applies octal ones) rather than rely on the OS, so a staged
//     file droidstar forgot to open to the app fails here as on a phone.
//     A refusal logs nothing, as a DAC refusal does not. A security
//     manager is asked the same question for a stat as for a read, so
//     the fake refuses a stat of an unreadable file, which Android allows
//     (the open after it fails on both). Create and unlink in a folder
//     that gives o+w are refused by the SELinux rule below.
//   - /data/local/tmp is SELinux type shell_data_file (system/sepolicy
//     private/file_contexts). An app may read files there
//     (private/untrusted_app_all.te grants reads of shell_data_file), but
//     not create or unlink them: app_neverallows.te forbids untrusted apps
//     to create or unlink files outside their own data, storage and a few
//     listed types, and CTS checks it. So the harness process gets
//     { create } refused for a file or folder that does not exist yet, and
//     { unlink } for any deletion, under /data/local/tmp; writing over an
//     existing file is let through (if its mode gives o+w). Appending is
//     not granted either, but a security manager does not see the open
//     mode, so the fake cannot refuse an append to an existing file with
//     o+w (the harness never appends there).
//   - The adb shell (uid 2000, type shell) may do anything there: the
//     shell commands and sync of this fake are not subject to the rules.
//   - Not modelled: media servers (mediaserver, mediaextractor) may not
//     read shell_data_file descriptors at all; no media server runs here.
//   - The location app-op (appops.go). From Android 10 a pm grant of a
//     foreground location permission without ACCESS_BACKGROUND_LOCATION
//     leaves its op (COARSE_LOCATION, FINE_LOCATION) in uid mode
//     foreground, and every grant that changes the app's permissions sets
//     it so again (PermissionPolicyService's sync on onPermissionsChanged).
//     From Android 11 an app started by am instrument has the capabilities
//     ActivityManager.PROCESS_CAPABILITY_INSTRUMENTATION_DEFAULTS (70:
//     camera, microphone, audio control; Android 11's OomAdjuster gives
//     PROCESS_CAPABILITY_ALL_IMPLICIT, camera and microphone) but not
//     PROCESS_CAPABILITY_FOREGROUND_LOCATION, so a foreground mode
//     evaluates to ignore for it (AppOpsUidStateTrackerImpl.evalModeInternal;
//     Android 11's AppOpsService.UidState.evalMode): App.OpMode. A uid
//     mode takes over from the package's (AppOpsService.noteOperation);
//     allow, the location ops' default, is no uid mode (setUidMode).
//     App.Discovers is BluetoothAdapter.startDiscovery's location check
//     for an app targeting below Android 10 (the Bluetooth app's
//     AdapterService.startDiscovery and Utils.checkCallerHasCoarseLocation):
//     from Android 10, location on (secure location_mode not 0),
//     ACCESS_COARSE_LOCATION granted and COARSE_LOCATION allowed; a
//     simulated harness refuses startDiscovery by it
//     (simharness.Options.Refuses). No Bluetooth stack runs here. Not
//     modelled: whether Android 10 refuses a foreground mode to an
//     instrumented process (its process-state rule is not confirmed from
//     sources), revokes, and ACCESS_BACKGROUND_LOCATION's own op.
//
// The shell splits words with '...' and "..." quoting and backslash
// escapes and runs lists joined by ;, && and || (a newline is a ;). Pipes,
// redirections, expansions and subshells are refused with "fakeadbd:
// unsupported shell syntax", exit status 2, so that a caller relying on
// them learns it at once. The commands (with /system/bin/ or not):
//
//	getprop [NAME [DEFAULT]]       all as "[k]: [v]" lines, sorted, or one value
//	echo [-n] ARGS
//	mkdir [-p] DIR...              folders get 0777 less Config.ShellUmask (022 unless set)
//	rm [-r|-R] [-f] PATH...
//	chmod [-R] MODE PATH...        applies octal modes; symbolic ones change nothing
//	md5sum FILE...                 "<hex>  FILE"
//	cat FILE...
//	logcat [-d] [-c] [-t N] [-v FMT] [-b BUF] [--pid N] [...]
//	                               prints the log in threadtime format and
//	                               returns, even without -d (nothing would
//	                               end a follow); -c clears it; -b crash
//	                               keeps the crash buffer (Crash's report),
//	                               main or system the rest; --pid N one process
//	pidof NAME...                  the pids of running apps by package, or exit 1
//	log [-p P] [-t TAG] MESSAGE... adds a line to the log
//	pm path [--user U] PKG         "package:/data/app/PKG-1/base.apk" when installed for U
//	                               (default 0), or exit 1 and nothing
//	pm install [-r -t -g ...] [--user U] PATH | -S SIZE
//	                               "Success", installed for U (default every user); a
//	                               missing file is "Failure [INSTALL_FAILED_INVALID_URI]",
//	                               exit 1
//	pm uninstall [--user U] PKG    "Success" (for U, default every user), or
//	                               "Failure [DELETE_FAILED_INTERNAL_ERROR]", exit 1
//	pm grant [--user U] PKG PERM   records the grant for user U, default 0 (Device.Granted),
//	                               of a runtime permission the manifest requests (below)
//	pm list packages [-f] [FILTER]
//	pm list instrumentation
//	cmd package ...                as pm (adb install streams through exec:cmd package install -S)
//	cmd activity ...               as am
//	am instrument [-w] [-r] [--user U] [-e K V]... COMPONENT
//	am force-stop PKG
//	am get-current-user            Config.CurrentUser (SDK 24 and later)
//	getenforce                     Config.SELinux
//	pm list features               Config.Features
//	pm query-services [--components] -a ACTION
//	                               Config.Services
//	settings [--user U] get|put|delete NAMESPACE KEY [VALUE]
//	                               the global and secure tables (Config.GlobalSettings,
//	                               SecureSettings); system is empty; get prints "null" for unset
//	appops set [--user U] [--uid] PKG OP MODE
//	appops get [--user U] PKG [OP]  the uid's and the package's modes of
//	                               COARSE_LOCATION, FINE_LOCATION, CAMERA,
//	                               RECORD_AUDIO (allow, ignore, deny,
//	                               default, foreground), as AppOpsService's
//	                               shell prints them (see below)
//	svc power stayon true|false|usb|ac|wireless
//	                               sets stay_on_while_plugged_in to 7, 0, 2, 1 or 4
//
// Anything else prints "/system/bin/sh: NAME: inaccessible or not found"
// and exits 127.
//
// The fake reads no APK: every APK pm installs is the package
// org.droidstar.harness (HarnessPackage), whose manifest requests the
// permissions of harness-apk/AndroidManifest.xml (embedded in package
// harnessapk, read by harnessapk.RequestedPermissions), or
// Config.RequestedPermissions when set. Installing or uninstalling kills
// the package's running instrumentation, as on Android.
//
// # Users, permissions and settings
//
// The device has two users, 0 and Config.CurrentUser (the same one by
// default). The rules, as Android has them:
//   - An app is installed per user (PackageUserState's installed flag):
//     pm install without --user installs for every user
//     (PackageManagerShellCommand's install params start as USER_ALL,
//     which doCreateSession turns into INSTALL_ALL_USERS), with --user U
//     for U alone, as an app installed before a secondary user was
//     created is (Settings.createNewUserLI installs only system packages
//     for a new user). pm path answers for --user U, default user 0
//     (runPath starts from UserHandle.USER_SYSTEM), and am instrument
//     finds no instrumentation info for a user the app is not installed
//     for. pm uninstall --user U removes it for U alone.
//   - Runtime permissions are granted per user, and pm grant without
//     --user grants user 0 only, whoever is in the foreground:
//     PackageManagerShellCommand.runGrantRevokePermission (Pm.java on
//     Android 6 and 7) starts from userId = UserHandle.USER_SYSTEM
//     (USER_OWNER). A grant for a user the device lacks is logged ("E
//     PermissionManager: No such user:N") and pm still exits 0, as the
//     permission manager returns without throwing.
//   - pm grant grants only a runtime permission the package requests.
//     PermissionManagerServiceImpl.grantRuntimePermissionInternal
//     (frameworks/base services/core/java/com/android/server/pm/permission;
//     older releases have it in PermissionManagerService, some with
//     BasePermission.enforceDeclaredUsedAndRuntimeOrDevelopment, which
//     checks the request before the type) throws, in this order:
//     IllegalArgumentException "Unknown permission: PERM" for a
//     permission the platform does not define; SecurityException
//     "Permission PERM requested by PKG is not a changeable permission
//     type" for one neither runtime (dangerous) nor development, such as
//     a normal one, which Android grants at install; SecurityException
//     "Package PKG has not requested permission PERM" for one missing from
//     the manifest. The fake knows the protection levels of a few platform
//     permissions (core/res/AndroidManifest.xml): RECORD_AUDIO, CAMERA,
//     ACCESS_COARSE_LOCATION, ACCESS_FINE_LOCATION, READ_ and
//     WRITE_EXTERNAL_STORAGE and READ_PHONE_STATE are dangerous; INTERNET,
//     BLUETOOTH, BLUETOOTH_ADMIN, ACCESS_NETWORK_STATE and WAKE_LOCK normal;
//     any other is unknown to it. pm prints a thrown exception as
//     BasicShellCommandHandler.exec does (an empty line, "Exception
//     occurred while executing 'grant':" and the trace, of which the fake
//     prints the first line) and exits 255. The unknown package is checked
//     before the permission, the user before both.
//   - am instrument without --user runs the app as the current user:
//     Instrument.userId (Am.runInstrument before Android 8) starts as
//     UserHandle.USER_CURRENT; "--user all" is refused ("Error: Can't
//     start instrumentation with user 'all'"), and a user the device lacks
//     finds no instrumentation info. The process is u{USER}a86 in the
//     activity manager's lines, and its files folder defaults to
//     /data/user/USER/PKG/files.
//   - The harness learns what it runs as from AppOf(ctx): App.User, and
//     App.Granted, which reads the grants of its own user at the time of
//     the call (a grant reaches a running app at once). A harness that
//     lacks a runtime permission should fail the callins that need it, as
//     the framework does (simharness.Options.Throws does so for a model).
//   - am get-current-user prints the current user from Android 7 (SDK 24;
//     Am.runGetCurrentUser, later ActivityManagerShellCommand). Before,
//     am does not know the command: Android 6's Am.onRun calls
//     BaseCommand.showError, which prints the usage (abridged here), a
//     blank line and "Error: unknown command 'get-current-user'" to
//     stderr, and am exits 0.
//   - svc power stayon sets stay_on_while_plugged_in through
//     PowerManager.setStayOnSetting (frameworks/base cmds/svc
//     PowerCommand.java: true is AC|USB|WIRELESS, usb is
//     BatteryManager.BATTERY_PLUGGED_USB = 2); on arguments it does not
//     know it prints its help to stderr and exits 0, changing nothing.
//     With Config.StayOnIgnored it changes nothing either and exits 0:
//     PowerManagerService.BinderService.setStayOnSetting writes only for
//     root or a caller that Settings.checkAndNoteWriteSettingsOperation
//     lets through (a vendor build whose shell may not write settings),
//     and otherwise returns without a word.
//     settings (SettingsService, formerly cmds/settings SettingsCmd)
//     prints a global setting or "null", puts silently, and deletes with
//     "Deleted N rows". Device.SettingHistory lists every value a global
//     setting took, so that a test sees what was set during a run and
//     what was put back.
//
// # Device state
//
// What droidstar doctor reads with the shell, answered from Config as
// Android prints it (sysinfo.go):
//   - getenforce prints Enforcing, Permissive or Disabled (toybox
//     toys/android/getenforce.c: "Disabled" when SELinux is off, else
//     security_getenforce's answer). The mode is only printed: whether the
//     app's files are refused is the HarnessFunc's (JVMHarness holds the
//     JVM to the enforcing rules below).
//   - pm list features prints "feature:NAME" per system feature, sorted,
//     and the OpenGL ES version as "feature:reqGlEsVersion=0x30000"
//     (PackageManagerShellCommand.runListFeatures; Pm.runListFeatures on
//     Android 6).
//   - pm query-services -a ACTION (PackageManagerShellCommand
//     .runQueryIntentServices, Android 7 and later) prints "No services
//     found", or "N services found:" and each ResolveInfo; with
//     --components, each service's ComponentName.flattenToShortString()
//     alone on a line. SpeechRecognizer.isRecognitionAvailable and
//     TextServicesManager ask the same question of the package manager
//     (RecognitionService.SERVICE_INTERFACE,
//     SpellCheckerService.SERVICE_INTERFACE).
//   - secure location_mode is
//     Settings.Secure.LOCATION_MODE_OFF (0) to _HIGH_ACCURACY (3); global
//     stay_on_while_plugged_in is the BatteryManager.BATTERY_PLUGGED_*
//     bits the screen stays on for.
//
// # Instrumentation
//
// am instrument of org.droidstar.harness/.HarnessInstrumentation (or the
// fully qualified class) when the package is missing prints what the
// activity manager prints (INSTRUMENTATION_STATUS: id=ActivityManagerService,
// Error=Unable to find instrumentation info for: ComponentInfo{...},
// INSTRUMENTATION_STATUS_CODE: -1, and android.util.AndroidException:
// INSTRUMENTATION_FAILED: ... on stderr) and exits 1. Otherwise it replaces
// any running instrumentation of the package, calls Config.Harness with a
// HarnessRun (the host folders of `-e staging DIR`, of the app's files and
// code_cache folders under /data/user/USER/org.droidstar.harness, and of
// /data/local/tmp, and `-e run ID`), registers the socket named by
// `-e socket` (default droidstar-harness) and logs "I droidstar-harness:
// listening on localabstract:NAME". With -w the shell stream stays open
// until the instrumentation finishes, then prints, as am does for the
// harness's finish(code, results):
//
//	INSTRUMENTATION_RESULT: droidstar-harness=bye   after a connection that ended with bye
//	INSTRUMENTATION_CODE: 0
//
//	INSTRUMENTATION_RESULT: shortMsg=Process crashed.   after am force-stop, a reinstall or Close
//	INSTRUMENTATION_CODE: 0
//
//	INSTRUMENTATION_RESULT: droidstar-harness=error: ...   when the HarnessFunc fails
//	INSTRUMENTATION_CODE: 1
//
// and exits 0. Closing am's stream early does not stop the
// instrumentation, as on Android. A connection that ends without bye
// leaves the socket listening for the next one. With
// Config.HarnessNeverListens the app crashes in onCreate instead: logcat
// gets "E AndroidRuntime: FATAL EXCEPTION: main", the RuntimeException and
// "E droidstar-harness: harness failed: ...", am prints
// INSTRUMENTATION_RESULT: shortMsg=java.lang.RuntimeException, longMsg=...,
// INSTRUMENTATION_CODE: 0, and the socket never appears.
//
// Crash, given the context a serve func got, kills the app as an uncaught
// exception does: "E AndroidRuntime: FATAL EXCEPTION: main", the process
// line, the exception and its frames in the crash buffer under the app's
// pid, am prints INSTRUMENTATION_RESULT: shortMsg=EXCEPTION, longMsg=...,
// INSTRUMENTATION_CODE: 0, and the socket and its connections close.
// Device.KillApp kills it from outside instead (the low-memory killer,
// kill -9): nothing in the crash buffer, and am prints
// INSTRUMENTATION_RESULT: shortMsg=Process crashed. and
// INSTRUMENTATION_CODE: 0 (ActivityManagerService's handling of a dead
// instrumented process).
//
// The contexts a HarnessFunc and its serve func get are cancelled when the
// instrumentation ends, and carry the device's log: Log writes lines to
// logcat under the harness process's pid.
package adbd
