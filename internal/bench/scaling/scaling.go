// Package scaling is the benchmark of learning over several devices: one
// example learned through a private real adb server on 1, 2, 4, ... fake
// devices whose harnesses answer from the example's model in real time.
// It links the test doubles (internal/fake/...), so only its Go benchmark
// and tests run it, never the droidstar binary:
//
//	make bench-scaling
//	go test -run '^$' -bench Scaling -benchtime 1x ./internal/bench/scaling -args -example fileobserver -devices 1,2,3,4 -runs 5
package scaling

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os/exec"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/droidstar/droidstar/examples"
	"github.com/droidstar/droidstar/internal/backend/sim"
	"github.com/droidstar/droidstar/internal/fake/adbd"
	"github.com/droidstar/droidstar/internal/fake/adbserver"
	"github.com/droidstar/droidstar/internal/fake/simharness"
	"github.com/droidstar/droidstar/internal/purpose"
	"github.com/droidstar/droidstar/internal/run"
)

// Example is the example the benchmark learns by default: on one
// device it executes 80 queries taking about 33 s, long enough that the
// per-query cost of ADB and the harness protocol does not hide what more
// devices gain, short enough to run 1, 2 and 4 devices in about a minute.
const Example = "asynctask"

// Target is the speed-up the benchmark aims for at TargetDevices devices.
const (
	Target        = 3.0
	TargetDevices = 4
)

// DefaultRuns is how many times Run learns on each device count: the
// rows keep the best wall time, as a run slowed by other work on the
// machine only ever takes longer (one such run once printed a speed-up
// of 7.53× at 4 devices).
const DefaultRuns = 3

// Row is the outcome of learning the example on some devices.
type Row struct {
	Devices int
	// WallSecs is the best run's, the learning run alone, without
	// attaching and installing; WorstSecs the slowest run's.
	WallSecs  float64
	WorstSecs float64
	Runs      int
	// EstimatedWallSecs is what the run's statistics estimate from the
	// device times (model.Stats.EstimatedWallSecs), for the best run.
	EstimatedWallSecs float64
	SpeedUp           float64 // the first row's WallSecs over this row's
	Executed          int
	DeviceSecs        float64
	Queries           []int // executed per device, in the order the devices were listed
	Equal             bool  // learned typestate equivalent to the example's model
}

// Options tune RunWith.
type Options struct {
	// Speed divides every duration the fake devices take (the example's
	// quiescence, reset and callback latencies); 0 means 1, real time.
	// Only tests raise it, to keep a run over real ADB short: the
	// benchmark's wall times mean something only in real time.
	Speed float64
	// Host identifies droidstar in the harness hello; empty means
	// "droidstar scaling benchmark".
	Host string
	// Runs is how many times each count is learned (0 means 1): the
	// counts take turns, one run each in order, so that a slow spell of
	// the machine slows every count rather than one, and each row keeps
	// its best run.
	Runs int
}

// Run learns an example over real ADB on 1, 2, ... fake devices
// (one count per row, in the order given) whose harnesses answer from the
// example's model in real time, so that the rows' wall times show what
// sharing the queries among devices gains: DefaultRuns runs per count,
// interleaved, the best kept. It needs adb on PATH (adbserver.ErrNoADB
// otherwise). Speed-ups are relative to the first count.
func Run(ctx context.Context, example string, counts []int) ([]Row, error) {
	return RunWith(ctx, example, counts, Options{Runs: DefaultRuns})
}

// RunWith is Run with options.
func RunWith(ctx context.Context, example string, counts []int, o Options) ([]Row, error) {
	if len(counts) == 0 {
		return nil, errors.New("scaling: no device counts")
	}
	for _, n := range counts {
		if n < 1 {
			return nil, fmt.Errorf("scaling: device counts must be at least 1, got %d", n)
		}
	}
	if o.Speed < 0 || math.IsNaN(o.Speed) {
		return nil, fmt.Errorf("scaling: speed must be positive, got %g", o.Speed)
	}
	if o.Speed == 0 {
		o.Speed = 1
	}
	if o.Runs < 0 {
		return nil, fmt.Errorf("scaling: runs must not be negative, got %d", o.Runs)
	}
	o.Runs = max(o.Runs, 1)
	if o.Host == "" {
		o.Host = "droidstar scaling benchmark"
	}
	// The sim run is both what the fakes answer from and what each
	// learned machine is compared with, so the comparison sees exactly the
	// model the devices ran.
	sp, err := examples.Purpose(example)
	if err != nil {
		return nil, fmt.Errorf("scaling: %w", err)
	}
	if !sp.Backend.Has(purpose.BackendADB) {
		return nil, fmt.Errorf("scaling: %s has no adb backend to learn over (it lists: %s)", sp.File, strings.Join(sp.Backend.Kinds, ", "))
	}
	if !HaveADB() {
		return nil, fmt.Errorf("scaling: %w", adbserver.ErrNoADB)
	}
	simSpec := spec()
	simSpec.Example = example
	sess, err := run.Open(simSpec, run.Env{Host: o.Host})
	if err != nil {
		return nil, fmt.Errorf("scaling: %w", err)
	}
	defer sess.Close()
	simRun, err := sess.Start(ctx, simSpec, "")
	if err != nil {
		return nil, fmt.Errorf("scaling: %s: %w", example, err)
	}
	defer simRun.Close()
	timing := scaledTiming(sp, o.Speed)
	names := simharness.PurposeCallbackNames(sp)

	rows := make([]Row, len(counts))
	for run := range o.Runs {
		for k, n := range counts {
			row, err := runRow(ctx, sess, example, n, simRun, timing, names)
			if err != nil {
				return nil, fmt.Errorf("scaling: %s on %s: %w", example, devices(n), err)
			}
			rows[k] = best(rows[k], *row, run == 0)
		}
	}
	for k := range rows {
		rows[k].SpeedUp = rows[0].WallSecs / rows[k].WallSecs
	}
	return rows, nil
}

// best merges one more run into a count's row: the faster run's figures,
// the slowest wall time, and a model that differs in any run.
func best(have, run Row, first bool) Row {
	if first {
		run.Runs, run.WorstSecs = 1, run.WallSecs
		return run
	}
	out := have
	if run.WallSecs < have.WallSecs {
		out = run
	}
	out.Runs = have.Runs + 1
	out.WorstSecs = max(have.WorstSecs, run.WallSecs)
	out.Equal = have.Equal && run.Equal
	return out
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
		Quiescence:        scale(p.Timeouts.Quiescence),
		Reset:             scale(p.Timeouts.Settle + p.Timeouts.PostReset),
		Settle:            scale(p.Timeouts.Settle),
		DefaultLatency:    scale(s.DefaultLatency),
		DefaultLatencyMax: scale(s.DefaultLatencyMax),
		Realtime:          true,
	}
	scaleAll := func(m map[string]time.Duration) map[string]time.Duration {
		if m == nil {
			return nil
		}
		out := make(map[string]time.Duration, len(m))
		for k, d := range m {
			out[k] = scale(d)
		}
		return out
	}
	t.Latency, t.LatencyMax = scaleAll(s.Latency), scaleAll(s.LatencyMax)
	return t
}

// spec is how the benchmark learns: as learn does with no flags, without
// padding, conformance test, final check, store, grace or keeping devices
// awake (the fakes have no screen), so that the rows measure the devices.
func spec() run.Spec {
	s := run.Defaults()
	s.Pad, s.Conformance, s.Vote.Final, s.Store.Path, s.Grace, s.ADB.KeepAwake = run.Pad{}, run.ConformanceOff, run.FinalOff, run.StoreOff, 0, false
	return s
}

// runRow learns the example on n fresh fakes behind a fresh adb
// server, so that no row inherits an installed harness or a warm server
// from the one before.
func runRow(ctx context.Context, sess *run.Session, example string, n int, simRun *run.Run, timing sim.Timing, names map[string]string) (_ *Row, err error) {
	server, err := adbserver.Start(ctx)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := server.Close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("close the adb server: %w", cerr))
		}
	}()
	props := adbserver.Props("Pixel 8", "14", 34)
	h := adbserver.SimHarness(simRun.Model(), timing, props, names)
	for i := range n {
		if _, err := server.Attach(ctx, adbd.Config{Props: props, Harness: h}); err != nil {
			return nil, fmt.Errorf("attach fake device %d: %w", i+1, err)
		}
	}
	s := spec()
	s.Example, s.Backend, s.Devices = example, purpose.BackendADB, []string{"all"}
	s.ADB.Host, s.ADB.Port = "127.0.0.1", server.Port()
	r, err := sess.Start(ctx, s, "")
	if err != nil {
		return nil, fmt.Errorf("prepare the devices: %w", err)
	}
	defer func() {
		if cerr := r.Close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("close the devices: %w", cerr))
		}
	}()
	out, err := r.Learn(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("learn: %w", err)
	}
	_, differ, err := simRun.Disagreement(out.Machine)
	if err != nil {
		return nil, fmt.Errorf("compare with the model: %w", err)
	}
	doc := out.Document
	if len(doc.Backend.Devices) != n {
		return nil, fmt.Errorf("the adb server offers %d devices, want %d", len(doc.Backend.Devices), n)
	}
	row := &Row{Devices: n, WallSecs: doc.Stats.WallSecs, EstimatedWallSecs: doc.Stats.EstimatedWallSecs,
		Executed: doc.Stats.Total().Executed, DeviceSecs: doc.Stats.DeviceSecs, Equal: !differ}
	for _, d := range doc.Backend.Devices {
		row.Queries = append(row.Queries, d.Queries)
	}
	return row, nil
}

// Report writes the rows as a table, with the speed-up target's verdict
// and, when the devices ran faster than real time, a warning that the
// numbers are no benchmark. It returns how many learned models differ from
// the example's model.
func Report(w io.Writer, example string, rows []Row, speed float64) (differ int, err error) {
	counts := make([]string, len(rows))
	for i, row := range rows {
		counts[i] = strconv.Itoa(row.Devices)
	}
	fmt.Fprintf(w, "Scaling: %s learned over real ADB on %s fake devices, their harnesses answering from its model in real time\n",
		example, strings.Join(counts, ", "))
	if len(rows) > 0 && rows[0].Runs > 1 {
		fmt.Fprintf(w, "(best of %d runs per count, the counts taking turns; worst: the slowest run; estimated: from the device times)\n", rows[0].Runs)
	}
	if speed != 0 && speed != 1 {
		fmt.Fprintf(w, "(the devices ran %g× faster than real time: these are no benchmark numbers)\n", speed)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "devices\twall s\tworst s\testimated s\tspeed-up\texecuted\tdevice-s\tqueries per device\tmatches model\t")
	var one, target *Row
	for i, row := range rows {
		if !row.Equal {
			differ++
		}
		switch row.Devices {
		case 1:
			one = &rows[i]
		case TargetDevices:
			target = &rows[i]
		}
		per := make([]string, len(row.Queries))
		for k, q := range row.Queries {
			per[k] = strconv.Itoa(q)
		}
		matches := "yes"
		if !row.Equal {
			matches = "NO"
		}
		fmt.Fprintf(tw, "%d\t%.1f\t%.1f\t%.1f\t%.2f×\t%d\t%.1f\t%s\t%s\t\n",
			row.Devices, row.WallSecs, row.WorstSecs, row.EstimatedWallSecs, row.SpeedUp, row.Executed, row.DeviceSecs, strings.Join(per, " "), matches)
	}
	if err := tw.Flush(); err != nil {
		return differ, err
	}
	if len(rows) > 0 && rows[0].Devices != 1 {
		fmt.Fprintf(w, "(speed-ups are over %d devices, the first count)\n", rows[0].Devices)
	}
	targetText := fmt.Sprintf("≥ %g× at %d devices", Target, TargetDevices)
	if one == nil || target == nil {
		fmt.Fprintf(w, "target: %s: not measured (the device counts need 1 and %d)\n", targetText, TargetDevices)
		return differ, nil
	}
	got := one.WallSecs / target.WallSecs
	verdict := "met"
	if got < Target {
		verdict = "NOT met"
	}
	fmt.Fprintf(w, "target: %s: %s (%.2f×)\n", targetText, verdict, got)
	return differ, nil
}

// HaveADB reports whether the benchmark can run: it starts the adb
// program on PATH, as adbserver.Start does.
func HaveADB() bool {
	_, err := exec.LookPath("adb")
	return err == nil
}
