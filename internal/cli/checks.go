package cli

import (
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/droidstar/droidstar/internal/engine"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/oracle/pad"
)

// boundAuto is --bound's automatic choice (its ceiling, unless given, is
// engine.DefaultAutoMax).
const boundAuto = "auto"

// boundChoice is a parsed --bound: a fixed bound, or auto up to Max.
type boundChoice struct {
	Fixed int
	Auto  bool
	Max   int
}

// parseBound reads --bound: N, auto or auto:MAX.
func parseBound(s string) (boundChoice, error) {
	if rest, ok := strings.CutPrefix(s, boundAuto); ok {
		b := boundChoice{Auto: true, Max: engine.DefaultAutoMax}
		if rest == "" {
			return b, nil
		}
		m, err := strconv.Atoi(strings.TrimPrefix(rest, ":"))
		if !strings.HasPrefix(rest, ":") || err != nil {
			return b, usageError("--bound must be a number, auto or auto:MAX, got %q", s)
		}
		if m <= engine.AutoStart {
			return b, usageError("--bound auto:MAX needs MAX above %d (the bound it starts from), got %d", engine.AutoStart, m)
		}
		b.Max = m
		return b, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return boundChoice{}, usageError("--bound must be a number, auto or auto:MAX, got %q", s)
	}
	if n < 1 {
		return boundChoice{}, usageError("--bound must be at least 1, got %d", n)
	}
	return boundChoice{Fixed: n}, nil
}

// conformanceOff turns the conformance test off; defaultConformance is
// --conformance's default (see the README's Model section for how it was
// chosen).
const (
	conformanceOff     = "off"
	defaultConformance = "wp:1"
)

// parseConformance reads --conformance: off, random:N, random:N:SEED or
// wp:K. A random test without a seed uses seed 1, so that the same
// command asks the same words (and a resumed run finds them stored).
func parseConformance(s string) (*model.Conformance, error) {
	if s == conformanceOff {
		return nil, nil
	}
	bad := func() (*model.Conformance, error) {
		return nil, usageError("--conformance must be off, random:N, random:N:SEED or wp:K, got %q", s)
	}
	parts := strings.Split(s, ":")
	switch {
	case parts[0] == engine.ConformanceRandom && (len(parts) == 2 || len(parts) == 3):
		n, err := strconv.Atoi(parts[1])
		if err != nil {
			return bad()
		}
		if n < 1 {
			return nil, usageError("--conformance random:N needs at least 1 walk, got %d", n)
		}
		c := &model.Conformance{Method: engine.ConformanceRandom, Walks: n, Seed: 1}
		if len(parts) == 3 {
			seed, err := strconv.ParseUint(parts[2], 10, 64)
			if err != nil {
				return nil, usageError("--conformance random:N:SEED: the seed must be a number, got %q", parts[2])
			}
			c.Seed = seed
		}
		return c, nil
	case parts[0] == engine.ConformanceWp && len(parts) == 2:
		k, err := strconv.Atoi(parts[1])
		if err != nil {
			return bad()
		}
		if k < 0 {
			return nil, usageError("--conformance wp:K needs a depth of at least 0, got %d", k)
		}
		return &model.Conformance{Method: engine.ConformanceWp, Depth: k}, nil
	}
	return bad()
}

// addPadFlags adds --pad and --pad-check, which fill size.
func addPadFlags(fl *pflag.FlagSet, size *pad.Sizes) {
	fl.IntVar(&size.Learning, "pad", pad.Default, "extend each learning query the cache cannot answer by up to this many symbols the restrictions allow, so that one reset answers later queries too; 0: no padding")
	fl.IntVar(&size.Check, "pad-check", pad.DefaultCheck, "extend each word of a bound check's round the cache cannot answer by up to this many symbols, so that after a counterexample the next round's longer words are answered too; 0: no padding")
}

// checkPad refuses negative padding.
func checkPad(size pad.Sizes) error {
	if size.Learning < 0 {
		return usageError("--pad must not be negative, got %d", size.Learning)
	}
	if size.Check < 0 {
		return usageError("--pad-check must not be negative, got %d", size.Check)
	}
	return nil
}

// --bound-counts's values.
const (
	boundCountsFree  = "free"
	boundCountsEvery = "every"
)

// parseBoundCounts reads --bound-counts: whether the bound counts every
// symbol (every) or only the free ones (free).
func parseBoundCounts(s string) (every bool, err error) {
	switch s {
	case boundCountsFree:
		return false, nil
	case boundCountsEvery:
		return true, nil
	}
	return false, usageError("--bound-counts is free or every, got %q", s)
}
