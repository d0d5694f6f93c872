package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteCreatesAndReplaces(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "sub", "model.json")
	for _, data := range []string{"first\n", "second, longer than the first\n", ""} {
		if err := Write(file, []byte(data)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != data {
			t.Errorf("read %q, wrote %q", got, data)
		}
	}
	info, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", info.Mode().Perm())
	}
	// No temporary file is left beside it.
	entries, err := os.ReadDir(filepath.Dir(file))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("the folder holds %d files, want 1", len(entries))
	}
}

// A write that fails at the rename leaves no temporary file behind.
func TestWriteFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	// A folder that is not empty cannot be renamed over.
	taken := filepath.Join(dir, "model.json")
	if err := os.MkdirAll(filepath.Join(taken, "inside"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Write(taken, []byte("new")); err == nil {
		t.Fatal("writing over a folder succeeded")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || !entries[0].IsDir() {
		t.Errorf("the folder holds %v, want only model.json/", entries)
	}
}
