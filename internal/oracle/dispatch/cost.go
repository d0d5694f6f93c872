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
// time a query took beyond its steps (the reset), apart for the answers
// that end in a quiet chain, the only ones the harness spends its settle
// time after (mealy.Semantics.EndsQuiet). It learns from every
// answer whose executor measured its steps; until then it predicts
// nothing, and the batch keeps its order.
type costModel struct {
	mu     sync.Mutex
	step   map[stepKey]*mean
	coarse map[stepKey]*mean // prev left out, for a step not seen in that context
	// reset[1] is of the answers that end in a quiet chain, reset[0] of
	// the rest.
	reset [2]mean
}

// ending is the index in reset of the answers that end as outs does.
func ending(sem mealy.Semantics, q, outs mealy.Word) int {
	if sem.EndsQuiet(q, outs) {
		return 1
	}
	return 0
}

// resetOf is the mean reset of the answers of one ending, or of the other
// while none of it came yet.
func (c *costModel) resetOf(k int) (float64, bool) {
	if v, ok := c.reset[k].value(); ok {
		return v, true
	}
	return c.reset[1-k].value()
}

// stepKey packs a step's previous output, input and output in one word:
// the model learns from every step of every answer, and a map keyed by
// an integer hashes several times faster than one keyed by a struct.
type stepKey uint64

func keyOf(prev, in, out int) stepKey {
	return stepKey(uint64(prev+1)<<42 | uint64(in)<<21 | uint64(out))
}

// The key's parts.
func (k stepKey) input() int  { return int(uint64(k) >> 21 & (1<<21 - 1)) }
func (k stepKey) output() int { return int(uint64(k) & (1<<21 - 1)) }

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
		// A step the closure forces (a wait right after a quiet) costs
		// nothing: in the coarse mean it would halve a quiet wait's cost.
		if _, forced := sem.Forced(prev, q[k]); !forced {
			at(c.coarse, keyOf(-1, q[k], outs[k])).add(steps[k].Seconds())
		}
		rest -= steps[k]
		prev = outs[k]
		if sem.Closure && outs[k] == sem.Err {
			break
		}
	}
	c.reset[ending(sem, q, outs)].add(max(rest, 0).Seconds())
}

// predict is q's predicted device time in seconds when it answers outs.
func (c *costModel) predict(sem mealy.Semantics, q, outs mealy.Word) float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	reset, _ := c.resetOf(ending(sem, q, outs))
	return reset + c.steps(sem, q, outs)
}

// steps is what q's steps take, in seconds, when it answers outs.
func (c *costModel) steps(sem mealy.Semantics, q, outs mealy.Word) float64 {
	total := 0.0
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

// measured says whether any answer's steps were measured yet: before,
// every prediction is 0.
func (c *costModel) measured() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.measuredLocked()
}

func (c *costModel) measuredLocked() bool { return c.reset[0].n+c.reset[1].n > 0 }

// predictBlind is q's predicted device time in seconds with its outputs
// unknown: the longest it can take over the outputs each input answered
// so far, each step at its mean time for that output (a wait at the
// quiescence timeout once one stayed quiet), except the steps the
// closure's rules answer at once (a wait right after a quiet, anything
// after an err), so that a word predicted to fit in a lane's wait rarely
// runs past it. known is the outputs of a prefix of q known already, which
// take their mean times. ok is false while some input of q was never
// measured.
func (c *costModel) predictBlind(sem mealy.Semantics, q, known mealy.Word) (secs float64, ok bool) {
	known = known[:min(len(known), len(q))]
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.measuredLocked() {
		return 0, false
	}
	// the longer reset: how the query ends is not known
	r0, _ := c.resetOf(0)
	r1, _ := c.resetOf(1)
	start := max(r0, r1) + c.steps(sem, q[:len(known)], known)
	// worst[out] is the longest the steps so far take when the last one
	// answers out (-1: no step yet).
	last := -1
	if len(known) > 0 {
		last = known[len(known)-1]
	}
	worst := map[int]float64{last: start}
	for _, in := range q[len(known):] {
		next := map[int]float64{}
		keep := func(out int, t float64) {
			if had, ok := next[out]; !ok || t > had {
				next[out] = t
			}
		}
		for prev, before := range worst {
			if forced, ok := sem.Forced(prev, in); ok {
				keep(forced, before)
				continue
			}
			seen := false
			for k, m := range c.coarse {
				if v, ok := m.value(); ok && k.input() == in {
					keep(k.output(), before+v)
					seen = true
				}
			}
			if !seen {
				return 0, false
			}
		}
		worst = next
	}
	longest := 0.0
	for _, t := range worst {
		longest = max(longest, t)
	}
	return longest, true
}

func at(m map[stepKey]*mean, k stepKey) *mean {
	v := m[k]
	if v == nil {
		v = &mean{}
		m[k] = v
	}
	return v
}
