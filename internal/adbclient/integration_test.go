package adbclient_test

// These tests drive the client through Debian's real adb server, with
// fake devices (package adbd) attached to a private server (package
// adbserver). Each defect of goadb that package adbclient closes has a test here
// against the real server's bytes, beside the unit tests that pin the
// wire format down.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/droidstar/droidstar/internal/adbclient"
	"github.com/droidstar/droidstar/internal/fake/adbd"
	"github.com/droidstar/droidstar/internal/fake/adbserver"
)

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// server starts a private adb server and a client of it.
func server(t *testing.T) (*adbserver.Server, *adbclient.Client) {
	t.Helper()
	s := adbserver.NewT(t)
	return s, adbclient.New(adbclient.Config{Host: "127.0.0.1", Port: s.Port(), Env: s.Env()})
}

// Defect 1: with eight devices the devices-l answer is well over 255
// bytes, where goadb cut it off without an error.
func TestIntegrationEightDevices(t *testing.T) {
	s, c := server(t)
	ctx := testCtx(t)
	want := map[string]adbclient.DeviceInfo{}
	for i := range 8 {
		d := s.AttachT(t, adbd.Config{Props: map[string]string{
			"ro.product.model":  fmt.Sprintf("Fake Phone %d", i),
			"ro.product.name":   fmt.Sprintf("fakeprod%d", i),
			"ro.product.device": fmt.Sprintf("fakedev%d", i),
		}})
		want[d.Addr()] = adbclient.DeviceInfo{
			Serial: d.Addr(), State: "device",
			// adb turns the model's spaces into underscores.
			Model: fmt.Sprintf("Fake_Phone_%d", i), Product: fmt.Sprintf("fakeprod%d", i), Device: fmt.Sprintf("fakedev%d", i),
		}
	}
	raw, err := s.Query(ctx, "host:devices-l")
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) <= 255 {
		t.Fatalf("the server's list is only %d bytes; the test needs more than 255", len(raw))
	}
	t.Logf("host:devices-l answered %d bytes", len(raw))
	got, err := c.Devices(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 8 {
		t.Fatalf("Devices listed %d devices, want 8:\n%+v\nraw list (%d bytes):\n%s", len(got), got, len(raw), raw)
	}
	for _, d := range got {
		w, ok := want[d.Serial]
		if !ok {
			t.Errorf("unexpected device %+v", d)
			continue
		}
		if d.TransportID == "" {
			t.Errorf("%s: no transport id", d.Serial)
		}
		w.TransportID = d.TransportID
		if d != w {
			t.Errorf("got  %+v\nwant %+v", d, w)
		}
	}
}

// Defect 5: exit codes, with stdout and stderr apart (the fake speaks
// shell_v2, as every Android since 7 does).
func TestIntegrationShell(t *testing.T) {
	s, c := server(t)
	fake := s.AttachT(t, adbd.Config{Props: map[string]string{"droidstar.multi": "first line\nsecond line"}})
	ctx := testCtx(t)
	d := c.Device(fake.Addr())

	if fs, err := d.Features(ctx); err != nil || !contains(fs, "shell_v2") {
		t.Fatalf("Features = %v, %v; want shell_v2 among them", fs, err)
	}
	for _, tt := range []struct {
		cmd            string
		stdout, stderr string
		exit           int
	}{
		{cmd: "echo hello", stdout: "hello\n"},
		{cmd: "echo " + adbclient.Quote("it's a test; really"), stdout: "it's a test; really\n"},
		{cmd: "no-such-command", stderr: "no-such-command: inaccessible or not found", exit: 127},
		{cmd: "mkdir /system/x", stderr: "Read-only file system", exit: 1},
		{cmd: "echo a && no-such-command || echo b", stdout: "a\nb\n", stderr: "not found"},
		// Longer than 255 bytes, which goadb could not even send.
		{cmd: "echo " + strings.Repeat("y", 600), stdout: strings.Repeat("y", 600) + "\n"},
	} {
		r, err := d.Shell(ctx, tt.cmd)
		if err != nil {
			t.Errorf("Shell(%.40q): %v", tt.cmd, err)
			continue
		}
		if r.Exit != tt.exit || r.Stdout != tt.stdout || !strings.Contains(r.Stderr, tt.stderr) || (tt.stderr == "" && r.Stderr != "") {
			t.Errorf("Shell(%.40q) = %+v\nwant stdout %q, stderr containing %q, exit %d", tt.cmd, r, tt.stdout, tt.stderr, tt.exit)
		}
	}

	props, err := d.Properties(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if props["droidstar.multi"] != "first line\nsecond line" || props["ro.product.model"] != "Fake" {
		t.Fatalf("Properties: multi %q, model %q", props["droidstar.multi"], props["ro.product.model"])
	}
}

// Defect 2: adbd's refusal of a push comes back as an error in its words;
// a good push lands with its mode and time.
func TestIntegrationPush(t *testing.T) {
	s, c := server(t)
	fake := s.AttachT(t, adbd.Config{})
	ctx := testCtx(t)
	d := c.Device(fake.Addr())

	data := bytes.Repeat([]byte("droidstar "), 30000) // several 64 KiB chunks
	mtime := time.Unix(1700000000, 0)
	if err := d.Push(ctx, bytes.NewReader(data), "/data/local/tmp/dir/pushed", 0o640, mtime); err != nil {
		t.Fatal(err)
	}
	host := filepath.Join(fake.Root(), "data", "local", "tmp", "dir", "pushed")
	got, err := os.ReadFile(host)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("pushed file: %d bytes, %v; want %d bytes", len(got), err, len(data))
	}
	if fi, err := os.Stat(host); err != nil || fi.Mode().Perm() != 0o640 || !fi.ModTime().Equal(mtime) {
		t.Fatalf("pushed file: %v, %v", fi.Mode(), fi.ModTime())
	}

	err = d.Push(ctx, bytes.NewReader(data), "/system/app/pushed", 0o644, time.Time{})
	var se *adbclient.SyncError
	if !errors.As(err, &se) || !strings.Contains(se.Message, "Read-only file system") {
		t.Fatalf("push onto /system: %v; want adbd's Read-only file system", err)
	}
	t.Logf("push onto /system: %v", err)
	if !strings.Contains(err.Error(), fake.Addr()) || !strings.Contains(err.Error(), "/system/app/pushed") {
		t.Fatalf("push error %q should name the device and the path", err)
	}
	// The connection to the device is still good after the refusal.
	if r, err := d.Shell(ctx, "echo ok"); err != nil || r.Stdout != "ok\n" {
		t.Fatalf("Shell after a refused push: %+v, %v", r, err)
	}
}

// Defect 3: install, its failure in the installer's words, and the temp
// file gone either way.
func TestIntegrationInstall(t *testing.T) {
	s, c := server(t)
	ok := s.AttachT(t, adbd.Config{})
	full := s.AttachT(t, adbd.Config{InstallFailure: "Failure [INSTALL_FAILED_INSUFFICIENT_STORAGE]"})
	ctx := testCtx(t)
	apk := []byte("PK\x03\x04 not really an apk")
	tmp := func(f *adbd.Device) string {
		return filepath.Join(f.Root(), "data", "local", "tmp", "droidstar-harness.apk")
	}

	d := c.Device(ok.Addr())
	if err := d.Install(ctx, bytes.NewReader(apk), "droidstar-harness.apk"); err != nil {
		t.Fatal(err)
	}
	if !ok.Installed(adbd.HarnessPackage) {
		t.Fatal("Install succeeded but the app is not installed")
	}
	if _, err := os.Stat(tmp(ok)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the pushed APK was left behind: %v", err)
	}

	err := c.Device(full.Addr()).Install(ctx, bytes.NewReader(apk), "droidstar-harness.apk")
	if err == nil || !strings.Contains(err.Error(), "Failure [INSTALL_FAILED_INSUFFICIENT_STORAGE]") {
		t.Fatalf("Install on a full device: %v", err)
	}
	t.Logf("install on a full device: %v", err)
	if full.Installed(adbd.HarnessPackage) {
		t.Fatal("a failed install left the app installed")
	}
	if _, err := os.Stat(tmp(full)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the pushed APK was left behind after a failure: %v", err)
	}

	if err := d.Uninstall(ctx, adbd.HarnessPackage); err != nil {
		t.Fatal(err)
	}
	if ok.Installed(adbd.HarnessPackage) {
		t.Fatal("Uninstall left the app installed")
	}
	if err := d.Uninstall(ctx, adbd.HarnessPackage); err == nil || !strings.Contains(err.Error(), "Failure") {
		t.Fatalf("Uninstall of an absent app: %v", err)
	}
}

// Defect 4: a raw stream to an abstract socket reaches the harness; the
// instrumentation that serves it runs as a ShellStream.
func TestIntegrationOpenHarness(t *testing.T) {
	s, c := server(t)
	got := make(chan string, 1)
	fake := s.AttachT(t, adbd.Config{Harness: func(ctx context.Context, _ adbd.HarnessRun) (func(context.Context, io.ReadWriteCloser) bool, error) {
		return func(ctx context.Context, conn io.ReadWriteCloser) bool {
			line, err := bufio.NewReader(conn).ReadString('\n')
			if err != nil {
				return false
			}
			got <- line
			fmt.Fprintf(conn, "echo %s", line)
			return true
		}, nil
	}})
	ctx := testCtx(t)
	d := c.Device(fake.Addr())

	// Nothing listens yet: the server's "closed" becomes the error.
	_, err := d.Open(ctx, "localabstract:droidstar-test")
	var se *adbclient.ServerError
	if !errors.As(err, &se) {
		t.Fatalf("Open with nobody listening: %v, want the server's refusal", err)
	}
	t.Logf("open with nobody listening: %v", err)

	if err := d.Install(ctx, strings.NewReader("PK"), "h.apk"); err != nil {
		t.Fatal(err)
	}
	inst, err := d.ShellStream(ctx, "am instrument -w -e socket droidstar-test -e staging /data/local/tmp/files -e run r1 org.droidstar.harness/.HarnessInstrumentation")
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()

	// The socket appears some time after am instrument started; the fake
	// says when (droidstar itself can only retry, as on a phone).
	if err := fake.WaitListening(ctx, "droidstar-test"); err != nil {
		t.Fatal(err)
	}
	openCtx, cancel := context.WithCancel(ctx)
	stream, err := d.Open(openCtx, "localabstract:droidstar-test")
	cancel() // the stream outlives the context it was opened with
	if err != nil {
		t.Fatalf("open the harness socket: %v", err)
	}
	defer stream.Close()
	if _, err := io.WriteString(stream, "hello harness\n"); err != nil {
		t.Fatal(err)
	}
	reply, err := bufio.NewReader(stream).ReadString('\n')
	if err != nil || reply != "echo hello harness\n" {
		t.Fatalf("reply %q, %v", reply, err)
	}
	if line := <-got; line != "hello harness\n" {
		t.Fatalf("the harness got %q", line)
	}

	out, err := io.ReadAll(inst)
	if err != nil {
		t.Fatalf("instrumentation output: %v", err)
	}
	if !strings.Contains(string(out), "droidstar-harness=bye") {
		t.Fatalf("am instrument printed %q", out)
	}
	if exit, err := inst.Wait(); exit != 0 || err != nil {
		t.Fatalf("am instrument: exit %d, %v", exit, err)
	}
}

// The server's refusals about a device become typed errors that say what
// is wrong with it.
func TestIntegrationDeviceStates(t *testing.T) {
	s, c := server(t)
	unauth := s.AttachT(t, adbd.Config{State: adbd.Unauthorized})
	offline := s.AttachT(t, adbd.Config{State: adbd.Offline})
	ctx := testCtx(t)

	list, err := c.Devices(ctx)
	if err != nil {
		t.Fatal(err)
	}
	states := map[string]string{}
	for _, d := range list {
		states[d.Serial] = d.State
	}
	if states[unauth.Addr()] != "unauthorized" || states[offline.Addr()] != "offline" {
		t.Fatalf("states %v", states)
	}

	for _, tt := range []struct {
		serial, state, words string
	}{
		{"127.0.0.1:1", "not found", "not found"},
		{unauth.Addr(), "unauthorized", "RSA key"},
		{offline.Addr(), "offline", "offline"},
	} {
		d := c.Device(tt.serial)
		check := func(op string, err error) {
			t.Helper()
			var dse *adbclient.DeviceStateError
			if !errors.As(err, &dse) || dse.State != tt.state || dse.Serial != tt.serial || dse.Message == "" {
				t.Errorf("%s on %s: %v, want a %s DeviceStateError", op, tt.serial, err, tt.state)
				return
			}
			t.Logf("%s: %v", op, err)
			if !strings.Contains(err.Error(), tt.words) || !strings.Contains(err.Error(), tt.serial) {
				t.Errorf("%s on %s: %q should say %q and name the device", op, tt.serial, err, tt.words)
			}
		}
		_, err := d.Shell(ctx, "echo hi")
		check("Shell", err)
		_, err = d.Open(ctx, "localabstract:x")
		check("Open", err)
		err = d.Push(ctx, strings.NewReader("x"), "/data/local/tmp/x", 0o644, time.Time{})
		check("Push", err)
	}
}

// Connect and Disconnect through the real server.
func TestIntegrationConnect(t *testing.T) {
	_, c := server(t)
	ctx := testCtx(t)
	fake, err := adbd.Start(adbd.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Close()
	if err := c.Connect(ctx, fake.Addr()); err != nil {
		t.Fatal(err)
	}
	// adb answers "connected to" once the device's CNXN has put the
	// transport online (handle_online wakes the connect service), so the
	// device takes commands at once.
	if r, err := c.Device(fake.Addr()).Shell(ctx, "echo up"); err != nil || r.Stdout != "up\n" {
		t.Fatalf("the connected device ran no command: %+v, %v", r, err)
	}
	if err := c.Connect(ctx, fake.Addr()); err != nil {
		t.Fatalf("Connect again: %v", err)
	}
	if err := c.Disconnect(ctx, fake.Addr()); err != nil {
		t.Fatal(err)
	}
	err = c.Disconnect(ctx, fake.Addr())
	if err == nil {
		t.Fatal("Disconnect of a detached device succeeded")
	}
	t.Logf("disconnect of a detached device: %v", err)
	err = c.Connect(ctx, "127.0.0.1:1")
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Fatalf("Connect to a closed port: %v", err)
	}
	t.Logf("connect to a closed port: %v", err)
}

// Ensure finds the running private server, and with nothing listening
// and no adb program says how to get one.
func TestIntegrationEnsure(t *testing.T) {
	_, c := server(t)
	ctx := testCtx(t)
	if err := c.Ensure(ctx); err != nil {
		t.Fatal(err)
	}
	if v, err := c.Version(ctx); err != nil || v < 31 {
		t.Fatalf("Version = %d, %v", v, err)
	}

	// Port 1: nothing listens there, and unlike the closed server's port
	// the kernel never hands it to another test's socket.
	const port = 1
	missing := filepath.Join(t.TempDir(), "no-adb-here")
	err := adbclient.New(adbclient.Config{Port: port, ADB: missing}).Ensure(ctx)
	want := fmt.Sprintf("no adb server at localhost:%d, and no adb program at %s to start one: install it (apt-get install adb) or point droidstar at a running server with -H/-P or ADB_SERVER_SOCKET", port, missing)
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("Ensure with no server and no adb:\n got %v\nwant %s", err, want)
	}
	t.Logf("ensure with no server and no adb: %v", err)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
