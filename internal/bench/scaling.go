package bench

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"time"

	"github.com/droidstar/droidstar/examples"
	harnessapk "github.com/droidstar/droidstar/harness-apk"
	"github.com/droidstar/droidstar/internal/adb"
	"github.com/droidstar/droidstar/internal/adb/adbtest"
	"github.com/droidstar/droidstar/internal/adb/fakeadbd"
	adbbackend "github.com/droidstar/droidstar/internal/backend/adb"
	"github.com/droidstar/droidstar/internal/backend/sim"
	"github.com/droidstar/droidstar/internal/harness/simharness"
	"github.com/droidstar/droidstar/internal/purpose"
	"github.com/droidstar/droidstar/internal/session"
)

// ScalingExample is the example the scaling suite learns by default: on one
// device it executes 80 queries taking about 33 s, long enough that the
// per-query cost of ADB and the harness protocol does not hide what more
// devices gain, short enough to run 1, 2 and 4 devices in about a minute.
const ScalingExample = "asynctask"

// ScalingTarget is the speed-up the scaling suite aims for at
// ScalingTargetDevices devices.
const (
	ScalingTarget        = 3.0
	ScalingTargetDevices = 4
)

// ScalingRow is the outcome of learning the example on some devices.
type ScalingRow struct {
	Devices    int
	WallSecs   float64 // the learning run alone, without attaching and installing
	SpeedUp    float64 // the first row's WallSecs over this row's
	Executed   int
	DeviceSecs float64
	Queries    []int // executed per device, in the order the devices were listed
	Equal      bool  // learned typestate equivalent to the example's model
}

// ScalingOptions tune RunScalingWith.
type ScalingOptions struct {
	// Speed divides every duration the fake devices take (the example's
	// quiescence, reset and callback latencies); 0 means 1, real time.
	// Only tests raise it, to keep a run over real ADB short: the
	// benchmark's wall times mean something only in real time.
	Speed float64
	// Host identifies droidstar in the harness hello; empty means
	// "droidstar bench".
	Host string
}

// RunScaling learns an example over real ADB on 1, 2, ... fake devices
// (one count per row, in the order given) whose harnesses answer from the
// example's model in real time, so that the rows' wall times show what
// sharing the queries among devices gains. It needs adb on PATH
// (adbtest.ErrNoADB otherwise). Speed-ups are relative to the first count.
func RunScaling(ctx context.Context, example string, counts []int) ([]ScalingRow, error) {
	return RunScalingWith(ctx, example, counts, ScalingOptions{})
}

// RunScalingWith is RunScaling with options.
func RunScalingWith(ctx context.Context, example string, counts []int, o ScalingOptions) ([]ScalingRow, error) {
	if len(counts) == 0 {
		return nil, errors.New("scaling: no device counts")
	}
	for _, n := range counts {
		if n < 1 {
			return nil, fmt.Errorf("scaling: device counts must be at least 1, got %d", n)
		}
	}
	if !HaveADB() {
		return nil, fmt.Errorf("scaling: %w", adbtest.ErrNoADB)
	}
	if o.Speed < 0 {
		return nil, fmt.Errorf("scaling: speed must be positive, got %g", o.Speed)
	}
	if o.Speed == 0 {
		o.Speed = 1
	}
	if o.Host == "" {
		o.Host = "droidstar bench"
	}
	// The sim plan is both what the fakes answer from and what each
	// learned machine is compared with, so the comparison sees exactly the
	// model the devices ran.
	sp, err := examples.Purpose(example)
	if err != nil {
		return nil, fmt.Errorf("scaling: %w", err)
	}
	if err := sp.Backend.Use(purpose.BackendSim); err != nil {
		return nil, fmt.Errorf("scaling: %s: %w", sp.File, err)
	}
	simPlan, err := session.FromPurpose(ctx, sp, examples.ReadFile, session.BackendOptions{})
	if err != nil {
		return nil, fmt.Errorf("scaling: %s: %w", example, err)
	}
	defer simPlan.Close()
	timing := scaledTiming(sp, o.Speed)
	names := simharness.PurposeCallbackNames(sp)

	rows := make([]ScalingRow, 0, len(counts))
	for _, n := range counts {
		row, err := runScalingRow(ctx, example, n, simPlan, timing, names, o.Host)
		if err != nil {
			return rows, fmt.Errorf("scaling: %s on %s: %w", example, devices(n), err)
		}
		row.SpeedUp = 1
		if len(rows) > 0 {
			row.SpeedUp = rows[0].WallSecs / row.WallSecs
		}
		rows = append(rows, *row)
	}
	return rows, nil
}

func devices(n int) string {
	if n == 1 {
		return "1 device"
	}
	return fmt.Sprintf("%d devices", n)
}

// scaledTiming is what the sim backend would charge for p, slept for real
// and divided by speed.
func scaledTiming(p *purpose.Purpose, speed float64) sim.Timing {
	scale := func(d time.Duration) time.Duration { return time.Duration(float64(d) / speed) }
	s := p.Backend.Sim
	t := sim.Timing{
		Quiescence:     scale(p.Timeouts.Quiescence),
		Reset:          scale(p.Timeouts.Settle + p.Timeouts.PostReset),
		DefaultLatency: scale(s.DefaultLatency),
		Realtime:       true,
	}
	if s.Latency != nil {
		t.Latency = make(map[string]time.Duration, len(s.Latency))
		for k, d := range s.Latency {
			t.Latency[k] = scale(d)
		}
	}
	return t
}

// runScalingRow learns the example on n fresh fakes behind a fresh adb
// server, so that no row inherits an installed harness or a warm server
// from the one before.
func runScalingRow(ctx context.Context, example string, n int, simPlan *session.Plan, timing sim.Timing, names map[string]string, host string) (_ *ScalingRow, err error) {
	server, err := adbtest.Start(ctx)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := server.Close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("close the adb server: %w", cerr))
		}
	}()
	props := adbtest.Props("Pixel 8", "14", 34)
	h := adbtest.SimHarness(simPlan.Model, timing, props, names)
	for i := range n {
		if _, err := server.Attach(ctx, fakeadbd.Config{Props: props, Harness: h}); err != nil {
			return nil, fmt.Errorf("attach fake device %d: %w", i+1, err)
		}
	}

	p, err := examples.Purpose(example)
	if err != nil {
		return nil, err
	}
	if err := p.Backend.Use(purpose.BackendADB); err != nil {
		return nil, fmt.Errorf("%s: %w", p.File, err)
	}
	client := adb.New(adb.Config{Host: "127.0.0.1", Port: server.Port()})
	plan, err := session.FromPurpose(ctx, p, examples.ReadFile, session.BackendOptions{ADB: session.ADBOptions{
		Client:    client,
		Selection: adbbackend.Selection{Devices: []string{"all"}},
		Options:   adbbackend.Options{APK: harnessapk.APK, Host: host},
	}})
	if err != nil {
		return nil, fmt.Errorf("prepare the devices: %w", err)
	}
	defer func() {
		if cerr := plan.Close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("close the devices: %w", cerr))
		}
	}()
	if len(plan.Executors) != n {
		return nil, fmt.Errorf("the adb server offers %d devices, want %d", len(plan.Executors), n)
	}
	res, err := session.Run(ctx, plan.Target, session.Options{Executors: plan.Executors})
	if err != nil {
		return nil, fmt.Errorf("learn: %w", err)
	}
	_, differ, err := session.Disagreement(res.Machine, simPlan)
	if err != nil {
		return nil, fmt.Errorf("compare with the model: %w", err)
	}
	doc := res.Document
	row := &ScalingRow{Devices: n, WallSecs: doc.Stats.WallSecs, Executed: doc.Stats.Total().Executed,
		DeviceSecs: doc.Stats.DeviceSecs, Equal: !differ}
	for _, d := range doc.Backend.Devices {
		row.Queries = append(row.Queries, d.Queries)
	}
	return row, nil
}

// HaveADB reports whether the scaling suite can run: it starts the adb
// program on PATH, as adbtest.Start does.
func HaveADB() bool {
	_, err := exec.LookPath("adb")
	return err == nil
}
