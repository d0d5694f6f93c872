package cache

import "slices"

// DefaultMaxNodes is the cap a run's cache gets (compose sets it): at about
// 100 bytes of the process's memory per node (the node, its share of the
// children arrays, and the garbage collector's headroom) the tree then
// stays under about 600 MB, and a whole run, batches included, under 1 GB.
const DefaultMaxNodes = 6_000_000

// Nodes is the number of edges the tree holds.
func (c *Cache) Nodes() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nodes
}

// evict drops, when the tree is past MaxNodes, the edges that only the
// equivalence phase went through, least recently used first, until the
// tree is down to three quarters of MaxNodes or nothing more may go. The
// latest batch's edges stay, so the answers just given stay too. The
// caller holds c.mu.
//
// The learning phase's edges (the observation table's words, the
// counterexamples' prefixes) and the final check's are kept, and so are
// the edges a vote settled. A dropped edge loses:
//   - its answer: asked again, it comes from the query store when an
//     earlier run stored it (the store's stage below the cache), and is run
//     on a device again otherwise;
//   - its vote state: the runs that agreed on it (read only for the table's
//     words, which are kept) and VerifyAll's mark (--verify-final all
//     re-runs the executed words still in the tree: the table's, and the
//     equivalence words not dropped); an answer run again is trusted like
//     a first answer until another contradicts it.
func (c *Cache) evict() {
	if c.MaxNodes <= 0 || c.nodes <= c.MaxNodes {
		return
	}
	// How many droppable edges each batch used last. An edge's stamp is
	// never older than its children's, and a droppable edge has only
	// droppable children, so dropping every edge stamped up to some
	// batch drops exactly those whole subtrees.
	count := map[uint32]int{}
	var tally func(n *node)
	tally = func(n *node) {
		for _, ch := range n.children {
			if ch == nil {
				continue
			}
			if !ch.keep && ch.used < c.tick {
				count[ch.used]++
			}
			tally(ch)
		}
	}
	tally(c.root)
	ticks := make([]uint32, 0, len(count))
	for t := range count {
		ticks = append(ticks, t)
	}
	slices.Sort(ticks)
	low := c.MaxNodes / 4 * 3
	drop, upTo := 0, uint32(0)
	for _, t := range ticks {
		if c.nodes-drop <= low {
			break
		}
		drop += count[t]
		upTo = t
	}
	if drop == 0 {
		return
	}
	var prune func(n *node)
	prune = func(n *node) {
		empty := true
		for in, ch := range n.children {
			if ch == nil {
				continue
			}
			if !ch.keep && ch.used <= upTo {
				c.cut(n, in)
				continue
			}
			empty = false
			prune(ch)
		}
		if empty {
			n.children = nil
		}
	}
	prune(c.root)
}

// size counts n and the edges below it.
func size(n *node) int {
	s := 1
	for _, ch := range n.children {
		if ch != nil {
			s += size(ch)
		}
	}
	return s
}
