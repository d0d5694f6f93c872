package dispatch

import (
	"sync"
	"time"

	"github.com/droidstar/droidstar/internal/mealy"
)

// costModel predicts a query's device time from its predicted outputs:
// the mean time each step took so far, keyed by the output before it, its
// input and its output (a wait that stays quiet costs the quiescence
// timeout, but nothing right after a quiet, where the harness answers at
// once; a wait that delivers a callback costs its latency), plus the mean
// time a query took beyond its steps (the reset). It learns from every
// answer whose executor measured its steps; until then it predicts
// nothing, and the batch keeps its order.
type costModel struct {
	mu     sync.Mutex
	step   map[stepKey]*mean
	coarse map[stepKey]*mean // prev left out, for a step not seen in that context
	reset  mean
}

// stepKey packs a step's previous output, input and output in one word:
// the model learns from every step of every answer, and a map keyed by
// an integer hashes several times faster than one keyed by a struct.
type stepKey uint64

func keyOf(prev, in, out int) stepKey {
	return stepKey(uint64(prev+1)<<42 | uint64(in)<<21 | uint64(out))
}

type mean struct {
	sum float64
	n   int
}

func (m *mean) add(x float64) { m.sum, m.n = m.sum+x, m.n+1 }

func (m *mean) value() (float64, bool) {
	if m == nil || m.n == 0 {
		return 0, false
	}
	return m.sum / float64(m.n), true
}

// learn records what one query's steps took: steps[k] is input q[k]'s
// time, answered outs[k].
func (c *costModel) learn(sem mealy.Semantics, q, outs mealy.Word, steps []time.Duration, device time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.step == nil {
		c.step, c.coarse = map[stepKey]*mean{}, map[stepKey]*mean{}
	}
	n := min(len(q), len(outs), len(steps))
	rest := device
	prev := -1
	for k := range n {
		at(c.step, keyOf(prev, q[k], outs[k])).add(steps[k].Seconds())
		at(c.coarse, keyOf(-1, q[k], outs[k])).add(steps[k].Seconds())
		rest -= steps[k]
		prev = outs[k]
		if sem.Closure && outs[k] == sem.Err {
			break
		}
	}
	c.reset.add(max(rest, 0).Seconds())
}

// predict is q's predicted device time in seconds when it answers outs.
func (c *costModel) predict(sem mealy.Semantics, q, outs mealy.Word) float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	total, _ := c.reset.value()
	prev := -1
	for k := range min(len(q), len(outs)) {
		if v, ok := c.step[keyOf(prev, q[k], outs[k])].value(); ok {
			total += v
		} else if v, ok := c.coarse[keyOf(-1, q[k], outs[k])].value(); ok {
			total += v
		}
		prev = outs[k]
		if sem.Closure && outs[k] == sem.Err {
			break
		}
	}
	return total
}

func at(m map[stepKey]*mean, k stepKey) *mean {
	v := m[k]
	if v == nil {
		v = &mean{}
		m[k] = v
	}
	return v
}
