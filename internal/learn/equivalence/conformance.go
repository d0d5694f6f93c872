package equivalence

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"

	"github.com/droidstar/droidstar/internal/learn"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/oracle"
)

// The conformance oracles test a hypothesis that the Bound oracle passed
// for differences the bound cannot see: states that differ only on longer
// words, and states the hypothesis has not found at all. They share the
// Bound oracle's rules for what a word may be:
//
//   - A step is a free symbol and, when it is a followed_by_wait callin
//     (mealy.Forcing), the wait it forces: every forcing input in an asked
//     word is followed by its wait, and lengths (walk lengths, Wp depths)
//     count steps. Where a word built from other parts would put anything
//     but the wait after a forcing input, it is cut there and the wait
//     appended: the restrictions would answer the rest err on both sides.
//   - Under closure semantics a word ends with the step in which the
//     hypothesis first answers err: the target's closure makes every
//     extension of an err err, so the rest could only agree, and a
//     difference at that step is already a counterexample.
//
// Both hand the membership oracle DefaultBatch words at a time (Batch
// overrides it) so that the devices below run several at once, and return
// the shortest word of the first failing batch, cut after its first
// differing symbol, as a learn.Counterexample with no Suffix (the learner
// analyses it).

// DefaultBatch is how many words a conformance oracle asks at once when
// Batch is 0.
const DefaultBatch = 64

// RandomWalk tests a hypothesis with random walks. Each walk starts with the
// access word of a state drawn uniformly from the hypothesis's states (the
// error sink excepted), its forced wait appended when the access word ends
// in a forcing input, and goes on for L steps, L drawn uniformly from
// 1..MaxSteps. Every step but the last draws its input uniformly from those
// whose step the hypothesis answers without err (all inputs when none
// does), so walks do not end in the sink before they have gone anywhere;
// the last step draws from all inputs, so err transitions are tested too.
// Under closure semantics a walk ends at the step the hypothesis answers
// err.
type RandomWalk struct {
	MQ oracle.Oracle
	// Walks is the budget: how many walks are drawn per check. A walk drawn
	// twice in one check is asked once, so at most Walks words reach MQ;
	// those the cache below answers (prefixes of words asked before) cost
	// no device time.
	Walks int
	// Seed makes the walks reproducible. The generator is a PCG seeded with
	// Seed and a hash of the hypothesis (its transitions, outputs and access
	// words), so the same seed and hypothesis give the same walks, and two
	// rounds, which check different hypotheses, do not repeat each other's
	// walks.
	Seed uint64
	// MaxSteps bounds a walk's length in steps after its access word; 0
	// means DefaultMaxSteps of the hypothesis.
	MaxSteps int
	Sem      mealy.Semantics
	// Forcing marks the inputs a wait must follow, as for Bound.
	Forcing mealy.Forcing
	// Batch is how many words are asked at once; 0 means DefaultBatch.
	Batch int
	// OnProgress, when set, is told how many of the check's words have
	// been asked.
	OnProgress func(done, total int)
}

// DefaultMaxSteps is the walk length RandomWalk uses when MaxSteps is 0:
// three steps more than the free distinguisher bound the hypothesis itself
// needs (mealy.Machine.NeededFreeBound), so a walk can reach a state one
// step beyond those the hypothesis knows and still tell it apart with a
// word two steps longer than any the hypothesis needed.
func DefaultMaxSteps(h *learn.Hypothesis, f mealy.Forcing) int {
	return h.Machine.NeededFreeBound(f) + 3
}

// FindCounterexample implements learn.EquivalenceOracle.
func (r *RandomWalk) FindCounterexample(ctx context.Context, h *learn.Hypothesis) (*learn.Counterexample, error) {
	words, err := r.Words(h)
	if err != nil {
		return nil, err
	}
	return askInBatches(ctx, r.MQ, h, words, r.Batch, r.OnProgress)
}

// Words returns the walks one check of h asks, in the order asked.
func (r *RandomWalk) Words(h *learn.Hypothesis) ([]mealy.Word, error) {
	if r.Walks < 1 {
		return nil, fmt.Errorf("random walks: the budget must be at least 1 walk, got %d", r.Walks)
	}
	c, err := newRunner(h, r.Sem, r.Forcing)
	if err != nil {
		return nil, err
	}
	maxSteps := r.MaxSteps
	if maxSteps == 0 {
		maxSteps = DefaultMaxSteps(h, r.Forcing)
	}
	if maxSteps < 1 {
		return nil, fmt.Errorf("random walks: at most %d steps; a walk needs at least 1", maxSteps)
	}
	var starts []int
	reachable := c.m.Reachable()
	for q := range c.m.NumStates() {
		if q != c.sink && reachable[q] {
			starts = append(starts, q)
		}
	}
	if len(starts) == 0 {
		return nil, errors.New("random walks: the hypothesis has no state to start from but its error sink")
	}
	rng := rand.New(rand.NewPCG(r.Seed, fingerprint(h)))
	seen := make(map[string]bool, r.Walks)
	words := make([]mealy.Word, 0, r.Walks)
	var usable []int
	for range r.Walks {
		walk, q, hit := c.prefix(h.Access[starts[rng.IntN(len(starts))]])
		for n := 1 + rng.IntN(maxSteps); n > 0 && !hit; n-- {
			usable = usable[:0]
			if n > 1 {
				for a := range c.m.Inputs.Size() {
					if !c.stepErrs(q, a) {
						usable = append(usable, a)
					}
				}
			}
			var a int
			if len(usable) > 0 {
				a = usable[rng.IntN(len(usable))]
			} else {
				a = rng.IntN(c.m.Inputs.Size())
			}
			walk, q, hit = c.step(walk, q, a)
		}
		if k := walk.Key(); len(walk) > 0 && !seen[k] {
			seen[k] = true
			words = append(words, walk)
		}
	}
	return words, nil
}

// fingerprint hashes what makes a hypothesis: its transitions, outputs and
// access words.
func fingerprint(h *learn.Hypothesis) uint64 {
	f := fnv.New64a()
	var buf []byte
	put := func(v int) { buf = binary.AppendVarint(buf, int64(v)) }
	m := h.Machine
	put(m.NumStates())
	put(m.Inputs.Size())
	put(m.Initial)
	for q := range m.NumStates() {
		for i := range m.Inputs.Size() {
			put(m.Next[q][i])
			put(m.Out[q][i])
		}
	}
	for _, w := range h.Access {
		put(len(w))
		for _, a := range w {
			put(a)
		}
	}
	f.Write(buf)
	return f.Sum64()
}

// Wp tests a hypothesis with the Wp-method (Fujiwara et al., "Test
// selection based on finite state models", IEEE TSE 1991) to Depth extra
// states: by the method's guarantee, a deterministic target with at most
// Depth states more than the hypothesis that differs from it (within the
// restrictions) fails some word of the suite:
//
//	phase 1: P · I^{≤Depth} · W
//	phase 2: (P·I \ P) · I^{≤Depth} · W_q, q the state the word has reached
//
// where P is the state cover (the hypothesis's access words), I^{≤k} every
// word of at most k steps, W the shortest distinguishing word of every two
// states (mealy.Machine.Distinguishers) and W_q those that tell q from each
// other state. Forcing: an access word that ends in a forcing input has
// its wait appended (a state reached right after such an input shows
// itself only through that wait and what follows), transitions are taken
// from the states reached with nothing forced pending, and I counts steps.
// Closure: the error sink is no state of P; a word ends with the step the
// hypothesis first answers err in, as explained above. The suite asks each
// word once and no word that is a prefix of another.
//
// The suite is built whole before the first word is asked, so it grows
// with states × inputs^(Depth+1) × |W_q|: on a random 55-state machine
// with 13 inputs, depth 1 is about 36,000 words and depth 2 about 460,000
// (some 190 MB allocated to build them).
type Wp struct {
	MQ oracle.Oracle
	// Depth is how many states the target may have beyond the hypothesis's.
	Depth   int
	Sem     mealy.Semantics
	Forcing mealy.Forcing
	// Batch is how many words are asked at once; 0 means DefaultBatch.
	Batch int
	// OnProgress, when set, is told how many of the suite's words have
	// been asked.
	OnProgress func(done, total int)
}

// FindCounterexample implements learn.EquivalenceOracle.
func (w *Wp) FindCounterexample(ctx context.Context, h *learn.Hypothesis) (*learn.Counterexample, error) {
	suite, err := w.Suite(h)
	if err != nil {
		return nil, err
	}
	return askInBatches(ctx, w.MQ, h, suite, w.Batch, w.OnProgress)
}

// SuiteSize is how many words a check of h asks: what the stage costs at
// most in queries (the cache answers those it already knows).
func (w *Wp) SuiteSize(h *learn.Hypothesis) (int, error) {
	s, err := w.Suite(h)
	return len(s), err
}

// Suite returns the words a check of h asks, in the order asked: phase 1
// state by state, then phase 2 transition by transition, each in
// depth-first order of its middle part.
func (w *Wp) Suite(h *learn.Hypothesis) ([]mealy.Word, error) {
	if w.Depth < 0 {
		return nil, fmt.Errorf("Wp-method: depth must be at least 0, got %d", w.Depth)
	}
	c, err := newRunner(h, w.Sem, w.Forcing)
	if err != nil {
		return nil, err
	}
	m := c.m
	n, k := m.NumStates(), m.Inputs.Size()
	d := m.Distinguishers()
	reachable := m.Reachable()
	// W and each W_q, without repeats; {ε} when there is nothing to tell
	// apart, so the middle parts are still asked.
	all := newWordSet()
	ids := make([][]mealy.Word, n)
	for q := range n {
		own := newWordSet()
		for p := range n {
			if dw := d.Word(q, p); reachable[q] && reachable[p] && dw != nil {
				own.add(dw)
				all.add(dw)
			}
		}
		ids[q] = own.orEmpty()
	}
	global := all.orEmpty()

	var words []mealy.Word
	emit := func(x mealy.Word) {
		if x = c.clip(x); len(x) > 0 {
			words = append(words, x)
		}
	}
	// explore emits pre·mid·id for every middle part mid of at most left
	// steps and every id the state reached identifies itself by, and the
	// word itself when its last step reaches err.
	var explore func(pre mealy.Word, q, left int, idsOf func(q int) []mealy.Word)
	explore = func(pre mealy.Word, q, left int, idsOf func(q int) []mealy.Word) {
		for _, id := range idsOf(q) {
			emit(pre.Concat(id...))
		}
		if left == 0 {
			return
		}
		for a := range k {
			next, to, hit := c.step(slices.Clip(pre), q, a)
			if hit {
				emit(next)
				continue
			}
			explore(next, to, left-1, idsOf)
		}
	}
	cover := make(map[string]bool, n)
	for q := range n {
		if q == c.sink || !reachable[q] {
			continue
		}
		pre, to, hit := c.prefix(h.Access[q])
		cover[pre.Key()] = true
		if hit {
			emit(pre)
			continue
		}
		explore(pre, to, w.Depth, func(int) []mealy.Word { return global })
	}
	for q := range n {
		acc := h.Access[q]
		if q == c.sink || !reachable[q] || len(acc) > 0 && c.forcing.Forced(acc[len(acc)-1]) {
			continue
		}
		for a := range k {
			pre, to, hit := c.step(slices.Clip(acc), q, a)
			if cover[pre.Key()] {
				continue
			}
			if hit {
				emit(pre)
				continue
			}
			explore(pre, to, w.Depth, func(q int) []mealy.Word { return ids[q] })
		}
	}
	return maximal(words), nil
}

// runner runs words on a hypothesis under the restrictions' and the
// closure's rules.
type runner struct {
	m       *mealy.Machine
	sem     mealy.Semantics
	forcing mealy.Forcing
	sink    int // the error sink under closure semantics, -1 for none
}

func newRunner(h *learn.Hypothesis, sem mealy.Semantics, f mealy.Forcing) (*runner, error) {
	if h == nil || h.Machine == nil {
		return nil, errors.New("no hypothesis to test")
	}
	if len(h.Access) != h.Machine.NumStates() {
		return nil, fmt.Errorf("hypothesis has %d states but %d access words", h.Machine.NumStates(), len(h.Access))
	}
	reachable := h.Machine.Reachable()
	for q, w := range h.Access {
		if reachable[q] && h.Machine.StateAfter(w) != q {
			return nil, fmt.Errorf("hypothesis: the access word of state %d (%s) leads to state %d", q, h.Machine.Inputs.Format(w), h.Machine.StateAfter(w))
		}
	}
	c := &runner{m: h.Machine, sem: sem, forcing: f, sink: -1}
	if sem.Closure {
		if s, ok := h.Machine.Sink(sem.Err); ok {
			c.sink = s
		}
	}
	return c, nil
}

func (c *runner) isErr(out int) bool { return c.sem.Closure && out == c.sem.Err }

// step appends input a, and the wait it forces, to w, which reaches q; it
// returns the longer word, the state it reaches and whether the hypothesis
// answered err in the step. It appends in place: pass a clipped slice to
// keep w.
func (c *runner) step(w mealy.Word, q, a int) (mealy.Word, int, bool) {
	hit := c.isErr(c.m.Out[q][a])
	w, q = append(w, a), c.m.Next[q][a]
	if c.forcing.Forced(a) {
		wait := c.forcing.Wait
		hit = hit || c.isErr(c.m.Out[q][wait])
		w, q = append(w, wait), c.m.Next[q][wait]
	}
	return w, q, hit
}

// stepErrs says whether the step of input a from q answers err.
func (c *runner) stepErrs(q, a int) bool {
	_, _, hit := c.step(make(mealy.Word, 0, 2), q, a)
	return hit
}

// prefix runs an access word, appending the wait its last input forces;
// it returns the word, the state reached and whether it answered err
// (only the sink's own access word does).
func (c *runner) prefix(acc mealy.Word) (mealy.Word, int, bool) {
	w := c.clip(acc)
	out, q := c.m.Run(w)
	return w, q, slices.ContainsFunc(out, c.isErr)
}

// clip makes w a word the oracles may ask: cut after the step in which the
// hypothesis first answers err, and after any forcing input not followed
// by its wait, with that wait appended. The result is a new word.
func (c *runner) clip(w mealy.Word) mealy.Word {
	out := make(mealy.Word, 0, len(w)+1)
	q := c.m.Initial
	for j, a := range w {
		out = append(out, a)
		o := c.m.Out[q][a]
		q = c.m.Next[q][a]
		if c.forcing.Forced(a) {
			if j+1 == len(w) || w[j+1] != c.forcing.Wait || c.isErr(o) {
				return append(out, c.forcing.Wait)
			}
			continue
		}
		if c.isErr(o) {
			return out
		}
	}
	return out
}

// wordSet keeps distinct words in the order first added.
type wordSet struct {
	seen  map[string]bool
	words []mealy.Word
}

func newWordSet() *wordSet { return &wordSet{seen: map[string]bool{}} }

func (s *wordSet) add(w mealy.Word) {
	if k := w.Key(); !s.seen[k] {
		s.seen[k] = true
		s.words = append(s.words, w)
	}
}

// orEmpty is the words, or just ε when there are none.
func (s *wordSet) orEmpty() []mealy.Word {
	if len(s.words) == 0 {
		return []mealy.Word{{}}
	}
	return s.words
}

// maximal drops repeated words and words that are a prefix of another,
// keeping the first of each in order: the cache answers a prefix of a word
// it has seen without running anything.
func maximal(words []mealy.Word) []mealy.Word {
	order := make([]int, len(words))
	for k := range order {
		order[k] = k
	}
	// In lexicographic order a word that is a prefix of some other word is
	// a prefix of the one right after it; among equal words the first
	// added comes last, so it is the one kept.
	slices.SortStableFunc(order, func(a, b int) int {
		if c := slices.Compare(words[a], words[b]); c != 0 {
			return c
		}
		return b - a
	})
	drop := make([]bool, len(words))
	for j := 0; j+1 < len(order); j++ {
		if words[order[j+1]].HasPrefix(words[order[j]]) {
			drop[order[j]] = true
		}
	}
	out := make([]mealy.Word, 0, len(words))
	for k, w := range words {
		if !drop[k] {
			out = append(out, w)
		}
	}
	return out
}

// askInBatches asks words batch by batch and returns the shortest
// difference with the hypothesis in the first batch that has one.
func askInBatches(ctx context.Context, mq oracle.Oracle, h *learn.Hypothesis, words []mealy.Word, batch int, progress func(done, total int)) (*learn.Counterexample, error) {
	if batch <= 0 {
		batch = DefaultBatch
	}
	if progress != nil {
		progress(0, len(words))
	}
	for start := 0; start < len(words); start += batch {
		chunk := words[start:min(start+batch, len(words))]
		answers, err := mq.Ask(ctx, chunk)
		if err != nil {
			return nil, err
		}
		if len(answers) != len(chunk) {
			return nil, fmt.Errorf("asked %d words, got %d answers", len(chunk), len(answers))
		}
		var best mealy.Word
		for k, w := range chunk {
			got := answers[k].Outputs
			if len(got) != len(w) {
				return nil, fmt.Errorf("%s: %d outputs for %d inputs", h.Machine.Inputs.Format(w), len(got), len(w))
			}
			want, _ := h.Machine.Run(w)
			for j := range w {
				if got[j] != want[j] {
					if best == nil || j+1 < len(best) {
						best = w[:j+1]
					}
					break
				}
			}
		}
		if progress != nil {
			progress(start+len(chunk), len(words))
		}
		if best != nil {
			return &learn.Counterexample{Word: slices.Clone(best)}, nil
		}
	}
	return nil, nil
}
