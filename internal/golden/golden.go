// Package golden compares test output with golden files under the
// repository's testdata, and rewrites them when a test runs with -update.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files instead of comparing with them")

// showLimit is the size up to which a mismatch prints both texts.
const showLimit = 8 << 10

// Check compares got with testdata/dir/name (dir such as "export"), or
// rewrites the file with -update. pkg is the package's import path from the
// repository root ("./internal/export"), for the hint in messages.
func Check(t testing.TB, dir, name string, got []byte, pkg string) {
	t.Helper()
	CheckFile(t, filepath.Join("testdata", dir, name), got, pkg)
}

// CheckFile is Check for a file anywhere in the repository, rel being its
// path from the repository's root: a picture the README shows, kept with
// the example it draws.
func CheckFile(t testing.TB, rel string, got []byte, pkg string) {
	t.Helper()
	path := filepath.Join(root(t), rel)
	name := filepath.Base(rel)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test %s -update to create it)", err, pkg)
	}
	if bytes.Equal(got, want) {
		return
	}
	if len(got) <= showLimit && len(want) <= showLimit {
		t.Errorf("%s differs from the golden file (go test %s -update rewrites it)\n--- got ---\n%s\n--- want ---\n%s", name, pkg, got, want)
		return
	}
	t.Errorf("%s differs from the golden file (go test %s -update rewrites it)", name, pkg)
}

// root finds the repository root: the nearest directory above the test's
// working directory that holds go.mod.
func root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}
