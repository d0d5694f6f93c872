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

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/query"
)

// Timing is what the virtual clock charges.
type Timing struct {
	// Quiescence is charged for every wait that answers quiet (the harness
	// waits that long before giving up), except a wait right after a quiet.
	Quiescence time.Duration
	// Reset is charged once per query: creating a fresh instance and
	// disposing of it (the purpose's settle and post-reset timeouts).
	Reset time.Duration
	// Settle is the part of Reset spent after the last symbol, by a query
	// that ended waiting quiet (a wait answered quiet since the last
	// callin, and no err): a callback that comes that late is still seen,
	// as a late violation, before the instance is disposed of. Any other
	// query skips it, as the harness does: with no late window open, no
	// callback that comes can change the answer or warn.
	Settle time.Duration
	// Latency is how long a callback takes to come once it is due (its
	// callin returned, or the callback before it came), by output name;
	// DefaultLatency for names not listed. A name in LatencyMax with a
	// larger value (or any other name, when DefaultLatencyMax is larger
	// than DefaultLatency) has its latency drawn uniformly from the range,
	// in whole milliseconds, for every callback; the draws are a function
	// of Seed and the query's inputs up to the draw, so a query answers
	// the same on every lane and run, and a prefix answers as the query
	// it is a prefix of.
	Latency           map[string]time.Duration
	DefaultLatency    time.Duration
	LatencyMax        map[string]time.Duration
	DefaultLatencyMax time.Duration
	Seed              uint64
	// Realtime makes the executor sleep for what it charges.
	Realtime bool
}

// Executor answers queries from a model, under the closure's rules
// (mealy.Semantics) when the model is a synchronous closure. It is safe to create several over
// one model (lanes); each must be used by one goroutine at a time.
type Executor struct {
	model  *Model
	timing Timing
	// quiescence is the timeout the next query's waits run under:
	// timing.Quiescence unless SetQuiescence changed it.
	quiescence time.Duration
	// waits, when set, gives each query's waits their own timeouts
	// (SetWaitTimeouts).
	waits  func(query []string) []time.Duration
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
	// buffer is the harness buffer's array, reused from query to query.
	buffer []int
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
	e := &Executor{model: m, timing: timing, quiescence: timing.Quiescence, serial: serial, sem: mealy.PlainSemantics()}
	if m.Semantics == model.SemanticsClosure {
		e.sem = mealy.ClosureSemantics(m.Machine.Inputs, m.Machine.Outputs)
	}
	return e
}

// SetQuiescence implements backend.QuiescenceSetter: the queries from now
// on wait d for a callback before answering quiet.
func (e *Executor) SetQuiescence(d time.Duration) { e.quiescence = d }

// SetWaitTimeouts implements backend.WaitTimeoutSetter.
func (e *Executor) SetWaitTimeouts(timeouts func(query []string) []time.Duration) { e.waits = timeouts }

// Execute implements backend.Executor.
func (e *Executor) Execute(ctx context.Context, inputs []string) (query.Result, error) {
	res, costs, err := e.Run(ctx, inputs)
	res.Steps = costs
	return res, err
}

// Run is Execute that also says what each answered symbol cost: a callin
// nothing, a wait the time until its callback came or the quiescence
// timeout, a wait the closure's rules answer nothing. The reset is the
// rest of the result's device time.
//
// It runs the query as a device would: the instance is in a state of the
// model, and when a wait from that state gives a callback, the callback
// comes on its own after its latency, whether or not a wait is running,
// moving the instance on; the harness buffers it and each wait answers
// the oldest undelivered one. So a callback slower than the quiescence
// timeout makes its wait answer quiet and comes later: it answers a later
// wait (a wrong answer no harness can flag), is pre-empted by a callin
// that leaves its state (it never comes), or comes while the query
// settles after a quiet answer, which the harness reports as a late
// violation (a warning). Callins take no time here, so no callback comes
// during one or between two; one due after the settle time is lost with
// the instance (on a device it may come as a straggler of the next
// query, which the harness drops).
func (e *Executor) Run(ctx context.Context, inputs []string) (query.Result, []time.Duration, error) {
	if e.closed {
		return query.Result{}, nil, fmt.Errorf("simulator %s is closed", e.serial)
	}
	m := e.model.Machine
	res := query.Result{Outputs: e.outs.take(len(inputs)), Device: e.timing.Reset, Quiescence: e.quiescence}
	var timeouts []time.Duration
	if e.waits != nil {
		timeouts = e.waits(inputs)
		res.Quiescence = 0
		res.Waits = make([]time.Duration, len(inputs))
	}
	costs := e.costs.take(len(inputs))
	var ruled []bool // outputs the closure's rules gave, kept only for flip
	if e.flaky != nil {
		ruled = make([]bool, 0, len(inputs))
	}
	d := device{e: e, q: m.Initial, lateAt: -1, buffer: e.buffer[:0], limit: len(inputs), timeouts: timeouts}
	defer func() { e.buffer = d.buffer[:0] }()
	d.schedule(0)
	prev := -1
	for k, name := range inputs {
		in, ok := e.input(k, name)
		if !ok {
			return res, costs, fmt.Errorf("the model %s has no input %q", e.model.Path, name)
		}
		d.hash = mix(d.hash ^ uint64(in+1))
		if out, forced := e.sem.Forced(prev, in); forced {
			// The harness answers at once: no time passes, nothing changes.
			res.Outputs = append(res.Outputs, m.Outputs.Name(out))
			if ruled != nil {
				ruled = append(ruled, true)
			}
			costs = append(costs, 0)
			continue
		}
		var out int
		var cost time.Duration
		if in == e.sem.Wait {
			out, cost = d.wait(k)
			if res.Waits != nil {
				res.Waits[k] = d.timeout(k)
			}
		} else {
			out = d.callin(in)
		}
		prev = out
		res.Outputs = append(res.Outputs, m.Outputs.Name(out))
		if ruled != nil {
			ruled = append(ruled, false)
		}
		res.Device += cost
		costs = append(costs, cost)
		if e.sem.Closure && out == e.sem.Err {
			res.Err = &model.ErrInfo{Kind: model.ErrThrown, Detail: fmt.Sprintf("%s answers err in the model", name)}
			d.lateAt = -1 // after an err nothing is late
			break
		}
	}
	if d.lateAt >= 0 {
		d.advance(d.now + e.timing.Settle)
	} else {
		res.Device -= e.timing.Settle
	}
	res.Timing = append(res.Timing, d.late...)
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

// device is one query's instance and harness buffer on the virtual clock,
// which starts when the reset is done.
type device struct {
	e   *Executor
	q   int           // the instance's state
	now time.Duration // when the symbol being run starts
	// pending is the output a wait from q gives when it is a callback
	// (or an error callback's err), due at due; -1 when a wait is quiet.
	pending int
	due     time.Duration
	// buffer holds the callbacks that came, oldest first; those from head
	// on are not delivered yet.
	buffer []int
	head   int
	limit  int // how many undelivered callbacks may be buffered
	// lateAt is the wait whose quiet answer opened the harness's late
	// window (until the next callin), or -1; it started at lateStart.
	lateAt    int
	lateStart time.Duration
	late      []query.Timing
	// hash is of the inputs so far, draws the number of latencies drawn:
	// with the seed, they make each draw.
	hash  uint64
	draws uint64
	// timeouts are the query's own wait timeouts by place, when it has
	// them (SetWaitTimeouts).
	timeouts []time.Duration
}

// schedule sets q's callback, if any, due its latency after at.
func (d *device) schedule(at time.Duration) {
	sem, m := d.e.sem, d.e.model.Machine
	d.pending = -1
	if !sem.Closure {
		return
	}
	if out := m.Out[d.q][sem.Wait]; out != sem.Quiet {
		d.pending, d.due = out, at+d.latency(out)
	}
}

// advance lets the callbacks due before t come, in order. One due at t
// itself comes after whatever runs at t: a callin, or a wait, which then
// gets it (a chain of callbacks with no latency between them so comes one
// wait at a time, as the closure's model has it). A callback that repeats
// with no latency would come without end: once more have come than the
// query has symbols to deliver them, no more come.
func (d *device) advance(t time.Duration) {
	for d.pending >= 0 && d.due < t && len(d.buffer)-d.head <= d.limit {
		d.come()
	}
}

// come lets the callback due come now.
func (d *device) come() {
	m := d.e.model.Machine
	out := d.pending
	d.buffer = append(d.buffer, out)
	if d.lateAt >= 0 {
		d.late = append(d.late, query.Timing{Kind: "late", At: d.lateAt, Callback: m.Outputs.Name(out), After: d.due - d.lateStart})
	}
	d.q = m.Next[d.q][d.e.sem.Wait]
	d.schedule(d.due)
}

// callin runs input in at once; a callback still due keeps its time when
// the state the callin leads to has the same one due.
func (d *device) callin(in int) int {
	m := d.e.model.Machine
	d.advance(d.now)
	d.lateAt = -1
	out := m.Out[d.q][in]
	pending, due := d.pending, d.due
	d.q = m.Next[d.q][in]
	if d.e.sem.Closure && m.Out[d.q][d.e.sem.Wait] == pending && pending >= 0 {
		d.pending, d.due = pending, due
	} else {
		d.schedule(d.now)
	}
	return out
}

// wait answers the oldest callback come and not yet delivered, or waits
// up to the quiescence timeout for the one due.
func (d *device) wait(k int) (out int, cost time.Duration) {
	quiescence := d.timeout(k)
	d.advance(d.now)
	if d.head == len(d.buffer) && d.pending >= 0 && d.due-d.now <= quiescence {
		cost = d.due - d.now
		d.now = d.due
		d.come()
	}
	if d.head == len(d.buffer) {
		d.lateAt, d.lateStart = k, d.now
		d.now += quiescence
		if d.pending < 0 {
			// A quiet state may still settle by itself (a model's quiet
			// wait may change state); one whose callback is late waits
			// for it.
			d.q = d.e.model.Machine.Next[d.q][d.e.sem.Wait]
			d.schedule(d.now)
		}
		return d.e.sem.Quiet, quiescence
	}
	out = d.buffer[d.head]
	d.head++
	return out, cost
}

// timeout is the wait at place k's quiescence timeout.
func (d *device) timeout(k int) time.Duration {
	if k < len(d.timeouts) && d.timeouts[k] > 0 {
		return d.timeouts[k]
	}
	return d.e.quiescence
}

// latency is a callback's latency: fixed, or drawn from its range.
func (d *device) latency(out int) time.Duration {
	t := d.e.timing
	name := d.e.model.Machine.Outputs.Name(out)
	least, ok := t.Latency[name]
	most, ranged := t.LatencyMax[name]
	if !ok {
		least = t.DefaultLatency
	}
	if !ranged && !ok {
		most = t.DefaultLatencyMax
	}
	if most <= least {
		return least
	}
	d.draws++
	x := mix(t.Seed ^ mix(d.hash^mix(d.draws)))
	steps := uint64((most - least) / time.Millisecond)
	return least + time.Duration(x%(steps+1))*time.Millisecond
}

// mix is SplitMix64's finaliser: a cheap hash with every bit mixed.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
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
