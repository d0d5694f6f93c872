package adbd_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/droidstar/droidstar/internal/fake/adbd"
	"github.com/droidstar/droidstar/internal/fake/adbserver"
)

const coarse = "android.permission.ACCESS_COARSE_LOCATION"

// TestLocationAppOp: on Android 11 a location permission granted without
// the background one leaves the location op in foreground mode, which an
// instrumented process evaluates to ignore, so discovery is refused;
// appops set --uid ... allow lets it through until the next grant
// re-syncs the op; a package mode does not take over from a uid mode.
func TestLocationAppOp(t *testing.T) {
	t.Parallel()
	s := adbserver.NewT(t)
	apps := make(chan adbd.App, 1)
	harness := func(ctx context.Context, _ adbd.HarnessRun) (func(context.Context, io.ReadWriteCloser) bool, error) {
		app, _ := adbd.AppOf(ctx)
		apps <- app
		return func(context.Context, io.ReadWriteCloser) bool { return true }, nil
	}
	// An app that requests both location permissions, so that granting
	// the second shows the re-sync.
	d := s.AttachT(t, adbd.Config{CurrentUser: 10, Harness: harness, Props: map[string]string{"ro.build.version.sdk": "30"},
		RequestedPermissions: []string{"android.permission.ACCESS_COARSE_LOCATION", "android.permission.ACCESS_FINE_LOCATION"}})
	serial := d.Addr()
	apk := filepath.Join(t.TempDir(), "h.apk")
	os.WriteFile(apk, []byte("apk"), 0o644)
	adbOK(t, s, "-s", serial, "install", apk)
	pkg := adbd.HarnessPackage
	step := func(cmd, want string) {
		t.Helper()
		if out := adbOK(t, s, "-s", serial, "shell", cmd); out != want {
			t.Errorf("%s: %q, want %q", cmd, out, want)
		}
	}
	step("appops get "+pkg+" COARSE_LOCATION", "No operations.\nDefault mode: allow\n")
	step("pm grant --user 10 "+pkg+" "+coarse, "")
	step("appops get --user 10 "+pkg+" COARSE_LOCATION", "Uid mode: COARSE_LOCATION: foreground\n")
	// User 0 has no grant, so no mode.
	step("appops get --user 0 "+pkg+" COARSE_LOCATION", "No operations.\nDefault mode: allow\n")

	adbOK(t, s, "-s", serial, "shell", "am instrument -e socket u "+component)
	app := <-apps
	if m := app.OpMode("COARSE_LOCATION"); m != adbd.ModeIgnore || app.Discovers() {
		t.Errorf("granted, foreground mode: op %s, discovers %v; want ignore, false", m, app.Discovers())
	}
	// A package mode does not take over from the uid's.
	step("appops set "+pkg+" COARSE_LOCATION allow", "")
	step("appops get "+pkg+" COARSE_LOCATION", "Uid mode: COARSE_LOCATION: foreground\nCOARSE_LOCATION: allow\n")
	if m := app.OpMode("COARSE_LOCATION"); m != adbd.ModeIgnore {
		t.Errorf("package mode allow under uid mode foreground: %s, want ignore", m)
	}
	step("appops set --user 10 --uid "+pkg+" COARSE_LOCATION allow", "")
	step("appops get --user 10 "+pkg+" COARSE_LOCATION", "COARSE_LOCATION: allow\n")
	if m := app.OpMode("COARSE_LOCATION"); m != adbd.ModeAllow || !app.Discovers() {
		t.Errorf("uid mode allow: op %s, discovers %v; want allow, true", m, app.Discovers())
	}
	// Location off refuses discovery whatever the op.
	step("settings put secure location_mode 0", "")
	if app.Discovers() {
		t.Error("discovers with location off")
	}
	step("settings put secure location_mode 3", "")
	// Another grant re-syncs the location ops: foreground again.
	step("pm grant --user 10 "+pkg+" android.permission.ACCESS_FINE_LOCATION", "")
	step("appops get --user 10 "+pkg+" COARSE_LOCATION", "Uid mode: COARSE_LOCATION: foreground\nCOARSE_LOCATION: allow\n")
	if app.Discovers() {
		t.Error("discovers after a grant re-synced the op to foreground")
	}
	step("appops set --user 10 --uid "+pkg+" COARSE_LOCATION ignore", "")
	step("appops get --user 10 "+pkg, "Uid mode: COARSE_LOCATION: ignore\nUid mode: FINE_LOCATION: foreground\nCOARSE_LOCATION: allow\n")

	for _, tc := range []struct{ cmd, out string }{
		{"appops get org.example.none COARSE_LOCATION", "Error: No UID for org.example.none in user 10\n"},
		{"appops set " + pkg + " COARSE_LOCATION sometimes", "Error: Mode sometimes is not valid\n"},
		{"appops get " + pkg + " LOCATION", "Error: Unknown operation string: LOCATION\n"},
	} {
		if out, code := adb(t, s, "-s", serial, "shell", tc.cmd); code != 255 || out != tc.out {
			t.Errorf("%s: exit %d, %q; want 255, %q", tc.cmd, code, out, tc.out)
		}
	}
}

// TestLocationAppOpBeforeAndroid11: the foreground mode is there from
// Android 10, but the capability gate for an instrumented process only
// from Android 11, and before Android 10 a grant sets no mode.
func TestLocationAppOpBeforeAndroid11(t *testing.T) {
	t.Parallel()
	s := adbserver.NewT(t)
	for _, tc := range []struct {
		sdk, get string
	}{
		{"29", "Uid mode: COARSE_LOCATION: foreground\n"},
		{"28", "No operations.\nDefault mode: allow\n"},
	} {
		apps := make(chan adbd.App, 1)
		harness := func(ctx context.Context, _ adbd.HarnessRun) (func(context.Context, io.ReadWriteCloser) bool, error) {
			app, _ := adbd.AppOf(ctx)
			apps <- app
			return func(context.Context, io.ReadWriteCloser) bool { return true }, nil
		}
		d := s.AttachT(t, adbd.Config{Harness: harness, Props: map[string]string{"ro.build.version.sdk": tc.sdk}})
		apk := filepath.Join(t.TempDir(), "h.apk")
		os.WriteFile(apk, []byte("apk"), 0o644)
		adbOK(t, s, "-s", d.Addr(), "install", apk)
		adbOK(t, s, "-s", d.Addr(), "shell", "pm grant "+adbd.HarnessPackage+" "+coarse)
		if out := adbOK(t, s, "-s", d.Addr(), "shell", "appops get "+adbd.HarnessPackage+" COARSE_LOCATION"); out != tc.get {
			t.Errorf("SDK %s: appops get: %q, want %q", tc.sdk, out, tc.get)
		}
		adbOK(t, s, "-s", d.Addr(), "shell", "am instrument -e socket u "+component)
		if app := <-apps; app.OpMode("COARSE_LOCATION") != adbd.ModeAllow || !app.Discovers() {
			t.Errorf("SDK %s: op %s, discovers %v; want allow, true", tc.sdk, app.OpMode("COARSE_LOCATION"), app.Discovers())
		}
	}
}
