package bench

import (
	"context"
	"fmt"
	"sort"

	"github.com/droidstar/droidstar/internal/compose"
	"github.com/droidstar/droidstar/internal/learn"
	"github.com/droidstar/droidstar/internal/learn/equivalence"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/oracle"
)

// Floor is the fewest executed queries a run with the bound oracle alone
// can end with, in the sense of the issue that set the target: the
// maximal words of the last bound check, which must run on the true model
// whatever came before. It is measured by running that check on the
// target as the purpose sees it, with its own (shortest) access words,
// through a fresh pipeline, one word at a time, longest first: a word
// that is a prefix of one already run, or extends an err already seen,
// costs nothing, as in any run.
func Floor(ctx context.Context, plan *compose.Plan) (int, error) {
	target, err := compose.TargetMachine(plan)
	if err != nil {
		return 0, err
	}
	target = target.Minimize()
	access, _ := target.AccessWords()
	t := plan.Job.Target
	sem, err := t.Sem()
	if err != nil {
		return 0, err
	}
	// The check's words, answered by the target itself.
	words := &recordingMachine{m: target}
	b := &equivalence.Bound{MQ: words, Bound: t.Bound, Sem: sem, Forcing: t.Forcing, PerBatch: 1 << 30}
	cex, err := b.FindCounterexample(ctx, &learn.Hypothesis{Machine: target, Access: access})
	if err != nil {
		return 0, err
	}
	if cex != nil {
		return 0, fmt.Errorf("the target fails its own bound check on %v", t.Inputs.Format(cex.Word))
	}
	sort.SliceStable(words.asked, func(i, j int) bool { return len(words.asked[i]) > len(words.asked[j]) })
	rec := plan.Job.Recorder
	mq := &oracle.Counter{Next: plan.Job.MQ, Phase: oracle.PhaseEquivalence, Recorder: rec}
	for _, w := range words.asked {
		if _, err := mq.Ask(ctx, []mealy.Word{w}); err != nil {
			return 0, err
		}
	}
	_, eq := rec.Snapshot()
	return eq.Executed, nil
}

// recordingMachine answers from a machine and keeps what it was asked.
type recordingMachine struct {
	m     *mealy.Machine
	asked []mealy.Word
}

func (r *recordingMachine) Ask(_ context.Context, qs []mealy.Word) ([]oracle.Answer, error) {
	out := make([]oracle.Answer, len(qs))
	for k, q := range qs {
		r.asked = append(r.asked, q)
		w, _ := r.m.Run(q)
		out[k] = oracle.Answer{Outputs: w, ErrAt: -1}
	}
	return out, nil
}
