// Package rendertest builds the droidstar-render helper for tests that run
// it as droidstar does.
package rendertest

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// Helper builds cmd/droidstar-render into a temporary directory and
// returns its path; it skips the test when no go tool is at hand.
func Helper(t testing.TB) string {
	t.Helper()
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := exec.LookPath(goTool); err != nil {
		if goTool, err = exec.LookPath("go"); err != nil {
			t.Skip("no go tool to build droidstar-render")
		}
	}
	name := "droidstar-render"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	out := filepath.Join(t.TempDir(), name)
	cmd := exec.Command(goTool, "build", "-o", out, "github.com/droidstar/droidstar/cmd/droidstar-render")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building droidstar-render: %v\n%s", err, b)
	}
	return out
}
