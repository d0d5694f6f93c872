package equivalence

import (
	"context"
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/oracle"
	"github.com/droidstar/droidstar/internal/oracle/oracletest"
)

// stopping answers from a machine as a scheduler on one lane does: the
// queries in batch order, each executed once (a cache keeps it), and
// under an expectation with CutOff none after the first surprise.
type stopping struct {
	m        *mealy.Machine
	known    map[string]bool
	executed []mealy.Word
	cuts     int
}

func (s *stopping) Ask(ctx context.Context, qs []mealy.Word) ([]oracle.Answer, error) {
	exp, _ := oracle.ExpectationOf(ctx)
	out := make([]oracle.Answer, len(qs))
	for k, q := range qs {
		w, _ := s.m.Run(q)
		out[k] = oracle.Answer{Outputs: w, ErrAt: -1}
		if key := s.m.Inputs.Format(q); !s.known[key] {
			s.known[key] = true
			s.executed = append(s.executed, q)
		}
		if exp.CutOff && exp.Surprise(q, out[k]) {
			if exp.OnSurprise != nil {
				exp.OnSurprise(q, out[k])
			}
			if k < len(qs)-1 {
				s.cuts++
				return nil, &oracle.PartialError{Answers: out, Answered: make([]bool, len(qs)), Err: oracle.ErrCutOff}
			}
		}
	}
	return out, nil
}

// A whole round in one batch is cut off at the first word the hypothesis
// does not predict; the pair of that word gives the counterexample, and
// far fewer words run than the round holds.
func TestBoundWholeRoundStopsAtTheSurprise(t *testing.T) {
	mq := &stopping{m: target(), known: map[string]bool{}}
	b := &Bound{MQ: mq, Bound: 2, Sem: mealy.PlainSemantics(), PerBatch: WholeRound}
	h := merged()
	cex, err := b.FindCounterexample(context.Background(), h)
	if err != nil || cex == nil {
		t.Fatalf("no counterexample: %v", err)
	}
	in := target().Inputs
	if got := in.Format(cex.Word); got != "push push look" {
		t.Fatalf("word %q, want %q", got, "push push look")
	}
	hyp, _ := h.Machine.Run(cex.Word)
	real, _ := target().Run(cex.Word)
	if hyp.Equal(real) {
		t.Fatalf("%s is no counterexample: both answer %v", in.Format(cex.Word), hyp)
	}
	if mq.cuts != 1 {
		t.Errorf("cut off %d times, want 1", mq.cuts)
	}
	// The round: 4 transitions, 4 suffixes, 2 words each (32 words); the
	// 3rd, push·push·look, is the first surprise; its partner, push·look,
	// runs next, and nothing else.
	var got []string
	for _, q := range mq.executed {
		got = append(got, in.Format(q))
	}
	want := []string{"push push push", "push push", "push push look", "push look"}
	if len(got) != len(want) {
		t.Fatalf("executed %q, want %q", got, want)
	}
	for k := range want {
		if got[k] != want[k] {
			t.Fatalf("executed %q, want %q", got, want)
		}
	}
}

// When a cut-off round falls back to one transition per batch, each batch
// carries, with Lookahead, the words of the chunk's later transitions as
// spares; the batches and the counterexample are the ones without it.
// (No surprise is related to a pair here, so the fallback runs from the
// first transition: the lock's merged hypothesis has transitions (0,
// push), (0, look), (1, push), (1, look), and the first, access push
// against access ε, differs on push·look.)
func TestBoundFallbackSendsTheLaterTransitionsAsSpares(t *testing.T) {
	h := merged()
	steps := newOdometer(2, 2, mealy.Forcing{})
	chunk := []transition{{0, 0, 0}, {0, 1, 0}, {1, 0, 1}, {1, 1, 1}}
	var logs [2]*oracletest.Machine
	var cexs [2]string
	for k, lookahead := range []bool{false, true} {
		logs[k] = &oracletest.Machine{M: target(), Log: true}
		b := &Bound{MQ: logs[k], Bound: 2, Sem: mealy.PlainSemantics(), Lookahead: lookahead}
		queries := b.chunkWords(h, chunk, steps, -1)
		cex, err := b.cutOff(context.Background(), h, chunk, steps, queries, nil)
		if err != nil || cex == nil {
			t.Fatalf("lookahead %v: no counterexample (%v)", lookahead, err)
		}
		cexs[k] = target().Inputs.Format(cex.Word) + " / " + target().Inputs.Format(cex.Suffix)
	}
	if cexs[0] != cexs[1] {
		t.Errorf("counterexample %s without lookahead, %s with it", cexs[0], cexs[1])
	}
	if strings.Join(logs[0].Batches[0], "|") != strings.Join(logs[1].Batches[0], "|") || len(logs[0].Batches) != len(logs[1].Batches) {
		t.Errorf("batches %q without lookahead, %q with it", logs[0].Batches, logs[1].Batches)
	}
	if len(logs[0].SpareBatches[0]) != 0 {
		t.Errorf("spares without lookahead: %q", logs[0].SpareBatches[0])
	}
	// The later transitions' words: (0, look), then (1, push), (1, look),
	// each with its 4 suffixes, left word then right.
	want := "look push push|push push|look push look|push look|look look push|look push|look look look|look look|" +
		"push push push push push|push push push push|push push push push look|push push push look|push push push look push|push push look push|push push push look look|push push look look|" +
		"push push look push push|push push push push|push push look push look|push push push look|push push look look push|push push look push|push push look look look|push push look look"
	if got := strings.Join(logs[1].SpareBatches[0], "|"); got != want {
		t.Errorf("spares of the first batch:\n%s\nwant\n%s", got, want)
	}
}

// With a bound too small for the target, a cut-off round can meet a word
// the hypothesis gets wrong while no pair within the bound differs: the
// lock's merged hypothesis at bound 1 predicts push·push·push·look
// closed, the lock answers open, and the pair that word belongs to
// (transition 1 on push, suffix look) answers open on both sides. The
// surprise is the counterexample; the hypothesis does not pass.
func TestBoundCutOffReportsASurpriseNoPairExplains(t *testing.T) {
	mq := &stopping{m: target(), known: map[string]bool{}}
	b := &Bound{MQ: mq, Bound: 1, Sem: mealy.PlainSemantics(), PerBatch: WholeRound}
	h := merged()
	cex, err := b.FindCounterexample(context.Background(), h)
	if err != nil || cex == nil {
		t.Fatalf("no counterexample (%v): the hypothesis passed a round that contradicted it", err)
	}
	in := target().Inputs
	if got := in.Format(cex.Word); got != "push push push look" || len(cex.Suffix) != 0 {
		t.Fatalf("counterexample %q suffix %q, want the word push push push look alone", got, in.Format(cex.Suffix))
	}
	hyp, _ := h.Machine.Run(cex.Word)
	real, _ := target().Run(cex.Word)
	if hyp.Equal(real) {
		t.Fatalf("%s is no counterexample: both answer %v", in.Format(cex.Word), hyp)
	}
	// Per transition, no batch is cut off and no pair differs: it passes.
	b = &Bound{MQ: &stopping{m: target(), known: map[string]bool{}}, Bound: 1, Sem: mealy.PlainSemantics()}
	if cex, err := b.FindCounterexample(context.Background(), h); err != nil || cex != nil {
		t.Errorf("one transition per batch: %v (%v), want a pass, the bound being too small", cex, err)
	}
}
