package oracle

import (
	"context"
	"fmt"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/purpose"
)

// Filter applies a purpose's restrictions. A query that breaks one is cut
// at the first symbol that breaks it: the allowed prefix is answered by the
// next stage and the rest answers err, recorded as excluded (not as an error
// of the class). Every restriction kind is prefix-closed, so this is the
// same answer the cache's err rule gives to extensions.
type Filter struct {
	Next  Oracle
	Sem   Semantics
	Stats *Stats
	rules []rule
}

type rule struct {
	text    string
	kind    purpose.RestrictionKind
	symbols []bool // by input index
	count   int
}

// NewFilter compiles restrictions against the input alphabet.
func NewFilter(next Oracle, inputs *mealy.Alphabet, sem Semantics, restrictions []purpose.Restriction, stats *Stats) (*Filter, error) {
	if len(restrictions) > 0 && !sem.Closure {
		return nil, fmt.Errorf("restrictions need the synchronous-closure semantics (an err output)")
	}
	f := &Filter{Next: next, Sem: sem, Stats: stats}
	for _, r := range restrictions {
		cr := rule{text: r.String(), kind: r.Kind, count: r.Count, symbols: make([]bool, inputs.Size())}
		for _, s := range r.Symbols {
			i, ok := inputs.Index(s)
			if !ok {
				return nil, fmt.Errorf("restriction %q names %q, which is not an input", cr.text, s)
			}
			cr.symbols[i] = true
		}
		f.rules = append(f.rules, cr)
	}
	return f, nil
}

// FilterState is where a query stands with respect to every restriction:
// one number per rule (occurrences so far for at_most, whether the first
// symbol was seen for first, whether a wait is due for followed_by_wait).
// It lets a caller run the restrictions as an automaton alongside a machine.
type FilterState []int

// Start is the state of the empty query.
func (f *Filter) Start() FilterState { return make(FilterState, len(f.rules)) }

// Step advances st by one input. It returns the new state, or ok=false and
// the restriction broken when the input is excluded.
func (f *Filter) Step(st FilterState, in int) (next FilterState, ok bool, why string) {
	next = append(FilterState(nil), st...)
	for k, r := range f.rules {
		switch r.kind {
		case purpose.AtMost:
			if r.symbols[in] {
				next[k]++
				if next[k] > r.count {
					return nil, false, r.text
				}
			}
		case purpose.First:
			if next[k] == 0 && !r.symbols[in] {
				return nil, false, r.text
			}
			next[k] = 1
		case purpose.FollowedByWait:
			if next[k] == 1 && in != f.Sem.Wait {
				return nil, false, r.text
			}
			next[k] = 0
			if r.symbols[in] {
				next[k] = 1
			}
		}
	}
	return next, true, ""
}

// FirstViolation returns the index of the first input that breaks a
// restriction, and which one, or -1.
func (f *Filter) FirstViolation(w mealy.Word) (int, string) {
	if len(f.rules) == 0 {
		return -1, ""
	}
	st := f.Start()
	for k, in := range w {
		var ok bool
		var why string
		if st, ok, why = f.Step(st, in); !ok {
			return k, why
		}
	}
	return -1, ""
}

// Ask implements Oracle.
func (f *Filter) Ask(ctx context.Context, queries []mealy.Word) ([]Answer, error) {
	cut := make([]int, len(queries))
	why := make([]string, len(queries))
	pass := make([]mealy.Word, len(queries))
	excluded := 0
	for k, q := range queries {
		cut[k], why[k] = f.FirstViolation(q)
		if cut[k] >= 0 {
			pass[k] = q[:cut[k]]
			excluded++
		} else {
			pass[k] = q
		}
	}
	if excluded > 0 {
		f.Stats.update(ctx, func(p *model.PhaseStats) { p.Excluded += excluded })
	}
	answers, err := f.Next.Ask(ctx, pass)
	if err != nil {
		return nil, err
	}
	for k, q := range queries {
		if cut[k] < 0 {
			continue
		}
		a := answers[k]
		full := Answer{Outputs: make(mealy.Word, len(q)), ErrAt: a.ErrAt, Err: a.Err}
		copy(full.Outputs, a.Outputs)
		for j := cut[k]; j < len(q); j++ {
			full.Outputs[j] = f.Sem.Err
		}
		if full.ErrAt < 0 {
			full.ErrAt = cut[k]
			full.Err = &model.ErrInfo{Kind: model.ErrExcluded, Detail: why[k]}
		}
		answers[k] = full
	}
	return answers, nil
}
