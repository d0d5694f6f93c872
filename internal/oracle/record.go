package oracle

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/droidstar/droidstar/internal/model"
)

// Phase is the learning phase a query belongs to, for the statistics.
type Phase int

const (
	PhaseLearning Phase = iota
	PhaseEquivalence
	// PhaseVerification is the final check before a model is declared
	// final: answers run once more, not new questions.
	PhaseVerification
	// PhaseConformance is the conformance test that runs once the bound
	// check passes: new questions, counted apart so that what the extra
	// assurance costs is seen.
	PhaseConformance
	numPhases
)

func (p Phase) String() string {
	switch p {
	case PhaseEquivalence:
		return "equivalence"
	case PhaseVerification:
		return "verification"
	case PhaseConformance:
		return "conformance"
	}
	return "learning"
}

type phaseKey struct{}

// WithPhase tags the queries asked under ctx with a phase. The Counter at
// the top of a pipeline does this, and the engine for its final check, so
// the stages below count each query in the phase of whoever asked it.
func WithPhase(ctx context.Context, p Phase) context.Context {
	return context.WithValue(ctx, phaseKey{}, p)
}

type deviceKey struct{}

// OnDevice asks the scheduler to run the queries asked under ctx on the
// executor named serial, when it has one. A vote uses it to hear again
// from the devices that gave the disagreeing answers, so that one flaky
// device is told apart from devices that disagree.
func OnDevice(ctx context.Context, serial string) context.Context {
	return context.WithValue(ctx, deviceKey{}, serial)
}

// PinnedDevice is the executor OnDevice asked for, if any.
func PinnedDevice(ctx context.Context) (string, bool) {
	s, ok := ctx.Value(deviceKey{}).(string)
	return s, ok && s != ""
}

type rerunKey struct{}

// AsRerun marks the queries asked under ctx as re-runs that check an
// answer already given: a stage that keeps answers (the query store) must
// execute them, not answer them from what it kept, or the check would
// compare an answer with itself.
//
// A re-run carries no expectation: it must run whatever the hypothesis
// predicts, so nothing cuts it off.
func AsRerun(ctx context.Context) context.Context {
	ctx = context.WithValue(ctx, expectKey{}, Expectation{})
	return context.WithValue(ctx, rerunKey{}, true)
}

// IsRerun says whether AsRerun marked ctx.
func IsRerun(ctx context.Context) bool {
	r, _ := ctx.Value(rerunKey{}).(bool)
	return r
}

// PhaseOf returns the phase of the queries asked under ctx (learning when
// no Counter tagged it), for a stage that treats one phase apart (the
// padding stage pads only learning queries).
func PhaseOf(ctx context.Context) Phase { return phaseOf(ctx) }

// phaseOf returns the phase of the queries asked under ctx (learning when
// no Counter tagged it).
func phaseOf(ctx context.Context) Phase {
	if p, ok := ctx.Value(phaseKey{}).(Phase); ok {
		return p
	}
	return PhaseLearning
}

// Recorder collects what the pipeline's stages did, per phase and per
// executor, and the assumption violations the executors reported. Every
// stage records its own events through these methods; it is safe for
// concurrent use, so a progress display may read it while learning.
type Recorder struct {
	mu       sync.Mutex
	phases   [numPhases]model.PhaseStats
	current  Phase
	devices  []DeviceStats
	warnings []string
	// undeclared counts the undeclared callbacks that arrived, in the
	// order each first came.
	undeclared []model.Undeclared

	reruns, agreements int
	votes              []model.Vote

	// wall is the estimated wall time of the batches run so far: each
	// batch's makespan on the lanes the scheduler gave its queries.
	wall time.Duration
	// at is how far into the current batch a simulated timeline has got
	// (see Reached); onClock is told each time it moves.
	at      time.Duration
	onClock func(time.Duration)
	// scheduled and ran count the queries handed to the executors and
	// those they finished, over the whole run: a progress display paces a
	// batch by them before the batch's first transition is checked.
	scheduled, ran int
}

// DeviceStats is what one executor has done so far.
type DeviceStats struct {
	Serial     string
	Executed   int
	Busy       bool
	DeviceSecs float64
}

func (r *Recorder) phase(ctx context.Context, f func(*model.PhaseStats)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f(&r.phases[phaseOf(ctx)])
}

// Asked records n queries asked by a learner or an equivalence oracle,
// and makes their phase the current one.
func (r *Recorder) Asked(ctx context.Context, n int) {
	r.phase(ctx, func(p *model.PhaseStats) { p.Asked += n })
	r.mu.Lock()
	r.current = phaseOf(ctx)
	r.mu.Unlock()
}

// CacheHits records n queries answered from the cache.
func (r *Recorder) CacheHits(ctx context.Context, n int) {
	r.phase(ctx, func(p *model.PhaseStats) { p.CacheHits += n })
}

// Stored records n queries answered from the query store (executed by an
// earlier run).
func (r *Recorder) Stored(ctx context.Context, n int) {
	r.phase(ctx, func(p *model.PhaseStats) { p.Stored += n })
}

// Excluded records n queries the restrictions cut short.
func (r *Recorder) Excluded(ctx context.Context, n int) {
	r.phase(ctx, func(p *model.PhaseStats) { p.Excluded += n })
}

// Padded records n symbols the padding stage appended to queries before
// they ran.
func (r *Recorder) Padded(ctx context.Context, n int) {
	r.phase(ctx, func(p *model.PhaseStats) { p.Padded += n })
}

// Busy records that an executor started (true) or stopped (false)
// running a query.
func (r *Recorder) Busy(serial string, busy bool) {
	r.device(serial, func(d *DeviceStats) { d.Busy = busy })
}

// Executed records one query an executor ran to the end: the symbols it
// answered and the device time it took.
func (r *Recorder) Executed(ctx context.Context, serial string, symbols int, device time.Duration) {
	r.phase(ctx, func(p *model.PhaseStats) {
		p.Executed++
		p.Symbols += symbols
		p.DeviceSecs += device.Seconds()
	})
	r.device(serial, func(d *DeviceStats) {
		d.Executed++
		d.DeviceSecs += device.Seconds()
	})
	r.mu.Lock()
	r.ran++
	r.mu.Unlock()
}

// Scheduled records n queries handed to the executors in one batch.
func (r *Recorder) Scheduled(n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.scheduled += n
}

// Queue is how many queries were handed to the executors so far and how
// many of them they finished (a batch cut off short leaves some never run).
func (r *Recorder) Queue() (scheduled, ran int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.scheduled, r.ran
}

// Makespan records the estimated wall time of one batch the scheduler
// ran: batches run one after another, so the run's estimate is their sum.
func (r *Recorder) Makespan(d time.Duration) {
	r.mu.Lock()
	r.wall += d
	r.at = 0
	now, f := r.wall, r.onClock
	r.mu.Unlock()
	if f != nil {
		f(now)
	}
}

// Reached records that a batch run on a simulated timeline has got d into
// the batch: the time its next query starts, when the first lane comes
// free. Real lanes record nothing here; their time is the wall clock's.
func (r *Recorder) Reached(d time.Duration) {
	r.mu.Lock()
	if d <= r.at {
		r.mu.Unlock()
		return
	}
	r.at = d
	now, f := r.wall+d, r.onClock
	r.mu.Unlock()
	if f != nil {
		f(now)
	}
}

// Clock is the run's time on a simulated timeline: the batches run so far
// and how far the current one has got (see Reached).
func (r *Recorder) Clock() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.wall + r.at
}

// OnClock makes f hear Clock's new reading each time a simulated batch
// moves it on, on the goroutine that runs the batch and outside the
// recorder's lock, so that f may read the recorder: a progress display
// of a simulated run is paced by the run's own time, not the host's.
func (r *Recorder) OnClock(f func(now time.Duration)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.onClock = f
}

// EstimatedWall is the sum of the batches' makespans so far: what the
// run takes on its lanes and devices in real time, ADB and host work
// aside (see dispatch.Makespan).
func (r *Recorder) EstimatedWall() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.wall
}

// Warn records assumption violations, each once.
func (r *Recorder) Warn(ws ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, w := range ws {
		if !slices.Contains(r.warnings, w) {
			r.warnings = append(r.warnings, w)
		}
	}
}

// Undeclared records that callback, which the purpose neither declares
// nor ignores, arrived n times during one query.
func (r *Recorder) Undeclared(callback string, n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k := range r.undeclared {
		if r.undeclared[k].Callback == callback {
			r.undeclared[k].Count += n
			return
		}
	}
	r.undeclared = append(r.undeclared, model.Undeclared{Callback: callback, Count: n})
}

// UndeclaredCallbacks returns the undeclared callbacks recorded and how
// often each came, in the order each first came.
func (r *Recorder) UndeclaredCallbacks() []model.Undeclared {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.undeclared)
}

// Warnings returns the distinct violations recorded, in order.
func (r *Recorder) Warnings() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.warnings)
}

// Current is the phase of the latest queries asked.
func (r *Recorder) Current() Phase {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.current
}

// Devices returns the per-executor counts, in the order executors first ran.
func (r *Recorder) Devices() []DeviceStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.devices)
}

// Snapshot returns the counts so far.
func (r *Recorder) Snapshot() (learning, equivalence model.PhaseStats) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.phases[PhaseLearning], r.phases[PhaseEquivalence]
}

// Verification returns the counts of the final check so far.
func (r *Recorder) Verification() model.PhaseStats { return r.Phase(PhaseVerification) }

// Conformance returns the counts of the conformance test so far.
func (r *Recorder) Conformance() model.PhaseStats { return r.Phase(PhaseConformance) }

// Phase returns the counts of phase p so far.
func (r *Recorder) Phase(p Phase) model.PhaseStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.phases[p]
}

func (r *Recorder) device(serial string, f func(*DeviceStats)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k := range r.devices {
		if r.devices[k].Serial == serial {
			f(&r.devices[k])
			return
		}
	}
	r.devices = append(r.devices, DeviceStats{Serial: serial})
	f(&r.devices[len(r.devices)-1])
}

// Rerun records a query run again to check an answer, and whether it
// answered as before.
func (r *Recorder) Rerun(agreed bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reruns++
	if agreed {
		r.agreements++
	}
}

// Voted records a contradiction settled by a majority.
func (r *Recorder) Voted(v model.Vote) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.votes = append(r.votes, v)
}

// Determinism returns the re-runs, how many agreed, and the votes so far.
func (r *Recorder) Determinism() (reruns, agreements int, votes []model.Vote) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reruns, r.agreements, slices.Clone(r.votes)
}
