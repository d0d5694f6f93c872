package learn

import (
	"context"
	"fmt"
	"strings"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/oracle"
)

// Learner is an active learner: it learns a Mealy machine over inputs by
// asking mq in batches and checking hypotheses with eq. After the first
// hypothesis a failure returns it too, so that nothing learned is lost,
// and Result.Observations names the answers the last hypothesis rests on
// (the final check re-runs those a single wrong answer could change).
type Learner func(ctx context.Context, inputs, outputs *mealy.Alphabet, mq oracle.Oracle, eq EquivalenceOracle, opts Options) (*Result, error)

// Learner names (--learner).
const (
	NameLStar  = "lstar"
	NameKV     = "kv"
	NameLSharp = "lsharp"
)

// DefaultName is the learner a run uses unless told otherwise.
const DefaultName = NameLStar

// Names lists the learners ByName knows, the default first.
func Names() []string { return []string{NameLStar, NameKV, NameLSharp} }

// ByName returns the learner called name.
func ByName(name string) (Learner, error) {
	switch name {
	case NameLStar:
		return LStar, nil
	case NameKV:
		return KV, nil
	case NameLSharp:
		return LSharp, nil
	}
	return nil, fmt.Errorf("unknown learner %q (learners: %s)", name, strings.Join(Names(), ", "))
}
