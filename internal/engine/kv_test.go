package engine_test

import (
	"context"
	"testing"

	"github.com/droidstar/droidstar/examples"
	"github.com/droidstar/droidstar/internal/compose"
	"github.com/droidstar/droidstar/internal/compose/composetest"
	"github.com/droidstar/droidstar/internal/engine"
	"github.com/droidstar/droidstar/internal/learn"
	"github.com/droidstar/droidstar/internal/model"
)

// Through the whole pipeline with the default checks (the bound, then
// wp:1, then the final re-run of the answers the model rests on: learn's
// defaults), KV
// learns every bundled example exactly, and the document says it did.
func TestKVLearnsTheExamples(t *testing.T) {
	want := map[string]int{
		"asynctask": 5, "countdowntimer": 3, "fileobserver": 11, "mediaplayer": 11,
		"speechrecognizer": 7, "spellcheckersession": 4, "sqliteopenhelper": 8,
	}
	names := examples.Names()
	if len(names) != len(want) {
		t.Fatalf("examples %v, want %d", names, len(want))
	}
	reran := 0
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			// learn's default --verify-final near.
			plan, err := composetest.ExamplePlan(name, compose.Pipeline{Repeat: compose.DefaultRepeat, Final: compose.FinalNear})
			if err != nil {
				t.Fatal(err)
			}
			defer plan.Close()
			res, err := engine.Run(context.Background(), plan.Job, engine.Options{
				VirtualClock: true, Learn: learn.NameKV,
				Conformance: &model.Conformance{Method: engine.ConformanceWp, Depth: 1},
			})
			if err != nil {
				t.Fatal(err)
			}
			if w, differ, err := compose.Disagreement(res.Machine, plan); err != nil || differ {
				t.Fatalf("learned model differs from the example's model on %s (err %v)", plan.Target().Inputs.Format(w), err)
			}
			d := res.Document
			if d.Stats.States != want[name] || d.Stats.Learner != learn.NameKV {
				t.Fatalf("%d typestate states by %q, want %d by kv", d.Stats.States, d.Stats.Learner, want[name])
			}
			reran += d.Stats.Verification.Asked
		})
	}
	// Where every separation was run twice already, nothing runs again;
	// across the examples something must.
	if reran == 0 {
		t.Fatal("the final check re-ran nothing of what KV's models rest on")
	}
}

// The server socket's forced waits: the bound counts free symbols, and KV
// takes the bound oracle's suffixes (which start with the forced wait
// after a callin) as discriminators.
func TestKVLearnsForcedWaitsExactly(t *testing.T) {
	plan := serverSocketPlan(t, 0)
	res, err := engine.Run(context.Background(), plan.Job, engine.Options{VirtualClock: true, Learn: learn.NameKV})
	if err != nil {
		t.Fatal(err)
	}
	if w, differ, err := compose.Disagreement(res.Machine, plan); err != nil || differ {
		t.Fatalf("learned model differs from the model on %q (err %v)", plan.Target().Inputs.Format(w), err)
	}
	if d := res.Document; d.Stats.States != 10 || d.Bound.LearnedNeeds != 1 {
		t.Fatalf("%d states, bound %+v; want 10 states, needed 1", d.Stats.States, *d.Bound)
	}
}
