package mealy

import (
	"fmt"
)

// Machine is a complete deterministic Mealy machine. States are 0..N-1.
// Next[q][i] is the successor of q on input i and Out[q][i] its output.
type Machine struct {
	Inputs  *Alphabet
	Outputs *Alphabet
	Initial int
	Next    [][]int
	Out     [][]int
}

// NewMachine returns a machine with n states whose transitions are all
// unset (-1); fill them with SetTransition and call Validate.
func NewMachine(inputs, outputs *Alphabet, n int) *Machine {
	m := &Machine{Inputs: inputs, Outputs: outputs, Next: make([][]int, n), Out: make([][]int, n)}
	for q := 0; q < n; q++ {
		m.Next[q] = make([]int, inputs.Size())
		m.Out[q] = make([]int, inputs.Size())
		for i := range m.Next[q] {
			m.Next[q][i], m.Out[q][i] = -1, -1
		}
	}
	return m
}

// AddState appends a state with unset transitions and returns it.
func (m *Machine) AddState() int {
	next := make([]int, m.Inputs.Size())
	out := make([]int, m.Inputs.Size())
	for i := range next {
		next[i], out[i] = -1, -1
	}
	m.Next = append(m.Next, next)
	m.Out = append(m.Out, out)
	return len(m.Next) - 1
}

// SetTransition sets q --in/out--> to.
func (m *Machine) SetTransition(q, in, out, to int) {
	m.Next[q][in] = to
	m.Out[q][in] = out
}

// NumStates is the number of states.
func (m *Machine) NumStates() int { return len(m.Next) }

// Validate checks that every transition is set and in range.
func (m *Machine) Validate() error {
	n := m.NumStates()
	if n == 0 {
		return fmt.Errorf("machine has no states")
	}
	if m.Initial < 0 || m.Initial >= n {
		return fmt.Errorf("initial state %d out of range", m.Initial)
	}
	for q := 0; q < n; q++ {
		for i := 0; i < m.Inputs.Size(); i++ {
			if t := m.Next[q][i]; t < 0 || t >= n {
				return fmt.Errorf("state %d has no transition on input %q", q, m.Inputs.Name(i))
			}
			if o := m.Out[q][i]; o < 0 || o >= m.Outputs.Size() {
				return fmt.Errorf("state %d has no output on input %q", q, m.Inputs.Name(i))
			}
		}
	}
	return nil
}

// Run feeds w from the initial state and returns the outputs and the final state.
func (m *Machine) Run(w Word) (Word, int) { return m.RunFrom(m.Initial, w) }

// RunFrom feeds w from state q.
func (m *Machine) RunFrom(q int, w Word) (Word, int) {
	out := make(Word, len(w))
	for k, i := range w {
		out[k] = m.Out[q][i]
		q = m.Next[q][i]
	}
	return out, q
}

// StateAfter returns the state reached by w from the initial state.
func (m *Machine) StateAfter(w Word) int {
	q := m.Initial
	for _, i := range w {
		q = m.Next[q][i]
	}
	return q
}

// AccessTree is the breadth-first spanning tree from the initial state:
// each reachable state's parent and the input from it. It holds what the
// shortest access words share once, so a deep machine (a chain of n
// states) needs O(n) memory where its access words would need O(n²).
type AccessTree struct {
	Parent []int // -1 for the initial state and unreachable states
	Via    []int // the input from Parent
	Depth  []int // the access word's length; -1 when unreachable
	Order  []int // the reachable states, breadth first (parents before children)
}

// AccessTree computes the breadth-first spanning tree (inputs tried in
// alphabet order, so it is deterministic and agrees with AccessWords).
func (m *Machine) AccessTree() *AccessTree {
	n := m.NumStates()
	t := &AccessTree{Parent: make([]int, n), Via: make([]int, n), Depth: make([]int, n)}
	for q := range t.Depth {
		t.Parent[q], t.Via[q], t.Depth[q] = -1, -1, -1
	}
	t.Depth[m.Initial] = 0
	t.Order = append(make([]int, 0, n), m.Initial)
	for k := 0; k < len(t.Order); k++ {
		q := t.Order[k]
		for i := 0; i < m.Inputs.Size(); i++ {
			to := m.Next[q][i]
			if t.Depth[to] < 0 {
				t.Parent[to], t.Via[to], t.Depth[to] = q, i, t.Depth[q]+1
				t.Order = append(t.Order, to)
			}
		}
	}
	return t
}

// Reachable says whether q is reachable from the initial state.
func (t *AccessTree) Reachable(q int) bool { return t.Depth[q] >= 0 }

// Word is q's access word (nil when q is unreachable).
func (t *AccessTree) Word(q int) Word {
	if t.Depth[q] < 0 {
		return nil
	}
	w := make(Word, t.Depth[q])
	for k := len(w) - 1; k >= 0; k-- {
		w[k] = t.Via[q]
		q = t.Parent[q]
	}
	return w
}

// Reachable marks the states reachable from the initial state, in time and
// memory linear in the machine.
func (m *Machine) Reachable() []bool {
	t := m.AccessTree()
	r := make([]bool, len(t.Depth))
	for q, d := range t.Depth {
		r[q] = d >= 0
	}
	return r
}

// AccessWords returns, for every reachable state, the shortest word reaching
// it from the initial state, choosing the first input in alphabet order on
// ties (breadth-first). Unreachable states get nil and reachable[q] false.
func (m *Machine) AccessWords() (access []Word, reachable []bool) {
	t := m.AccessTree()
	access, reachable = make([]Word, len(t.Depth)), make([]bool, len(t.Depth))
	for _, q := range t.Order {
		reachable[q] = true
		if p := t.Parent[q]; p >= 0 {
			access[q] = access[p].Concat(t.Via[q])
		} else {
			access[q] = Word{}
		}
	}
	return access, reachable
}

// Clone returns a deep copy sharing the (immutable) alphabets.
func (m *Machine) Clone() *Machine {
	c := &Machine{Inputs: m.Inputs, Outputs: m.Outputs, Initial: m.Initial,
		Next: make([][]int, len(m.Next)), Out: make([][]int, len(m.Out))}
	for q := range m.Next {
		c.Next[q] = append([]int(nil), m.Next[q]...)
		c.Out[q] = append([]int(nil), m.Out[q]...)
	}
	return c
}

// Canonical renumbers the reachable states in breadth-first order from the
// initial state (inputs in alphabet order) and drops unreachable ones, so two
// isomorphic machines become identical. It returns the renumbered machine and
// old→new state numbers (-1 for dropped states).
func (m *Machine) Canonical() (*Machine, []int) {
	n := m.NumStates()
	order := make([]int, 0, n)
	renum := make([]int, n)
	for q := range renum {
		renum[q] = -1
	}
	renum[m.Initial] = 0
	order = append(order, m.Initial)
	for k := 0; k < len(order); k++ {
		q := order[k]
		for i := 0; i < m.Inputs.Size(); i++ {
			if t := m.Next[q][i]; renum[t] < 0 {
				renum[t] = len(order)
				order = append(order, t)
			}
		}
	}
	c := NewMachine(m.Inputs, m.Outputs, len(order))
	for newQ, q := range order {
		for i := 0; i < m.Inputs.Size(); i++ {
			c.SetTransition(newQ, i, m.Out[q][i], renum[m.Next[q][i]])
		}
	}
	return c, renum
}

// Sink returns the first reachable state that outputs out on every input
// and loops to itself, if the machine has one (the error sink of a
// synchronous-closure machine).
func (m *Machine) Sink(out int) (int, bool) {
	reachable := m.Reachable()
	for q := 0; q < m.NumStates(); q++ {
		if !reachable[q] {
			continue
		}
		isSink := true
		for i := 0; i < m.Inputs.Size() && isSink; i++ {
			isSink = m.Next[q][i] == q && m.Out[q][i] == out
		}
		if isSink {
			return q, true
		}
	}
	return -1, false
}
