package equivalence

import (
	"context"
	"fmt"
	"testing"

	"github.com/droidstar/droidstar/internal/learn"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/mealy/mealytest"
	"github.com/droidstar/droidstar/internal/oracle"
	"github.com/droidstar/droidstar/internal/oracle/cache"
	"github.com/droidstar/droidstar/internal/oracle/oracletest"
)

// A round asked in small batches finds the counterexample one batch finds,
// and no batch is larger than MaxBatch.
func TestBoundStreamsInBoundedBatches(t *testing.T) {
	socket, forcing := mealytest.ServerSocket()
	socketSem := mealy.ClosureSemantics(socket.Inputs, socket.Outputs)
	cases := []struct {
		name    string
		target  *mealy.Machine
		h       *learn.Hypothesis
		sem     mealy.Semantics
		forcing mealy.Forcing
	}{
		{"lock merged", target(), merged(), mealy.PlainSemantics(), mealy.Forcing{}},
		{"lock exact", target(), &learn.Hypothesis{Machine: target(), Access: []mealy.Word{{}, {0}, {0, 0}}}, mealy.PlainSemantics(), mealy.Forcing{}},
		{"socket merged, free bound", socket, mergedSocket(), socketSem, forcing},
		{"socket merged, plain bound", socket, mergedSocket(), socketSem, mealy.Forcing{}},
	}
	for _, c := range cases {
		for bound := 1; bound <= 4; bound++ {
			for _, per := range []int{1, 3} {
				one := &Bound{MQ: &oracletest.Machine{M: c.target}, Bound: bound, Sem: c.sem, Forcing: c.forcing, PerBatch: per, MaxBatch: 1 << 20}
				want, err := one.FindCounterexample(context.Background(), c.h)
				if err != nil {
					t.Fatal(err)
				}
				for _, limit := range []int{2, 3, 5, 8} {
					t.Run(fmt.Sprintf("%s/bound %d/per %d/max %d", c.name, bound, per, limit), func(t *testing.T) {
						mq := &oracletest.Machine{M: c.target, Log: true}
						b := &Bound{MQ: mq, Bound: bound, Sem: c.sem, Forcing: c.forcing, PerBatch: per, MaxBatch: limit}
						got, err := b.FindCounterexample(context.Background(), c.h)
						if err != nil {
							t.Fatal(err)
						}
						if fmt.Sprint(got) != fmt.Sprint(want) {
							t.Fatalf("counterexample %v, want %v (one batch)", got, want)
						}
						for _, n := range mq.Sizes() {
							if n > limit {
								t.Fatalf("a batch of %d words, more than MaxBatch %d", n, limit)
							}
						}
					})
				}
			}
		}
	}
}

// Through a cache, a transition whose access words extend each other runs
// the same words streamed as in one batch: the longer side goes first, so
// no word runs before a longer word it is a prefix of.
func TestBoundStreamedRunsNoMoreThanOneBatch(t *testing.T) {
	// One state: (0, push) → 0 compares push·s with s, and every s that
	// starts with push is a prefix of some push·s'.
	one := mealy.NewMachine(target().Inputs, target().Outputs, 1)
	one.SetTransition(0, 0, 0, 0)
	one.SetTransition(0, 1, 1, 0)
	h := &learn.Hypothesis{Machine: one, Access: []mealy.Word{{}}}
	run := func(limit int) int {
		ex := &oracletest.Machine{M: target()}
		cache := cache.New(ex, target().Inputs, target().Outputs, mealy.PlainSemantics(), &oracle.Recorder{})
		b := &Bound{MQ: cache, Bound: 4, Sem: mealy.PlainSemantics(), MaxBatch: limit}
		cex, err := b.FindCounterexample(context.Background(), h)
		if err != nil || cex == nil {
			t.Fatalf("got %v, %v; want a counterexample", cex, err)
		}
		return ex.Queries
	}
	whole, streamed := run(1<<20), run(4)
	if streamed != whole {
		t.Fatalf("streamed in batches of 4 ran %d words, one batch %d", streamed, whole)
	}
	if whole != 24 {
		t.Fatalf("one batch ran %d words, want 24 (push·s for the 16 suffixes s of length 4, and the 8 s that start with look)", whole)
	}
}
