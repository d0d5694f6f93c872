package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	harnessapk "github.com/droidstar/droidstar/harness-apk"
	"github.com/droidstar/droidstar/internal/adbclient"
	"github.com/droidstar/droidstar/internal/backend/sim"
	"github.com/droidstar/droidstar/internal/fake/adbd"
	"github.com/droidstar/droidstar/internal/fake/adbserver"
	"github.com/droidstar/droidstar/internal/fake/simharness"
	"github.com/droidstar/droidstar/internal/harness"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/purpose"
)

const (
	recordAudio = "android.permission.RECORD_AUDIO"
	stayOn      = "stay_on_while_plugged_in"
	// recorderEdges is recorder.dot's typestate; without RECORD_AUDIO
	// setAudioSource throws and nothing is left of it.
	recorderEdges = "s0 --source--> s1\ns1 --format--> s3"
)

// recorderHarness answers from testdata/purposes/adb/recorder.dot while
// the app holds RECORD_AUDIO for the user it runs as; without it
// setAudioSource throws, as MediaRecorder does on a phone. started, when
// set, is called as each instrumentation starts.
func recorderHarness(t *testing.T, started func(adbd.App)) func(props map[string]string) adbd.HarnessFunc {
	t.Helper()
	p, err := purpose.Load(repoPath("testdata", "purposes", "adb", "recorder.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(filepath.Dir(p.File), p.Backend.Sim.Model)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	m, err := sim.ParseModel(file, data, p.Backend.Sim.Format)
	if err != nil {
		t.Fatal(err)
	}
	timing := sim.Timing{Quiescence: p.Timeouts.Quiescence, Reset: p.Timeouts.Settle + p.Timeouts.PostReset}
	return func(props map[string]string) adbd.HarnessFunc {
		hello := harness.Hello{Platform: "android", Release: props["ro.build.version.release"], Model: props["ro.product.model"], Manufacturer: props["ro.product.manufacturer"]}
		hello.SDK, _ = strconv.Atoi(props["ro.build.version.sdk"])
		return func(ctx context.Context, _ adbd.HarnessRun) (func(context.Context, io.ReadWriteCloser) bool, error) {
			app, ok := adbd.AppOf(ctx)
			if !ok {
				return nil, errors.New("the harness's context has no app")
			}
			if started != nil {
				started(app)
			}
			return func(ctx context.Context, conn io.ReadWriteCloser) bool {
				o := simharness.Options{Model: m, Timing: timing, Hello: hello}
				if !app.Granted(recordAudio) {
					o.Throws = map[string]string{"source": "java.lang.RuntimeException: setAudioSource failed."}
				}
				bye, _ := simharness.Serve(ctx, conn, o)
				return bye
			}, nil
		}
	}
}

// learnRecorder learns recorder.yaml on the fake devices with the given
// flags and returns the exit code, the typestate and the model.
func learnRecorder(t *testing.T, s *adbserver.Server, args ...string) (int, string, *model.Document, string) {
	t.Helper()
	out := t.TempDir()
	code, stdout, stderr := runEnv(t, nil, append([]string{"learn", repoPath("testdata", "purposes", "adb", "recorder.yaml"),
		"-P", port(s), "-o", out, "--write", "json"}, args...)...)
	data, err := os.ReadFile(filepath.Join(out, "MediaRecorder.json"))
	if err != nil {
		return code, typestateLines(stdout), nil, stderr
	}
	doc, err := model.Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"user": `) {
		t.Errorf("the model's JSON names no user:\n%s", data)
	}
	return code, typestateLines(stdout), doc, stderr
}

// TestRightUser: on a phone whose current user is 10 (a second user, a
// work profile, Automotive), the harness runs as user 10 and gets its
// permission for user 10, so setAudioSource works; granting for user 0
// (pm grant's default) while am instrument runs as the current user makes
// setAudioSource throw and the typestate collapse. Before Android 7 there
// is no asking: both go to user 0.
func TestRightUser(t *testing.T) {
	s := adbserver.NewT(t)
	var mu sync.Mutex
	var users []int
	h := recorderHarness(t, func(a adbd.App) {
		mu.Lock()
		users = append(users, a.User)
		mu.Unlock()
	})
	for _, tc := range []struct {
		release string
		sdk     int
		user    int // the user droidstar finds and uses
	}{
		{"14", 34, 10},
		{"7.0", 24, 10},
		{"6.0", 23, 0},
	} {
		props := adbserver.Props("Pixel", tc.release, tc.sdk)
		dev, err := s.Attach(context.Background(), adbd.Config{Props: props, Harness: h(props), CurrentUser: 10})
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		users = nil
		mu.Unlock()
		code, edges, doc, stderr := learnRecorder(t, s, "--device", dev.Addr())
		if code != ExitOK || edges != recorderEdges {
			t.Fatalf("Android %s: exit %d, typestate\n%s\nwant\n%s\n%s", tc.release, code, edges, recorderEdges, stderr)
		}
		if len(doc.Backend.Devices) != 1 || doc.Backend.Devices[0].User == nil || *doc.Backend.Devices[0].User != tc.user {
			t.Errorf("Android %s: device info %+v, want user %d", tc.release, doc.Backend.Devices, tc.user)
		}
		mu.Lock()
		if len(users) == 0 || users[0] != tc.user {
			t.Errorf("Android %s: the harness ran as users %v, want %d", tc.release, users, tc.user)
		}
		mu.Unlock()
		if g := dev.Granted(adbd.HarnessPackage, tc.user); !reflect.DeepEqual(g, []string{recordAudio}) {
			t.Errorf("Android %s: user %d was granted %v", tc.release, tc.user, g)
		}
		if other := 10 - tc.user; len(dev.Granted(adbd.HarnessPackage, other)) != 0 {
			t.Errorf("Android %s: user %d was granted %v too", tc.release, other, dev.Granted(adbd.HarnessPackage, other))
		}
	}
}

// TestHarnessInstalledForAnotherUser: a harness installed for user 0 only
// (installed before user 10 was created) is missing for user 10, whom it
// must run as: learn installs it for user 10 and learns, where asking pm
// path without --user found it "current" and am instrument then found no
// instrumentation info.
func TestHarnessInstalledForAnotherUser(t *testing.T) {
	s := adbserver.NewT(t)
	props := adbserver.Props("Pixel", "14", 34)
	dev := s.AttachT(t, adbd.Config{Props: props, Harness: recorderHarness(t, nil)(props), CurrentUser: 10})
	d := adbclient.New(adbclient.Config{Host: "127.0.0.1", Port: s.Port(), Env: s.Env()}).Device(dev.Addr())
	if err := d.Install(context.Background(), bytes.NewReader(harnessapk.APK), "h.apk", "--user", "0"); err != nil {
		t.Fatal(err)
	}
	code, edges, _, stderr := learnRecorder(t, s, "--device", dev.Addr())
	if code != ExitOK || edges != recorderEdges {
		t.Fatalf("exit %d, typestate\n%s\n%s", code, edges, stderr)
	}
	if want := "droidstar: installing the harness app on " + dev.Addr() + " for user 10\n"; !strings.Contains(stderr, want) {
		t.Errorf("stderr does not say %q:\n%s", want, stderr)
	}
	if !dev.InstalledFor(adbd.HarnessPackage, 0) || !dev.InstalledFor(adbd.HarnessPackage, 10) {
		t.Errorf("installed for user 0: %v, user 10: %v", dev.InstalledFor(adbd.HarnessPackage, 0), dev.InstalledFor(adbd.HarnessPackage, 10))
	}
	// devices and harness status answer for the user in the foreground.
	code, stdout, _ := runEnv(t, nil, "harness", "status", "-P", port(s), "--device", dev.Addr())
	if code != ExitOK || stdout != dev.Addr()+"\tcurrent\n" {
		t.Errorf("harness status: exit %d, %q", code, stdout)
	}
}

// stayOnRecorder attaches a fake whose harness records the stay-on
// setting each time the harness starts.
type stayOnRecorder struct {
	dev    *adbd.Device
	mu     sync.Mutex
	during []string
}

func attachStayOn(t *testing.T, s *adbserver.Server, settings map[string]string, never bool) *stayOnRecorder {
	t.Helper()
	r := &stayOnRecorder{}
	props := adbserver.Props("Pixel 8", "14", 34)
	h := recorderHarness(t, func(adbd.App) {
		r.mu.Lock()
		defer r.mu.Unlock()
		hist := r.dev.SettingHistory(stayOn)
		r.during = append(r.during, hist[len(hist)-1])
	})(props)
	dev := s.AttachT(t, adbd.Config{Props: props, Harness: h, GlobalSettings: settings, HarnessNeverListens: never})
	r.mu.Lock()
	r.dev = dev
	r.mu.Unlock()
	return r
}

func (r *stayOnRecorder) check(t *testing.T, what string, history []string, during ...string) {
	t.Helper()
	if h := r.dev.SettingHistory(stayOn); !reflect.DeepEqual(h, history) {
		t.Errorf("%s: %s went %v, want %v", what, stayOn, h, history)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if strings.Join(r.during, " ") != strings.Join(during, " ") {
		t.Errorf("%s: while the harness ran, %s was %v, want %v", what, stayOn, r.during, during)
	}
	r.during = nil
}

// TestKeepAwake: learn and matrix keep a device's screen on over USB while
// they run (svc power stayon usb) and put its setting back exactly as it
// was, also when learning fails; --keep-awake=false leaves it alone, and
// so does a device already set to stay on over USB.
func TestKeepAwake(t *testing.T) {
	s := adbserver.NewT(t)

	off := attachStayOn(t, s, nil, false)
	if code, edges, _, stderr := learnRecorder(t, s, "--device", off.dev.Addr()); code != ExitOK || edges != recorderEdges {
		t.Fatalf("exit %d\n%s\n%s", code, edges, stderr)
	}
	off.check(t, "learn", []string{"0", "2", "0"}, "2")
	if code, _, _, stderr := learnRecorder(t, s, "--device", off.dev.Addr(), "--keep-awake=false"); code != ExitOK {
		t.Fatalf("--keep-awake=false: exit %d\n%s", code, stderr)
	}
	off.check(t, "--keep-awake=false", []string{"0", "2", "0"}, "0")

	ac := attachStayOn(t, s, map[string]string{stayOn: "1"}, false)
	learnRecorder(t, s, "--device", ac.dev.Addr())
	ac.check(t, "stay-on for AC", []string{"1", "2", "1"}, "2")
	usb := attachStayOn(t, s, map[string]string{stayOn: "7"}, false)
	learnRecorder(t, s, "--device", usb.dev.Addr())
	usb.check(t, "stay-on already for USB", []string{"7"}, "7")
	unset := attachStayOn(t, s, map[string]string{}, false)
	learnRecorder(t, s, "--device", unset.dev.Addr())
	unset.check(t, "never set", []string{"null", "2", "null"}, "2")

	// A setting droidstar cannot read is left alone: the run warns and
	// goes on (staying awake is a convenience, issue 31).
	odd := attachStayOn(t, s, map[string]string{stayOn: "on"}, false)
	code, edges, _, stderr := learnRecorder(t, s, "--device", odd.dev.Addr())
	want := "droidstar: device " + odd.dev.Addr() + ": cannot keep its screen on (settings get global stay_on_while_plugged_in: exit status 0, printed \"on\"); " +
		"learning goes on, but a device that sleeps answers late or not at all: keep it awake by hand, or pass --keep-awake=false to skip this\n"
	if code != ExitOK || edges != recorderEdges || !strings.Contains(stderr, want) {
		t.Errorf("an unreadable setting: exit %d\n%s\nstderr\n%s\nwant it to contain\n%s", code, edges, stderr, want)
	}
	if code, edges, _, stderr := learnRecorder(t, s, "--device", odd.dev.Addr(), "-q", "--keep-awake=false"); code != ExitOK || edges != "" || stderr != "" {
		t.Errorf("an unreadable setting with --keep-awake=false: exit %d\n%s", code, stderr)
	}
	odd.check(t, "an unreadable setting", []string{"on"}, "on", "on")

	// Failures: a harness that crashes before it listens; two devices
	// that disagree, which stops learning after both started.
	crash := attachStayOn(t, s, nil, true)
	if code, _, _, stderr := learnRecorder(t, s, "--device", crash.dev.Addr()); code != ExitFail || !strings.Contains(stderr, "the harness ended before it opened its socket") {
		t.Errorf("crashing harness: exit %d\n%s", code, stderr)
	}
	crash.check(t, "a harness that crashes", []string{"0", "2", "0"})
	dir := repoPath("testdata", "matrix")
	file := filepath.Join(dir, "purpose.yaml")
	var disagree []*adbd.Device
	for _, m := range []string{"api23.dot", "api34.dot"} {
		props := adbserver.Props("Pixel 8", "14", 34)
		d, err := s.Attach(context.Background(), adbd.Config{Props: props, Harness: simHarnessFrom(t, file, filepath.Join(dir, m))(props)})
		if err != nil {
			t.Fatal(err)
		}
		disagree = append(disagree, d)
	}
	code, _, stderr = runEnv(t, nil, "learn", file, "--backend", "adb", "--devices", disagree[0].Addr()+","+disagree[1].Addr(), "-P", port(s), "-o", t.TempDir())
	if code != ExitFail || !strings.Contains(stderr, "devices disagree on") {
		t.Fatalf("devices that disagree: exit %d\n%s", code, stderr)
	}
	for _, d := range disagree {
		if h := d.SettingHistory(stayOn); !reflect.DeepEqual(h, []string{"0", "2", "0"}) {
			t.Errorf("a run that failed left %s going %v", stayOn, h)
		}
	}

	// matrix, one device as the one target.
	code, _, stderr = runEnv(t, nil, "matrix", repoPath("testdata", "purposes", "adb", "recorder.yaml"), "--backend", "adb",
		"--devices", "phone="+off.dev.Addr(), "-P", port(s), "-o", t.TempDir())
	if code != ExitOK {
		t.Fatalf("matrix: exit %d\n%s", code, stderr)
	}
	off.check(t, "matrix", []string{"0", "2", "0", "2", "0"}, "2")
	if code, _, stderr = runEnv(t, nil, "matrix", repoPath("testdata", "purposes", "adb", "recorder.yaml"), "--backend", "adb",
		"--devices", "phone="+off.dev.Addr(), "-P", port(s), "-o", t.TempDir(), "--keep-awake=false"); code != ExitOK {
		t.Fatalf("matrix --keep-awake=false: exit %d\n%s", code, stderr)
	}
	off.check(t, "matrix --keep-awake=false", []string{"0", "2", "0", "2", "0"}, "0")
}

// TestKeepAwakeThatCannotGoesOn: a device whose shell may not write
// settings (svc power stayon changes nothing) learns all the same; the
// model, its summary and stderr carry one keep-awake warning, and the
// setting is never written.
func TestKeepAwakeThatCannotGoesOn(t *testing.T) {
	s := adbserver.NewT(t)
	props := adbserver.Props("Pixel 8", "14", 34)
	dev := s.AttachT(t, adbd.Config{Props: props, Harness: recorderHarness(t, nil)(props), StayOnIgnored: true})
	out := t.TempDir()
	code, stdout, stderr := runEnv(t, nil, "learn", repoPath("testdata", "purposes", "adb", "recorder.yaml"),
		"-P", port(s), "-o", out, "--write", "json", "--device", dev.Addr())
	if code != ExitOK || typestateLines(stdout) != recorderEdges {
		t.Fatalf("exit %d, typestate\n%s\nstderr\n%s", code, typestateLines(stdout), stderr)
	}
	want := "device " + dev.Addr() + ": cannot keep its screen on (svc power stayon usb left " + stayOn + " at 0); " +
		"learning goes on, but a device that sleeps answers late or not at all: keep it awake by hand, or pass --keep-awake=false to skip this"
	if strings.Count(stderr, "droidstar: "+want+"\n") != 1 {
		t.Errorf("stderr does not say once %q:\n%s", want, stderr)
	}
	if !strings.Contains(stdout, want) {
		t.Errorf("the summary does not carry the warning:\n%s", stdout)
	}
	doc, err := model.ReadFile(filepath.Join(out, "MediaRecorder.json"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(strings.Join(doc.Warnings, "\n"), want); n != 1 {
		t.Errorf("the model has the warning %d times: %q", n, doc.Warnings)
	}
	if h := strings.Join(dev.SettingHistory(stayOn), " "); h != "0" {
		t.Errorf("%s went %s, want it never written", stayOn, h)
	}
}
