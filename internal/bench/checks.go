package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/droidstar/droidstar/examples"
	"github.com/droidstar/droidstar/internal/compose"
	"github.com/droidstar/droidstar/internal/engine"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/oracle/pad"
	"github.com/droidstar/droidstar/internal/purpose"
)

// Checks are the equivalence checks one bench run uses: the bound oracle
// with the case's bound (or Bound when set, or chosen automatically up to
// AutoMax), then the conformance test when set.
type Checks struct {
	Name string
	// Pad pads queries (see internal/oracle/pad; zero: none).
	Pad         pad.Sizes
	Bound       int
	Auto        bool
	AutoMax     int
	Conformance *model.Conformance
}

// CheckTarget is one target of the checks suite: a name and how to plan
// learning it.
type CheckTarget struct {
	Suite, Name string
	plan        func() (*compose.Plan, error)
}

// CheckTargets are the DroidStar six (when shared has them), the bundled
// examples and the public Mealy models (when shared has them), in that
// order.
func CheckTargets(shared string) ([]CheckTarget, error) {
	var out []CheckTarget
	if shared != "" {
		for _, c := range DroidStarCases {
			out = append(out, CheckTarget{Suite: "droidstar", Name: c.Class, plan: func() (*compose.Plan, error) {
				return droidStarPlan(shared, c, 1)
			}})
		}
	}
	for _, name := range examples.Names() {
		out = append(out, CheckTarget{Suite: "examples", Name: name, plan: func() (*compose.Plan, error) {
			return examplePlan(name)
		}})
	}
	if shared != "" {
		rows, err := LoadAALpy(shared)
		if err != nil {
			return nil, err
		}
		for _, a := range rows {
			file := filepath.Join(shared, "benchmarks", "mealy", a.Model+".dot")
			out = append(out, CheckTarget{Suite: "mealy", Name: a.Model, plan: func() (*compose.Plan, error) {
				data, err := os.ReadFile(file)
				if err != nil {
					return nil, err
				}
				return compose.FromModel(file, data, compose.ModelOptions{Format: "mealy-dot", Bound: purpose.DefaultBound})
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
	plan, err := t.plan()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.Name, err)
	}
	defer plan.Close()
	if checks.Bound > 0 {
		plan.Job.Target.Bound = checks.Bound
	}
	plan.Job.Target.BoundAuto, plan.Job.Target.BoundMax = checks.Auto, checks.AutoMax
	plan.Pad(checks.Pad)
	res, err := engine.Run(ctx, plan.Job, engine.Options{VirtualClock: true, Conformance: checks.Conformance})
	if err != nil {
		return nil, fmt.Errorf("%s (%s): %w", t.Name, checks.Name, err)
	}
	_, differ, err := compose.Disagreement(res.Machine, plan)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.Name, err)
	}
	st := res.Document.Stats
	row := &ChecksRow{Target: t, States: st.States, Executed: st.Total().Executed, Conformance: st.Conformance.Executed,
		BoundUsed: res.Document.Bound.Used, Equal: !differ}
	for _, f := range st.Counterexamples {
		if f.Check == model.CheckConformance {
			row.Found++
		}
	}
	return row, nil
}
