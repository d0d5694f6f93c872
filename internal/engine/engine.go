// Package session runs one learning job: it builds the membership pipeline
// over a backend's executors, runs L* with an equivalence oracle, and turns
// the result into a model document with its statistics and metadata.
package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/droidstar/droidstar/internal/backend"
	"github.com/droidstar/droidstar/internal/learn"
	"github.com/droidstar/droidstar/internal/learn/equivalence"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/oracle"
	"github.com/droidstar/droidstar/internal/progress"
	"github.com/droidstar/droidstar/internal/purpose"
)

// Target is what is learned: alphabets, semantics, the restrictions and
// how backend output names map to symbols.
type Target struct {
	Name      string
	Class     string
	Inputs    *mealy.Alphabet
	Outputs   *mealy.Alphabet
	Semantics string // model.SemanticsClosure or model.SemanticsMealy
	// Callins and Callbacks are recorded in the document (closure only).
	Callins, Callbacks []string
	Restrictions       []purpose.Restriction
	Map                oracle.OutputMap
	Bound              int
	Purpose            *model.PurposeInfo
	Backend            model.BackendInfo
}

// Options control one run.
type Options struct {
	Executors []backend.Executor
	// Perfect, when set, replaces the distinguisher-bound oracle by a
	// comparison with this machine (benchmarks of the learner alone).
	Perfect *mealy.Machine
	Learner learn.Options
	// PerBatch is the number of transitions the bound oracle checks per
	// batch (see equivalence.Bound); 0 picks one per executor.
	PerBatch int
	// VirtualClock marks device time as simulated in the statistics.
	VirtualClock bool
	// ToolVersion is recorded in the document.
	ToolVersion string
	// Now stamps the document; nil leaves learned_at out.
	Now func() time.Time
	// Progress, when set, receives a snapshot of the run every
	// ProgressEvery (default 200 ms) and on every hypothesis, one call at
	// a time but not always on the caller's goroutine; it must return
	// quickly. The last call happens before Run returns.
	Progress      func(progress.Snapshot)
	ProgressEvery time.Duration
}

// Result is a finished (or interrupted) run.
type Result struct {
	Document *model.Document
	Machine  *mealy.Machine
	// Partial is set when learning failed: Document then holds the last
	// hypothesis, so nothing learned so far is lost.
	Partial bool
}

// Run learns target. On failure after at least one hypothesis it returns
// both the error and a partial result.
func Run(ctx context.Context, t Target, o Options) (*Result, error) {
	if t.Inputs == nil || t.Outputs == nil {
		return nil, errors.New("session: target has no alphabets")
	}
	sem := oracle.PlainSemantics()
	if t.Semantics == model.SemanticsClosure {
		sem = oracle.ClosureSemantics(t.Inputs, t.Outputs)
		if !sem.Closure {
			return nil, fmt.Errorf("closure semantics needs input %q and outputs %q, %q", mealy.Wait, mealy.Quiet, mealy.Err)
		}
	}
	stats := &oracle.Stats{}
	sched := &oracle.Scheduler{Executors: o.Executors, Inputs: t.Inputs, Outputs: t.Outputs, Sem: sem, Map: t.Map, Stats: stats}
	cache := oracle.NewCache(sched, t.Inputs, t.Outputs, sem, stats)
	filter, err := oracle.NewFilter(cache, t.Inputs, sem, t.Restrictions, stats)
	if err != nil {
		return nil, err
	}
	mq := &oracle.Counter{Next: filter, Stats: stats}

	start := time.Now()
	watch := newWatcher(stats, start, o.Progress)
	var eq learn.EquivalenceOracle
	if o.Perfect != nil {
		eq = &equivalence.Perfect{Target: o.Perfect}
	} else {
		per := o.PerBatch
		if per == 0 {
			per = len(o.Executors)
		}
		eq = &equivalence.Bound{MQ: mq, Bound: t.Bound, Sem: sem, PerBatch: per, OnProgress: watch.roundProgress}
	}
	lopts := o.Learner
	if o.Progress != nil {
		user := lopts.OnHypothesis
		lopts.OnHypothesis = func(round int, h *learn.Hypothesis) {
			watch.hypothesis(round, typestateStates(h.Machine, t.Semantics))
			if user != nil {
				user(round, h)
			}
		}
		stop := watch.run(o.ProgressEvery)
		defer stop()
	}

	res, learnErr := learn.LStar(ctx, t.Inputs, t.Outputs, mq, eq, lopts)
	wall := time.Since(start)
	if res == nil || res.Hypothesis == nil {
		return nil, learnErr
	}
	h := res.Hypothesis
	doc := model.FromMachine(t.Name, t.Semantics, h.Machine, func(q, i int) *model.ErrInfo {
		w := h.Access[q].Concat(i)
		if k, why := filter.FirstViolation(w); k == len(w)-1 {
			return &model.ErrInfo{Kind: model.ErrExcluded, Detail: why}
		}
		a, ok := cache.Lookup(w)
		if !ok || a.ErrAt != len(w)-1 {
			return nil
		}
		return a.Err
	})
	doc.Callins, doc.Callbacks = t.Callins, t.Callbacks
	if o.Perfect == nil {
		// NeededBound ignores equivalent pairs, so no minimisation first.
		doc.Bound = &model.Bound{Used: t.Bound, Needed: h.Machine.NeededBound()}
	}
	doc.Purpose = t.Purpose
	backendInfo := t.Backend
	ran := map[string]int{}
	for _, d := range stats.Devices() {
		ran[d.Serial] = d.Executed
	}
	for _, ex := range o.Executors {
		info := ex.Describe()
		info.Queries = ran[info.Serial]
		backendInfo.Devices = append(backendInfo.Devices, info)
	}
	doc.Backend = &backendInfo
	learning, equiv := stats.Snapshot()
	doc.Stats = &model.Stats{
		States: typestateStates(h.Machine, t.Semantics), EQs: res.EQs,
		Learning: learning, Equivalence: equiv, WallSecs: wall.Seconds(),
		DeviceSecs: learning.DeviceSecs + equiv.DeviceSecs, VirtualClock: o.VirtualClock,
	}
	doc.Warnings = sched.Warnings()
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
