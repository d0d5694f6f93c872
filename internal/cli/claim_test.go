package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/droidstar/droidstar/internal/adbclient"
	"github.com/droidstar/droidstar/internal/backend/adb"
	"github.com/droidstar/droidstar/internal/fake/adbd"
	"github.com/droidstar/droidstar/internal/fake/adbserver"
	"github.com/droidstar/droidstar/internal/model"
)

// TestOneRunPerDevice: a second learn on a device that a first one is
// learning on is refused at once, naming the first, and the first learns
// the model it learns alone; a claim left by a run that died is taken
// over with a note.
func TestOneRunPerDevice(t *testing.T) {
	s := adbserver.NewT(t)
	props := adbserver.Props("Pixel 8", "14", 34)
	h := simHarness(t, "asynctask")(props)
	file := repoPath("examples", "asynctask", "purpose.yaml")
	learn := func(t *testing.T, args ...string) (int, string, string, *model.Document) {
		t.Helper()
		out := t.TempDir()
		code, stdout, stderr := runEnv(t, nil, append([]string{"learn", file, "-P", port(s), "-o", out, "--write", "json", "--store", "off"}, args...)...)
		var doc *model.Document
		if data, err := os.ReadFile(filepath.Join(out, "AsyncTask.json")); err == nil {
			if doc, err = model.Unmarshal(data); err != nil {
				t.Fatal(err)
			}
		}
		return code, stdout, stderr, doc
	}

	// The second learn runs while the first's harness reads its third
	// run request: the first holds the device then, whatever the timing.
	type outcome struct {
		code   int
		stderr string
		doc    *model.Document
	}
	seconds := make(chan outcome, 1)
	var dev *adbd.Device
	var interrupt atomic.Bool
	interrupt.Store(true)
	intruder := func(ctx context.Context, run adbd.HarnessRun) (func(context.Context, io.ReadWriteCloser) bool, error) {
		serve, err := h(ctx, run)
		// Only the first run's first harness brings in the second run.
		if err != nil || !interrupt.Swap(false) {
			return serve, err
		}
		return func(ctx context.Context, conn io.ReadWriteCloser) bool {
			return serve(ctx, &countingConn{ReadWriteCloser: conn, n: 3, after: func() {
				var o outcome
				o.code, _, o.stderr, o.doc = learn(t, "--device", dev.Addr())
				seconds <- o
			}})
		}, nil
	}
	dev = s.AttachT(t, adbd.Config{Props: props, Harness: intruder})

	code, stdout, stderr, first := learn(t)
	if code != ExitOK {
		t.Fatalf("first run: exit %d\n%s", code, stderr)
	}
	wantBusy := regexp.MustCompile(`^droidstar: device ` + regexp.QuoteMeta(dev.Addr()) + ` is in use by another droidstar run \(run [0-9a-f]{12}, pid ` +
		fmt.Sprint(os.Getpid()) + ` on host ` + regexp.QuoteMeta(hostname(t)) + `, since \d\d:\d\d:\d\d, alive \d+s ago\): wait for it to end, or, if that run is gone, remove its claim with ` +
		"`adb -s " + regexp.QuoteMeta(dev.Addr()) + " shell rm -r /data/local/tmp/droidstar-claim`" + ` \(a claim not refreshed for 2m0s is taken over by itself\)\n$`)
	second := <-seconds
	if second.code != ExitFail || !wantBusy.MatchString(second.stderr) || second.doc != nil {
		t.Fatalf("second run: exit %d, model written %v\n%s", second.code, second.doc != nil, second.stderr)
	}

	// Alone on the device, the same purpose learns the same model.
	code, aloneOut, stderr, alone := learn(t)
	if code != ExitOK {
		t.Fatalf("run alone: exit %d\n%s", code, stderr)
	}
	if typestateLines(stdout) != typestateLines(aloneOut) || !reflect.DeepEqual(first.States, alone.States) || !reflect.DeepEqual(first.Transitions, alone.Transitions) {
		t.Errorf("disturbed run's typestate:\n%s\nalone:\n%s", typestateLines(stdout), typestateLines(aloneOut))
	}

	// A run killed without releasing leaves its claim; its process is gone,
	// so the next run on this host takes the device over and says so.
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	owner := fmt.Sprintf("run=0123456789ab\nhost=%s\npid=%d\nstarted=%s\nrefreshed=%[3]s\n", hostname(t), gone.Process.Pid, time.Now().UTC().Format(time.RFC3339))
	d := adbclient.New(adbclient.Config{Host: "127.0.0.1", Port: s.Port(), Env: s.Env()}).Device(dev.Addr())
	if r, err := d.Shell(context.Background(), "mkdir "+adb.ClaimDir); err != nil || r.Exit != 0 {
		t.Fatalf("mkdir: %v %+v", err, r)
	}
	if err := d.Push(context.Background(), bytes.NewReader([]byte(owner)), adb.ClaimDir+"/owner", 0o644, time.Now()); err != nil {
		t.Fatal(err)
	}
	code, _, stderr, _ = learn(t)
	note := fmt.Sprintf("droidstar: device %s: taking over the claim of run 0123456789ab, whose process %d on this host is gone\n", dev.Addr(), gone.Process.Pid)
	if code != ExitOK || !strings.Contains(stderr, note) {
		t.Errorf("stale claim: exit %d\n%s\nwant the note %q", code, stderr, note)
	}
	// Every run released its claim.
	if r, err := d.Shell(context.Background(), "cat "+adb.ClaimDir+"/owner"); err != nil || r.Exit == 0 {
		t.Errorf("a claim is left: %v %q", err, r.Stdout)
	}

	// Removing the harness app under a live run would end that run.
	live := fmt.Sprintf("run=ba9876543210\nhost=%s\npid=%d\nstarted=%s\nrefreshed=%[3]s\n", hostname(t), os.Getpid(), time.Now().UTC().Format(time.RFC3339))
	if r, err := d.Shell(context.Background(), "mkdir "+adb.ClaimDir); err != nil || r.Exit != 0 {
		t.Fatalf("mkdir: %v %+v", err, r)
	}
	if err := d.Push(context.Background(), bytes.NewReader([]byte(live)), adb.ClaimDir+"/owner", 0o644, time.Now()); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = runEnv(t, nil, "harness", "uninstall", "-P", port(s), "--device", dev.Addr())
	if code != ExitFail || stdout != "" || !strings.HasPrefix(stderr, "droidstar: device "+dev.Addr()+" is in use by another droidstar run (run ba9876543210, pid ") ||
		!strings.HasSuffix(stderr, "droidstar: harness uninstall failed on 1 of 1 device\n") {
		t.Errorf("harness uninstall on a claimed device: exit %d\n%s%s", code, stdout, stderr)
	}
}

func hostname(t *testing.T) string {
	t.Helper()
	h, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	return h
}
