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
	first, err := a.hold(ctx, dev)
	if err != nil {
		t.Fatal(err)
	}
	second, err := a.hold(ctx, dev)
	if err != nil {
		t.Fatal(err)
	}
	if h := history(); h != "0 2" {
		t.Fatalf("two holders: %s went %s, want 0 2", StayOnSetting, h)
	}
	other, err := NewAwake(&warn).hold(ctx, dev)
	if err != nil {
		t.Fatal(err)
	}
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
