// Package composetest holds what other packages' tests learn: the
// embedded examples, on the simulator with a virtual clock and a fixed
// date so that golden files of exports and reports stay put, and a small
// timer model.
package composetest

import (
	"context"
	"time"

	"github.com/droidstar/droidstar/examples"
	"github.com/droidstar/droidstar/internal/compose"
	"github.com/droidstar/droidstar/internal/engine"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/purpose"
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

// ExamplePlan plans learning an embedded example on its sim backend, as
// 'droidstar learn --example NAME' does; the caller closes it.
func ExamplePlan(name string) (*compose.Plan, error) {
	p, err := examples.Purpose(name)
	if err != nil {
		return nil, err
	}
	if err := p.Backend.Use(purpose.BackendSim); err != nil {
		return nil, err
	}
	return compose.FromPurpose(context.Background(), p, examples.ReadFile, compose.BackendOptions{})
}

// LearnExample learns an embedded example on its sim backend, as
// 'droidstar learn --example NAME' does, with tool version "test". The
// purpose's fingerprint, which changes with every edit of the purpose, is
// replaced by a placeholder.
func LearnExample(name string) (*model.Document, error) {
	plan, err := ExamplePlan(name)
	if err != nil {
		return nil, err
	}
	defer plan.Close()
	ctx := context.Background()
	res, err := engine.Run(ctx, plan.Job, engine.Options{
		VirtualClock: true, ToolVersion: "test",
		Now: func() time.Time { return LearnedAt },
	})
	if err != nil {
		return nil, err
	}
	d := res.Document
	d.Purpose.Fingerprint = "sha256:(the purpose's)"
	return d, nil
}
