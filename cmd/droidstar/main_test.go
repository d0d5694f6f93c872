package main

import (
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/depstest"
)

// The shipped binary links no test double (the fake device, the private
// adb server, the simulated harness), no test helper and not the testing
// package; nor go-graphviz and wazero, whose package init compiles the
// WebAssembly module at every start (0.75 s on a fresh $TMPDIR), a cost
// that commands which render nothing must not pay (droidstar-render has
// them).
func TestShippedBinaryLinksNoTestCode(t *testing.T) {
	depstest.Forbid(t, func(dep string) (string, bool) {
		rel := depstest.Internal(dep)
		switch {
		case dep == "testing":
			return "the testing package belongs in tests", true
		case strings.HasPrefix(rel, "internal/fake/"):
			return "a test double", true
		case strings.HasSuffix(rel, "test") || rel == "internal/golden":
			return "a test helper", true
		case rel == "internal/render/gvwasm", strings.HasPrefix(dep, "github.com/goccy/go-graphviz"), strings.HasPrefix(dep, "github.com/tetratelabs/wazero"):
			return "Graphviz in WebAssembly belongs in droidstar-render", true
		}
		return "", false
	}, depstest.Module+"/cmd/droidstar")
}

// The names forbidden above are the ones the SVG helper does link.
func TestRenderHelperLinksGraphviz(t *testing.T) {
	for _, d := range depstest.Deps(t, depstest.Module+"/cmd/droidstar-render") {
		if strings.HasPrefix(d, "github.com/goccy/go-graphviz") {
			return
		}
	}
	t.Error("droidstar-render does not link go-graphviz")
}
