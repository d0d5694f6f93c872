package compose_test

import (
	"context"
	"testing"

	"github.com/droidstar/droidstar/internal/compose"
	"github.com/droidstar/droidstar/internal/compose/composetest"
	"github.com/droidstar/droidstar/internal/engine"
	"github.com/droidstar/droidstar/internal/model"
)

func TestFromModelPlainMealy(t *testing.T) {
	plan, err := compose.Build(context.Background(), compose.Source{Model: &compose.ModelSource{File: "m.dot", Data: []byte(`digraph { __start0 -> a; a -> a [label="x / 1"]; }`), Bound: 1}}, compose.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if plan.Target().Semantics != model.SemanticsMealy {
		t.Fatalf("semantics %q", plan.Target().Semantics)
	}
}

func TestDisagreementFindsShortestDifference(t *testing.T) {
	plan, err := compose.Build(context.Background(), compose.Source{Model: &compose.ModelSource{File: "timer.dot", Data: []byte(composetest.TimerDOT), Bound: 2, Quiescence: 500e6}}, compose.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := engine.Run(context.Background(), plan.Job, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Machine.Clone()
	start, _ := m.Inputs.Index("start")
	wait, _ := m.Inputs.Index("wait")
	quiet, _ := m.Outputs.Index("quiet")
	armed := m.Next[m.Initial][start]
	m.Out[armed][wait] = quiet // the timer never fires
	w, differ, err := compose.Disagreement(m, plan)
	if err != nil || !differ || m.Inputs.Format(w) != "start wait" {
		t.Fatalf("got %q differ=%v err=%v", m.Inputs.Format(w), differ, err)
	}
}
