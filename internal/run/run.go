package run

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/droidstar/droidstar/examples"
	"github.com/droidstar/droidstar/internal/adbclient"
	"github.com/droidstar/droidstar/internal/backend/adb"
	"github.com/droidstar/droidstar/internal/backend/sim"
	"github.com/droidstar/droidstar/internal/compose"
	"github.com/droidstar/droidstar/internal/engine"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/nouns"
	"github.com/droidstar/droidstar/internal/oracle"
	"github.com/droidstar/droidstar/internal/oracle/budget"
	"github.com/droidstar/droidstar/internal/oracle/pad"
	"github.com/droidstar/droidstar/internal/purpose"
	"github.com/droidstar/droidstar/internal/store"
)

// Run is one learning run, its pipeline built and its devices ready.
type Run struct {
	plan *compose.Plan
	opts engine.Options
	// target is the simulated target as the purpose sees it, when the
	// backend is sim; targetErr says why it could not be read in full.
	target    *mealy.Machine
	targetErr error
	stopped   atomic.Bool
	start     time.Time
}

// Start builds the run spec describes: it loads the source, starts the
// backend (installing the harness, starting harness JVMs; a purpose the
// harness cannot resolve fails here) and assembles the pipeline. name,
// when given, is what the run is called in notes (a matrix target's
// name). The caller closes the run.
func (s *Session) Start(ctx context.Context, spec Spec, name string) (*Run, error) {
	set, err := spec.parse()
	if err != nil {
		return nil, err
	}
	src, kind, err := s.source(spec, set)
	if err != nil {
		return nil, err
	}
	if spec.Oracle == OraclePerfect && kind != purpose.BackendSim {
		return nil, usage("--oracle perfect compares hypotheses with the target's model, which only backend sim has; this run uses backend %s", kind)
	}
	bo, err := s.backendOptions(spec, kind)
	if err != nil {
		return nil, err
	}
	prefix := ""
	if name != "" {
		prefix = name + ": "
	}
	pl := compose.Pipeline{
		Bound: compose.BoundChoice{N: set.bound.fixed, Auto: set.bound.auto, Max: set.bound.max, CountsEvery: set.countsEvery},
		Pad:   pad.Sizes{Learning: spec.Pad.Learning, Check: spec.Pad.Check}, AutoTimeout: set.autoStart, MaxQueries: spec.MaxQueries,
		Repeat: spec.Vote.Repeat, Verify: spec.Vote.Verify, Seed: s.seed, Final: finalCheck(spec.Vote.Final),
		RequestTime: spec.Grace / 2,
	}
	if s.storePath != "" || s.storeNote != "" {
		pl.Store = func(key store.Key) (*store.Bucket, error) { return s.bucket(key, spec.Store.Fresh, prefix) }
	}
	plan, err := compose.Build(ctx, src, compose.Options{Backend: bo, Pipeline: pl})
	var load *sim.LoadError
	if errors.As(err, &load) && load.UnknownFormat && spec.Model != nil {
		load.Ask = "name it with --model-format"
	}
	var noDevice *compose.NoDeviceError
	var setting *compose.SettingError
	switch {
	case errors.As(err, &noDevice) && spec.Backend == "" && src.Purpose != nil:
		return nil, &NoDeviceError{Err: err, Others: otherBackends(src.Purpose)}
	case errors.As(err, &setting):
		return nil, &UsageError{Err: err}
	case err != nil:
		return nil, err
	}
	r := &Run{plan: plan}
	if plan.Model != nil {
		// A model the purpose cannot read in full (it emits an undeclared
		// or environment callback) stops learning where a query meets it,
		// which says more than failing here would.
		r.target, r.targetErr = compose.TargetMachine(plan)
		if r.targetErr != nil && spec.Oracle == OraclePerfect {
			plan.Close()
			return nil, fmt.Errorf("--oracle perfect: the target's model as the purpose sees it: %w", r.targetErr)
		}
	}
	r.opts = engine.Options{
		VirtualClock: plan.Virtual, ToolVersion: s.env.ToolVersion, Now: s.env.Now, Learn: spec.Learner,
		Conformance: set.conformance, MaxStates: spec.MaxStates,
		// A warning is for the one who watches, quiet or not (-q keeps
		// warnings).
		Note:        func(w string) { fmt.Fprintf(s.log, "droidstar: %s%s\n", prefix, w) },
		Determinism: &model.Determinism{Repeat: spec.Vote.Repeat, Verify: spec.Vote.Verify, Seed: s.seed},
	}
	if spec.Oracle == OraclePerfect {
		r.opts.Perfect = r.target
	}
	return r, nil
}

// finalCheck is the pipeline's name for a Vote.Final that Validate passed.
func finalCheck(final string) compose.FinalCheck {
	switch final {
	case FinalNear:
		return compose.FinalNear
	case FinalAll:
		return compose.FinalAll
	}
	return compose.FinalOff
}

// source loads the spec's source and picks its backend kind; set is the
// spec parsed.
func (s *Session) source(spec Spec, set settings) (compose.Source, string, error) {
	if m := spec.Model; m != nil {
		if spec.Backend != "" {
			return compose.Source{}, "", usage("--backend chooses among a purpose's backends; a model file is learned on backend sim")
		}
		data := m.Data
		if data == nil {
			var err error
			if data, err = s.env.readFile(m.Path); err != nil {
				return compose.Source{}, "", err
			}
		}
		return compose.Source{Model: &compose.ModelSource{
			File: m.Path, Data: data, Format: m.Format, Bound: purpose.DefaultBound,
			Quiescence: m.Quiescence, Reset: m.Reset, Settle: set.settle, Latency: m.Latency,
			Callins: m.Callins, Restrictions: m.Restrictions, Latencies: m.Latencies,
		}}, purpose.BackendSim, nil
	}
	p, read, err := s.purpose(spec)
	if err != nil {
		return compose.Source{}, "", err
	}
	kind := spec.Backend
	q := *p
	if kind != "" {
		if err := q.Backend.Use(kind); err != nil {
			return compose.Source{}, "", usage("--backend: %v", err)
		}
	}
	return compose.Source{Purpose: &q, Read: read}, q.Backend.Kind, nil
}

// purpose is the spec's purpose, or its example's, with the values of its
// parameters in place (purpose.Bind): the spec's Set, else the
// environment's DROIDSTAR_SET_NAME, else the defaults. read reads the
// files it names.
func (s *Session) purpose(spec Spec) (*purpose.Purpose, func(string) ([]byte, error), error) {
	p, read := spec.Purpose, spec.Read
	if read == nil {
		read = s.env.readFile
	}
	if spec.Example != "" {
		var err error
		if p, err = examples.Purpose(spec.Example); err != nil {
			// Only the command line names an example: a wrong name is a
			// usage error.
			return nil, nil, usage("--example: %v", err)
		}
		// examples.Purpose picks the sim backend: the embedded examples
		// are the no-device demo.
		read = examples.ReadFile
		if err := checkSet(p, spec.Set); err != nil {
			return nil, nil, err
		}
	}
	b, err := p.Bind(p.ParamValues(spec.Set, s.env.getenv))
	if err != nil {
		return nil, nil, err
	}
	return b, read, nil
}

// backendOptions are the backend settings of a run on backend kind.
func (s *Session) backendOptions(spec Spec, kind string) (compose.BackendOptions, error) {
	o := s.env.Backend()
	o.Lanes, o.Realtime = spec.Lanes, spec.Realtime
	o.Flaky = sim.Flakiness{Prob: spec.Vote.SimFlaky, Seed: s.seed}
	if spec.Vote.Seed != nil {
		o.LatencySeed = *spec.Vote.Seed
	}
	if kind != purpose.BackendADB {
		if spec.Device != "" || len(spec.Devices) > 0 {
			return o, usage("--device and --devices choose devices for backend adb, but this run uses backend %s", kind)
		}
		return o, nil
	}
	if spec.Lanes != 1 {
		return o, usage("--lanes does not apply to backend adb: each device runs one query at a time; share the queries among devices with --devices")
	}
	client, err := s.client(spec.ADB)
	if err != nil {
		return o, err
	}
	sel := adb.Selection{Device: spec.Device, Devices: spec.Devices}
	if sel.Device == "" && len(sel.Devices) == 0 {
		// ANDROID_SERIAL stands in for --device, as it does for adb.
		sel.Device = s.env.getenv("ANDROID_SERIAL")
	}
	o.ADB.Client, o.ADB.Selection = client, sel
	o.ADB.SocketTimeout, o.ADB.Dir, o.ADB.Awake = spec.ADB.HarnessTimeout, spec.ADB.Dir, s.awake
	if !s.env.Quiet {
		o.ADB.Log = s.log
	}
	return o, nil
}

// client reaches the adb server the settings and the environment name.
func (s *Session) client(a ADB) (*adbclient.Client, error) {
	cfg, err := adbclient.ConfigFromEnv(a.Host, a.Port, s.env.getenv)
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	return adbclient.New(cfg), nil
}

// otherBackends are the backends a purpose lists besides adb.
func otherBackends(p *purpose.Purpose) []string {
	var others []string
	for _, k := range p.Backend.Kinds {
		if k != purpose.BackendADB {
			others = append(others, k)
		}
	}
	return others
}

// Close releases the run's executors: harness JVMs are ended, and the
// run's folders on the devices removed.
func (r *Run) Close() error { return r.plan.Close() }

// Stop makes the run start no further query: the ones running get to
// finish (their requests are sized to half the spec's Grace), and Learn
// then returns what the run has, with the pipeline's stop as its error.
func (r *Run) Stop() {
	r.stopped.Store(true)
	r.plan.StopDispatching()
}

// Executed is how many queries the run's devices ran so far, re-runs and
// the checks included.
func (r *Run) Executed() int {
	rec := r.plan.Job.Recorder
	learning, equiv := rec.Snapshot()
	return learning.Executed + equiv.Executed + rec.Verification().Executed + rec.Conformance().Executed
}

// Outcome is what a run learned, or kept when it stopped.
type Outcome struct {
	// Document is the model: finished, or, when Learn fails, the last
	// hypothesis, or before the first one (after a stop or with the
	// budget spent) the statistics with no states; nil when nothing is
	// worth keeping.
	Document *model.Document
	// Machine is the learned machine, nil without a hypothesis.
	Machine *mealy.Machine
	// Final is the last progress snapshot (Learn was given a progress
	// function; else only its Phase is set), its Phase the run's end:
	// "learned", "stopped", or "interrupted" after Stop.
	Final engine.Snapshot
}

// BudgetError is a run that MaxQueries stopped.
type BudgetError struct{ Max int }

func (e *BudgetError) Error() string {
	return fmt.Sprintf("stopped after %s (--max-queries %d)", nouns.Count(e.Max, "executed query"), e.Max)
}

// StatesError is a run that MaxStates stopped.
type StatesError struct{ Err *engine.StatesError }

func (e *StatesError) Error() string {
	return fmt.Sprintf("stopped at equivalence round %d: the hypothesis has %d states (--max-states %d)", e.Err.Round, e.Err.States, e.Err.Max)
}

func (e *StatesError) Unwrap() error { return e.Err }

// GrowthError is a run stopped because its target seems to count (see
// engine.GrowthError): it says how to bound the target, or to go on.
type GrowthError struct{ Err *engine.GrowthError }

func (e *GrowthError) Error() string {
	return e.Err.Stopped() + "\n  " + e.Err.Advice + "\n  or let learning go on, up to N states, with --max-states N"
}

func (e *GrowthError) Unwrap() error { return e.Err }

// NoDeviceError is a run on a purpose's default backend adb that found no
// device (no adb server, none attached, or not the ones asked for); Others
// are the backends the purpose also lists, which need none.
type NoDeviceError struct {
	Err    error
	Others []string
}

func (e *NoDeviceError) Error() string { return e.Err.Error() }
func (e *NoDeviceError) Unwrap() error { return e.Err }

// withTimingWarnings adds to a failed run's error the timing warnings
// recorded before it: answers that differ from run to run mostly come from
// callbacks that arrive at other times than the purpose assumes, and the
// warnings say which, by the purpose's symbols, and what to change. They
// are in the partial model too, but a user reads the terminal first.
func withTimingWarnings(err error, warnings []string) error {
	var timing []string
	for _, w := range warnings {
		if strings.HasPrefix(w, "timing: ") {
			timing = append(timing, "  "+w)
		}
	}
	if len(timing) == 0 {
		return err
	}
	return fmt.Errorf("%w\ntiming warnings before the stop, which may explain it:\n%s", err, strings.Join(timing, "\n"))
}

// Learn runs the learner to the end. progress, when set, gets snapshots of
// the run as it goes (see engine.Options.Progress). A finished model is
// compared with a simulated target, which the purpose sees in full: its
// target object says whether they are equal, and a warning names the
// shortest word on which the learned model is wrong. On failure the
// outcome keeps what the run has (see Outcome.Document); the error is a
// *BudgetError when MaxQueries stopped it, a *StatesError when MaxStates
// did, a *GrowthError when the target seems to count, the pipeline's stop
// after Stop, or
// another failure (an *oracle.VoteError when a vote could not settle)
// with the timing warnings recorded before it.
func (r *Run) Learn(ctx context.Context, progress func(engine.Snapshot)) (*Outcome, error) {
	out := &Outcome{}
	opts := r.opts
	if progress != nil {
		// Only a run someone watches pays for the snapshots.
		opts.Progress = func(s engine.Snapshot) {
			out.Final = s
			progress(s)
		}
	}
	r.start = time.Now()
	res, err := engine.Run(ctx, r.plan.Job, opts)
	out.Final.Phase = "learned"
	if err != nil {
		out.Final.Phase = "stopped"
		if r.stopped.Load() {
			out.Final.Phase = "interrupted"
		}
	}
	if res != nil {
		out.Document, out.Machine = res.Document, res.Machine
	}
	if err != nil {
		var budgetErr *budget.Error
		var statesErr *engine.StatesError
		var growthErr *engine.GrowthError
		spent := errors.As(err, &budgetErr)
		if out.Document == nil && (spent || r.stopped.Load() || ctx.Err() != nil) {
			// Before the first hypothesis a stop keeps the statistics.
			out.Document = engine.Unfinished(r.plan.Job, opts, time.Since(r.start), err)
		}
		switch {
		case spent:
			err = &BudgetError{Max: budgetErr.Max}
		case errors.As(err, &statesErr):
			err = &StatesError{Err: statesErr}
		case errors.As(err, &growthErr):
			err = &GrowthError{Err: growthErr}
		case !r.stopped.Load() && ctx.Err() == nil:
			err = withTimingWarnings(err, r.plan.Job.Recorder.Warnings())
		}
		return out, err
	}
	doc := out.Document
	if r.targetErr != nil {
		doc.Warnings = append(doc.Warnings, "the learned model was not compared with the target's model: "+r.targetErr.Error())
	}
	if r.target != nil {
		if err := r.checkTarget(doc, res.Machine); err != nil {
			return out, err
		}
	}
	return out, nil
}

// checkTarget records in doc how the learned machine compares with the
// target known in full, and warns when they differ: the bound oracle is
// exact only when the target needs no more than its bound, which nothing
// else checks.
func (r *Run) checkTarget(doc *model.Document, learned *mealy.Machine) error {
	t := r.plan.Target()
	tc, err := compose.CheckTarget(learned, r.target, t.BoundForcing())
	if err != nil {
		return fmt.Errorf("comparing the learned model with the target: %w", err)
	}
	tc.Perfect = r.opts.Perfect != nil
	doc.Target = tc
	if cx := tc.Counterexample; cx != nil {
		used := t.Bound
		if doc.Bound != nil {
			used = doc.Bound.Used // what --bound auto settled on
		}
		doc.Warnings = append(doc.Warnings, fmt.Sprintf(
			"the learned model is wrong: on %s the target answers %s, the learned model %s; the target needs bound %d, this run used %d (learn again with --bound %d or --oracle perfect)",
			strings.Join(cx.Input, " "), strings.Join(cx.Expected, " "), strings.Join(cx.Learned, " "), tc.NeededBound, used, max(tc.NeededBound, used+1)))
	}
	return nil
}

// Target is what the run learns, as the engine sees it.
func (r *Run) Target() engine.Target { return r.plan.Target() }

// Model is the simulated target, nil unless the backend is sim.
func (r *Run) Model() *sim.Model { return r.plan.Model }

// Disagreement is a shortest word on which the learned machine and the
// simulated target, as the purpose sees it, differ (see
// compose.Disagreement).
func (r *Run) Disagreement(learned *mealy.Machine) (w mealy.Word, differ bool, err error) {
	return compose.Disagreement(learned, r.plan)
}

// Pipeline is the top of the run's membership pipeline, and Recorder what
// its stages record into: for measurements that ask it directly (the
// benchmarks' floor of a bound check).
func (r *Run) Pipeline() (oracle.Oracle, *oracle.Recorder) { return r.plan.Job.MQ, r.plan.Job.Recorder }
