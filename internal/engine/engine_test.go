package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/droidstar/droidstar/internal/backend"
	"github.com/droidstar/droidstar/internal/compose"
	"github.com/droidstar/droidstar/internal/compose/composetest"
	"github.com/droidstar/droidstar/internal/engine"
	"github.com/droidstar/droidstar/internal/learn"
	"github.com/droidstar/droidstar/internal/oracle"
	"github.com/droidstar/droidstar/internal/query"
)

// flaky wraps an executor: it fails after `limit` queries (a device that
// vanishes), or from query `flipFrom` on answers quiet where the model
// fires (non-determinism).
type flaky struct {
	backend.Executor
	n, limit, flipFrom int
}

func (f *flaky) Execute(ctx context.Context, in []string) (query.Result, error) {
	f.n++
	if f.limit > 0 && f.n > f.limit {
		return query.Result{}, errors.New("device sim-0 vanished (adb: device offline)")
	}
	res, err := f.Executor.Execute(ctx, in)
	if f.flipFrom > 0 && f.n >= f.flipFrom {
		for k, o := range res.Outputs {
			if o == "fired" {
				res.Outputs[k] = "quiet"
			}
		}
	}
	return res, err
}

// learnOptions calls first once, when the first hypothesis is made.
func learnOptions(first func()) learn.Options {
	return learn.Options{OnHypothesis: func(round int, _ *learn.Hypothesis) {
		if round == 1 {
			first()
		}
	}}
}

func timerPlan(t *testing.T) *compose.Plan {
	return timerPlanWith(t, compose.Pipeline{Repeat: compose.DefaultRepeat})
}

// timerPlanWith is timerPlan with the pipeline's stages pl.
func timerPlanWith(t *testing.T, pl compose.Pipeline) *compose.Plan {
	t.Helper()
	plan, err := compose.Build(context.Background(), compose.Source{Model: &compose.ModelSource{File: "timer.dot", Data: []byte(composetest.TimerDOT), Bound: 2, Quiescence: 500e6}}, compose.Options{Pipeline: pl})
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

// over is plan's job with its pipeline rebuilt over other executors.
func over(t *testing.T, plan *compose.Plan, execs ...backend.Executor) engine.Job {
	t.Helper()
	p, err := compose.NewPlan(plan.Target(), nil, nil, execs)
	if err != nil {
		t.Fatal(err)
	}
	return p.Job
}

func TestRunLearnsAndDescribes(t *testing.T) {
	plan := timerPlan(t)
	res, err := engine.Run(context.Background(), plan.Job, engine.Options{VirtualClock: true, ToolVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if w, differ, err := compose.Disagreement(res.Machine, plan); err != nil || differ {
		t.Fatalf("learned machine differs on %v (%v)", w, err)
	}
	d := res.Document
	if d.Stats.States != 3 || d.Bound.LearnedNeeds != 1 || d.Bound.Used != 2 || d.Tool.Version != "test" ||
		len(d.Backend.Devices) != 1 || d.Backend.Devices[0].Serial != "sim-0" || res.Partial {
		t.Fatalf("document %+v stats %+v bound %+v", d, d.Stats, d.Bound)
	}
	if d.Callins[0] != "start" || d.Callins[1] != "cancel" || d.Callbacks[0] != "fired" {
		t.Fatalf("alphabets %v %v", d.Callins, d.Callbacks)
	}
	// Device time: every executed query pays the reset, quiet waits the timeout.
	if tot := d.Stats.Total(); tot.Executed == 0 || d.Stats.DeviceSecs < 0.5*float64(tot.Executed)/10 {
		t.Fatalf("device time %.2f s for %d queries", d.Stats.DeviceSecs, tot.Executed)
	}
}

// A device that vanishes after the first hypothesis leaves a partial model
// holding that hypothesis, and the error names the device.
func TestRunKeepsWhatWasLearnedWhenADeviceVanishes(t *testing.T) {
	plan := timerPlan(t)
	// Count the queries the first table needs, then fail right after them.
	probe := &flaky{Executor: plan.Executors[0]}
	var firstHypothesisAt int
	_, err := engine.Run(context.Background(), over(t, plan, probe), engine.Options{
		Learner: learnOptions(func() { firstHypothesisAt = probe.n })})
	if err != nil {
		t.Fatal(err)
	}
	dying := &flaky{Executor: plan.Executors[0], limit: firstHypothesisAt}
	res, err := engine.Run(context.Background(), over(t, plan, dying), engine.Options{})
	if err == nil || !strings.Contains(err.Error(), "device sim-0 vanished (adb: device offline)") {
		t.Fatalf("error %v", err)
	}
	if res == nil || !res.Partial || res.Machine == nil {
		t.Fatalf("no partial result: %+v", res)
	}
	w := res.Document.Warnings
	if len(w) == 0 || !strings.HasPrefix(w[len(w)-1], "partial model: learning stopped: equivalence query 1: ") {
		t.Fatalf("warnings %q", w)
	}
}

// With voting off (--repeat 0) the first contradiction stops learning.
// (With it on, a device that changes for good outvotes its past.)
func TestRunReportsNonDeterminism(t *testing.T) {
	plan := timerPlan(t)
	p, err := compose.NewPlan(plan.Target(), nil, nil, []backend.Executor{&flaky{Executor: plan.Executors[0], flipFrom: 6}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := engine.Run(context.Background(), p.Job, engine.Options{})
	var nd *oracle.NondeterminismError
	if !errors.As(err, &nd) {
		t.Fatalf("want a non-determinism error, got %v (%+v)", err, res)
	}
	if !strings.Contains(err.Error(), "non-deterministic answer to start wait on sim-0: earlier ok fired, now ok quiet") {
		t.Fatalf("error %q", err)
	}
}

// The progress snapshots follow the run: table fill, then the
// equivalence rounds with their transitions, and the last one has the
// final counts.
func TestRunReportsProgress(t *testing.T) {
	plan, err := compose.Build(context.Background(), compose.Source{Model: &compose.ModelSource{File: "timer.dot", Data: []byte(composetest.TimerDOT), Bound: 2, Quiescence: 500e6}}, compose.Options{Backend: compose.BackendOptions{Lanes: 2}, Pipeline: compose.Pipeline{Repeat: compose.DefaultRepeat}})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var snaps []engine.Snapshot
	res, err := engine.Run(context.Background(), plan.Job, engine.Options{VirtualClock: true,
		Progress: func(s engine.Snapshot) {
			mu.Lock()
			snaps = append(snaps, s)
			mu.Unlock()
		}})
	if err != nil {
		t.Fatal(err)
	}
	phases := map[string]bool{}
	for _, s := range snaps {
		phases[s.Phase] = true
		if strings.HasPrefix(s.Phase, "equivalence round") && s.Unit != "transitions" {
			t.Errorf("snapshot %+v: no unit", s)
		}
	}
	if !phases["equivalence round 1"] {
		t.Errorf("phases %v", phases)
	}
	last := snaps[len(snaps)-1]
	st := res.Document.Stats
	if last.Executed != st.Learning.Executed+st.Equivalence.Executed || last.States != st.States ||
		len(last.Devices) == 0 || sumExecuted(last.Devices) != last.Executed {
		t.Errorf("last snapshot %+v, stats %+v", last, st)
	}
}

func sumExecuted(ds []engine.Device) int {
	n := 0
	for _, d := range ds {
		n += d.Executed
	}
	return n
}

// On the virtual clock the snapshots come as the run's own time passes,
// one per interval of it, and as each phase has its first estimate, so
// they are the same on every run: every phase has a total of queries from
// its first snapshot, and the last snapshot's time is the run's estimated
// wall time.
func TestProgressOnTheVirtualClock(t *testing.T) {
	plan := timerPlan(t)
	var got []string
	res, err := engine.Run(context.Background(), plan.Job, engine.Options{VirtualClock: true, ProgressEvery: time.Second,
		Progress: func(s engine.Snapshot) {
			line := fmt.Sprintf("%v %s:", s.Elapsed, s.Phase)
			if s.Total > 0 {
				line += fmt.Sprintf(" %d/%d %s,", s.Done, s.Total, s.Unit)
			}
			got = append(got, line+fmt.Sprintf(" %d of %d queries", s.Queries, s.QueriesTotal))
		}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		// The learner's first estimate: 30 queries, all expected to run.
		"0s table fill: 0 of 30 queries",
		"1s table fill: 7 of 20 queries",
		"2s table fill: 11 of 20 queries",
		"3s table fill: 17 of 28 queries",
		"4s table fill: 19 of 28 queries",
		"4s equivalence round 1: 0/5 transitions, 0 of 44 queries",
		"5s equivalence round 1: 0/5 transitions, 2 of 40 queries",
		// A query that ends past the next second.
		"6.5s equivalence round 1: 1/5 transitions, 9 of 35 queries",
		"7s equivalence round 1: 1/5 transitions, 10 of 35 queries",
		"8s equivalence round 1: 1/5 transitions, 12 of 35 queries",
		"9s equivalence round 1: 1/5 transitions, 14 of 35 queries",
		"10s equivalence round 1: 2/5 transitions, 16 of 32 queries",
		"11s equivalence round 1: 3/5 transitions, 20 of 30 queries",
		"12s equivalence round 1: 3/5 transitions, 22 of 30 queries",
		"13s equivalence round 1: 4/5 transitions, 25 of 27 queries",
		"14s equivalence round 1: 4/5 transitions, 27 of 27 queries",
		// The last, as Run returns.
		"14s equivalence round 1: 5/5 transitions, 27 of 27 queries",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("snapshots:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if wall := res.Document.Stats.EstimatedWallSecs; wall != 14 {
		t.Errorf("estimated wall %gs, want the last snapshot's 14s", wall)
	}
}
