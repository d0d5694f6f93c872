package restrict

import (
	"context"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/oracle"
)

// Filter applies the rules to queries. A query that breaks one is cut at
// the first symbol that breaks it: the allowed prefix is answered by the
// next stage and the rest answers err, recorded as excluded (not as an
// error of the class). Below the filter, the cache answers an excluded
// query's allowed prefix without running it again.
type Filter struct {
	Next     oracle.Oracle
	Rules    *Automaton
	Sem      mealy.Semantics
	Recorder *oracle.Recorder
}

// Ask implements oracle.Oracle.
func (f *Filter) Ask(ctx context.Context, queries []mealy.Word) ([]oracle.Answer, error) {
	cut := make([]int, len(queries))
	why := make([]string, len(queries))
	pass := make([]mealy.Word, len(queries))
	excluded := 0
	for k, q := range queries {
		cut[k], why[k] = f.Rules.FirstViolation(q)
		if cut[k] >= 0 {
			pass[k] = q[:cut[k]]
			excluded++
		} else {
			pass[k] = q
		}
	}
	if excluded > 0 {
		f.Recorder.Excluded(ctx, excluded)
	}
	answers, err := f.Next.Ask(f.spares(ctx), pass)
	if err != nil {
		return nil, err
	}
	for k, q := range queries {
		if cut[k] < 0 {
			continue
		}
		a := answers[k]
		full := oracle.Answer{Outputs: make(mealy.Word, len(q)), ErrAt: a.ErrAt, Err: a.Err, Device: a.Device, Steps: a.Steps}
		copy(full.Outputs, a.Outputs)
		f.Sem.ErrFrom(full.Outputs, cut[k])
		if full.ErrAt < 0 {
			full.ErrAt = cut[k]
			full.Err = excludedErr(why[k])
		}
		answers[k] = full
	}
	return answers, nil
}

// Explain implements oracle.Explainer: a word whose last symbol breaks a
// rule is excluded; one that breaks a rule earlier has its err earlier;
// the stages below know about the rest.
func (f *Filter) Explain(w mealy.Word) (*model.ErrInfo, bool) {
	switch k, why := f.Rules.FirstViolation(w); {
	case k == len(w)-1:
		return excludedErr(why), true
	case k >= 0:
		return nil, false
	}
	return oracle.Explain(f.Next, w)
}

func excludedErr(rule string) *model.ErrInfo {
	return &model.ErrInfo{Kind: model.ErrExcluded, Detail: rule}
}

// spares cuts the asker's spare words (see oracle.Spares) to what the
// restrictions allow, as it cuts the queries: the part after a violation
// is an err the filter answers itself.
func (f *Filter) spares(ctx context.Context) context.Context {
	sp, ok := oracle.SparesOf(ctx)
	if !ok {
		return ctx
	}
	words := make([]mealy.Word, len(sp.Words))
	for k, w := range sp.Words {
		if cut, _ := f.Rules.FirstViolation(w); cut >= 0 {
			w = w[:cut]
		}
		words[k] = w
	}
	return oracle.WithSpares(ctx, oracle.Spares{Words: words, Answered: sp.Answered})
}
