package mealy

import "math"

// Forcing says which inputs drag a wait along: a purpose's
// followed_by_wait callins, after which the restrictions allow nothing but
// a wait. That wait is part of its callin's step, not a choice, so a
// distinguisher bound does not count it: a word's free length is its
// length without the waits forced by the input just before them. The zero
// value forces nothing, and free length is then plain length.
type Forcing struct {
	// Wait is the wait input's index.
	Wait int
	// Forces, by input index, marks the inputs a wait must follow.
	Forces []bool
}

// None says whether no input forces a wait.
func (f Forcing) None() bool {
	for _, b := range f.Forces {
		if b {
			return false
		}
	}
	return true
}

// Forced says whether a wait must follow input in. A wait never forces
// another: the one it follows would never end.
func (f Forcing) Forced(in int) bool {
	return in >= 0 && in < len(f.Forces) && in != f.Wait && f.Forces[in]
}

// FreeLength is the number of symbols of w that are not waits forced by
// the symbol before them. after is the input just before w (-1 for none):
// a wait at the start of w is forced when after forces one.
func (f Forcing) FreeLength(after int, w Word) int {
	n := 0
	prev := after
	for _, in := range w {
		if !(in == f.Wait && f.Forced(prev)) {
			n++
		}
		prev = in
	}
	return n
}

// NeededFreeBound is the distinguisher bound m needs when a word's length
// is its free length under f: the smallest B such that the oracle, which
// continues a word that ends in a forcing input with its wait, tells every
// two inequivalent states apart by a suffix of free length at most B.
//
// Where a state stands matters: after a forcing input the suffix starts
// with the forced wait, which costs nothing but leaves no choice. So each
// state is taken in every context it is reached in (right after a forcing
// input or not) and compared with every other reachable state from there.
// A pair no allowed suffix tells apart in some context (the other state
// differs only on a word the restrictions exclude) does not count. With a
// Forcing that forces nothing this is NeededBound.
func (m *Machine) NeededFreeBound(f Forcing) int {
	n, k := m.NumStates(), m.Inputs.Size()
	// dist[d][p*n+q] is the free length of a shortest word telling p and q
	// apart when a wait is due (d=1) or not (d=0); MaxInt when none does.
	const inf = math.MaxInt
	var dist [2][]int
	for d := range dist {
		dist[d] = make([]int, n*n)
		for j := range dist[d] {
			dist[d][j] = inf
		}
	}
	allowed := func(d, in int) bool { return d == 0 || in == f.Wait }
	cost := func(d int) int { return 1 - d } // the due wait is free
	due := func(d, in int) int {
		if d == 0 && f.Forced(in) {
			return 1
		}
		return 0
	}
	// Relax until nothing shortens. Every cycle of the pair graph costs at
	// least 1 (a due wait leads to a state where nothing is due), so this
	// stops after about twice the longest distance in passes.
	for changed := true; changed; {
		changed = false
		for d := 0; d < 2; d++ {
			for p := 0; p < n; p++ {
				for q := 0; q < n; q++ {
					if p == q {
						continue
					}
					best := dist[d][p*n+q]
					for in := 0; in < k; in++ {
						if !allowed(d, in) {
							continue
						}
						c := cost(d)
						if m.Out[p][in] == m.Out[q][in] {
							tail := dist[due(d, in)][m.Next[p][in]*n+m.Next[q][in]]
							if tail == inf {
								continue
							}
							c += tail
						}
						if c < best {
							best = c
						}
					}
					if best < dist[d][p*n+q] {
						dist[d][p*n+q] = best
						changed = true
					}
				}
			}
		}
	}
	// The contexts each state is reached in, from the initial state with
	// nothing due, following only what the restrictions let through after
	// a forcing input (its wait).
	reachable := m.Reachable()
	var seen [2][]bool
	seen[0], seen[1] = make([]bool, n), make([]bool, n)
	type node struct{ q, d int }
	queue := []node{{m.Initial, 0}}
	seen[0][m.Initial] = true
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		for in := 0; in < k; in++ {
			if !allowed(x.d, in) {
				continue
			}
			y := node{m.Next[x.q][in], due(x.d, in)}
			if !seen[y.d][y.q] {
				seen[y.d][y.q] = true
				queue = append(queue, y)
			}
		}
	}
	needed := 0
	for d := 0; d < 2; d++ {
		for p := 0; p < n; p++ {
			if !seen[d][p] {
				continue
			}
			for q := 0; q < n; q++ {
				if q != p && reachable[q] && dist[d][p*n+q] != inf && dist[d][p*n+q] > needed {
					needed = dist[d][p*n+q]
				}
			}
		}
	}
	return needed
}
