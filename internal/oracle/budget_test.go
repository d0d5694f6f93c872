package oracle_test

import (
	"context"
	"errors"
	"testing"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/oracle"
)

// The budget runs a batch up to what is left and keeps those answers in
// the cache above it; from then on nothing runs, and what the cache holds
// is still answered.
func TestBudgetStopsAtExactlyMax(t *testing.T) {
	m := counter()
	dev := &machineOracle{m: m, ran: map[string]int{}}
	budget := &oracle.Budget{Next: dev, Max: 5}
	c := oracle.NewCache(budget, m.Inputs, m.Outputs, mealy.PlainSemantics(), &oracle.Recorder{})
	ctx := context.Background()
	ws := words(3, 2)
	if _, err := c.Ask(ctx, ws[:3]); err != nil {
		t.Fatal(err)
	}
	_, err := c.Ask(ctx, ws[3:7])
	var be *oracle.BudgetError
	if !errors.As(err, &be) || be.Max != 5 || err.Error() != "stopped after 5 executed queries" {
		t.Fatalf("got %v, want the budget's stop after 5", err)
	}
	if len(dev.ran) != 5 || budget.Used() != 5 {
		t.Fatalf("ran %d queries, budget used %d; want 5", len(dev.ran), budget.Used())
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
	if _, err := c.Ask(ctx, ws[8:]); !errors.As(err, &be) || len(dev.ran) != 5 {
		t.Fatalf("got %v after %d runs, want the budget's stop and no run", err, len(dev.ran))
	}
}
