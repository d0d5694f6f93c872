package oracle

import (
	"context"
	"errors"

	"github.com/droidstar/droidstar/internal/mealy"
)

// Expectation is what an asker expects the queries it asks under a
// context to answer: an equivalence oracle's hypothesis. The stages
// between the asker and the scheduler may shorten, extend or merge the
// asker's words, so the expectation is a function of the word the
// scheduler runs, not an index into the asker's batch; that keeps the
// scheduler from knowing any learner.
//
// The scheduler uses it twice: it turns the predicted outputs into a
// predicted device time (which waits stay quiet, which deliver a
// callback) and starts the longest queries first, so that the batch's
// last query does not start late; and, with CutOff, it stops starting
// the batch's queries once one answered other than predicted.
type Expectation struct {
	// Outputs predicts the outputs of a word, one per input. It must be
	// safe for concurrent use.
	Outputs func(mealy.Word) mealy.Word
	// CutOff stops the batch at the first surprise: the queries that had
	// not started do not run, the answered ones are kept (the cache keeps
	// them), and Ask fails with ErrCutOff. An equivalence oracle that
	// looks for one counterexample uses it: a surprise is one, and the
	// rest of the batch would be spent for nothing.
	CutOff bool
	// OnSurprise, when set, is told each word the scheduler ran that
	// answered other than predicted (the word as it reached the
	// scheduler: a stage above may have shortened or extended the
	// asker's), so that an asker cut off can tell where to look. It must
	// be safe for concurrent use.
	OnSurprise func(w mealy.Word, a Answer)
}

// ErrCutOff is the failure of a batch that an Expectation with CutOff
// stopped: a query answered other than predicted, and the queries not yet
// started did not run. It comes wrapped in a *PartialError from the
// scheduler; the stages above may pass it on bare.
var ErrCutOff = errors.New("a query answered other than the hypothesis predicts: the rest of the batch did not run")

type expectKey struct{}

// WithExpectation attaches e to the queries asked under ctx.
func WithExpectation(ctx context.Context, e Expectation) context.Context {
	return context.WithValue(ctx, expectKey{}, e)
}

// ExpectationOf is the Expectation attached to ctx, if any.
func ExpectationOf(ctx context.Context) (Expectation, bool) {
	e, ok := ctx.Value(expectKey{}).(Expectation)
	return e, ok && e.Outputs != nil
}

// Surprise says whether a differs from what e predicts for w.
func (e Expectation) Surprise(w mealy.Word, a Answer) bool {
	if e.Outputs == nil {
		return false
	}
	return !e.Outputs(w).Equal(a.Outputs)
}
