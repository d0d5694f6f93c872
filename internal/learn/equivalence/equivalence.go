// Package equivalence holds equivalence oracles for the learners: the
// distinguisher-bound oracle that answers equivalence queries with
// membership queries (ICSE 2018, Algorithm 2), and a perfect oracle that
// compares against a known target, for benchmarks.
package equivalence

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"sync"

	"github.com/droidstar/droidstar/internal/learn"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/oracle"
)

// Bound checks every transition (q, i) → q' of a hypothesis: the words
// access(q)·i and access(q') must agree on every suffix of free length at
// most Bound. If the target's states all differ on some word of that free
// length, a hypothesis that passes is the target (ICSE 2018, Theorem 4.4).
//
// A suffix's free length counts the symbols the restrictions leave free
// (see mealy.Forcing): the wait that a followed_by_wait callin forces is
// part of that callin's step, appended after it and not counted, and when
// i itself is such a callin the suffix starts with its wait. Without
// forcing inputs this is the paper's plain length.
//
// It reuses the learner's access words, skips the transitions out of the
// error sink and those into it that answer err (every extension of an err
// is err), and transitions whose two words are the same, asks only the
// words of free length exactly Bound (the cache answers their prefixes),
// and hands the distinguishing suffix straight back to the learner.
type Bound struct {
	MQ    oracle.Oracle
	Bound int
	Sem   mealy.Semantics
	// Forcing marks the inputs a wait must follow (the purpose's
	// followed_by_wait callins); the zero value forces nothing.
	Forcing mealy.Forcing
	// MaxBatch is the most words one batch asks (DefaultMaxBatch when 0),
	// so that a round's memory does not grow with |I|^Bound.
	MaxBatch int
	// PerBatch is how many transitions are checked in one batch of queries:
	// 1 stops at the first counterexample with the fewest queries; more gives
	// several devices more to run at once; WholeRound checks them all in one
	// batch. 0 means 1. A batch of several transitions is cut off at the
	// first answer the hypothesis does not predict (oracle.Expectation), so
	// that the devices do not run the rest of the round for nothing; the
	// counterexample is then looked for transition by transition, in order,
	// the answers already in coming from the cache, so it is the one a
	// batch per transition finds.
	PerBatch int
	// OnProgress, when set, is told how many of the round's transitions
	// have been checked, for a progress display's estimate.
	OnProgress func(done, total int)
	// Lookahead sends, when a cut-off round falls back to one transition
	// per batch, the words of the chunk's later transitions as spares
	// (oracle.Spares), which several lanes run where they would wait. The
	// counterexample is the same; one lane never runs a spare.
	Lookahead bool
	// OnEstimate, when set, is told before each batch how many words the
	// round still asks, that batch included (as learn.Options.OnEstimate),
	// so that a display can pace the round by its queries before the
	// first batch ends.
	OnEstimate func(words int)
}

type transition struct{ q, in, to int }

// WholeRound as Bound.PerBatch checks a round's transitions in one batch
// (as far as MaxBatch allows).
const WholeRound = -1

// DefaultMaxBatch is how many words one batch of a round asks at most when
// Bound.MaxBatch is 0: enough to keep several devices busy, few enough
// that a round's memory does not grow with |I|^Bound (about 100 bytes a
// word, with its answer and the cache's bookkeeping for the batch).
const DefaultMaxBatch = 8192

// FindCounterexample implements learn.EquivalenceOracle.
//
// The suffixes are generated as they are asked, never listed: a chunk of
// PerBatch transitions whose words fit in MaxBatch is asked in one batch,
// as before; a larger one is asked transition by transition in batches of
// at most MaxBatch words, and the best difference found so far is kept.
// The answers and the counterexample are the same either way.
func (b *Bound) FindCounterexample(ctx context.Context, h *learn.Hypothesis) (*learn.Counterexample, error) {
	if b.Bound < 1 {
		return nil, fmt.Errorf("distinguisher bound must be at least 1, got %d", b.Bound)
	}
	m := h.Machine
	sink := -1
	if b.Sem.Closure {
		if s, ok := m.Sink(b.Sem.Err); ok {
			sink = s
		}
	}
	var todo []transition
	for q := 0; q < m.NumStates(); q++ {
		if q == sink {
			continue
		}
		for i := 0; i < m.Inputs.Size(); i++ {
			to := m.Next[q][i]
			// A transition into the sink that answers err needs no
			// check: every extension of an err is err. One that answers
			// anything else claims that every later input errs, which
			// nothing observed yet: L# and KV build such hypotheses.
			if to == sink && m.Out[q][i] == b.Sem.Err || h.Access[q].Concat(i).Equal(h.Access[to]) {
				continue
			}
			todo = append(todo, transition{q, i, to})
		}
	}
	steps := newOdometer(m.Inputs.Size(), b.Bound, b.Forcing)
	per := max(b.PerBatch, 1)
	limit := b.MaxBatch
	if limit <= 0 {
		limit = DefaultMaxBatch
	}
	limit = max(limit, 2)
	if b.PerBatch == WholeRound {
		per = max(min(len(todo), limit/(2*steps.count)), 1)
	}
	if b.OnProgress != nil {
		b.OnProgress(0, len(todo))
	}
	for start := 0; start < len(todo); start += per {
		chunk := todo[start:min(start+per, len(todo))]
		if b.OnEstimate != nil {
			// Every transition asks two words per suffix.
			b.OnEstimate((len(todo) - start) * 2 * steps.count)
		}
		var cex *learn.Counterexample
		var err error
		if total := steps.count; total <= limit/(2*len(chunk)) {
			cex, err = b.askChunk(ctx, h, chunk, steps)
		} else {
			for _, t := range chunk {
				if cex, err = b.askStreamed(ctx, h, t, steps, limit); err != nil || cex != nil {
					break
				}
			}
		}
		if err != nil || cex != nil {
			return cex, err
		}
		if b.OnProgress != nil {
			b.OnProgress(start+len(chunk), len(todo))
		}
	}
	return b.excludedAfterForced(ctx, h, sink)
}

// excludedAfterForced checks what no suffix of free length reaches: right
// after a forcing callin that did not answer err, the restrictions allow
// only its wait, so any other input answers err there (excluded by the
// filter, not run). A hypothesis could merge such a must-wait state with
// one where the input is allowed: they differ only on excluded words, so
// the round passes it, though the learner's own answers contradict it.
// Each such word the hypothesis answers otherwise is asked; the filter
// answers past the callin, and the cache the callin's word, which the
// round or the learner ran (unless the cache dropped it), and the
// first that disagrees is the counterexample.
func (b *Bound) excludedAfterForced(ctx context.Context, h *learn.Hypothesis, sink int) (*learn.Counterexample, error) {
	m := h.Machine
	var words []mealy.Word
	for q := range m.NumStates() {
		for c := range m.Inputs.Size() {
			if q == sink || !b.Forcing.Forced(c) || m.Out[q][c] == b.Sem.Err {
				continue
			}
			to := m.Next[q][c]
			for x := range m.Inputs.Size() {
				if x != b.Forcing.Wait && m.Out[to][x] != b.Sem.Err {
					words = append(words, h.Access[q].Concat(c, x))
				}
			}
		}
	}
	if len(words) == 0 {
		return nil, nil
	}
	answers, err := b.MQ.Ask(expect(ctx, h, false, nil), words)
	if err != nil {
		return nil, err
	}
	for k, w := range words {
		if predicted, _ := m.Run(w); !predicted.Equal(answers[k].Outputs) {
			return &learn.Counterexample{Word: w}, nil
		}
	}
	return nil, nil
}

// words are the two words a transition compares on suffix s: access(q)·i·s
// and access(q')·s. After a forcing input the suffix starts with its wait.
func (b *Bound) words(h *learn.Hypothesis, t transition, s mealy.Word) (left, right mealy.Word) {
	if b.Forcing.Forced(t.in) {
		s = mealy.Word{b.Forcing.Wait}.Concat(s...)
	}
	return h.Access[t.q].Concat(t.in).Concat(s...), h.Access[t.to].Concat(s...)
}

// suffixOf is the suffix part of a transition's left word.
func suffixOf(h *learn.Hypothesis, t transition, left mealy.Word) mealy.Word {
	return left[len(h.Access[t.q])+1:]
}

// expect is what the hypothesis predicts the round's words answer: the
// scheduler starts the longest first and, with cutOff, stops the batch at
// the first surprise (surprised, when set, is told the words).
func expect(ctx context.Context, h *learn.Hypothesis, cutOff bool, surprised func(mealy.Word, oracle.Answer)) context.Context {
	predict := func(w mealy.Word) mealy.Word {
		out, _ := h.Machine.Run(w)
		return out
	}
	return oracle.WithExpectation(ctx, oracle.Expectation{Outputs: predict, CutOff: cutOff, OnSurprise: surprised})
}

// askChunk asks every word of a chunk of transitions in one batch and
// returns the first transition's counterexample, in chunk order. A chunk
// of several transitions is cut off at the first answer the hypothesis
// does not predict (see cutOff).
func (b *Bound) askChunk(ctx context.Context, h *learn.Hypothesis, chunk []transition, steps *odometer) (*learn.Counterexample, error) {
	queries := b.chunkWords(h, chunk, steps, -1)
	var mu sync.Mutex
	var surprises []surprise
	surprised := func(w mealy.Word, a oracle.Answer) {
		predicted, _ := h.Machine.Run(w)
		at := 0
		for at < len(w)-1 && predicted[at] == a.Outputs[at] {
			at++
		}
		mu.Lock()
		surprises = append(surprises, surprise{slices.Clone(w), at})
		mu.Unlock()
	}
	if len(chunk) == 1 {
		surprised = nil
	}
	answers, err := b.MQ.Ask(expect(ctx, h, len(chunk) > 1, surprised), queries)
	if len(chunk) > 1 && errors.Is(err, oracle.ErrCutOff) {
		return b.cutOff(ctx, h, chunk, steps, queries, surprises)
	}
	if err != nil {
		return nil, err
	}
	for k, t := range chunk {
		var best difference
		base := 2 * k * steps.count
		for j := 0; j < steps.count; j++ {
			best.consider(b, t, suffixOf(h, t, queries[base+2*j]), answers[base+2*j], answers[base+2*j+1])
		}
		if cex := best.counterexample(h, t); cex != nil {
			return cex, nil
		}
	}
	return nil, nil
}

// cutOff finds a counterexample after a chunk's batch was cut off at the
// surprising words. The surprise is a counterexample to the hypothesis,
// so the pair it belongs to usually differs: the pairs whose words share
// a surprising word up to its first unexpected output are asked (most of
// their words ran already), transition by transition in chunk order, and
// the first transition whose pairs differ gives the counterexample, from
// the best of those pairs. When none does (both words of a pair can be
// wrong the same way), the chunk's transitions are checked one by one, in
// order, with what ran coming from the cache; when no transition's pairs
// differ, the shortest surprising word is the counterexample.
func (b *Bound) cutOff(ctx context.Context, h *learn.Hypothesis, chunk []transition, steps *odometer, queries []mealy.Word, surprises []surprise) (*learn.Counterexample, error) {
	related := func(u mealy.Word) bool {
		for _, s := range surprises {
			if len(u) > s.at && u[:s.at+1].Equal(s.word[:s.at+1]) {
				return true
			}
		}
		return false
	}
	per := 2 * steps.count
	for ti, t := range chunk {
		var pairs []int // the left word's index in queries
		var asked []mealy.Word
		for j := ti * per; j < (ti+1)*per; j += 2 {
			if related(queries[j]) || related(queries[j+1]) {
				pairs = append(pairs, j)
				asked = append(asked, queries[j], queries[j+1])
			}
		}
		if len(pairs) == 0 {
			continue
		}
		answers, err := b.MQ.Ask(expect(ctx, h, false, nil), asked)
		if err != nil {
			return nil, err
		}
		var best difference
		for k, j := range pairs {
			best.consider(b, t, suffixOf(h, t, queries[j]), answers[2*k], answers[2*k+1])
		}
		if cex := best.counterexample(h, t); cex != nil {
			return cex, nil
		}
	}
	for k, t := range chunk {
		tctx := ctx
		if b.Lookahead {
			tctx = oracle.WithSpares(ctx, oracle.Spares{Words: b.chunkWords(h, chunk[k+1:], steps, oracle.MaxSpares)})
		}
		cex, err := b.askChunk(tctx, h, []transition{t}, steps)
		if err != nil || cex != nil {
			return cex, err
		}
	}
	// No pair within the bound differs, yet an answer contradicted the
	// hypothesis: the bound is too small for the target (the theorem
	// rules this out otherwise). The surprise is a counterexample all the
	// same; passing the hypothesis would keep a model that a word already
	// run disproves.
	return shortestSurprise(surprises), nil
}

// shortestSurprise is the shortest surprising prefix as a counterexample
// (the first in word order on a tie), or nil when there is none.
func shortestSurprise(surprises []surprise) *learn.Counterexample {
	if len(surprises) == 0 {
		return nil
	}
	best := surprises[0].word[:surprises[0].at+1]
	for _, s := range surprises[1:] {
		if w := s.word[:s.at+1]; len(w) < len(best) || len(w) == len(best) && slices.Compare(w, best) < 0 {
			best = w
		}
	}
	return &learn.Counterexample{Word: slices.Clone(best)}
}

// chunkWords lists the words of a chunk of transitions, in order: each
// transition's two words per suffix, at most limit words (no limit when
// negative).
func (b *Bound) chunkWords(h *learn.Hypothesis, chunk []transition, steps *odometer, limit int) []mealy.Word {
	n := 2 * len(chunk) * steps.count
	if limit >= 0 {
		n = min(n, limit)
	}
	out := make([]mealy.Word, 0, n)
	for _, t := range chunk {
		for s := range steps.all() {
			if len(out)+2 > n {
				return out
			}
			l, r := b.words(h, t, s)
			out = append(out, l, r)
		}
	}
	return out
}

// surprise is a word that answered other than the hypothesis predicts,
// first at index at.
type surprise struct {
	word mealy.Word
	at   int
}

// askStreamed asks one transition's words in batches of at most limit
// words. When one of its two access words extends the other, the words on
// the longer side are asked first, alone: otherwise a word on the shorter
// side could run before the longer word it is a prefix of, and both would
// run, where one batch runs only the longer (the cache's maximal words).
func (b *Bound) askStreamed(ctx context.Context, h *learn.Hypothesis, t transition, steps *odometer, limit int) (*learn.Counterexample, error) {
	in, to := h.Access[t.q].Concat(t.in), h.Access[t.to]
	if n := min(len(in), len(to)); in[:n].Equal(to[:n]) {
		leftLonger := len(in) > len(to)
		batch := make([]mealy.Word, 0, limit)
		flush := func() error {
			if len(batch) == 0 {
				return nil
			}
			_, err := b.MQ.Ask(expect(ctx, h, false, nil), batch)
			batch = batch[:0]
			return err
		}
		for s := range steps.all() {
			l, r := b.words(h, t, s)
			if leftLonger {
				batch = append(batch, l)
			} else {
				batch = append(batch, r)
			}
			if len(batch) == limit {
				if err := flush(); err != nil {
					return nil, err
				}
			}
		}
		if err := flush(); err != nil {
			return nil, err
		}
	}
	var best difference
	queries := make([]mealy.Word, 0, limit)
	ask := func() error {
		if len(queries) == 0 {
			return nil
		}
		answers, err := b.MQ.Ask(expect(ctx, h, false, nil), queries)
		if err != nil {
			return err
		}
		for j := 0; 2*j < len(queries); j++ {
			best.consider(b, t, suffixOf(h, t, queries[2*j]), answers[2*j], answers[2*j+1])
		}
		queries = queries[:0]
		return nil
	}
	for s := range steps.all() {
		l, r := b.words(h, t, s)
		queries = append(queries, l, r)
		if len(queries)+2 > limit {
			if err := ask(); err != nil {
				return nil, err
			}
		}
	}
	if err := ask(); err != nil {
		return nil, err
	}
	return best.counterexample(h, t), nil
}

// difference is the best disagreement of a transition's two words found so
// far: fewest free symbols first, then fewest symbols, then the first
// suffix in the odometer's order (the first found: they come in order).
type difference struct {
	found        bool
	suffix       mealy.Word // the disagreeing suffix, up to the difference
	left         mealy.Word // access(q)·i·suffix's outputs
	length, free int
}

// consider compares the answers to one suffix's two words, la to
// access(q)·i·s and ra to access(q')·s, and keeps their disagreement if it
// is the best yet.
func (d *difference) consider(b *Bound, t transition, s mealy.Word, la, ra oracle.Answer) {
	lo, ro := la.Outputs[len(la.Outputs)-len(s):], ra.Outputs[len(ra.Outputs)-len(s):]
	for j := range s {
		if lo[j] == ro[j] {
			continue
		}
		free := b.Forcing.FreeLength(t.in, s[:j+1])
		if !d.found || free < d.free || free == d.free && j+1 < d.length {
			d.found, d.free, d.length = true, free, j+1
			d.suffix = append(mealy.Word(nil), s[:j+1]...)
			d.left = append(mealy.Word(nil), la.Outputs[:len(la.Outputs)-len(s)+j+1]...)
		}
		return
	}
}

// counterexample turns the best disagreement into a counterexample: one of
// the two words must disagree with the hypothesis, since both reach q'
// there; it is reported as the counterexample word.
func (d *difference) counterexample(h *learn.Hypothesis, t transition) *learn.Counterexample {
	if !d.found {
		return nil
	}
	word := h.Access[t.q].Concat(t.in).Concat(d.suffix...)
	if hyp, _ := h.Machine.Run(word); hyp.Equal(d.left) {
		word = h.Access[t.to].Concat(d.suffix...)
	}
	return &learn.Counterexample{Word: word, Suffix: d.suffix}
}

// odometer enumerates the words of n steps over k symbols lazily, in
// lexicographic order of their free symbols (the first step the most
// significant): a step is one symbol, and the wait after a symbol f forces.
// Without forcing, these are the k^n words of length n.
type odometer struct {
	k, n  int
	f     mealy.Forcing
	count int // k^n
}

func newOdometer(k, n int, f mealy.Forcing) *odometer {
	count := 1
	for range n {
		count *= k
	}
	return &odometer{k: k, n: n, f: f, count: count}
}

// all yields every word in order. The word yielded is reused: a caller
// that keeps it must copy it.
func (o *odometer) all() iter.Seq[mealy.Word] {
	return func(yield func(mealy.Word) bool) {
		digits := make([]int, o.n)
		w := make(mealy.Word, 0, 2*o.n)
		for {
			w = w[:0]
			for _, a := range digits {
				w = append(w, a)
				if o.f.Forced(a) {
					w = append(w, o.f.Wait)
				}
			}
			if !yield(w) {
				return
			}
			p := o.n - 1
			for p >= 0 && digits[p] == o.k-1 {
				digits[p] = 0
				p--
			}
			if p < 0 {
				return
			}
			digits[p]++
		}
	}
}

// Perfect compares hypotheses with a known target and returns a shortest
// counterexample. It asks no membership queries, so a benchmark with it
// measures the learner alone.
type Perfect struct {
	Target *mealy.Machine
}

// FindCounterexample implements learn.EquivalenceOracle.
func (p *Perfect) FindCounterexample(_ context.Context, h *learn.Hypothesis) (*learn.Counterexample, error) {
	w, differ, err := h.Machine.Counterexample(p.Target)
	if err != nil || !differ {
		return nil, err
	}
	return &learn.Counterexample{Word: w}, nil
}
