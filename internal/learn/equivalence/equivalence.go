// Package equivalence holds equivalence oracles for the learners: the
// distinguisher-bound oracle that answers equivalence queries with
// membership queries (ICSE 2018, Algorithm 2), and a perfect oracle that
// compares against a known target, for benchmarks.
package equivalence

import (
	"context"
	"fmt"

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
// It reuses the learner's access words, skips transitions into and out of
// the error sink (every extension of an err is err) and transitions whose
// two words are the same, asks only the words of free length exactly Bound
// (the cache answers their prefixes), and hands the distinguishing suffix
// straight back to the learner.
type Bound struct {
	MQ    oracle.Oracle
	Bound int
	Sem   mealy.Semantics
	// Forcing marks the inputs a wait must follow (the purpose's
	// followed_by_wait callins); the zero value forces nothing.
	Forcing mealy.Forcing
	// PerBatch is how many transitions are checked in one batch of queries:
	// 1 stops at the first counterexample with the fewest queries; more gives
	// several devices more to run at once. 0 means 1.
	PerBatch int
	// OnProgress, when set, is told how many of the round's transitions
	// have been checked, for a progress display's estimate.
	OnProgress func(done, total int)
}

type transition struct{ q, in, to int }

// FindCounterexample implements learn.EquivalenceOracle.
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
			if to == sink || h.Access[q].Concat(i).Equal(h.Access[to]) {
				continue
			}
			todo = append(todo, transition{q, i, to})
		}
	}
	// The suffixes after a forcing input start with its wait; the rest are
	// the same steps.
	free := stepsOfFreeLength(m.Inputs.Size(), b.Bound, b.Forcing)
	var afterForced []mealy.Word
	if !b.Forcing.None() {
		afterForced = make([]mealy.Word, len(free))
		for k, s := range free {
			afterForced[k] = mealy.Word{b.Forcing.Wait}.Concat(s...)
		}
	}
	suffixesOf := func(t transition) []mealy.Word {
		if b.Forcing.Forced(t.in) {
			return afterForced
		}
		return free
	}
	per := max(b.PerBatch, 1)
	if b.OnProgress != nil {
		b.OnProgress(0, len(todo))
	}
	for start := 0; start < len(todo); start += per {
		chunk := todo[start:min(start+per, len(todo))]
		queries := make([]mealy.Word, 0, 2*len(chunk)*len(free))
		for _, t := range chunk {
			for _, s := range suffixesOf(t) {
				queries = append(queries, h.Access[t.q].Concat(t.in).Concat(s...), h.Access[t.to].Concat(s...))
			}
		}
		answers, err := b.MQ.Ask(ctx, queries)
		if err != nil {
			return nil, err
		}
		base := 0
		for _, t := range chunk {
			suffixes := suffixesOf(t)
			end := base + 2*len(suffixes)
			if cex := b.compare(h, t, suffixes, queries[base:end], answers[base:end]); cex != nil {
				return cex, nil
			}
			base = end
		}
		if b.OnProgress != nil {
			b.OnProgress(start+len(chunk), len(todo))
		}
	}
	return nil, nil
}

// compare finds the shortest suffix on which the transition's two words
// disagree: fewest free symbols first, then fewest symbols.
func (b *Bound) compare(h *learn.Hypothesis, t transition, suffixes []mealy.Word, queries []mealy.Word, answers []oracle.Answer) *learn.Counterexample {
	best, bestLen, bestFree := -1, 0, 0
	for k, s := range suffixes {
		left, right := answers[2*k].Outputs, answers[2*k+1].Outputs
		left, right = left[len(left)-len(s):], right[len(right)-len(s):]
		for j := range s {
			if left[j] != right[j] {
				free := b.Forcing.FreeLength(t.in, s[:j+1])
				if best < 0 || free < bestFree || free == bestFree && j+1 < bestLen {
					best, bestLen, bestFree = k, j+1, free
				}
				break
			}
		}
	}
	if best < 0 {
		return nil
	}
	suffix := append(mealy.Word(nil), suffixes[best][:bestLen]...)
	// One of the two words must disagree with the hypothesis, since both
	// reach q' there; report that one as the counterexample word.
	word := h.Access[t.q].Concat(t.in).Concat(suffix...)
	ans := answers[2*best].Outputs[:len(word)]
	if hyp, _ := h.Machine.Run(word); hyp.Equal(ans) {
		word = h.Access[t.to].Concat(suffix...)
	}
	return &learn.Counterexample{Word: word, Suffix: suffix}
}

// stepsOfFreeLength lists every word of n steps over k symbols, in
// lexicographic order of their free symbols: a step is one symbol, and the
// wait after a symbol f forces. Without forcing, these are the k^n words of
// length n.
func stepsOfFreeLength(k, n int, f mealy.Forcing) []mealy.Word {
	words := []mealy.Word{{}}
	for l := 0; l < n; l++ {
		next := make([]mealy.Word, 0, len(words)*k)
		for _, w := range words {
			for a := 0; a < k; a++ {
				if f.Forced(a) {
					next = append(next, w.Concat(a, f.Wait))
				} else {
					next = append(next, w.Concat(a))
				}
			}
		}
		words = next
	}
	return words
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
