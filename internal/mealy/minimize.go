package mealy

import (
	"fmt"
	"strconv"
	"strings"
)

// Partition computes the coarsest partition of the reachable states into
// blocks of equivalent states and returns the block of every state (-1 for
// unreachable states) and the number of blocks. Two states share a block
// exactly when no input word tells them apart. Blocks are numbered in the
// order of their lowest state.
//
// It is Hopcroft's refinement (O(k·n·log n) for n states and k inputs),
// not Moore's: Moore's needs as many rounds as the longest shortest
// distinguishing word, which a chain of n states makes n, and so O(k·n²)
// time (a 20,000-state chain took minutes to diff).
func (m *Machine) Partition() (block []int, blocks int) {
	reachable := m.Reachable()
	n, k := m.NumStates(), m.Inputs.Size()
	p := newRefinable(n)
	// The first partition: states with equal output rows share a block.
	sig := make(map[string]int)
	first := make([]int, n)
	var order []int
	for q := 0; q < n; q++ {
		if !reachable[q] {
			continue
		}
		key := intsKey(m.Out[q])
		b, ok := sig[key]
		if !ok {
			b = len(sig)
			sig[key] = b
		}
		first[q] = b
		order = append(order, q)
	}
	p.init(order, first, len(sig))
	// pre[i] lists, for every state t, the reachable states that input i
	// takes to t (CSR: pre[i].from[pre[i].at[t]:pre[i].at[t+1]]).
	type inverse struct{ at, from []int }
	pre := make([]inverse, k)
	for i := range pre {
		at := make([]int, n+1)
		for _, q := range order {
			at[m.Next[q][i]+1]++
		}
		for t := 0; t < n; t++ {
			at[t+1] += at[t]
		}
		from := make([]int, len(order))
		fill := append([]int(nil), at[:n]...)
		for _, q := range order {
			t := m.Next[q][i]
			from[fill[t]] = q
			fill[t]++
		}
		pre[i] = inverse{at, from}
	}
	// Every (block, input) is a splitter at first; a split then adds the
	// smaller half for each input, or both when the block was still due.
	type splitter struct{ b, i int }
	var work []splitter
	due := make([]bool, 0, n*k)
	for b := 0; b < p.blocks(); b++ {
		for i := 0; i < k; i++ {
			work = append(work, splitter{b, i})
			due = append(due, true)
		}
	}
	var touched, splitters []int
	for len(work) > 0 {
		sp := work[len(work)-1]
		work = work[:len(work)-1]
		due[sp.b*k+sp.i] = false
		touched = touched[:0]
		inv := pre[sp.i]
		// A copy: marking moves states within blocks, sp.b's too.
		splitters = append(splitters[:0], p.members(sp.b)...)
		for _, t := range splitters {
			for _, q := range inv.from[inv.at[t]:inv.at[t+1]] {
				if b := p.mark(q); b >= 0 {
					touched = append(touched, b)
				}
			}
		}
		for _, b := range touched {
			nb, ok := p.split(b)
			if !ok {
				continue
			}
			for i := 0; i < k; i++ {
				due = append(due, false)
			}
			for i := 0; i < k; i++ {
				switch {
				case due[b*k+i]:
					work, due[nb*k+i] = append(work, splitter{nb, i}), true
				case p.size(nb) <= p.size(b):
					work, due[nb*k+i] = append(work, splitter{nb, i}), true
				default:
					work, due[b*k+i] = append(work, splitter{b, i}), true
				}
			}
		}
	}
	// Number the blocks by their lowest state, as Moore's refinement did.
	block = make([]int, n)
	number := make([]int, p.blocks())
	for b := range number {
		number[b] = -1
	}
	for q := 0; q < n; q++ {
		if !reachable[q] {
			block[q] = -1
			continue
		}
		b := p.blockOf[q]
		if number[b] < 0 {
			number[b] = blocks
			blocks++
		}
		block[q] = number[b]
	}
	return block, blocks
}

// refinable is a partition of states kept as contiguous segments of one
// array, so that marking a state and splitting its block off the marked
// part take constant time per state.
type refinable struct {
	elems      []int // states, block by block
	loc        []int // loc[q] is q's index in elems
	blockOf    []int
	start, end []int // block b is elems[start[b]:end[b]]
	marked     []int // the first marked[b] states of block b are marked
}

func newRefinable(n int) *refinable {
	return &refinable{loc: make([]int, n), blockOf: make([]int, n)}
}

// init lays states out by their first block (blocks numbered 0..count-1).
func (p *refinable) init(states, first []int, count int) {
	size := make([]int, count+1)
	for _, q := range states {
		size[first[q]+1]++
	}
	for b := 0; b < count; b++ {
		size[b+1] += size[b]
	}
	p.start = append([]int(nil), size[:count]...)
	p.end = append([]int(nil), size[1:]...)
	p.marked = make([]int, count)
	p.elems = make([]int, len(states))
	fill := append([]int(nil), size[:count]...)
	for _, q := range states {
		b := first[q]
		p.elems[fill[b]], p.loc[q], p.blockOf[q] = q, fill[b], b
		fill[b]++
	}
}

func (p *refinable) blocks() int         { return len(p.start) }
func (p *refinable) size(b int) int      { return p.end[b] - p.start[b] }
func (p *refinable) members(b int) []int { return p.elems[p.start[b]:p.end[b]] }

// mark moves q into its block's marked part; it returns the block when q
// is the first state marked there (so each block is listed once), else -1.
func (p *refinable) mark(q int) int {
	b := p.blockOf[q]
	at := p.start[b] + p.marked[b]
	if p.loc[q] < at {
		return -1 // already marked
	}
	other := p.elems[at]
	p.elems[at], p.elems[p.loc[q]] = q, other
	p.loc[other], p.loc[q] = p.loc[q], at
	p.marked[b]++
	if p.marked[b] == 1 {
		return b
	}
	return -1
}

// split makes b's marked part a new block, unless every state of b is
// marked; either way it clears the marks.
func (p *refinable) split(b int) (nb int, ok bool) {
	m := p.marked[b]
	p.marked[b] = 0
	if m == p.size(b) {
		return 0, false
	}
	nb = len(p.start)
	p.start = append(p.start, p.start[b])
	p.end = append(p.end, p.start[b]+m)
	p.marked = append(p.marked, 0)
	p.start[b] += m
	for _, q := range p.elems[p.start[nb]:p.end[nb]] {
		p.blockOf[q] = nb
	}
	return nb, true
}

// Minimize returns the minimal machine equivalent to m, in canonical state
// order (see Canonical).
func (m *Machine) Minimize() *Machine {
	block, blocks := m.Partition()
	q0 := NewMachine(m.Inputs, m.Outputs, blocks)
	done := make([]bool, blocks)
	for q := 0; q < m.NumStates(); q++ {
		b := block[q]
		if b < 0 || done[b] {
			continue
		}
		done[b] = true
		for i := 0; i < m.Inputs.Size(); i++ {
			q0.SetTransition(b, i, m.Out[q][i], block[m.Next[q][i]])
		}
	}
	q0.Initial = block[m.Initial]
	c, _ := q0.Canonical()
	return c
}

// IsMinimal reports whether every state is reachable and no two are equivalent.
func (m *Machine) IsMinimal() bool {
	_, blocks := m.Partition()
	return blocks == m.NumStates()
}

func intsKey(xs []int) string {
	var b strings.Builder
	for _, x := range xs {
		b.WriteString(strconv.Itoa(x))
		b.WriteByte(',')
	}
	return b.String()
}

// Counterexample returns a shortest input word on which m and other produce
// different outputs, or ok=false when they are equivalent. The two machines
// must have inputs with the same names (in any order); outputs are compared
// by name, so the output alphabets may differ.
func (m *Machine) Counterexample(other *Machine) (w Word, ok bool, err error) {
	inMap, err := inputMapping(m.Inputs, other.Inputs)
	if err != nil {
		return nil, false, err
	}
	type pair struct{ a, b int }
	return ShortestDifference(pair{m.Initial, other.Initial}, m.Inputs.Size(), func(p pair, i int) (pair, bool, error) {
		j := inMap[i]
		if m.Outputs.Name(m.Out[p.a][i]) != other.Outputs.Name(other.Out[p.b][j]) {
			return p, true, nil
		}
		return pair{m.Next[p.a][i], other.Next[p.b][j]}, false, nil
	})
}

// Equivalent reports whether m and other produce the same outputs on every word.
func (m *Machine) Equivalent(other *Machine) (bool, error) {
	_, differ, err := m.Counterexample(other)
	return !differ && err == nil, err
}

// inputMapping maps each input of a to the index of the same name in b.
func inputMapping(a, b *Alphabet) ([]int, error) {
	if a.Size() != b.Size() {
		return nil, fmt.Errorf("input alphabets differ: [%s] vs [%s]",
			strings.Join(a.Names(), " "), strings.Join(b.Names(), " "))
	}
	mp := make([]int, a.Size())
	for i := 0; i < a.Size(); i++ {
		j, ok := b.Index(a.Name(i))
		if !ok {
			return nil, fmt.Errorf("input alphabets differ: %q only in the first", a.Name(i))
		}
		mp[i] = j
	}
	return mp, nil
}
