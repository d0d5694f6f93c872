package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/droidstar/droidstar/internal/growth"
	"github.com/droidstar/droidstar/internal/learn"
	"github.com/droidstar/droidstar/internal/mealy"
)

// StatesError is a run that Options.MaxStates stopped: the hypothesis of
// Round had States states, more than Max.
type StatesError struct{ Max, States, Round int }

func (e *StatesError) Error() string {
	return fmt.Sprintf("stopped at equivalence round %d: the hypothesis has %d states, more than the %d allowed", e.Round, e.States, e.Max)
}

// GrowthError is a run stopped because its counterexamples grew as a
// counting target's do: learning would go on for ever. Advice says which
// restriction to add and where.
type GrowthError struct {
	Finding growth.Finding
	Advice  string
}

func (e *GrowthError) Error() string { return e.Stopped() + "; " + e.Advice }

// Stopped is the error without the advice: when the run stopped, and why.
func (e *GrowthError) Stopped() string {
	return fmt.Sprintf("stopped at equivalence round %d: %s", e.Finding.Rounds[len(e.Finding.Rounds)-1], e.Finding)
}

// limits is the equivalence oracle of a run with its two stops: a
// hypothesis larger than maxStates, and counterexamples that grow as a
// counting target's do. It sits on top of the run's checks, so that the
// perfect oracle is watched too.
type limits struct {
	next       learn.EquivalenceOracle
	inputs     *mealy.Alphabet
	semantics  string
	maxStates  int
	restrictAt string
	growth     growth.Detector
	// warn records a warning and shows it as it comes.
	warn  func(string)
	round int
}

// FindCounterexample implements learn.EquivalenceOracle.
func (l *limits) FindCounterexample(ctx context.Context, h *learn.Hypothesis) (*learn.Counterexample, error) {
	l.round++
	states := typestateStates(h.Machine, l.semantics)
	if l.maxStates > 0 && states > l.maxStates {
		return nil, &StatesError{Max: l.maxStates, States: states, Round: l.round}
	}
	cex, err := l.next.FindCounterexample(ctx, h)
	if err != nil || cex == nil {
		return cex, err
	}
	f := l.growth.Add(l.round, l.inputs.Strings(cex.Word), states)
	if f == nil {
		return cex, nil
	}
	advice := Advice(f.Bounds, l.restrictAt)
	if l.maxStates == 0 {
		return nil, &GrowthError{Finding: *f, Advice: advice}
	}
	l.warn(fmt.Sprintf("equivalence round %d: %s; %s", f.Rounds[len(f.Rounds)-1], f, advice))
	return cex, nil
}

// Advice says how to bound a counting target: the restrictions to add,
// and where (see Target.RestrictAt).
func Advice(bounds []growth.Bound, where string) string {
	items := make([]string, len(bounds))
	for k, b := range bounds {
		items[k] = b.String()
	}
	what := "restriction"
	if len(items) > 1 {
		what = "restrictions"
	}
	if where == "" {
		where = "in the purpose's restrictions (droidstar help purposes)"
	}
	return fmt.Sprintf("bound it with the %s %s, %s", what, strings.Join(items, ", "), where)
}
