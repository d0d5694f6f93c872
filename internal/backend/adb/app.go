package adb

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	harnessapk "github.com/droidstar/droidstar/harness-apk"
	"github.com/droidstar/droidstar/internal/adbclient"
	"github.com/droidstar/droidstar/internal/purpose"
)

// HarnessPackage is the harness app's package name.
const HarnessPackage = "org.droidstar.harness"

// AppState says how the harness app on a device compares with the one
// droidstar embeds.
type AppState string

const (
	AppMissing  AppState = "missing"
	AppCurrent  AppState = "current"
	AppOutdated AppState = "different" // installed, but not this droidstar's build
)

// AppStatus is the harness app's state on one device.
type AppStatus struct {
	State AppState
	// Path is where the installed APK lives on the device.
	Path string
}

// HarnessStatus compares the harness installed for user with apk by
// content: a rebuilt harness with an unchanged version name still counts
// as different, so it is replaced. The user matters: pm path without
// --user answers for user 0 (PackageManagerShellCommand.runPath), and an
// app installed before a secondary user was created is not installed for
// that user, so am instrument --user N finds no instrumentation info.
func HarnessStatus(ctx context.Context, dev *adbclient.Device, apk []byte, user int) (AppStatus, error) {
	r, err := dev.Shell(ctx, fmt.Sprintf("pm path --user %d %s", user, HarnessPackage))
	if err != nil {
		return AppStatus{}, fmt.Errorf("device %s: look for the harness app: %w", dev.Serial(), err)
	}
	apkPath := ""
	for _, line := range strings.Split(r.Stdout, "\n") {
		if p, ok := strings.CutPrefix(strings.TrimSpace(line), "package:"); ok {
			apkPath = p
			break
		}
	}
	if apkPath == "" {
		return AppStatus{State: AppMissing}, nil
	}
	sum, err := dev.Shell(ctx, "md5sum "+adbclient.Quote(apkPath))
	if err != nil {
		return AppStatus{}, fmt.Errorf("device %s: checksum the harness app: %w", dev.Serial(), err)
	}
	want := md5.Sum(apk)
	fields := strings.Fields(sum.Stdout)
	if sum.Exit == 0 && len(fields) > 0 && strings.EqualFold(fields[0], hex.EncodeToString(want[:])) {
		return AppStatus{State: AppCurrent, Path: apkPath}, nil
	}
	// No md5sum (before Android 6) also lands here: reinstalling is
	// always safe, only slower.
	return AppStatus{State: AppOutdated, Path: apkPath}, nil
}

// EnsureHarness installs the harness app for user when it is missing for
// that user or differs from apk, and says whether it installed.
func EnsureHarness(ctx context.Context, dev *adbclient.Device, apk []byte, log io.Writer, user int) (bool, error) {
	if len(apk) == 0 {
		return false, fmt.Errorf("this droidstar was built without the harness app")
	}
	st, err := HarnessStatus(ctx, dev, apk, user)
	if err != nil {
		return false, err
	}
	if st.State == AppCurrent {
		return false, nil
	}
	if log != nil {
		verb := "installing"
		if st.State == AppOutdated {
			verb = "updating"
		}
		for_ := ""
		if user != 0 {
			for_ = fmt.Sprintf(" for user %d", user)
		}
		fmt.Fprintf(log, "droidstar: %s the harness app on %s%s\n", verb, dev.Serial(), for_)
	}
	// For the user the harness runs as: pm install without --user installs
	// for all users (PackageManagerShellCommand.doCreateSession makes
	// USER_ALL INSTALL_ALL_USERS), which a device may refuse for a user
	// the shell cannot act for, and which is more than this run needs.
	if err := dev.Install(ctx, bytes.NewReader(apk), "droidstar-harness.apk", "--user", strconv.Itoa(user)); err != nil {
		return false, fmt.Errorf("cannot install the harness app: %w", err)
	}
	return true, nil
}

// UninstallHarness removes the harness app for every user (pm uninstall
// without --user); a device without it, for user 0 and for user, is fine.
func UninstallHarness(ctx context.Context, dev *adbclient.Device, user int) (bool, error) {
	missing := true
	for _, u := range []int{0, user} {
		st, err := HarnessStatus(ctx, dev, nil, u)
		if err != nil {
			return false, err
		}
		missing = missing && st.State == AppMissing
	}
	if missing {
		return false, nil
	}
	if err := dev.Uninstall(ctx, HarnessPackage); err != nil {
		return false, fmt.Errorf("cannot uninstall the harness app: %w", err)
	}
	return true, nil
}

// runtimePermission says whether pm grant must grant a permission (a
// "dangerous" one); normal permissions are granted at install.
func runtimePermission(p string) bool {
	switch p {
	case "android.permission.RECORD_AUDIO", "android.permission.WRITE_EXTERNAL_STORAGE", "android.permission.ACCESS_COARSE_LOCATION":
		return true
	}
	return false
}

// CheckPermissions rejects permissions the harness app's manifest does not
// request (harness-apk/AndroidManifest.xml: Android grants nothing else),
// at the purpose's line, since granting them cannot work.
func CheckPermissions(p *purpose.Purpose) error {
	// Read from the manifest the APK is built from, so that the two
	// cannot disagree.
	declared := harnessapk.RequestedPermissions()
	var errs purpose.ErrorList
	for i, perm := range p.Permissions {
		if slices.Contains(declared, perm) {
			continue
		}
		field := fmt.Sprintf("permissions[%d]", i)
		pos := p.Where[field]
		errs = append(errs, &purpose.Error{File: p.File, Line: pos.Line, Col: pos.Col, Field: field,
			Msg: fmt.Sprintf("the harness app does not request %s, so it cannot be granted (it requests: %s)", perm, strings.Join(declared, ", "))})
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}
