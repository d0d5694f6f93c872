package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	harnessapk "github.com/droidstar/droidstar/harness-apk"
	"github.com/droidstar/droidstar/internal/backend/adb"
	"github.com/droidstar/droidstar/internal/backend/sim"
	"github.com/droidstar/droidstar/internal/fake/adbd"
	"github.com/droidstar/droidstar/internal/fake/adbserver"
	"github.com/droidstar/droidstar/internal/fake/simharness"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/purpose"
)

// runEnv runs the command line in-process with its own environment (no
// ANDROID_SERIAL or ADB_SERVER_SOCKET from the machine running the tests).
func runEnv(t *testing.T, environ map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = mainWith(args, &env{stdout: &out, stderr: &errb, getenv: func(k string) string { return environ[k] }})
	return code, out.String(), errb.String()
}

// fakeDevice is one fake phone to attach.
type fakeDevice struct {
	model, release string
	sdk            int
}

// attach starts fakes on s, each answering with harness h, and returns
// their serials sorted (as droidstar lists them), recording each one's
// properties in props.
func attach(t *testing.T, s *adbserver.Server, props map[string]map[string]string, h func(props map[string]string) adbd.HarnessFunc, devs ...fakeDevice) []string {
	t.Helper()
	var serials []string
	for _, d := range devs {
		p := adbserver.Props(d.model, d.release, d.sdk)
		f := s.AttachT(t, adbd.Config{Props: p, Harness: h(p)})
		serials = append(serials, f.Addr())
		props[f.Addr()] = p
	}
	sort.Strings(serials)
	return serials
}

// jvmHarness bridges a fake device's harness socket to the real Java
// harness on the host JVM.
func jvmHarness(t *testing.T) func(map[string]string) adbd.HarnessFunc {
	t.Helper()
	needJava(t)
	jar := filepath.Join(t.TempDir(), "harness.jar")
	if err := os.WriteFile(jar, harnessapk.JVMJar, 0o644); err != nil {
		t.Fatal(err)
	}
	return func(map[string]string) adbd.HarnessFunc { return adbd.JVMHarness("java", jar) }
}

// simHarness answers from an example's model, on a virtual clock.
func simHarness(t *testing.T, example string) func(map[string]string) adbd.HarnessFunc {
	t.Helper()
	return simHarnessFrom(t, repoPath("examples", example, "purpose.yaml"), "")
}

// simHarnessFrom answers from a sim model for a purpose: the purpose's own
// model, or modelFile.
func simHarnessFrom(t *testing.T, purposeFile, modelFile string) func(map[string]string) adbd.HarnessFunc {
	t.Helper()
	o := simOptionsFrom(t, purposeFile, modelFile)
	return func(props map[string]string) adbd.HarnessFunc { return adbserver.SimHarnessWith(o, props) }
}

// simOptionsFrom are the simulated harness's options answering from a
// sim model for a purpose: the purpose's own model, or modelFile.
func simOptionsFrom(t *testing.T, purposeFile, modelFile string) simharness.Options {
	t.Helper()
	p, err := purpose.Load(purposeFile)
	if err != nil {
		t.Fatal(err)
	}
	file := modelFile
	if file == "" {
		file = filepath.Join(filepath.Dir(p.File), p.Backend.Sim.Model)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	m, err := sim.ParseModel(file, data, p.Backend.Sim.Format)
	if err != nil {
		t.Fatal(err)
	}
	timing := sim.Timing{Quiescence: p.Timeouts.Quiescence, Reset: p.Timeouts.Settle + p.Timeouts.PostReset, Latency: p.Backend.Sim.Latency, DefaultLatency: p.Backend.Sim.DefaultLatency}
	return simharness.Options{Model: m, Timing: timing, CallbackNames: simharness.PurposeCallbackNames(p)}
}

func port(s *adbserver.Server) string { return strconv.Itoa(s.Port()) }

// TestDevicesAndHarnessCommands: droidstar devices lists what the real
// adb server sees, with each fake's model, release, SDK level and harness
// status; droidstar harness installs, checks and removes the app.
func TestDevicesAndHarnessCommands(t *testing.T) {
	s := adbserver.NewT(t)
	props := map[string]map[string]string{}
	serials := attach(t, s, props, simHarness(t, "asynctask"),
		fakeDevice{"Pixel 3a", "9", 28}, fakeDevice{"Pixel 8", "14", 34})
	table := func(harness string) string {
		var b strings.Builder
		b.WriteString("SERIAL           STATE   MODEL            ANDROID  SDK  HARNESS\n")
		for _, sr := range serials {
			name, rel, sdk := "Google Pixel 3a", "9", "28"
			if props[sr]["ro.build.version.sdk"] == "34" {
				name, rel, sdk = "Google Pixel 8", "14", "34"
			}
			fmt.Fprintf(&b, "%-15s  device  %-15s  %-7s  %-3s  %s\n", sr, name, rel, sdk, harness)
		}
		return b.String()
	}
	code, stdout, stderr := runEnv(t, nil, "devices", "-P", port(s))
	if code != ExitOK || stdout != table("missing") || stderr != "" {
		t.Fatalf("devices: exit %d\n%s%s\nwant\n%s", code, stdout, stderr, table("missing"))
	}
	code, stdout, stderr = runEnv(t, nil, "harness", "install", "-P", port(s))
	want := serials[0] + "\tinstalled\n" + serials[1] + "\tinstalled\n"
	if code != ExitOK || stdout != want {
		t.Fatalf("harness install: exit %d\n%s%s\nwant\n%s", code, stdout, stderr, want)
	}
	code, stdout, _ = runEnv(t, nil, "devices", "-P", port(s))
	if code != ExitOK || stdout != table("current") {
		t.Fatalf("devices after install:\n%s\nwant\n%s", stdout, table("current"))
	}
	code, stdout, _ = runEnv(t, map[string]string{"ANDROID_SERIAL": serials[1]}, "harness", "status", "-P", port(s))
	if want := serials[1] + "\tcurrent\n"; code != ExitOK || stdout != want {
		t.Fatalf("harness status with ANDROID_SERIAL: exit %d %q, want %q", code, stdout, want)
	}
	code, stdout, _ = runEnv(t, nil, "harness", "install", "--device", serials[0], "-P", port(s))
	if want := serials[0] + "\talready current\n"; code != ExitOK || stdout != want {
		t.Fatalf("second install: exit %d %q, want %q", code, stdout, want)
	}
	code, stdout, _ = runEnv(t, nil, "harness", "uninstall", "--devices", serials[1], "-P", port(s))
	if want := serials[1] + "\tuninstalled\n"; code != ExitOK || stdout != want {
		t.Fatalf("uninstall: exit %d %q, want %q", code, stdout, want)
	}
	// An installed harness that is not byte for byte this droidstar's
	// (another build, same version name) counts as different and is
	// replaced.
	other := filepath.Join(t.TempDir(), "other.apk")
	if err := os.WriteFile(other, append([]byte("another build "), harnessapk.APK...), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := s.ADB(context.Background(), "-s", serials[0], "push", other, "/data/app/org.droidstar.harness-1/base.apk"); err != nil {
		t.Fatalf("adb push: %v\n%s", err, out)
	}
	for _, step := range []struct{ cmd, want string }{{"status", "different"}, {"install", "installed"}, {"status", "current"}} {
		code, stdout, stderr = runEnv(t, nil, "harness", step.cmd, "--device", serials[0], "-P", port(s))
		if want := serials[0] + "\t" + step.want + "\n"; code != ExitOK || stdout != want {
			t.Fatalf("harness %s after another build: exit %d %q, want %q\n%s", step.cmd, code, stdout, want, stderr)
		}
	}
	code, stdout, _ = runEnv(t, map[string]string{"ADB_SERVER_SOCKET": "tcp:127.0.0.1:" + port(s)}, "devices", "--format", "json")
	if code != ExitOK || !strings.Contains(stdout, `"harness": "missing"`) || !strings.Contains(stdout, `"harness": "current"`) || !strings.Contains(stdout, `"sdk": 34`) {
		t.Fatalf("devices --format json via ADB_SERVER_SOCKET: exit %d\n%s", code, stdout)
	}
}

// timerEdges is java.util.Timer's typestate: schedule works once, on a
// fresh timer and task; after the task ran, or either was cancelled, only
// the cancels are left.
const timerEdges = `s0 --schedule--> s1
s0 --cancel--> s2
s0 --taskcancel--> s2
s1 --cancel--> s2
s1 --taskcancel--> s2
s1 ==run==> s2
s2 --cancel--> s2
s2 --taskcancel--> s2`

// TestLearnThroughRealADB learns java.util.Timer on fake devices attached
// to the real adb server, whose harness sockets lead to the real Java
// harness: first on one device picked among two, then sharing the queries
// among three with --devices all. The model and the device metadata are
// checked exactly.
func TestLearnThroughRealADB(t *testing.T) {
	h := jvmHarness(t)
	s := adbserver.NewT(t)
	props := map[string]map[string]string{}
	serials := attach(t, s, props, h, fakeDevice{"Pixel 3a", "9", 28}, fakeDevice{"Pixel 8", "14", 34})
	file := repoPath("testdata", "purposes", "adb", "timer.yaml")

	code, _, stderr := runEnv(t, nil, "learn", file, "-P", port(s), "-o", t.TempDir())
	wantErr := "droidstar: 2 devices are attached; pick one with --device SERIAL (or ANDROID_SERIAL), or share the queries among them with --devices all:\n"
	for _, sr := range serials {
		wantErr += fmt.Sprintf("  %-24s device       model:%s product:sdk_fake\n", sr, strings.ReplaceAll(props[sr]["ro.product.model"], " ", "_"))
	}
	if code != ExitFail || stderr != wantErr {
		t.Fatalf("no device chosen: exit %d\n%s\nwant\n%s", code, stderr, wantErr)
	}

	learn := func(t *testing.T, args ...string) *model.Document {
		t.Helper()
		out := t.TempDir()
		code, stdout, stderr := runEnv(t, nil, append([]string{"learn", file, "-P", port(s), "-o", out, "--write", "json"}, args...)...)
		if code != ExitOK {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		if got := typestateLines(stdout); got != timerEdges {
			t.Errorf("typestate:\n%s\nwant\n%s", got, timerEdges)
		}
		if !regexp.MustCompile(`\n  3 states`).MatchString(stdout) {
			t.Errorf("summary:\n%s", stdout)
		}
		data, err := os.ReadFile(filepath.Join(out, "Timer.json"))
		if err != nil {
			t.Fatal(err)
		}
		doc, err := model.Unmarshal(data)
		if err != nil {
			t.Fatal(err)
		}
		if doc.Backend.Kind != "adb" {
			t.Errorf("backend kind %q", doc.Backend.Kind)
		}
		if len(doc.Warnings) != 0 {
			t.Errorf("warnings: %v", doc.Warnings)
		}
		return doc
	}
	// A purpose the harness on the device cannot resolve fails at its line
	// before any query runs.
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "timer.yaml")
	text := strings.Replace(string(data), "  - symbol: cancel             # Timer.cancel()\n", "  - symbol: cancel\n    call: cancl\n", 1)
	if err := os.WriteFile(bad, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	code, stdout, stderr := runEnv(t, nil, "learn", bad, "-P", port(s), "--device", serials[0], "-o", out)
	line := strings.Count(text[:strings.Index(text, "call: cancl")], "\n") + 1
	if want := fmt.Sprintf("droidstar: %s:%d:11: callins[1].call: class java.util.Timer has no method that accepts cancl()\n", bad, line); code != ExitFail || stdout != "" || !strings.HasSuffix(stderr, want) {
		t.Errorf("purpose error on a device: exit %d\n%s\nwant %s", code, stderr, want)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("a purpose error wrote %d files", len(entries))
	}

	pixel8 := serials[0]
	if props[serials[1]]["ro.build.version.sdk"] == "34" {
		pixel8 = serials[1]
	}
	doc := learn(t, "--device", pixel8)
	executed := doc.Stats.Total().Executed
	user := 0
	want := []model.DeviceInfo{{Serial: pixel8, Platform: "android", Model: "Google Pixel 8", Release: "14", SDK: 34, User: &user, Queries: executed}}
	if !reflect.DeepEqual(doc.Backend.Devices, want) {
		t.Errorf("devices %+v, want %+v", doc.Backend.Devices, want)
	}

	third := attach(t, s, props, h, fakeDevice{"Pixel 8", "14", 34})
	doc = learn(t, "--devices", "all")
	var got []string
	sum := 0
	for _, d := range doc.Backend.Devices {
		got = append(got, fmt.Sprintf("%s %s %s %d", d.Serial, d.Model, d.Release, d.SDK))
		if d.Platform != "android" || d.Queries == 0 {
			t.Errorf("device %+v: ran no queries", d)
		}
		sum += d.Queries
	}
	sort.Strings(got)
	all := append(append([]string{}, serials...), third...)
	sort.Strings(all)
	var wantAll []string
	for _, sr := range all {
		info := props[sr]
		wantAll = append(wantAll, fmt.Sprintf("%s Google %s %s %s", sr, info["ro.product.model"], info["ro.build.version.release"], info["ro.build.version.sdk"]))
	}
	sort.Strings(wantAll)
	if strings.Join(got, "\n") != strings.Join(wantAll, "\n") {
		t.Errorf("devices:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantAll, "\n"))
	}
	if executed := doc.Stats.Total().Executed; sum != executed {
		t.Errorf("the devices ran %d queries, the run executed %d", sum, executed)
	}

	// The run requests carry each wait's calibrated timeout to the
	// devices' harnesses: the same typestate (learn checks it), every
	// context started at 50 ms, and only the wait after schedule, where
	// the task's callback comes 200 ms later, raised past it.
	doc = learn(t, "--devices", "all", "--timeout", "auto")
	if to := doc.Stats.Timeout; to == nil || to.StartMs != 50 || to.SettledMs < 400 ||
		len(to.Contexts) != 1 || to.Contexts[0].Context != "schedule+1" || to.Contexts[0].TimeoutMs < 400 {
		t.Errorf("--timeout auto on the devices: stats.timeout %+v, want a start of 50 ms and only schedule+1 raised, to 400 ms or more", to)
	}
}

// TestADBErrors: every way reaching a device can fail ends in one message
// that names the problem, exit code 1, and no model written.
func TestADBErrors(t *testing.T) {
	s := adbserver.NewT(t)
	file := repoPath("examples", "asynctask", "purpose.yaml")
	learn := func(t *testing.T, args ...string) (int, string) {
		t.Helper()
		out := t.TempDir()
		code, stdout, stderr := runEnv(t, nil, append([]string{"learn", file, "--backend", "adb", "-P", port(s), "-o", out}, args...)...)
		if stdout != "" {
			t.Errorf("stdout %q", stdout)
		}
		if entries, _ := os.ReadDir(out); len(entries) != 0 {
			t.Errorf("wrote %d files", len(entries))
		}
		return code, stderr
	}

	code, stderr := learn(t)
	if want := "droidstar: no device is attached to the adb server at localhost:" + port(s) + ": connect a phone with USB debugging on, start an emulator, or attach one with adb connect HOST:PORT\n"; code != ExitFail || stderr != want {
		t.Errorf("no device: exit %d\n%s\nwant %s", code, stderr, want)
	}
	// A copied example lists adb first: with no --backend, the error names
	// the purpose's backend that needs no device.
	out := t.TempDir()
	code, stdout, stderr := runEnv(t, nil, "learn", file, "-P", port(s), "-o", out)
	wantHint := "droidstar: no device is attached to the adb server at localhost:" + port(s) + ": connect a phone with USB debugging on, start an emulator, or attach one with adb connect HOST:PORT\n" +
		"the purpose also lists backend sim, which needs no device (it simulates the class from the purpose's model): droidstar learn " + file + " --backend sim\n"
	if code != ExitFail || stdout != "" || stderr != wantHint {
		t.Errorf("no device, default backend: exit %d\n%s\nwant %s", code, stderr, wantHint)
	}

	attachState := func(cfg adbd.Config) string {
		t.Helper()
		if cfg.Props == nil {
			cfg.Props = adbserver.Props("Pixel 8", "14", 34)
		}
		f, err := s.Attach(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		return f.Addr()
	}
	unauthorized := attachState(adbd.Config{State: adbd.Unauthorized})
	code, stderr = learn(t, "--device", unauthorized)
	if want := "droidstar: device " + unauthorized + " is unauthorized: unlock it and accept the \"Allow USB debugging?\" prompt (the computer's RSA key), then run again\n"; code != ExitFail || stderr != want {
		t.Errorf("unauthorized: exit %d\n%s\nwant %s", code, stderr, want)
	}
	offline := attachState(adbd.Config{State: adbd.Offline})
	code, stderr = learn(t, "--device", offline)
	if want := "droidstar: device " + offline + " is offline: reconnect it (adb reconnect, or replug the cable), or restart the adb server (adb kill-server)\n"; code != ExitFail || stderr != want {
		t.Errorf("offline: exit %d\n%s\nwant %s", code, stderr, want)
	}
	code, stderr = learn(t, "--devices", "all")
	if !strings.HasPrefix(stderr, "droidstar: no device attached to the adb server at localhost:"+port(s)+" is ready:\n") || code != ExitFail {
		t.Errorf("--devices all with none ready: exit %d\n%s", code, stderr)
	}
	code, stderr = learn(t, "--device", "emulator-5554")
	attached := []string{fmt.Sprintf("  %-24s %-12s", unauthorized, "unauthorized"), fmt.Sprintf("  %-24s %-12s", offline, "offline")}
	sort.Strings(attached)
	if want := "droidstar: device emulator-5554 is not attached to the adb server at localhost:" + port(s) + "; attached:\n" + strings.Join(attached, "\n") + "\n"; code != ExitFail || stderr != want {
		t.Errorf("unknown serial: exit %d\n%q\nwant %q", code, stderr, want)
	}

	h := simHarness(t, "asynctask")
	props := adbserver.Props("Pixel 8", "14", 34)
	fresh, err := s.Attach(context.Background(), adbd.Config{Props: props, Harness: h(props)})
	if err != nil {
		t.Fatal(err)
	}
	undeclared := repoPath("testdata", "purposes", "adb", "undeclared-permission.yaml")
	code, _, stderr = runEnv(t, nil, "learn", undeclared, "-P", port(s), "--device", fresh.Addr(), "-o", t.TempDir())
	if !strings.HasPrefix(stderr, "droidstar: "+undeclared+":8:5: permissions[1]: the harness app does not request android.permission.CAMERA") || code != ExitFail {
		t.Errorf("undeclared permission: exit %d\n%s", code, stderr)
	}
	if fresh.Installed(adb.HarnessPackage) {
		t.Error("the harness was installed for a purpose that cannot run")
	}
	// --device-dir moves the folder where the shell stages the run's files
	// for the harness to copy.
	code, _, stderr = runEnv(t, nil, "learn", file, "--backend", "adb", "-P", port(s), "--device", fresh.Addr(), "-o", t.TempDir(), "-q",
		"--device-dir", "/sdcard/Android/data/org.droidstar.harness/files")
	if code != ExitOK || !slices.ContainsFunc(fresh.Logcat(), func(l string) bool {
		return strings.Contains(l, "staging /sdcard/Android/data/org.droidstar.harness/files/")
	}) {
		t.Errorf("--device-dir: exit %d\n%s\nlogcat:\n%s", code, stderr, strings.Join(fresh.Logcat(), "\n"))
	}
	code, _, stderr = runEnv(t, nil, "learn", file, "--backend", "adb", "-P", port(s), "--device", fresh.Addr(), "--device-dir", "tmp")
	if want := "droidstar: --device-dir: want an absolute path on the device, such as /data/local/tmp/droidstar, got \"tmp\"\n"; code != ExitUsage || stderr != want {
		t.Errorf("relative --device-dir: exit %d %q", code, stderr)
	}
	failing := attachState(adbd.Config{Props: props, Harness: h(props), InstallFailure: "Failure [INSTALL_FAILED_INSUFFICIENT_STORAGE]"})
	code, stderr = learn(t, "--device", failing)
	want := "droidstar: installing the harness app on " + failing + "\n" +
		"droidstar: cannot install the harness app: device " + failing + ": install droidstar-harness.apk: pm install exited with 1: Failure [INSTALL_FAILED_INSUFFICIENT_STORAGE]\n"
	if code != ExitFail || stderr != want {
		t.Errorf("install failure: exit %d\n%s\nwant %s", code, stderr, want)
	}

	crashing := attachState(adbd.Config{Props: props, Harness: h(props), HarnessNeverListens: true})
	code, stderr = learn(t, "--device", crashing)
	for _, want := range []string{
		"droidstar: device " + crashing + ": the harness ended before it opened its socket\n",
		"am instrument said:\n  INSTRUMENTATION_RESULT: shortMsg=java.lang.RuntimeException\n",
		"logcat (harness and crashes, last ",
		" E droidstar-harness: harness failed: java.lang.IllegalStateException: the harness never opens its socket",
		" E AndroidRuntime: FATAL EXCEPTION: main\n",
	} {
		if !strings.Contains(stderr, want) || code != ExitFail {
			t.Errorf("crashing harness: exit %d, stderr lacks %q:\n%s", code, want, stderr)
		}
	}
	// The device log keeps the first run's crash; the second run shows
	// only its own.
	_, stderr = learn(t, "--device", crashing)
	if n := strings.Count(stderr, "FATAL EXCEPTION"); n != 1 {
		t.Errorf("second run shows %d crashes:\n%s", n, stderr)
	}

	hanging := attachState(adbd.Config{Props: props, Harness: func(ctx context.Context, _ adbd.HarnessRun) (func(context.Context, io.ReadWriteCloser) bool, error) {
		adbd.Log(ctx, 'I', "droidstar-harness", "waiting for a debugger")
		<-ctx.Done()
		return nil, ctx.Err()
	}})
	code, stderr = learn(t, "--device", hanging, "--harness-timeout", "1s")
	for _, want := range []string{
		"droidstar: device " + hanging + ": the harness did not open its socket localabstract:droidstar-",
		" within 1s (last attempt: ",
		"logcat (harness and crashes, last ",
		" I droidstar-harness: waiting for a debugger",
	} {
		if !strings.Contains(stderr, want) || code != ExitFail {
			t.Errorf("harness that never listens: exit %d, stderr lacks %q:\n%s", code, want, stderr)
		}
	}
}

// Without a server to talk to and no adb program to start one, the error
// says how to get either.
func TestNoADBServerNoADBProgram(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	code, stdout, stderr := runEnv(t, nil, "devices", "-P", "1")
	want := "droidstar: no adb server at localhost:1, and no adb program to start one: install it (apt-get install adb) or point droidstar at a running server with -H/-P or ADB_SERVER_SOCKET"
	if code != ExitFail || stdout != "" || !strings.HasPrefix(stderr, want) {
		t.Errorf("exit %d, stdout %q\n%s\nwant %s", code, stdout, stderr, want)
	}
}

// TestMatrixOnDevices: each device is a matrix target, learning in
// parallel; here two fake devices answer from the two CountDownTimer models
// of testdata/matrix, so the newer one differs.
func TestMatrixOnDevices(t *testing.T) {
	s := adbserver.NewT(t)
	dir := repoPath("testdata", "matrix")
	file := filepath.Join(dir, "purpose.yaml")
	props := map[string]map[string]string{}
	old := attach(t, s, props, simHarnessFrom(t, file, filepath.Join(dir, "api23.dot")), fakeDevice{"Nexus 5", "6.0", 23})[0]
	cur := attach(t, s, props, simHarnessFrom(t, file, filepath.Join(dir, "api34.dot")), fakeDevice{"Pixel 8", "14", 34})[0]
	out := t.TempDir()
	code, stdout, stderr := runEnv(t, nil, "matrix", file, "--backend", "adb", "-P", port(s), "-o", out,
		"--devices", "m="+old+",n="+cur)
	want := `target  states  transitions  vs m
m            3            5  baseline
n            3            4  different: cancel
`
	if code != ExitFail || stdout != want {
		t.Fatalf("exit %d\n%s\nwant\n%s\n%s", code, stdout, want, stderr)
	}
	data, err := os.ReadFile(filepath.Join(out, "matrix.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`"device": "` + old + `"`, `"device": "` + cur + `"`} {
		if !strings.Contains(string(data), w) {
			t.Errorf("matrix.json lacks %s", w)
		}
	}
	// --devices all names the targets after their SDK levels.
	code, stdout, _ = runEnv(t, nil, "matrix", file, "--backend", "adb", "-P", port(s), "-o", t.TempDir(), "--devices", "all")
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if code != ExitFail || len(lines) != 3 {
		t.Fatalf("--devices all: exit %d\n%s", code, stdout)
	}
	var names []string
	for _, l := range lines[1:] {
		names = append(names, strings.Fields(l)[0])
	}
	sort.Strings(names)
	if strings.Join(names, " ") != "api23 api34" {
		t.Errorf("--devices all targets %v, want api23 api34", names)
	}
}

// countingConn counts the run requests a harness connection carries and
// calls after once the n-th has been read.
type countingConn struct {
	io.ReadWriteCloser
	n     int
	after func()
	seen  int
	done  bool
}

func (c *countingConn) Read(p []byte) (int, error) {
	k, err := c.ReadWriteCloser.Read(p)
	c.seen += bytes.Count(p[:k], []byte(`"op":"run"`))
	if c.seen >= c.n && !c.done {
		c.done = true
		c.after()
	}
	return k, err
}

// TestDeviceVanishes: a device that goes away in the middle of learning
// stops the run with an error naming it, exit 1, and the last hypothesis
// written as NAME.partial.json.
func TestDeviceVanishes(t *testing.T) {
	s := adbserver.NewT(t)
	props := adbserver.Props("Pixel 8", "14", 34)
	h := simHarness(t, "asynctask")(props)
	var dev *adbd.Device
	vanish := func(ctx context.Context, run adbd.HarnessRun) (func(context.Context, io.ReadWriteCloser) bool, error) {
		serve, err := h(ctx, run)
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, conn io.ReadWriteCloser) bool {
			// The device is unplugged while it runs the 6th run request,
			// a batch of the first equivalence query's. Unplug, not Close:
			// the server retries the address every 10 s, and Close would
			// free the port for another test's fake.
			return serve(ctx, &countingConn{ReadWriteCloser: conn, n: 6, after: dev.Unplug})
		}, nil
	}
	var err error
	dev, err = s.Attach(context.Background(), adbd.Config{Props: props, Harness: vanish})
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	code, _, stderr := runEnv(t, nil, "learn", repoPath("examples", "asynctask", "purpose.yaml"), "-P", port(s), "-o", out)
	if code != ExitFail || !regexp.MustCompile(`: `+regexp.QuoteMeta(dev.Addr())+`: (query|\d+ queries) `).MatchString(stderr) ||
		!regexp.MustCompile(`\nthe device (is gone: device \S+ is offline|does not answer: )`).MatchString(stderr) {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "the last hypothesis (") || !strings.Contains(stderr, filepath.Join(out, "AsyncTask.partial.json")) {
		t.Errorf("no partial model named:\n%s", stderr)
	}
	// The device's stay-on setting could not be put back: the user is
	// told how. (Why it failed depends on whether adb has noticed yet
	// that the device is gone, as above.)
	if want := "droidstar: device " + dev.Addr() + ": put stay_on_while_plugged_in back to 0: "; !strings.Contains(stderr, want) ||
		!strings.Contains(stderr, "; put it back by hand with: adb -s "+dev.Addr()+" shell settings put global stay_on_while_plugged_in 0\n") {
		t.Errorf("no word of the stay-on setting left changed:\n%s", stderr)
	}
	data, err := os.ReadFile(filepath.Join(out, "AsyncTask.partial.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := model.Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.States) == 0 || doc.Backend.Kind != "adb" || len(doc.Backend.Devices) != 1 || doc.Backend.Devices[0].Serial != dev.Addr() {
		t.Errorf("partial model: %d states, backend %+v", len(doc.States), doc.Backend)
	}
}

// TestDevicesThatDisagree: two devices sharing a run must behave alike;
// here one answers from CountDownTimer's older model and one from the
// newer, and the run stops with an error naming both.
func TestDevicesThatDisagree(t *testing.T) {
	s := adbserver.NewT(t)
	dir := repoPath("testdata", "matrix")
	file := filepath.Join(dir, "purpose.yaml")
	props := map[string]map[string]string{}
	attach(t, s, props, simHarnessFrom(t, file, filepath.Join(dir, "api23.dot")), fakeDevice{"Nexus 5", "6.0", 23})
	attach(t, s, props, simHarnessFrom(t, file, filepath.Join(dir, "api34.dot")), fakeDevice{"Pixel 8", "14", 34})
	code, _, stderr := runEnv(t, nil, "learn", file, "--backend", "adb", "--devices", "all", "-P", port(s), "-o", t.TempDir())
	m := regexp.MustCompile(`devices disagree on (.*): (\S+) answered (.*), (\S+) answered (.*) \(all devices must run the same Android build and behave alike\)`).FindStringSubmatch(stderr)
	if code != ExitFail || m == nil {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if m[2] == m[4] || props[m[2]] == nil || props[m[4]] == nil || m[3] == m[5] {
		t.Errorf("the error should name both devices and their two answers: %q", m[0])
	}
}

// A permission the harness app does not request is found by check (and by
// learn before touching a device), at its line.
func TestCheckUndeclaredPermission(t *testing.T) {
	file := repoPath("testdata", "purposes", "adb", "undeclared-permission.yaml")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(data), "\n")
	want := strings.ReplaceAll(strings.TrimPrefix(first, "# want: "), "FILE", file)
	code, stdout, stderr := droidstar(t, "check", file)
	if code != ExitFail || stdout != "" || stderr != want+"\ndroidstar: 1 of 1 purpose files have errors\n" {
		t.Errorf("check: exit %d\n%s\nwant %s", code, stderr, want)
	}
}

// TestPushesPurposeFiles: the purpose's files and jars reach the harness's
// files folder on the device, where the app may read and write them.
func TestPushesPurposeFiles(t *testing.T) {
	s := adbserver.NewT(t)
	dir := t.TempDir()
	src, err := os.ReadFile(repoPath("examples", "asynctask", "purpose.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	model, err := os.ReadFile(repoPath("examples", "asynctask", "model.dot"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"purpose.yaml":   "files: [media/tone.wav]\njars: [lib/extra.jar]\n" + string(src),
		"model.dot":      string(model),
		"media/tone.wav": "RIFF....WAVE",
		"lib/extra.jar":  "PK\x03\x04 not really a jar",
	}
	for name, data := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(dir, "purpose.yaml")
	props := adbserver.Props("Pixel 8", "14", 34)
	h := simHarnessFrom(t, file, "")(props)
	seen := map[string]string{}
	var modes []os.FileMode
	snapshot := func(ctx context.Context, run adbd.HarnessRun) (func(context.Context, io.ReadWriteCloser) bool, error) {
		// What the app finds when it starts: the run's folder as pushed.
		filesDir := run.Staging
		filepath.WalkDir(filesDir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(filesDir, p)
			seen[filepath.ToSlash(rel)] = string(data)
			info, _ := d.Info()
			modes = append(modes, info.Mode().Perm())
			return nil
		})
		return h(ctx, run)
	}
	dev, err := s.Attach(context.Background(), adbd.Config{Props: props, Harness: snapshot})
	if err != nil {
		t.Fatal(err)
	}
	// A run cut short left its staging folder: the next run removes it.
	stale := filepath.Join(dev.Root(), "data", "local", "tmp", "droidstar", "0123456789ab", "jars")
	if err := os.MkdirAll(stale, 0o755); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runEnv(t, nil, "learn", file, "--backend", "adb", "-P", port(s), "-o", t.TempDir(), "-q")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	want := map[string]string{"tone.wav": files["media/tone.wav"], "jars/extra.jar": files["lib/extra.jar"]}
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("the harness found %v, want %v", seen, want)
	}
	for _, m := range modes {
		if m&0o004 == 0 {
			t.Errorf("a pushed file has mode %v: the app, another uid, could not read it", m)
		}
	}
	// The run's folder is gone afterwards.
	if entries, _ := os.ReadDir(filepath.Join(dev.Root(), "data", "local", "tmp", "droidstar")); len(entries) != 0 {
		t.Errorf("left %d run folders on the device", len(entries))
	}
}

// TestFilesFollowAndroidRules learns a purpose that writes, appends to,
// deletes and renames files through the real adb server and the real JVM
// harness, held to the fake device's Android file rules (enforced by the
// fake, so that they hold for root too): the harness that works in the
// staging folder under /data/local/tmp, as droidstar's did, gets every
// reset refused; the one that copies staging into its own files folder
// learns the class.
func TestFilesFollowAndroidRules(t *testing.T) {
	needJava(t)
	jar := filepath.Join(t.TempDir(), "harness.jar")
	if err := os.WriteFile(jar, harnessapk.JVMJar, 0o644); err != nil {
		t.Fatal(err)
	}
	s := adbserver.NewT(t)
	props := adbserver.Props("Pixel 8", "14", 34)
	old, err := s.Attach(context.Background(), adbd.Config{Props: props, Harness: adbd.JVMHarnessInStaging("java", jar)})
	if err != nil {
		t.Fatal(err)
	}
	current, err := s.Attach(context.Background(), adbd.Config{Props: props, Harness: adbd.JVMHarness("java", jar)})
	if err != nil {
		t.Fatal(err)
	}
	file := repoPath("testdata", "purposes", "adb", "files.yaml")
	learn := func(serial string) (int, string, string, *model.Document) {
		out := t.TempDir()
		code, stdout, stderr := runEnv(t, nil, "learn", file, "-P", port(s), "--device", serial, "-o", out, "--write", "json")
		data, _ := os.ReadFile(filepath.Join(out, "Notes.json"))
		doc, _ := model.Unmarshal(data)
		return code, stdout, stderr, doc
	}

	code, stdout, stderr, doc := learn(old.Addr())
	denied := regexp.MustCompile(`droidstar: ` + regexp.QuoteMeta(old.Addr()) + `: query create create create create create create: the reset failed \(making or wiring a fresh instance\): ` +
		`java.lang.SecurityException: /data/local/tmp/droidstar/[0-9a-f]{12}/notes: EACCES \(Permission denied\): ` +
		`/data/local/tmp/droidstar/[0-9a-f]{12} is rwxr-xr-x, which does not give write \(o\+w\) on the folder \(which create needs\) to the app's uid \(not the shell's 2000, nor in its group\)\n$`)
	if code != ExitFail || stdout != "" || !denied.MatchString(stderr) || doc != nil {
		t.Errorf("the harness in /data/local/tmp: exit %d\n%s%s", code, stdout, stderr)
	}
	// The folder's mode refuses the create before SELinux is asked, as the
	// kernel's may_create does: no avc denial is logged.
	if slices.ContainsFunc(old.Logcat(), func(l string) bool { return strings.Contains(l, "avc: denied") }) {
		t.Errorf("logcat shows an avc denial for a create the folder's mode refuses:\n%s", strings.Join(old.Logcat(), "\n"))
	}

	code, stdout, stderr, doc = learn(current.Addr())
	const want = "s0 --create--> s0\ns0 --remove--> s0\ns0 --rename--> s0\ns0 --log--> s0"
	if code != ExitOK || typestateLines(stdout) != want || doc == nil {
		t.Fatalf("the harness in its own folder: exit %d\n%s%s", code, stdout, stderr)
	}
	// Nothing is left behind: the host removed the staging folder, the
	// harness its own after bye.
	for _, dir := range []string{"data/local/tmp/droidstar", "data/user/0/org.droidstar.harness/files/droidstar",
		"data/user/0/org.droidstar.harness/code_cache/droidstar"} {
		if entries, err := os.ReadDir(filepath.Join(current.Root(), dir)); err != nil || len(entries) != 0 {
			t.Errorf("%s after the run: %v %v", dir, entries, err)
		}
	}
}

// TestStagingWithAStrictShellUmask: whatever the adb shell's umask, the
// folders droidstar makes under /data/local/tmp are opened to the app,
// which runs under another uid: with umask 077 the device folder mkdir
// makes would be rwx------ and the harness could not reach its staged
// files.
func TestStagingWithAStrictShellUmask(t *testing.T) {
	needJava(t)
	jar := filepath.Join(t.TempDir(), "harness.jar")
	if err := os.WriteFile(jar, harnessapk.JVMJar, 0o644); err != nil {
		t.Fatal(err)
	}
	s := adbserver.NewT(t)
	d, err := s.Attach(context.Background(), adbd.Config{Props: adbserver.Props("Pixel 8", "14", 34), ShellUmask: 0o077, Harness: adbd.JVMHarness("java", jar)})
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runEnv(t, nil, "learn", repoPath("testdata", "purposes", "adb", "files.yaml"), "-P", port(s), "--device", d.Addr(), "-o", t.TempDir())
	const want = "s0 --create--> s0\ns0 --remove--> s0\ns0 --rename--> s0\ns0 --log--> s0"
	if code != ExitOK || typestateLines(stdout) != want {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestCallbackLiteralThroughRealADB learns examples/jvm/rejectedtask.yaml,
// whose retry takes the task a callback handed out ({callback:
// [rejectedExecution, 0]}), on a fake device attached to the real adb
// server whose harness socket leads to the real Java harness: the same
// typestate and no-callback errs as on the jvm backend.
func TestCallbackLiteralThroughRealADB(t *testing.T) {
	h := jvmHarness(t)
	s := adbserver.NewT(t)
	attach(t, s, map[string]map[string]string{}, h, fakeDevice{"Pixel 8", "14", 34})
	data, err := os.ReadFile(repoPath("examples", "jvm", "rejectedtask.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	const jvmBackend = "backend:\n  jvm: {}\n"
	if !strings.HasSuffix(string(data), jvmBackend) {
		t.Fatalf("rejectedtask.yaml no longer ends in\n%s", jvmBackend)
	}
	file := filepath.Join(t.TempDir(), "rejectedtask.yaml")
	if err := os.WriteFile(file, []byte(strings.TrimSuffix(string(data), jvmBackend)+"backend:\n  adb: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	code, stdout, stderr := runEnv(t, nil, "learn", file, "-P", port(s), "-o", out, "--write", "json")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if got := typestateLines(stdout); got != rejectedTaskEdges {
		t.Errorf("typestate:\n%s\nwant\n%s", got, rejectedTaskEdges)
	}
	data, err = os.ReadFile(filepath.Join(out, "RejectedTask.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := model.Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	var errs []string
	for _, tr := range doc.Transitions {
		if tr.Err != nil && tr.Err.Kind == model.ErrNoCallback {
			errs = append(errs, tr.From+" "+tr.Input+": "+tr.Err.Detail)
		}
	}
	if got := strings.Join(errs, "\n"); doc.Backend.Kind != "adb" || got != noCallbackErrs["rejectedtask"] {
		t.Errorf("backend %q, no-callback errs:\n%s\nwant\n%s", doc.Backend.Kind, got, noCallbackErrs["rejectedtask"])
	}
	if len(doc.Warnings) != 0 {
		t.Errorf("warnings: %v", doc.Warnings)
	}
}
