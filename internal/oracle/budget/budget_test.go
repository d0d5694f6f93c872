package budget_test

import (
	"context"
	"errors"
	"testing"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/oracle"
	"github.com/droidstar/droidstar/internal/oracle/budget"
	"github.com/droidstar/droidstar/internal/oracle/cache"
	"github.com/droidstar/droidstar/internal/oracle/oracletest"
)

// lock is a machine of two states: every word of length 2 is a query of
// its own.
func lock() *mealy.Machine {
	m := mealy.NewMachine(mealy.MustAlphabet("a", "b", "c"), mealy.MustAlphabet("x", "y"), 2)
	for q := range 2 {
		m.SetTransition(q, 0, q, 1-q)
		m.SetTransition(q, 1, 1-q, q)
		m.SetTransition(q, 2, 0, 0)
	}
	return m
}

var all = []mealy.Word{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}, {2, 0}, {2, 1}, {2, 2}}

// The budget runs a batch up to what is left and keeps those answers in
// the cache above it; from then on nothing runs, and what the cache holds
// is still answered.
func TestBudgetStopsAtExactlyMax(t *testing.T) {
	m := lock()
	dev := &oracletest.Machine{M: m, Ran: map[string]int{}}
	stage := &budget.Stage{Next: dev, Max: 5}
	c := cache.New(stage, m.Inputs, m.Outputs, mealy.PlainSemantics(), &oracle.Recorder{})
	ctx := context.Background()
	ws := all
	if _, err := c.Ask(ctx, ws[:3]); err != nil {
		t.Fatal(err)
	}
	_, err := c.Ask(ctx, ws[3:7])
	var be *budget.Error
	if !errors.As(err, &be) || be.Max != 5 || err.Error() != "stopped after 5 executed queries" {
		t.Fatalf("got %v, want the budget's stop after 5", err)
	}
	if len(dev.Ran) != 5 || stage.Used() != 5 {
		t.Fatalf("ran %d queries, budget used %d; want 5", len(dev.Ran), stage.Used())
	}
	// The two the budget let through of the second batch are kept.
	kept := 0
	for _, w := range ws[3:7] {
		if _, ok := c.Lookup(w); ok {
			kept++
		}
	}
	if kept != 2 {
		t.Fatalf("the cache kept %d answers of the cut batch, want 2", kept)
	}
	if _, err := c.Ask(ctx, ws[:3]); err != nil {
		t.Fatalf("asking what the cache holds: %v", err)
	}
	if _, err := c.Ask(ctx, ws[8:]); !errors.As(err, &be) || len(dev.Ran) != 5 {
		t.Fatalf("got %v after %d runs, want the budget's stop and no run", err, len(dev.Ran))
	}
}

// sparesSeen notes whether a batch came with spares.
type sparesSeen struct {
	oracle.Oracle
	seen bool
}

func (s *sparesSeen) Ask(ctx context.Context, qs []mealy.Word) ([]oracle.Answer, error) {
	_, ok := oracle.SparesOf(ctx)
	s.seen = s.seen || ok
	return s.Oracle.Ask(ctx, qs)
}

// Spares do not pass a budget: each would spend it on a word nobody asked
// for yet.
func TestBudgetPassesNoSpares(t *testing.T) {
	m := lock()
	below := &sparesSeen{Oracle: &oracletest.Machine{M: m, Ran: map[string]int{}}}
	stage := &budget.Stage{Next: below, Max: 5}
	ctx := oracle.WithSpares(context.Background(), oracle.Spares{Words: all[3:], Answered: func(int, oracle.Answer) {}})
	if _, err := stage.Ask(ctx, all[:1]); err != nil {
		t.Fatal(err)
	}
	if below.seen || stage.Used() != 1 {
		t.Errorf("spares passed: %v; %d of the budget used, want 1", below.seen, stage.Used())
	}
}
