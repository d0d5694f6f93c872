package mealy

import (
	"fmt"
	"strconv"
	"strings"
)

// Partition computes Moore's partition refinement over the reachable states
// and returns the block of every state (-1 for unreachable states) and the
// number of blocks. Two states share a block exactly when no input word
// tells them apart.
func (m *Machine) Partition() (block []int, blocks int) {
	reachable := m.Reachable()
	n := m.NumStates()
	block = make([]int, n)
	sig := make(map[string]int)
	// Level 1: states with equal output rows share a block.
	for q := 0; q < n; q++ {
		if !reachable[q] {
			block[q] = -1
			continue
		}
		key := intsKey(m.Out[q])
		b, ok := sig[key]
		if !ok {
			b = len(sig)
			sig[key] = b
		}
		block[q] = b
	}
	blocks = len(sig)
	for {
		next := make([]int, n)
		sig = make(map[string]int)
		row := make([]int, 1+m.Inputs.Size())
		for q := 0; q < n; q++ {
			if !reachable[q] {
				next[q] = -1
				continue
			}
			row[0] = block[q]
			for i := 0; i < m.Inputs.Size(); i++ {
				row[1+i] = block[m.Next[q][i]]
			}
			key := intsKey(row)
			b, ok := sig[key]
			if !ok {
				b = len(sig)
				sig[key] = b
			}
			next[q] = b
		}
		block = next
		if len(sig) == blocks {
			return block, blocks
		}
		blocks = len(sig)
	}
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
