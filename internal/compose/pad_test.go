package compose_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/droidstar/droidstar/internal/compose"
	"github.com/droidstar/droidstar/internal/engine"
	"github.com/droidstar/droidstar/internal/oracle/pad"
	"github.com/droidstar/droidstar/internal/purpose"
)

// The server socket, whose every callin is followed by a wait, is learned
// the same with its learning queries padded as without: the same model,
// equal to the target, from fewer executed queries.
func TestPaddedServerSocketLearnsTheSameModel(t *testing.T) {
	p, err := purpose.Load(filepath.Join("..", "..", "testdata", "serversocket", "purpose.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	learn := func(n int) (states, executed, padded int) {
		t.Helper()
		plan, err := compose.Build(context.Background(), compose.Source{Purpose: p},
			compose.Options{Pipeline: compose.Pipeline{Pad: pad.Sizes{Learning: n}, Repeat: compose.DefaultRepeat}})
		if err != nil {
			t.Fatal(err)
		}
		defer plan.Close()
		res, err := engine.Run(context.Background(), plan.Job, engine.Options{VirtualClock: true})
		if err != nil {
			t.Fatal(err)
		}
		if w, differ, err := compose.Disagreement(res.Machine, plan); err != nil || differ {
			t.Fatalf("pad %d: the learned model differs from the target on %v (%v)", n, w, err)
		}
		st := res.Document.Stats
		return st.States, st.Total().Executed, st.Learning.Padded
	}
	states, executed, padded := learn(0)
	if padded != 0 {
		t.Errorf("pad 0 padded %d symbols", padded)
	}
	for _, n := range []int{1, 3} {
		s, e, pd := learn(n)
		if s != states || e >= executed || pd == 0 {
			t.Errorf("pad %d: %d states, %d executed, %d padded; without padding %d states, %d executed", n, s, e, pd, states, executed)
		}
	}
}
