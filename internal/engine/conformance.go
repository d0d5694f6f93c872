package engine

import (
	"context"
	"fmt"

	"github.com/droidstar/droidstar/internal/learn"
	"github.com/droidstar/droidstar/internal/learn/equivalence"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/oracle"
)

// Conformance methods (model.Conformance.Method).
const (
	ConformanceRandom = "random"
	ConformanceWp     = "wp"
)

// NewConformance is the conformance test c describes, asking mq.
// bound tells the bound the check before it used, which random walks go
// past; onProgress, when set, is told how many of a check's words were
// asked.
func NewConformance(c model.Conformance, mq oracle.Oracle, sem mealy.Semantics, forcing mealy.Forcing, bound func() int, onProgress func(done, total int)) (learn.EquivalenceOracle, error) {
	switch c.Method {
	case ConformanceRandom:
		if c.Walks < 1 {
			return nil, fmt.Errorf("conformance test random: need at least 1 walk, got %d", c.Walks)
		}
		walk := &equivalence.RandomWalk{MQ: mq, Walks: c.Walks, Seed: c.Seed, Sem: sem, Forcing: forcing, OnProgress: onProgress}
		return &pastTheBound{walk: walk, bound: bound, forcing: forcing}, nil
	case ConformanceWp:
		if c.Depth < 0 {
			return nil, fmt.Errorf("conformance test wp: the depth must be at least 0, got %d", c.Depth)
		}
		return &equivalence.Wp{MQ: mq, Depth: c.Depth, Sem: sem, Forcing: forcing, OnProgress: onProgress}, nil
	}
	return nil, fmt.Errorf("unknown conformance test %q (want %s or %s)", c.Method, ConformanceRandom, ConformanceWp)
}

// pastTheBound lets random walks run three steps past the bound the bound
// check used, as well as past what the hypothesis itself needs
// (equivalence.DefaultMaxSteps): the bound check has already compared
// every transition on every suffix up to the bound, so shorter walks
// would mostly ask again what it asked.
type pastTheBound struct {
	walk    *equivalence.RandomWalk
	bound   func() int
	forcing mealy.Forcing
}

func (p *pastTheBound) FindCounterexample(ctx context.Context, h *learn.Hypothesis) (*learn.Counterexample, error) {
	p.walk.MaxSteps = max(equivalence.DefaultMaxSteps(h, p.forcing), p.bound()+3)
	return p.walk.FindCounterexample(ctx, h)
}
