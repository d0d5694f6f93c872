package compose

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/droidstar/droidstar/internal/engine"
	"github.com/droidstar/droidstar/internal/oracle/budget"
	"github.com/droidstar/droidstar/internal/oracle/pad"
	"github.com/droidstar/droidstar/internal/purpose"
	"github.com/droidstar/droidstar/internal/store"
)

// Options are everything Build needs besides the source: how the backends
// run, and the settings of the membership pipeline's stages.
type Options struct {
	Backend  BackendOptions
	Pipeline Pipeline
}

// Pipeline is the settings of the membership pipeline's stages, which
// Build applies in the one order that works. Its zero value adds no stage
// and leaves the cache's vote off (Repeat 0: the first contradiction is
// an error).
type Pipeline struct {
	// Bound replaces the source's distinguisher bound (a purpose's bound,
	// or ModelOptions.Bound).
	Bound BoundChoice
	// Pad pads the queries the cache misses (see pad.Stage); zero: none.
	Pad pad.Sizes
	// AutoTimeout, when positive, calibrates the quiescence timeout from
	// it, one per wait context (--timeout auto:START; see autoTimeout).
	AutoTimeout time.Duration
	// MaxQueries, when positive, stops the run once that many queries
	// have run on the executors (see budget.Stage).
	MaxQueries int
	// Store, when set, opens the query store's bucket for the plan's key
	// (known once the devices are; a nil bucket: no store): its answers
	// answer queries before any device runs them.
	Store func(store.Key) (*store.Bucket, error)
	// Repeat, Verify and Seed are the cache's vote (see cache.Cache):
	// re-runs of a contradicted query, the fraction of executed queries
	// run once more, and the seed of its draws. Final is the check before
	// a model is declared final.
	Repeat int
	Verify float64
	Seed   uint64
	Final  FinalCheck
	// MaxNodes caps the cache's tree (0: cache.DefaultMaxNodes).
	MaxNodes int
	// RequestTime sizes each request to a device or harness JVM to about
	// that much device time (see dispatch.Scheduler.RequestTime), so that
	// a stop's grace period of twice it sees the running request finish
	// and keeps its answers; 0 sends each batch whole.
	RequestTime time.Duration
}

// BoundChoice replaces a source's distinguisher bound: N when positive;
// chosen automatically from engine.AutoStart up to Max with Auto (Max 0:
// engine.DefaultAutoMax); and whether it counts every symbol, when
// CountsEvery is set.
type BoundChoice struct {
	N           int
	Auto        bool
	Max         int
	CountsEvery *bool
}

// FinalCheck is which answers run once more before a model is declared
// final (see cache.Cache.VerifyNear and VerifyAll).
type FinalCheck int

const (
	FinalOff FinalCheck = iota
	FinalNear
	FinalAll
)

// SettingError is a pipeline setting the run's source or backend cannot
// take (a calibrated timeout above the purpose's, say): the user's to
// change, as a usage error is.
type SettingError struct{ Err error }

func (e *SettingError) Error() string { return e.Err.Error() }
func (e *SettingError) Unwrap() error { return e.Err }

// Build starts the source's backend and assembles the membership pipeline
// over its executors with o's stages, in the one order that works: the
// calibration first (the store keeps a calibrated run's answers under its
// own key), the padding between the filter and the cache, the budget right
// above the scheduler and under the store (so that stored answers cost
// nothing), the bound on the target, the store under the cache once the
// devices are known (they are part of its key), then the vote, whose final
// check a calibrated run's staleness check wraps. The caller closes the
// plan.
func Build(ctx context.Context, src Source, o Options) (*Plan, error) {
	var plan *Plan
	var err error
	switch {
	case src.Model != nil && src.Purpose != nil:
		return nil, errors.New("compose: a source is a purpose or a model file, not both")
	case src.Model != nil:
		plan, err = fromModel(*src.Model, o.Backend)
	case src.Purpose != nil:
		read := src.Read
		if read == nil {
			read = os.ReadFile
		}
		plan, err = fromPurpose(ctx, src.Purpose, read, o.Backend)
	default:
		return nil, errors.New("compose: a source needs a purpose or a model file")
	}
	if err != nil {
		return nil, err
	}
	if err := plan.assemble(o.Pipeline); err != nil {
		plan.Close()
		return nil, err
	}
	return plan, nil
}

// Source is what a plan learns: a purpose, with what reads the files it
// names (nil: the OS), or a model file learned directly.
type Source struct {
	Purpose *purpose.Purpose
	Read    ReadFunc
	Model   *ModelSource
}

// assemble adds pl's stages to a plan fresh from its backend; see Build
// for why in this order.
func (p *Plan) assemble(pl Pipeline) error {
	if pl.AutoTimeout > 0 {
		if err := p.autoTimeout(pl.AutoTimeout); err != nil {
			return err
		}
	}
	p.pad(pl.Pad)
	if pl.MaxQueries > 0 {
		p.limitQueries(pl.MaxQueries)
	}
	t := &p.Job.Target
	if pl.Bound.N > 0 {
		t.Bound = pl.Bound.N
	}
	if pl.Bound.Auto {
		t.BoundAuto, t.BoundMax = true, cmp.Or(pl.Bound.Max, engine.DefaultAutoMax)
	}
	if pl.Bound.CountsEvery != nil {
		t.BoundCountsEvery = *pl.Bound.CountsEvery
	}
	if pl.Store != nil {
		b, err := pl.Store(p.storeKey())
		if err != nil {
			return err
		}
		if b != nil {
			if err := p.useStore(b); err != nil {
				return err
			}
		}
	}
	if pl.MaxNodes > 0 {
		p.cache.MaxNodes = pl.MaxNodes
	}
	p.cache.Repeat, p.cache.Verify = pl.Repeat, pl.Verify
	p.cache.Rand = rand.New(rand.NewPCG(pl.Seed, 0x766f7465)) // "vote": apart from the flakiness draws
	switch pl.Final {
	case FinalNear:
		p.Job.Verify = p.cache.VerifyNear
	case FinalAll:
		p.Job.Verify = p.cache.VerifyAll
	}
	if p.calibrator != nil {
		p.checkStaleFirst()
		p.Job.Prepare, p.Job.OnHypothesis, p.Job.Timeout = p.probeAtCeiling, p.confirmHypothesis, p.timeoutStats
	}
	p.sched.RequestTime = pl.RequestTime
	return nil
}

// storeKey is what determines the answers of this plan's queries, for the
// query store: the alphabet, the purpose's harness part, the timeouts,
// the sim model's content, the harness and the build of the devices.
func (p *Plan) storeKey() store.Key {
	parts := maps.Clone(p.keyParts)
	if parts == nil {
		parts = map[string]string{}
	}
	t := p.Job.Target
	parts[store.PartAlphabet] = strings.Join(t.Inputs.Names(), " ") + " / " + strings.Join(t.Outputs.Names(), " ")
	var builds []string
	for _, d := range p.Job.Devices {
		// The serial is left out: two phones of one build answer alike.
		var fields []string
		for _, f := range []string{d.Platform, d.Model, d.Release} {
			if f != "" {
				fields = append(fields, f)
			}
		}
		if d.SDK != 0 {
			fields = append(fields, fmt.Sprintf("sdk %d", d.SDK))
		}
		b := strings.Join(fields, " ")
		if !slices.Contains(builds, b) {
			builds = append(builds, b)
		}
	}
	sort.Strings(builds)
	parts[store.PartDevice] = strings.Join(builds, "; ")
	return store.Key{Name: t.Name, Parts: parts}
}

// useStore puts a query store stage under the cache: what the bucket
// holds answers queries before any device runs them, and every new
// answer is written to it before the cache uses it.
func (p *Plan) useStore(b *store.Bucket) error {
	t := p.Job.Target
	sem, err := t.Sem()
	if err != nil {
		return err
	}
	st, err := store.NewStage(p.cache.Next, b, t.Inputs, t.Outputs, sem, p.Job.Recorder)
	if err != nil {
		return err
	}
	if p.calibrator != nil {
		if err := st.Calibrate(p.calibrator.Words(t.Inputs)); err != nil {
			return err
		}
	}
	p.cache.Next = st
	return nil
}

// limitQueries makes the run stop once max queries have been executed on
// the executors (see budget.Stage): the budget goes right above the
// scheduler, so cache and store answers cost nothing.
func (p *Plan) limitQueries(max int) {
	p.cache.Next = &budget.Stage{Next: p.cache.Next, Max: max}
}

// pad makes the pipeline extend each learning query and each word of a
// bound check's round the cache misses by up to size's symbols the
// restrictions allow (see pad.Stage): the stage goes between the filter
// and the cache. Sizes of 0 pad nothing.
func (p *Plan) pad(size pad.Sizes) {
	if !size.Any() {
		return
	}
	p.filter.Next = &pad.Stage{Next: p.filter.Next, Known: p.cache, Rules: p.Rules, Size: size, Sem: p.cache.Sem,
		Inputs: p.Job.Target.Inputs.Size(), Recorder: p.Job.Recorder}
}
