// Package matrix is the nightly-CI job: learn one purpose on several
// targets (sim models standing in for Android versions, JDKs, devices),
// write each target's model, and compare every target with the first, the
// baseline. A Spec goes in, a Report comes out; the report renders as
// matrix.json (format "droidstar-matrix"), matrix.md and a text table.
//
// A target is learned by a LearnFunc: Runs.Learn learns it as one run of a
// run.Spec, the run 'droidstar learn' makes of the same options, and the
// package's tests pass hand-built models instead.
package matrix

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/purpose"
)

// LearnFunc learns one target. p is the purpose as the target learns it
// (its sim model or java command already replaced). When learning fails
// part-way it returns the last hypothesis along with the error, so that
// nothing learned is lost; when it is stopped before the first hypothesis
// it may return a document with no states that keeps the statistics.
type LearnFunc func(ctx context.Context, p *purpose.Purpose, t Target) (*model.Document, error)

// Spec is one matrix run.
type Spec struct {
	// PurposeFile is the purpose's file as given, for the report.
	PurposeFile string
	Purpose     *purpose.Purpose
	// Targets are the columns, the baseline first.
	Targets []Target
	// Out is the folder for each target's NAME.json and NAME.dot, or
	// NAME.partial.json when it fails part-way.
	Out   string
	Learn LearnFunc
	// Log, when set, gets a line for each target that fails, as it fails:
	// a nightly run can take hours and should not keep its failures to the
	// end.
	Log io.Writer
	// Stopped, when set, says that the run is being stopped (a signal):
	// no further target starts, and a target that fails from then on is
	// stopped rather than failed.
	Stopped func() bool
}

// Run learns every target and compares each with the baseline. A target
// that fails is a failed entry of the report and the others still run;
// the error is for a Spec that cannot run at all.
func Run(ctx context.Context, s Spec) (*Report, error) {
	switch {
	case len(s.Targets) == 0:
		return nil, errors.New("matrix: no targets")
	case s.Purpose == nil || s.Learn == nil:
		return nil, errors.New("matrix: a spec needs a purpose and a learn function")
	}
	rep := &Report{Format: Format, Version: Version, Purpose: s.PurposeFile, Baseline: s.Targets[0].Name}
	var log sync.Mutex
	var wg sync.WaitGroup
	for _, t := range s.Targets {
		r := &Result{Target: t}
		rep.Targets = append(rep.Targets, r)
		learn := func() {
			if s.stopped() {
				r.NotRun = true
				return
			}
			if err := learnTarget(ctx, s, r); err != nil {
				r.Error = err.Error()
				if s.stopped() {
					// The stop's own message says what became of it.
					r.Stopped = true
					return
				}
				if s.Log != nil {
					log.Lock()
					fmt.Fprintf(s.Log, "%s: %v\n", t.Name, err)
					log.Unlock()
				}
			}
		}
		if t.Device == "" {
			// Sim and jvm targets share this host (and run --lanes
			// executors each): one after the other.
			learn()
			continue
		}
		// Devices are independent machines: a nightly run over several
		// Android versions takes as long as the slowest one.
		wg.Add(1)
		go func() {
			defer wg.Done()
			learn()
		}()
	}
	wg.Wait()
	compare(rep)
	return rep, nil
}

func (s Spec) stopped() bool { return s.Stopped != nil && s.Stopped() }

// Interrupted says whether a stop left a target stopped or not run: the
// report is then not the run's verdict.
func (r *Report) Interrupted() bool {
	for _, t := range r.Targets {
		if t.Stopped || t.NotRun {
			return true
		}
	}
	return false
}

// forTarget is the purpose as target t learns it.
func forTarget(p *purpose.Purpose, t Target) (*purpose.Purpose, error) {
	q := *p
	if t.SimModel != "" {
		if p.Backend.Sim == nil {
			return nil, fmt.Errorf("the purpose has no sim backend whose model %s could replace", t.SimModel)
		}
		sim := *p.Backend.Sim
		sim.Model, sim.ModelPath, sim.Format = t.SimModel, t.SimModel, "auto"
		sim.ModelFrom = "--sim-model " + t.Name + "=" + t.SimModel
		q.Backend.Sim = &sim
	}
	if t.Java != "" {
		jvm := purpose.JVMBackend{}
		if p.Backend.JVM != nil {
			jvm = *p.Backend.JVM
		}
		jvm.Java = t.Java
		q.Backend.JVM = &jvm
	}
	return &q, nil
}
