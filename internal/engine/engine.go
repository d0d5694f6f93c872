// Package engine runs one learning job: a learner over a membership
// pipeline, with an equivalence oracle, turned into a model document with
// its statistics and metadata. It knows no backend and no purpose file:
// internal/compose builds the job (alphabets, pipeline, devices) from
// either, and a display reads the engine's progress snapshots.
package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/droidstar/droidstar/internal/growth"
	"github.com/droidstar/droidstar/internal/learn"
	"github.com/droidstar/droidstar/internal/learn/equivalence"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/oracle"
)

// Target is what is learned and how the document describes it.
type Target struct {
	Name      string
	Class     string
	Inputs    *mealy.Alphabet
	Outputs   *mealy.Alphabet
	Semantics string // model.SemanticsClosure or model.SemanticsMealy
	// Callins and Callbacks are recorded in the document (closure only).
	Callins, Callbacks []string
	// Bound is the distinguisher bound, in free symbols: a wait that
	// Forcing makes follow an input is not counted.
	Bound int
	// BoundAuto lets the bound oracle choose its bound, from AutoStart up
	// to BoundMax (see equivalence.AutoBound); Bound is then unused.
	BoundAuto bool
	BoundMax  int
	// Forcing marks the inputs a wait must follow (a purpose's
	// followed_by_wait callins); the composition root fills it in from the
	// restrictions.
	Forcing mealy.Forcing
	// BoundCountsEvery makes Bound count every symbol, the waits Forcing
	// forces too, as DroidStar did: the bound oracle then asks suffixes
	// over every input and the restriction filter drops those the rules
	// exclude. It reaches less far than counting free symbols where the
	// restrictions force waits, and costs less.
	BoundCountsEvery bool
	Purpose          *model.PurposeInfo
	Backend          model.BackendInfo
	// RestrictAt says where a restriction goes in the purpose ("in
	// counter.yaml:14, under restrictions:"), for the advice to a run
	// whose target counts; empty when the target has no purpose file.
	RestrictAt string
}

// BoundForcing is the forcing the bound counts by: Forcing, or none when
// the bound counts every symbol.
func (t Target) BoundForcing() mealy.Forcing {
	if t.BoundCountsEvery {
		return mealy.Forcing{}
	}
	return t.Forcing
}

// Sem is the closure semantics of the target's alphabets, or none for a
// plain Mealy target.
func (t Target) Sem() (mealy.Semantics, error) {
	if t.Semantics != model.SemanticsClosure {
		return mealy.PlainSemantics(), nil
	}
	sem := mealy.ClosureSemantics(t.Inputs, t.Outputs)
	if !sem.Closure {
		return sem, fmt.Errorf("closure semantics needs input %q and outputs %q, %q", mealy.Wait, mealy.Quiet, mealy.Err)
	}
	return sem, nil
}

// Job is a target with the pipeline that answers its queries.
type Job struct {
	Target Target
	// MQ is the membership pipeline; the engine puts one counter for the
	// learner and one for the equivalence oracle on top of it.
	MQ oracle.Oracle
	// Recorder is what every stage of MQ records into.
	Recorder *oracle.Recorder
	// Devices describes the executors at the bottom of MQ, in order.
	Devices []model.DeviceInfo
	// Verify, when set, runs before a model is declared final: it checks
	// once more answers the final table (obs) rests on, and says whether it
	// overturned one (learning then starts again). Its queries are counted
	// in the verification phase.
	Verify func(ctx context.Context, obs oracle.Observations) (revised bool, err error)
	// Prepare, when set, runs before the learner's first query, its
	// queries counted in the learning phase (a calibrated timeout's probe
	// of the first callbacks under its ceiling).
	Prepare func(ctx context.Context) error
	// OnHypothesis, when set, sees every hypothesis before it is checked,
	// after the progress display and before Options.Learner's own hook.
	OnHypothesis func(ctx context.Context, round int, h *learn.Hypothesis)
	// Timeout, when set, says what a calibrated quiescence timeout
	// settled at, for the statistics of every document the run returns.
	Timeout func() *model.AutoTimeout
}

// Options control one run.
type Options struct {
	// Perfect, when set, replaces the distinguisher-bound oracle by a
	// comparison with this machine (benchmarks of the learner alone, and
	// learn --oracle perfect); the document then records no bound.
	Perfect *mealy.Machine
	// Learn names the learner (see learn.ByName; empty: learn.DefaultName);
	// Learner tunes it.
	Learn   string
	Learner learn.Options
	// Conformance, when set, adds a conformance test that runs whenever a
	// hypothesis passes the bound check (see NewConformance).
	Conformance *model.Conformance
	// PerBatch is the number of transitions the bound oracle checks per
	// batch (see equivalence.Bound); 0 picks one on one device and the
	// whole round on several, cut off at the first surprise, so that the
	// devices always have work. On one simulated lane the whole round
	// measured only 1% fewer executed queries on DroidStar's six (760
	// against 768), and a device that takes a batch in one request could
	// not stop it part-way: one transition per batch stays there.
	PerBatch int
	// NoLookahead keeps the learner and the bound check from sending
	// spares (oracle.Spares) on several devices: every batch then runs
	// only what was asked, as on one device.
	NoLookahead bool
	// VirtualClock marks device time as simulated in the statistics.
	VirtualClock bool
	// ToolVersion is recorded in the document.
	ToolVersion string
	// Now stamps the document; nil leaves learned_at out.
	Now func() time.Time
	// Progress, when set, receives a snapshot of the run every
	// ProgressEvery (default 200 ms) and as each phase has its first
	// estimate of its queries, one call at a time but not always on the
	// caller's goroutine; it must return quickly. The last call happens
	// before Run returns. With VirtualClock the interval and the
	// snapshots' times are the simulated clock's (the batches' makespans
	// on their lanes), so that a simulated run shows what a run on
	// devices would, and the calls come on the goroutine that runs the
	// queries.
	Progress      func(Snapshot)
	ProgressEvery time.Duration
	// MaxStates, when positive, stops the run with a *StatesError at the
	// first hypothesis with more states, keeping it as the partial model.
	// It also lets a run whose counterexamples grow as a counting
	// target's do (see internal/growth) go on: without it the finding
	// stops the run with a *GrowthError, with it the finding is a warning
	// (passed to Note as it comes) and the bound ends the run if the
	// growth does not.
	MaxStates int
	// Note, when set, gets the warnings a user should see while the run
	// goes on.
	Note func(string)
	// Determinism, when set, is recorded in the statistics with the
	// pipeline's re-runs and votes filled in (the settings are the
	// cache's: --repeat, --verify and its seed).
	Determinism *model.Determinism
}

// AutoStart is the bound --bound auto starts from: rounds at 1 are
// cheap, and the first raise (to 2) always happens.
const AutoStart = 1

// DefaultAutoMax is the ceiling of --bound auto (and a purpose's bound:
// auto) when none is given: rounds at 5 on a model of 13 inputs ask
// hundreds of thousands of words per transition.
const DefaultAutoMax = 4

// maxRestarts bounds how often learning starts again after votes
// overturned answers it had used.
const maxRestarts = 100

// Result is a finished (or interrupted) run.
type Result struct {
	Document *model.Document
	Machine  *mealy.Machine
	// Partial is set when learning failed: Document then holds the last
	// hypothesis, so nothing learned so far is lost.
	Partial bool
}

// Run learns the job's target. On failure after at least one hypothesis
// it returns both the error and a partial result.
func Run(ctx context.Context, job Job, o Options) (*Result, error) {
	t := job.Target
	if t.Inputs == nil || t.Outputs == nil {
		return nil, errors.New("engine: target has no alphabets")
	}
	if job.MQ == nil || job.Recorder == nil {
		return nil, errors.New("engine: the job has no pipeline")
	}
	sem, err := t.Sem()
	if err != nil {
		return nil, err
	}
	rec := job.Recorder
	learnMQ := &oracle.Counter{Next: job.MQ, Phase: oracle.PhaseLearning, Recorder: rec}
	eqMQ := &oracle.Counter{Next: job.MQ, Phase: oracle.PhaseEquivalence, Recorder: rec}

	start := time.Now()
	clock := func() time.Duration { return time.Since(start) }
	if o.VirtualClock {
		clock = rec.Clock
	}
	watch := newWatcher(rec, clock, o.Progress)
	// Only a run someone watches tells the watcher what it does.
	watched := o.Progress != nil
	var eq learn.EquivalenceOracle
	var auto *equivalence.AutoBound
	checks := &checks{inputs: t.Inputs}
	// One device never runs a spare: none are worked out for it.
	lookahead := len(job.Devices) > 1 && !o.NoLookahead
	if o.Perfect != nil {
		eq = &equivalence.Perfect{Target: o.Perfect}
	} else {
		per := o.PerBatch
		if per == 0 {
			per = 1
			if len(job.Devices) > 1 {
				per = equivalence.WholeRound
			}
		}
		bound := &equivalence.Bound{MQ: eqMQ, Bound: t.Bound, Sem: sem, Forcing: t.BoundForcing(), PerBatch: per, Lookahead: lookahead}
		if watched {
			bound.OnProgress, bound.OnEstimate = watch.boundProgress, watch.boundEstimate
		}
		checks.bound = bound
		if t.BoundAuto {
			auto = &equivalence.AutoBound{Bound: bound, Start: AutoStart, Max: t.BoundMax, OnRaise: func(_, to int) { watch.autoBound(to) }}
			watch.autoBound(AutoStart)
			checks.bound = auto
		}
		if o.Conformance != nil {
			confMQ := &oracle.Counter{Next: job.MQ, Phase: oracle.PhaseConformance, Recorder: rec}
			var progress func(done, total int)
			if watched {
				progress = watch.conformanceProgress
			}
			conf, err := NewConformance(*o.Conformance, confMQ, sem, t.Forcing, func() int { return bound.Bound }, progress)
			if err != nil {
				return nil, err
			}
			checks.conformance = conf
		}
		eq = checks
	}
	eq = &limits{next: eq, inputs: t.Inputs, semantics: t.Semantics, maxStates: o.MaxStates, restrictAt: t.RestrictAt,
		growth: growth.Detector{Passive: []string{mealy.Wait}}, warn: func(w string) {
			rec.Warn(w)
			if o.Note != nil {
				o.Note(w)
			}
		}}
	lopts := o.Learner
	lopts.Lookahead = lookahead
	if user, own := lopts.OnHypothesis, job.OnHypothesis; o.Progress != nil || own != nil {
		lopts.OnHypothesis = func(round int, h *learn.Hypothesis) {
			if o.Progress != nil {
				watch.hypothesis(round, typestateStates(h.Machine, t.Semantics))
			}
			if own != nil {
				own(ctx, round, h)
			}
			if user != nil {
				user(round, h)
			}
		}
	}
	var mq oracle.Oracle = learnMQ
	if watched {
		mq = tap{Counter: learnMQ, asking: watch.asking}
		if user := lopts.OnEstimate; user != nil {
			lopts.OnEstimate = func(queries int) {
				watch.learnerEstimate(queries)
				user(queries)
			}
		} else {
			lopts.OnEstimate = watch.learnerEstimate
		}
		every := cmp.Or(o.ProgressEvery, 200*time.Millisecond)
		ticks := watch.run
		if o.VirtualClock {
			ticks = watch.runSimulated
		}
		defer ticks(every)()
	}

	learnerName := cmp.Or(o.Learn, learn.DefaultName)
	learner, err := learn.ByName(learnerName)
	if err != nil {
		return nil, err
	}
	if job.Prepare != nil {
		if err := job.Prepare(oracle.WithPhase(ctx, oracle.PhaseLearning)); err != nil {
			return nil, err
		}
	}
	// A vote that overturns an answer the learner already used makes its
	// table untrustworthy: learn again. The cache answers everything it
	// kept, so only what the vote dropped runs again; each restart follows
	// an overturned answer, of which there are finitely many.
	var res *learn.Result
	var learnErr error
	for restarts := 0; ; restarts++ {
		if restarts > 0 && watched {
			watch.restart()
		}
		if restarts > maxRestarts {
			learnErr = fmt.Errorf("%w, %d times: the target is too flaky to learn", oracle.ErrRevised, maxRestarts)
			break
		}
		res, learnErr = learner(ctx, t.Inputs, t.Outputs, mq, eq, lopts)
		if errors.Is(learnErr, oracle.ErrRevised) {
			continue
		}
		if learnErr != nil || job.Verify == nil {
			break
		}
		if watched {
			watch.enter(kindFinal)
		}
		revised, err := job.Verify(oracle.WithPhase(ctx, oracle.PhaseVerification), res.Observations)
		if err != nil {
			learnErr = err
			break
		}
		if !revised {
			break
		}
	}
	wall := time.Since(start)
	if res == nil || res.Hypothesis == nil {
		return nil, learnErr
	}
	h := res.Hypothesis
	// Why a transition is err is asked down the chain the queries took.
	doc := model.FromMachine(t.Name, t.Semantics, h.Machine, func(q, i int) *model.ErrInfo {
		info, _ := oracle.Explain(learnMQ, h.Access[q].Concat(i))
		return info
	})
	doc.Callins, doc.Callbacks = t.Callins, t.Callbacks
	if o.Perfect == nil {
		// Both ignore equivalent pairs, so no minimisation first. The
		// needed bound is in the oracle's units: free symbols, unless
		// the bound counts every symbol.
		needed := h.Machine.NeededBound()
		if f := t.BoundForcing(); !f.None() {
			needed = h.Machine.NeededFreeBound(f)
		}
		doc.Bound = &model.Bound{Used: t.Bound, LearnedNeeds: needed, CountsEvery: t.BoundCountsEvery}
		if auto != nil {
			used, found, capped := auto.Settled()
			doc.Bound.Used = used
			doc.Bound.Auto = &model.AutoBound{Start: AutoStart, Max: t.BoundMax, Found: found, Capped: capped}
		}
		if o.Conformance != nil {
			c := *o.Conformance
			doc.Conformance = &c
		}
	}
	doc.Purpose = t.Purpose
	doc.Backend, doc.Stats = recorded(job, wall, o.VirtualClock)
	doc.Stats.States, doc.Stats.EQs = typestateStates(h.Machine, t.Semantics), res.EQs
	doc.Stats.Counterexamples = checks.found
	doc.Stats.Learner = learnerName
	doc.Stats.Timeout = job.timeout()
	if o.Determinism != nil {
		d := *o.Determinism
		d.Reruns, d.Agreements, d.Votes = rec.Determinism()
		doc.Stats.Determinism = &d
	}
	doc.Warnings = rec.Warnings()
	doc.Undeclared = rec.UndeclaredCallbacks()
	if w := model.UndeclaredWarning(doc.Undeclared); w != "" {
		doc.Warnings = append(doc.Warnings, w)
	}
	doc.Tool = &model.ToolInfo{Name: "droidstar", Version: o.ToolVersion}
	if o.Now != nil {
		now := o.Now().UTC()
		doc.Learned = &now
	}
	out := &Result{Document: doc, Machine: h.Machine, Partial: learnErr != nil}
	if learnErr != nil {
		doc.Warnings = append(doc.Warnings, "partial model: learning stopped: "+learnErr.Error())
		return out, learnErr
	}
	return out, nil
}

// typestateStates counts the states a user sees: the error sink of a
// closure machine is not one of them.
func typestateStates(m *mealy.Machine, semantics string) int {
	n := m.NumStates()
	if semantics == model.SemanticsClosure {
		if e, ok := m.Outputs.Index(mealy.Err); ok {
			if _, has := m.Sink(e); has {
				n--
			}
		}
	}
	return n
}

// Unfinished describes a run that stopped before its first hypothesis:
// a document with the target's alphabets, the devices and the statistics
// of what ran, but no states, so that a stop early in a long run still
// tells what it cost. wall is the run's time so far.
func Unfinished(job Job, o Options, wall time.Duration, stopErr error) *model.Document {
	t := job.Target
	doc := &model.Document{
		Format: model.Format, Version: model.Version, Name: t.Name, Semantics: t.Semantics,
		States: []model.State{}, Transitions: []model.Transition{},
		Callins: t.Callins, Callbacks: t.Callbacks, Purpose: t.Purpose,
	}
	if t.Inputs != nil {
		doc.Inputs = t.Inputs.Names()
	}
	if t.Outputs != nil {
		doc.Outputs = t.Outputs.Names()
	}
	rec := job.Recorder
	doc.Backend, doc.Stats = recorded(job, wall, o.VirtualClock)
	doc.Stats.Timeout = job.timeout()
	doc.Warnings = rec.Warnings()
	doc.Undeclared = rec.UndeclaredCallbacks()
	if w := model.UndeclaredWarning(doc.Undeclared); w != "" {
		doc.Warnings = append(doc.Warnings, w)
	}
	doc.Warnings = append(doc.Warnings, "no hypothesis yet: learning stopped: "+stopErr.Error())
	doc.Tool = &model.ToolInfo{Name: "droidstar", Version: o.ToolVersion}
	if o.Now != nil {
		now := o.Now().UTC()
		doc.Learned = &now
	}
	return doc
}

func (job Job) timeout() *model.AutoTimeout {
	if job.Timeout == nil {
		return nil
	}
	return job.Timeout()
}

// recorded is what the job's recorder says ran: the backend with each
// device's query count, and the statistics without the learner's part.
func recorded(job Job, wall time.Duration, virtual bool) (*model.BackendInfo, *model.Stats) {
	rec := job.Recorder
	backendInfo := job.Target.Backend
	ran := map[string]int{}
	for _, d := range rec.Devices() {
		ran[d.Serial] = d.Executed
	}
	for _, info := range job.Devices {
		info.Queries = ran[info.Serial]
		backendInfo.Devices = append(backendInfo.Devices, info)
	}
	learning, equiv := rec.Snapshot()
	verification, conformance := rec.Verification(), rec.Conformance()
	return &backendInfo, &model.Stats{
		Learning: learning, Equivalence: equiv, Verification: verification, Conformance: conformance, WallSecs: wall.Seconds(),
		DeviceSecs: learning.DeviceSecs + equiv.DeviceSecs + verification.DeviceSecs + conformance.DeviceSecs, VirtualClock: virtual,
		EstimatedWallSecs: rec.EstimatedWall().Seconds(),
	}
}
