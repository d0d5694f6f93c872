package harnessapk

import (
	_ "embed"
	"encoding/xml"
	"fmt"
)

// Manifest is AndroidManifest.xml, the source the APK's manifest is built
// from (aapt package -M AndroidManifest.xml), so that what the harness app
// requests is read from one place rather than copied into lists.
//
//go:embed AndroidManifest.xml
var Manifest []byte

// RequestedPermissions are the permissions the harness app's manifest
// requests (its uses-permission elements), in manifest order: the only
// ones Android lets anyone grant it.
func RequestedPermissions() []string {
	perms, err := requestedPermissions(Manifest)
	if err != nil {
		// The manifest is compiled in and checked by this package's test.
		panic(err)
	}
	return perms
}

func requestedPermissions(manifest []byte) ([]string, error) {
	var m struct {
		Uses []struct {
			Name string `xml:"http://schemas.android.com/apk/res/android name,attr"`
		} `xml:"uses-permission"`
	}
	if err := xml.Unmarshal(manifest, &m); err != nil {
		return nil, fmt.Errorf("AndroidManifest.xml: %w", err)
	}
	var perms []string
	for _, u := range m.Uses {
		if u.Name == "" {
			return nil, fmt.Errorf("AndroidManifest.xml: a uses-permission without android:name")
		}
		perms = append(perms, u.Name)
	}
	return perms, nil
}
