package diff

import (
	"github.com/droidstar/droidstar/internal/mealy"
)

// behaviour is the two models as the comparison reads them (see the
// package documentation): both machines restricted to the shared inputs,
// over one output alphabet, normalised to the typestate reading of the
// synchronous closure.
type behaviour struct {
	inputs  *mealy.Alphabet // the shared inputs, in the old model's order
	outputs *mealy.Alphabet // the old model's outputs, then the new model's others
	old     *mealy.Machine  // normalised machines; states are the models' own,
	new     *mealy.Machine  // plus a dead state for a closure model
	// oldBlock and newBlock are the normalised machines' Moore partitions:
	// a quiet wait whose target is in the same block is a self-loop.
	oldBlock, newBlock []int
	closure            bool
	err, quiet         int // output indices, -1 when absent
}

func newBehaviour(o, n *side) *behaviour {
	var shared []string
	for _, name := range o.m.Inputs.Names() {
		if _, ok := n.m.Inputs.Index(name); ok {
			shared = append(shared, name)
		}
	}
	outputs := mealy.MustAlphabet(o.m.Outputs.Names()...)
	for _, name := range n.m.Outputs.Names() {
		if _, ok := outputs.Index(name); !ok {
			_, _ = outputs.Add(name)
		}
	}
	b := &behaviour{inputs: mealy.MustAlphabet(shared...), outputs: outputs, closure: o.closure(), err: -1, quiet: -1}
	if b.closure {
		b.err, _ = outputs.Index(mealy.Err)
		b.quiet, _ = outputs.Index(mealy.Quiet)
	}
	b.old = b.normalise(o)
	b.new = b.normalise(n)
	b.oldBlock, _ = b.old.Partition()
	b.newBlock, _ = b.new.Partition()
	return b
}

// normalise restricts s's machine to the shared inputs and, for a closure
// model, reads it as its typestate does: a callin that answers err leads to
// a dead state (state n, err forever), so nothing after an error counts; a
// wait that answers err (an error callback, or a wait the purpose excludes)
// is no event, like a wait that answers quiet and stays: it answers quiet
// and stays where it is.
func (b *behaviour) normalise(s *side) *mealy.Machine {
	n := s.m.NumStates()
	size := n
	if b.closure {
		size++
	}
	t := mealy.NewMachine(b.inputs, b.outputs, size)
	t.Initial = s.m.Initial
	for k, in := range b.inputs.Names() {
		j, _ := s.m.Inputs.Index(in)
		for q := 0; q < n; q++ {
			out, _ := b.outputs.Index(s.m.Outputs.Name(s.m.Out[q][j]))
			to := s.m.Next[q][j]
			if b.closure && out == b.err {
				if in == mealy.Wait {
					out, to = b.quiet, q
				} else {
					to = n
				}
			}
			t.SetTransition(q, k, out, to)
		}
		if b.closure {
			t.SetTransition(n, k, b.err, n)
		}
	}
	return t
}

// event reports whether state q of normalised machine m (with partition
// block) makes an observable event on input k: not an err, and not a quiet
// wait that stays where it is (up to equivalence).
func (b *behaviour) event(m *mealy.Machine, block []int, q, k int) bool {
	if !b.closure {
		return true
	}
	out, to := m.Out[q][k], m.Next[q][k]
	return out != b.err && !(out == b.quiet && block[to] == block[q])
}

// pair is a state of the product of the two normalised machines.
type pair struct{ old, new int }

// divergence is a reachable product state and an input on which the two
// machines answer differently; prefix is the shortest word reaching it.
type divergence struct {
	at     pair
	input  int
	prefix mealy.Word
}

// divergences explores the product breadth-first from the initial states
// (inputs in order) and returns every divergence, each with the shortest
// word reaching its product state: shortest first, then in the order the
// search meets them. The product never continues past a divergence, so no
// proper prefix of a divergence's word diverges.
func (b *behaviour) divergences() []divergence {
	start := pair{b.old.Initial, b.new.Initial}
	type visit struct {
		from pair
		in   int
	}
	seen := map[pair]visit{start: {in: -1}}
	access := func(p pair) mealy.Word {
		var rev mealy.Word
		for v := seen[p]; v.in >= 0; v = seen[p] {
			rev = append(rev, v.in)
			p = v.from
		}
		w := make(mealy.Word, len(rev))
		for k := range rev {
			w[k] = rev[len(rev)-1-k]
		}
		return w
	}
	var out []divergence
	queue := []pair{start}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for k := 0; k < b.inputs.Size(); k++ {
			if b.old.Out[p.old][k] != b.new.Out[p.new][k] {
				out = append(out, divergence{at: p, input: k, prefix: access(p)})
				continue
			}
			next := pair{b.old.Next[p.old][k], b.new.Next[p.new][k]}
			if _, dup := seen[next]; !dup {
				seen[next] = visit{from: p, in: k}
				queue = append(queue, next)
			}
		}
	}
	return out
}

// agreement counts, for every pair of states (old, new) of the normalised
// machines, the words of length 1..depth on which the two answer alike,
// the words of length l weighted by |inputs|^(depth-l) so that every length
// counts the same: two equivalent states score depth·|inputs|^depth.
func (b *behaviour) agreement(depth int) [][]int {
	no, nn, ni := b.old.NumStates(), b.new.NumStates(), b.inputs.Size()
	grid := func() [][]int {
		g := make([][]int, no)
		for p := range g {
			g[p] = make([]int, nn)
		}
		return g
	}
	count := grid() // words of the current length answered alike
	for p := range count {
		for q := range count[p] {
			count[p][q] = 1 // the empty word
		}
	}
	score := grid()
	scale := 1
	for l := 1; l < depth; l++ {
		scale *= ni
	}
	for l := 1; l <= depth; l++ {
		next := grid()
		for p := 0; p < no; p++ {
			for q := 0; q < nn; q++ {
				c := 0
				for k := 0; k < ni; k++ {
					if b.old.Out[p][k] == b.new.Out[q][k] {
						c += count[b.old.Next[p][k]][b.new.Next[q][k]]
					}
				}
				next[p][q] = c
				score[p][q] += c * scale
			}
		}
		count = next
		if ni > 0 {
			scale /= ni
		}
	}
	return score
}
