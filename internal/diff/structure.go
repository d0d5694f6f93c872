package diff

import (
	"cmp"
	"slices"

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

// exactMatchPairs is the largest number of state pairs (old typestate
// states × new ones) for which the matching is a heaviest one: its weights
// alone take memory quadratic in the states, and the assignment problem
// more than cubic time. Larger models are matched greedily (see
// greedyMatching), in memory linear in the states.
const exactMatchPairs = 100 * 100

// matchStates pairs the typestate states of the two models so that the
// pairs agree as much as possible: the weight of a pair is how many words
// of length 1..agreementDepth (over the shared inputs, read as the
// behaviour comparison reads them) the two states answer alike, each length
// weighing the same; ties are broken by the shortest access traces (the
// old state's access trace leads to the new state in the new model, and
// vice versa). Up to exactMatchPairs pairs, a heaviest matching is computed
// as an assignment problem (maxWeightMatching); beyond, a greedy one.
// Pairs that agree on no word are never matched.
func matchStates(o, n *side, b *behaviour) (toNew map[int]int, err error) {
	scale := int64(2*min(len(o.states), len(n.states)) + 1) // lexicographic: agreement first
	// The old state each new state's access trace leads to, and back.
	oldAfter, newAfter := after(o, n), after(n, o)
	weigh := func(p, q, agree int) int64 {
		if agree == 0 {
			return 0
		}
		w := int64(agree) * scale
		if newAfter[p] == int32(q) {
			w++
		}
		if oldAfter[q] == int32(p) {
			w++
		}
		return w
	}
	var m []int
	if len(o.states)*len(n.states) <= exactMatchPairs {
		agree := b.agreement(agreementDepth)
		weight := make([][]int64, len(o.states))
		for r, p := range o.states {
			weight[r] = make([]int64, len(n.states))
			for c, q := range n.states {
				weight[r][c] = weigh(p, q, agree[p][q])
			}
		}
		if m, err = maxWeightMatching(weight); err != nil {
			return nil, err
		}
	} else {
		m = greedyMatching(o, n, b, oldAfter, newAfter, func(p, q int) int64 {
			return weigh(p, q, b.agreementOf(p, q, agreementDepth))
		})
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

// greedyMatching matches the typestate states of large models (rows are
// o.states, columns n.states, as maxWeightMatching's) without weighing
// every pair: it weighs a few candidate pairs per state, each state with
// the state its access trace leads to in the other model and, for states
// that answer every word of length 1..agreementDepth alike (the heaviest
// agreement), the k-th such old state with the k-th such new state; then
// takes them heaviest first (ties in the order of the old, then the new
// states) while both are free.
func greedyMatching(o, n *side, b *behaviour, oldAfter, newAfter []int32, weight func(p, q int) int64) []int {
	row := index(o.states, o.m.NumStates())
	col := index(n.states, n.m.NumStates())
	type cand struct {
		r, c int32
		w    int64
	}
	var cands []cand
	add := func(p, q int) {
		if p < 0 || q < 0 || row[p] < 0 || col[q] < 0 {
			return
		}
		if w := weight(p, q); w > 0 {
			cands = append(cands, cand{row[p], col[q], w})
		}
	}
	for _, p := range o.states {
		add(p, int(newAfter[p]))
	}
	for _, q := range n.states {
		add(int(oldAfter[q]), q)
	}
	oldBlock, newBlock := b.jointBlocks(agreementDepth)
	byBlock := map[int32][]int{}
	for _, p := range o.states {
		byBlock[oldBlock[p]] = append(byBlock[oldBlock[p]], p)
	}
	next := map[int32]int{}
	for _, q := range n.states {
		bl := newBlock[q]
		if k := next[bl]; k < len(byBlock[bl]) {
			add(byBlock[bl][k], q)
			next[bl] = k + 1
		}
	}
	slices.SortFunc(cands, func(x, y cand) int {
		return cmp.Or(cmp.Compare(y.w, x.w), cmp.Compare(x.r, y.r), cmp.Compare(x.c, y.c))
	})
	match := make([]int, len(o.states))
	for r := range match {
		match[r] = -1
	}
	taken := make([]bool, len(n.states))
	for _, x := range cands {
		if match[x.r] < 0 && !taken[x.c] {
			match[x.r], taken[x.c] = int(x.c), true
		}
	}
	return match
}

// index maps machine states to their position in states, -1 elsewhere.
func index(states []int, n int) []int32 {
	at := make([]int32, n)
	for q := range at {
		at[q] = -1
	}
	for k, q := range states {
		at[q] = int32(k)
	}
	return at
}

// after runs the access trace of every state of from's machine on s's
// machine, along from's breadth-first tree, and returns the state each
// reaches, or -1 when an input is not in s's alphabet or answers err (or
// the state is unreachable).
func after(s, from *side) []int32 {
	input := make([]int, from.m.Inputs.Size()) // from's input -> s's, -1 if none
	for i := range input {
		j, ok := s.m.Inputs.Index(from.m.Inputs.Name(i))
		if !ok {
			j = -1
		}
		input[i] = j
	}
	errOut, hasErr := s.m.Outputs.Index(mealy.Err)
	checkErr := hasErr && s.closure()
	at := make([]int32, from.m.NumStates())
	for q := range at {
		at[q] = -1
	}
	t := from.tree
	for k, q := range t.order {
		if k == 0 {
			at[q] = int32(s.m.Initial)
			continue
		}
		r, i := at[t.parent[q]], input[t.input[q]]
		if r < 0 || i < 0 || (checkErr && s.m.Out[r][i] == errOut) {
			continue
		}
		at[q] = int32(s.m.Next[r][i])
	}
	return at
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
	edgeAt := func(s *side, index []int32, q int, name string) (edge, bool) {
		i, ok := s.m.Inputs.Index(name)
		if !ok || q < 0 {
			return edge{}, false
		}
		if k := index[q*s.m.Inputs.Size()+i]; k >= 0 {
			return s.edges[k], true
		}
		return edge{}, false
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

// edgeIndex indexes a side's edges by source state and input: the edge
// from q on input i is s.edges[index[q*inputs+i]], none where that is -1.
func edgeIndex(s *side) []int32 {
	idx := make([]int32, s.m.NumStates()*s.m.Inputs.Size())
	for k := range idx {
		idx[k] = -1
	}
	for k, e := range s.edges {
		idx[e.from*s.m.Inputs.Size()+e.input] = int32(k)
	}
	return idx
}
