package adbd_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/fake/adbd"
	"github.com/droidstar/droidstar/internal/fake/adbserver"
)

// TestGrantRefusals: pm grant grants only a runtime permission the app's
// manifest requests, and refuses the rest as the permission manager does
// (PermissionManagerServiceImpl.grantRuntimePermissionInternal), printed
// as BasicShellCommandHandler prints an exception, exit 255, nothing
// granted.
func TestGrantRefusals(t *testing.T) {
	t.Parallel()
	s := adbserver.NewT(t)
	d := s.AttachT(t, adbd.Config{})
	serial := d.Addr()
	apk := filepath.Join(t.TempDir(), "h.apk")
	os.WriteFile(apk, []byte("apk"), 0o644)
	adbOK(t, s, "-s", serial, "install", apk)

	const head = "\nException occurred while executing 'grant':\n"
	for _, tc := range []struct{ perm, out string }{
		// Dangerous, and not in harness-apk/AndroidManifest.xml.
		{"android.permission.CAMERA", head + "java.lang.SecurityException: Package org.droidstar.harness has not requested permission android.permission.CAMERA\n"},
		// Requested, but normal: granted at install, not changeable.
		{"android.permission.INTERNET", head + "java.lang.SecurityException: Permission android.permission.INTERNET requested by org.droidstar.harness is not a changeable permission type\n"},
		{"android.permission.WAKE_LOCK", head + "java.lang.SecurityException: Permission android.permission.WAKE_LOCK requested by org.droidstar.harness is not a changeable permission type\n"},
		// Normal and not requested: the protection level is checked first.
		{"android.permission.BLUETOOTH_ADMIN", head + "java.lang.SecurityException: Permission android.permission.BLUETOOTH_ADMIN requested by org.droidstar.harness is not a changeable permission type\n"},
		{"android.permission.NO_SUCH_THING", head + "java.lang.IllegalArgumentException: Unknown permission: android.permission.NO_SUCH_THING\n"},
	} {
		if out, code := adb(t, s, "-s", serial, "shell", "pm grant "+adbd.HarnessPackage+" "+tc.perm); code != 255 || out != tc.out {
			t.Errorf("pm grant %s: exit %d, %q; want 255, %q", tc.perm, code, out, tc.out)
		}
	}
	if g := d.Granted(adbd.HarnessPackage, 0); len(g) != 0 {
		t.Errorf("refused grants were recorded: %v", g)
	}
	// Every runtime permission the manifest requests is granted.
	for _, perm := range []string{"RECORD_AUDIO", "WRITE_EXTERNAL_STORAGE", "ACCESS_COARSE_LOCATION"} {
		adbOK(t, s, "-s", serial, "shell", "pm grant "+adbd.HarnessPackage+" android.permission."+perm)
	}
	if g := strings.Join(d.Granted(adbd.HarnessPackage, 0), ","); g != "android.permission.ACCESS_COARSE_LOCATION,android.permission.RECORD_AUDIO,android.permission.WRITE_EXTERNAL_STORAGE" {
		t.Errorf("Granted = %s", g)
	}
}

// TestGrantFollowsConfigManifest: Config.RequestedPermissions stands for
// another manifest, so a test can give the app a permission the real one
// lacks, or take one away.
func TestGrantFollowsConfigManifest(t *testing.T) {
	t.Parallel()
	s := adbserver.NewT(t)
	d := s.AttachT(t, adbd.Config{RequestedPermissions: []string{"android.permission.CAMERA"}})
	serial := d.Addr()
	apk := filepath.Join(t.TempDir(), "h.apk")
	os.WriteFile(apk, []byte("apk"), 0o644)
	adbOK(t, s, "-s", serial, "install", apk)
	adbOK(t, s, "-s", serial, "shell", "pm grant "+adbd.HarnessPackage+" android.permission.CAMERA")
	want := "\nException occurred while executing 'grant':\njava.lang.SecurityException: Package org.droidstar.harness has not requested permission android.permission.RECORD_AUDIO\n"
	if out, code := adb(t, s, "-s", serial, "shell", "pm grant "+adbd.HarnessPackage+" "+recordAudio); code != 255 || out != want {
		t.Errorf("pm grant RECORD_AUDIO: exit %d, %q", code, out)
	}
	if g := d.Granted(adbd.HarnessPackage, 0); len(g) != 1 || g[0] != "android.permission.CAMERA" {
		t.Errorf("Granted = %v", g)
	}
}
