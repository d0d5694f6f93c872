package diff

import (
	"encoding/binary"

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
// machines answer differently.
type divergence struct {
	at    pair
	input int
	// id is the product state's number in the order of the search, for
	// prefix.
	id int32
}

// search is the breadth-first search of the product. It holds what the
// search must: the pairs seen, as a bit per pair while the product is
// small enough (one bit for each of the states' pairs) and as a set of the
// reachable pairs beyond, and the frontier. The search tree (each pair's
// parent and input, 8 bytes a pair) is kept only while a caller still
// wants prefixes: witnesses are wanted for the first divergences only, and
// the search meets those first.
type search struct {
	b        *behaviour
	bits     []uint64
	set      map[uint64]struct{}
	tree     []treeNode
	keepTree bool
}

type treeNode struct{ parent, input int32 }

// bitsetPairs is the largest product (states × states) the search marks in
// a bitset (32 MiB); a larger one keeps the pairs it reaches in a set,
// at most about productBudget of them.
const bitsetPairs = 1 << 28

// productBudget is how many product states the search explores before it
// may stop: once it has, and the caller has all the witnesses it wants,
// the rest of the product is left unexplored and the counts of
// divergences are lower bounds. Two unrelated models reach most of their
// states × states pairs (over 80% for random Mealy machines), which is
// quadratic; a model of 1000 states against one of 1000 stays within the
// budget.
const productBudget = 1 << 20

// divergences explores the product breadth-first from the initial states
// (inputs in order) and calls yield with every divergence: shortest first,
// then in the order the search meets them. The product never continues
// past a divergence, so no proper prefix of a divergence's word diverges.
// yield returns whether it still wants prefixes (see prefix); once it says
// no, the search tree is no longer kept, and the search stops after budget
// product states (productBudget unless a test says otherwise). divergences
// returns how many product states it had met when it stopped so, with
// divergences maybe left unseen, and 0 when it searched to the end.
func (b *behaviour) divergences(budget int, yield func(s *search, d divergence) (wantPrefixes bool)) (stoppedAfter int) {
	no, nn := b.old.NumStates(), b.new.NumStates()
	s := &search{b: b, keepTree: true}
	if uint64(no)*uint64(nn) <= bitsetPairs {
		s.bits = make([]uint64, (no*nn+63)/64)
	} else {
		s.set = map[uint64]struct{}{}
	}
	type node struct {
		old, new, id int32
	}
	start := node{int32(b.old.Initial), int32(b.new.Initial), 0}
	s.mark(int(start.old), int(start.new))
	s.tree = append(s.tree, treeNode{parent: -1, input: -1})
	queue := []node{start}
	ids := int32(1)
	ni := b.inputs.Size()
	for len(queue) > 0 {
		if !s.keepTree && int(ids) >= budget {
			return int(ids)
		}
		p := queue[0]
		queue = queue[1:]
		oldOut, newOut := b.old.Out[p.old], b.new.Out[p.new]
		oldNext, newNext := b.old.Next[p.old], b.new.Next[p.new]
		for k := 0; k < ni; k++ {
			if oldOut[k] != newOut[k] {
				if !yield(s, divergence{at: pair{int(p.old), int(p.new)}, input: k, id: p.id}) && s.keepTree {
					s.keepTree, s.tree = false, nil
				}
				continue
			}
			o, n := oldNext[k], newNext[k]
			if s.mark(o, n) {
				queue = append(queue, node{int32(o), int32(n), ids})
				if s.keepTree {
					s.tree = append(s.tree, treeNode{parent: p.id, input: int32(k)})
				}
				ids++
			}
		}
	}
	return 0
}

// mark marks the pair (o, n) seen and reports whether it was new.
func (s *search) mark(o, n int) bool {
	if s.bits != nil {
		k := o*s.b.new.NumStates() + n
		if s.bits[k/64]&(1<<(k%64)) != 0 {
			return false
		}
		s.bits[k/64] |= 1 << (k % 64)
		return true
	}
	key := uint64(o)<<32 | uint64(n)
	if _, dup := s.set[key]; dup {
		return false
	}
	s.set[key] = struct{}{}
	return true
}

// prefix is the shortest word reaching the divergence's product state.
func (s *search) prefix(d divergence) mealy.Word {
	var rev mealy.Word
	for v := s.tree[d.id]; v.input >= 0; v = s.tree[v.parent] {
		rev = append(rev, int(v.input))
	}
	w := make(mealy.Word, len(rev))
	for k := range rev {
		w[k] = rev[len(rev)-1-k]
	}
	return w
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

// agreementOf is agreement(depth)[p][q] for one pair, without the grid:
// it walks the words of length up to depth on which the two answer alike.
func (b *behaviour) agreementOf(p, q, depth int) int {
	ni := b.inputs.Size()
	weight := make([]int, depth+1) // weight[l] = ni^(depth-l)
	weight[depth] = 1
	for l := depth - 1; l >= 1; l-- {
		weight[l] = weight[l+1] * ni
	}
	var walk func(p, q, l int) int
	walk = func(p, q, l int) int {
		score := 0
		for k := 0; k < ni; k++ {
			if b.old.Out[p][k] != b.new.Out[q][k] {
				continue
			}
			score += weight[l]
			if l < depth {
				score += walk(b.old.Next[p][k], b.new.Next[q][k], l+1)
			}
		}
		return score
	}
	return walk(p, q, 1)
}

// jointBlocks splits the states of both normalised machines into blocks
// of states that answer every word of length 1..depth alike (Moore's
// refinement, depth rounds, over the two machines at once): oldBlock and
// newBlock give each state's block.
func (b *behaviour) jointBlocks(depth int) (oldBlock, newBlock []int32) {
	ni := b.inputs.Size()
	machines := []*mealy.Machine{b.old, b.new}
	blocks := [][]int32{make([]int32, b.old.NumStates()), make([]int32, b.new.NumStates())}
	key := make([]byte, 0, 4*(ni+1))
	put := func(x int) { key = binary.LittleEndian.AppendUint32(key, uint32(x)) }
	for l := 1; l <= depth; l++ {
		ids := map[string]int32{}
		next := [][]int32{make([]int32, len(blocks[0])), make([]int32, len(blocks[1]))}
		for s, m := range machines {
			for q := range next[s] {
				key = key[:0]
				if l == 1 {
					for k := 0; k < ni; k++ {
						put(m.Out[q][k])
					}
				} else {
					put(int(blocks[s][q]))
					for k := 0; k < ni; k++ {
						put(int(blocks[s][m.Next[q][k]]))
					}
				}
				id, ok := ids[string(key)]
				if !ok {
					id = int32(len(ids))
					ids[string(key)] = id
				}
				next[s][q] = id
			}
		}
		blocks = next
	}
	return blocks[0], blocks[1]
}
