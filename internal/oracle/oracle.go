// Package oracle is the membership-query pipeline between a learner and the
// executors that run queries on devices: counting, the restriction filter,
// the prefix-tree cache, and the scheduler that spreads a batch over
// executors. Every stage is an Oracle, so stages compose in any order a
// caller needs; session builds the usual one:
//
//	learner → Counter → Filter → Cache → Scheduler → executors
//
// The filter sits above the cache so that an excluded query's allowed prefix
// is looked up in the cache instead of being sent to a device again.
package oracle

import (
	"context"
	"sync"
	"time"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
)

// Answer is the output word of one query.
type Answer struct {
	// Outputs has one output per input of the query.
	Outputs mealy.Word
	// ErrAt is the index of the first err output, -1 when there is none or
	// the semantics has no err.
	ErrAt int
	// Err explains the err at ErrAt.
	Err *model.ErrInfo
	// Device names the executor that ran the query (empty when it came
	// from the cache), so a disagreement can say which devices differ.
	Device string
}

// Oracle answers membership queries in batches. Answers are in query order.
type Oracle interface {
	Ask(ctx context.Context, queries []mealy.Word) ([]Answer, error)
}

// Semantics tells the pipeline which rules of the synchronous closure apply.
type Semantics struct {
	// Closure enables err prefix-closure and quiet chains.
	Closure bool
	// Wait, Quiet and Err are the symbol indices of wait (input), quiet and
	// err (outputs); meaningful only when Closure is set.
	Wait, Quiet, Err int
}

// ClosureSemantics looks up wait, quiet and err in the alphabets.
func ClosureSemantics(inputs, outputs *mealy.Alphabet) Semantics {
	w, ok1 := inputs.Index(mealy.Wait)
	q, ok2 := outputs.Index(mealy.Quiet)
	e, ok3 := outputs.Index(mealy.Err)
	if !ok1 || !ok2 || !ok3 {
		return Semantics{Wait: -1, Quiet: -1, Err: -1}
	}
	return Semantics{Closure: true, Wait: w, Quiet: q, Err: e}
}

// PlainSemantics is a Mealy machine with no special symbols.
func PlainSemantics() Semantics { return Semantics{Wait: -1, Quiet: -1, Err: -1} }

// Phase is the learning phase a query belongs to, for the statistics.
type Phase int

const (
	PhaseLearning Phase = iota
	PhaseEquivalence
)

func (p Phase) String() string {
	if p == PhaseEquivalence {
		return "equivalence"
	}
	return "learning"
}

type phaseKey struct{}

// WithPhase tags the queries asked under ctx with a phase.
func WithPhase(ctx context.Context, p Phase) context.Context {
	return context.WithValue(ctx, phaseKey{}, p)
}

// PhaseOf returns the phase ctx was tagged with (learning by default).
func PhaseOf(ctx context.Context) Phase {
	if p, ok := ctx.Value(phaseKey{}).(Phase); ok {
		return p
	}
	return PhaseLearning
}

// Stats counts queries per phase; every stage records what it did. It is
// safe for concurrent use, so a progress display may read it while learning.
type Stats struct {
	mu      sync.Mutex
	phases  [2]model.PhaseStats
	current Phase
	devices []DeviceStats
}

// DeviceStats is what one executor has done so far.
type DeviceStats struct {
	Serial     string
	Executed   int
	Busy       bool
	DeviceSecs float64
}

// Current is the phase of the latest query asked.
func (s *Stats) Current() Phase {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.current
}

// Devices returns the per-executor counts, in the order executors first ran.
func (s *Stats) Devices() []DeviceStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]DeviceStats(nil), s.devices...)
}

// device updates the counts of one executor.
func (s *Stats) device(serial string, f func(*DeviceStats)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := range s.devices {
		if s.devices[k].Serial == serial {
			f(&s.devices[k])
			return
		}
	}
	s.devices = append(s.devices, DeviceStats{Serial: serial})
	f(&s.devices[len(s.devices)-1])
}

func (s *Stats) update(ctx context.Context, f func(*model.PhaseStats)) {
	s.mu.Lock()
	f(&s.phases[PhaseOf(ctx)])
	s.mu.Unlock()
}

// Snapshot returns the counts so far.
func (s *Stats) Snapshot() (learning, equivalence model.PhaseStats) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.phases[PhaseLearning], s.phases[PhaseEquivalence]
}

// Counter records how many queries the learner asked.
type Counter struct {
	Next  Oracle
	Stats *Stats
}

// Ask implements Oracle.
func (c *Counter) Ask(ctx context.Context, queries []mealy.Word) ([]Answer, error) {
	c.Stats.update(ctx, func(p *model.PhaseStats) { p.Asked += len(queries) })
	c.Stats.mu.Lock()
	c.Stats.current = PhaseOf(ctx)
	c.Stats.mu.Unlock()
	return c.Next.Ask(ctx, queries)
}

func addDevice(p *model.PhaseStats, d time.Duration) {
	p.DeviceSecs += d.Seconds()
}
