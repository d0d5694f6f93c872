// Package golden compares test output with golden files under the
// repository's testdata (or anywhere in the repository), and rewrites them
// when a test runs with -update. It knows the repository's root, so it
// also names the repository's files for tests (Path).
package golden

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files instead of comparing with them")

// Updating reports whether the test runs with -update: Check rewrites the
// golden files rather than compare with them, so a test must not skip or
// fail on what the old file says.
func Updating() bool { return *update }

// showLimit is the size up to which a mismatch prints both texts.
const showLimit = 8 << 10

// Check compares got with testdata/dir/name (dir such as "export"), or
// rewrites the file with -update. pkg is the package's import path from the
// repository root ("./internal/export"), for the hint in messages. It
// reports whether got is what the file holds (or was written), so that a
// test can stop at a difference.
func Check(t testing.TB, dir, name string, got []byte, pkg string) bool {
	t.Helper()
	return CheckFile(t, filepath.Join("testdata", dir, name), got, pkg)
}

// CheckFile is Check for a file anywhere in the repository, rel being its
// path from the repository's root: a picture the README shows, kept with
// the example it draws.
func CheckFile(t testing.TB, rel string, got []byte, pkg string) bool {
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
		return true
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test %s -update to create it)", err, pkg)
	}
	if bytes.Equal(got, want) {
		return true
	}
	if len(got) <= showLimit && len(want) <= showLimit {
		t.Errorf("%s differs from the golden file (go test %s -update rewrites it)\n--- got ---\n%s\n--- want ---\n%s", name, pkg, got, want)
		return false
	}
	t.Errorf("%s differs from the golden file (go test %s -update rewrites it)", name, pkg)
	return false
}

// Path is the path of a file in the repository, parts being its path from
// the repository's root, relative to the test's starting directory: in
// internal/cli, Path("testdata", "models") is "../../testdata/models". A
// test that changes directory gets the same path as before it did.
func Path(parts ...string) string {
	if rootErr != nil {
		panic("golden: " + rootErr.Error())
	}
	return filepath.Join(append([]string{rootRel}, parts...)...)
}

// root is the repository's root, found when the test started.
func root(t testing.TB) string {
	t.Helper()
	if rootErr != nil {
		t.Fatal(rootErr)
	}
	return rootAbs
}

// rootAbs is the repository's root, and rootRel the same from the test's
// starting directory: the nearest directory above it that holds go.mod.
var rootAbs, rootRel, rootErr = findRoot()

func findRoot() (abs, rel string, err error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", "", err
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			rel, err := filepath.Rel(wd, dir)
			return dir, rel, err
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", "", errors.New("no go.mod above the test's directory")
		}
		dir = parent
	}
}
