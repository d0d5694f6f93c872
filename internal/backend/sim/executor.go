// Package sim is the simulated device: it answers queries from a model
// (DroidStar's DOT dialect, AALpy/LearnLib Mealy DOT, or droidstar's JSON)
// with the same synchronous-closure rules as the harness, and accounts the
// device time each query would take on a virtual clock.
package sim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/droidstar/droidstar/internal/backend"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
)

// Timing is what the virtual clock charges.
type Timing struct {
	// Quiescence is charged for every wait that answers quiet (the harness
	// waits that long before giving up), except a wait right after a quiet.
	Quiescence time.Duration
	// Reset is charged once per query: creating a fresh instance and
	// disposing of it (the purpose's settle and post-reset timeouts).
	Reset time.Duration
	// Latency is charged for a wait that delivers a callback, by output name;
	// DefaultLatency for names not listed.
	Latency        map[string]time.Duration
	DefaultLatency time.Duration
	// Realtime makes the executor sleep for what it charges.
	Realtime bool
}

// Executor answers queries from a model, under the closure's rules
// (mealy.Semantics) when the model is a synchronous closure. It is safe to create several over
// one model (lanes); each must be used by one goroutine at a time.
type Executor struct {
	model  *Model
	timing Timing
	serial string
	closed bool

	sem   mealy.Semantics
	flaky *flake

	// Results take their outputs and step costs from these, a chunk at a
	// time, instead of two allocations per query; a chunk is freed once
	// no result uses it.
	outs  chunk[string]
	costs chunk[time.Duration]
	// last is the previous query's inputs with their indices: a batch's
	// queries share long prefixes, and comparing a name with the one
	// before at its place is cheaper than looking it up.
	last []named
}

type named struct {
	name  string
	index int
}

// input is the index of the input name at place k of a query.
func (e *Executor) input(k int, name string) (int, bool) {
	if k < len(e.last) && e.last[k].name == name {
		return e.last[k].index, true
	}
	in, ok := e.model.Machine.Inputs.Index(name)
	if !ok {
		return 0, false
	}
	if k < len(e.last) {
		e.last[k] = named{name, in}
	} else if k == len(e.last) {
		e.last = append(e.last, named{name, in})
	}
	return in, true
}

// chunk hands out parts of one array; no part is handed out twice.
type chunk[T any] struct{ buf []T }

const chunkSize = 4096

// take returns an empty slice with room for n, its own to append to.
func (c *chunk[T]) take(n int) []T {
	if n > chunkSize/4 {
		return make([]T, 0, n)
	}
	if cap(c.buf)-len(c.buf) < n {
		c.buf = make([]T, 0, chunkSize)
	}
	start := len(c.buf)
	c.buf = c.buf[:start+n]
	return c.buf[start : start : start+n]
}

// NewExecutor returns an executor named serial (e.g. "sim-0") over m.
func NewExecutor(m *Model, timing Timing, serial string) *Executor {
	e := &Executor{model: m, timing: timing, serial: serial, sem: mealy.PlainSemantics()}
	if m.Semantics == model.SemanticsClosure {
		e.sem = mealy.ClosureSemantics(m.Machine.Inputs, m.Machine.Outputs)
	}
	return e
}

// Execute implements backend.Executor.
func (e *Executor) Execute(ctx context.Context, inputs []string) (backend.Result, error) {
	res, costs, err := e.Run(ctx, inputs)
	res.Steps = costs
	return res, err
}

// Run is Execute that also says what each answered symbol cost: a callin
// nothing, a wait its callback's latency or the quiescence timeout, a
// wait the closure's rules answer nothing. The reset is the rest of the
// result's device time.
func (e *Executor) Run(ctx context.Context, inputs []string) (backend.Result, []time.Duration, error) {
	if e.closed {
		return backend.Result{}, nil, fmt.Errorf("simulator %s is closed", e.serial)
	}
	m := e.model.Machine
	res := backend.Result{Outputs: e.outs.take(len(inputs)), Device: e.timing.Reset}
	costs := e.costs.take(len(inputs))
	q, prev := m.Initial, -1
	var ruled []bool // outputs the closure's rules gave, kept only for flip
	if e.flaky != nil {
		ruled = make([]bool, 0, len(inputs))
	}
	for k, name := range inputs {
		in, ok := e.input(k, name)
		if !ok {
			return res, costs, fmt.Errorf("the model %s has no input %q", e.model.Path, name)
		}
		if out, forced := e.sem.Forced(prev, in); forced {
			// The harness answers at once: no time passes, nothing changes.
			res.Outputs = append(res.Outputs, m.Outputs.Name(out))
			if ruled != nil {
				ruled = append(ruled, true)
			}
			costs = append(costs, 0)
			continue
		}
		out := m.Out[q][in]
		q, prev = m.Next[q][in], out
		res.Outputs = append(res.Outputs, m.Outputs.Name(out))
		if ruled != nil {
			ruled = append(ruled, false)
		}
		var cost time.Duration
		switch {
		case in == e.sem.Wait && out == e.sem.Quiet:
			cost = e.timing.Quiescence
		case in == e.sem.Wait:
			cost = e.latency(m.Outputs.Name(out))
		}
		res.Device += cost
		costs = append(costs, cost)
		if e.sem.Closure && out == e.sem.Err {
			res.Err = &model.ErrInfo{Kind: model.ErrThrown, Detail: fmt.Sprintf("%s answers err in the model", name)}
			break
		}
	}
	e.flip(res.Outputs, ruled)
	if e.timing.Realtime {
		if err := sleep(ctx, res.Device); err != nil {
			return res, costs, err
		}
	} else if err := ctx.Err(); err != nil {
		return res, costs, err
	}
	return res, costs, nil
}

func (e *Executor) latency(out string) time.Duration {
	if d, ok := e.timing.Latency[out]; ok {
		return d
	}
	return e.timing.DefaultLatency
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Describe implements backend.Executor.
func (e *Executor) Describe() model.DeviceInfo {
	return model.DeviceInfo{Serial: e.serial, Model: "simulator (" + e.model.Format + ")"}
}

// Close implements backend.Executor.
func (e *Executor) Close() error {
	e.closed = true
	return nil
}

// Flakiness makes a simulated device answer wrongly now and then, to test
// what learning does with a flaky target: each query, with probability
// Prob, gets one of its answers flipped.
type Flakiness struct {
	Prob float64
	// Seed seeds the draws; lanes add their index so that each differs.
	Seed uint64
}

// flake is an executor's flakiness and its random source.
type flake struct {
	prob float64
	rnd  *rand.Rand
}

// SetFlakiness makes e flaky; lane is mixed into the seed.
func (e *Executor) SetFlakiness(f Flakiness, lane int) {
	if f.Prob <= 0 {
		e.flaky = nil
		return
	}
	e.flaky = &flake{prob: f.Prob, rnd: rand.New(rand.NewPCG(f.Seed, uint64(lane)))}
}

// flip replaces one output by another callback, at a symbol the closure's
// rules did not force and before any err; a quiet or err is never made up,
// as neither a late callback nor a throw is what this simulates.
func (e *Executor) flip(outputs []string, forced []bool) {
	if e.flaky == nil || e.flaky.rnd.Float64() >= e.flaky.prob {
		return
	}
	m := e.model.Machine
	type choice struct {
		at  int
		out string
	}
	var choices []choice
	for k, o := range outputs {
		if forced[k] {
			continue
		}
		if o == mealy.Err {
			break
		}
		for _, alt := range m.Outputs.Names() {
			if alt != o && alt != mealy.Err && alt != mealy.Quiet {
				choices = append(choices, choice{k, alt})
			}
		}
	}
	if len(choices) == 0 {
		return
	}
	c := choices[e.flaky.rnd.IntN(len(choices))]
	outputs[c.at] = c.out
}
