package adbd_test

import (
	"testing"

	"github.com/droidstar/droidstar/internal/fake/adbd"
	"github.com/droidstar/droidstar/internal/fake/adbserver"
)

// TestDeviceState: what doctor asks the shell, through the real adb
// server, on a default device and on one configured otherwise.
func TestDeviceState(t *testing.T) {
	t.Parallel()
	s := adbserver.NewT(t)
	def := s.AttachT(t, adbd.Config{})
	odd := s.AttachT(t, adbd.Config{
		SELinux: "Permissive", CurrentUser: 10,
		Features:       []string{"android.hardware.wifi"},
		Services:       map[string][]string{},
		SecureSettings: map[string]string{},
		GlobalSettings: map[string]string{"stay_on_while_plugged_in": "3"},
	})
	old := s.AttachT(t, adbd.Config{Props: map[string]string{"ro.build.version.sdk": "23"}})
	for _, tc := range []struct {
		d         *adbd.Device
		cmd, want string
	}{
		{def, "getenforce", "Enforcing\n"},
		{odd, "getenforce", "Permissive\n"},
		{def, "pm list features", "feature:reqGlEsVersion=0x30000\nfeature:android.hardware.bluetooth\nfeature:android.hardware.bluetooth_le\nfeature:android.hardware.location\nfeature:android.hardware.microphone\nfeature:android.hardware.touchscreen\nfeature:android.hardware.wifi\nfeature:android.software.input_methods\n"},
		{odd, "pm list features", "feature:reqGlEsVersion=0x30000\nfeature:android.hardware.wifi\n"},
		{def, "cmd package query-services --components -a android.speech.RecognitionService", "com.google.android.googlequicksearchbox/com.google.android.voicesearch.serviceapi.GoogleRecognitionService\n"},
		{def, "pm query-services -a android.service.textservice.SpellCheckerService", "1 services found:\n  Service #0:\n    priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false\n    ServiceInfo:\n      name=com.google.android.inputmethod.latin/com.android.inputmethod.latin.spellcheck.AndroidSpellCheckerService\n      packageName=com.google.android.inputmethod.latin\n"},
		{odd, "cmd package query-services --components -a android.speech.RecognitionService", "No services found\n"},
		{def, "settings get secure location_mode", "3\n"},
		{odd, "settings get secure location_mode", "null\n"},
		{def, "settings get global stay_on_while_plugged_in", "0\n"},
		{odd, "settings get global stay_on_while_plugged_in", "3\n"},
		{odd, "settings put secure location_mode 0 && settings get secure location_mode", "0\n"},
		{def, "am get-current-user", "0\n"},
		{odd, "am get-current-user", "10\n"},
		{old, "am get-current-user", "usage: am [subcommand] [options]\n(fakeadbd: the rest of am's usage)\n\nError: unknown command 'get-current-user'\n"},
	} {
		if got := adbOK(t, s, "-s", tc.d.Addr(), "shell", tc.cmd); got != tc.want {
			t.Errorf("%s: %s:\n got %q\nwant %q", tc.d.Addr(), tc.cmd, got, tc.want)
		}
	}
}
