package engine

import (
	"context"
	"fmt"

	"github.com/droidstar/droidstar/internal/learn"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
)

// checks is the equivalence oracle of a run: the bound check and, once a
// hypothesis passes it, the conformance test. It records which of the two
// found each counterexample, for the summary.
type checks struct {
	bound       learn.EquivalenceOracle
	conformance learn.EquivalenceOracle // nil when off
	inputs      *mealy.Alphabet

	round int
	found []model.FoundCounterexample
}

// FindCounterexample implements learn.EquivalenceOracle.
func (c *checks) FindCounterexample(ctx context.Context, h *learn.Hypothesis) (*learn.Counterexample, error) {
	c.round++
	cex, err := c.bound.FindCounterexample(ctx, h)
	if err != nil || cex != nil {
		return c.record(model.CheckBound, cex), err
	}
	if c.conformance == nil {
		return nil, nil
	}
	cex, err = c.conformance.FindCounterexample(ctx, h)
	if err != nil {
		return nil, fmt.Errorf("conformance test: %w", err)
	}
	return c.record(model.CheckConformance, cex), nil
}

func (c *checks) record(check string, cex *learn.Counterexample) *learn.Counterexample {
	if cex != nil {
		c.found = append(c.found, model.FoundCounterexample{Round: c.round, Check: check, Input: c.inputs.Strings(cex.Word)})
	}
	return cex
}
