package diff

import (
	"github.com/droidstar/droidstar/internal/mealy"
)

// agreementDepth is how deep the state matching compares two states: the
// words of length 1..agreementDepth they answer alike.
const agreementDepth = 3

// structure is the structural view: the best state matching and the
// transitions under it.
type structure struct {
	toNew, toOld map[int]int // matched states (the error sinks included)
	matching     StateMatching
	transitions  TransitionDiff
	// shared, removed and added are the edges as drawn in the overlay
	// (a changed edge is drawn removed and added).
	shared         [][2]edge // old edge, new edge
	removed, added []edge
}

// matchStates pairs the typestate states of the two models so that the
// pairs agree as much as possible: the weight of a pair is how many words
// of length 1..agreementDepth (over the shared inputs, read as the
// behaviour comparison reads them) the two states answer alike, each length
// weighing the same; ties are broken by the shortest access traces (the
// old state's access trace leads to the new state in the new model, and
// vice versa). A heaviest matching is computed as an assignment problem
// (maxWeightMatching); pairs that agree on no word are never matched.
func matchStates(o, n *side, b *behaviour) (toNew map[int]int, err error) {
	agree := b.agreement(agreementDepth)
	scale := int64(2*min(len(o.states), len(n.states)) + 1) // lexicographic: agreement first
	weight := make([][]int64, len(o.states))
	oldAfter := make([]int, len(n.states)) // old state after each new state's access trace
	for c, q := range n.states {
		oldAfter[c] = after(o, n.m.Inputs.Strings(n.access[q]))
	}
	for r, p := range o.states {
		weight[r] = make([]int64, len(n.states))
		newAfter := after(n, o.m.Inputs.Strings(o.access[p]))
		for c, q := range n.states {
			if agree[p][q] == 0 {
				continue
			}
			w := int64(agree[p][q]) * scale
			if newAfter == q {
				w++
			}
			if oldAfter[c] == p {
				w++
			}
			weight[r][c] = w
		}
	}
	m, err := maxWeightMatching(weight)
	if err != nil {
		return nil, err
	}
	toNew = map[int]int{}
	for r, c := range m {
		if c >= 0 {
			toNew[o.states[r]] = n.states[c]
		}
	}
	if o.sink >= 0 && n.sink >= 0 {
		toNew[o.sink] = n.sink
	}
	return toNew, nil
}

// after runs a trace of input names on s's machine and returns the state
// reached, or -1 when an input is not in s's alphabet or answers err.
func after(s *side, trace []string) int {
	q := s.m.Initial
	errOut, hasErr := s.m.Outputs.Index(mealy.Err)
	for _, in := range trace {
		i, ok := s.m.Inputs.Index(in)
		if !ok || (hasErr && s.closure() && s.m.Out[q][i] == errOut) {
			return -1
		}
		q = s.m.Next[q][i]
	}
	return q
}

// compareStructure lists the transitions removed, added and changed under
// the matching toNew.
func compareStructure(o, n *side, toNew map[int]int) *structure {
	st := &structure{toNew: toNew, toOld: map[int]int{}}
	for p, q := range toNew {
		st.toOld[q] = p
	}
	st.matching = StateMatching{Pairs: []StatePair{}, OnlyOld: []string{}, OnlyNew: []string{}}
	for _, p := range o.states {
		if q, ok := toNew[p]; ok {
			st.matching.Pairs = append(st.matching.Pairs, StatePair{Old: o.ids[p], New: n.ids[q]})
		} else {
			st.matching.OnlyOld = append(st.matching.OnlyOld, o.ids[p])
		}
	}
	for _, q := range n.states {
		if _, ok := st.toOld[q]; !ok {
			st.matching.OnlyNew = append(st.matching.OnlyNew, n.ids[q])
		}
	}
	td := TransitionDiff{Removed: []Change{}, Added: []Change{}, Changed: []Change{}}
	oldEdges, newEdges := edgeIndex(o), edgeIndex(n)
	names := o.m.Inputs.Names()
	for _, name := range n.m.Inputs.Names() {
		if _, ok := o.m.Inputs.Index(name); !ok {
			names = append(names, name)
		}
	}
	edgeAt := func(s *side, index map[[2]int]edge, q int, name string) (edge, bool) {
		i, ok := s.m.Inputs.Index(name)
		if !ok || q < 0 {
			return edge{}, false
		}
		e, ok := index[[2]int{q, i}]
		return e, ok
	}
	answer := func(s *side, q int, name string) *Transition {
		if q < 0 {
			return nil
		}
		a, ok := s.answer(q, name)
		if !ok {
			return nil
		}
		return &a
	}
	for _, p := range o.states {
		q, matched := toNew[p]
		if !matched {
			q = -1
		}
		for _, name := range names {
			oe, hasOld := edgeAt(o, oldEdges, p, name)
			ne, hasNew := edgeAt(n, newEdges, q, name)
			switch {
			case !hasOld:
				// an added edge, listed in new-state order below
			case !hasNew:
				td.Removed = append(td.Removed, Change{Input: name, Old: answer(o, p, name), New: answer(n, q, name)})
				st.removed = append(st.removed, oe)
			case o.m.Outputs.Name(oe.output) == n.m.Outputs.Name(ne.output) && mapped(toNew, oe.to) == ne.to:
				td.Unchanged++
				st.shared = append(st.shared, [2]edge{oe, ne})
			default:
				td.Changed = append(td.Changed, Change{Input: name, Old: answer(o, p, name), New: answer(n, q, name)})
				st.removed = append(st.removed, oe)
				st.added = append(st.added, ne)
			}
		}
	}
	for _, q := range n.states {
		p, matched := st.toOld[q]
		if !matched {
			p = -1
		}
		for _, name := range names {
			ne, hasNew := edgeAt(n, newEdges, q, name)
			if _, hasOld := edgeAt(o, oldEdges, p, name); hasNew && !hasOld {
				td.Added = append(td.Added, Change{Input: name, Old: answer(o, p, name), New: answer(n, q, name)})
				st.added = append(st.added, ne)
			}
		}
	}
	st.transitions = td
	return st
}

func mapped(m map[int]int, q int) int {
	if v, ok := m[q]; ok {
		return v
	}
	return -1
}

// edgeIndex indexes a side's edges by source state and input.
func edgeIndex(s *side) map[[2]int]edge {
	idx := make(map[[2]int]edge, len(s.edges))
	for _, e := range s.edges {
		idx[[2]int{e.from, e.input}] = e
	}
	return idx
}
