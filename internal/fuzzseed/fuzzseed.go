// Package fuzzseed seeds Go fuzz targets from the project's testdata, read
// when the target starts, so that the seed corpora follow the fixtures
// instead of being copies of them that drift.
package fuzzseed

import (
	"os"
	"path/filepath"
	"testing"
)

// Files returns the contents of every file matching the glob patterns
// (relative to the test's package folder). A pattern that matches nothing
// fails the target: a renamed fixture folder must not leave a target
// fuzzing from nothing without anyone noticing.
func Files(f *testing.F, patterns ...string) [][]byte {
	f.Helper()
	var out [][]byte
	for _, p := range patterns {
		files, err := filepath.Glob(p)
		if err != nil {
			f.Fatalf("seed pattern %q: %v", p, err)
		}
		if len(files) == 0 {
			f.Fatalf("seed pattern %q matches no file", p)
		}
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatalf("seed %s: %v", file, err)
			}
			out = append(out, data)
		}
	}
	return out
}

// Add adds each file matching the patterns as one seed of a target that
// takes a single []byte.
func Add(f *testing.F, patterns ...string) {
	f.Helper()
	for _, data := range Files(f, patterns...) {
		f.Add(data)
	}
}
