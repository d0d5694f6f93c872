package learn

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"slices"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/oracle"
)

// KV is Kearns and Vazirani's learner ("An Introduction to Computational
// Learning Theory", MIT Press 1994, ch. 8) for Mealy machines, in the form
// of Isberner's thesis ("Foundations of Active Automata Learning", TU
// Dortmund 2015, §4: discrimination trees for Mealy machines) and of
// AALpy's aalpy/learning_algs/deterministic/KV.py and ClassificationTree.py.
//
// The discrimination tree's leaves are the hypothesis's states, each with
// its access word; its inner nodes are suffixes (discriminators), and a
// node's children are told apart by the output word the target gives for
// the suffix (Isberner's Mealy rule; AALpy branches on the last output
// only, which needs more nodes to tell the same states apart). A word is
// sifted by asking it with each discriminator on its way down from the
// root. Where L* fills a table of every row by every column, KV asks each
// transition only the discriminators on its path, so it needs far fewer
// queries; the price is a hypothesis that rests on fewer answers and more
// counterexamples.
//
// It asks in batches: every transition still being sifted asks its next
// discriminator in one Ask, so sifting a new state's transitions (and
// re-sifting those a split moved) costs one batch per tree level.
//
// Counterexamples: a Suffix from the bound oracle tells apart the target
// states of a transition access(q)·i and of the state q' the hypothesis
// sends it to, so it becomes the discriminator that splits the leaf of q'
// directly, with access(q)·i as the new state's access word. A bare Word
// is analysed as Rivest and Schapire ("Inference of finite automata using
// homing sequences", 1993) do: a binary search for the breakpoint p·a·v
// where access(δ(p))·a·v and access(δ(p·a))·v disagree, which splits the
// leaf of δ(p·a) by v (AALpy's update_rs). As AALpy's
// counterexample_successfully_processed does, a counterexample is analysed
// again while the refined hypothesis still disagrees with it, before the
// next equivalence query.
//
// Options.SuffixClosed does not apply (the tree has no table to close).
func KV(ctx context.Context, inputs, outputs *mealy.Alphabet, mq oracle.Oracle, eq EquivalenceOracle, opts Options) (*Result, error) {
	k := newKVTree(inputs)
	k.estimate = opts.OnEstimate
	if err := k.refine(ctx, mq, nil); err != nil {
		return nil, err
	}
	res := &Result{}
	// The observations are copied out only when the run ends, not every
	// round: they hold a cell per row and discriminator. A failure while
	// a counterexample was being analysed has split the tree since the
	// hypothesis was built, and its observations would not be the
	// hypothesis's, so it returns none (no final check follows a failure).
	done := func(err error) (*Result, error) {
		if res.Hypothesis == nil {
			return nil, err
		}
		if len(k.access) == res.Hypothesis.Machine.NumStates() {
			res.Observations = k.observations()
			res.Rows, res.Columns = len(res.Observations.Rows), len(res.Observations.Columns)
		}
		return res, err
	}
	for {
		if err := ctx.Err(); err != nil {
			return done(err)
		}
		h := k.hypothesis(outputs)
		res.Hypothesis = h
		res.EQs++
		if opts.OnHypothesis != nil {
			opts.OnHypothesis(res.EQs, h)
		}
		cex, err := eq.FindCounterexample(ctx, h)
		if err != nil {
			return done(fmt.Errorf("equivalence query %d: %w", res.EQs, err))
		}
		if cex == nil {
			return done(nil)
		}
		if opts.MaxRounds > 0 && res.EQs >= opts.MaxRounds {
			return done(ErrMaxRounds)
		}
		if err := k.counterexample(ctx, mq, cex); err != nil {
			return done(fmt.Errorf("counterexample %s: %w", inputs.Format(cex.Word), err))
		}
	}
}

// kvNode is a node of the discrimination tree: a leaf (state >= 0) or an
// inner node with a discriminator.
type kvNode struct {
	parent *kvNode
	// label is the output word of the parent's discriminator that leads
	// here (nil at the root).
	label    mealy.Word
	disc     mealy.Word
	col      int // disc's index among the distinct discriminators
	children map[string]*kvNode
	state    int // -1 for an inner node
}

// kvTrans is a transition access(q)·a of the hypothesis.
type kvTrans struct {
	word mealy.Word
	// node is where its sifting stands: a leaf once it is sifted.
	node *kvNode
	out  int // its output, -1 until asked
	// tree marks the transitions that are states' access words: each sits
	// in its own state's leaf for good.
	tree bool
}

type kvTree struct {
	inputs *mealy.Alphabet
	root   *kvNode
	access []mealy.Word
	leaves []*kvNode
	trans  [][]*kvTrans // per state, per input
	cols   []mealy.Word
	colOf  map[string]int
	// estimate is Options.OnEstimate.
	estimate func(queries int)
}

func newKVTree(inputs *mealy.Alphabet) *kvTree {
	k := &kvTree{inputs: inputs, colOf: map[string]int{}}
	k.root = &kvNode{state: -1}
	k.addState(mealy.Word{}, k.root)
	return k
}

// addState makes leaf a state with access word w and returns its
// transitions, all still to be sifted from the root. The first state takes
// the root itself as its leaf.
func (k *kvTree) addState(w mealy.Word, leaf *kvNode) []*kvTrans {
	s := len(k.access)
	leaf.state = s
	k.access = append(k.access, w)
	k.leaves = append(k.leaves, leaf)
	ts := make([]*kvTrans, k.inputs.Size())
	for a := range ts {
		ts[a] = &kvTrans{word: w.Concat(a), node: k.root, out: -1}
	}
	k.trans = append(k.trans, ts)
	return ts
}

// sift moves every pending transition down to a leaf, asking one batch per
// level. A transition whose answer leads to a child the node does not have
// is a state no leaf stands for (Kearns and Vazirani's sifting into a new
// leaf, AALpy's _sift): it becomes a new state, with the transition's word
// as its access word, and its own transitions join the sifting.
func (k *kvTree) sift(ctx context.Context, mq oracle.Oracle, pending []*kvTrans) error {
	for {
		var todo []*kvTrans
		for _, t := range pending {
			if t.node.state < 0 {
				todo = append(todo, t)
			}
		}
		if len(todo) == 0 {
			return nil
		}
		queries := make([]mealy.Word, len(todo))
		for j, t := range todo {
			queries[j] = t.word.Concat(t.node.disc...)
		}
		if k.estimate != nil {
			k.estimate(k.siftGuess(todo))
		}
		answers, err := mq.Ask(ctx, queries)
		if err != nil {
			return err
		}
		pending = todo
		for j, t := range todo {
			out := answers[j].Outputs
			if len(out) != len(queries[j]) {
				return fmt.Errorf("internal: %d outputs for a query of %d inputs", len(out), len(queries[j]))
			}
			if t.out < 0 {
				t.out = out[len(t.word)-1]
			}
			label := out[len(t.word):]
			child := t.node.children[label.Key()]
			if child == nil {
				child = &kvNode{parent: t.node, label: slices.Clone(label), state: -1}
				t.node.children[label.Key()] = child
				t.tree = true
				pending = append(pending, k.addState(t.word, child)...)
			}
			t.node = child
		}
	}
}

// refine sifts the pending transitions and then asks, in one batch, the
// outputs sifting did not give (while the tree is a single leaf).
func (k *kvTree) refine(ctx context.Context, mq oracle.Oracle, pending []*kvTrans) error {
	if len(k.access) == 1 && pending == nil {
		pending = k.trans[0]
	}
	if err := k.sift(ctx, mq, pending); err != nil {
		return err
	}
	var todo []*kvTrans
	var queries []mealy.Word
	for _, ts := range k.trans {
		for _, t := range ts {
			if t.out < 0 {
				todo = append(todo, t)
				queries = append(queries, t.word)
			}
		}
	}
	if len(queries) == 0 {
		return nil
	}
	if k.estimate != nil {
		k.estimate(len(queries))
	}
	answers, err := mq.Ask(ctx, queries)
	if err != nil {
		return err
	}
	for j, t := range todo {
		t.out = answers[j].Outputs[len(t.word)-1]
	}
	return nil
}

// depth is how many discriminators lie between n and the root.
func depth(n *kvNode) int {
	d := 0
	for ; n.parent != nil; n = n.parent {
		d++
	}
	return d
}

// treeDepth is the depth of the deepest leaf.
func (k *kvTree) treeDepth() int {
	d := 0
	for _, leaf := range k.leaves {
		d = max(d, depth(leaf))
	}
	return d
}

// siftGuess is what sifting todo asks: a query per level each transition
// still has to go down, guessed as the deepest leaf's level (at least the
// one it asks next).
func (k *kvTree) siftGuess(todo []*kvTrans) int {
	deepest, n := k.treeDepth(), 0
	for _, t := range todo {
		n += max(deepest-depth(t.node), 1)
	}
	return n
}

// counterexampleGuess is what analysing u costs before the next
// hypothesis: asking u, the binary search, and sifting the new state's
// transitions and about as many that the split moves.
func (k *kvTree) counterexampleGuess(u mealy.Word) int {
	return 1 + bits.Len(uint(len(u))) + 2 + 2*k.inputs.Size()*(k.treeDepth()+1)
}

// split replaces the leaf of state old by an inner node with discriminator
// v, under which old keeps its leaf (old's access word answers outOld to
// v) and a new state with access word w = access(q)·a, the word of
// transition tr, gets one (w answers outNew). Every other transition that
// stood at old's leaf is sifted again from the new node; the new state's
// are sifted from the root (Kearns and Vazirani's leaf split; AALpy's
// _insert_new_leaf).
func (k *kvTree) split(ctx context.Context, mq oracle.Oracle, old int, tr *kvTrans, v, outOld, outNew mealy.Word) error {
	if outOld.Equal(outNew) {
		return errors.New("its discriminator does not tell the two states apart; the target is not deterministic or the oracle is wrong")
	}
	leaf := k.leaves[old]
	col, ok := k.colOf[v.Key()]
	if !ok {
		col = len(k.cols)
		k.cols = append(k.cols, slices.Clone(v))
		k.colOf[v.Key()] = col
	}
	inner := &kvNode{parent: leaf.parent, label: leaf.label, disc: slices.Clone(v), col: col, children: map[string]*kvNode{}, state: -1}
	if leaf.parent == nil {
		k.root = inner
	} else {
		leaf.parent.children[leaf.label.Key()] = inner
	}
	leaf.parent, leaf.label = inner, slices.Clone(outOld)
	inner.children[outOld.Key()] = leaf
	fresh := &kvNode{parent: inner, label: slices.Clone(outNew), state: -1}
	inner.children[outNew.Key()] = fresh

	var pending []*kvTrans
	for _, ts := range k.trans {
		for _, t := range ts {
			if t.node == leaf && !t.tree && t != tr {
				t.node = inner
				pending = append(pending, t)
			}
		}
	}
	tr.node, tr.tree = fresh, true
	// The new state's transitions start at the root, inner by now.
	pending = append(pending, k.addState(tr.word, fresh)...)
	return k.refine(ctx, mq, pending)
}

// counterexample refines the tree with cex until the tree's hypothesis
// agrees with the target on cex.Word. The refined hypotheses are not
// built: the tree runs the word itself.
func (k *kvTree) counterexample(ctx context.Context, mq oracle.Oracle, cex *Counterexample) error {
	if k.estimate != nil {
		k.estimate(k.counterexampleGuess(cex.Word))
	}
	changed := false
	if len(cex.Suffix) > 0 {
		used, err := k.suffix(ctx, mq, cex)
		if err != nil {
			return err
		}
		changed = used
	}
	for ; ; changed = true {
		if err := ctx.Err(); err != nil {
			return err
		}
		ans, err := mq.Ask(ctx, []mealy.Word{cex.Word})
		if err != nil {
			return err
		}
		if k.run(cex.Word).Equal(ans[0].Outputs) {
			if !changed {
				return errors.New("the hypothesis already answers it as the target does: the target is not deterministic or the oracle is wrong")
			}
			return nil
		}
		if err := k.rivestSchapire(ctx, mq, cex.Word, ans[0].Outputs); err != nil {
			return err
		}
	}
}

// stateAfter is the state the tree's hypothesis reaches on w.
func (k *kvTree) stateAfter(w mealy.Word) int {
	q := 0
	for _, a := range w {
		q = k.trans[q][a].node.state
	}
	return q
}

// run is the tree's hypothesis's output word on w.
func (k *kvTree) run(w mealy.Word) mealy.Word {
	out := make(mealy.Word, len(w))
	q := 0
	for j, a := range w {
		t := k.trans[q][a]
		out[j], q = t.out, t.node.state
	}
	return out
}

// suffix uses the bound oracle's distinguishing suffix s directly when the
// counterexample is access(q)·a·s for a transition (q, a) that is no
// state's access word: s then tells apart access(q)·a and access(q'),
// q' = δ(q, a), which the hypothesis merged. It reports whether it split.
func (k *kvTree) suffix(ctx context.Context, mq oracle.Oracle, cex *Counterexample) (bool, error) {
	s := cex.Suffix
	if len(cex.Word) <= len(s) || !cex.Word[len(cex.Word)-len(s):].Equal(s) {
		return false, nil
	}
	p := cex.Word[:len(cex.Word)-len(s)]
	q := -1
	for st, acc := range k.access {
		if acc.Equal(p[:len(p)-1]) {
			q = st
			break
		}
	}
	if q < 0 {
		return false, nil
	}
	tr := k.trans[q][p[len(p)-1]]
	if tr.tree {
		return false, nil
	}
	to := tr.node.state
	left, right := p.Concat(s...), k.access[to].Concat(s...)
	ans, err := mq.Ask(ctx, []mealy.Word{left, right})
	if err != nil {
		return false, err
	}
	outNew, outOld := ans[0].Outputs[len(p):], ans[1].Outputs[len(k.access[to]):]
	if outNew.Equal(outOld) {
		// Not the split the suffix promised (another transition's): let
		// the analysis of the word find one.
		return false, nil
	}
	return true, k.split(ctx, mq, to, tr, s, outOld, outNew)
}

// rivestSchapire finds by binary search a breakpoint of the counterexample
// u, whose target outputs are target: the index i where replacing the
// prefix u[:i] by the access word of the state it reaches keeps the last
// output of the counterexample's first difference, but replacing u[:i+1]
// does not. The transition (δ(u[:i]), u[i]) then leads to a state the
// hypothesis merged with δ(u[:i+1]), told apart by v = u[i+1:]; that leaf
// is split.
func (k *kvTree) rivestSchapire(ctx context.Context, mq oracle.Oracle, u, target mealy.Word) error {
	hyp := k.run(u)
	n := -1
	for j := range u {
		if hyp[j] != target[j] {
			n = j + 1
			break
		}
	}
	if n < 2 {
		// The hypothesis's outputs from the initial state are answers.
		return errors.New("the target answered a one-letter query differently than before (non-deterministic)")
	}
	u = u[:n]
	want := target[n-1]
	// alpha(i) asks access(δ(u[:i]))·u[i:]; alpha(0) is u itself, whose
	// last output is want, and alpha(n-1)'s last output is the
	// hypothesis's, which is not.
	answers := map[int]mealy.Word{0: target[:n]}
	alpha := func(i int) (mealy.Word, error) {
		if a, ok := answers[i]; ok {
			return a, nil
		}
		w := k.access[k.stateAfter(u[:i])].Concat(u[i:]...)
		a, err := mq.Ask(ctx, []mealy.Word{w})
		if err != nil {
			return nil, err
		}
		answers[i] = a[0].Outputs
		return a[0].Outputs, nil
	}
	lo, hi := 0, n-1
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		out, err := alpha(mid)
		if err != nil {
			return err
		}
		if out[len(out)-1] == want {
			lo = mid
		} else {
			hi = mid
		}
	}
	outLo, err := alpha(lo)
	if err != nil {
		return err
	}
	outHi, err := alpha(hi)
	if err != nil {
		return err
	}
	if outHi[len(outHi)-1] == want {
		return errors.New("no breakpoint: the target is not deterministic or the oracle is wrong")
	}
	q := k.stateAfter(u[:lo])
	tr := k.trans[q][u[lo]]
	to := tr.node.state
	v := u[lo+1:]
	return k.split(ctx, mq, to, tr, v, outHi[len(outHi)-len(v):], outLo[len(outLo)-len(v):])
}

// hypothesis builds the conjecture: a state per leaf, each transition to
// the leaf it sifted into.
func (k *kvTree) hypothesis(outputs *mealy.Alphabet) *Hypothesis {
	n := len(k.access)
	m := mealy.NewMachine(k.inputs, outputs, n)
	for q, ts := range k.trans {
		for a, t := range ts {
			m.SetTransition(q, a, t.out, t.node.state)
		}
	}
	access := make([]mealy.Word, n)
	copy(access, k.access)
	return &Hypothesis{Machine: m, Access: access}
}

// observations are what the hypothesis rests on: the states' access
// words, then the other transitions' words, each with the answers on its
// sift path (the labels from the root to its leaf); a row has no cell for
// the discriminators off its path. Rows in one leaf share their cells.
func (k *kvTree) observations() oracle.Observations {
	paths := make([][]mealy.Word, len(k.leaves))
	for s, leaf := range k.leaves {
		cells := make([]mealy.Word, len(k.cols))
		for n := leaf; n.parent != nil; n = n.parent {
			cells[n.parent.col] = n.label
		}
		paths[s] = cells
	}
	obs := oracle.Observations{States: len(k.access), Columns: slices.Clone(k.cols)}
	for s, acc := range k.access {
		obs.Rows = append(obs.Rows, acc)
		obs.Cells = append(obs.Cells, paths[s])
	}
	for _, ts := range k.trans {
		for _, t := range ts {
			if !t.tree {
				obs.Rows = append(obs.Rows, t.word)
				obs.Cells = append(obs.Cells, paths[t.node.state])
			}
		}
	}
	return obs
}
