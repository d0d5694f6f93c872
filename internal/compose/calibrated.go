package compose

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/droidstar/droidstar/internal/backend"
	"github.com/droidstar/droidstar/internal/learn"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/oracle"
	"github.com/droidstar/droidstar/internal/oracle/calibrate"
	"github.com/droidstar/droidstar/internal/store"
)

// autoTimeout makes the run calibrate its quiescence timeouts, one per
// wait context (--timeout auto, see internal/oracle/calibrate): each
// starts at start and never goes above the purpose's timeout. It comes
// before the store: a calibrated run keeps its answers apart from
// fixed-timeout runs', under its own store key, since its quiet answers
// may have waited less. Only executors whose timeout can change per query
// can be calibrated: the simulator's, and the harnesses' (jvm, adb), whose
// run requests carry it, and each wait's.
func (p *Plan) autoTimeout(start time.Duration) error {
	setters := make([]backend.QuiescenceSetter, len(p.Executors))
	for k, e := range p.Executors {
		set, ok := e.(backend.QuiescenceSetter)
		if !ok {
			return &SettingError{Err: fmt.Errorf("--timeout auto: backend %s cannot change its quiescence timeout from query to query: leave --timeout out to use the purpose's timeouts.quiescence", p.backend)}
		}
		setters[k] = set
	}
	cal, err := calibrate.New(start, p.quiescence)
	if err != nil {
		return &SettingError{Err: fmt.Errorf("--timeout auto:%s: %w (%s)", start, err, p.quiescenceFrom)}
	}
	for k, set := range setters {
		p.sched.Executors[k] = cal.Wrap(p.sched.Executors[k], set)
	}
	p.cache.Quiet = cal.Words(p.Job.Target.Inputs)
	p.calibrator = cal
	if p.keyParts == nil {
		p.keyParts = map[string]string{}
	}
	p.keyParts[store.PartTimeouts] += fmt.Sprintf(", quiescence auto from %s", start)
	return nil
}

// checkStaleFirst makes the check before a model is declared final start
// by dropping the quiet answers a calibrated timeout made stale (learning
// then starts again from the cache), before the vote's check, if any: it
// wraps the vote's Verify, so it comes after the vote's settings. It does
// nothing on a run with a fixed timeout.
func (p *Plan) checkStaleFirst() {
	if p.calibrator == nil {
		return
	}
	next := p.Job.Verify
	p.Job.Verify = func(ctx context.Context, obs oracle.Observations) (bool, error) {
		if revised, err := p.cache.DropStale(ctx, obs); revised || err != nil {
			return revised, err
		}
		if p.confirmErr != nil {
			return false, p.confirmErr
		}
		if revised, err := p.confirmQuiets(ctx, obs.Rows[:min(obs.States, len(obs.Rows))]); revised || err != nil {
			return revised, err
		}
		if next == nil {
			return false, nil
		}
		return next(ctx, obs)
	}
}

// probeAtCeiling asks, on a calibrated run before learning starts, a
// wait from the initial state and after each input from it, under the
// ceiling: the callbacks the first inputs start then set the timeout
// before the learner's first queries run under one too short (which a
// raise would make stale). The learner asks these words first anyway;
// they stay in the cache. It is the calibrated run's engine.Job.Prepare.
func (p *Plan) probeAtCeiling(ctx context.Context) error {
	sem, err := p.Job.Target.Sem()
	if err != nil || !sem.Closure {
		return err
	}
	words := []mealy.Word{{sem.Wait}}
	for in := range p.Job.Target.Inputs.Size() {
		words = append(words, mealy.Word{in, sem.Wait})
	}
	_, err = p.Job.MQ.Ask(calibrate.AtCeiling(oracle.WithPhase(ctx, oracle.PhaseLearning)), words)
	if err != nil && !errors.Is(err, oracle.ErrRevised) {
		return fmt.Errorf("probing the callbacks under the ceiling %s: %w", p.calibrator.Ceiling(), err)
	}
	return nil
}

// confirmHypothesis is a calibrated run's engine.Job.OnHypothesis: each
// hypothesis's quiet waits
// are confirmed under the ceiling (see confirmQuiets) as soon as the
// learner has them, so a slow callback raises the timeout early, before
// learning asks much under one too short. A raise makes the learner start
// again at its next query; an error is kept for the final check, which
// fails with it.
func (p *Plan) confirmHypothesis(ctx context.Context, _ int, h *learn.Hypothesis) {
	if p.confirmErr != nil {
		return
	}
	_, p.confirmErr = p.confirmQuiets(oracle.WithPhase(ctx, oracle.PhaseVerification), h.Access)
}

// confirmQuiets runs, under the ceiling, a wait from each of the states
// (by their access words) and after each input from them, where the
// cache has it answering quiet under a shorter timeout, and says whether a callback came that raised the timeout
// (learning then starts again). Without it a callback slower than the
// current timeout plus the settle window would never show: its wait
// answers quiet and it comes after the instance is gone. It costs one
// ceiling per state and input at most, once: a quiet confirmed stays so.
func (p *Plan) confirmQuiets(ctx context.Context, access []mealy.Word) (bool, error) {
	before := p.calibrator.Raises()
	ceiling := p.calibrator.Ceiling()
	sem, err := p.Job.Target.Sem()
	if err != nil || !sem.Closure {
		return false, err
	}
	var words []mealy.Word
	asked := map[string]bool{}
	confirm := func(q mealy.Word) {
		a, ok := p.cache.Lookup(q) // only what the restrictions allow is there
		n := len(q) - 1
		if !ok || a.Outputs[n] != sem.Quiet || p.cache.QuietFor(q) >= ceiling || asked[q.Key()] {
			return
		}
		if n > 0 && (a.Outputs[n-1] == sem.Quiet || a.Outputs[n-1] == sem.Err) {
			return // the closure's rules answer it: nothing waits
		}
		asked[q.Key()] = true
		words = append(words, q)
	}
	for _, w := range access {
		// A callback comes from a state, or after any transition from it
		// (a callin, or a callback that a wait gave): a state the
		// hypothesis merged because a quiet came too soon shows there.
		confirm(w.Concat(sem.Wait))
		for in := range p.Job.Target.Inputs.Size() {
			confirm(w.Concat(in, sem.Wait))
		}
	}
	if len(words) == 0 {
		return false, nil
	}
	got, err := p.cache.Next.Ask(calibrate.AtCeiling(oracle.AsRerun(ctx)), words)
	if err != nil {
		return false, fmt.Errorf("confirming quiet answers under the ceiling %s: %w", ceiling, err)
	}
	for k, w := range words {
		if err := p.cache.Add(w, got[k]); err != nil {
			return false, err
		}
	}
	return p.calibrator.Raises() > before, nil
}

// timeoutStats says what the calibrated timeout settled at, for the
// model's statistics: the calibrated run's engine.Job.Timeout.
func (p *Plan) timeoutStats() *model.AutoTimeout {
	return p.calibrator.Settled(p.cache.Stale())
}
