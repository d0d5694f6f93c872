package engine

import (
	"fmt"
	"sort"
	"sync"
	"time"

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
	Elapsed    time.Duration
	// Done and Total measure the current phase when known (e.g. transitions
	// checked of the equivalence round), 0/0 when unknown; they drive the
	// estimate of what is left.
	Done, Total int
	// Unit names what Done and Total count ("transitions"); empty leaves
	// the counts bare.
	Unit string
	// Queries is how many queries the devices ran since the round began,
	// and QueriesTotal an estimate of how many the round runs (0: none
	// yet), from the queries of the transitions handed out so far. A
	// round whose first transitions take long still shows a count and a
	// pace from its first second.
	Queries, QueriesTotal int
	Devices               []Device
}

// watcher turns the pipeline's records and the learner's events into
// progress snapshots.
type watcher struct {
	rec   *oracle.Recorder
	start time.Time
	send  func(Snapshot)

	// emitMu keeps send from running on two goroutines at once (the
	// ticker and the learner's hypothesis events).
	emitMu      sync.Mutex
	mu          sync.Mutex
	round       int
	states      int
	done, total int
	// bound is the bound --bound auto checks at now (0: a fixed bound,
	// which the phase does not repeat).
	bound int
	// The round's queue: the recorder's counts when the round began, and
	// the transitions handed out (checked and in the batch being asked).
	baseScheduled, baseRan int
	handedOut              int
}

func newWatcher(rec *oracle.Recorder, start time.Time, send func(Snapshot)) *watcher {
	return &watcher{rec: rec, start: start, send: send}
}

func (w *watcher) hypothesis(round, states int) {
	w.mu.Lock()
	w.round, w.states, w.done, w.total = round, states, 0, 0
	w.mu.Unlock()
	w.emit()
}

func (w *watcher) autoBound(bound int) {
	w.mu.Lock()
	w.bound = bound
	w.mu.Unlock()
}

func (w *watcher) roundProgress(done, total int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if done == 0 {
		w.baseScheduled, w.baseRan = w.rec.Queue()
		w.handedOut = 0
	}
	w.done, w.total = done, total
}

// roundBatch is told the transitions of the batch the round asks next.
func (w *watcher) roundBatch(transitions int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.handedOut = w.done + transitions
}

// roundQueries is what the round's devices ran so far and, scaled from
// the transitions handed out to all of them, how many they will run.
// Cache hits make later transitions cheaper, so it errs on the long side.
func (w *watcher) roundQueries() (ran, total int) {
	scheduled, ranAll := w.rec.Queue()
	w.mu.Lock()
	defer w.mu.Unlock()
	queued, ran := scheduled-w.baseScheduled, ranAll-w.baseRan
	if w.handedOut <= 0 || queued <= 0 || w.total <= 0 {
		return ran, 0
	}
	return ran, max(queued*w.total/w.handedOut, ran)
}

// Snapshot is the run as it stands.
func (w *watcher) snapshot() Snapshot {
	learning, equiv := w.rec.Snapshot()
	verification, conformance := w.rec.Verification(), w.rec.Conformance()
	w.mu.Lock()
	s := Snapshot{Round: w.round, States: w.states, Elapsed: time.Since(w.start)}
	done, total, bound := w.done, w.total, w.bound
	w.mu.Unlock()
	switch {
	case s.Round == 0:
		s.Phase = "table fill"
	case w.rec.Current() == oracle.PhaseVerification:
		s.Phase = "final check"
	case w.rec.Current() == oracle.PhaseConformance:
		s.Phase = fmt.Sprintf("conformance test, round %d", s.Round)
		s.Done, s.Total, s.Unit = done, total, "words"
	case w.rec.Current() == oracle.PhaseEquivalence:
		s.Phase = fmt.Sprintf("equivalence round %d", s.Round)
		if bound > 0 {
			s.Phase += fmt.Sprintf(" at bound %d", bound)
		}
		s.Done, s.Total, s.Unit = done, total, "transitions"
		s.Queries, s.QueriesTotal = w.roundQueries()
	default:
		s.Phase = fmt.Sprintf("refining after round %d", s.Round)
	}
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

// run sends a snapshot every interval until stop is called; stop sends
// the last one.
func (w *watcher) run(every time.Duration) (stop func()) {
	if every <= 0 {
		every = 200 * time.Millisecond
	}
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
