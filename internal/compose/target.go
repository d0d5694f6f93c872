package compose

import (
	"fmt"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
)

// TargetMachine is a plan's simulated model as the purpose sees it (see
// Disagreement), as a machine over the target's alphabets: what a perfect
// teacher compares hypotheses with, and what the distinguisher bound the
// target needs is computed from. It fails when the plan has no model, or
// when the model emits what the purpose does not declare or an environment
// error, on which learning stops.
func TargetMachine(plan *Plan) (*mealy.Machine, error) {
	v, err := newPurposeView(plan)
	if err != nil {
		return nil, err
	}
	t := plan.Job.Target
	type edge struct{ next, out int }
	index := map[viewState]int{}
	var states []viewState
	var edges [][]edge
	add := func(x viewState) int {
		if q, ok := index[x]; ok {
			return q
		}
		index[x] = len(states)
		states = append(states, x)
		return len(states) - 1
	}
	add(v.start())
	for q := 0; q < len(states); q++ {
		row := make([]edge, t.Inputs.Size())
		for i := range row {
			out, next, err := v.expect(states[q], i)
			if err != nil {
				return nil, err
			}
			o, ok := t.Outputs.Index(out)
			if !ok {
				return nil, fmt.Errorf("the model answers %q, which is not an output of the target", out)
			}
			row[i] = edge{next: add(next), out: o}
		}
		edges = append(edges, row)
	}
	m := mealy.NewMachine(t.Inputs, t.Outputs, len(states))
	for q, row := range edges {
		for i, e := range row {
			m.SetTransition(q, i, e.out, e.next)
		}
	}
	return m, m.Validate()
}

// CheckTarget compares a learned machine with the target machine of the
// plan (TargetMachine): whether they are equal, and if not a shortest word
// on which they differ, with both answers. NeededBound is the bound the
// target needs, in the units of the plan's bound oracle (free symbols when
// the purpose forces waits).
func CheckTarget(learned, target *mealy.Machine, f mealy.Forcing) (*model.TargetCheck, error) {
	w, differ, err := learned.Counterexample(target)
	if err != nil {
		return nil, err
	}
	c := &model.TargetCheck{Equal: !differ, NeededBound: target.NeededBound()}
	if !f.None() {
		c.NeededBound = target.NeededFreeBound(f)
	}
	if differ {
		want, _ := target.Run(w)
		got, _ := learned.Run(w)
		c.Counterexample = &model.TargetCounterexample{
			Input: learned.Inputs.Strings(w), Expected: target.Outputs.Strings(want), Learned: learned.Outputs.Strings(got),
		}
	}
	return c, nil
}
