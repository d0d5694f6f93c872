// Package depstest checks, in tests, which packages a package links: the
// floors of the architecture (a learner sees only the oracle floor, the
// shipped binary links no test double) are asserted with go list -deps, as
// LearnLib's module descriptors assert them at compile time.
package depstest

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Module is droidstar's module path.
const Module = "github.com/droidstar/droidstar"

// Deps returns every package the patterns link (go list -deps), standard
// library included. It skips the test when no go tool is at hand.
func Deps(t testing.TB, patterns ...string) []string {
	t.Helper()
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := exec.LookPath(goTool); err != nil {
		if goTool, err = exec.LookPath("go"); err != nil {
			t.Skip("no go tool to list dependencies")
		}
	}
	out, err := exec.Command(goTool, append([]string{"list", "-deps"}, patterns...)...).Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("go list -deps %s: %v\n%s", strings.Join(patterns, " "), err, stderr)
	}
	deps := strings.Fields(string(out))
	if len(deps) == 0 {
		t.Fatalf("go list -deps %s listed nothing", strings.Join(patterns, " "))
	}
	return deps
}

// Forbid fails the test for every package the patterns link that
// forbidden says they must not, with the reason it gives.
func Forbid(t testing.TB, forbidden func(dep string) (why string, bad bool), patterns ...string) {
	t.Helper()
	for _, d := range Deps(t, patterns...) {
		if why, bad := forbidden(d); bad {
			t.Errorf("%s links %s: %s", strings.Join(patterns, " "), d, why)
		}
	}
}

// Internal returns the droidstar package a dependency is, relative to the
// module ("internal/mealy"), or "" for one outside the module.
func Internal(dep string) string {
	rel, ok := strings.CutPrefix(dep, Module+"/")
	if !ok {
		return ""
	}
	return rel
}
