package engine_test

import (
	"context"
	"testing"

	"github.com/droidstar/droidstar/internal/compose"
	"github.com/droidstar/droidstar/internal/engine"
)

// A cache capped far below what a run executes drops equivalence answers
// all along, and learning still ends with the same model: the table's
// words are kept, and what was dropped runs again when asked again. The
// final check re-runs what is left of the tree.
func TestTinyCacheLearnsTheSameModel(t *testing.T) {
	plans := map[string]func() *compose.Plan{
		"timer":        func() *compose.Plan { return timerPlan(t) },
		"serversocket": func() *compose.Plan { return serverSocketPlan(t, 2) },
	}
	for name, plan := range plans {
		t.Run(name, func(t *testing.T) {
			learn := func(maxNodes int) (*engine.Result, *compose.Plan) {
				p := plan()
				p.Cache.MaxNodes = maxNodes
				p.Job.Verify = p.Cache.VerifyAll
				res, err := engine.Run(context.Background(), p.Job, engine.Options{VirtualClock: true})
				if err != nil {
					t.Fatal(err)
				}
				return res, p
			}
			whole, wholePlan := learn(0)
			tiny, p := learn(8)
			if w, differ, err := whole.Machine.Counterexample(tiny.Machine); err != nil || differ {
				t.Fatalf("with 8 nodes the model differs on %q (err %v)", p.Target().Inputs.Format(w), err)
			}
			if w, differ, err := compose.Disagreement(tiny.Machine, p); err != nil || differ {
				t.Fatalf("with 8 nodes the model differs from the target on %q (err %v)", p.Target().Inputs.Format(w), err)
			}
			if n, all := p.Cache.Nodes(), wholePlan.Cache.Nodes(); n >= all {
				t.Fatalf("with 8 nodes the tree holds %d edges, uncapped %d: nothing was dropped", n, all)
			}
		})
	}
}
