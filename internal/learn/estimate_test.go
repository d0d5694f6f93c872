package learn_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/learn"
	"github.com/droidstar/droidstar/internal/learn/equivalence"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/oracle"
	"github.com/droidstar/droidstar/internal/oracle/oracletest"
)

// journal is what a learner told and asked, in order: "estimate N",
// "ask N" (a batch of N queries) and "hypothesis N" (its round).
type journal struct {
	mq     oracle.Oracle
	events []string
}

func (j *journal) Ask(ctx context.Context, qs []mealy.Word) ([]oracle.Answer, error) {
	j.events = append(j.events, fmt.Sprintf("ask %d", len(qs)))
	return j.mq.Ask(ctx, qs)
}

func (j *journal) options() learn.Options {
	return learn.Options{
		OnEstimate:   func(n int) { j.events = append(j.events, fmt.Sprintf("estimate %d", n)) },
		OnHypothesis: func(round int, _ *learn.Hypothesis) { j.events = append(j.events, fmt.Sprintf("hypothesis %d", round)) },
	}
}

// Every learner tells its estimate before the first batch of each phase
// (before the first hypothesis, and after each counterexample), and each
// estimate covers at least the batch that follows it.
func TestLearnersEstimateEveryPhase(t *testing.T) {
	targets := []*mealy.Machine{counter()}
	for seed := int64(1); seed <= 12; seed++ {
		targets = append(targets, randomMachine(seed, 2+int(seed%9), 2+int(seed%4), 2+int(seed%3)))
	}
	for _, name := range learn.Names() {
		learner, err := learn.ByName(name)
		if err != nil {
			t.Fatal(err)
		}
		for k, target := range targets {
			j := &journal{mq: &oracletest.Machine{M: target}}
			if _, err := learner(context.Background(), target.Inputs, target.Outputs, j, &equivalence.Perfect{Target: target}, j.options()); err != nil {
				t.Fatalf("%s, target %d: %v", name, k, err)
			}
			estimated, last := false, 0
			for e, event := range j.events {
				var what string
				var n int
				fmt.Sscanf(event, "%s %d", &what, &n)
				switch what {
				case "hypothesis":
					estimated = false
				case "estimate":
					estimated, last = true, n
				case "ask":
					if !estimated {
						t.Errorf("%s, target %d: a phase's first batch without an estimate: %s", name, k, strings.Join(j.events[:e+1], ", "))
					} else if n > last && strings.HasPrefix(j.events[e-1], "estimate") {
						t.Errorf("%s, target %d: an estimate of %d queries, then a batch of %d: %s", name, k, last, n, strings.Join(j.events[:e+1], ", "))
					}
				}
			}
		}
	}
}

// L*'s estimate is its table: the cells of the fill at hand, and for
// each state still expected a row per input, a cell per column each.
// Before the first answer it expects as many states as inputs; after a
// counterexample, one more state than the hypothesis.
func TestLStarEstimatesItsTable(t *testing.T) {
	m := counter() // 2 inputs, 5 states, first hypothesis 2 states
	j := &journal{mq: &oracletest.Machine{M: m}}
	if _, err := learn.LStar(context.Background(), m.Inputs, m.Outputs, j, &equivalence.Perfect{Target: m}, j.options()); err != nil {
		t.Fatal(err)
	}
	want := []string{
		// ε, inc and read by the two inputs, and one state more (2 rows
		// by 2 columns); then inc's two rows, and as many as one state
		// found adds.
		"estimate 10", "ask 6", "estimate 8", "ask 4", "hypothesis 1",
		// The counterexample: its binary search (1 + the bits of its
		// length), a new column in each of the 5 rows, and a state's 2
		// rows by 3 columns. Each fill then has its own.
		"estimate 15", "ask 1", "ask 1", "ask 1", "estimate 11", "ask 5", "estimate 12", "ask 6", "hypothesis 2",
	}
	if got := j.events[:len(want)]; strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("first phase: %s\nwant %s", strings.Join(got, ", "), strings.Join(want, ", "))
	}
}
