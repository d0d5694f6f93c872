package mealy

// Distinguishers holds, for every pair of reachable states, a shortest input
// word on which they produce different outputs.
type Distinguishers struct {
	n     int
	words [][]Word // words[p][q] for p<q; nil when p and q are equivalent
}

// Distinguishers computes shortest distinguishing words for every pair of
// reachable states: a pair is told apart at length 1 when some input gives
// different outputs, and at length k+1 when some input leads to a pair told
// apart at length k (the first such input in alphabet order is chosen, so
// results are deterministic).
func (m *Machine) Distinguishers() *Distinguishers {
	n := m.NumStates()
	reachable := m.Reachable()
	d := &Distinguishers{n: n, words: make([][]Word, n)}
	for p := range d.words {
		d.words[p] = make([]Word, n)
	}
	type pair struct{ p, q int }
	var open []pair
	for p := 0; p < n; p++ {
		for q := p + 1; q < n; q++ {
			if !reachable[p] || !reachable[q] {
				continue
			}
			found := false
			for i := 0; i < m.Inputs.Size(); i++ {
				if m.Out[p][i] != m.Out[q][i] {
					d.words[p][q] = Word{i}
					found = true
					break
				}
			}
			if !found {
				open = append(open, pair{p, q})
			}
		}
	}
	for len(open) > 0 {
		var still []pair
		var settled []pair
		var settledWords []Word
		for _, pq := range open {
			var w Word
			for i := 0; i < m.Inputs.Size(); i++ {
				if tail := d.Word(m.Next[pq.p][i], m.Next[pq.q][i]); tail != nil {
					w = Word{i}.Concat(tail...)
					break
				}
			}
			if w == nil {
				still = append(still, pq)
				continue
			}
			settled = append(settled, pq)
			settledWords = append(settledWords, w)
		}
		if len(settled) == 0 {
			break // the remaining pairs are equivalent
		}
		// Record a level only after the whole level is computed, so every
		// word found in this pass has the same (shortest) length.
		for k, pq := range settled {
			d.words[pq.p][pq.q] = settledWords[k]
		}
		open = still
	}
	return d
}

// Word returns a shortest word distinguishing p and q, or nil when they are
// the same state or equivalent.
func (d *Distinguishers) Word(p, q int) Word {
	if p == q {
		return nil
	}
	if p > q {
		p, q = q, p
	}
	return d.words[p][q]
}

// MaxLength is the longest of the shortest distinguishing words over all
// pairs of distinct, inequivalent reachable states: the distinguisher bound
// the machine needs. It is 0 for a machine with one state.
func (d *Distinguishers) MaxLength() int {
	max := 0
	for p := 0; p < d.n; p++ {
		for q := p + 1; q < d.n; q++ {
			if w := d.words[p][q]; len(w) > max {
				max = len(w)
			}
		}
	}
	return max
}

// NeededBound is the distinguisher bound of the minimal machine equivalent
// to m: the smallest B such that any two inequivalent states differ on some
// word of length at most B.
func (m *Machine) NeededBound() int {
	return m.Distinguishers().MaxLength()
}
