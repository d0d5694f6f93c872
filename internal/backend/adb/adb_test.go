package adb

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/droidstar/droidstar/internal/adbclient"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/purpose"
)

func TestDescribe(t *testing.T) {
	cases := []struct {
		props map[string]string
		want  model.DeviceInfo
	}{
		{map[string]string{"ro.product.model": "Pixel 8", "ro.product.manufacturer": "Google", "ro.build.version.release": "14", "ro.build.version.sdk": "34"},
			model.DeviceInfo{Serial: "s", Platform: "android", Model: "Google Pixel 8", Release: "14", SDK: 34}},
		// The model often repeats the maker already.
		{map[string]string{"ro.product.model": "SM-G991B", "ro.product.manufacturer": "samsung", "ro.build.version.release": "13", "ro.build.version.sdk": "33"},
			model.DeviceInfo{Serial: "s", Platform: "android", Model: "samsung SM-G991B", Release: "13", SDK: 33}},
		{map[string]string{"ro.product.model": "Nexus 5X", "ro.product.manufacturer": "LGE"},
			model.DeviceInfo{Serial: "s", Platform: "android", Model: "LGE Nexus 5X"}},
		{map[string]string{"ro.product.model": "sdk_gphone64_x86_64", "ro.product.manufacturer": "Google", "ro.build.version.sdk": "x"},
			model.DeviceInfo{Serial: "s", Platform: "android", Model: "Google sdk_gphone64_x86_64"}},
		{map[string]string{"ro.product.model": "Google Pixel", "ro.product.manufacturer": "Google"},
			model.DeviceInfo{Serial: "s", Platform: "android", Model: "Google Pixel"}},
	}
	for _, c := range cases {
		if got := Describe("s", c.props); got != c.want {
			t.Errorf("Describe(%v) = %+v, want %+v", c.props, got, c.want)
		}
	}
}

// A permission the harness app does not request cannot be granted: the
// error points at its line.
func TestCheckPermissions(t *testing.T) {
	file := filepath.Join(t.TempDir(), "purpose.yaml")
	yaml := `name: T
class: java.util.Timer
callins: [cancel]
permissions:
  - android.permission.RECORD_AUDIO
  - android.permission.CAMERA
backend:
  adb: {}
`
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := purpose.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	err = CheckPermissions(p)
	want := file + ":6:5: permissions[1]: the harness app does not request android.permission.CAMERA, so it cannot be granted (it requests: android.permission.RECORD_AUDIO, android.permission.INTERNET, android.permission.BLUETOOTH, android.permission.BLUETOOTH_ADMIN, android.permission.ACCESS_NETWORK_STATE, android.permission.WRITE_EXTERNAL_STORAGE, android.permission.ACCESS_COARSE_LOCATION, android.permission.WAKE_LOCK)"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	if !runtimePermission("android.permission.RECORD_AUDIO") || runtimePermission("android.permission.INTERNET") {
		t.Error("RECORD_AUDIO is granted at run time, INTERNET at install")
	}
}

func TestRelevantLogLines(t *testing.T) {
	cases := map[string]bool{
		"11-21 19:36:59.402  4007  4007 E droidstar-harness: harness failed: boom":                                true,
		"11-21 19:36:59.402  4007  4007 E AndroidRuntime: FATAL EXCEPTION: main":                                  true,
		"11-21 19:36:59.402   612   612 I ActivityManager: Start proc 4007:org.droidstar.harness/u0a86 for added": true,
		"11-21 19:36:59.402   612   612 I ActivityManager: Start proc 4008:com.example.other/u0a87 for added":     false,
		"11-21 19:36:59.402   300   300 W wificond: not a harness line":                                           false,
		"--------- beginning of crash": false,
	}
	for line, want := range cases {
		if got := relevantLogLine(line); got != want {
			t.Errorf("relevantLogLine(%q) = %v, want %v", line, got, want)
		}
	}
}

func TestReadyAndTable(t *testing.T) {
	list := []adbclient.DeviceInfo{
		{Serial: "emulator-5554", State: "device", Model: "sdk_gphone64", Product: "sdk_gphone64_x86_64"},
		{Serial: "R58M", State: "unauthorized"},
	}
	want := "  emulator-5554            device       model:sdk_gphone64 product:sdk_gphone64_x86_64\n  R58M                     unauthorized"
	if got := Table(list); got != want {
		t.Errorf("Table:\n%q\nwant\n%q", got, want)
	}
	if Ready(list[0]) != nil {
		t.Error("a device in state device is ready")
	}
	for state, want := range map[string]string{
		"no permissions": "device X: no permissions to open it (on Linux, add a udev rule for the phone's USB vendor id)",
		"bootloader":     "device X is bootloader, not ready to run queries",
	} {
		if err := Ready(adbclient.DeviceInfo{Serial: "X", State: state}); err == nil || err.Error() != want {
			t.Errorf("Ready(%s) = %v, want %s", state, err, want)
		}
	}
	if (Selection{Devices: []string{"all"}}).All() != true || (Selection{Devices: []string{"a"}}).All() {
		t.Error("Selection.All")
	}
}
