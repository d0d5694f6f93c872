package compose_test

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/droidstar/droidstar/internal/compose"
	"github.com/droidstar/droidstar/internal/compose/composetest"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/purpose"
)

// The target machine is the model as the purpose sees it: the server
// socket's purpose forces a wait after every callin, so its states differ
// on "wait accept wait", one free symbol and three in all; the bound the
// target needs is counted as the plan's oracle counts it.
func TestTargetMachineCountsFreeSymbols(t *testing.T) {
	p, err := purpose.Load(filepath.Join("..", "..", "testdata", "serversocket", "purpose.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := compose.Build(context.Background(), compose.Source{Purpose: p}, compose.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer plan.Close()
	target, err := compose.TargetMachine(plan)
	if err != nil {
		t.Fatal(err)
	}
	if w, differ, err := compose.Disagreement(target, plan); err != nil || differ {
		t.Fatalf("the target machine disagrees with the plan on %v (%v)", w, err)
	}
	for _, c := range []struct {
		forcing mealy.Forcing
		want    int
	}{{plan.Job.Target.Forcing, 1}, {mealy.Forcing{}, 3}} {
		tc, err := compose.CheckTarget(target, target, c.forcing)
		if err != nil {
			t.Fatal(err)
		}
		if want := (&model.TargetCheck{Equal: true, NeededBound: c.want}); !reflect.DeepEqual(tc, want) {
			t.Errorf("forcing %v: %+v, want %+v", c.forcing.Forces, tc, want)
		}
	}
}

// A learned machine that differs from the target gets a shortest word on
// which it does, with both machines' answers.
func TestCheckTargetNamesTheShortestDifference(t *testing.T) {
	plan, err := compose.Build(context.Background(), compose.Source{Model: &compose.ModelSource{File: "timer.dot", Data: []byte(composetest.TimerDOT), Bound: 2, Quiescence: 500e6}}, compose.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer plan.Close()
	target, err := compose.TargetMachine(plan)
	if err != nil {
		t.Fatal(err)
	}
	m := target.Clone()
	start, _ := m.Inputs.Index("start")
	wait, _ := m.Inputs.Index("wait")
	quiet, _ := m.Outputs.Index("quiet")
	m.Out[m.Next[m.Initial][start]][wait] = quiet // the timer never fires
	tc, err := compose.CheckTarget(m, target, mealy.Forcing{})
	if err != nil {
		t.Fatal(err)
	}
	want := &model.TargetCheck{NeededBound: target.NeededBound(), Counterexample: &model.TargetCounterexample{
		Input: []string{"start", "wait"}, Expected: []string{"ok", "fired"}, Learned: []string{"ok", "quiet"},
	}}
	if !reflect.DeepEqual(tc, want) {
		t.Errorf("%+v %+v\nwant %+v %+v", tc, tc.Counterexample, want, want.Counterexample)
	}
}
