package adb_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	harnessapk "github.com/droidstar/droidstar/harness-apk"
	"github.com/droidstar/droidstar/internal/adbclient"
	"github.com/droidstar/droidstar/internal/backend/adb"
	"github.com/droidstar/droidstar/internal/backend/sim"
	"github.com/droidstar/droidstar/internal/compose"
	"github.com/droidstar/droidstar/internal/doctor"
	"github.com/droidstar/droidstar/internal/engine"
	"github.com/droidstar/droidstar/internal/fake/adbd"
	"github.com/droidstar/droidstar/internal/fake/adbserver"
	"github.com/droidstar/droidstar/internal/fake/simharness"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/purpose"
)

var (
	discoveryPurpose = filepath.Join("..", "..", "..", "testdata", "purposes", "adb", "discovery-fast.yaml")
	discoveryModel   = filepath.Join("..", "..", "..", "testdata", "purposes", "adb", "discovery.dot")
)

// discoveryHarness answers from discovery.dot and refuses startDiscovery
// (returns false) whenever the app's location check would on the device:
// adbd.App.Discovers, asked as each query runs.
func discoveryHarness(t *testing.T, p *purpose.Purpose) adbd.HarnessFunc {
	t.Helper()
	data, err := os.ReadFile(discoveryModel)
	if err != nil {
		t.Fatal(err)
	}
	m, err := sim.ParseModel("discovery.dot", data, "")
	if err != nil {
		t.Fatal(err)
	}
	return func(ctx context.Context, _ adbd.HarnessRun) (func(context.Context, io.ReadWriteCloser) bool, error) {
		app, ok := adbd.AppOf(ctx)
		if !ok {
			t.Error("the harness's context has no app")
		}
		o := simharness.Options{
			Model:         m,
			Timing:        sim.Timing{Quiescence: p.Timeouts.Quiescence, Reset: p.Timeouts.Settle + p.Timeouts.PostReset, DefaultLatency: time.Millisecond},
			CallbackNames: simharness.PurposeCallbackNames(p),
			Refuses:       func(callin string) bool { return callin == "startDiscovery" && !app.Discovers() },
		}
		return func(ctx context.Context, conn io.ReadWriteCloser) bool {
			bye, _ := simharness.Serve(ctx, conn, o)
			return bye
		}, nil
	}
}

// learnDiscovery learns the discovery purpose on one fake Android 11
// device whose current user is 10, with the adb options o.
func learnDiscovery(t *testing.T, o adb.Options) (*engine.Result, *adbd.Device, *doctor.PurposeStatus) {
	t.Helper()
	s := adbserver.NewT(t)
	p, err := purpose.Load(discoveryPurpose)
	if err != nil {
		t.Fatal(err)
	}
	d, err := s.Attach(context.Background(), adbd.Config{Props: adbserver.Props("Pixel 5", "11", 30), CurrentUser: 10, Harness: discoveryHarness(t, p)})
	if err != nil {
		t.Fatal(err)
	}
	o.APK, o.Host, o.Log = harnessapk.APK, "droidstar test", &lockedLog{}
	o.Deadline = adb.Deadline{PerQuery: 20 * time.Millisecond, Margin: time.Second}
	plan, err := compose.Build(context.Background(), compose.Source{Purpose: p}, compose.Options{Backend: compose.BackendOptions{ADB: compose.ADBOptions{
		Client:    adbclient.New(adbclient.Config{Host: "127.0.0.1", Port: s.Port()}),
		Selection: adb.Selection{Devices: []string{d.Addr()}},
		Options:   o,
	}}, Pipeline: compose.Pipeline{Repeat: compose.DefaultRepeat}})
	if err != nil {
		t.Fatal(err)
	}
	res, _, err := learn(t, plan)
	if err != nil {
		t.Fatal(err)
	}
	if err := plan.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	// doctor on the same device, with the same options.
	client := adbclient.New(adbclient.Config{Host: "127.0.0.1", Port: s.Port()})
	devs, err := client.Devices(context.Background())
	if err != nil || len(devs) != 1 {
		t.Fatalf("devices %v, %v", devs, err)
	}
	report, err := doctor.Check(context.Background(), client, devs, []*purpose.Purpose{p}, doctor.Options{Harness: o, AudioMs: -1})
	if err != nil {
		t.Fatal(err)
	}
	return res, d, &report.Devices[0].Purposes[0]
}

// simulatedDiscovery learns the discovery purpose from its model on the
// sim backend: what a device that lets discovery through must give.
func simulatedDiscovery(t *testing.T) *mealy.Machine {
	t.Helper()
	p, err := purpose.Load(discoveryPurpose)
	if err != nil {
		t.Fatal(err)
	}
	p.Backend.Kind = purpose.BackendSim
	p.Backend.Sim = &purpose.SimBackend{ModelPath: discoveryModel}
	plan, err := compose.Build(context.Background(), compose.Source{Purpose: p}, compose.Options{Pipeline: compose.Pipeline{Repeat: compose.DefaultRepeat}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := engine.Run(context.Background(), plan.Job, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res.Machine
}

// startDiscovery is what the learned machine answers to startDiscovery
// from its initial state.
func startDiscovery(t *testing.T, m *mealy.Machine) string {
	t.Helper()
	in, ok := m.Inputs.Index("startDiscovery")
	if !ok {
		t.Fatalf("no startDiscovery among %v", m.Inputs)
	}
	out, _ := m.Run(mealy.Word{in})
	return m.Outputs.Name(out[0])
}

// TestDiscoveryOnAndroid11AllowsTheLocationOp: on Android 11 the granted
// coarse-location permission leaves the harness's location op in
// foreground mode, which its instrumented process may not use; the run
// sets the op's uid mode to allow for the user the harness runs as, learns
// the discovery transitions the model has, and puts foreground back.
// With the op left alone (KeepLocationOps, the old behaviour) the same
// run learns that startDiscovery always answers err: a restriction that
// is the device's, not the class's.
func TestDiscoveryOnAndroid11AllowsTheLocationOp(t *testing.T) {
	res, d, status := learnDiscovery(t, adb.Options{})
	if same, err := res.Machine.Equivalent(simulatedDiscovery(t)); err != nil || !same {
		t.Errorf("learned another model than the simulation's (%v)", err)
	}
	if got := startDiscovery(t, res.Machine); got != "ok" {
		t.Errorf("startDiscovery from the start answers %s, want ok", got)
	}
	if mode, uid := d.AppOp(adbd.HarnessPackage, 10, "COARSE_LOCATION"); mode != "foreground" || !uid {
		t.Errorf("after the run the op is %q (uid %v), want the uid mode foreground back", mode, uid)
	}

	// doctor: ready, with a note on what learn does (and one on the
	// purpose's short quiescence, which the probe's default timing finds).
	wantNote := "the harness's COARSE_LOCATION app-op is foreground, which its instrumented process evaluates to ignore; learn allows it for its runs and puts foreground back"
	if !status.Ready || len(status.Notes) != 2 || status.Notes[0] != wantNote {
		t.Errorf("doctor: ready %v, missing %q, notes %q; want ready with the note %q", status.Ready, status.Missing, status.Notes, wantNote)
	}

	res, d, status = learnDiscovery(t, adb.Options{KeepLocationOps: true})
	if got := startDiscovery(t, res.Machine); got != "err" {
		t.Errorf("without the op allowed, startDiscovery answers %s, want err", got)
	}
	// One state where discovery never starts, and the error sink.
	if res.Machine.NumStates() != 2 {
		t.Errorf("without the op allowed: %d states, want 2: a class that never discovers, and the error sink", res.Machine.NumStates())
	}
	if mode, uid := d.AppOp(adbd.HarnessPackage, 10, "COARSE_LOCATION"); mode != "foreground" || !uid {
		t.Errorf("KeepLocationOps changed the op: %q (uid %v)", mode, uid)
	}
	// doctor says why.
	wantMissing := "the harness's COARSE_LOCATION app-op is foreground, which its instrumented process evaluates to ignore: calls that need location (startDiscovery) return false, and learning leaves the op as it is"
	if status.Ready || len(status.Missing) != 1 || status.Missing[0] != wantMissing {
		t.Errorf("doctor with the op kept: ready %v, missing %q; want %q", status.Ready, status.Missing, wantMissing)
	}
}
