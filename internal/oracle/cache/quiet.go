package cache

import (
	"context"
	"time"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/oracle"
)

// A calibrated run (--timeout auto) raises its quiescence timeouts, one
// per wait context, as it learns how slow the target's callbacks are. A
// quiet answer means only that no callback came within the timeout its
// wait ran under, so one answered under a shorter timeout than its wait's
// current one is stale: the cache never answers from it. Every quiet edge
// remembers the longest timeout it was answered under; the edges answered
// under less than their wait's current timeout are dropped (with
// everything below them) when a timeout rises, an answer arriving with
// such a quiet is kept only up to it, and DropStale drops what is left
// before a model is declared final. What was dropped is asked again,
// under the current timeouts.

// quietUnder is how long the k-th wait of a's query waited before it
// answered quiet: its own timeout, else the timeout the query ran under,
// else (an answer from the query store) its step time; 0 when unknown.
func quietUnder(a oracle.Answer, k int) time.Duration {
	if k < len(a.Waits) && a.Waits[k] > 0 {
		return a.Waits[k]
	}
	if a.Quiescence > 0 {
		return a.Quiescence
	}
	if k < len(a.Steps) {
		return a.Steps[k]
	}
	return 0
}

// LookupFresh is Lookup for a calibrated cache: it first drops what the
// current timeouts made stale, and the answer's step times say how long
// each quiet it kept waited (the other steps take 0).
func (c *Cache) LookupFresh(w mealy.Word) (oracle.Answer, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dropStale()
	a, ok := c.lookup(w, nil)
	if !ok {
		return a, false
	}
	a.Steps = make([]time.Duration, len(w))
	n := c.root
	for k, in := range w {
		if _, forced := c.Sem.Forced(int(n.out), in); forced {
			continue
		}
		n = n.children[in]
		a.Steps[k] = c.quiet[n]
	}
	return a, true
}

// QuietFor is how long the wait that ends w waited before it answered
// quiet, the longest of its answers; 0 when w is not in the tree, does
// not end in a quiet edge, or the cache is not calibrated.
func (c *Cache) QuietFor(w mealy.Word) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.root
	for _, in := range w {
		if _, forced := c.Sem.Forced(int(n.out), in); forced {
			return 0
		}
		if n.children == nil || n.children[in] == nil {
			return 0
		}
		n = n.children[in]
	}
	return c.quiet[n]
}

// calibrated says whether the cache checks quiet answers against
// calibrated timeouts.
func (c *Cache) calibrated() bool {
	return c.Quiet != nil && c.Sem.Closure
}

// Stale is how many quiet answers the cache has refused or dropped
// because they were answered under a shorter timeout than the current one.
func (c *Cache) Stale() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stale
}

// DropStale drops the quiet answers answered under a shorter timeout than
// their wait's current one, and says whether there were any: learning must then
// start again, as its table may rest on them. It has the signature of
// engine.Job.Verify, which runs it before a model is declared final.
func (c *Cache) DropStale(context.Context, oracle.Observations) (revised bool, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dropStale()
	revised = c.replaced
	c.replaced = false
	return revised, nil
}

// dropStale drops, once a timeout has risen since the last time, every
// quiet edge answered under less than its wait's timeout, and returns how
// many. The caller holds c.mu.
func (c *Cache) dropStale() int {
	if !c.calibrated() {
		return 0
	}
	raises := c.Quiet.Raises()
	if raises == c.checkedAt {
		return 0
	}
	c.checkedAt = raises
	dropped := 0
	// The tree leaves out forced steps, so word is the path's edges, not
	// its whole word; but a wait's timeout depends only on what came since
	// the callin before it, and a wait the rules do not answer follows a
	// callin or a wait that a callback answered, which the tree holds.
	var word mealy.Word
	var walk func(n *node)
	walk = func(n *node) {
		for in, ch := range n.children {
			if ch == nil {
				continue
			}
			word = append(word, in)
			if int(ch.out) == c.Sem.Quiet && c.quiet[ch] < c.Quiet.Needed(word) {
				c.cut(n, in)
				dropped++
			} else {
				walk(ch)
			}
			word = word[:len(word)-1]
		}
	}
	walk(c.root)
	c.stale += dropped
	c.replaced = c.replaced || dropped > 0
	return dropped
}

// cut removes n's edge for input in and everything below it.
func (c *Cache) cut(n *node, in int) {
	ch := n.children[in]
	c.nodes -= size(ch)
	n.children[in] = nil
	if len(c.quiet) == 0 {
		return
	}
	var forget func(n *node)
	forget = func(n *node) {
		delete(c.quiet, n)
		for _, ch := range n.children {
			if ch != nil {
				forget(ch)
			}
		}
	}
	forget(ch)
}
