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

// LSharp is L# (Vaandrager, Melse, Garhewal, Smetsers, "A New Approach
// for Active Automata Learning Based on Apartness", TACAS 2022): it keeps
// every answer in an observation tree, a basis of tree nodes known to be
// pairwise apart (the hypothesis's states) and their one-letter successors,
// the frontier, each with the basis nodes it is not yet apart from. The
// rules (paper §3, Algorithm 1) are applied as AALpy's LSharp does
// (aalpy/learning_algs/deterministic/ObservationTree.py), but every
// membership query a step needs is independent of the others, so each step
// asks all of them in one batch, for several devices at once, and the
// words appended to a query follow what the last hypothesis predicts:
//
//   - promotion: a frontier node apart from every basis node joins the basis
//     (one at a time: two promoted together could be the same state);
//   - extension: a basis node with no successor on an input gets one, by
//     asking access·input·σ, σ the word that identifies the successor if it
//     is the state the last hypothesis predicts (before the first, a word
//     that tells the basis nodes apart); these come in a batch before any
//     identification;
//   - identification (separation): a frontier node with two or more
//     candidates is asked the word that tells the predicted candidate from
//     the others (where there is none, a word that splits its candidates
//     as finely as the tree predicts), unless a basis-side query, one from
//     a candidate on a word several frontier nodes hold, rules the others
//     out for all of them at once; after the first hypothesis, every
//     extension and identification query ends with the word that
//     identifies the state the hypothesis says it reaches;
//   - equivalence: when every frontier node has one candidate, the
//     hypothesis is checked against the tree (a disagreement is a
//     counterexample that costs no query), then by eq; a counterexample is
//     processed by binary search over the observation tree (paper §3.3,
//     AALpy's _process_binary_search), each step one query.
//
// Answers under the closure semantics already account for err being
// absorbing, so nothing here knows of it.
func LSharp(ctx context.Context, inputs, outputs *mealy.Alphabet, mq oracle.Oracle, eq EquivalenceOracle, opts Options) (*Result, error) {
	l := newLSharp(inputs, mq)
	l.estimate = opts.OnEstimate
	res := &Result{}
	fail := func(err error) (*Result, error) {
		if res.Hypothesis != nil {
			return res, err
		}
		return nil, err
	}
	for {
		h, err := l.buildHypothesis(ctx, outputs)
		if err != nil {
			return fail(err)
		}
		res.Hypothesis = h
		res.Rows, res.Columns = len(l.basis)*l.k, 0
		res.EQs++
		if opts.OnHypothesis != nil {
			opts.OnHypothesis(res.EQs, h)
		}
		cex, err := eq.FindCounterexample(ctx, h)
		if err != nil {
			return fail(fmt.Errorf("equivalence query %d: %w", res.EQs, err))
		}
		if cex == nil {
			res.Observations = l.observations(h)
			res.Columns = len(res.Observations.Columns)
			return res, nil
		}
		if opts.MaxRounds > 0 && res.EQs >= opts.MaxRounds {
			res.Observations = l.observations(h)
			return res, ErrMaxRounds
		}
		if err := l.counterexample(ctx, h, cex.Word); err != nil {
			return fail(fmt.Errorf("counterexample %s: %w", inputs.Format(cex.Word), err))
		}
	}
}

// otree is the observation tree: node 0 is the root (the empty word); a
// node's children are indexed by input, and out[c] is the output on the
// edge into c.
type otree struct {
	k      int
	kids   [][]int32 // nil until the node has a child
	out    []int32
	parent []int32
	via    []int32
	// stamp[n] is the generation in which n's subtree last grew: a pair
	// of nodes checked not apart since then is still not apart.
	stamp []int32
	gen   int32
}

func newTree(k int) *otree {
	return &otree{k: k, kids: [][]int32{nil}, out: []int32{-1}, parent: []int32{-1}, via: []int32{-1}, stamp: []int32{0}}
}

func (t *otree) child(n int32, in int) int32 {
	if t.kids[n] == nil {
		return -1
	}
	return t.kids[n][in]
}

// node is the node w leads to, or -1 when the tree does not hold w.
func (t *otree) node(w mealy.Word) int32 { return t.node2(0, w) }

// insert adds the answer outs to w; an output that contradicts one the
// tree holds means the target is not deterministic.
func (t *otree) insert(w, outs mealy.Word) error {
	n := int32(0)
	for j, in := range w {
		c := t.child(n, in)
		if c < 0 {
			if t.kids[n] == nil {
				t.kids[n] = make([]int32, t.k)
				for i := range t.kids[n] {
					t.kids[n][i] = -1
				}
			}
			c = int32(len(t.out))
			t.kids[n][in] = c
			t.kids = append(t.kids, nil)
			t.out = append(t.out, int32(outs[j]))
			t.parent = append(t.parent, n)
			t.via = append(t.via, int32(in))
			t.stamp = append(t.stamp, t.gen)
			for a := n; a >= 0 && t.stamp[a] != t.gen; a = t.parent[a] {
				t.stamp[a] = t.gen
			}
		} else if t.out[c] != int32(outs[j]) {
			return fmt.Errorf("the answer to a query disagrees at symbol %d with an earlier answer to the same prefix: the target is not deterministic", j+1)
		}
		n = c
	}
	return nil
}

// node2 is the node w leads to from n, or -1.
func (t *otree) node2(n int32, w mealy.Word) int32 {
	for _, in := range w {
		if n = t.child(n, in); n < 0 {
			return -1
		}
	}
	return n
}

// access is the word leading to n.
func (t *otree) access(n int32) mealy.Word {
	d := 0
	for m := n; m > 0; m = t.parent[m] {
		d++
	}
	w := make(mealy.Word, d)
	for m := n; m > 0; m = t.parent[m] {
		d--
		w[d] = int(t.via[m])
	}
	return w
}

// outputs is what the tree holds for w read from n, or ok=false when it
// does not hold all of it.
func (t *otree) outputs(n int32, w mealy.Word) (mealy.Word, bool) {
	out := make(mealy.Word, len(w))
	for j, in := range w {
		if n = t.child(n, in); n < 0 {
			return nil, false
		}
		out[j] = int(t.out[n])
	}
	return out, true
}

// apartness finds witnesses of apartness: words that two nodes both have
// in the tree with different outputs. Its buffers are reused.
type apartness struct {
	t     *otree
	queue [][2]int32
	from  []int32 // index in queue of the pair a pair came from
}

// apart says whether a and b are apart, without building a witness.
func (ap *apartness) apart(a, b int32) bool {
	t := ap.t
	ap.queue = append(ap.queue[:0], [2]int32{a, b})
	for k := 0; k < len(ap.queue); k++ {
		x, y := ap.queue[k][0], ap.queue[k][1]
		kx, ky := t.kids[x], t.kids[y]
		if kx == nil || ky == nil {
			continue
		}
		for in, cx := range kx {
			cy := ky[in]
			if cx < 0 || cy < 0 {
				continue
			}
			if t.out[cx] != t.out[cy] {
				return true
			}
			ap.queue = append(ap.queue, [2]int32{cx, cy})
		}
	}
	return false
}

// witness is a shortest word that tells a and b apart in the tree, or nil.
func (ap *apartness) witness(a, b int32) mealy.Word {
	t := ap.t
	ap.queue = append(ap.queue[:0], [2]int32{a, b})
	ap.from = append(ap.from[:0], -1)
	for k := 0; k < len(ap.queue); k++ {
		x, y := ap.queue[k][0], ap.queue[k][1]
		kx, ky := t.kids[x], t.kids[y]
		if kx == nil || ky == nil {
			continue
		}
		for in, cx := range kx {
			cy := ky[in]
			if cx < 0 || cy < 0 {
				continue
			}
			if t.out[cx] != t.out[cy] {
				var w mealy.Word
				w = append(w, in)
				for p := k; p > 0; p = int(ap.from[p]) {
					w = append(w, int(t.via[ap.queue[p][0]]))
				}
				slices.Reverse(w)
				return w
			}
			ap.queue = append(ap.queue, [2]int32{cx, cy})
			ap.from = append(ap.from, int32(k))
		}
	}
	return nil
}

type lsharp struct {
	k       int
	inputs  *mealy.Alphabet
	mq      oracle.Oracle
	t       *otree
	ap      *apartness
	basis   []int32       // basis nodes; hypothesis state q is basis[q]
	basisOf map[int32]int // basis node → its index
	// frontier maps each frontier node to the indices of the basis nodes
	// it is not apart from; order keeps the frontier in the order found.
	frontier map[int32][]int
	order    []int32
	// checked is the tree generation in which each frontier node's
	// candidates were last pruned.
	checked map[int32]int32
	// witnesses caches a separating word per pair of basis indices.
	witnesses map[[2]int]mealy.Word
	// prev is the last hypothesis built: its state q is basis[q], and it
	// predicts which basis node a new node will turn out to be.
	prev *Hypothesis
	// identifying memoizes identify(p, every basis node) for the tree
	// generation and basis size in identifyingAt.
	identifying   map[int]mealy.Word
	identifyingAt [2]int
	// estimate is Options.OnEstimate.
	estimate func(queries int)
}

func newLSharp(inputs *mealy.Alphabet, mq oracle.Oracle) *lsharp {
	t := newTree(inputs.Size())
	return &lsharp{k: inputs.Size(), inputs: inputs, mq: mq, t: t, ap: &apartness{t: t},
		basis: []int32{0}, basisOf: map[int32]int{0: 0}, frontier: map[int32][]int{}, checked: map[int32]int32{}, witnesses: map[[2]int]mealy.Word{}}
}

// ask runs one batch of queries and puts the answers into the tree.
func (l *lsharp) ask(ctx context.Context, queries []mealy.Word) ([]oracle.Answer, error) {
	if len(queries) == 0 {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	answers, err := l.mq.Ask(ctx, queries)
	if err != nil {
		return nil, err
	}
	l.t.gen++
	for k, q := range queries {
		if len(answers[k].Outputs) != len(q) {
			return nil, fmt.Errorf("internal: %d outputs for a query of %d inputs", len(answers[k].Outputs), len(q))
		}
		if err := l.t.insert(q, answers[k].Outputs); err != nil {
			return nil, fmt.Errorf("query %s: %w", l.inputs.Format(q), err)
		}
	}
	return answers, nil
}

// witness is a separating word of basis nodes p and q (cached: the tree
// only grows, so a witness stays one).
func (l *lsharp) witness(p, q int) mealy.Word {
	key := [2]int{min(p, q), max(p, q)}
	if w, ok := l.witnesses[key]; ok {
		return w
	}
	w := l.ap.witness(l.basis[p], l.basis[q])
	l.witnesses[key] = w
	return w
}

// updateFrontier adds every successor of a basis node that is neither
// basis nor frontier to the frontier, and drops from each frontier node's
// candidates the basis nodes it is now apart from.
func (l *lsharp) updateFrontier() {
	for _, b := range l.basis {
		kids := l.t.kids[b]
		if kids == nil {
			continue
		}
		for _, c := range kids {
			if c < 0 {
				continue
			}
			if _, ok := l.basisOf[c]; ok {
				continue
			}
			if _, ok := l.frontier[c]; ok {
				continue
			}
			cands := make([]int, 0, len(l.basis))
			for q, bq := range l.basis {
				if !l.ap.apart(c, bq) {
					cands = append(cands, q)
				}
			}
			l.frontier[c] = cands
			l.checked[c] = l.t.gen
			l.order = append(l.order, c)
		}
	}
	for _, f := range l.order {
		l.prune(f)
	}
}

// prune drops the candidates f is apart from, checking again only the
// pairs of which a subtree grew since f was last pruned.
func (l *lsharp) prune(f int32) {
	since := l.checked[f]
	if since == l.t.gen {
		return
	}
	l.checked[f] = l.t.gen
	fresh := l.t.stamp[f] > since
	cands := l.frontier[f]
	kept := cands[:0]
	for _, q := range cands {
		if b := l.basis[q]; (!fresh && l.t.stamp[b] <= since) || !l.ap.apart(f, b) {
			kept = append(kept, q)
		}
	}
	l.frontier[f] = kept
}

// promote moves frontier nodes apart from every basis node into the basis,
// one at a time, each becoming a candidate of the frontier nodes it is not
// apart from (promotion rule). It reports whether it promoted any.
func (l *lsharp) promote() bool {
	promoted := false
	for {
		at := -1
		for k, f := range l.order {
			if len(l.frontier[f]) == 0 {
				at = k
				break
			}
		}
		if at < 0 {
			return promoted
		}
		promoted = true
		f := l.order[at]
		l.order = slices.Delete(l.order, at, at+1)
		delete(l.frontier, f)
		q := len(l.basis)
		l.basis = append(l.basis, f)
		l.basisOf[f] = q
		for _, g := range l.order {
			if !l.ap.apart(g, f) {
				l.frontier[g] = append(l.frontier[g], q)
			}
		}
		l.updateFrontier()
	}
}

// adequate makes the tree adequate: every basis node has a successor on
// every input, and every frontier node exactly one candidate. Each round
// promotes what it can, then asks in one batch the extension queries of
// the missing successors, and once there are none, in one batch the
// identification queries of the frontier nodes with several candidates.
// Extension comes first because its answers show which successors are
// new states (promoted before anything is identified against a basis
// that is about to grow) and give the basis nodes the subtrees that
// identification words are built from.
func (l *lsharp) adequate(ctx context.Context) error {
	l.updateFrontier()
	for {
		l.promote()
		queries := l.extension()
		guess := 2 * len(queries) // each new successor may need identifying
		if len(queries) == 0 {
			queries = l.identification()
			guess = len(queries)
		}
		if len(queries) == 0 {
			return nil
		}
		if l.estimate != nil {
			l.estimate(guess)
		}
		if _, err := l.ask(ctx, queries); err != nil {
			return err
		}
		l.updateFrontier()
	}
}

// extension is the extension rule's queries: for every missing successor
// of a basis node, its access word with a word appended that identifies
// the successor if it is the state the last hypothesis predicts, and then
// the state that word leads to (see identifyingTail). Before the first
// hypothesis there is no prediction, and the word appended is one that
// tells the basis nodes apart (AALpy appends a separating word of two).
func (l *lsharp) extension() []mealy.Word {
	var queries []mealy.Word
	var sepAll mealy.Word
	sepDone := false
	for _, b := range l.basis {
		for in := 0; in < l.k; in++ {
			if l.t.child(b, in) >= 0 {
				continue
			}
			w := l.t.access(b).Concat(in)
			if p := l.predict(w); p >= 0 {
				queries = append(queries, l.identifyingTail(append(w, l.identifyAll(p)...)))
				continue
			}
			if !sepDone {
				sepAll, sepDone = l.separate(l.allBasis()), true
			}
			queries = append(queries, append(w, sepAll...))
		}
	}
	return queries
}

// identification is the identification rule's queries, for every frontier
// node with two or more candidates. Where the last hypothesis predicts one
// of them, the word appended follows that candidate (identify) and one
// query settles the node if the prediction holds; otherwise it is the
// greedy word of separate. Either is followed by identifyingTail. Before
// those, a basis-side query can rule a candidate out for many frontier
// nodes at once (see basisSide).
func (l *lsharp) identification() []mealy.Word {
	var queries []mealy.Word
	var opens []openNode
	for _, f := range l.order {
		cands := l.frontier[f]
		if len(cands) < 2 {
			continue
		}
		w := l.t.access(f)
		p := l.predict(w)
		if p < 0 || !slices.Contains(cands, p) {
			queries = append(queries, l.identifyingTail(append(w, l.separate(cands)...)))
			continue
		}
		rest := make([]int, 0, len(cands)-1)
		for _, c := range cands {
			if c != p {
				rest = append(rest, c)
			}
		}
		opens = append(opens, openNode{f, p, rest})
	}
	queries = append(queries, l.basisSide(opens)...)
	for _, o := range opens {
		if len(o.rest) == 0 {
			continue
		}
		w := l.t.access(o.f).Concat(l.identify(o.p, append([]int{o.p}, o.rest...))...)
		queries = append(queries, l.identifyingTail(w))
	}
	return queries
}

// openNode is a frontier node to identify, predicted to be basis index p,
// with the other candidates it is not yet apart from.
type openNode struct {
	f    int32
	p    int
	rest []int
}

// basisSide asks, for each candidate c that two or more open nodes share,
// c's access word followed by a word those nodes' subtrees already hold,
// chosen so that c's predicted outputs (predictOutputs) differ from the
// most of them: if the prediction holds, the answer makes all of those
// apart from c, one query instead of one each. It drops c from the open
// nodes it expects to rule it out for; a wrong prediction only leaves the
// node for the next round.
func (l *lsharp) basisSide(opens []openNode) []mealy.Word {
	byCand := map[int][]int{} // candidate → indices into opens
	for k, o := range opens {
		for _, c := range o.rest {
			byCand[c] = append(byCand[c], k)
		}
	}
	cands := make([]int, 0, len(byCand))
	for c, ks := range byCand {
		if len(ks) > 1 {
			cands = append(cands, c)
		}
	}
	slices.Sort(cands)
	var queries []mealy.Word
	for _, c := range cands {
		ks := byCand[c]
		var words []mealy.Word
		for _, k := range ks {
			if len(words) >= basisSideWords {
				break
			}
			words = l.leaves(opens[k].f, words, leavesPerNode)
		}
		var best mealy.Word
		var ruledOut []int
		for _, w := range words {
			pred := l.predictOutputs(c, w)
			var hit []int
			for _, k := range ks {
				if l.differs(opens[k].f, w, pred) {
					hit = append(hit, k)
				}
			}
			if len(hit) > len(ruledOut) {
				best, ruledOut = w, hit
			}
		}
		if len(ruledOut) < 2 {
			continue
		}
		queries = append(queries, l.t.access(l.basis[c]).Concat(best...))
		for _, k := range ruledOut {
			o := &opens[k]
			o.rest = slices.DeleteFunc(o.rest, func(x int) bool { return x == c })
		}
	}
	return queries
}

// basisSideWords bounds the words basisSide weighs per candidate, taking
// up to leavesPerNode from each open node's subtree: each costs a pass
// over the candidate's open nodes.
const (
	basisSideWords = 64
	leavesPerNode  = 8
)

// identifyingTail appends to q the word that identifies the state the last
// hypothesis reaches by q (identifyAll). It costs symbols, not queries, and
// pays twice: nodes the hypothesis takes for the same state get the same
// words, so one that is really a new state turns apart from its candidate,
// or from a new basis node, in the tree alone, without a query of its own
// or a counterexample; and the deeper subtrees give basisSide and identify
// more words to choose from.
func (l *lsharp) identifyingTail(q mealy.Word) mealy.Word {
	if l.prev == nil {
		return q
	}
	return append(q, l.identifyAll(l.prev.Machine.StateAfter(q))...)
}

// leaves appends to ws up to max words that lead from n to leaves of its
// subtree.
func (l *lsharp) leaves(n int32, ws []mealy.Word, max int) []mealy.Word {
	found := 0
	var walk func(n int32, w mealy.Word)
	walk = func(n int32, w mealy.Word) {
		if found == max {
			return
		}
		leaf := true
		for in, c := range l.t.kids[n] {
			if c >= 0 {
				leaf = false
				walk(c, append(w, in))
			}
		}
		if leaf && len(w) > 0 {
			ws = append(ws, slices.Clone(w))
			found++
		}
	}
	walk(n, nil)
	return ws
}

// predictOutputs is what basis node c is expected to answer to w: the
// tree's outputs as far as it holds them, then the last hypothesis's.
func (l *lsharp) predictOutputs(c int, w mealy.Word) mealy.Word {
	out := make(mealy.Word, 0, len(w))
	n := l.basis[c]
	j := 0
	for ; j < len(w); j++ {
		m := l.t.child(n, w[j])
		if m < 0 {
			break
		}
		out = append(out, int(l.t.out[m]))
		n = m
	}
	if j == len(w) || l.prev == nil {
		return out
	}
	m := l.prev.Machine
	q := m.StateAfter(l.t.access(n))
	for ; j < len(w); j++ {
		out = append(out, m.Out[q][w[j]])
		q = m.Next[q][w[j]]
	}
	return out
}

// differs says whether the tree holds a prefix of w from n whose outputs
// differ from pred.
func (l *lsharp) differs(n int32, w, pred mealy.Word) bool {
	for j, in := range w {
		if j >= len(pred) {
			return false
		}
		if n = l.t.child(n, in); n < 0 {
			return false
		}
		if int(l.t.out[n]) != pred[j] {
			return true
		}
	}
	return false
}

// separate builds the word to append to a query whose node could be any
// of the basis nodes cands: a preset word that, as the tree predicts
// each candidate's outputs, tells as many candidates apart as it can.
// AALpy's L# asks an adaptive distinguishing sequence here, choosing each
// input after seeing the last output; a batched query cannot, so the word
// is built greedily instead: while two candidates that the word so far
// gives the same outputs can both still be followed in the tree, append a
// separating word of the nodes they have reached. If the query's node
// behaves like one candidate, it ends apart from every candidate the word
// tells from that one, so one query usually identifies it.
func (l *lsharp) separate(cands []int) mealy.Word {
	if len(cands) < 2 {
		return nil
	}
	type track struct {
		node  int32 // where the candidate is after the word so far; -1: lost
		group int   // candidates with the same outputs so far share a group
	}
	tracks := make([]track, len(cands))
	for k, q := range cands {
		tracks[k] = track{node: l.basis[q]}
	}
	var word mealy.Word
	groups := 1
	for piece := 0; piece < maxSeparatePieces; piece++ {
		// The first two followable candidates of a group with several.
		x, y := -1, -1
		first := make(map[int]int, groups)
		for k, tr := range tracks {
			if tr.node < 0 {
				continue
			}
			if j, ok := first[tr.group]; ok {
				if w := l.ap.witness(tracks[j].node, tr.node); w != nil {
					x, y = j, k
					break
				}
				continue
			}
			first[tr.group] = k
		}
		if x < 0 {
			break
		}
		w := l.ap.witness(tracks[x].node, tracks[y].node)
		word = append(word, w...)
		// Regroup: same group before and same outputs on w; a candidate
		// the tree cannot follow through w keeps a group of its own kind
		// (lost), since its outputs are unknown.
		type key struct {
			group int
			out   string
		}
		split := map[key]int{}
		for k := range tracks {
			tr := &tracks[k]
			kk := key{group: tr.group, out: "?"}
			if tr.node >= 0 {
				if out, ok := l.t.outputs(tr.node, w); ok {
					kk.out = out.Key()
					tr.node = l.t.node2(tr.node, w)
				} else {
					tr.node = -1
				}
			}
			if _, ok := split[kk]; !ok {
				split[kk] = len(split)
			}
			tr.group = split[kk]
		}
		groups = len(split)
	}
	return word
}

// predict is the basis index of the state the last hypothesis reaches by
// w, or -1 before the first hypothesis.
func (l *lsharp) predict(w mealy.Word) int {
	if l.prev == nil {
		return -1
	}
	return l.prev.Machine.StateAfter(w)
}

// identifyAll is identify(p, every basis node), memoized for the tree as
// it stands: one batch asks it for the same p many times.
func (l *lsharp) identifyAll(p int) mealy.Word {
	at := [2]int{int(l.t.gen), len(l.basis)}
	if l.identifying == nil || l.identifyingAt != at {
		l.identifying, l.identifyingAt = map[int]mealy.Word{}, at
	}
	w, ok := l.identifying[p]
	if !ok {
		w = l.identify(p, l.allBasis())
		l.identifying[p] = w
	}
	return w
}

func (l *lsharp) allBasis() []int {
	all := make([]int, len(l.basis))
	for q := range all {
		all[q] = q
	}
	return all
}

// identify builds the word to append to a query whose node is predicted
// to behave as basis node p but could be any of cands: one branch of an
// adaptive distinguishing sequence, the one p's outputs take. AALpy's L#
// asks the whole sequence, choosing each input after seeing the last
// output; a droidstar query is a fixed word, so the word follows the
// prediction instead. It follows p's subtree and appends, piece by piece,
// a witness the tree holds from p's node and from another candidate's
// with different outputs: of the first identifyWords distinct ones, the
// one that tells p's node from the most candidates left (the shortest of
// those). If the prediction holds, one query leaves the node apart from
// every candidate but p.
func (l *lsharp) identify(p int, cands []int) mealy.Word {
	pn := l.basis[p]
	var nodes []int32 // the other candidates' nodes, not yet told apart
	for _, c := range cands {
		if c != p {
			nodes = append(nodes, l.basis[c])
		}
	}
	var word mealy.Word
	for piece := 0; piece < maxIdentifyPieces && len(nodes) > 0; piece++ {
		var best mealy.Word
		bestSep := 0
		seen := map[string]bool{}
		for _, n := range nodes {
			if len(seen) == identifyWords {
				break
			}
			u := l.ap.witness(pn, n)
			if u == nil || seen[u.Key()] {
				continue
			}
			seen[u.Key()] = true
			sep := 0
			for _, m := range nodes {
				if l.tellsApart(pn, m, u) {
					sep++
				}
			}
			if sep > bestSep || (sep == bestSep && len(u) < len(best)) {
				best, bestSep = u, sep
			}
		}
		if best == nil {
			break
		}
		word = append(word, best...)
		kept := nodes[:0]
		for _, m := range nodes {
			if l.tellsApart(pn, m, best) {
				continue
			}
			if m = l.t.node2(m, best); m >= 0 {
				kept = append(kept, m)
			}
		}
		nodes = kept
		pn = l.t.node2(pn, best)
	}
	return word
}

// tellsApart says whether the tree holds a prefix of u from both a and b
// with different outputs at its end.
func (l *lsharp) tellsApart(a, b int32, u mealy.Word) bool {
	t := l.t
	for _, in := range u {
		a, b = t.child(a, in), t.child(b, in)
		if a < 0 || b < 0 {
			return false
		}
		if t.out[a] != t.out[b] {
			return true
		}
	}
	return false
}

// maxIdentifyPieces bounds the witnesses identify strings together; the
// candidates it has not told apart by then are usually those the tree
// cannot follow.
const maxIdentifyPieces = 8

// identifyWords bounds the distinct witnesses identify weighs per piece:
// each costs a pass over the candidates left, and on the Mealy suite and
// random machines more than a few dozen never chose another word.
const identifyWords = 32

// maxSeparatePieces bounds the separating words separate strings
// together: each piece costs symbols, and after a few the candidates left
// together are usually those the tree cannot follow.
const maxSeparatePieces = 6

// hypothesis builds the conjecture of an adequate tree.
func (l *lsharp) hypothesis(outputs *mealy.Alphabet) (*Hypothesis, error) {
	m := mealy.NewMachine(l.inputs, outputs, len(l.basis))
	access := make([]mealy.Word, len(l.basis))
	for q, b := range l.basis {
		access[q] = l.t.access(b)
		for in := 0; in < l.k; in++ {
			c := l.t.child(b, in)
			if c < 0 {
				return nil, errors.New("internal: a basis node lacks a successor")
			}
			to, ok := l.basisOf[c]
			if !ok {
				cands := l.frontier[c]
				if len(cands) != 1 {
					return nil, errors.New("internal: a frontier node is not identified")
				}
				to = cands[0]
			}
			m.SetTransition(q, in, int(l.t.out[c]), to)
		}
	}
	return &Hypothesis{Machine: m, Access: access}, nil
}

// buildHypothesis makes the tree adequate and builds the hypothesis, until
// the hypothesis agrees with everything the tree holds: a disagreement is
// a counterexample the tree already answers (AALpy's build_hypothesis).
func (l *lsharp) buildHypothesis(ctx context.Context, outputs *mealy.Alphabet) (*Hypothesis, error) {
	for {
		if err := l.adequate(ctx); err != nil {
			return nil, err
		}
		h, err := l.hypothesis(outputs)
		if err != nil {
			return nil, err
		}
		l.prev = h
		w := l.disagreement(h)
		if w == nil {
			return h, nil
		}
		if err := l.processCounterexample(ctx, h, w); err != nil {
			return nil, err
		}
	}
}

// disagreement is a shortest word the tree answers differently from h, or
// nil.
func (l *lsharp) disagreement(h *Hypothesis) mealy.Word {
	type item struct {
		n int32
		q int
	}
	queue := []item{{0, h.Machine.Initial}}
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		kids := l.t.kids[it.n]
		if kids == nil {
			continue
		}
		for in, c := range kids {
			if c < 0 {
				continue
			}
			if int(l.t.out[c]) != h.Machine.Out[it.q][in] {
				return l.t.access(c)
			}
			queue = append(queue, item{c, h.Machine.Next[it.q][in]})
		}
	}
	return nil
}

// counterexample asks the counterexample word (the equivalence oracle has
// usually asked it already, and the cache answers it) and processes it.
func (l *lsharp) counterexample(ctx context.Context, h *Hypothesis, w mealy.Word) error {
	if l.estimate != nil {
		// Asking w, the binary search, and extending and identifying
		// the state it shows.
		l.estimate(1 + bits.Len(uint(len(w))) + 2*l.k)
	}
	if _, err := l.ask(ctx, []mealy.Word{w}); err != nil {
		return err
	}
	return l.processCounterexample(ctx, h, w)
}

// processCounterexample cuts w, which the tree holds, before its first
// output the hypothesis gets wrong, and finds by binary search a node that
// is apart from its hypothesis state, so that the frontier gains an
// isolated or re-identified node.
func (l *lsharp) processCounterexample(ctx context.Context, h *Hypothesis, w mealy.Word) error {
	got, ok := l.t.outputs(0, w)
	if !ok {
		return errors.New("internal: the counterexample is not in the tree")
	}
	want, _ := h.Machine.Run(w)
	idx := -1
	for j := range w {
		if got[j] != want[j] {
			idx = j
			break
		}
	}
	if idx < 0 {
		return errors.New("the hypothesis already answers it as the target does (is the target deterministic?)")
	}
	return l.binarySearch(ctx, h, slices.Clone(w[:idx]))
}

// binarySearch is the paper's counterexample processing (§3.3): sigma's
// node is apart from the basis node of its hypothesis state; if it is not
// basis or frontier, take the midpoint of sigma between the frontier node
// it passes and its end, sigma = s1·s2, and ask access(δ(s1))·s2·witness.
// Either s1's node is then apart from δ(s1)'s basis node, and the search
// continues on s1, or access(δ(s1))·s2 is a shorter word apart from its
// state, and it continues there.
func (l *lsharp) binarySearch(ctx context.Context, h *Hypothesis, sigma mealy.Word) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		l.updateFrontier()
		l.promote()
		n := l.t.node(sigma)
		if n < 0 {
			return errors.New("internal: the counterexample's prefix is not in the tree")
		}
		if _, ok := l.basisOf[n]; ok {
			return nil
		}
		if _, ok := l.frontier[n]; ok {
			return nil
		}
		hypNode := l.basis[h.Machine.StateAfter(sigma)]
		// The prefix of sigma up to the frontier node it passes.
		j, cur := 0, int32(0)
		for j < len(sigma) {
			if _, ok := l.frontier[cur]; ok {
				break
			}
			cur = l.t.child(cur, sigma[j])
			j++
		}
		mid := (j + len(sigma)) / 2
		s1, s2 := sigma[:mid], sigma[mid:]
		q1 := h.Machine.StateAfter(s1)
		witness := l.ap.witness(n, hypNode)
		if witness == nil {
			return errors.New("internal: binary search lost the apartness it rests on")
		}
		access := l.t.access(l.basis[q1])
		query := access.Concat(s2...)
		query = append(query, witness...)
		if _, err := l.ask(ctx, []mealy.Word{query}); err != nil {
			return err
		}
		if n1 := l.t.node(s1); n1 >= 0 && l.ap.apart(n1, l.basis[q1]) {
			sigma = slices.Clone(s1)
		} else {
			sigma = access.Concat(s2...)
		}
	}
}

// observations are what the final hypothesis rests on: the basis access
// words (the states) and the frontier words as rows, and as columns a set
// of separating words that tells every two basis nodes apart. A cell is
// the hypothesis's output, which agrees with every answer the tree holds;
// where the tree holds none the final check finds no executed answer to
// re-run either, so predicted cells add no work, only the row's class.
func (l *lsharp) observations(h *Hypothesis) oracle.Observations {
	rows := slices.Clone(h.Access)
	states := make([]int, 0, len(l.basis)*(l.k+1))
	for q := range l.basis {
		states = append(states, q)
	}
	for q, b := range l.basis {
		for in := 0; in < l.k; in++ {
			c := l.t.child(b, in)
			if _, ok := l.basisOf[c]; ok {
				continue
			}
			rows = append(rows, h.Access[q].Concat(in))
			states = append(states, h.Machine.Next[q][in])
		}
	}
	cols := l.columns(h)
	// A cell holds what the tree observed, or nil where the tree never
	// asked that word: the final check re-runs answers, and a prediction
	// is none (internal/oracle/final.go compares rows on the cells both
	// hold).
	cells := make([][]mealy.Word, len(rows))
	for r, row := range rows {
		cells[r] = make([]mealy.Word, len(cols))
		n := l.t.node(row)
		if n < 0 {
			continue
		}
		for c, e := range cols {
			if out, ok := l.t.outputs(n, e); ok {
				cells[r][c] = out
			}
		}
	}
	return oracle.Observations{Rows: rows, States: len(l.basis), Columns: cols, Cells: cells}
}

// columns picks separating words of basis pairs: for each pair that no
// column so far tells apart by what the tree observed for both, its
// witness (a word both hold with different outputs). So every two states
// differ on a cell the target answered, which the final check can re-run.
func (l *lsharp) columns(h *Hypothesis) []mealy.Word {
	n := len(l.basis)
	nodes := make([]int32, n)
	for q := range nodes {
		nodes[q] = l.t.node(h.Access[q])
	}
	var cols []mealy.Word
	apart := func(p, q int) bool {
		if nodes[p] < 0 || nodes[q] < 0 {
			return false
		}
		for _, w := range cols {
			a, okA := l.t.outputs(nodes[p], w)
			b, okB := l.t.outputs(nodes[q], w)
			if okA && okB && !a.Equal(b) {
				return true
			}
		}
		return false
	}
	for p := 0; p < n; p++ {
		for q := p + 1; q < n; q++ {
			if apart(p, q) {
				continue
			}
			if w := l.witness(p, q); w != nil {
				cols = append(cols, w)
			}
		}
	}
	return cols
}
