package engine_test

import (
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/depstest"
)

// The engine knows no backend and no purpose file: the composition root
// (internal/compose) builds its job, and the display imports the engine's
// snapshots, not the other way round.
func TestEngineKnowsNoBackend(t *testing.T) {
	depstest.Forbid(t, func(dep string) (string, bool) {
		rel := depstest.Internal(dep)
		switch {
		case strings.HasPrefix(rel, "internal/backend"), rel == "internal/purpose", rel == "internal/compose",
			strings.HasPrefix(rel, "internal/fake/"), rel == "internal/progress", rel == "internal/harness",
			strings.HasPrefix(rel, "internal/adbclient"), strings.HasPrefix(rel, "internal/oracle/"):
			return "the engine runs a job; compose builds it", true
		case strings.Contains(dep, "yaml"):
			return "the engine reads no files", true
		}
		return "", false
	}, depstest.Module+"/internal/engine")
}
