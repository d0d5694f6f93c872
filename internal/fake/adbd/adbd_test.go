package adbd_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	harnessapk "github.com/droidstar/droidstar/harness-apk"
	"github.com/droidstar/droidstar/internal/backend/jvm/jvmtest"
	"github.com/droidstar/droidstar/internal/fake/adbd"
	"github.com/droidstar/droidstar/internal/fake/adbserver"
	"github.com/droidstar/droidstar/internal/harness"
)

const component = "org.droidstar.harness/.HarnessInstrumentation"

// adb runs the adb client and returns its output and exit status; only a
// failure to run it at all fails the test.
func adb(t *testing.T, s *adbserver.Server, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), stuck)
	defer cancel()
	out, err := s.Command(ctx, args...).CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	}
	t.Fatalf("adb %s: %v\n%s", strings.Join(args, " "), err, out)
	return "", 0
}

// adbOK runs the adb client and fails the test unless it exits 0.
func adbOK(t *testing.T, s *adbserver.Server, args ...string) string {
	t.Helper()
	out, code := adb(t, s, args...)
	if code != 0 {
		t.Fatalf("adb %s: exit status %d:\n%s", strings.Join(args, " "), code, out)
	}
	return out
}

func TestShellExitCodesAndOutput(t *testing.T) {
	t.Parallel()
	s := adbserver.NewT(t)
	d := s.AttachT(t, adbd.Config{Props: map[string]string{"ro.build.version.sdk": "31", "ro.product.model": "Pixel_6"}})
	serial := d.Addr()
	tests := []struct {
		cmd  string
		out  string
		exit int
	}{
		{"getprop ro.build.version.sdk", "31\n", 0},
		{"getprop ro.product.model", "Pixel_6\n", 0},
		{"getprop no.such.prop", "\n", 0},
		{"cat /missing", "cat: /missing: No such file or directory\n", 1},
		{"frobnicate --now", "/system/bin/sh: frobnicate: inaccessible or not found\n", 127},
		{"echo 'a  b' \"c\\\"d\" e\\ f", "a  b c\"d e f\n", 0},
		{"cat /missing && echo not-reached", "cat: /missing: No such file or directory\n", 1},
		{"cat /missing || echo recovered", "cat: /missing: No such file or directory\nrecovered\n", 0},
		{"cat /missing; echo after", "cat: /missing: No such file or directory\nafter\n", 0},
		{"mkdir -p /data/local/tmp/a/b && echo hi && md5sum /data/local/tmp/a", "hi\nmd5sum: /data/local/tmp/a: Is a directory\n", 1},
		{"mkdir -p /system/x", "mkdir: '/system/x': Read-only file system\n", 1},
		{"rm -rf /data/local/tmp/a && rm /data/local/tmp/a", "rm: /data/local/tmp/a: No such file or directory\n", 1},
		{"rm -f /data/local/tmp/none", "", 0},
		{"chmod -R 777 /data/local/tmp", "", 0},
		{"getprop | grep sdk", "/system/bin/sh: fakeadbd: unsupported shell syntax '|' in: getprop | grep sdk\n", 2},
		{"pm path org.droidstar.harness", "", 1},
		{"pm list packages", "", 0},
	}
	for _, tt := range tests {
		out, code := adb(t, s, "-s", serial, "shell", tt.cmd)
		if out != tt.out || code != tt.exit {
			t.Errorf("adb shell %q = %q, exit %d; want %q, exit %d", tt.cmd, out, code, tt.out, tt.exit)
		}
	}

	// Without the shell protocol (-x) the exit code is lost and stderr is
	// merged into stdout, as with a device that lacks shell_v2.
	out, code := adb(t, s, "-s", serial, "shell", "-x", "cat /missing")
	if code != 0 || out != "cat: /missing: No such file or directory\n" {
		t.Errorf("adb shell -x cat /missing = %q, exit %d", out, code)
	}

	out = adbOK(t, s, "-s", serial, "shell", "getprop")
	for _, want := range []string{"[ro.build.version.sdk]: [31]\n", "[ro.product.model]: [Pixel_6]\n", "[ro.product.manufacturer]: [droidstar]\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("getprop lacks %q:\n%s", want, out)
		}
	}
}

func TestPushPull(t *testing.T) {
	t.Parallel()
	s := adbserver.NewT(t)
	d := s.AttachT(t, adbd.Config{})
	serial := d.Addr()
	dir := t.TempDir()
	for _, size := range []int{0, 11, 256*1024 + 1, 700*1024 + 13} {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(i*7 + i>>9)
		}
		local := filepath.Join(dir, fmt.Sprint("f", size))
		if err := os.WriteFile(local, data, 0o644); err != nil {
			t.Fatal(err)
		}
		remote := fmt.Sprintf("/data/local/tmp/new/dir/f%d", size)
		adbOK(t, s, "-s", serial, "push", local, remote)
		onDevice, err := os.ReadFile(filepath.Join(d.Root(), filepath.FromSlash(remote)))
		if err != nil || !bytes.Equal(onDevice, data) {
			t.Fatalf("push of %d bytes: device has %d bytes (err %v)", size, len(onDevice), err)
		}
		back := local + ".back"
		adbOK(t, s, "-s", serial, "pull", remote, back)
		if got, err := os.ReadFile(back); err != nil || !bytes.Equal(got, data) {
			t.Fatalf("pull of %d bytes: got %d bytes (err %v)", size, len(got), err)
		}
		sum := md5.Sum(data)
		want := hex.EncodeToString(sum[:]) + "  " + remote + "\n"
		if got := adbOK(t, s, "-s", serial, "shell", "md5sum "+remote); got != want {
			t.Errorf("md5sum = %q, want %q", got, want)
		}
	}

	local := filepath.Join(dir, "f11")
	for remote, msg := range map[string]string{
		"/system/f":                    "remote couldn't create file: Read-only file system",
		"/vendor/x/f":                  "remote secure_mkdirs failed: Read-only file system",
		"/data/local/tmp/new/dir/f0/x": "remote couldn't create file: Not a directory",
	} {
		out, code := adb(t, s, "-s", serial, "push", local, remote)
		want := fmt.Sprintf("adb: error: failed to copy '%s' to '%s': %s", local, remote, msg)
		if code != 1 || !strings.Contains(out, want) {
			t.Errorf("push to %s: exit %d, output:\n%s\nwant %q", remote, code, out, want)
		}
	}
	out, code := adb(t, s, "-s", serial, "pull", "/data/nothing", filepath.Join(dir, "nothing"))
	if code != 1 || !strings.Contains(out, "adb: error: remote object '/data/nothing' does not exist") {
		t.Errorf("pull of a missing file: exit %d, output:\n%s", code, out)
	}
}

func TestPackageManager(t *testing.T) {
	t.Parallel()
	s := adbserver.NewT(t)
	d := s.AttachT(t, adbd.Config{})
	serial := d.Addr()
	apk := filepath.Join(t.TempDir(), "h.apk")
	if err := os.WriteFile(apk, []byte("not really an APK"), 0o644); err != nil {
		t.Fatal(err)
	}
	// adb install streams through exec:cmd package install -S, since the
	// fake advertises the cmd feature.
	if out := adbOK(t, s, "-s", serial, "install", "-r", "-t", apk); !strings.Contains(out, "Success") {
		t.Fatalf("adb install: %s", out)
	}
	if !d.Installed(adbd.HarnessPackage) {
		t.Fatal("not installed after adb install")
	}
	want := "package:/data/app/org.droidstar.harness-1/base.apk\n"
	if out := adbOK(t, s, "-s", serial, "shell", "pm path org.droidstar.harness"); out != want {
		t.Errorf("pm path = %q, want %q", out, want)
	}
	sum := md5.Sum([]byte("not really an APK"))
	if out := adbOK(t, s, "-s", serial, "shell", "md5sum /data/app/org.droidstar.harness-1/base.apk"); !strings.HasPrefix(out, hex.EncodeToString(sum[:])+"  ") {
		t.Errorf("md5sum of the installed APK = %q", out)
	}
	adbOK(t, s, "-s", serial, "shell", "pm grant org.droidstar.harness android.permission.RECORD_AUDIO && pm grant org.droidstar.harness android.permission.ACCESS_COARSE_LOCATION")
	if g := d.Granted(adbd.HarnessPackage, 0); strings.Join(g, ",") != "android.permission.ACCESS_COARSE_LOCATION,android.permission.RECORD_AUDIO" {
		t.Errorf("Granted = %v", g)
	}
	if out, code := adb(t, s, "-s", serial, "shell", "pm grant com.example.none android.permission.CAMERA"); code != 255 || out != "\nException occurred while executing 'grant':\njava.lang.IllegalArgumentException: Unknown package: com.example.none\n" {
		t.Errorf("pm grant to a missing package: exit %d, %q", code, out)
	}
	if out := adbOK(t, s, "-s", serial, "shell", "pm list packages"); out != "package:org.droidstar.harness\n" {
		t.Errorf("pm list packages = %q", out)
	}
	if out := adbOK(t, s, "-s", serial, "uninstall", "org.droidstar.harness"); !strings.Contains(out, "Success") {
		t.Errorf("adb uninstall: %s", out)
	}
	if out, code := adb(t, s, "-s", serial, "uninstall", "org.droidstar.harness"); code != 1 || !strings.Contains(out, "Failure [DELETE_FAILED_INTERNAL_ERROR]") {
		t.Errorf("second uninstall: exit %d, %q", code, out)
	}
	if d.Installed(adbd.HarnessPackage) {
		t.Error("still installed after uninstall")
	}

	// The legacy path: push, then pm install from the device's filesystem.
	adbOK(t, s, "-s", serial, "push", apk, "/data/local/tmp/h.apk")
	if out := adbOK(t, s, "-s", serial, "shell", "pm install -r -t -g /data/local/tmp/h.apk"); out != "Success\n" {
		t.Errorf("pm install = %q", out)
	}
	if out, code := adb(t, s, "-s", serial, "shell", "pm install /data/local/tmp/missing.apk"); code != 1 || out != "Failure [INSTALL_FAILED_INVALID_URI]\n" {
		t.Errorf("pm install of a missing file: exit %d, %q", code, out)
	}

	// Stdin travels in shell_v2 packets: pm install -S reads the APK
	// from it, as `adb install` does on devices without the cmd feature.
	streamed := bytes.Repeat([]byte("0123456789abcdef"), 20000)
	cmd := s.Command(context.Background(), "-s", serial, "shell", fmt.Sprintf("pm install -S %d", len(streamed)))
	cmd.Stdin = bytes.NewReader(streamed)
	if out, err := cmd.CombinedOutput(); err != nil || string(out) != "Success\n" {
		t.Errorf("pm install -S with stdin: %v, %q", err, out)
	}
	if got, err := os.ReadFile(filepath.Join(d.Root(), "data", "app", "org.droidstar.harness-1", "base.apk")); err != nil || !bytes.Equal(got, streamed) {
		t.Errorf("streamed APK: %d bytes on the device (%v), want %d", len(got), err, len(streamed))
	}

	full := s.AttachT(t, adbd.Config{InstallFailure: "Failure [INSTALL_FAILED_INSUFFICIENT_STORAGE]"})
	if out, code := adb(t, s, "-s", full.Addr(), "install", apk); code != 1 || !strings.Contains(out, "INSTALL_FAILED_INSUFFICIENT_STORAGE") {
		t.Errorf("install on a full device: exit %d, %q", code, out)
	}
	if full.Installed(adbd.HarnessPackage) {
		t.Error("a failed install installed the package")
	}
}

// echoHarness answers every line with "echo: LINE" and ends the
// connection with bye after the line "bye".
func echoHarness(files chan<- string) adbd.HarnessFunc {
	return func(ctx context.Context, run adbd.HarnessRun) (func(context.Context, io.ReadWriteCloser) bool, error) {
		if files != nil {
			files <- run.Staging
		}
		return func(ctx context.Context, c io.ReadWriteCloser) bool {
			r := bufio.NewReader(c)
			for {
				line, err := r.ReadString('\n')
				if err != nil {
					return false
				}
				if _, err := io.WriteString(c, "echo: "+line); err != nil {
					return false
				}
				if line == "bye\n" {
					return true
				}
			}
		}, nil
	}
}

// forward forwards a free local port to the device's abstract socket.
func forward(t *testing.T, s *adbserver.Server, serial, socket string) string {
	t.Helper()
	port := strings.TrimSpace(adbOK(t, s, "-s", serial, "forward", "tcp:0", "localabstract:"+socket))
	return net.JoinHostPort("127.0.0.1", port)
}

// stuck bounds how long a test waits for something that should happen
// at once, so that a hang fails with what was seen rather than at the
// test binary's timeout. It is not a synchronisation: every wait below
// ends on the event it waits for.
const stuck = 30 * time.Second

// exchange sends one line through a forwarded port and reads one reply
// line; the device closing the stream at once (nobody listens) is
// io.EOF.
func exchange(addr, line string) (string, error) {
	c, err := net.DialTimeout("tcp", addr, stuck)
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(stuck))
	if _, err := io.WriteString(c, line); err != nil {
		return "", err
	}
	// No half-close in ADB: read the reply before closing.
	return bufio.NewReader(c).ReadString('\n')
}

// exchangeOK is exchange that fails the test on an error.
func exchangeOK(t *testing.T, addr, line string) string {
	t.Helper()
	reply, err := exchange(addr, line)
	if err != nil {
		t.Fatalf("send %q to %s: %v", line, addr, err)
	}
	return reply
}

// waitListening waits until the device's harness listens on socket, as
// am instrument -w in the background makes it do some time after it
// started.
func waitListening(t *testing.T, d *adbd.Device, socket string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), stuck)
	defer cancel()
	if err := d.WaitListening(ctx, socket); err != nil {
		t.Fatal(err)
	}
}

// waitLog waits until the device has logged a line containing substr.
func waitLog(t *testing.T, d *adbd.Device, substr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), stuck)
	defer cancel()
	if err := d.WaitLog(ctx, substr); err != nil {
		t.Fatal(err)
	}
}

// background runs an adb command whose output is read after it ends.
type background struct {
	cmd  *exec.Cmd
	out  bytes.Buffer
	done chan error
}

func startBackground(t *testing.T, s *adbserver.Server, args ...string) *background {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	b := &background{cmd: s.Command(ctx, args...), done: make(chan error, 1)}
	b.cmd.Stdout, b.cmd.Stderr = &b.out, &b.out
	if err := b.cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	go func() { b.done <- b.cmd.Wait() }()
	t.Cleanup(func() {
		cancel()
		<-b.done
	})
	return b
}

// wait waits for the command to end and returns its output; d's log
// explains a command that does not end.
func (b *background) wait(t *testing.T, d *adbd.Device) string {
	t.Helper()
	select {
	case err := <-b.done:
		b.done <- err
		if err != nil {
			t.Errorf("%v: %v\n%s", b.cmd.Args, err, b.out.String())
		}
		return b.out.String()
	case <-time.After(stuck):
		t.Fatalf("%v did not end within %s; the device's log:\n%s", b.cmd.Args, stuck, strings.Join(d.Logcat(), "\n"))
	}
	return ""
}

func TestInstrumentationAndAbstractSocket(t *testing.T) {
	t.Parallel()
	s := adbserver.NewT(t)
	files := make(chan string, 4)
	d := s.AttachT(t, adbd.Config{Harness: echoHarness(files)})
	serial := d.Addr()

	out, code := adb(t, s, "-s", serial, "shell", "am instrument -w "+component)
	want := "INSTRUMENTATION_STATUS: id=ActivityManagerService\n" +
		"INSTRUMENTATION_STATUS: Error=Unable to find instrumentation info for: ComponentInfo{org.droidstar.harness/org.droidstar.harness.HarnessInstrumentation}\n" +
		"INSTRUMENTATION_STATUS_CODE: -1\n" +
		"android.util.AndroidException: INSTRUMENTATION_FAILED: org.droidstar.harness/org.droidstar.harness.HarnessInstrumentation\n"
	if code != 1 || !strings.HasPrefix(out, want) {
		t.Errorf("am instrument without the package: exit %d:\n%s", code, out)
	}

	apk := filepath.Join(t.TempDir(), "h.apk")
	os.WriteFile(apk, []byte("apk"), 0o644)
	adbOK(t, s, "-s", serial, "install", apk)

	addr := forward(t, s, serial, "echo-test")
	if _, err := exchange(addr, "early\n"); err == nil {
		t.Fatal("the socket answered before am instrument")
	}
	am := startBackground(t, s, "-s", serial, "shell",
		"am instrument -w -e socket echo-test -e staging /data/local/tmp/x -e run r1 org.droidstar.harness/org.droidstar.harness.HarnessInstrumentation")
	waitListening(t, d, "echo-test")
	if got := exchangeOK(t, addr, "one\n"); got != "echo: one\n" {
		t.Errorf("first connection: %q", got)
	}
	if got := <-files; got != filepath.Join(d.Root(), "data", "local", "tmp", "x") {
		t.Errorf("staging dir %q, want under %s", got, d.Root())
	}
	if reply, err := exchange(addr, "bye\n"); err != nil || reply != "echo: bye\n" {
		t.Errorf("bye: %q, %v", reply, err)
	}
	if out := am.wait(t, d); !strings.HasSuffix(out, "INSTRUMENTATION_RESULT: droidstar-harness=bye\nINSTRUMENTATION_CODE: 0\n") {
		t.Errorf("am instrument -w printed:\n%s", out)
	}
	if _, err := exchange(addr, "after\n"); err == nil {
		t.Error("the socket still answers after bye")
	}
	log := strings.Join(d.Logcat(), "\n")
	for _, want := range []string{
		" I droidstar-harness: starting: socket echo-test, run r1, staging /data/local/tmp/x",
		" I droidstar-harness: listening on localabstract:echo-test",
		" I droidstar-harness: connection 1 closed without bye; listening again",
		" I droidstar-harness: bye on connection 2: finishing",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("logcat lacks %q:\n%s", want, log)
		}
	}

	// am force-stop ends a running instrumentation: am -w reports the
	// process's death, the socket disappears, open connections close.
	adbOK(t, s, "-s", serial, "shell", "logcat -c")
	am = startBackground(t, s, "-s", serial, "shell", "am instrument -w -e socket echo-test "+component)
	waitListening(t, d, "echo-test")
	exchangeOK(t, addr, "up?\n")
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	waitLog(t, d, "connection 2 accepted")
	adbOK(t, s, "-s", serial, "shell", "am force-stop org.droidstar.harness")
	if out := am.wait(t, d); !strings.HasSuffix(out, "INSTRUMENTATION_RESULT: shortMsg=Process crashed.\nINSTRUMENTATION_CODE: 0\n") {
		t.Errorf("am instrument -w after force-stop printed:\n%s", out)
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if n, err := c.Read(make([]byte, 1)); err == nil {
		t.Errorf("a connection survived force-stop (read %d bytes)", n)
	}
	if _, err := exchange(addr, "x\n"); err == nil {
		t.Error("the socket answers after force-stop")
	}

	// Without -w am returns once the harness listens; closing am's stream
	// does not stop the instrumentation either.
	adbOK(t, s, "-s", serial, "shell", "logcat -c")
	adbOK(t, s, "-s", serial, "shell", "am instrument -e socket echo-test "+component)
	if got := exchangeOK(t, addr, "bg\n"); got != "echo: bg\n" {
		t.Errorf("instrumentation started without -w: %q", got)
	}
	// The harness sees the connection end only after exchange has hung up
	// (the host's CLSE travels on its own), so logcat -c could run before
	// the harness logs it; wait for the line, then clear.
	waitLog(t, d, "connection 1 closed without bye; listening again")
	adbOK(t, s, "-s", serial, "shell", "logcat -c")
	if len(d.Logcat()) != 0 {
		t.Errorf("logcat -c left %q", d.Logcat())
	}
}

func TestHarnessNeverListens(t *testing.T) {
	t.Parallel()
	s := adbserver.NewT(t)
	d := s.AttachT(t, adbd.Config{HarnessNeverListens: true, Harness: echoHarness(nil)})
	serial := d.Addr()
	apk := filepath.Join(t.TempDir(), "h.apk")
	os.WriteFile(apk, []byte("apk"), 0o644)
	adbOK(t, s, "-s", serial, "install", apk)
	out := adbOK(t, s, "-s", serial, "shell", "am instrument -w "+component)
	if !strings.HasPrefix(out, "INSTRUMENTATION_RESULT: shortMsg=java.lang.RuntimeException\nINSTRUMENTATION_RESULT: longMsg=java.lang.RuntimeException: ") ||
		!strings.HasSuffix(out, "\nINSTRUMENTATION_CODE: 0\n") {
		t.Errorf("am instrument printed:\n%s", out)
	}
	logcat := adbOK(t, s, "-s", serial, "shell", "logcat -d -v threadtime -t 2000")
	for _, want := range []string{" E AndroidRuntime: FATAL EXCEPTION: main\n", " E AndroidRuntime: java.lang.RuntimeException: ", " E droidstar-harness: harness failed: "} {
		if !strings.Contains(logcat, want) {
			t.Errorf("logcat lacks %q:\n%s", want, logcat)
		}
	}
	if _, err := exchange(forward(t, s, serial, adbd.DefaultSocket), "x\n"); err == nil {
		t.Error("the socket answers")
	}
}

func TestUnauthorizedAndOffline(t *testing.T) {
	t.Parallel()
	s := adbserver.NewT(t)
	u := s.AttachT(t, adbd.Config{State: adbd.Unauthorized})
	o := s.AttachT(t, adbd.Config{State: adbd.Offline})
	out := adbOK(t, s, "devices")
	for _, want := range []string{u.Addr() + "\tunauthorized\n", o.Addr() + "\toffline\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("adb devices lacks %q:\n%s", want, out)
		}
	}
	if out, code := adb(t, s, "-s", u.Addr(), "shell", "echo"); code != 1 || !strings.HasPrefix(out, "error: device unauthorized.\n") {
		t.Errorf("shell on an unauthorized device: exit %d, %q", code, out)
	}
	if out, code := adb(t, s, "-s", o.Addr(), "shell", "echo"); code != 1 || out != "error: device offline\n" {
		t.Errorf("shell on an offline device: exit %d, %q", code, out)
	}
}

func TestStartRejectsBannerBreakingProps(t *testing.T) {
	if d, err := adbd.Start(adbd.Config{Props: map[string]string{"ro.product.model": "a;b"}}); err == nil {
		d.Close()
		t.Fatal("Start accepted a model with ';'")
	}
}

// jvmDevice attaches a fake whose harness is the real JVM harness, and
// gives an APK file to install on it.
func jvmDevice(t *testing.T) (*adbserver.Server, *adbd.Device, string) {
	t.Helper()
	java := jvmtest.Java(t)
	jar := writeJar(t)
	s := adbserver.NewT(t)
	d := s.AttachT(t, adbd.Config{Harness: adbd.JVMHarness(java, jar)})
	apk := filepath.Join(t.TempDir(), "h.apk")
	if err := os.WriteFile(apk, []byte("apk"), 0o644); err != nil {
		t.Fatal(err)
	}
	return s, d, apk
}

func TestJVMHarness(t *testing.T) {
	t.Parallel()
	s, d, apk := jvmDevice(t)
	serial := d.Addr()
	adbOK(t, s, "-s", serial, "push", apk, "/data/local/tmp/h.apk")
	adbOK(t, s, "-s", serial, "shell", "pm install -r -t -g /data/local/tmp/h.apk")
	adbOK(t, s, "-s", serial, "push", apk, "/data/local/tmp/x/staged.txt")

	am := startBackground(t, s, "-s", serial, "shell",
		"am instrument -w -e socket droidstar-test -e staging /data/local/tmp/x -e run r1 "+component)
	addr := forward(t, s, serial, "droidstar-test")
	// The socket appears once am instrument has started the harness;
	// until then the device would close the stream at once.
	waitListening(t, d, "droidstar-test")
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(stuck))
	fmt.Fprintf(c, `{"id":1,"op":"hello","protocol":%d,"host":"test"}`+"\n", harness.ProtocolVersion)
	r := bufio.NewReader(c)
	hello, err := r.ReadString('\n')
	if err != nil {
		t.Fatalf("no hello reply: %v\n%s", err, strings.Join(d.Logcat(), "\n"))
	}
	if !strings.Contains(hello, `"platform":"jvm"`) || !strings.Contains(hello, `"id":1`) {
		t.Errorf("hello reply: %s", hello)
	}
	io.WriteString(c, `{"id":2,"op":"bye"}`+"\n")
	if bye, err := r.ReadString('\n'); err != nil || !strings.Contains(bye, `"id":2`) || !strings.Contains(bye, `"ok":true`) {
		t.Errorf("bye reply: %q, %v", bye, err)
	}
	if out := am.wait(t, d); !strings.HasSuffix(out, "INSTRUMENTATION_CODE: 0\n") || !strings.Contains(out, "droidstar-harness=bye") {
		t.Errorf("am instrument -w printed:\n%s", out)
	}
	// The JVM's stderr is the harness's log; it copied staging into the
	// app's own folders, which the bye removed.
	app := filepath.Join(d.Root(), "data", "user", "0", adbd.HarnessPackage)
	waitLog(t, d, " I droidstar-harness: copied 1 staged files into "+filepath.Join(app, "files", "droidstar", "r1")+
		" and "+filepath.Join(app, "code_cache", "droidstar", "r1"))
	for _, dir := range []string{"files", "code_cache"} {
		if entries, err := os.ReadDir(filepath.Join(app, dir, "droidstar")); err != nil || len(entries) != 0 {
			t.Errorf("%s after bye: %v, %v", dir, entries, err)
		}
	}
}

// TestCloseStopsJVM checks that Device.Close ends a harness JVM that is
// in the middle of a connection.
func TestCloseStopsJVM(t *testing.T) {
	t.Parallel()
	s, d, apk := jvmDevice(t)
	serial := d.Addr()
	adbOK(t, s, "-s", serial, "install", apk)
	adbOK(t, s, "-s", serial, "shell", "mkdir -p /data/local/tmp/close-test && am instrument -e staging /data/local/tmp/close-test -e run close "+component)
	addr := forward(t, s, serial, adbd.DefaultSocket)
	// am instrument without -w returned once the harness listened.
	if reply := exchangeOK(t, addr, `{"id":1,"op":"ping"}`+"\n"); !strings.Contains(reply, `"ok":true`) {
		t.Fatalf("ping: %q", reply)
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// An answer on the open connection proves its JVM runs; the log's
	// "connection 2 accepted" comes before the JVM is started.
	c.SetDeadline(time.Now().Add(stuck))
	io.WriteString(c, `{"id":2,"op":"ping"}`+"\n")
	if reply, err := bufio.NewReader(c).ReadString('\n'); err != nil || !strings.Contains(reply, `"ok":true`) {
		t.Fatalf("ping on the open connection: %q, %v", reply, err)
	}
	marker := filepath.Join(d.Root(), "data", "local", "tmp", "close-test")
	if !processWith(marker) {
		t.Fatal("no JVM serves the open connection")
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if processWith(marker) {
		t.Error("a harness JVM outlived Device.Close")
	}
}

// processWith says whether a live process of ours has arg on its command
// line.
func processWith(arg string) bool {
	dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range dirs {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, a := range strings.Split(string(b), "\x00") {
			if a == arg {
				return true
			}
		}
	}
	return false
}

func writeJar(t *testing.T) string {
	t.Helper()
	if len(harnessapk.JVMJar) == 0 {
		t.Skip("this build embeds no harness jar")
	}
	jar := filepath.Join(t.TempDir(), "droidstar-harness.jar")
	if err := os.WriteFile(jar, harnessapk.JVMJar, 0o644); err != nil {
		t.Fatal(err)
	}
	return jar
}

// An unplugged device drops its hosts and answers no new connection, but
// keeps its port until Close, so that no other fake is given the address
// a server still retries. (That Close then frees it cannot be checked
// here: the kernel may give the port to a test running beside this one.)
func TestUnplugKeepsThePort(t *testing.T) {
	t.Parallel()
	s := adbserver.NewT(t)
	d := s.AttachT(t, adbd.Config{})
	d.Unplug()
	c, err := net.Dial("tcp", d.Addr())
	if err != nil {
		t.Fatalf("the unplugged device's port refuses connections: %v", err)
	}
	c.SetDeadline(time.Now().Add(stuck))
	if n, err := c.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("a connection to the unplugged device read %d bytes, %v; want io.EOF", n, err)
	}
	c.Close()
	if ln, err := net.Listen("tcp", d.Addr()); err == nil {
		ln.Close()
		t.Fatal("the unplugged device's port was free for another listener")
	}
	if out, code := adb(t, s, "-s", d.Addr(), "shell", "echo"); code == 0 {
		t.Errorf("adb shell on an unplugged device: exit 0, %q", out)
	}
}
