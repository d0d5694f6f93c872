package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	harnessapk "github.com/droidstar/droidstar/harness-apk"
	"github.com/droidstar/droidstar/internal/doctor"
	"github.com/droidstar/droidstar/internal/fake/adbd"
	"github.com/droidstar/droidstar/internal/fake/adbserver"
	"github.com/droidstar/droidstar/internal/golden"
)

// doctorPurposeFiles are the purposes the doctor tests judge: a
// recognizer that needs a microphone, Bluetooth discovery, files in the
// harness's folder, and a plain JVM class.
var doctorPurposeFiles = []string{
	repoPath("examples", "speechrecognizer", "purpose.yaml"),
	repoPath("examples", "bluetoothadapter", "purpose.yaml"),
	repoPath("examples", "bluetoothadapter", "discovery.yaml"),
	repoPath("testdata", "purposes", "adb", "files.yaml"),
	repoPath("testdata", "purposes", "adb", "timer.yaml"),
}

// TestDoctorThroughRealADB: droidstar doctor --devices all against four
// fakes on the real adb server, each running the real JVM harness held to
// the fake's Android file rules: a good device; an enforcing one whose
// harness works in the staging folder (the old layout); one without a
// microphone; one without a speech recognizer or spell checker and with
// location off. Each device's table is a golden file (the serial and the
// measured times replaced); the exit code is 1, since purposes cannot run
// on three of them.
func TestDoctorThroughRealADB(t *testing.T) {
	needJava(t)
	jar := filepath.Join(t.TempDir(), "harness.jar")
	if err := os.WriteFile(jar, harnessapk.JVMJar, 0o644); err != nil {
		t.Fatal(err)
	}
	noMic := slices.DeleteFunc(slices.Clone(adbd.DefaultFeatures), func(f string) bool { return f == doctor.FeatureMicrophone })
	fakes := []struct {
		name string
		cfg  adbd.Config
	}{
		{"good", adbd.Config{Props: adbserver.Props("Pixel 8", "14", 34), Harness: adbd.JVMHarness("java", jar)}},
		{"old-folder", adbd.Config{Props: adbserver.Props("Pixel 5", "11", 30), Harness: adbd.JVMHarnessInStaging("java", jar)}},
		{"no-microphone", adbd.Config{Props: adbserver.Props("Tablet", "12", 31), Features: noMic, CurrentUser: 10,
			GlobalSettings: map[string]string{"stay_on_while_plugged_in": "2"}, Harness: adbd.JVMHarness("java", jar)}},
		{"no-recognizer", adbd.Config{Props: adbserver.Props("Go", "10", 29), Services: map[string][]string{},
			SecureSettings: map[string]string{"location_mode": "0"}, SELinux: "Permissive", Harness: adbd.JVMHarness("java", jar)}},
	}
	s := adbserver.NewT(t)
	names := map[string]string{}
	for _, f := range fakes {
		d, err := s.Attach(context.Background(), f.cfg)
		if err != nil {
			t.Fatal(err)
		}
		names[d.Addr()] = f.name
	}
	// The address is of the documentation range (RFC 7042): the JVM
	// harness has no Bluetooth API, so doctor notes it cannot tell.
	args := append([]string{"doctor", "--devices", "all", "-P", port(s), "--samples", "5", "--set", "address=00:00:5E:00:53:01"}, doctorPurposeFiles...)
	code, stdout, stderr := runEnv(t, nil, args...)
	if code != ExitFail {
		t.Errorf("exit %d, want %d\n%s", code, ExitFail, stderr)
	}
	blocks := splitDevices(stdout)
	if len(blocks) != len(fakes) {
		t.Fatalf("%d device tables, want %d:\n%s", len(blocks), len(fakes), stdout)
	}
	var bad []string
	for serial, block := range blocks {
		name := names[serial]
		if name == "" {
			t.Fatalf("a table for %s, which is none of the fakes:\n%s", serial, stdout)
		}
		if name != "good" {
			bad = append(bad, serial)
		}
		golden.Check(t, "doctor", name+".txt", []byte(normalizeDoctor(block, serial)), "./internal/cli")
	}
	slices.Sort(bad)
	if want := "droidstar: doctor: not every purpose can run on " + strings.Join(bad, ", ") + "\n"; stderr != want {
		t.Errorf("stderr:\n%s\nwant\n%s", stderr, want)
	}

	// The same as JSON, for scripts: the good device's purposes are all
	// ready, and the old folder's private folder refuses create and unlink.
	code, stdout, _ = runEnv(t, map[string]string{"DROIDSTAR_SET_ADDRESS": "00:00:5E:00:53:01"}, append([]string{"doctor", "--devices", "all", "-P", port(s), "--samples", "2", "--audio-ms", "0", "--format", "json"}, doctorPurposeFiles...)...)
	var r doctor.Report
	if err := json.Unmarshal([]byte(stdout), &r); err != nil || code != ExitFail || len(r.Devices) != 4 {
		t.Fatalf("--format json: exit %d, %v:\n%s", code, err, stdout)
	}
	for _, d := range r.Devices {
		switch names[d.Serial] {
		case "good":
			if !d.Ready() || d.Probe == nil || d.Host.SELinux != "Enforcing" {
				t.Errorf("good device in JSON: %+v", d)
			}
		case "old-folder":
			f := d.Probe.Files.Private
			if d.Probe.Files.Staging != nil || f.Create.Errno != "EACCES" || f.Unlink.Errno != "EACCES" || !f.Read.OK {
				t.Errorf("old folder in JSON: %+v", d.Probe.Files)
			}
		}
	}
}

// TestDoctorUsage: what doctor refuses before it touches a device, and a
// device where every purpose is ready exits 0.
func TestDoctorUsage(t *testing.T) {
	s := adbserver.NewT(t)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--format", "xml"}, ExitUsage, "droidstar: --format: want text or json, got \"xml\"\n"},
		{[]string{"--samples", "0"}, ExitUsage, "droidstar: --samples: want 1 to 1000, got 0\n"},
		{[]string{repoPath("examples", "jvm", "timer.yaml")}, ExitFail, "droidstar: " + repoPath("examples", "jvm", "timer.yaml") + ": doctor checks purposes that run on a device: backend \"adb\" is not configured by the purpose (it configures: jvm)\n"},
	} {
		code, stdout, stderr := runEnv(t, nil, append([]string{"doctor", "-P", port(s)}, tc.args...)...)
		if code != tc.code || stdout != "" || stderr != tc.want {
			t.Errorf("doctor %v: exit %d\n%s%s\nwant exit %d\n%s", tc.args, code, stdout, stderr, tc.code, tc.want)
		}
	}

	h := simHarness(t, "asynctask")
	p := adbserver.Props("Pixel 8", "14", 34)
	d, err := s.Attach(context.Background(), adbd.Config{Props: p, Harness: h(p)})
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runEnv(t, map[string]string{"ANDROID_SERIAL": d.Addr()}, "doctor", "-P", port(s), "--samples", "1", repoPath("testdata", "purposes", "adb", "timer.yaml"))
	if code != ExitOK || !strings.Contains(stdout, "timer.yaml  ready\n") || !strings.Contains(stdout, "harness            harness 0.2.0 on android\n") {
		t.Errorf("a ready device: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestDoctorChecksThePairedDevice: the bluetoothadapter example's address
// parameter is checked against the devices the phone is paired with, as
// the harness finds them (the simulated device's PairedBluetooth), through
// the real adb server; a --set name no purpose declares is refused.
func TestDoctorChecksThePairedDevice(t *testing.T) {
	s := adbserver.NewT(t)
	o := simOptionsFrom(t, repoPath("examples", "asynctask", "purpose.yaml"), "")
	o.PairedBluetooth = []string{"00:11:22:AA:BB:CC"}
	p := adbserver.Props("Pixel 8", "14", 34)
	d, err := s.Attach(context.Background(), adbd.Config{Props: p, Harness: adbserver.SimHarnessWith(o, p)})
	if err != nil {
		t.Fatal(err)
	}
	purposeFile := repoPath("examples", "bluetoothadapter", "purpose.yaml")
	doctorOn := func(args ...string) (int, string, string) {
		return runEnv(t, map[string]string{"ANDROID_SERIAL": d.Addr()}, append([]string{"doctor", "-P", port(s), "--samples", "1", "--audio-ms", "0", purposeFile}, args...)...)
	}
	code, stdout, stderr := doctorOn("--set", "address=00:11:22:AA:BB:CC")
	if code != ExitOK || !strings.Contains(stdout, "  bluetooth paired   00:11:22:AA:BB:CC\n") || !strings.Contains(stdout, "purpose.yaml  ready\n") {
		t.Errorf("a paired address: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = doctorOn("--set", "address=00:00:5E:00:53:01")
	want := "purpose.yaml  missing: the phone is not paired with 00:00:5E:00:53:01 (parameter address): pair it in the phone's Bluetooth settings, or give the address of a paired device with --set address=ADDRESS\n"
	if code != ExitFail || !strings.Contains(stdout, "  bluetooth paired   none of the addresses asked about\n") || !strings.HasSuffix(stdout, want) {
		t.Errorf("an address the phone is not paired with: exit %d\n%s%s\nwant the line\n%s", code, stdout, stderr, want)
	}
	code, stdout, stderr = doctorOn("--set", "adress=00:11:22:AA:BB:CC")
	if want := "droidstar: --set adress: none of the purposes given declares a parameter adress (they declare: address)\n"; code != ExitUsage || stdout != "" || stderr != want {
		t.Errorf("a misspelt --set: exit %d\n%s%s\nwant\n%s", code, stdout, stderr, want)
	}
}

// splitDevices cuts doctor's text output into each device's block, by
// serial.
func splitDevices(out string) map[string]string {
	blocks := map[string]string{}
	var serial string
	var b strings.Builder
	flush := func() {
		if serial != "" {
			blocks[serial] = strings.TrimRight(b.String(), "\n") + "\n"
		}
		b.Reset()
	}
	for _, line := range strings.SplitAfter(out, "\n") {
		if rest, ok := strings.CutPrefix(line, "device "); ok {
			flush()
			serial, _, _ = strings.Cut(strings.TrimSpace(rest), " ")
		}
		b.WriteString(line)
	}
	flush()
	return blocks
}

var (
	doctorLatency    = regexp.MustCompile(`late by p50 [0-9.]+, p90 [0-9.]+, p99 [0-9.]+, max [0-9.]+ ms`)
	doctorQuiescence = regexp.MustCompile(`\b[0-9]+ ms (suggested|this device needs)`)
)

// normalizeDoctor replaces what changes from run to run: the serial, and
// the measured latencies and the quiescence derived from them.
func normalizeDoctor(block, serial string) string {
	block = strings.ReplaceAll(block, serial, "SERIAL")
	block = doctorLatency.ReplaceAllString(block, "late by p50 T, p90 T, p99 T, max T ms")
	return doctorQuiescence.ReplaceAllString(block, "Q ms $1")
}
