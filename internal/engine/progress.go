package engine

import (
	"context"
	"fmt"
	"math"
	"sort"
	"sync"
	"time"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/oracle"
)

// Device is one executor's share of the run.
type Device struct {
	Serial     string
	Executed   int  // queries this device ran
	Busy       bool // running a query now
	DeviceSecs float64
}

// Snapshot is the run as it stands at one moment.
type Snapshot struct {
	Phase     string // "table fill", "equivalence round 2", "refining after round 2"
	Round     int    // equivalence rounds so far
	States    int    // states of the current hypothesis (0 before the first)
	Asked     int    // membership queries the learner asked
	Executed  int    // queries run on devices
	CacheHits int    // answered from the cache
	Excluded  int    // answered by the restrictions without running
	// DeviceSecs is device time so far, summed over devices.
	DeviceSecs float64
	// Elapsed is the run's time so far: the wall clock's, or on a
	// simulated device's virtual clock the time the run would have taken.
	Elapsed time.Duration
	// Done and Total measure the current phase in steps when it has them
	// (transitions checked of the equivalence round, words asked of the
	// conformance test), 0/0 otherwise.
	Done, Total int
	// Unit names what Done and Total count ("transitions"); empty leaves
	// the counts bare.
	Unit string
	// Queries is how many queries the devices ran since the phase began,
	// and QueriesTotal an estimate of how many the phase runs (0: none
	// yet): what the phase's asker said it still asks (the learner's
	// table or tree, the round's words), times the share of its queries
	// that reach the devices rather than the cache. Every phase has one
	// from its first batch on, so it shows a count and an estimate of
	// the time left from its first seconds.
	Queries, QueriesTotal int
	Devices               []Device
}

// phaseKind is what the run is doing.
type phaseKind int

const (
	kindFill        phaseKind = iota // the learner, before its first hypothesis
	kindRefine                       // the learner, after a counterexample
	kindBound                        // the bound check of a hypothesis
	kindConformance                  // the conformance test of a hypothesis
	kindFinal                        // the final check
)

// counts are the recorder's counts over the whole run at one moment.
type counts struct{ asked, scheduled, ran int }

// watcher turns the pipeline's records and the learner's events into
// progress snapshots.
type watcher struct {
	rec   *oracle.Recorder
	clock func() time.Duration // the run's time so far
	send  func(Snapshot)

	// emitMu keeps send from running on two goroutines at once (the
	// ticker and the learner's events).
	emitMu sync.Mutex
	mu     sync.Mutex
	round  int
	states int
	// bound is the bound --bound auto checks at now (0: a fixed bound,
	// which the phase does not repeat).
	bound int
	kind  phaseKind
	// base is the recorder's counts when the phase began.
	base counts
	// done and total are the phase's steps (kindBound, kindConformance).
	done, total int
	// left is how many queries the phase's asker said it still asks,
	// when the phase had asked leftAt; planned says it said so.
	left, leftAt int
	planned      bool
	// every and next pace the snapshots on a simulated clock (see tick).
	every, next time.Duration
}

func newWatcher(rec *oracle.Recorder, clock func() time.Duration, send func(Snapshot)) *watcher {
	return &watcher{rec: rec, clock: clock, send: send}
}

// counts reads the recorder.
func (w *watcher) counts() counts {
	var c counts
	for _, p := range []oracle.Phase{oracle.PhaseLearning, oracle.PhaseEquivalence, oracle.PhaseVerification, oracle.PhaseConformance} {
		c.asked += w.rec.Phase(p).Asked
	}
	c.scheduled, c.ran = w.rec.Queue()
	return c
}

// begin starts a phase of kind k. Callers hold w.mu.
func (w *watcher) begin(k phaseKind) {
	w.kind, w.base = k, w.counts()
	w.done, w.total, w.left, w.leftAt, w.planned = 0, 0, 0, 0, false
}

// enter begins a phase of kind k unless it is the current one. It shows
// nothing yet: the phase is shown once it has a size (see estimate), or
// at the next tick.
func (w *watcher) enter(k phaseKind) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.kind != k {
		w.begin(k)
	}
}

func (w *watcher) hypothesis(round, states int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.round, w.states = round, states
	w.begin(kindBound)
}

// restart is learning starting again from the cache after votes
// overturned answers it had used.
func (w *watcher) restart() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.round = 0
	w.begin(kindFill)
}

func (w *watcher) autoBound(bound int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.bound = bound
}

// learner is the learner's phase: the table fill before the first
// hypothesis, refining after.
func (w *watcher) learner() phaseKind {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.round == 0 {
		return kindFill
	}
	return kindRefine
}

// asking is told that the learner asks a batch: a learner that gives no
// estimates still has its phase named.
func (w *watcher) asking() { w.enter(w.learner()) }

// estimate is told how many queries the phase's asker still asks. The
// phase's first estimate is shown at once: on a simulated clock a phase
// that runs nothing on a device takes no time, and this snapshot is all
// there is of it.
func (w *watcher) estimate(k phaseKind, queries int) {
	asked := w.counts().asked
	w.mu.Lock()
	if w.kind != k {
		w.begin(k)
	}
	first := !w.planned
	w.left, w.leftAt, w.planned = queries, asked-w.base.asked, true
	w.mu.Unlock()
	if first {
		w.emit()
	}
}

func (w *watcher) learnerEstimate(queries int) { w.estimate(w.learner(), queries) }

func (w *watcher) boundEstimate(words int) { w.estimate(kindBound, words) }

// steps records a phase's steps; its first call (done 0) begins a round,
// also of the same kind: --bound auto checks one hypothesis at several
// bounds.
func (w *watcher) steps(k phaseKind, done, total int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if done == 0 {
		w.begin(k)
	}
	w.done, w.total = done, total
}

func (w *watcher) boundProgress(done, total int) { w.steps(kindBound, done, total) }

// conformanceProgress records the conformance test's words, which are its
// queries: what is left of them is its estimate.
func (w *watcher) conformanceProgress(done, total int) {
	w.steps(kindConformance, done, total)
	w.estimate(kindConformance, total-done)
}

// queries is what the phase's devices ran so far and about how many they
// will run: those handed to them, and the queries the asker still asks
// times the share of the phase's queries (or before any, the run's) that
// reached them. Callers hold w.mu.
func (w *watcher) queries(now counts) (ran, total int) {
	ran = now.ran - w.base.ran
	scheduled := now.scheduled - w.base.scheduled
	asked := now.asked - w.base.asked
	share := 1.0
	switch {
	case asked > 0:
		share = float64(scheduled) / float64(asked)
	case now.asked > 0:
		share = float64(now.scheduled) / float64(now.asked)
	}
	future := 0.0
	if w.planned {
		future = float64(max(w.left-(asked-w.leftAt), 0)) * share
	}
	total = scheduled + int(math.Round(future))
	if total == 0 {
		return ran, 0
	}
	return ran, max(total, ran)
}

// Snapshot is the run as it stands.
func (w *watcher) snapshot() Snapshot {
	learning, equiv := w.rec.Snapshot()
	verification, conformance := w.rec.Verification(), w.rec.Conformance()
	now := w.counts()
	w.mu.Lock()
	s := Snapshot{Round: w.round, States: w.states, Elapsed: w.clock()}
	switch w.kind {
	case kindFill:
		s.Phase = "table fill"
	case kindRefine:
		s.Phase = fmt.Sprintf("refining after round %d", s.Round)
	case kindBound:
		s.Phase = fmt.Sprintf("equivalence round %d", s.Round)
		if w.bound > 0 {
			s.Phase += fmt.Sprintf(" at bound %d", w.bound)
		}
		s.Done, s.Total, s.Unit = w.done, w.total, "transitions"
	case kindConformance:
		s.Phase = fmt.Sprintf("conformance test, round %d", s.Round)
		s.Done, s.Total, s.Unit = w.done, w.total, "words"
	case kindFinal:
		s.Phase = "final check"
	}
	s.Queries, s.QueriesTotal = w.queries(now)
	w.mu.Unlock()
	for _, p := range []model.PhaseStats{learning, equiv, verification, conformance} {
		s.Asked += p.Asked
		s.Executed += p.Executed
		s.CacheHits += p.CacheHits
		s.Excluded += p.Excluded
		s.DeviceSecs += p.DeviceSecs
	}
	for _, d := range w.rec.Devices() {
		s.Devices = append(s.Devices, Device{Serial: d.Serial, Executed: d.Executed, Busy: d.Busy, DeviceSecs: d.DeviceSecs})
	}
	// By serial, so lines keep their places whichever device ran first.
	sort.Slice(s.Devices, func(i, j int) bool { return s.Devices[i].Serial < s.Devices[j].Serial })
	return s
}

func (w *watcher) emit() {
	if w.send != nil {
		w.emitMu.Lock()
		defer w.emitMu.Unlock()
		w.send(w.snapshot())
	}
}

// run sends a snapshot every interval of the wall clock until stop is
// called; stop sends the last one.
func (w *watcher) run(every time.Duration) (stop func()) {
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				w.emit()
			}
		}
	}()
	return func() {
		close(quit)
		wg.Wait()
		w.emit()
	}
}

// runSimulated sends a snapshot each time the recorder's simulated clock
// passes another interval, on the goroutine that moves the clock, so
// that a simulated run shows what a run on devices would show, at the
// same moments of its own time, however fast the host goes through it.
func (w *watcher) runSimulated(every time.Duration) (stop func()) {
	w.mu.Lock()
	w.every, w.next = every, every
	w.mu.Unlock()
	w.rec.OnClock(w.tick)
	return func() {
		w.rec.OnClock(nil)
		w.emit()
	}
}

func (w *watcher) tick(now time.Duration) {
	w.mu.Lock()
	due := now >= w.next
	if due {
		w.next = now - now%w.every + w.every
	}
	w.mu.Unlock()
	if due {
		w.emit()
	}
}

// tap tells the watcher of every batch a learner asks.
type tap struct {
	*oracle.Counter
	asking func()
}

func (t tap) Ask(ctx context.Context, queries []mealy.Word) ([]oracle.Answer, error) {
	t.asking()
	return t.Counter.Ask(ctx, queries)
}
