// Package cache is the membership pipeline's memory: a prefix tree of every
// answer executed so far, that answers what it can and sends on only what
// it cannot, and everything that needs the tree: the vote that settles a
// contradiction (vote.go), the check before a model is declared final
// (final.go), the staleness of quiet answers under a calibrated timeout
// (quiet.go) and the eviction that caps the tree (evict.go). The errors it
// reports and the Observations it checks belong to the oracle floor above.
package cache

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/oracle"
)

// Cache answers queries from a prefix tree of everything executed so far:
// every prefix of an executed word, and whatever the closure's rules force
// (mealy.Semantics.Forced: every extension of an err, every wait right
// after a quiet). Only the misses of a batch go on, and of
// those only the ones that are not a prefix of another miss.
type Cache struct {
	Next            oracle.Oracle
	Sem             mealy.Semantics
	Recorder        *oracle.Recorder
	Inputs, Outputs *mealy.Alphabet
	// Repeat is how many times a query is run again when its answer
	// contradicts the tree; a clear majority (see Clear) of all its answers
	// then decides. 0 makes the first contradiction an error.
	Repeat int
	// Verify is the fraction of executed queries run once more to check
	// their answer, drawn with Rand (which must be set when Verify > 0).
	Verify float64
	Rand   *rand.Rand
	// MaxNodes caps the tree (0: no cap). Past it, the answers only the
	// equivalence phase asked are dropped, least recently used first,
	// until the tree is down to three quarters of the cap; see evict for
	// what that loses.
	MaxNodes int
	// Quiet, when set, is the current quiescence timeouts of a run that
	// calibrates them (--timeout auto); they only ever rise. See quiet.go
	// for what the cache does with them.
	Quiet oracle.QuietTimeouts
	// Lanes says what the executors are and why they should agree, for
	// the message when two of them do not (the zero value: devices).
	Lanes oracle.Lanes
	// Parallel is how many queries the executors below run at once (0
	// counts as 1); only one lane stages a batch (see staged).
	Parallel int

	mu    sync.Mutex
	root  *node
	nodes int    // in the tree, the root excluded
	tick  uint32 // counts the batches, for the nodes' used stamps
	// devices names the executors the nodes' device fields index
	// (0 is "": unknown).
	devices []string
	// path is lookup's list of the nodes on a word's path, kept for the
	// next lookup.
	path []*node
	// quiet holds, under calibrated timeouts, how long each quiet edge
	// waited (the longest of its answers); checkedAt is the count of
	// raises the edges were last checked after, stale counts the quiet
	// answers refused or dropped as stale, and replaced says one was
	// dropped or replaced since an asker was last told (ErrRevised).
	quiet     map[*node]time.Duration
	checkedAt int
	stale     int
	replaced  bool
}

// node is one executed edge. It is kept small (48 bytes, plus the children
// array of an inner node): a bound-5 round puts millions of them in the
// tree.
type node struct {
	children []*node // by input; nil until the first child
	err      *model.ErrInfo
	out      int32 // output on the edge into this node
	// runs counts the executed answers that went through this edge and
	// agreed on it: from two on, a single wrong answer cannot have put
	// its output here.
	runs int32
	// used is the tick of the last batch that went through this edge: a
	// node's is never older than its children's.
	used     uint32
	device   uint16 // who first answered the edge (Cache.devices)
	verified bool   // VerifyAll ran this leaf again
	// keep marks an edge a learning or verification query went through,
	// or a vote settled: it is never dropped, and neither are its
	// ancestors, which are marked with it.
	keep bool
}

// touch is how a lookup or an insert marks the nodes on its path: with the
// batch's tick, and as kept when the batch is not the equivalence phase's.
// A nil touch marks nothing.
type touch struct {
	tick uint32
	keep bool
}

func (t *touch) mark(n *node) {
	if t != nil {
		n.used = max(n.used, t.tick)
		n.keep = n.keep || t.keep
	}
}

// touchFor starts a batch asked under ctx. The caller holds c.mu. It is
// a value, for the caller's stack: every executed answer starts one.
func (c *Cache) touchFor(ctx context.Context) touch {
	c.tick++
	return touch{tick: c.tick, keep: oracle.PhaseOf(ctx) != oracle.PhaseEquivalence}
}

// deviceID interns an executor's name. The caller holds c.mu.
func (c *Cache) deviceID(name string) uint16 {
	if name == "" {
		return 0
	}
	for k, d := range c.devices {
		if d == name {
			return uint16(k + 1)
		}
	}
	if len(c.devices) >= 1<<16-1 {
		return 0 // more executors than a run has: the name is only for messages
	}
	c.devices = append(c.devices, name)
	return uint16(len(c.devices))
}

func (c *Cache) deviceName(id uint16) string {
	if id == 0 || int(id) > len(c.devices) {
		return ""
	}
	return c.devices[id-1]
}

// New returns an empty cache in front of next.
func New(next oracle.Oracle, inputs, outputs *mealy.Alphabet, sem mealy.Semantics, rec *oracle.Recorder) *Cache {
	return &Cache{Next: next, Sem: sem, Recorder: rec, Inputs: inputs, Outputs: outputs, root: &node{out: -1}}
}

// Lookup answers w from the tree alone.
func (c *Cache) Lookup(w mealy.Word) (oracle.Answer, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lookup(w, nil)
}

// Explain implements Explainer: what the executor said about the err that
// ends w, when w is known and its first err is its last symbol.
func (c *Cache) Explain(w mealy.Word) (*model.ErrInfo, bool) {
	a, ok := c.Lookup(w)
	if !ok || a.ErrAt != len(w)-1 || a.Err == nil {
		return nil, false
	}
	return a.Err, true
}

// knownPrefix is the outputs of the longest prefix of w the tree holds.
func (c *Cache) knownPrefix(w mealy.Word) mealy.Word {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out mealy.Word
	n := c.root
	for _, in := range w {
		if o, forced := c.Sem.Forced(int(n.out), in); forced {
			out = append(out, o)
			continue
		}
		if n.children == nil || n.children[in] == nil {
			break
		}
		n = n.children[in]
		out = append(out, int(n.out))
	}
	return out
}

// lookup answers w from the tree, marking its path with t when it is
// there.
func (c *Cache) lookup(w mealy.Word, t *touch) (oracle.Answer, bool) {
	return c.lookupInto(w, make(mealy.Word, len(w)), t)
}

// lookupInto is lookup writing the outputs into out (len(w) long), so
// that a batch's answers can share one array.
func (c *Cache) lookupInto(w, out mealy.Word, t *touch) (oracle.Answer, bool) {
	ans := oracle.Answer{Outputs: out, ErrAt: -1}
	n := c.root
	path := c.path[:0]
	for k, in := range w {
		// A forced output does not move down the tree: the harness ran
		// nothing for it.
		if o, forced := c.Sem.Forced(int(n.out), in); forced {
			ans.Outputs[k] = o
			continue
		}
		if n.children == nil || n.children[in] == nil {
			return oracle.Answer{}, false
		}
		n = n.children[in]
		if t != nil {
			path = append(path, n)
		}
		ans.Outputs[k] = int(n.out)
		if c.Sem.Closure && int(n.out) == c.Sem.Err {
			ans.ErrAt, ans.Err = k, n.err
		}
	}
	// Only a word the tree holds whole marks its path.
	for _, n := range path {
		t.mark(n)
	}
	c.path = path
	return ans, true
}

// Add puts an answer executed before (a query store's) into the tree,
// checked against what the tree holds like a fresh answer.
func (c *Cache) Add(w mealy.Word, a oracle.Answer) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	// An answer from outside (the store's) is kept like a learning one:
	// nothing says which phase will ask for it.
	c.tick++
	return c.insert(w, a, &touch{tick: c.tick, keep: true})
}

// insert adds an executed word and its answer, checking it against what the
// tree already holds, and marks its path with t.
func (c *Cache) insert(w mealy.Word, a oracle.Answer, t *touch) error {
	n := c.root
	calibrated := c.calibrated()
	for k, in := range w {
		out := a.Outputs[k]
		if forced, ok := c.Sem.Forced(int(n.out), in); ok {
			if forced == c.Sem.Err {
				return nil // the rest is err by the rule, nothing to store
			}
			if out != forced {
				return c.conflict(w, k, forced, c.deviceName(n.device), a)
			}
			continue
		}
		var needed time.Duration
		if calibrated && out == c.Sem.Quiet {
			needed = c.Quiet.Needed(w[:k+1])
		}
		if calibrated && out == c.Sem.Quiet && quietUnder(a, k) < needed {
			// Stale on arrival (its own late callback may have raised
			// the timeout): the rest is asked again.
			c.stale++
			return nil
		}
		if n.children == nil {
			n.children = make([]*node, c.Inputs.Size())
		}
		child := n.children[in]
		if calibrated && child != nil && int(child.out) == c.Sem.Quiet && (c.quiet[child] < c.Quiet.Needed(w[:k+1]) ||
			out != c.Sem.Quiet && c.quiet[child] < quietUnder(a, k)) {
			// A quiet answered under less than the current timeout, or
			// contradicted by a callback seen after waiting longer than it
			// did: it was premature.
			c.cut(n, in)
			child = nil
			c.stale++
			c.replaced = true
		}
		if child == nil {
			child = &node{out: int32(out), device: c.deviceID(a.Device)}
			if c.Sem.Closure && out == c.Sem.Err && k == a.ErrAt {
				child.err = a.Err
			}
			n.children[in] = child
			c.nodes++
			if calibrated && out == c.Sem.Quiet {
				if c.quiet == nil {
					c.quiet = map[*node]time.Duration{}
				}
				c.quiet[child] = quietUnder(a, k)
			}
		} else if int(child.out) != out {
			return c.conflict(w, k, int(child.out), c.deviceName(child.device), a)
		}
		if calibrated && out == c.Sem.Quiet {
			c.quiet[child] = max(c.quiet[child], quietUnder(a, k))
		}
		child.runs++
		t.mark(child)
		n = child
	}
	return nil
}

func (c *Cache) conflict(w mealy.Word, k int, earlier int, earlierDevice string, a oracle.Answer) error {
	before := append(append(mealy.Word(nil), a.Outputs[:k]...), earlier)
	return &oracle.NondeterminismError{Query: w[:k+1], Before: before, Now: a.Outputs[:k+1], Inputs: c.Inputs, Output: c.Outputs,
		BeforeDevice: earlierDevice, NowDevice: a.Device, Lanes: c.Lanes}
}

// Ask implements Oracle. When a vote overturns an answer the tree gave
// before, it fails with ErrRevised once the batch is in: the asker must
// start again.
func (c *Cache) Ask(ctx context.Context, queries []mealy.Word) ([]oracle.Answer, error) {
	answers := make([]oracle.Answer, len(queries))
	// One array holds every answer's outputs, each query its own part of
	// it (capped, so that an append to one cannot run into the next).
	size := 0
	for _, q := range queries {
		size += len(q)
	}
	outs := make(mealy.Word, size)
	revised := false
	// A vote can drop the answer that started it, so a batch may take
	// more than one round; each round settles at least one query.
	for round := 0; ; round++ {
		var missIdx []int
		c.mu.Lock()
		c.dropStale()
		t := c.touchFor(ctx)
		off := 0
		for k, q := range queries {
			// Every round looks every query up again: a vote may have
			// dropped or changed an answer an earlier round gave.
			end := off + len(q)
			if a, ok := c.lookupInto(q, outs[off:end:end], &t); ok {
				answers[k] = a
			} else {
				missIdx = append(missIdx, k)
			}
			off = end
		}
		c.mu.Unlock()
		if round == 0 {
			c.Recorder.CacheHits(ctx, len(queries)-len(missIdx))
		}
		if len(missIdx) == 0 {
			break
		}
		// A query may take two rounds (see essential), and a vote can
		// drop answers: each round settles at least one query.
		if round > 2*len(queries)+1 {
			return nil, fmt.Errorf("cache: query %s still unanswered after execution", c.Inputs.Format(queries[missIdx[0]]))
		}
		run := maximalWords(c.essentials(ctx, queries, missIdx), missIdx)
		if c.Sem.Closure && oracle.PhaseOf(ctx) == oracle.PhaseLearning && c.Parallel <= 1 {
			// Only the closure's rules let one word's answer answer
			// another that is no prefix of it, and a check's round needs
			// no staging: its hypothesis already tells essential where a
			// quiet or an err ends a word. Several lanes run the batch
			// whole: a round that waits for another costs them wall time
			// (measured on DroidStar's six: 0.113 of DroidStar's wall
			// time staged, 0.110 not; with spares, 0.108 and 0.104).
			c.mu.Lock()
			run = c.staged(run)
			c.mu.Unlock()
		}
		askCtx, spares := c.spares(ctx, run, round)
		askCtx = oracle.WithKnown(askCtx, c.knownPrefix)
		got, err := c.Next.Ask(askCtx, run)
		if r, serr := spares.keep(ctx, c); serr != nil {
			return nil, errors.Join(err, serr)
		} else if r {
			revised = true
		}
		if err != nil {
			return nil, c.keepPartial(ctx, run, err)
		}
		for k, w := range run {
			r, err := c.add(ctx, w, got[k])
			if err != nil {
				return nil, err
			}
			revised = revised || r
		}
		for k, w := range run {
			if c.Verify <= 0 || c.Rand.Float64() >= c.Verify {
				continue
			}
			r, err := c.check(ctx, w, got[k])
			if err != nil {
				return nil, err
			}
			revised = revised || r
		}
	}
	c.mu.Lock()
	// A stale answer dropped or replaced since the asker last heard of
	// it (an Ask that failed, or a confirmation's Add, may have left one
	// to tell) revises what it was told before.
	revised = revised || c.replaced
	c.replaced = false
	if revised {
		c.mu.Unlock()
		return nil, oracle.ErrRevised
	}
	c.evict()
	c.mu.Unlock()
	return answers, nil
}

// add inserts an executed answer, voting when it contradicts the tree.
func (c *Cache) add(ctx context.Context, w mealy.Word, a oracle.Answer) (revised bool, err error) {
	_, revised, err = c.addVoting(ctx, w, a)
	return revised, err
}

// addVoting is add that also says whether a agreed with the tree all along
// w. When it did not and the vote kept the tree's answer, the symbols of w
// after the disagreement were compared with nothing: a check of w must
// run it again.
func (c *Cache) addVoting(ctx context.Context, w mealy.Word, a oracle.Answer) (agreed, revised bool, err error) {
	c.mu.Lock()
	t := c.touchFor(ctx)
	err = c.insert(w, a, &t)
	c.mu.Unlock()
	if err == nil {
		return true, false, nil
	}
	var nd *oracle.NondeterminismError
	if c.Repeat <= 0 || !errors.As(err, &nd) {
		return false, false, err
	}
	revised, err = c.vote(ctx, nd, a)
	return false, revised, err
}

// check runs w once more and compares the answer with the tree's.
func (c *Cache) check(ctx context.Context, w mealy.Word, _ oracle.Answer) (revised bool, err error) {
	return c.recheck(ctx, []mealy.Word{w})
}

// keepPartial stores the answers a failed Ask still got, and returns the
// failure (with a disagreement those answers show, if any).
func (c *Cache) keepPartial(ctx context.Context, run []mealy.Word, err error) error {
	var pe *oracle.PartialError
	if !errors.As(err, &pe) || len(pe.Answers) != len(run) || len(pe.Answered) != len(run) {
		return err
	}
	if errors.Is(err, oracle.ErrCutOff) {
		// A cut-off batch is no failure: its answers go in as any others,
		// a contradiction settled by a vote.
		revised := false
		for k, w := range run {
			if !pe.Answered[k] {
				continue
			}
			r, aerr := c.add(ctx, w, pe.Answers[k])
			if aerr != nil {
				return aerr
			}
			revised = revised || r
		}
		if revised {
			return oracle.ErrRevised
		}
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.touchFor(ctx)
	for k, w := range run {
		if !pe.Answered[k] {
			continue
		}
		if ierr := c.insert(w, pe.Answers[k], &t); ierr != nil {
			return errors.Join(err, ierr)
		}
	}
	return err
}

// essentials returns, at the missed queries' indices, the part of each
// that has to run (see essential); the other entries are nil.
func (c *Cache) essentials(ctx context.Context, queries []mealy.Word, missIdx []int) []mealy.Word {
	if !c.Sem.Closure {
		return queries
	}
	exp, predicts := oracle.ExpectationOf(ctx)
	out := make([]mealy.Word, len(queries))
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range missIdx {
		var predicted mealy.Word
		if predicts {
			predicted = exp.Outputs(queries[k])
		}
		out[k] = c.essential(queries[k], predicted)
	}
	return out
}

// essential is the part of a missed query q that has to run for the tree
// to answer q: without the waits the closure's rules answer at once (a
// wait right after a quiet: the harness runs nothing for it) and without
// what follows an err. Two queries that differ only there, such as
// u·wait·wait·x and u·wait·x after a quiet u·wait, then run once: an
// equivalence round asks many such pairs (every suffix of the bound, wait
// included), and without this they cost a query each.
//
// Where a symbol's output comes from is the tree as far as it holds q,
// then the asker's prediction (an equivalence round's hypothesis), as
// long as the tree agreed with the prediction; past an output neither
// knows, q runs as it is. A wrong prediction only costs a round: the
// essential part's answer shows the output that differed, and the next
// round goes by the tree there. The caller holds c.mu.
func (c *Cache) essential(q, predicted mealy.Word) mealy.Word {
	var kept mealy.Word // nil until a symbol is left out
	n := c.root
	prev, inTree, trust := -1, true, len(predicted) == len(q)
	for k, in := range q {
		if o, forced := c.Sem.Forced(prev, in); forced {
			if kept == nil {
				kept = append(make(mealy.Word, 0, len(q)), q[:k]...)
			}
			if o == c.Sem.Err {
				return kept
			}
			continue
		}
		if kept != nil {
			kept = append(kept, in)
		}
		if inTree && n.children != nil && n.children[in] != nil {
			n = n.children[in]
			prev = int(n.out)
			trust = trust && predicted[k] == prev
			continue
		}
		inTree = false
		if !trust {
			if kept == nil {
				return q
			}
			return append(kept, q[k+1:]...)
		}
		prev = predicted[k]
	}
	if kept == nil {
		return q
	}
	return kept
}

// staged keeps one of a round's words per frontier edge, the first edge
// by which a word leaves the tree; the others wait for the next round.
// Words that leave by the same edge share all of their prefix up to it,
// and the answer of the first often answers the rest: an err there ends
// them all, and a quiet wait makes the next wait answer at once, so that
// u·wait·wait·x is u·wait·x once u·wait is known to be quiet. Run
// together, they would all run. On one lane this costs no time: the
// lane runs the words one after another anyway. run is longest first and
// so stays; the caller holds c.mu.
func (c *Cache) staged(run []mealy.Word) []mealy.Word {
	type edge struct {
		from *node
		in   int
	}
	seen := make(map[edge]bool, len(run))
	keep := make([]bool, len(run))
	kept := 0
	for k, w := range run {
		n, at := c.root, edge{}
		for _, in := range w {
			if _, forced := c.Sem.Forced(int(n.out), in); forced {
				continue
			}
			if n.children == nil || n.children[in] == nil {
				at = edge{n, in}
				break
			}
			n = n.children[in]
		}
		if at.from != nil && seen[at] {
			continue
		}
		seen[at] = true
		keep[k] = true
		kept++
	}
	out := make([]mealy.Word, 0, kept)
	for k, w := range run {
		if keep[k] {
			out = append(out, w)
		}
	}
	return out
}

// maximalWords returns the distinct missed queries that are not a proper
// prefix of another missed query, longest first (ties in batch order):
// executing those answers all the others. In lexicographic order a word
// that is a proper prefix of another is one of the next different word.
func maximalWords(queries []mealy.Word, idx []int) []mealy.Word {
	order := sortedWords(queries, idx)
	keep := make([]int, 0, len(order))
	for k, e := range order {
		w := queries[e.k]
		if len(w) == 0 {
			continue // runs nothing (the tree always answers it)
		}
		if k > 0 && slices.Equal(queries[order[k-1].k], w) {
			continue // the first of equal words stands for them all
		}
		next := k + 1
		for next < len(order) && slices.Equal(queries[order[next].k], w) {
			next++
		}
		if next < len(order) && queries[order[next].k].HasPrefix(w) {
			continue
		}
		keep = append(keep, e.k)
	}
	slices.SortFunc(keep, func(a, b int) int {
		if la, lb := len(queries[a]), len(queries[b]); la != lb {
			return lb - la
		}
		return a - b
	})
	out := make([]mealy.Word, len(keep))
	for k, q := range keep {
		out[k] = queries[q]
	}
	return out
}

// sortKey is a word's first symbols packed so that comparing keys
// compares words as far as they go: a byte per symbol, one more than the
// symbol so that a word's end (0) sorts before any symbol.
type sortKey struct {
	key uint64
	k   int // the query's index
}

const keySymbols = 8

// sortedWords orders the queries at idx lexicographically, equal words by
// index. Sorting a batch of hundreds of thousands of queries is most of
// maximalWords, hence the keys: most comparisons end at them.
func sortedWords(queries []mealy.Word, idx []int) []sortKey {
	order := make([]sortKey, len(idx))
	packed := true
	for j, k := range idx {
		var key uint64
		w := queries[k]
		for p := 0; p < keySymbols; p++ {
			key <<= 8
			if p < len(w) {
				if w[p] < 0 || w[p] >= 0xff {
					packed = false
				}
				key |= uint64(w[p]+1) & 0xff
			}
		}
		order[j] = sortKey{key: key, k: k}
	}
	slices.SortFunc(order, func(a, b sortKey) int {
		if packed && a.key != b.key {
			return cmp.Compare(a.key, b.key)
		}
		wa, wb := queries[a.k], queries[b.k]
		if !packed || len(wa) > keySymbols || len(wb) > keySymbols {
			if c := slices.Compare(wa, wb); c != 0 {
				return c
			}
		}
		// Equal keys of words of at most keySymbols symbols: equal words.
		return a.k - b.k
	})
	return order
}

// spareRun is the part of an asker's spares (see Spares) that went down
// with a batch, and the answers of those that ran.
type spareRun struct {
	words    []mealy.Word
	answers  []oracle.Answer
	answered []bool // each index written by one goroutine, read after the Ask
}

// spares passes the asker's spare words down with run, on a batch's
// first round only: those the tree cannot answer and that are no prefix
// of a word that runs anyway, in the asker's order. The context it
// returns carries them (or none).
func (c *Cache) spares(ctx context.Context, run []mealy.Word, round int) (context.Context, *spareRun) {
	sp, ok := oracle.SparesOf(ctx)
	if !ok {
		return ctx, nil
	}
	ctx = oracle.WithoutSpares(ctx)
	if round > 0 {
		return ctx, nil
	}
	all := make([]mealy.Word, 0, len(run)+len(sp.Words))
	all = append(all, run...)
	c.mu.Lock()
	for _, w := range sp.Words {
		if _, known := c.lookup(w, nil); !known {
			all = append(all, w)
		}
	}
	c.mu.Unlock()
	idx := make([]int, len(all))
	for k := range idx {
		idx[k] = k
	}
	maximal := map[string]bool{}
	for _, w := range maximalWords(all, idx) {
		maximal[w.Key()] = true
	}
	for _, w := range run {
		delete(maximal, w.Key())
	}
	s := &spareRun{}
	for _, w := range all[len(run):] {
		if k := w.Key(); maximal[k] {
			delete(maximal, k) // the first of equal words stands for them all
			s.words = append(s.words, w)
		}
	}
	if len(s.words) == 0 {
		return ctx, nil
	}
	s.answers, s.answered = make([]oracle.Answer, len(s.words)), make([]bool, len(s.words))
	return oracle.WithSpares(ctx, oracle.Spares{Words: s.words, Answered: func(k int, a oracle.Answer) {
		s.answers[k], s.answered[k] = a, true
	}}), s
}

// keep adds the spares that ran to the tree, as any executed answer.
func (s *spareRun) keep(ctx context.Context, c *Cache) (revised bool, err error) {
	if s == nil {
		return false, nil
	}
	ctx = oracle.WithoutSpares(ctx)
	for k, w := range s.words {
		if !s.answered[k] {
			continue
		}
		r, err := c.add(ctx, w, s.answers[k])
		if err != nil {
			return revised, err
		}
		revised = revised || r
	}
	return revised, nil
}
