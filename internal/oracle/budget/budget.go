// Package budget holds the pipeline stage that stops a run after a given
// number of executed queries (learn --max-queries).
package budget

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/oracle"
)

// Stage lets at most Max queries through to the executors below it, so
// that a run stops after exactly Max executed queries: it sits right above
// the scheduler, under the cache and the query store, so what they answer
// costs nothing. A batch larger than what is left runs its first queries
// up to the budget and fails with a PartialError holding their answers
// (the stages above keep them), whose Err is an *Error; every later batch
// fails at once.
type Stage struct {
	Next oracle.Oracle
	Max  int

	mu   sync.Mutex
	used int
}

// Error is the failure of a batch the budget could not run in full.
type Error struct{ Max int }

func (e *Error) Error() string {
	return fmt.Sprintf("stopped after %d executed queries", e.Max)
}

// Used is the number of queries the budget let through that were answered.
func (b *Stage) Used() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// Ask implements oracle.Oracle. Spares (oracle.Spares) do not pass: each
// would spend the budget on a word nobody asked for yet.
func (b *Stage) Ask(ctx context.Context, queries []mealy.Word) ([]oracle.Answer, error) {
	ctx = oracle.WithoutSpares(ctx)
	b.mu.Lock()
	// Batches run concurrently (a vote's re-runs beside a batch) reserve
	// their share before running, so that together they stay within Max.
	n := min(len(queries), b.Max-b.used)
	b.used += n
	b.mu.Unlock()
	if n <= 0 {
		return nil, &Error{Max: b.Max}
	}
	got, err := b.Next.Ask(ctx, queries[:n])
	if err != nil {
		// What did not run is given back.
		var pe *oracle.PartialError
		ran := 0
		if errors.As(err, &pe) && len(pe.Answered) == n {
			for _, ok := range pe.Answered {
				if ok {
					ran++
				}
			}
		}
		b.mu.Lock()
		b.used -= n - ran
		b.mu.Unlock()
		if pe == nil || len(pe.Answered) != n || n == len(queries) {
			return nil, err
		}
		return nil, &oracle.PartialError{Answers: extend(pe.Answers, len(queries)), Answered: extend(pe.Answered, len(queries)), Err: err}
	}
	if n == len(queries) {
		return got, nil
	}
	answered := make([]bool, len(queries))
	for k := range n {
		answered[k] = true
	}
	return nil, &oracle.PartialError{Answers: extend(got, len(queries)), Answered: answered, Err: &Error{Max: b.Max}}
}

// extend pads xs with zero values to length n.
func extend[T any](xs []T, n int) []T {
	return append(xs[:len(xs):len(xs)], make([]T, n-len(xs))...)
}
