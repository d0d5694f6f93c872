package engine_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/droidstar/droidstar/internal/compose"
	"github.com/droidstar/droidstar/internal/engine"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/purpose"
)

// serverSocketPlan is testdata/serversocket: a server socket channel whose
// callins are all followed by a wait, where the states right after bind
// and right after close differ only on "wait accept wait".
func serverSocketPlan(t *testing.T, bound int) *compose.Plan {
	return serverSocketPlanWith(t, bound, compose.Pipeline{Repeat: compose.DefaultRepeat})
}

// serverSocketPlanWith is serverSocketPlan with the pipeline's stages pl.
func serverSocketPlanWith(t *testing.T, bound int, pl compose.Pipeline) *compose.Plan {
	t.Helper()
	p, err := purpose.Load(filepath.Join("..", "..", "testdata", "serversocket", "purpose.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if bound > 0 {
		p.Bound = bound
	}
	plan, err := compose.Build(context.Background(), compose.Source{Purpose: p}, compose.Options{Pipeline: pl})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { plan.Close() })
	return plan
}

// The bound counts the symbols the restrictions leave free, so the default
// bound learns the server socket exactly, and the needed bound is reported
// in the same unit: "wait accept wait" after a callin has one free symbol.
func TestFreeBoundLearnsForcedWaitsExactly(t *testing.T) {
	for _, c := range []struct{ bound, used int }{{0, purpose.DefaultBound}, {1, 1}} {
		bound := c.bound
		plan := serverSocketPlan(t, bound)
		res, err := engine.Run(context.Background(), plan.Job, engine.Options{VirtualClock: true})
		if err != nil {
			t.Fatal(err)
		}
		if w, differ, err := compose.Disagreement(res.Machine, plan); err != nil || differ {
			t.Fatalf("bound %d: learned model differs from the model on %q (err %v)", bound, plan.Target().Inputs.Format(w), err)
		}
		d := res.Document
		if d.Stats.States != 10 || d.Bound.Used != c.used || d.Bound.LearnedNeeds != 1 {
			t.Fatalf("bound %d: %d states, bound %+v; want 10 states, bound used %d, needed 1", bound, d.Stats.States, *d.Bound, c.used)
		}
	}
}

// Counting every symbol, as the bound did before, the same bound merges the
// states right after bind and right after close: the oracle never looks
// past "wait accept", and the learned model itself seems to need only 2.
func TestPlainBoundMergesAcrossForcedWaits(t *testing.T) {
	plan := serverSocketPlan(t, 0)
	plan.Job.Target.Forcing = mealy.Forcing{}
	res, err := engine.Run(context.Background(), plan.Job, engine.Options{VirtualClock: true})
	if err != nil {
		t.Fatal(err)
	}
	w, differ, err := compose.Disagreement(res.Machine, plan)
	if err != nil || !differ {
		t.Fatalf("plain bound 2 learned the model exactly (err %v); the test shows nothing", err)
	}
	d := res.Document
	if got := plan.Target().Inputs.Format(w); got != "close wait accept wait" || d.Stats.States != 9 || d.Bound.LearnedNeeds != 2 {
		t.Fatalf("plain bound 2: differs on %q, %d states, needed %d; want %q, 9 states, needed 2",
			got, d.Stats.States, d.Bound.LearnedNeeds, "close wait accept wait")
	}
}
