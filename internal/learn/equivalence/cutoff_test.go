package equivalence

import (
	"context"
	"testing"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/oracle"
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
