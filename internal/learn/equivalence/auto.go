package equivalence

import (
	"context"
	"fmt"

	"github.com/droidstar/droidstar/internal/learn"
)

// AutoBound is the bound oracle with a bound it chooses (--bound auto).
// It starts at Start and raises the bound by one whenever a hypothesis
// passes the current bound after rounds at that bound (or the start)
// found counterexamples, and settles on the first bound whose first round
// finds none, or at Max. The rule rests on this: a raised bound's round
// that finds nothing is evidence, not proof, that the target needs no
// more; the model is exact when the target needs at most the bound
// settled on, which is what the summary says.
//
// It cannot see a target whose states differ only on words longer than
// the first raised bound that finds nothing: with no counterexample at
// B+1 nothing says to try B+2 (a lock that opens after three pushes looks
// like a one-state machine to every round at 2). The guarantee stays what
// the bound check showed.
//
// A round at B+1 costs about |inputs| times one at B, so a target that
// needs B costs one round at B+1 more than --bound B when rounds at B
// found counterexamples, and nothing more when they did not.
type AutoBound struct {
	// Bound checks each round; AutoBound sets its Bound field.
	Bound      *Bound
	Start, Max int
	// OnRaise, when set, is told of each raise.
	OnRaise func(from, to int)

	current int
	found   []int // counterexamples found per bound, from Start
	capped  bool
}

// FindCounterexample implements learn.EquivalenceOracle.
func (a *AutoBound) FindCounterexample(ctx context.Context, h *learn.Hypothesis) (*learn.Counterexample, error) {
	if a.Start < 1 || a.Max < a.Start {
		return nil, fmt.Errorf("automatic bound: need 1 <= start <= max, got start %d, max %d", a.Start, a.Max)
	}
	if a.current == 0 {
		a.current = a.Start
		a.found = []int{0}
	}
	for {
		a.Bound.Bound = a.current
		cex, err := a.Bound.FindCounterexample(ctx, h)
		if err != nil || cex != nil {
			if cex != nil {
				a.found[len(a.found)-1]++
			}
			return cex, err
		}
		// The hypothesis passed the current bound. The start is never
		// trusted untested; a raised bound whose rounds found nothing is
		// where the search stops.
		raise := a.current == a.Start || a.found[len(a.found)-1] > 0
		if !raise {
			return nil, nil
		}
		if a.current >= a.Max {
			a.capped = true
			return nil, nil
		}
		if a.OnRaise != nil {
			a.OnRaise(a.current, a.current+1)
		}
		a.current++
		a.found = append(a.found, 0)
	}
}

// Settled is the bound the last check used, the counterexamples found at
// each bound from Start, and whether Max stopped the search while the
// rounds at it still found counterexamples (or Max was the start, so
// nothing above the start was tried).
func (a *AutoBound) Settled() (bound int, found []int, capped bool) {
	return a.current, append([]int(nil), a.found...), a.capped
}
