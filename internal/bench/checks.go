package bench

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/droidstar/droidstar/examples"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/run"
)

// Checks are the equivalence checks one bench run uses, in the words of
// the learning options: the bound oracle with the target's bound (or
// Bound when set: N, auto or auto:MAX), then the Conformance test when
// set; Pad pads queries (zero: none).
type Checks struct {
	Name        string
	Pad         run.Pad
	Bound       string
	Conformance string
}

// CheckTarget is one target of the checks suite: a name and how to learn
// it.
type CheckTarget struct {
	Suite, Name string
	spec        func() (run.Spec, error)
}

// CheckTargets are the DroidStar six (when shared has them), the bundled
// examples and the public Mealy models (when shared has them), in that
// order.
func CheckTargets(shared string) ([]CheckTarget, error) {
	var out []CheckTarget
	if shared != "" {
		for _, c := range DroidStarCases {
			out = append(out, CheckTarget{Suite: "droidstar", Name: c.Class, spec: func() (run.Spec, error) {
				return droidStarSpec(shared, c, DroidStarRun{Lanes: 1})
			}})
		}
	}
	for _, name := range examples.Names() {
		out = append(out, CheckTarget{Suite: "examples", Name: name, spec: func() (run.Spec, error) {
			return exampleSpec(name), nil
		}})
	}
	if shared != "" {
		rows, err := LoadAALpy(shared)
		if err != nil {
			return nil, err
		}
		for _, a := range rows {
			out = append(out, CheckTarget{Suite: "mealy", Name: a.Model, spec: func() (run.Spec, error) {
				s := Spec()
				s.Model = run.DefaultModelFile(filepath.Join(shared, "benchmarks", "mealy", a.Model+".dot"))
				s.Model.Format = "mealy-dot"
				return s, nil
			}})
		}
	}
	return out, nil
}

// ChecksRow is what one target cost under one set of checks.
type ChecksRow struct {
	Target CheckTarget
	States int
	// Executed counts every executed query; Conformance those of the
	// conformance test alone.
	Executed, Conformance int
	// Found counts the counterexamples the conformance test found.
	Found int
	// BoundUsed is the bound (the one --bound auto settled on).
	BoundUsed int
	Equal     bool
}

// RunChecks learns t with checks and compares the result with the target.
func RunChecks(ctx context.Context, t CheckTarget, checks Checks) (*ChecksRow, error) {
	spec, err := t.spec()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.Name, err)
	}
	if checks.Bound != "" {
		spec.Bound = checks.Bound
	}
	spec.Pad = checks.Pad
	if checks.Conformance != "" {
		spec.Conformance = checks.Conformance
	}
	r, out, err := learnSpec(ctx, spec)
	if err != nil {
		return nil, fmt.Errorf("%s (%s): %w", t.Name, checks.Name, err)
	}
	defer r.Close()
	_, differ, err := r.Disagreement(out.Machine)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.Name, err)
	}
	doc := out.Document
	st := doc.Stats
	row := &ChecksRow{Target: t, States: st.States, Executed: st.Total().Executed, Conformance: st.Conformance.Executed,
		BoundUsed: doc.Bound.Used, Equal: !differ}
	for _, f := range st.Counterexamples {
		if f.Check == model.CheckConformance {
			row.Found++
		}
	}
	return row, nil
}
