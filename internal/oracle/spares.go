package oracle

import (
	"context"

	"github.com/droidstar/droidstar/internal/mealy"
)

// Spares are words an asker would like answered if that costs no wall
// time: the words it expects to ask next (a learner's next rows). They
// ride along with a batch; the scheduler starts one only on a lane that
// would otherwise wait for the batch's last query, and only when its
// predicted device time fits in that wait, so they run on several lanes
// and never on one. Each answer that ran goes to Answered; the asker's
// own queries are answered as if there were no spares.
//
// The stages between the asker and the scheduler pass them on as they
// pass its queries: the filter cuts each to what the restrictions allow,
// the cache drops those it can answer and keeps the answers of those
// that ran.
type Spares struct {
	Words []mealy.Word
	// Answered is told each spare word that ran and its answer, from
	// the scheduler's goroutines: it must be safe for concurrent use. The
	// cache sets it; an asker leaves it nil and asks the words later,
	// when the cache answers those that ran.
	Answered func(k int, a Answer)
}

// MaxSpares is how many spare words an asker sends with a batch at most:
// the lanes' waits take a few, and the stages look each one up.
const MaxSpares = 256

type sparesKey struct{}

// WithSpares attaches s to the batch asked under ctx; a context with no
// spare words carries none.
func WithSpares(ctx context.Context, s Spares) context.Context {
	return context.WithValue(ctx, sparesKey{}, s)
}

// SparesOf is the Spares attached to ctx, if any words.
func SparesOf(ctx context.Context) (Spares, bool) {
	s, ok := ctx.Value(sparesKey{}).(Spares)
	return s, ok && len(s.Words) > 0
}

// WithoutSpares is ctx with no spares: a stage that asks for its own
// purpose (a vote's re-run) must not carry its caller's.
func WithoutSpares(ctx context.Context) context.Context {
	if _, ok := SparesOf(ctx); !ok {
		return ctx
	}
	return context.WithValue(ctx, sparesKey{}, Spares{})
}

type knownKey struct{}

// WithKnown attaches to ctx what the cache knows of a word's outputs:
// known(w) is the outputs of the longest prefix of w it holds. The
// scheduler predicts the device time of a word the asker made no
// prediction for from them (a learning query, a spare).
func WithKnown(ctx context.Context, known func(mealy.Word) mealy.Word) context.Context {
	return context.WithValue(ctx, knownKey{}, known)
}

// KnownOf is the function WithKnown attached to ctx, if any.
func KnownOf(ctx context.Context) (func(mealy.Word) mealy.Word, bool) {
	k, ok := ctx.Value(knownKey{}).(func(mealy.Word) mealy.Word)
	return k, ok && k != nil
}
