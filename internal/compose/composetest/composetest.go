// Package composetest holds what other packages' tests learn: the
// embedded examples, on the simulator with a virtual clock and a fixed
// date so that golden files of exports and reports stay put, and a small
// timer model. Its runs are built as every run is, from a run.Spec.
package composetest

import (
	"context"
	"time"

	"github.com/droidstar/droidstar/examples"
	"github.com/droidstar/droidstar/internal/compose"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/run"
)

// TimerDOT is a small timer typestate in Mealy DOT, enough for a few L*
// rounds: start arms it, the callback fired follows at a wait, cancel
// disarms it.
const TimerDOT = `digraph {
  __start0 -> idle;
  idle -> armed [label="start / ok"];
  idle -> idle [label="cancel / ok"];
  idle -> idle [label="wait / quiet"];
  armed -> done [label="wait / fired"];
  armed -> done [label="cancel / ok"];
  done -> done [label="cancel / ok"];
  done -> done [label="wait / quiet"];
}`

// LearnedAt is the date every model learned here carries.
var LearnedAt = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)

// ExamplePlan plans learning an embedded example on its sim backend with
// the pipeline's stages pl, for tests of the engine below a run; the
// caller closes it.
func ExamplePlan(name string, pl compose.Pipeline) (*compose.Plan, error) {
	p, err := examples.Purpose(name)
	if err != nil {
		return nil, err
	}
	return compose.Build(context.Background(), compose.Source{Purpose: p, Read: examples.ReadFile}, compose.Options{Pipeline: pl})
}

// LearnExample learns an embedded example on its sim backend, as
// 'droidstar learn --example NAME --pad 0 --pad-check 0 --conformance off
// --verify-final off --store off' does, with tool version "test". What
// changes from run to run is replaced by a placeholder or left out: the
// purpose's fingerprint (every edit of the purpose changes it), and the
// vote's seed, drawn fresh, with the determinism statistics it is
// recorded in. So is the comparison with the simulated target (the
// document's target object), which the golden files of the exports and
// reports drawn from these documents were written without: the tests of
// learn and of the summary check it.
func LearnExample(name string) (*model.Document, error) {
	spec := run.Defaults()
	spec.Example, spec.Pad, spec.Conformance, spec.Vote.Final, spec.Store.Path = name, run.Pad{}, run.ConformanceOff, run.FinalOff, run.StoreOff
	ctx := context.Background()
	sess, err := run.Open(spec, run.Env{ToolVersion: "test", Now: func() time.Time { return LearnedAt }})
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	r, err := sess.Start(ctx, spec, "")
	if err != nil {
		return nil, err
	}
	defer r.Close()
	out, err := r.Learn(ctx, nil)
	if err != nil {
		return nil, err
	}
	d := out.Document
	d.Purpose.Fingerprint = "sha256:(the purpose's)"
	d.Stats.Determinism, d.Target = nil, nil
	return d, nil
}
