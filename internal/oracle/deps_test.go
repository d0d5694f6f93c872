package oracle_test

import (
	"testing"

	"github.com/droidstar/droidstar/internal/depstest"
)

// The oracle floor imports only mealy and model (and nouns, the leaf that
// counts things in messages), so whatever links it (a learner) links no
// purpose, backend or stage: the cache and the other stages live in
// their own packages below it.
func TestOracleFloorImportsOnlyMealyAndModel(t *testing.T) {
	depstest.Forbid(t, func(dep string) (string, bool) {
		switch rel := depstest.Internal(dep); rel {
		case "", "internal/oracle", "internal/mealy", "internal/model", "internal/nouns":
			return "", false
		}
		return "the floor imports only mealy and model", true
	}, depstest.Module+"/internal/oracle")
}
