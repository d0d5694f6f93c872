package equivalence

import (
	"context"
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/learn"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/mealy/mealytest"
	"github.com/droidstar/droidstar/internal/oracle/oracletest"
)

// target: a lock that opens after two "push"es and reports it on "look".
//
//	0 -push-> 1 -push-> 2 (push stays); look: closed, closed, open
//
// States 0 and 1 only differ on push·look (length 2).
func target() *mealy.Machine {
	m := mealy.NewMachine(mealy.MustAlphabet("push", "look"), mealy.MustAlphabet("ok", "closed", "open"), 3)
	m.SetTransition(0, 0, 0, 1)
	m.SetTransition(1, 0, 0, 2)
	m.SetTransition(2, 0, 0, 2)
	m.SetTransition(0, 1, 1, 0)
	m.SetTransition(1, 1, 1, 1)
	m.SetTransition(2, 1, 2, 2)
	return m
}

// merged is the hypothesis L* builds from one-letter experiments: 0 and 1
// look alike, so it has two states.
func merged() *learn.Hypothesis {
	m := mealy.NewMachine(mealy.MustAlphabet("push", "look"), mealy.MustAlphabet("ok", "closed", "open"), 2)
	m.SetTransition(0, 0, 0, 0) // push from {0,1}: wrongly stays
	m.SetTransition(0, 1, 1, 0)
	m.SetTransition(1, 0, 0, 1)
	m.SetTransition(1, 1, 2, 1)
	return &learn.Hypothesis{Machine: m, Access: []mealy.Word{{}, {0, 0}}}
}

func TestBoundFindsTheShortestSuffix(t *testing.T) {
	mq := &oracletest.Machine{M: target(), Log: true}
	b := &Bound{MQ: mq, Bound: 2, Sem: mealy.PlainSemantics()}
	cex, err := b.FindCounterexample(context.Background(), merged())
	if err != nil || cex == nil {
		t.Fatalf("no counterexample: %v", err)
	}
	in := target().Inputs
	// Transition (0, push) → 0: ε·push and ε differ on push·look.
	if got := in.Format(cex.Suffix); got != "push look" {
		t.Fatalf("suffix %q, want %q", got, "push look")
	}
	if got := in.Format(cex.Word); got != "push push look" {
		t.Fatalf("word %q, want %q", got, "push push look")
	}
	// The first transition checked needs 2 words per suffix of length 2.
	if len(mq.Sent) != 8 {
		t.Fatalf("asked %d words, want 8 (2 per suffix of length 2)", len(mq.Sent))
	}
	for _, q := range mq.Sent {
		if len(q) < 2 {
			t.Fatalf("asked a non-maximal word %v", q)
		}
	}
}

// With a bound below what the target needs, the oracle accepts the wrong
// hypothesis: the assumption is the user's to state, and the learned model
// reports the bound it needs so a too-small one can be noticed.
func TestBoundTooSmallMissesTheDifference(t *testing.T) {
	b := &Bound{MQ: &oracletest.Machine{M: target()}, Bound: 1, Sem: mealy.PlainSemantics()}
	cex, err := b.FindCounterexample(context.Background(), merged())
	if err != nil || cex != nil {
		t.Fatalf("got %+v, %v; bound 1 cannot see the difference", cex, err)
	}
	if target().NeededBound() != 2 {
		t.Fatal("the target needs bound 2")
	}
}

func TestBoundSkipsTheErrorSink(t *testing.T) {
	in, out, _ := mealy.ClosureAlphabets([]string{"go"}, nil)
	m := mealy.NewMachine(in, out, 2)
	m.SetTransition(0, 0, 2, 1) // go / err → sink
	m.SetTransition(0, 1, 1, 0) // wait / quiet
	m.SetTransition(1, 0, 2, 1)
	m.SetTransition(1, 1, 2, 1)
	mq := &oracletest.Machine{M: m, Log: true}
	h := &learn.Hypothesis{Machine: m, Access: []mealy.Word{{}, {0}}}
	b := &Bound{MQ: mq, Bound: 2, Sem: mealy.ClosureSemantics(in, out)}
	cex, err := b.FindCounterexample(context.Background(), h)
	if err != nil || cex != nil {
		t.Fatalf("got %+v, %v", cex, err)
	}
	// Only (0, wait) → 0 is checked: go leads to the sink, the sink is skipped.
	if len(mq.Sent) != 8 {
		t.Fatalf("asked %d words, want 8", len(mq.Sent))
	}
}

// A transition into the error sink that answers ok claims that every
// later input errs; the check must ask it, not skip it as it skips the
// sink's own transitions. L# with several devices learned
// SpeechRecognizer's cancel after start so (cancel answers ok, then
// everything errs) and the check passed it: a wrong model.
func TestBoundChecksAnOKTransitionIntoTheSink(t *testing.T) {
	in, out, _ := mealy.ClosureAlphabets([]string{"open", "close"}, nil)
	open, closeIn, wait := 0, 1, 2
	ok, quiet, errOut := 0, 1, 2
	// The target: open, close, open, ... alternate; anything else errs.
	target := mealy.NewMachine(in, out, 3)
	target.SetTransition(0, open, ok, 1)
	target.SetTransition(0, closeIn, errOut, 2)
	target.SetTransition(0, wait, quiet, 0)
	target.SetTransition(1, open, errOut, 2)
	target.SetTransition(1, closeIn, ok, 0)
	target.SetTransition(1, wait, quiet, 1)
	for a := range 3 {
		target.SetTransition(2, a, errOut, 2)
	}
	// The hypothesis: close answers ok and leads to the sink.
	hyp := target.Clone()
	hyp.SetTransition(1, closeIn, ok, 2)
	h := &learn.Hypothesis{Machine: hyp, Access: []mealy.Word{{}, {open}, {closeIn}}}
	b := &Bound{MQ: &oracletest.Machine{M: target}, Bound: 2, Sem: mealy.ClosureSemantics(in, out)}
	cex, err := b.FindCounterexample(context.Background(), h)
	if err != nil || cex == nil {
		t.Fatalf("got %+v, %v; want the counterexample open close open", cex, err)
	}
	if got := in.Format(cex.Word); got != "open close open" {
		t.Fatalf("counterexample %q, want %q", got, "open close open")
	}
	if got := in.Format(cex.Suffix); got != "open" {
		t.Fatalf("suffix %q, want %q", got, "open")
	}
}

func TestPerfect(t *testing.T) {
	p := &Perfect{Target: target()}
	cex, err := p.FindCounterexample(context.Background(), merged())
	if err != nil || cex == nil || target().Inputs.Format(cex.Word) != "push push look" {
		t.Fatalf("got %+v, %v", cex, err)
	}
	right := &learn.Hypothesis{Machine: target(), Access: nil}
	if cex, err := p.FindCounterexample(context.Background(), right); cex != nil || err != nil {
		t.Fatalf("got %+v, %v for the target itself", cex, err)
	}
}

// mergedSocket is the hypothesis that takes the state after close for the
// one after bind: there is no closed channel in it.
func mergedSocket() *learn.Hypothesis {
	target, _ := mealytest.ServerSocket()
	const bind, accept, closeIn, wait = 0, 1, 2, 3
	const ok, quiet, errO, accepted = 0, 1, 2, 3
	m := mealy.NewMachine(target.Inputs, target.Outputs, 5)
	for q := 0; q < 5; q++ {
		for i := 0; i < 4; i++ {
			m.SetTransition(q, i, errO, 4)
		}
	}
	m.SetTransition(0, bind, ok, 1)
	m.SetTransition(0, closeIn, ok, 1)
	m.SetTransition(0, wait, quiet, 0)
	m.SetTransition(1, wait, quiet, 2)
	m.SetTransition(2, accept, ok, 3)
	m.SetTransition(2, closeIn, ok, 1)
	m.SetTransition(2, wait, quiet, 2)
	m.SetTransition(3, wait, accepted, 2)
	return &learn.Hypothesis{Machine: m, Access: []mealy.Word{{}, {bind}, {bind, wait}, {bind, wait, accept}, {accept}}}
}

// The bound counts free symbols: after close, the suffix starts with the
// forced wait and each callin brings its own, so bound 1 already asks
// "close wait accept wait" and finds the closed channel.
func TestBoundCountsFreeSymbols(t *testing.T) {
	target, forcing := mealytest.ServerSocket()
	mq := &oracletest.Machine{M: target, Log: true}
	b := &Bound{MQ: mq, Bound: 1, Sem: mealy.ClosureSemantics(target.Inputs, target.Outputs), Forcing: forcing}
	cex, err := b.FindCounterexample(context.Background(), mergedSocket())
	if err != nil || cex == nil {
		t.Fatalf("no counterexample: %v", err)
	}
	in := target.Inputs
	if got, want := in.Format(cex.Word)+" / "+in.Format(cex.Suffix), "close wait accept wait / wait accept wait"; got != want {
		t.Fatalf("counterexample %q, want %q", got, want)
	}
	// (0, bind) is its own access word and (0, accept) goes to the sink:
	// (0, close) → 1 is checked first, one step from the forced wait on.
	var asked []string
	for _, q := range mq.Sent {
		asked = append(asked, in.Format(q))
	}
	want := []string{
		"close wait bind wait", "bind wait bind wait",
		"close wait accept wait", "bind wait accept wait",
		"close wait close wait", "bind wait close wait",
		"close wait wait", "bind wait wait",
	}
	if strings.Join(asked, ", ") != strings.Join(want, ", ") {
		t.Fatalf("asked\n %s\nwant\n %s", strings.Join(asked, ", "), strings.Join(want, ", "))
	}
}

// Counting every symbol, bound 2 stops at "wait accept" and passes the
// merged hypothesis: the case the free length is for.
func TestPlainBoundMissesWhatForcedWaitsHide(t *testing.T) {
	target, _ := mealytest.ServerSocket()
	b := &Bound{MQ: &oracletest.Machine{M: target}, Bound: 2, Sem: mealy.ClosureSemantics(target.Inputs, target.Outputs)}
	cex, err := b.FindCounterexample(context.Background(), mergedSocket())
	if err != nil || cex != nil {
		t.Fatalf("got %+v, %v; plain bound 2 cannot see past wait accept", cex, err)
	}
}

// A hypothesis that takes the state right after bind, where only the
// forced wait is allowed, for the one after its wait differs from the
// target only on words the restrictions exclude (bind accept answers err):
// no suffix of free length reaches them, so the rounds pass it, and the
// check of the excluded inputs after each forcing callin finds it. The
// target itself has no such word to ask.
func TestBoundChecksTheInputsAForcedWaitExcludes(t *testing.T) {
	target, forcing := mealytest.ServerSocket()
	const bind, wait = 0, 3
	// The target without its state 1: bind leads to 3, whose access word
	// stays bind wait.
	renum := func(q int) int {
		switch {
		case q == 1:
			return 2
		case q > 1:
			return q - 1
		}
		return q
	}
	merged := mealy.NewMachine(target.Inputs, target.Outputs, target.NumStates()-1)
	tree := target.AccessTree()
	access := make([]mealy.Word, target.NumStates()-1)
	for q := range target.NumStates() {
		if q == 1 {
			continue
		}
		access[renum(q)] = tree.Word(q)
		for i := range target.Inputs.Size() {
			merged.SetTransition(renum(q), i, target.Out[q][i], renum(target.Next[q][i]))
		}
	}
	sem := mealy.ClosureSemantics(target.Inputs, target.Outputs)
	in := target.Inputs
	for _, tc := range []struct {
		name string
		h    *learn.Hypothesis
		want string
	}{
		{"merged", &learn.Hypothesis{Machine: merged, Access: access}, "bind accept"},
		{"target", exact(target), ""},
	} {
		mq := &oracletest.Machine{M: target, Log: true}
		b := &Bound{MQ: mq, Bound: 1, Sem: sem, Forcing: forcing}
		cex, err := b.FindCounterexample(context.Background(), tc.h)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if cex != nil {
			got = in.Format(cex.Word)
		}
		if got != tc.want {
			t.Errorf("%s: counterexample %q, want %q", tc.name, got, tc.want)
		}
		for _, q := range mq.Sent {
			if len(q) >= 2 && q[len(q)-2] == bind && q[len(q)-1] != wait && tc.want == "" {
				t.Errorf("%s: asked %q", tc.name, in.Format(q))
			}
		}
	}
}
