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
	plans := map[string]func(compose.Pipeline) *compose.Plan{
		"timer":        func(pl compose.Pipeline) *compose.Plan { return timerPlanWith(t, pl) },
		"serversocket": func(pl compose.Pipeline) *compose.Plan { return serverSocketPlanWith(t, 2, pl) },
	}
	for name, plan := range plans {
		t.Run(name, func(t *testing.T) {
			learn := func(maxNodes int) (*engine.Result, *compose.Plan) {
				p := plan(compose.Pipeline{Repeat: compose.DefaultRepeat, MaxNodes: maxNodes, Final: compose.FinalAll})
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
			if n, all := p.CacheNodes(), wholePlan.CacheNodes(); n >= all {
				t.Fatalf("with 8 nodes the tree holds %d edges, uncapped %d: nothing was dropped", n, all)
			}
		})
	}
}
