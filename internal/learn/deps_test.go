package learn_test

import (
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/depstest"
)

// A learner stands on the oracle floor alone, as LearnLib's L* module
// requires only its API module: it cannot link a purpose, a backend, a
// cache's storage or a file format.
func TestLearnersSeeOnlyTheOracleFloor(t *testing.T) {
	allowed := map[string]bool{"internal/mealy": true, "internal/model": true, "internal/oracle": true, "internal/nouns": true}
	depstest.Forbid(t, func(dep string) (string, bool) {
		rel := depstest.Internal(dep)
		switch {
		case strings.Contains(dep, "yaml"):
			return "a learner reads no YAML", true
		case rel == "" || rel == "internal/learn" || strings.HasPrefix(rel, "internal/learn/"):
			return "", false
		case !allowed[rel]:
			return "a learner links only mealy, model and the oracle floor", true
		}
		return "", false
	}, depstest.Module+"/internal/learn/...")
}
