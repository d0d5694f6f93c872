package engine

import (
	"context"
	"testing"
	"time"

	"github.com/droidstar/droidstar/internal/oracle"
)

// A round's first batch is paced by its queries before any transition is
// checked: the count of queries run, and the round's total scaled from
// the transitions handed out.
func TestRoundQueriesBeforeTheFirstTransition(t *testing.T) {
	rec := &oracle.Recorder{}
	ctx := oracle.WithPhase(context.Background(), oracle.PhaseLearning)
	rec.Asked(ctx, 50)
	rec.Scheduled(50)
	for range 50 {
		rec.Executed(ctx, "sim-0", 3, time.Second)
	}
	w := newWatcher(rec, time.Now(), nil)
	w.hypothesis(1, 4)
	eq := oracle.WithPhase(context.Background(), oracle.PhaseEquivalence)
	rec.Asked(eq, 240)
	w.roundProgress(0, 8)
	w.roundBatch(2) // two of the round's 8 transitions in the first batch
	rec.Scheduled(240)
	for range 30 {
		rec.Executed(eq, "sim-0", 4, time.Second)
	}
	s := w.snapshot()
	if s.Phase != "equivalence round 1" || s.Done != 0 || s.Total != 8 || s.Queries != 30 || s.QueriesTotal != 960 {
		t.Fatalf("snapshot %q %d/%d, queries %d of %d; want equivalence round 1 0/8, 30 of 960", s.Phase, s.Done, s.Total, s.Queries, s.QueriesTotal)
	}
	// Once transitions are checked the total follows what they cost.
	w.roundProgress(2, 8)
	w.roundBatch(2)
	rec.Scheduled(120)
	s = w.snapshot()
	if s.Queries != 30 || s.QueriesTotal != 720 {
		t.Fatalf("queries %d of %d, want 30 of 720", s.Queries, s.QueriesTotal)
	}
}
