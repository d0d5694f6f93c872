package adb

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/adbclient"
	"github.com/droidstar/droidstar/internal/fake/adbd"
	"github.com/droidstar/droidstar/internal/fake/adbserver"
)

// Executors holding one device through one Awake never fight: the first
// sets stay-on, the last to leave puts the first value back, once; a
// second Awake (another command) finds the device set and changes
// nothing.
func TestAwakeSharesADevice(t *testing.T) {
	s := adbserver.NewT(t)
	d, err := s.Attach(context.Background(), adbd.Config{})
	if err != nil {
		t.Fatal(err)
	}
	dev := adbclient.New(adbclient.Config{Host: "127.0.0.1", Port: s.Port(), Env: s.Env()}).Device(d.Addr())
	ctx := context.Background()
	history := func() string { return strings.Join(d.SettingHistory(StayOnSetting), " ") }

	var warn bytes.Buffer
	a := NewAwake(&warn)
	first, w1 := a.hold(ctx, dev)
	second, w2 := a.hold(ctx, dev)
	if w1 != "" || w2 != "" {
		t.Fatalf("warnings %q %q", w1, w2)
	}
	if h := history(); h != "0 2" {
		t.Fatalf("two holders: %s went %s, want 0 2", StayOnSetting, h)
	}
	other, _ := NewAwake(&warn).hold(ctx, dev)
	if err := first(); err != nil {
		t.Fatal(err)
	}
	if err := first(); err != nil { // a second call does nothing
		t.Fatal(err)
	}
	if err := other(); err != nil {
		t.Fatal(err)
	}
	if h := history(); h != "0 2" {
		t.Fatalf("one of two holders left: %s went %s, want 0 2", StayOnSetting, h)
	}
	if err := second(); err != nil {
		t.Fatal(err)
	}
	if h := history(); h != "0 2 0" || warn.Len() != 0 {
		t.Errorf("both left: %s went %s (want 0 2 0), warnings %q", StayOnSetting, h, warn.String())
	}
}

// A device whose shell may not write settings (svc power stayon changes
// nothing) is warned about once, by the first holder, and nothing is put
// back: staying awake is a convenience, not a reason to stop.
func TestAwakeWarnsWhenTheDeviceWillNotStayOn(t *testing.T) {
	s := adbserver.NewT(t)
	d, err := s.Attach(context.Background(), adbd.Config{StayOnIgnored: true})
	if err != nil {
		t.Fatal(err)
	}
	dev := adbclient.New(adbclient.Config{Host: "127.0.0.1", Port: s.Port(), Env: s.Env()}).Device(d.Addr())
	ctx := context.Background()
	var log bytes.Buffer
	a := NewAwake(&log)
	first, warning := a.hold(ctx, dev)
	second, again := a.hold(ctx, dev)
	want := "device " + d.Addr() + ": cannot keep its screen on (svc power stayon usb left stay_on_while_plugged_in at 0); " +
		"learning goes on, but a device that sleeps answers late or not at all: keep it awake by hand, or pass --keep-awake=false to skip this"
	if warning != want || again != "" {
		t.Errorf("warnings %q and %q, want %q and none", warning, again, want)
	}
	if log.String() != "droidstar: "+want+"\n" {
		t.Errorf("log %q", log.String())
	}
	if err := first(); err != nil {
		t.Fatal(err)
	}
	if err := second(); err != nil {
		t.Fatal(err)
	}
	if h := strings.Join(d.SettingHistory(StayOnSetting), " "); h != "0" {
		t.Errorf("%s went %s, want 0 (never written)", StayOnSetting, h)
	}
}
