package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/droidstar/droidstar/internal/compose"
	"github.com/droidstar/droidstar/internal/engine"
	"github.com/droidstar/droidstar/internal/model"
)

// deepPlan is testdata/models/deep-mealy.dot: a counter whose fourth a
// answers y, so its first states differ only on a·a·a (bound 3).
func deepPlan(t *testing.T, bound int) *compose.Plan {
	t.Helper()
	file := filepath.Join("..", "..", "testdata", "models", "deep-mealy.dot")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := compose.Build(context.Background(), compose.Source{Model: &compose.ModelSource{File: file, Data: data, Format: "mealy-dot", Bound: bound}}, compose.Options{Pipeline: compose.Pipeline{Repeat: compose.DefaultRepeat}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { plan.Close() })
	return plan
}

// The conformance test runs once the bound check passes, its queries are
// counted in their own phase, and the counterexample it finds is recorded
// as its own.
func TestConformanceCatchesWhatTheBoundMissed(t *testing.T) {
	for _, c := range []struct {
		name string
		conf *model.Conformance
	}{
		{"off", nil},
		{"random", &model.Conformance{Method: engine.ConformanceRandom, Walks: 100, Seed: 1}},
		{"wp", &model.Conformance{Method: engine.ConformanceWp, Depth: 3}},
	} {
		t.Run(c.name, func(t *testing.T) {
			plan := deepPlan(t, 2)
			res, err := engine.Run(context.Background(), plan.Job, engine.Options{VirtualClock: true, Conformance: c.conf})
			if err != nil {
				t.Fatal(err)
			}
			_, differ, err := compose.Disagreement(res.Machine, plan)
			if err != nil {
				t.Fatal(err)
			}
			d := res.Document
			if c.conf == nil {
				if !differ || d.Stats.States != 1 || d.Stats.Conformance != (model.PhaseStats{}) || d.Conformance != nil || len(d.Stats.Counterexamples) != 0 {
					t.Fatalf("bound 2 alone: differ %v, %d states, conformance %+v %+v, found %+v; want the wrong 1-state model and no conformance",
						differ, d.Stats.States, d.Stats.Conformance, d.Conformance, d.Stats.Counterexamples)
				}
				return
			}
			if differ || d.Stats.States != 4 {
				t.Fatalf("differ %v with %d states; want the 4-state target", differ, d.Stats.States)
			}
			if d.Conformance == nil || *d.Conformance != *c.conf {
				t.Fatalf("the document records conformance %+v, want %+v", d.Conformance, *c.conf)
			}
			if d.Stats.Conformance.Asked == 0 || d.Stats.Conformance.Executed == 0 {
				t.Fatalf("conformance phase %+v: nothing counted", d.Stats.Conformance)
			}
			var fromConformance int
			for _, f := range d.Stats.Counterexamples {
				if f.Check == model.CheckConformance {
					fromConformance++
				}
				if f.Round < 1 || f.Round >= d.Stats.EQs || len(f.Input) == 0 {
					t.Fatalf("counterexample %+v of a run with %d rounds", f, d.Stats.EQs)
				}
			}
			if fromConformance == 0 {
				t.Fatalf("no counterexample from the conformance test: %+v", d.Stats.Counterexamples)
			}
			if total := d.Stats.Total().Executed; total != d.Stats.Learning.Executed+d.Stats.Equivalence.Executed+d.Stats.Conformance.Executed {
				t.Fatalf("total executed %d leaves out a phase: %+v", total, d.Stats)
			}
		})
	}
}

// --bound auto records the bound it settled on and why. On the deep
// counter the one-state first hypothesis passes rounds at 1 and at 2 (its
// states differ only on a·a·a), so auto settles on 2 with nothing found,
// and the conformance test is what finds the rest.
func TestAutoBoundIsRecorded(t *testing.T) {
	for _, c := range []struct {
		name  string
		conf  *model.Conformance
		found []int
		exact bool
	}{
		{"alone", nil, []int{0, 0}, false},
		{"with wp", &model.Conformance{Method: engine.ConformanceWp, Depth: 3}, []int{0, 0}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			plan := deepPlan(t, 2)
			plan.Job.Target.BoundAuto, plan.Job.Target.BoundMax = true, 5
			res, err := engine.Run(context.Background(), plan.Job, engine.Options{VirtualClock: true, Conformance: c.conf})
			if err != nil {
				t.Fatal(err)
			}
			b := res.Document.Bound
			want := model.AutoBound{Start: engine.AutoStart, Max: 5, Found: c.found}
			if b == nil || b.Auto == nil || b.Used != 2 || !reflect.DeepEqual(*b.Auto, want) {
				t.Fatalf("bound %+v; want used 2, auto %+v", b, want)
			}
			if _, differ, err := compose.Disagreement(res.Machine, plan); err != nil || differ == c.exact {
				t.Fatalf("differs from the target: %v (err %v), want %v", differ, err, !c.exact)
			}
		})
	}
}
