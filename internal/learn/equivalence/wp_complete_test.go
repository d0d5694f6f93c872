package equivalence

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/droidstar/droidstar/internal/learn"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/oracle/oracletest"
)

// randomMachine is a random machine with n states, every state reachable
// from state 0 (a spanning chain first, the rest random).
func randomMachine(r *rand.Rand, n, inputs, outputs int) *mealy.Machine {
	in := make([]string, inputs)
	for k := range in {
		in[k] = string(rune('a' + k))
	}
	out := make([]string, outputs)
	for k := range out {
		out[k] = string(rune('x' + k))
	}
	m := mealy.NewMachine(mealy.MustAlphabet(in...), mealy.MustAlphabet(out...), n)
	for q := 0; q < n; q++ {
		for i := 0; i < inputs; i++ {
			m.SetTransition(q, i, r.IntN(outputs), r.IntN(n))
		}
		if q > 0 {
			// Reachability: some earlier state leads here.
			m.SetTransition(r.IntN(q), r.IntN(inputs), r.IntN(outputs), q)
		}
	}
	return m.Minimize()
}

// The Wp-method's guarantee (Fujiwara et al. 1991): a minimal hypothesis
// of n states that passes the suite of depth k is equivalent to every
// target of at most n+k states. Checked on random pairs of minimal
// machines: every target that differs from the hypothesis and has at most
// n+k states must be caught.
func TestWpIsCompleteForKExtraStates(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 13))
	checked := 0
	for trial := 0; trial < 400; trial++ {
		k := trial % 3
		n := 2 + r.IntN(4)
		h := randomMachine(r, n, 2, 2)
		target := randomMachine(r, n+k, 2, 2)
		if h.NumStates() != n || target.NumStates() > n+k {
			continue // minimisation merged states: n is not the hypothesis's size
		}
		// A hypothesis that agrees with the target on most words is the
		// hard case: build some from the target by redirecting one
		// transition.
		if trial%2 == 1 {
			h = target.Clone()
			h.SetTransition(r.IntN(h.NumStates()), r.IntN(2), h.Out[0][0], r.IntN(h.NumStates()))
			h = h.Minimize()
			if target.NumStates() > h.NumStates()+k {
				continue
			}
		}
		equal, err := h.Equivalent(target)
		if err != nil {
			t.Fatal(err)
		}
		access, _ := h.AccessWords()
		hyp := &learn.Hypothesis{Machine: h, Access: access}
		wp := &Wp{MQ: &oracletest.Machine{M: target}, Depth: k, Sem: mealy.PlainSemantics()}
		cex, err := wp.FindCounterexample(context.Background(), hyp)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case equal && cex != nil:
			t.Fatalf("trial %d: a counterexample %v for an equivalent hypothesis", trial, cex.Word)
		case !equal && cex == nil:
			t.Fatalf("trial %d: wp:%d passed a %d-state hypothesis of a different %d-state target", trial, k, h.NumStates(), target.NumStates())
		case cex != nil && !distinguishes(target, hyp, cex.Word):
			t.Fatalf("trial %d: %v does not tell them apart", trial, cex.Word)
		}
		if !equal {
			checked++
		}
	}
	if checked < 100 {
		t.Fatalf("only %d differing pairs checked", checked)
	}
}
