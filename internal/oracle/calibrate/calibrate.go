// Package calibrate is --timeout auto: it chooses the quiescence timeouts
// while learning, from the callback latencies the queries show, instead of
// waiting the purpose's timeout on every quiet answer.
//
// A wait's timeout depends on its context: the callin before it and how
// many waits came since (Context), for the callbacks a callin starts come
// in their order, each as slow as the callin and its place in the chain
// make it, and a context no slow callback ever came in need not wait as
// long as one where it did. Each context's timeout starts short and,
// whenever a query shows a callback in it slower than half of it, is
// raised to Margin times the slowest callback seen there, at least
// doubling (a raise makes the context's quiet answers so far stale), never
// above the ceiling, the purpose's timeout. A wait answered by a callback
// waited its latency, and a late callback (one that came after its wait
// had answered quiet, as the harness reports in the settle window) came at
// least its wait's timeout after the wait started. The cache (cache.Cache's
// Quiet) never answers from a quiet answered under less than its context's
// current timeout, and the run drops what is left of those before a model
// is declared final (cache.Cache.DropStale), so every quiet the model
// rests on waited its context's final timeout. Queries asked with
// AtCeiling run under the ceiling whatever the current timeouts: the
// composition root (internal/compose) probes the first inputs so before
// learning and confirms each hypothesis's quiet waits so, which shows a
// callback too slow for its context's timeout and its settle window.
//
// An executor that can time each wait on its own (backend.WaitTimeoutSetter:
// the simulator, and the harnesses through their run requests' "waits")
// gets each wait's timeout; one that takes only a timeout per query or
// batch runs it under the longest its waits need, which keeps every answer
// sound and saves less.
//
// That guarantee rests on the margin over the observed tail, not on a
// proof: a callback slower than everything observed in its context can
// still be missed, when it is pre-empted by a callin before it shows, or
// comes after the settle window where no late violation sees it.
package calibrate

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/droidstar/droidstar/internal/backend"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/query"
)

// DefaultStart is the timeout --timeout auto starts from: the examples'
// latency for a callback posted at once (their default), so that a
// context where none comes waits no longer and the first slower
// callbacks raise theirs from the first queries. Chosen by running
// bench --only timeout with the start changed: of 100, 75, 60, 50, 40, 30
// and 20 ms, 50 ms took the least device time over the examples; lower starts save more
// on the contexts no callback comes in, but ask more quiets again after
// the raises.
const DefaultStart = 50 * time.Millisecond

// Margin is how many times the slowest callback seen a context's timeout
// is.
const Margin = 2

// Calibrator holds a run's current quiescence timeouts, one per wait
// context. It is safe for the executors of several lanes at once: each
// query runs under the timeouts current when it starts, and its result
// says which.
type Calibrator struct {
	mu       sync.Mutex
	start    time.Duration
	ceiling  time.Duration
	contexts map[Context]*timeout
	slowest  time.Duration // the slowest callback seen anywhere
	raises   int
	late     int // late callbacks seen
}

// timeout is one context's calibration.
type timeout struct {
	now, slowest time.Duration
}

// Context is a wait's context: the callin before it ("" when none, the
// initial state) and how many waits, this one included, came since.
type Context struct {
	Callin string
	Wait   int
}

// String names the context for the summary: "start+2" is the second wait
// after start, "+1" the first wait from the initial state.
func (c Context) String() string { return fmt.Sprintf("%s+%d", c.Callin, c.Wait) }

// ContextOf is the context of the wait at place k of a query's inputs.
func ContextOf(inputs []string, k int) Context {
	c := Context{}
	for j := k; j >= 0; j-- {
		if inputs[j] != mealy.Wait {
			c.Callin = inputs[j]
			break
		}
		c.Wait++
	}
	return c
}

// New returns a calibrator starting at start, never above ceiling.
func New(start, ceiling time.Duration) (*Calibrator, error) {
	switch {
	case start <= 0:
		return nil, fmt.Errorf("the starting timeout must be positive, got %s", start)
	case ceiling < start:
		return nil, fmt.Errorf("the starting timeout %s is above the ceiling %s", start, ceiling)
	}
	return &Calibrator{start: start, ceiling: ceiling, contexts: map[Context]*timeout{}}, nil
}

// current is the timeout of context c now; the caller holds c.mu.
func (c *Calibrator) current(ctx Context) time.Duration {
	if t, ok := c.contexts[ctx]; ok {
		return t.now
	}
	return c.start
}

// Needed is the timeout the wait that ends inputs runs under now: a
// quiet it answered under less is stale.
func (c *Calibrator) Needed(inputs []string) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.current(ContextOf(inputs, len(inputs)-1))
}

// Timeouts are the timeouts a query's waits run under now, by place (0
// where no wait is), and the longest of them (the start when it has none).
func (c *Calibrator) Timeouts(inputs []string) (waits []time.Duration, longest time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	waits = make([]time.Duration, len(inputs))
	longest = c.start
	for k, in := range inputs {
		if in == mealy.Wait {
			waits[k] = c.current(ContextOf(inputs, k))
			longest = max(longest, waits[k])
		}
	}
	return waits, longest
}

// Words is the calibrator as a cache over words of inputs sees it
// (oracle.QuietTimeouts).
func (c *Calibrator) Words(inputs *mealy.Alphabet) *Words { return &Words{c: c, inputs: inputs} }

// Words is Calibrator.Words.
type Words struct {
	c      *Calibrator
	inputs *mealy.Alphabet
}

// Needed is the timeout the wait that ends w runs under now.
func (w *Words) Needed(word mealy.Word) time.Duration { return w.c.Needed(w.inputs.Strings(word)) }

// Raises is the calibrator's Raises.
func (w *Words) Raises() int { return w.c.Raises() }

// Raises counts the raises so far: what was answered quiet before one
// may be stale.
func (c *Calibrator) Raises() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.raises
}

// Observe learns from one query's result: the time each wait answered by a
// callback took, and the late callbacks. inputs are the query's.
func (c *Calibrator) Observe(inputs []string, res query.Result) {
	c.mu.Lock()
	defer c.mu.Unlock()
	seen := func(k int, d time.Duration) {
		ctx := ContextOf(inputs, k)
		t, ok := c.contexts[ctx]
		if !ok {
			t = &timeout{now: c.start}
			c.contexts[ctx] = t
		}
		t.slowest = max(t.slowest, d)
		c.slowest = max(c.slowest, d)
		// A raise makes the context's quiets so far stale: at least
		// doubling keeps the raises few (measured on spellcheckersession
		// with one timeout for every wait: 4 raises to 298ms cost 18%
		// more device time than the fixed 500ms, doubling to 400ms about
		// the same as fixed).
		if want := min(c.ceiling, max(Margin*t.slowest, 2*t.now)); Margin*t.slowest > t.now && want > t.now {
			t.now = want
			c.raises++
		}
	}
	for k, out := range res.Outputs {
		if k < len(inputs) && k < len(res.Steps) && inputs[k] == mealy.Wait && out != mealy.Quiet && out != mealy.Err {
			seen(k, res.Steps[k])
		}
	}
	for _, l := range res.Timing {
		if l.Kind != "late" || l.At < 0 || l.At >= len(inputs) || inputs[l.At] != mealy.Wait {
			continue
		}
		c.late++
		// A backend that cannot say when it came says it came after the
		// timeout its wait ran under.
		waited := res.Quiescence
		switch {
		case l.At < len(res.Waits) && res.Waits[l.At] > 0:
			waited = res.Waits[l.At]
		case waited == 0 && l.At < len(res.Steps):
			waited = res.Steps[l.At]
		}
		seen(l.At, max(l.After, waited+time.Millisecond))
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
// stale is how many quiet answers were asked again (cache.Cache.Stale).
func (c *Calibrator) Settled(stale int) *model.AutoTimeout {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &model.AutoTimeout{
		StartMs: ms(c.start), SettledMs: ms(c.start), CeilingMs: ms(c.ceiling), SlowestMs: ms(c.slowest),
		Raises: c.raises, Late: c.late, Stale: stale,
	}
	for ctx, ct := range c.contexts {
		t.SettledMs = max(t.SettledMs, ms(ct.now))
		if ct.now > c.start {
			t.Contexts = append(t.Contexts, model.ContextTimeout{Context: ctx.String(), TimeoutMs: ms(ct.now), SlowestMs: ms(ct.slowest)})
		}
	}
	slices.SortFunc(t.Contexts, func(a, b model.ContextTimeout) int { return strings.Compare(a.Context, b.Context) })
	return t
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 }

// Wrap makes e run each query under the current timeouts, which set
// (e's own, or the executor it wraps) applies, and observe its result: a
// backend.WaitTimeoutSetter gets each wait's, another the longest the
// query's waits need. A backend.BatchExecutor stays one, so that a
// harness still gets a batch per run request.
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

// ExecuteBatch implements backend.BatchExecutor: each query runs under
// the timeouts current when the batch starts, and every result that came
// back is observed, those before a failure too.
func (b *batchExecutor) ExecuteBatch(ctx context.Context, queries [][]string) ([]query.Result, error) {
	b.apply(ctx, queries)
	results, err := b.next.ExecuteBatch(ctx, queries)
	for k, res := range results {
		b.c.Observe(queries[k], res)
	}
	return results, err
}

type executor struct {
	backend.Executor
	set backend.QuiescenceSetter
	c   *Calibrator
}

func (e *executor) Execute(ctx context.Context, inputs []string) (query.Result, error) {
	e.apply(ctx, [][]string{inputs})
	res, err := e.Executor.Execute(ctx, inputs)
	if err == nil {
		e.c.Observe(inputs, res)
	}
	return res, err
}

// apply sets the timeouts the queries of the next call run under: under
// the ceiling when ctx says they confirm quiets (AtCeiling); else each
// wait its own on an executor that takes them (current as each query or
// request starts), and the longest the waits need now as the quiescence
// timeout (on another executor, for every wait).
func (e *executor) apply(ctx context.Context, queries [][]string) {
	ws, perWait := e.set.(backend.WaitTimeoutSetter)
	if atCeiling, _ := ctx.Value(ceilingKey{}).(bool); atCeiling {
		e.set.SetQuiescence(e.c.ceiling)
		if perWait {
			ws.SetWaitTimeouts(nil)
		}
		return
	}
	longest := e.c.start
	for _, q := range queries {
		_, l := e.c.Timeouts(q)
		longest = max(longest, l)
	}
	e.set.SetQuiescence(longest)
	if perWait {
		ws.SetWaitTimeouts(func(q []string) []time.Duration {
			waits, _ := e.c.Timeouts(q)
			return waits
		})
	}
}
