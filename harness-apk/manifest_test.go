package harnessapk

import (
	"slices"
	"testing"
)

// The manifest's uses-permission elements, in order: what pm grant may
// grant the app (the fake device refuses the rest).
func TestRequestedPermissions(t *testing.T) {
	want := []string{
		"android.permission.RECORD_AUDIO",
		"android.permission.INTERNET",
		"android.permission.BLUETOOTH",
		"android.permission.BLUETOOTH_ADMIN",
		"android.permission.ACCESS_NETWORK_STATE",
		"android.permission.WRITE_EXTERNAL_STORAGE",
		"android.permission.ACCESS_COARSE_LOCATION",
		"android.permission.WAKE_LOCK",
	}
	if got := RequestedPermissions(); !slices.Equal(got, want) {
		t.Errorf("RequestedPermissions() = %q, want %q", got, want)
	}
}

// A uses-permission in another namespace's name attribute is no request:
// Android reads android:name only.
func TestRequestedPermissionsNeedAndroidName(t *testing.T) {
	_, err := requestedPermissions([]byte(`<manifest xmlns:android="http://schemas.android.com/apk/res/android"><uses-permission name="android.permission.CAMERA"/></manifest>`))
	if err == nil || err.Error() != "AndroidManifest.xml: a uses-permission without android:name" {
		t.Errorf("err = %v", err)
	}
}
