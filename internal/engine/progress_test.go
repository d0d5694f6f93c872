package engine

import (
	"context"
	"testing"
	"time"

	"github.com/droidstar/droidstar/internal/oracle"
)

// ran records n queries of phase p asked, of which scheduled went to a
// device and executed ran there, a second each.
func ran(rec *oracle.Recorder, p oracle.Phase, asked, scheduled, executed int) {
	ctx := oracle.WithPhase(context.Background(), p)
	rec.Asked(ctx, asked)
	rec.Scheduled(scheduled)
	for range executed {
		rec.Executed(ctx, "sim-0", 3, time.Second)
	}
}

type phaseQueries struct {
	phase                 string
	done, total           int
	queries, queriesTotal int
}

func check(t *testing.T, w *watcher, want phaseQueries) {
	t.Helper()
	s := w.snapshot()
	if got := (phaseQueries{s.Phase, s.Done, s.Total, s.Queries, s.QueriesTotal}); got != want {
		t.Errorf("snapshot %+v, want %+v", got, want)
	}
}

// A round's first batch is paced by its queries before any transition is
// checked: the count of queries run, and the round's total from the words
// it still asks and the share of them that reach the devices.
func TestRoundQueriesBeforeTheFirstTransition(t *testing.T) {
	rec := &oracle.Recorder{}
	ran(rec, oracle.PhaseLearning, 50, 50, 50)
	w := newWatcher(rec, func() time.Duration { return 0 }, nil)
	w.hypothesis(1, 4)
	check(t, w, phaseQueries{phase: "equivalence round 1"})
	w.boundProgress(0, 8)
	w.boundEstimate(960) // 8 transitions of 120 words
	// Before the first batch: every word is assumed to run, as in the
	// run so far.
	check(t, w, phaseQueries{"equivalence round 1", 0, 8, 0, 960})
	ran(rec, oracle.PhaseEquivalence, 240, 240, 30)
	check(t, w, phaseQueries{"equivalence round 1", 0, 8, 30, 960})
	// Once transitions are checked the total follows what they cost: the
	// second batch's 240 words sent 120 to the devices, so of the 480
	// words left three quarters will run.
	w.boundProgress(2, 8)
	w.boundEstimate(720)
	ran(rec, oracle.PhaseEquivalence, 240, 120, 0)
	check(t, w, phaseQueries{"equivalence round 1", 2, 8, 30, 720})
}

// A learner's phase has a total from its first estimate on; before its
// own queries show how many reach the devices, the run's share counts.
func TestLearnerPhaseQueries(t *testing.T) {
	rec := &oracle.Recorder{}
	w := newWatcher(rec, func() time.Duration { return 0 }, nil)
	w.begin(kindFill)
	check(t, w, phaseQueries{phase: "table fill"})
	w.learnerEstimate(100)
	check(t, w, phaseQueries{phase: "table fill", queriesTotal: 100})
	ran(rec, oracle.PhaseLearning, 90, 60, 20)
	check(t, w, phaseQueries{phase: "table fill", queries: 20, queriesTotal: 67})

	w.hypothesis(1, 3)
	ran(rec, oracle.PhaseEquivalence, 10, 0, 0) // all from the cache
	w.asking()
	check(t, w, phaseQueries{phase: "refining after round 1"})
	// The run so far sent 60 of 100 asked queries to the devices.
	w.learnerEstimate(20)
	check(t, w, phaseQueries{phase: "refining after round 1", queriesTotal: 12})

	w.enter(kindFinal)
	ran(rec, oracle.PhaseVerification, 30, 30, 10)
	check(t, w, phaseQueries{phase: "final check", queries: 10, queriesTotal: 30})
}

// The conformance test's words are its queries.
func TestConformanceQueries(t *testing.T) {
	rec := &oracle.Recorder{}
	ran(rec, oracle.PhaseLearning, 10, 10, 10)
	w := newWatcher(rec, func() time.Duration { return 0 }, nil)
	w.hypothesis(2, 5)
	w.conformanceProgress(0, 128)
	check(t, w, phaseQueries{"conformance test, round 2", 0, 128, 0, 128})
	ran(rec, oracle.PhaseConformance, 64, 16, 16)
	w.conformanceProgress(64, 128)
	check(t, w, phaseQueries{"conformance test, round 2", 64, 128, 16, 32})
}
