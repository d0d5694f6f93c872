package adbd_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/fake/adbd"
	"github.com/droidstar/droidstar/internal/fake/adbserver"
)

const recordAudio = "android.permission.RECORD_AUDIO"

// TestCurrentUser: am get-current-user answers from Android 7 on and is an
// unknown command before, printed as Android 6's am prints one.
func TestCurrentUser(t *testing.T) {
	t.Parallel()
	s := adbserver.NewT(t)
	for _, tc := range []struct {
		sdk, out string
	}{
		{"34", "10\n"},
		{"24", "10\n"},
		{"23", "usage: am [subcommand] [options]\n(fakeadbd: the rest of am's usage)\n\nError: unknown command 'get-current-user'\n"},
	} {
		d := s.AttachT(t, adbd.Config{CurrentUser: 10, Props: map[string]string{"ro.build.version.sdk": tc.sdk}})
		if out, code := adb(t, s, "-s", d.Addr(), "shell", "am get-current-user"); code != 0 || out != tc.out {
			t.Errorf("SDK %s: am get-current-user: exit %d, %q, want %q", tc.sdk, code, out, tc.out)
		}
	}
	d := s.AttachT(t, adbd.Config{})
	if out := adbOK(t, s, "-s", d.Addr(), "shell", "am get-current-user"); out != "0\n" {
		t.Errorf("the default current user: %q, want 0", out)
	}
}

// TestGrantsPerUser: pm grant without --user grants user 0 only, whoever
// the current user is; am instrument runs the harness as the current user
// unless --user says otherwise, and the harness sees its own user's
// grants.
func TestGrantsPerUser(t *testing.T) {
	t.Parallel()
	s := adbserver.NewT(t)
	apps := make(chan adbd.App, 4)
	harness := func(ctx context.Context, _ adbd.HarnessRun) (func(context.Context, io.ReadWriteCloser) bool, error) {
		app, ok := adbd.AppOf(ctx)
		if !ok {
			t.Error("the harness's context has no app")
		}
		apps <- app
		return func(context.Context, io.ReadWriteCloser) bool { return true }, nil
	}
	d := s.AttachT(t, adbd.Config{CurrentUser: 10, Harness: harness})
	serial := d.Addr()
	apk := filepath.Join(t.TempDir(), "h.apk")
	os.WriteFile(apk, []byte("apk"), 0o644)
	adbOK(t, s, "-s", serial, "install", apk)

	adbOK(t, s, "-s", serial, "shell", "pm grant "+adbd.HarnessPackage+" "+recordAudio)
	if g0, g10 := d.Granted(adbd.HarnessPackage, 0), d.Granted(adbd.HarnessPackage, 10); len(g0) != 1 || len(g10) != 0 {
		t.Errorf("pm grant without --user: user 0 has %v, user 10 has %v; want user 0 only", g0, g10)
	}
	adbOK(t, s, "-s", serial, "shell", "am instrument -e socket u "+component)
	app := <-apps
	if app.User != 10 || app.Package != adbd.HarnessPackage || app.Granted(recordAudio) {
		t.Errorf("am instrument without --user: %+v, granted %v; want user 10 without the grant", app, app.Granted(recordAudio))
	}
	waitLog(t, d, "/u10a86 for added application")
	// A grant reaches the running app at once.
	adbOK(t, s, "-s", serial, "shell", "pm grant --user 10 "+adbd.HarnessPackage+" "+recordAudio)
	if !app.Granted(recordAudio) {
		t.Error("pm grant --user 10 did not reach the app running as user 10")
	}
	adbOK(t, s, "-s", serial, "shell", "am instrument --user 0 -e socket u "+component)
	if app := <-apps; app.User != 0 || !app.Granted(recordAudio) {
		t.Errorf("am instrument --user 0: %+v, granted %v", app, app.Granted(recordAudio))
	}

	// A user the device does not have: pm grant logs and exits 0, am
	// instrument finds no instrumentation.
	if out, code := adb(t, s, "-s", serial, "shell", "pm grant --user 11 "+adbd.HarnessPackage+" android.permission.CAMERA"); code != 0 || out != "" {
		t.Errorf("pm grant --user 11: exit %d, %q", code, out)
	}
	waitLog(t, d, "E PermissionManager: No such user:11")
	if g := d.Granted(adbd.HarnessPackage, 11); len(g) != 0 {
		t.Errorf("user 11 got %v", g)
	}
	if out, code := adb(t, s, "-s", serial, "shell", "am instrument --user 11 "+component); code != 1 || !strings.Contains(out, "Unable to find instrumentation info") {
		t.Errorf("am instrument --user 11: exit %d, %q", code, out)
	}
	if out, code := adb(t, s, "-s", serial, "shell", "am instrument --user all "+component); code != 1 || out != "Error: Can't start instrumentation with user 'all'\n" {
		t.Errorf("am instrument --user all: exit %d, %q", code, out)
	}
}

// TestSettingsAndStayOn: settings get/put/delete global and svc power
// stayon, each change kept in SettingHistory.
func TestSettingsAndStayOn(t *testing.T) {
	t.Parallel()
	s := adbserver.NewT(t)
	d := s.AttachT(t, adbd.Config{})
	serial := d.Addr()
	const key = "stay_on_while_plugged_in"
	steps := []struct{ cmd, out string }{
		{"settings get global " + key, "0\n"},
		{"svc power stayon usb", ""},
		{"settings get global " + key, "2\n"},
		{"svc power stayon true", ""},
		{"settings get global " + key, "7\n"},
		{"settings put global " + key + " 3", ""},
		{"settings get global " + key, "3\n"},
		{"settings delete global " + key, "Deleted 1 rows\n"},
		{"settings get global " + key, "null\n"},
		{"settings delete global " + key, "Deleted 0 rows\n"},
		{"settings get secure " + key, "null\n"},
	}
	for _, st := range steps {
		if out := adbOK(t, s, "-s", serial, "shell", st.cmd); out != st.out {
			t.Errorf("%s: %q, want %q", st.cmd, out, st.out)
		}
	}
	if h := strings.Join(d.SettingHistory(key), " "); h != "0 2 7 3 null" {
		t.Errorf("history %s, want 0 2 7 3 null", h)
	}
	// svc does not fail on what it does not understand: it prints its help
	// and exits 0, changing nothing.
	if out, code := adb(t, s, "-s", serial, "shell", "svc power stayon sometimes"); code != 0 || !strings.Contains(out, "usage: svc power stayon [true|false|usb|ac|wireless]") {
		t.Errorf("svc power stayon sometimes: exit %d, %q", code, out)
	}
	if h := d.SettingHistory(key); len(h) != 5 {
		t.Errorf("a bad svc changed the setting: %v", h)
	}
	// A device whose setting was never written.
	unset := s.AttachT(t, adbd.Config{GlobalSettings: map[string]string{}})
	if out := adbOK(t, s, "-s", unset.Addr(), "shell", "settings get global "+key); out != "null\n" {
		t.Errorf("unset setting: %q", out)
	}
	if h := strings.Join(unset.SettingHistory(key), " "); h != "null" {
		t.Errorf("unset history %s", h)
	}
}

// TestInstallsPerUser: pm install without --user installs for every user,
// with --user N for N alone; pm path and am instrument answer for one user
// (pm path for user 0 unless told), and pm uninstall --user N removes the
// app for N alone.
func TestInstallsPerUser(t *testing.T) {
	t.Parallel()
	s := adbserver.NewT(t)
	harness := func(ctx context.Context, _ adbd.HarnessRun) (func(context.Context, io.ReadWriteCloser) bool, error) {
		return func(context.Context, io.ReadWriteCloser) bool { return true }, nil
	}
	d := s.AttachT(t, adbd.Config{CurrentUser: 10, Harness: harness})
	serial := d.Addr()
	apk := filepath.Join(t.TempDir(), "h.apk")
	os.WriteFile(apk, []byte("apk"), 0o644)
	adbOK(t, s, "-s", serial, "push", apk, "/data/local/tmp/h.apk")
	path := "package:/data/app/" + adbd.HarnessPackage + "-1/base.apk\n"
	noInfo := "Unable to find instrumentation info for: ComponentInfo{org.droidstar.harness/org.droidstar.harness.HarnessInstrumentation}"

	steps := []struct {
		cmd  string
		out  string // "~" prefix: contains
		code int
	}{
		{"pm install --user 0 /data/local/tmp/h.apk", "Success\n", 0},
		{"pm path " + adbd.HarnessPackage, path, 0},
		{"pm path --user 10 " + adbd.HarnessPackage, "", 1},
		{"am instrument -w " + component, "~" + noInfo, 1},
		{"pm install --user 11 /data/local/tmp/h.apk", "Failure [INSTALL_FAILED_INTERNAL_ERROR: User 11 does not exist]\n", 1},
		{"pm install --user current /data/local/tmp/h.apk", "Success\n", 0},
		{"pm path --user 10 " + adbd.HarnessPackage, path, 0},
		{"pm uninstall --user 0 " + adbd.HarnessPackage, "Success\n", 0},
		{"pm path " + adbd.HarnessPackage, "", 1},
		{"pm path --user 10 " + adbd.HarnessPackage, path, 0},
		{"pm uninstall " + adbd.HarnessPackage, "Success\n", 0},
		{"pm path --user 10 " + adbd.HarnessPackage, "", 1},
		{"pm install /data/local/tmp/h.apk", "Success\n", 0},
		{"pm path --user 10 " + adbd.HarnessPackage, path, 0},
		{"pm path --user 0 " + adbd.HarnessPackage, path, 0},
	}
	for _, st := range steps {
		out, code := adb(t, s, "-s", serial, "shell", st.cmd)
		match := out == st.out
		if c, ok := strings.CutPrefix(st.out, "~"); ok {
			match = strings.Contains(out, c)
		}
		if code != st.code || !match {
			t.Errorf("%s: exit %d, %q; want exit %d, %q", st.cmd, code, out, st.code, st.out)
		}
	}
}
