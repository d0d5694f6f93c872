package learn_test

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/learn"
	"github.com/droidstar/droidstar/internal/learn/equivalence"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/oracle/oracletest"
)

func randomMachine(seed int64, states, inputs, outputs int) *mealy.Machine {
	r := rand.New(rand.NewSource(seed))
	in := make([]string, inputs)
	for i := range in {
		in[i] = fmt.Sprintf("i%d", i)
	}
	out := make([]string, outputs)
	for i := range out {
		out[i] = fmt.Sprintf("o%d", i)
	}
	m := mealy.NewMachine(mealy.MustAlphabet(in...), mealy.MustAlphabet(out...), states)
	for q := 0; q < states; q++ {
		for i := 0; i < inputs; i++ {
			m.SetTransition(q, i, r.Intn(outputs), r.Intn(states))
		}
	}
	return m
}

func TestLStarLearnsRandomMachinesWithPerfectTeacher(t *testing.T) {
	for seed := int64(1); seed <= 40; seed++ {
		for _, closed := range []bool{false, true} {
			target := randomMachine(seed, 2+int(seed%13), 2+int(seed%4), 2+int(seed%3))
			mq := &oracletest.Machine{M: target}
			res, err := learn.LStar(context.Background(), target.Inputs, target.Outputs, mq,
				&equivalence.Perfect{Target: target}, learn.Options{SuffixClosed: closed})
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			got := res.Hypothesis.Machine
			if ok, _ := got.Equivalent(target); !ok {
				t.Fatalf("seed %d (suffix-closed %v): learned machine differs from the target", seed, closed)
			}
			if want := target.Minimize().NumStates(); got.NumStates() != want {
				t.Fatalf("seed %d: learned %d states, minimal target has %d", seed, got.NumStates(), want)
			}
			for q, w := range res.Hypothesis.Access {
				if got.StateAfter(w) != q {
					t.Fatalf("seed %d: access word of state %d leads elsewhere", seed, q)
				}
			}
		}
	}
}

// counter is a counter modulo 5 whose value only "read" shows, and only
// as zero or non-zero: one-letter experiments see two states, so learning
// it needs counterexamples.
func counter() *mealy.Machine {
	in := mealy.MustAlphabet("inc", "read")
	out := mealy.MustAlphabet("ok", "zero", "nonzero")
	m := mealy.NewMachine(in, out, 5)
	for q := 0; q < 5; q++ {
		m.SetTransition(q, 0, 0, (q+1)%5)
		r := 2
		if q == 0 {
			r = 1
		}
		m.SetTransition(q, 1, r, q)
	}
	return m
}

func TestLStarNeedsCounterexamples(t *testing.T) {
	m := counter()
	res, err := learn.LStar(context.Background(), m.Inputs, m.Outputs, &oracletest.Machine{M: m}, &equivalence.Perfect{Target: m}, learn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := res.Hypothesis.Machine.Equivalent(m); !ok || res.Hypothesis.Machine.NumStates() != 5 {
		t.Fatalf("learned %d states, equivalent=%v", res.Hypothesis.Machine.NumStates(), ok)
	}
	if res.EQs < 2 {
		t.Fatalf("expected at least one counterexample, got %d equivalence queries", res.EQs)
	}
}

func TestLStarMaxRoundsKeepsHypothesis(t *testing.T) {
	target := counter()
	res, err := learn.LStar(context.Background(), target.Inputs, target.Outputs, &oracletest.Machine{M: target},
		&equivalence.Perfect{Target: target}, learn.Options{MaxRounds: 1})
	if err != learn.ErrMaxRounds || res == nil || res.Hypothesis == nil {
		t.Fatalf("want ErrMaxRounds with the last hypothesis, got %v, %v", res, err)
	}
	if got := res.Hypothesis.Machine.NumStates(); got != 2 {
		t.Fatalf("first hypothesis has %d states, want 2 (zero, non-zero)", got)
	}
}

// With Lookahead, each fill sends as spares the cells the next closing
// round asks if it moves one of the rows being filled into S: the first
// fill's rows a and b, each extended by each input, then each column.
// The batches asked and the model are the ones without it.
func TestLStarLookaheadSendsTheNextCellsAsSpares(t *testing.T) {
	target := randomMachine(3, 4, 2, 2)
	var runs [2]*oracletest.Machine
	for k, lookahead := range []bool{false, true} {
		log := &oracletest.Machine{M: target, Log: true}
		res, err := learn.LStar(context.Background(), target.Inputs, target.Outputs, log,
			&equivalence.Perfect{Target: target}, learn.Options{Lookahead: lookahead})
		if err != nil {
			t.Fatal(err)
		}
		if same, err := res.Hypothesis.Machine.Equivalent(target); err != nil || !same {
			t.Fatalf("lookahead %v: learned another machine (%v)", lookahead, err)
		}
		runs[k] = log
	}
	if fmt.Sprint(runs[0].Batches) != fmt.Sprint(runs[1].Batches) {
		t.Errorf("batches without lookahead %v, with it %v", runs[0].Batches, runs[1].Batches)
	}
	for k, sp := range runs[0].SpareBatches {
		if len(sp) > 0 {
			t.Errorf("batch %d without lookahead sent spares %v", k, sp)
		}
	}
	want := "i0 i0 i0|i0 i0 i1|i0 i1 i0|i0 i1 i1|i1 i0 i0|i1 i0 i1|i1 i1 i0|i1 i1 i1"
	if got := strings.Join(runs[1].SpareBatches[0], "|"); got != want {
		t.Errorf("the first fill's spares %s, want %s", got, want)
	}
}
