package depstest_test

import (
	"os/exec"
	"path"
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/depstest"
)

// floors are the tree's floors, lowest first: a package imports packages
// of its own floor or below, never above. A name ending in /... is the
// folder's whole subtree; a package on no floor fails the test, so that
// each new package gets its place.
var floors = []struct {
	name     string
	packages []string
}{
	{"leaves", []string{"internal/atomicfile", "internal/inputfile", "internal/nouns", "internal/adbclient",
		"internal/refdata", "internal/fuzzseed", "internal/growth", "internal/golden", "internal/depstest", "internal/dexcheck", "internal/render/...",
		"internal/fake/adbd", "harness-apk", "examples/ci"}},
	{"vocabulary", []string{"internal/mealy/...", "internal/model/...", "internal/query", "internal/purpose", "internal/draft", "examples"}},
	{"the harness's wire client", []string{"internal/harness"}},
	{"the executors' interface", []string{"internal/backend"}},
	{"executors", []string{"internal/backend/...", "internal/shimgen"}},
	{"membership pipeline and learners", []string{"internal/oracle/...", "internal/learn/...", "internal/store"}},
	{"engine", []string{"internal/engine"}},
	{"composition, reading and writing models", []string{"internal/compose", "internal/resolve/...", "internal/doctor",
		"internal/export", "internal/diff", "internal/report", "internal/progress", "internal/fake/simharness", "internal/fake/adbserver"}},
	{"one run", []string{"internal/run"}},
	{"jobs of several runs, test kits", []string{"internal/matrix", "internal/bench/...", "internal/compose/composetest"}},
	{"the manual", []string{"internal/manual"}},
	{"commands", []string{"internal/cli"}},
	{"binaries", []string{"cmd/..."}},
}

// floorOf is the floor of a package (relative to the module), -1 for none:
// a package named exactly wins over a subtree holding it, and a deeper
// subtree over a shallower one (internal/backend is not
// internal/backend/...).
func floorOf(rel string) int {
	best, bestRank := -1, -1
	for k, f := range floors {
		for _, p := range f.packages {
			prefix, tree := strings.CutSuffix(p, "/...")
			rank := -1
			switch {
			case !tree && rel == prefix:
				rank = 1 << 16
			case tree && (rel == prefix || strings.HasPrefix(rel, prefix+"/")):
				rank = len(prefix)
			}
			if rank > bestRank {
				best, bestRank = k, rank
			}
		}
	}
	return best
}

// No arrow runs up: every import of every package in the module is on the
// importer's floor or below.
func TestNoPackageImportsUpward(t *testing.T) {
	for _, p := range packages(t) {
		from := floorOf(p.rel)
		if from < 0 {
			t.Errorf("%s is on no floor: add it to floors", p.rel)
			continue
		}
		for _, imp := range p.imports {
			to := floorOf(imp)
			if to < 0 {
				t.Errorf("%s imports %s, which is on no floor: add it to floors", p.rel, imp)
			} else if to > from {
				t.Errorf("%s (%s) imports %s (%s), a floor above it", p.rel, floors[from].name, imp, floors[to].name)
			}
		}
	}
}

// Every package is named after its folder, so that an import reads as the
// path it comes from. The exceptions: commands are package main, and the
// folder harness-apk, whose name Go cannot spell, is package harnessapk.
func TestPackagesAreNamedAfterTheirFolders(t *testing.T) {
	for _, p := range packages(t) {
		want := path.Base(p.rel)
		switch {
		case p.name == "main":
		case p.rel == "harness-apk":
			want = "harnessapk"
			fallthrough
		default:
			if p.name != want {
				t.Errorf("%s declares package %s", p.rel, p.name)
			}
		}
	}
}

type pkg struct {
	rel, name string
	imports   []string // the module's own, relative to it
}

// packages lists the module's packages with their own imports (go list).
func packages(t *testing.T) []pkg {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool to list packages")
	}
	out, err := exec.Command(goTool, "list", "-f", "{{.ImportPath}} {{.Name}} {{join .Imports \" \"}}", depstest.Module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		p := pkg{rel: depstest.Internal(fields[0]), name: fields[1]}
		for _, imp := range fields[2:] {
			if rel := depstest.Internal(imp); rel != "" {
				p.imports = append(p.imports, rel)
			}
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}
