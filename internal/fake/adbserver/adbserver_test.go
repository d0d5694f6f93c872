package adbserver_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/droidstar/droidstar/internal/fake/adbd"
	"github.com/droidstar/droidstar/internal/fake/adbserver"
)

func TestFourDevices(t *testing.T) {
	t.Parallel()
	s := adbserver.NewT(t)
	ctx := context.Background()
	type phone struct{ sdk, release, model, name, device string }
	phones := []phone{
		{"23", "6.0", "Nexus_5", "hammerhead", "hammerhead"},
		{"26", "8.0.0", "Pixel", "sailfish", "sailfish"},
		{"29", "10", "Pixel_3", "blueline", "blueline"},
		{"34", "14", "Pixel_8", "shiba", "shiba"},
	}
	devs := make([]*adbd.Device, len(phones))
	for i, p := range phones {
		d, err := s.Attach(ctx, adbd.Config{Props: map[string]string{
			"ro.build.version.sdk": p.sdk, "ro.build.version.release": p.release,
			"ro.product.model": p.model, "ro.product.name": p.name, "ro.product.device": p.device,
		}})
		if err != nil {
			t.Fatal(err)
		}
		devs[i] = d
	}
	out, err := s.ADB(ctx, "devices", "-l")
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range phones {
		want := fmt.Sprintf("device product:%s model:%s device:%s transport_id:", p.name, p.model, p.device)
		found := false
		for _, line := range strings.Split(out, "\n") {
			if f := strings.Fields(line); len(f) > 0 && f[0] == devs[i].Addr() {
				found = strings.Contains(strings.Join(f[1:], " "), want)
			}
		}
		if !found {
			t.Errorf("adb devices -l has no %q for %s:\n%s", want, devs[i].Addr(), out)
		}
	}
	// All four at once, so that the server's transports really overlap.
	var wg sync.WaitGroup
	for i, p := range phones {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := s.ADB(ctx, "-s", devs[i].Addr(), "shell", "getprop ro.build.version.sdk && getprop ro.product.model")
			if want := p.sdk + "\n" + p.model + "\n"; err != nil || got != want {
				t.Errorf("%s: getprop = %q, %v; want %q", devs[i].Addr(), got, err, want)
			}
		}()
	}
	wg.Wait()
	_, err = s.ADB(ctx, "-s", devs[0].Addr(), "shell", "cat /missing")
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Errorf("adb shell cat /missing: %v, want exit status 1", err)
	}
}

func TestEnvReachesServer(t *testing.T) {
	t.Parallel()
	s := adbserver.NewT(t)
	d, err := s.Attach(context.Background(), adbd.Config{})
	if err != nil {
		t.Fatal(err)
	}
	// No -P: ANDROID_ADB_SERVER_PORT in Env must find this server.
	cmd := exec.Command("adb", "devices")
	cmd.Env = s.Env()
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), d.Addr()+"\tdevice\n") {
		t.Errorf("adb devices with Env(): %v\n%s", err, out)
	}
}

func TestCloseCleansUp(t *testing.T) {
	t.Parallel()
	s, err := adbserver.Start(context.Background())
	if errors.Is(err, adbserver.ErrNoADB) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	d, err := s.Attach(context.Background(), adbd.Config{})
	if err != nil {
		s.Close()
		t.Fatal(err)
	}
	home, tmp := s.Dirs()
	// Connections opened before Close must end with it. (Dialing the
	// addresses afterwards proves nothing: the kernel may already have
	// given the ports to a test running beside this one.)
	var conns []net.Conn
	for _, addr := range []string{s.Addr(), d.Addr()} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns = append(conns, c)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for i, what := range []string{"server", "fake"} {
		conns[i].SetDeadline(time.Now().Add(30 * time.Second))
		if n, err := conns[i].Read(make([]byte, 1)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("a connection to the %s survived Close (read %d bytes, %v)", what, n, err)
		}
	}
	for _, dir := range []string{home, tmp, d.Root()} {
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%s is left behind (%v)", dir, err)
		}
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestAttachStates(t *testing.T) {
	t.Parallel()
	s := adbserver.NewT(t)
	ctx := context.Background()
	for _, st := range []adbd.State{adbd.Unauthorized, adbd.Offline, adbd.Ready} {
		start := time.Now()
		d, err := s.Attach(ctx, adbd.Config{State: st})
		if err != nil {
			t.Fatal(err)
		}
		// An offline device's adb connect takes 10 s to give up; Attach
		// must not wait for it.
		if el := time.Since(start); el > 5*time.Second {
			t.Errorf("attaching a %s device took %s", st, el)
		}
		states, err := s.Devices(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if states[d.Addr()] != st.String() {
			t.Errorf("%s is %q, want %q", d.Addr(), states[d.Addr()], st)
		}
	}
}

// fakeTB records how NewT gave up.
type fakeTB struct {
	skipped, failed string
}

func (f *fakeTB) Helper()        {}
func (f *fakeTB) Cleanup(func()) {}
func (f *fakeTB) Skipf(format string, args ...any) {
	f.skipped = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
func (f *fakeTB) Errorf(format string, args ...any) { f.failed = fmt.Sprintf(format, args...) }
func (f *fakeTB) Logf(format string, args ...any)   {}
func (f *fakeTB) Failed() bool                      { return f.failed != "" }

func runNewT(tb *fakeTB) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		adbserver.NewT(tb)
	}()
	<-done
}

func TestNewTWithoutADB(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv(adbserver.RequireEnv, "")
	var tb fakeTB
	runNewT(&tb)
	if !strings.Contains(tb.skipped, "apt-get install adb") || tb.failed != "" {
		t.Errorf("without adb: skipped %q, failed %q", tb.skipped, tb.failed)
	}
	t.Setenv(adbserver.RequireEnv, "1")
	tb = fakeTB{}
	runNewT(&tb)
	if !strings.Contains(tb.failed, "apt-get install adb") || tb.skipped != "" {
		t.Errorf("without adb, %s=1: skipped %q, failed %q", adbserver.RequireEnv, tb.skipped, tb.failed)
	}
}
