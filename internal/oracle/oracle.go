// Package oracle is the floor every learner stands on: the membership
// oracle interface and its answers, the errors the pipeline's stages
// report through it (a contradiction, an unsettled vote, a revised
// answer), the statistics recorder they write to, and the Counter at the
// top of the pipeline. The stages themselves live in their own packages
// below it (internal/oracle/cache and the rest). It imports only mealy and
// model, so a learner that links it can link no purpose, backend, stage or
// file format (a go list -deps test keeps it so).
//
// The membership pipeline is a chain of decorators, each an Oracle that
// owns one job and its own counts and passes the rest on:
//
//	learner → Counter → restrict.Filter → [pad.Stage] → cache.Cache → [store.Stage] → [budget.Stage] → dispatch.Scheduler → mapper → executors
//
// (the padding stage, internal/oracle/pad, unless padding is off; the
// query store's stage, internal/store, when the run has a store; the
// budget, internal/oracle/budget, when the run has --max-queries)
// internal/compose assembles it; internal/engine puts one Counter for the
// learner and one for the equivalence oracle on top.
package oracle

import (
	"context"
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
	// Steps is the time each input took on the device, when the executor
	// measured it; the query store keeps it. A wait that answered quiet
	// (not by the closure's rules) took the quiescence timeout it ran under.
	Steps []time.Duration
	// Quiescence is the quiescence timeout the query ran under, when the
	// executor says and it was one for all its waits (0 otherwise).
	Quiescence time.Duration
	// Waits is the timeout of the wait at each place, when each had its
	// own (query.Result's Waits; nil otherwise).
	Waits []time.Duration
}

// Oracle answers membership queries in batches. Answers are in query order.
type Oracle interface {
	Ask(ctx context.Context, queries []mealy.Word) ([]Answer, error)
}

// PartialError is a failed Ask that still answered some of its queries:
// Answers[k] holds the answer to query k where Answered[k]. A stage that
// keeps answers (the Cache) keeps these too, so that what a device ran
// before the failure is not lost.
type PartialError struct {
	Answers  []Answer
	Answered []bool
	Err      error
}

func (e *PartialError) Error() string { return e.Err.Error() }
func (e *PartialError) Unwrap() error { return e.Err }

// Explainer is implemented by the stages that can tell, without running
// anything, why a word they have seen answers err at its last symbol: the
// restriction filter (excluded) and the cache (what the device said).
// A stage that cannot tell passes the question on, down the same chain the
// query took.
type Explainer interface {
	// Explain returns why w's last output is err, or ok=false when this
	// stage and those below it do not know (or it is no err there).
	Explain(w mealy.Word) (info *model.ErrInfo, ok bool)
}

// Explain asks o why w answers err at its last symbol, if o can tell.
func Explain(o Oracle, w mealy.Word) (*model.ErrInfo, bool) {
	if e, ok := o.(Explainer); ok {
		return e.Explain(w)
	}
	return nil, false
}
