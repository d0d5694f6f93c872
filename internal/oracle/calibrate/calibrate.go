// Package calibrate is --timeout auto: it chooses the quiescence timeout
// while learning, from the callback latencies the queries show, instead of
// waiting the purpose's timeout on every quiet answer.
//
// The timeout starts short and, whenever a query shows a callback slower
// than half of it, is raised to Margin times the slowest callback seen, at
// least doubling (each raise makes every quiet answered so far stale),
// never above the ceiling, the purpose's timeout. A wait answered by a
// callback waited its latency, and a late callback (one that came after
// its wait had answered quiet, as the harness reports in the settle
// window) came at least its wait's timeout after the wait started. The
// cache (oracle.Cache's Quiescence) never answers from a quiet answered
// under less than the current timeout, and the run drops what is left of
// those before a model is declared final (oracle.Cache.DropStale), so
// every quiet the model rests on waited the final timeout. Queries asked
// with AtCeiling run under the ceiling whatever the current timeout: the
// composition root (internal/compose) probes the first inputs so before
// learning and confirms each hypothesis's quiet waits so, which shows a
// callback too slow for the current timeout and its settle window.
//
// That guarantee rests on the margin over the observed tail, not on a
// proof: a callback slower than everything observed can still be missed,
// when it is pre-empted by a callin before it shows, or comes after the
// settle window where no late violation sees it.
package calibrate

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/droidstar/droidstar/internal/backend"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
)

// DefaultStart is the timeout --timeout auto starts from: shorter than
// every callback latency the examples document except the near-instant
// ones, so the first raises come from the first queries.
const DefaultStart = 100 * time.Millisecond

// Margin is how many times the slowest callback seen the timeout is.
const Margin = 2

// Calibrator holds a run's current quiescence timeout. It is safe for
// the executors of several lanes at once: each query runs under the
// timeout current when it starts, and its result says which.
type Calibrator struct {
	mu      sync.Mutex
	start   time.Duration
	ceiling time.Duration
	now     time.Duration
	slowest time.Duration // the slowest callback seen
	raises  int
	late    int // late callbacks seen
}

// New returns a calibrator starting at start, never above ceiling.
func New(start, ceiling time.Duration) (*Calibrator, error) {
	switch {
	case start <= 0:
		return nil, fmt.Errorf("the starting timeout must be positive, got %s", start)
	case ceiling < start:
		return nil, fmt.Errorf("the starting timeout %s is above the ceiling %s", start, ceiling)
	}
	return &Calibrator{start: start, ceiling: ceiling, now: start}, nil
}

// Current is the timeout a query starting now runs under.
func (c *Calibrator) Current() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Observe learns from one query's result: the time each wait answered by a
// callback took, and the late callbacks. inputs are the query's.
func (c *Calibrator) Observe(inputs []string, res backend.Result) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, out := range res.Outputs {
		if k < len(inputs) && k < len(res.Steps) && inputs[k] == mealy.Wait && out != mealy.Quiet && out != mealy.Err {
			c.slowest = max(c.slowest, res.Steps[k])
		}
	}
	for _, l := range res.Timing {
		if l.Kind != "late" {
			continue
		}
		c.late++
		// A backend that cannot say when it came says it came after the
		// timeout its wait ran under.
		c.slowest = max(c.slowest, l.After, res.Quiescence+time.Millisecond)
	}
	// A raise makes every quiet answered so far stale: at least doubling
	// keeps the raises few (measured on spellcheckersession: 4 raises to
	// 298ms cost 18% more device time than the fixed 500ms, doubling to
	// 400ms about the same as fixed).
	if want := min(c.ceiling, max(Margin*c.slowest, 2*c.now)); Margin*c.slowest > c.now && want > c.now {
		c.now = want
		c.raises++
	}
}

type ceilingKey struct{}

// AtCeiling makes the queries asked with ctx run under the ceiling, not
// the current timeout: they confirm quiet answers (see Ceiling).
func AtCeiling(ctx context.Context) context.Context {
	return context.WithValue(ctx, ceilingKey{}, true)
}

// Ceiling is the most the timeout may become.
func (c *Calibrator) Ceiling() time.Duration { return c.ceiling }

// Settled says what the calibration chose, for the model's statistics;
// stale is how many quiet answers were asked again (oracle.Cache.Stale).
func (c *Calibrator) Settled(stale int) *model.AutoTimeout {
	c.mu.Lock()
	defer c.mu.Unlock()
	return &model.AutoTimeout{
		StartMs: ms(c.start), SettledMs: ms(c.now), CeilingMs: ms(c.ceiling), SlowestMs: ms(c.slowest),
		Raises: c.raises, Late: c.late, Stale: stale,
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 }

// Wrap makes e run each query under the current timeout, which set
// (e's own, or the executor it wraps) applies, and observe its result. A
// backend.BatchExecutor stays one, so that a harness still gets a batch
// per run request: the batch runs under the timeout current when it
// starts.
func (c *Calibrator) Wrap(e backend.Executor, set backend.QuiescenceSetter) backend.Executor {
	w := &executor{Executor: e, set: set, c: c}
	if b, ok := e.(backend.BatchExecutor); ok {
		return &batchExecutor{executor: w, next: b}
	}
	return w
}

// batchExecutor is the calibration in front of a backend.BatchExecutor.
type batchExecutor struct {
	*executor
	next backend.BatchExecutor
}

// ExecuteBatch implements backend.BatchExecutor: the batch runs whole
// under one timeout, and every result that came back is observed, those
// before a failure too.
func (b *batchExecutor) ExecuteBatch(ctx context.Context, queries [][]string) ([]backend.Result, error) {
	b.set.SetQuiescence(b.timeout(ctx))
	results, err := b.next.ExecuteBatch(ctx, queries)
	for k, res := range results {
		b.c.Observe(queries[k], res)
	}
	return results, err
}

// timeout is the one a query asked with ctx runs under.
func (e *executor) timeout(ctx context.Context) time.Duration {
	if atCeiling, _ := ctx.Value(ceilingKey{}).(bool); atCeiling {
		return e.c.ceiling
	}
	return e.c.Current()
}

type executor struct {
	backend.Executor
	set backend.QuiescenceSetter
	c   *Calibrator
}

func (e *executor) Execute(ctx context.Context, inputs []string) (backend.Result, error) {
	e.set.SetQuiescence(e.timeout(ctx))
	res, err := e.Executor.Execute(ctx, inputs)
	if err == nil {
		e.c.Observe(inputs, res)
	}
	return res, err
}
