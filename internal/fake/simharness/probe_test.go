package simharness

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/droidstar/droidstar/internal/harness"
)

// TestProbe: the simulated device answers probe from Options.Probe (Good
// by default) shaped by the request, through the host's client.
func TestProbe(t *testing.T) {
	ctx := context.Background()
	_, m, timing := example(t, "asynctask")
	c, _ := client(t, Options{Model: m, Timing: timing})
	got, err := c.Probe(ctx, harness.ProbeRequest{File: harness.ProbeFile, Samples: 3, AudioMs: 200, URLs: []string{"https://www.example.com/"}, Permissions: []string{"android.permission.RECORD_AUDIO"}})
	if err != nil {
		t.Fatal(err)
	}
	line, _ := json.Marshal(got)
	want := `{"files":{"staging":{"read":{"ok":true},"create":{"ok":false,"errno":"EACCES","message":"android.system.ErrnoException: open failed: EACCES (Permission denied)"},"append":{"ok":false,"errno":"EACCES","message":"android.system.ErrnoException: open failed: EACCES (Permission denied)"},"truncate":{"ok":false,"errno":"EACCES","message":"android.system.ErrnoException: open failed: EACCES (Permission denied)"},"unlink":{"ok":false,"errno":"EACCES","message":"android.system.ErrnoException: remove failed: EACCES (Permission denied)"}},"private":{"read":{"ok":true},"create":{"ok":true},"append":{"ok":true},"truncate":{"ok":true},"unlink":{"ok":true}}},"jar":{"ok":true},"proxy":{"listener":"android.os.MessageQueue$IdleHandler","ok":true,"callback":"queueIdle"},"callbacks":[{"source":"android.os.CountDownTimer","delay_ms":50,"samples":3,"missed":0,"p50_ms":0,"p90_ms":0,"p99_ms":0,"max_ms":0,"error":null},{"source":"android.os.AsyncTask","delay_ms":0,"samples":3,"missed":0,"p50_ms":0,"p90_ms":0,"p99_ms":0,"max_ms":0,"error":null}],"quiescence_ms":100,"audio":{"available":true,"ok":true,"ms":200,"peak":1200,"rms":150},"permissions":[],"urls":[{"url":"https://www.example.com/","ok":true,"status":200,"ms":0.0}],"bluetooth":null}`
	if string(line) != want {
		t.Errorf("probe of the good device:\n got %s\nwant %s", line, want)
	}

	// A device without a microphone or network, whose timer misses.
	r := Good()
	r.Audio = harness.ProbeAudio{Available: true, Attempt: harness.Failed("", "java.lang.IllegalStateException: AudioRecord did not initialise (no microphone, or it is in use)")}
	r.URLs = []harness.URLCheck{{URL: "https://www.example.com/", Attempt: harness.Failed("", "java.net.UnknownHostException: www.example.com")}}
	r.Callbacks[0].Missed = 2
	c, _ = client(t, Options{Model: m, Timing: timing, Probe: &r})
	got, err = c.Probe(ctx, harness.ProbeRequest{Samples: 5, AudioMs: 100, URLs: []string{"https://www.example.com/", "https://other.example/"}})
	if err != nil {
		t.Fatal(err)
	}
	if a := got.Audio; !a.Available || a.OK || a.Message != r.Audio.Message {
		t.Errorf("audio: %+v", a)
	}
	if len(got.URLs) != 2 || got.URLs[0].OK || !got.URLs[1].OK || got.URLs[1].Status != 200 {
		t.Errorf("urls: %+v", got.URLs)
	}
	if cb := got.Callbacks[0]; cb.Samples != 3 || cb.Missed != 2 {
		t.Errorf("callbacks: %+v", cb)
	}

	// No samples, no recording: nothing timed, nothing heard.
	got, err = c.Probe(ctx, harness.ProbeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if got.QuiescenceMs != nil || got.Audio.Available || got.Callbacks[0].P50 != nil || got.Callbacks[0].Samples != 0 {
		t.Errorf("an empty probe: %+v", got)
	}
}

// TestProbePairedBluetooth: the simulated device says which of the
// addresses asked about it is paired with (Options.PairedBluetooth), or
// what Options.Probe says instead (Bluetooth off).
func TestProbePairedBluetooth(t *testing.T) {
	ctx := context.Background()
	_, m, timing := example(t, "asynctask")
	asked := []string{"00:11:22:AA:BB:CC", "00:00:5E:00:53:01"}
	c, _ := client(t, Options{Model: m, Timing: timing, PairedBluetooth: []string{"E4:A4:71:9C:14:12", "00:11:22:aa:bb:cc"}})
	got, err := c.Probe(ctx, harness.ProbeRequest{BluetoothPaired: asked})
	if err != nil {
		t.Fatal(err)
	}
	if line, _ := json.Marshal(got.Bluetooth); string(line) != `{"available":true,"ok":true,"paired":["00:11:22:AA:BB:CC"]}` {
		t.Errorf("bluetooth: %s", line)
	}
	if !got.Bluetooth.IsPaired("00:11:22:AA:BB:CC") || got.Bluetooth.IsPaired("00:00:5E:00:53:01") {
		t.Errorf("IsPaired: %+v", got.Bluetooth)
	}
	r := Good()
	r.Bluetooth = &harness.ProbeBluetooth{Available: true, Attempt: harness.Failed("", "java.lang.IllegalStateException: Bluetooth is off, and Android lists paired devices only while it is on")}
	c, _ = client(t, Options{Model: m, Timing: timing, Probe: &r})
	got, err = c.Probe(ctx, harness.ProbeRequest{BluetoothPaired: asked})
	if err != nil {
		t.Fatal(err)
	}
	if line, _ := json.Marshal(got.Bluetooth); string(line) != `{"available":true,"ok":false,"errno":null,"message":"java.lang.IllegalStateException: Bluetooth is off, and Android lists paired devices only while it is on"}` {
		t.Errorf("bluetooth off: %s", line)
	}
	if got, _ := c.Probe(ctx, harness.ProbeRequest{}); got.Bluetooth != nil {
		t.Errorf("nothing asked, yet bluetooth %+v", got.Bluetooth)
	}
}

// TestProbeRefusesCleartextFromAndroid9: the harness targets API 28, so on
// Android 9 and later an http:// URL fails as the platform's network
// security policy makes it fail; before, and for https, it answers.
func TestProbeRefusesCleartextFromAndroid9(t *testing.T) {
	ctx := context.Background()
	_, m, timing := example(t, "asynctask")
	urls := []string{"http://www.example.com:8080/a?b", "https://www.example.com/", "HTTP://Host.example"}
	for _, tc := range []struct {
		sdk  int
		want string
	}{
		{28, `[{"url":"http://www.example.com:8080/a?b","ok":false,"errno":null,"message":"java.net.UnknownServiceException: CLEARTEXT communication to www.example.com not permitted by network security policy","ms":0.0},` +
			`{"url":"https://www.example.com/","ok":true,"status":200,"ms":0.0},` +
			`{"url":"HTTP://Host.example","ok":false,"errno":null,"message":"java.net.UnknownServiceException: CLEARTEXT communication to Host.example not permitted by network security policy","ms":0.0}]`},
		{27, `[{"url":"http://www.example.com:8080/a?b","ok":true,"status":200,"ms":0.0},{"url":"https://www.example.com/","ok":true,"status":200,"ms":0.0},{"url":"HTTP://Host.example","ok":true,"status":200,"ms":0.0}]`},
	} {
		c, _ := client(t, Options{Model: m, Timing: timing, Hello: harness.Hello{SDK: tc.sdk}})
		got, err := c.Probe(ctx, harness.ProbeRequest{URLs: urls})
		if err != nil {
			t.Fatal(err)
		}
		line, _ := json.Marshal(got.URLs)
		if string(line) != tc.want {
			t.Errorf("SDK %d:\n got %s\nwant %s", tc.sdk, line, tc.want)
		}
	}
}
