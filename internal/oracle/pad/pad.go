// Package pad is the padding stage: between the restriction filter and the
// cache, it runs each learning query, and each word of a bound check's
// round, that the cache cannot answer extended by a few more symbols. A
// query costs a reset (seconds on a phone); a few more symbols cost little,
// and their answers, kept by the cache, answer later questions (the
// learner's next rows, the bound check's words, the next round's) without
// another reset.
//
//	restrict.Filter → pad.Stage → Cache → ...
//
// The asker still gets exactly the answer to its own query: the padded
// answer cut to the query's length. Only the cache sees more.
package pad

import (
	"context"
	"slices"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/oracle"
	"github.com/droidstar/droidstar/internal/oracle/restrict"
)

// Default and DefaultCheck are how many symbols --pad and --pad-check
// append when not told: the bench's DroidStar suite (internal/bench/README.md)
// measured them.
const (
	Default      = 4
	DefaultCheck = 1
)

// Sizes are how many free symbols the stage appends at most: to a
// learning query, and to a word of a bound check's round. 0 pads nothing.
type Sizes struct{ Learning, Check int }

// Defaults are the sizes --pad and --pad-check default to.
func Defaults() Sizes { return Sizes{Learning: Default, Check: DefaultCheck} }

// Any says whether s pads anything.
func (s Sizes) Any() bool { return s.Learning > 0 || s.Check > 0 }

// Known answers a query from what has already run, without running it:
// the cache's Lookup.
type Known interface {
	Lookup(w mealy.Word) (oracle.Answer, bool)
}

// Stage pads the misses of the learning phase and of the bound check's
// rounds.
//
// Which symbols: after the word so far, the first input in alphabet order
// that the restrictions allow (the filter's automaton, so a padded word is
// never one the filter would cut; after a followed_by_wait callin that is
// its wait). A miss's every extension is a miss too, so each padded
// symbol's answer is unknown to the cache by construction, and the choice
// is only about which unknown word to run. Alphabet order makes it
// deterministic, so that a run repeats exactly, and puts the callins
// before wait: a callin costs its latency while a quiet wait costs a
// whole quiescence timeout, so callin padding is the cheap kind. A
// repeated callin often throws; that is no loss, since the cache then
// knows every extension of the err (the closure's rule) and the executor
// stops there.
//
// N counts free symbols, as the distinguisher bound does: a wait that a
// followed_by_wait callin forces is appended with it and not counted, so
// a padded word never ends on a callin whose callbacks it did not wait
// for.
//
// Only misses that are not a proper prefix of another miss of the batch
// are padded: the cache runs only the longest words of a batch, so
// padding a shorter one would cost a reset of its own.
//
// A bound check's round is padded too, by its own size: the round's words
// are what this hypothesis needs, but after a counterexample the next
// hypothesis has more states, longer access words, and so words one or
// two symbols longer with these as prefixes; padded, the round answers
// them without a reset each. A round that finds no counterexample pays
// only the extra symbols (callins first, so little device time).
// Conformance and verification queries, and re-runs that check an
// answer, pass unchanged: a test suite's words are what it needs, and a
// re-run must run the very word it checks.
type Stage struct {
	Next oracle.Oracle
	// Known is the cache below (it tells the misses).
	Known Known
	// Rules are the restrictions the filter above applies.
	Rules *restrict.Automaton
	// Size is how many free symbols a miss is extended by at most, by
	// phase.
	Size Sizes
	// Sem tells waits and quiet answers: a check's word is padded only
	// up to the first wait its hypothesis predicts quiet.
	Sem      mealy.Semantics
	Inputs   int // the input alphabet's size
	Recorder *oracle.Recorder
}

// Ask implements oracle.Oracle.
func (s *Stage) Ask(ctx context.Context, queries []mealy.Word) ([]oracle.Answer, error) {
	n := 0
	// predict, when set, is a check's hypothesis, which stops its words'
	// padding before a quiet wait (see beforeQuiet).
	var predict func(mealy.Word) mealy.Word
	switch oracle.PhaseOf(ctx) {
	case oracle.PhaseLearning:
		n = s.Size.Learning
	case oracle.PhaseEquivalence:
		n = s.Size.Check
		if exp, ok := oracle.ExpectationOf(ctx); ok && s.Sem.Closure {
			predict = exp.Outputs
		}
	}
	if n <= 0 || oracle.IsRerun(ctx) {
		return s.Next.Ask(ctx, queries)
	}
	ctx = s.padSpares(ctx, n, predict)
	sent, padded := s.pad(queries, n, predict)
	if padded == 0 {
		return s.Next.Ask(ctx, queries)
	}
	s.Recorder.Padded(ctx, padded)
	answers, err := s.Next.Ask(ctx, sent)
	if err != nil {
		return nil, err
	}
	for k, q := range queries {
		if len(sent[k]) > len(q) {
			answers[k] = cut(answers[k], len(q))
		}
	}
	return answers, nil
}

// padSpares pads the asker's spare words (oracle.Spares) as it pads its
// queries: a spare is a word the asker expects to ask, padded for the
// same reason.
func (s *Stage) padSpares(ctx context.Context, n int, predict func(mealy.Word) mealy.Word) context.Context {
	sp, ok := oracle.SparesOf(ctx)
	if !ok {
		return ctx
	}
	words, _ := s.pad(sp.Words, n, predict)
	return oracle.WithSpares(ctx, oracle.Spares{Words: words, Answered: sp.Answered})
}

// Explain implements oracle.Explainer by asking the stages below.
func (s *Stage) Explain(w mealy.Word) (*model.ErrInfo, bool) {
	return oracle.Explain(s.Next, w)
}

// pad returns the words to send down, query by query, and how many
// symbols it appended to the distinct words it padded.
func (s *Stage) pad(queries []mealy.Word, n int, predict func(mealy.Word) mealy.Word) (sent []mealy.Word, padded int) {
	var misses []int
	for k, q := range queries {
		if _, ok := s.Known.Lookup(q); !ok {
			misses = append(misses, k)
		}
	}
	sent = slices.Clone(queries)
	if len(misses) == 0 {
		return sent, 0
	}
	// In lexical order a word that is a proper prefix of another miss is
	// a proper prefix of the next different miss.
	slices.SortStableFunc(misses, func(a, b int) int { return slices.Compare(queries[a], queries[b]) })
	forcing := s.Rules.Forcing()
	for i, k := range misses {
		q := queries[k]
		j := i + 1
		for j < len(misses) && slices.Equal(queries[misses[j]], q) {
			j++
		}
		if j < len(misses) && isPrefix(q, queries[misses[j]]) {
			continue
		}
		p := s.extend(q, forcing, n)
		if predict != nil {
			p = s.beforeQuiet(q, p, predict(p), forcing)
		}
		if len(p) == len(q) {
			continue
		}
		if i == 0 || !slices.Equal(queries[misses[i-1]], q) {
			padded += len(p) - len(q)
		}
		sent[k] = p
	}
	return sent, padded
}

// extend appends up to n free symbols to q, each the first input the rules
// allow after the word so far.
func (s *Stage) extend(q mealy.Word, forcing mealy.Forcing, n int) mealy.Word {
	st := s.Rules.Start()
	for _, in := range q {
		var ok bool
		if st, ok, _ = s.Rules.Step(st, in); !ok {
			return q // the filter cut it above; nothing to add to
		}
	}
	w := slices.Clone(q)
	prev := -1
	if len(q) > 0 {
		prev = q[len(q)-1]
	}
	// A query that ends on a forcing callin gets its wait first, free.
	if forcing.Forced(prev) {
		next, ok, _ := s.Rules.Step(st, forcing.Wait)
		if !ok {
			return w
		}
		st, w, prev = next, append(w, forcing.Wait), forcing.Wait
	}
	for free := 0; free < n; free++ {
		in, next := s.first(st)
		if in < 0 {
			break
		}
		st, w, prev = next, append(w, in), in
		if forcing.Forced(prev) {
			if next, ok, _ := s.Rules.Step(st, forcing.Wait); ok {
				st, w = next, append(w, forcing.Wait)
			}
		}
	}
	return w
}

// first is the first input the rules allow in state st, and the state
// after it; -1 when they allow none.
func (s *Stage) first(st restrict.State) (int, restrict.State) {
	for in := 0; in < s.Inputs; in++ {
		if next, ok, _ := s.Rules.Step(st, in); ok {
			return in, next
		}
	}
	return -1, nil
}

// cut is a padded word's answer cut to the query's first n symbols: the
// outputs, the per-step times, and the err only when it falls within them.
func cut(a oracle.Answer, n int) oracle.Answer {
	a.Outputs = a.Outputs[:n:n]
	if len(a.Steps) > n {
		a.Steps = a.Steps[:n:n]
	}
	if a.ErrAt >= n {
		a.ErrAt, a.Err = -1, nil
	}
	return a
}

func isPrefix(p, w mealy.Word) bool {
	return len(p) < len(w) && slices.Equal(p, w[:len(p)])
}

// beforeQuiet cuts p, q padded, before the first padded wait that outs,
// p's predicted outputs, answer quiet, and before the forcing callin that
// wait follows: a quiet wait costs a whole quiescence timeout, more than
// the next round's word the padding might answer (a wait right after a
// quiet costs nothing and stays). The harness runs such a word as it is;
// the padded symbols are only a guess at what the next round asks.
func (s *Stage) beforeQuiet(q, p, outs mealy.Word, forcing mealy.Forcing) mealy.Word {
	for k := len(q); k < len(p) && k < len(outs); k++ {
		if p[k] != s.Sem.Wait || outs[k] != s.Sem.Quiet || k > 0 && p[k-1] == s.Sem.Wait && outs[k-1] == s.Sem.Quiet {
			continue
		}
		cut := k
		if cut > len(q) && forcing.Forced(p[cut-1]) {
			cut--
		}
		return p[:cut]
	}
	return p
}
