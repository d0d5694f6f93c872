// Package doctor checks what a device lets droidstar do before a learning
// run depends on it: what the adb shell says about the device (its state,
// Android version, current user, SELinux mode, stay-on and location
// settings, speech recognizer, spell checker, Bluetooth and microphone),
// and what the harness finds when it tries (the probe op of
// harness-apk/PROTOCOL.md: files in its folders, loading a jar, a
// framework calling a proxy, callback latencies, the microphone's level,
// the purposes' URLs). From both it says, for each purpose, "ready" or
// exactly what is missing.
package doctor

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/droidstar/droidstar/internal/adbclient"
	"github.com/droidstar/droidstar/internal/backend/adb"
	"github.com/droidstar/droidstar/internal/harness"
	"github.com/droidstar/droidstar/internal/purpose"
)

// Options configure the checks.
type Options struct {
	// Harness starts the harness on each device (APK, Host, Dir,
	// SocketTimeout, Log).
	Harness adb.Options
	// Samples is how many callbacks of each source the probe times
	// (default 20); AudioMs how long it records (default 500, negative
	// for none).
	Samples, AudioMs int
	// Set and Getenv give the purposes' parameters their values as learn
	// does (purpose.ParamValues): the Bluetooth addresses among them are
	// checked against the devices' paired ones.
	Set    map[string]string
	Getenv func(string) string
}

// The intent actions of the services the recognizer and spell checker
// checks look for (RecognitionService.SERVICE_INTERFACE,
// SpellCheckerService.SERVICE_INTERFACE).
const (
	recognitionService  = "android.speech.RecognitionService"
	spellCheckerService = "android.service.textservice.SpellCheckerService"
)

// Features doctor reads from pm list features.
const (
	FeatureMicrophone = "android.hardware.microphone"
	FeatureBluetooth  = "android.hardware.bluetooth"
)

// Report is what doctor found on every device.
type Report struct {
	Devices []*Device `json:"devices"`
}

// Ready says whether every purpose can run on every device.
func (r *Report) Ready() bool {
	for _, d := range r.Devices {
		if !d.Ready() {
			return false
		}
	}
	return true
}

// Device is what doctor found on one device.
type Device struct {
	Serial string `json:"serial"`
	// State is adb's word for it ("device" when ready).
	State   string `json:"state"`
	Model   string `json:"model,omitempty"`
	Release string `json:"release,omitempty"`
	SDK     int    `json:"sdk,omitempty"`
	// Problem says why the device could not be checked (not ready, gone).
	Problem string `json:"problem,omitempty"`
	Host    *Host  `json:"host,omitempty"`
	// Harness is what the harness said in hello; HarnessError why it did
	// not start or answer the probe.
	Harness      *harness.Hello       `json:"harness,omitempty"`
	HarnessError string               `json:"harness_error,omitempty"`
	Probe        *harness.ProbeResult `json:"probe,omitempty"`
	// LocationOps are the harness's location app-ops (of the location
	// permissions the purposes declare) as the device has them for the
	// user the harness runs as, read with appops get once the probe's
	// harness is gone and its grants are made; LocationOpsError why they
	// could not be read. From Android 10.
	LocationOps      []adb.OpMode `json:"location_ops,omitempty"`
	LocationOpsError string       `json:"location_ops_error,omitempty"`
	// LocationOpsKept says learning leaves them as they are
	// (adb.Options.KeepLocationOps) instead of allowing them.
	LocationOpsKept bool            `json:"location_ops_kept,omitempty"`
	Purposes        []PurposeStatus `json:"purposes"`
}

// Ready says whether every purpose can run on the device.
func (d *Device) Ready() bool {
	if d.Problem != "" {
		return false
	}
	for _, p := range d.Purposes {
		if !p.Ready {
			return false
		}
	}
	return true
}

// Host is what the adb shell says about the device. A check whose
// command failed has its error in Errors under the check's name and its
// field left at the zero value.
type Host struct {
	// User is the current (foreground) user: am get-current-user from
	// Android 7, 0 before.
	User int `json:"user"`
	// SELinux is getenforce's answer: Enforcing, Permissive or Disabled.
	SELinux string `json:"selinux"`
	// StayOn is global stay_on_while_plugged_in (BatteryManager's
	// BATTERY_PLUGGED_* bits), "null" when unset.
	StayOn string `json:"stay_on"`
	// LocationMode is secure location_mode (0 off to 3 high accuracy),
	// "null" when unset.
	LocationMode string `json:"location_mode"`
	// Features are the system features (pm list features).
	Features []string `json:"features"`
	// Recognizers and SpellCheckers are the services installed for
	// SpeechRecognizer and SpellCheckerSession (pm query-services, from
	// Android 7; nil before, where doctor cannot tell).
	Recognizers   []string          `json:"recognizers"`
	SpellCheckers []string          `json:"spell_checkers"`
	Errors        map[string]string `json:"errors,omitempty"`
}

// Has says whether the device declares a system feature.
func (h *Host) Has(feature string) bool { return slices.Contains(h.Features, feature) }

// PurposeStatus is one purpose on one device: ready, or what is missing.
type PurposeStatus struct {
	File    string   `json:"file"`
	Name    string   `json:"name"`
	Ready   bool     `json:"ready"`
	Missing []string `json:"missing,omitempty"`
	// Notes do not keep the purpose from running but may change what it
	// learns (a quiescence timeout shorter than this device needs).
	Notes []string `json:"notes,omitempty"`
}

// Check examines every device in parallel and judges every purpose on
// each. A device that cannot be checked (not ready, gone) is reported,
// not returned as an error; err is only for a cancelled ctx.
func Check(ctx context.Context, client *adbclient.Client, devices []adbclient.DeviceInfo, purposes []*purpose.Purpose, o Options) (*Report, error) {
	r := &Report{Devices: make([]*Device, len(devices))}
	var wg sync.WaitGroup
	for i, info := range devices {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.Devices[i] = checkDevice(ctx, client, info, purposes, o)
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return r, nil
}

func checkDevice(ctx context.Context, client *adbclient.Client, info adbclient.DeviceInfo, purposes []*purpose.Purpose, o Options) *Device {
	d := &Device{Serial: info.Serial, State: info.State}
	if err := adb.Ready(info); err != nil {
		d.Problem = err.Error()
		d.Purposes = judgeAll(d, purposes, o)
		return d
	}
	dev := client.Device(info.Serial)
	props, err := dev.Properties(ctx)
	if err != nil {
		d.Problem = err.Error()
		d.Purposes = judgeAll(d, purposes, o)
		return d
	}
	di := adb.Describe(info.Serial, props)
	d.Model, d.Release, d.SDK = di.Model, di.Release, di.SDK
	d.Host = hostChecks(ctx, dev, d.SDK)
	d.probe(ctx, dev, purposes, o)
	d.Purposes = judgeAll(d, purposes, o)
	return d
}

// hostChecks asks the adb shell what it can tell without the harness.
func hostChecks(ctx context.Context, dev *adbclient.Device, sdk int) *Host {
	h := &Host{Errors: map[string]string{}}
	run := func(check, cmd string) (string, bool) {
		r, err := dev.Shell(ctx, cmd)
		if err == nil && r.Exit != 0 {
			err = fmt.Errorf("exit status %d: %s", r.Exit, strings.TrimSpace(r.Stderr+" "+r.Stdout))
		}
		if err != nil {
			h.Errors[check] = fmt.Sprintf("%s: %v", cmd, err)
			return "", false
		}
		return strings.TrimSpace(r.Stdout), true
	}
	// am knows get-current-user from Android 7; before, only user 0 runs
	// apps from the shell's point of view.
	if sdk >= 24 {
		if out, ok := run("user", "am get-current-user"); ok {
			n, err := strconv.Atoi(out)
			if err != nil {
				h.Errors["user"] = fmt.Sprintf("am get-current-user answered %q", out)
			}
			h.User = n
		}
	}
	h.SELinux, _ = run("selinux", "getenforce")
	h.StayOn, _ = run("stay_on", "settings get global stay_on_while_plugged_in")
	h.LocationMode, _ = run("location", "settings get secure location_mode")
	if out, ok := run("features", "pm list features"); ok {
		h.Features = []string{}
		for _, line := range strings.Split(out, "\n") {
			if f, ok := strings.CutPrefix(strings.TrimSpace(line), "feature:"); ok && !strings.Contains(f, "=") {
				h.Features = append(h.Features, f)
			}
		}
	}
	// pm query-services came with the package manager's shell command in
	// Android 7.
	if sdk >= 24 {
		h.Recognizers = services(run, "recognizer", recognitionService)
		h.SpellCheckers = services(run, "spell_checker", spellCheckerService)
	}
	if len(h.Errors) == 0 {
		h.Errors = nil
	}
	return h
}

func services(run func(check, cmd string) (string, bool), check, action string) []string {
	out, ok := run(check, "cmd package query-services --components -a "+action)
	if !ok {
		return nil
	}
	found := []string{}
	for _, line := range strings.Split(out, "\n") {
		if line = strings.TrimSpace(line); strings.Contains(line, "/") && !strings.Contains(line, " ") {
			found = append(found, line)
		}
	}
	return found
}

// probe starts the harness with the probe file staged and asks it what
// the device allows, for the purposes' URLs and permissions.
func (d *Device) probe(ctx context.Context, dev *adbclient.Device, purposes []*purpose.Purpose, o Options) {
	files := []harness.StagedFile{{Name: harness.ProbeFile, Data: []byte("droidstar doctor\n")}}
	var perms []string
	for _, p := range purposes {
		for _, perm := range p.Permissions {
			if !slices.Contains(perms, perm) {
				perms = append(perms, perm)
			}
		}
	}
	// Granted as learn grants them, so that the harness's answer about
	// them is what a learning run would meet.
	e, err := adb.StartHarness(ctx, dev, o.Harness, perms, files)
	if err != nil {
		d.HarnessError = err.Error()
		return
	}
	user := 0
	if u := e.Describe().User; u != nil {
		user = *u
	}
	// Read once the harness is closed: a run that allows the ops puts
	// them back then, and the grants above have set them as learn's own
	// grants will.
	defer func() {
		e.Close()
		d.readLocationOps(ctx, dev, user, perms, o.Harness.KeepLocationOps)
	}()
	h := e.Hello()
	d.Harness = &h
	req := harness.ProbeRequest{File: harness.ProbeFile, Samples: o.Samples, AudioMs: o.AudioMs}
	if req.Samples <= 0 {
		req.Samples = 20
	}
	if req.AudioMs == 0 {
		req.AudioMs = 500
	}
	if req.AudioMs < 0 {
		req.AudioMs = 0
	}
	for _, p := range purposes {
		for _, u := range URLs(p) {
			if !slices.Contains(req.URLs, u) {
				req.URLs = append(req.URLs, u)
			}
		}
	}
	req.Permissions = perms
	for _, p := range purposes {
		for _, a := range bluetoothAddresses(p, o) {
			if a.problem == "" && !slices.Contains(req.BluetoothPaired, a.value) {
				req.BluetoothPaired = append(req.BluetoothPaired, a.value)
			}
		}
	}
	r, err := e.Probe(ctx, req)
	if err != nil {
		d.HarnessError = err.Error()
		return
	}
	d.Probe = &r
}

// readLocationOps reads the harness's location app-ops from Android 10,
// where a granted location permission leaves them in foreground mode
// (internal/backend/adb/location.go says why that matters).
func (d *Device) readLocationOps(ctx context.Context, dev *adbclient.Device, user int, perms []string, kept bool) {
	if d.SDK < 29 {
		return
	}
	d.LocationOpsKept = kept
	for _, perm := range perms {
		op, ok := adb.LocationOps[perm]
		if !ok {
			continue
		}
		m, err := adb.ReadOpMode(ctx, dev, user, op)
		if err != nil {
			d.LocationOpsError = err.Error()
			return
		}
		d.LocationOps = append(d.LocationOps, m)
	}
}
