package diff

import (
	"fmt"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
)

// side is one of the two models: the document, the machine it describes
// and the typestate edges the structural view and the picture use.
type side struct {
	file      string
	semantics string
	info      ModelInfo // without the counts
	m         *mealy.Machine
	ids       []string // machine state -> document state ID
	names     []string // machine state -> display name (State.Name, else the ID)
	errs      map[[2]int]*model.ErrInfo
	// states are the states of the typestate view (reachable, the error
	// sink left out), in machine order; edges are its edges, by source
	// state in that order, then input.
	states []int
	edges  []edge
	sink   int // the error sink, -1 if none
	// tree is the breadth-first tree of the reachable states that gives
	// the shortest access words (inputs in order, as mealy's AccessWords),
	// kept as parent pointers rather than words so that it stays linear in
	// the states however deep the model is.
	tree accessTree
}

// accessTree is a breadth-first tree over a machine's reachable states:
// order lists them as the search met them, parent and input say how each
// was first reached (-1 for the initial state and unreachable ones).
type accessTree struct {
	order         []int32
	parent, input []int32
	reachable     []bool
}

func newAccessTree(m *mealy.Machine) accessTree {
	n := m.NumStates()
	t := accessTree{parent: make([]int32, n), input: make([]int32, n), reachable: make([]bool, n)}
	for q := range t.parent {
		t.parent[q], t.input[q] = -1, -1
	}
	t.reachable[m.Initial] = true
	t.order = append(t.order, int32(m.Initial))
	for k := 0; k < len(t.order); k++ {
		q := int(t.order[k])
		for i, to := range m.Next[q] {
			if !t.reachable[to] {
				t.reachable[to] = true
				t.parent[to], t.input[to] = int32(q), int32(i)
				t.order = append(t.order, int32(to))
			}
		}
	}
	return t
}

// edge is one typestate edge (closure) or one transition (plain Mealy).
type edge struct {
	from, to int
	input    int // machine input index
	output   int // machine output index
}

func newSide(which, file string, d *model.Document) (*side, error) {
	if d == nil {
		return nil, fmt.Errorf("%s: no model document", which)
	}
	m, ids, err := d.Machine()
	if err != nil {
		return nil, err
	}
	s := &side{file: file, semantics: d.Semantics, info: ModelInfo{File: file, Name: d.Name}, m: m, ids: ids,
		names: append([]string(nil), ids...), errs: map[[2]int]*model.ErrInfo{}, sink: -1}
	if d.Purpose != nil {
		s.info.Class = d.Purpose.Class
	}
	if d.Backend != nil && len(d.Backend.Devices) > 0 {
		s.info.SDK = d.Backend.Devices[0].SDK
	}
	for q, st := range d.States {
		if st.Name != "" {
			s.names[q] = st.Name
		}
	}
	index := make(map[string]int, len(ids))
	for q, id := range ids {
		index[id] = q
	}
	for _, t := range d.Transitions {
		if t.Err == nil {
			continue
		}
		q, ok1 := index[t.From]
		i, ok2 := m.Inputs.Index(t.Input)
		if ok1 && ok2 {
			s.errs[[2]int{q, i}] = t.Err
		}
	}
	s.tree = newAccessTree(m)
	if s.closure() {
		ts, err := m.Typestate()
		if err != nil {
			return nil, err
		}
		s.states, s.sink = ts.States, ts.Sink
		s.edges = make([]edge, 0, len(ts.Edges))
		for _, e := range ts.Edges {
			s.edges = append(s.edges, edge{from: e.From, to: e.To, input: e.Input, output: m.Out[e.From][e.Input]})
		}
		return s, nil
	}
	s.edges = make([]edge, 0, len(s.tree.order)*m.Inputs.Size())
	for q := 0; q < m.NumStates(); q++ {
		if !s.tree.reachable[q] {
			continue
		}
		s.states = append(s.states, q)
		for i := 0; i < m.Inputs.Size(); i++ {
			s.edges = append(s.edges, edge{from: q, to: m.Next[q][i], input: i, output: m.Out[q][i]})
		}
	}
	return s, nil
}

func (s *side) closure() bool { return s.semantics == model.SemanticsClosure }

// answer is the side's transition from state q on the input named in,
// with the recorded reason for an err; ok is false when the input is not
// in the side's alphabet.
func (s *side) answer(q int, in string) (Transition, bool) {
	i, ok := s.m.Inputs.Index(in)
	if !ok {
		return Transition{}, false
	}
	return Transition{From: s.ids[q], Output: s.m.Outputs.Name(s.m.Out[q][i]), To: s.ids[s.m.Next[q][i]], Err: s.errs[[2]int{q, i}]}, true
}

// callins are the side's inputs without wait (all inputs of a plain Mealy
// model); callbacks its outputs without ok, quiet and err.
func (s *side) callins() []string {
	var out []string
	for _, n := range s.m.Inputs.Names() {
		if !s.closure() || n != mealy.Wait {
			out = append(out, n)
		}
	}
	return out
}

func (s *side) callbacks() []string {
	var out []string
	for _, n := range s.m.Outputs.Names() {
		if !s.closure() || (n != mealy.OK && n != mealy.Quiet && n != mealy.Err) {
			out = append(out, n)
		}
	}
	return out
}
