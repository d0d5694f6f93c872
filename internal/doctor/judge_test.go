package doctor

import (
	"slices"
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/backend/adb"
	"github.com/droidstar/droidstar/internal/harness"
	"github.com/droidstar/droidstar/internal/purpose"
)

func mustParse(t *testing.T, yaml string) *purpose.Purpose {
	t.Helper()
	p, err := purpose.Parse("p.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

const recognizerYAML = `name: R
class: android.speech.SpeechRecognizer
permissions: [android.permission.RECORD_AUDIO]
target:
  factory: {method: createSpeechRecognizer, args: [{context: true}]}
callins: [startListening]
timeouts: {quiescence: 1s}
backend:
  adb: {}
`

const fetchYAML = `name: F
class: java.net.URL
target:
  new: ["https://a.example/x"]
callins:
  - symbol: other
    call: equals
    args: ["http://b.example/", "not a url", "https://a.example/x"]
timeouts: {quiescence: 50ms}
backend:
  adb: {}
`

// good is a device where everything works.
func good() *Device {
	q := int64(100)
	r := &harness.ProbeResult{
		Files: harness.ProbeFiles{Private: harness.FolderCheck{Read: ok, Create: ok, Append: ok, Truncate: ok, Unlink: ok}},
		Jar:   ok, Proxy: harness.ProbeProxy{Attempt: ok}, QuiescenceMs: &q,
		Audio: harness.ProbeAudio{Available: true, Attempt: ok, Peak: 300},
	}
	return &Device{State: "device", SDK: 30, Probe: r, Host: &Host{
		Features: []string{FeatureMicrophone, FeatureBluetooth}, LocationMode: "3",
		Recognizers: []string{"a/b"}, SpellCheckers: []string{"c/d"},
	}}
}

var ok = harness.Attempt{OK: true}

func TestJudge(t *testing.T) {
	rec := mustParse(t, recognizerYAML)
	fetch := mustParse(t, fetchYAML)
	for _, tc := range []struct {
		name    string
		p       *purpose.Purpose
		change  func(d *Device)
		missing []string
		notes   []string
	}{
		{"ready", rec, func(d *Device) {}, nil, nil},
		{"device problem", rec, func(d *Device) { d.Problem = "device X is offline" }, []string{"device X is offline"}, nil},
		{"no recognizer (features unknown: not judged)", rec, func(d *Device) { d.Host.Recognizers = []string{}; d.Host.Features = nil }, []string{"no speech recognizer installed (no service for android.speech.RecognitionService)"}, nil},
		{"before Android 7 the recognizer is not judged", rec, func(d *Device) { d.Host.Recognizers = nil }, nil, nil},
		{"permission", rec, func(d *Device) {
			d.Probe.Permissions = []harness.PermissionState{{Permission: "android.permission.RECORD_AUDIO"}}
		}, []string{"permission android.permission.RECORD_AUDIO not granted"}, nil},
		{"silence", rec, func(d *Device) { d.Probe.Audio.Peak = 0 }, []string{"the microphone records silence (muted, or Android 12's microphone access is off)"}, nil},
		{"recording fails", rec, func(d *Device) {
			d.Probe.Audio.Attempt = harness.Failed("", "java.lang.IllegalStateException: AudioRecord did not initialise\nmore")
		}, []string{"the microphone does not record (java.lang.IllegalStateException: AudioRecord did not initialise)"}, nil},
		{"no harness", rec, func(d *Device) { d.HarnessError = "device X: the harness ended\nlogcat..."; d.Probe = nil }, []string{"the harness did not answer: device X: the harness ended"}, nil},
		{"urls", fetch, func(d *Device) {
			d.Probe.URLs = []harness.URLCheck{{URL: "https://a.example/x", Attempt: ok, Status: 404}, {URL: "http://b.example/", Attempt: harness.Failed("", "java.net.UnknownHostException: b.example")}}
		}, []string{"cannot reach http://b.example/ (java.net.UnknownHostException: b.example)"}, []string{"quiescence 50 ms is below the 100 ms this device needs for prompt callbacks"}},
	} {
		d := good()
		tc.change(d)
		missing, notes := judge(d, tc.p, nil)
		if !slices.Equal(missing, tc.missing) || !slices.Equal(notes, tc.notes) {
			t.Errorf("%s:\n got %q %q\nwant %q %q", tc.name, missing, notes, tc.missing, tc.notes)
		}
	}
}

func TestURLs(t *testing.T) {
	if got := URLs(mustParse(t, fetchYAML)); strings.Join(got, " ") != "https://a.example/x http://b.example/" {
		t.Errorf("URLs = %q", got)
	}
}

func TestDiscoveryNeedsLocationFromAndroid10(t *testing.T) {
	p := mustParse(t, `name: B
class: android.bluetooth.BluetoothAdapter
target:
  factory: {method: getDefaultAdapter}
callins: [startDiscovery]
timeouts: {quiescence: 3s}
backend:
  adb: {}
`)
	for _, tc := range []struct {
		sdk  int
		mode string
		want int
	}{{28, "0", 0}, {29, "0", 1}, {29, "3", 0}} {
		d := good()
		d.SDK, d.Host.LocationMode = tc.sdk, tc.mode
		if missing, _ := judge(d, p, nil); len(missing) != tc.want {
			t.Errorf("SDK %d location_mode %s: %q", tc.sdk, tc.mode, missing)
		}
	}
}

func TestSettingsText(t *testing.T) {
	for in, want := range map[string]string{
		"0": "off (stay_on_while_plugged_in=0)", "7": "on while plugged in: ac, usb, wireless (stay_on_while_plugged_in=7)",
		"null": "unknown (stay_on_while_plugged_in=null)",
	} {
		if got := stayOn(in); got != want {
			t.Errorf("stayOn(%s) = %q, want %q", in, got, want)
		}
	}
	if got := locationMode("1"); got != "on, sensors only (location_mode=1)" {
		t.Errorf("locationMode(1) = %q", got)
	}
}

// TestLocationOpRow: the doctor row of a location app-op says whose mode
// it is and, where an instrumented process cannot use it, what learn does.
func TestLocationOpRow(t *testing.T) {
	for _, tc := range []struct {
		m    adb.OpMode
		sdk  int
		kept bool
		want string
	}{
		{adb.OpMode{Op: "COARSE_LOCATION", Uid: "foreground"}, 30, false, "COARSE_LOCATION: foreground (uid mode), ignore for the instrumented harness: learn allows it for its runs"},
		{adb.OpMode{Op: "COARSE_LOCATION", Uid: "foreground"}, 30, true, "COARSE_LOCATION: foreground (uid mode), ignore for the instrumented harness: left so"},
		{adb.OpMode{Op: "COARSE_LOCATION", Uid: "foreground"}, 29, false, "COARSE_LOCATION: foreground (uid mode)"},
		{adb.OpMode{Op: "COARSE_LOCATION"}, 30, false, "COARSE_LOCATION: allow (default)"},
		{adb.OpMode{Op: "COARSE_LOCATION", Package: "deny"}, 30, false, "COARSE_LOCATION: deny (package mode), deny for the instrumented harness: learn allows it for its runs"},
	} {
		if got := locationOp(tc.m, tc.sdk, tc.kept); got != tc.want {
			t.Errorf("%+v SDK %d kept %v: %q, want %q", tc.m, tc.sdk, tc.kept, got, tc.want)
		}
	}
}

// TestPairedAddress: a bluetooth_address parameter is judged with the
// value a run would bind (--set, the environment, the default) against
// what the probe found paired.
func TestPairedAddress(t *testing.T) {
	p := mustParse(t, `name: B
class: android.bluetooth.BluetoothAdapter
parameters:
  address: {doc: a paired device, kind: bluetooth_address}
target:
  factory: {method: getDefaultAdapter}
callins:
  - symbol: connect
    call: getRemoteDevice
    args: [{param: address}]
timeouts: {quiescence: 1s}
backend:
  adb: {}
`)
	const addr = "00:11:22:AA:BB:CC"
	env := func(v string) func(string) string {
		return func(name string) string {
			if name == "DROIDSTAR_SET_ADDRESS" {
				return v
			}
			return ""
		}
	}
	paired := &harness.ProbeBluetooth{Available: true, Attempt: ok, Paired: []string{addr}}
	for _, tc := range []struct {
		name           string
		o              Options
		bt             *harness.ProbeBluetooth
		missing, notes []string
	}{
		{"paired", Options{Set: map[string]string{"address": addr}}, paired, nil, nil},
		{"from the environment", Options{Getenv: env(addr)}, paired, nil, nil},
		{"no value", Options{}, nil, []string{"parameter address has no value: give the address of a device paired with the phone with --set address=ADDRESS, or in the environment as DROIDSTAR_SET_ADDRESS"}, nil},
		{"lower case", Options{Set: map[string]string{"address": "00:11:22:aa:bb:cc"}}, paired, []string{`parameter address: "00:11:22:aa:bb:cc" is no Bluetooth address as Android takes one (six pairs of upper-case hex digits separated by colons)`}, nil},
		{"not paired", Options{Getenv: env("00:00:5E:00:53:01")}, paired, []string{"the phone is not paired with 00:00:5E:00:53:01 (parameter address): pair it in the phone's Bluetooth settings, or give the address of a paired device with --set address=ADDRESS"}, nil},
		{"bluetooth off", Options{Set: map[string]string{"address": addr}}, &harness.ProbeBluetooth{Available: true, Attempt: harness.Failed("", "java.lang.IllegalStateException: Bluetooth is off, and Android lists paired devices only while it is on")},
			nil, []string{"cannot tell whether the phone is paired with 00:11:22:AA:BB:CC (parameter address): java.lang.IllegalStateException: Bluetooth is off, and Android lists paired devices only while it is on"}},
		{"no Bluetooth API", Options{Set: map[string]string{"address": addr}}, &harness.ProbeBluetooth{}, nil, []string{"cannot tell whether the phone is paired with 00:11:22:AA:BB:CC (parameter address): the harness has no Bluetooth API here"}},
	} {
		d := good()
		d.Probe.Bluetooth = tc.bt
		missing, notes := judge(d, p, bluetoothAddresses(p, tc.o))
		if !slices.Equal(missing, tc.missing) || !slices.Equal(notes, tc.notes) {
			t.Errorf("%s:\n got %q %q\nwant %q %q", tc.name, missing, notes, tc.missing, tc.notes)
		}
	}
}
