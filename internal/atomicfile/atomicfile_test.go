package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"testing"
)

// names lists the entries of dir, hidden temporary files included.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

func read(t *testing.T, file string) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func mode(t *testing.T, file string) fs.FileMode {
	t.Helper()
	info, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	return info.Mode().Perm()
}

func TestWriteCreatesAndReplaces(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "sub", "model.json")
	for _, data := range []string{"first\n", "second, longer than the first\n", ""} {
		if err := Write(file, []byte(data)); err != nil {
			t.Fatal(err)
		}
		if got := read(t, file); got != data {
			t.Errorf("read %q, wrote %q", got, data)
		}
	}
	if got := names(t, filepath.Dir(file)); len(got) != 1 || got[0] != "model.json" {
		t.Errorf("the folder holds %q, want only model.json", got)
	}
}

// A file that is replaced keeps its mode, whatever it was.
func TestWriteKeepsMode(t *testing.T) {
	for _, perm := range []fs.FileMode{0o600, 0o640, 0o664, 0o444, 0o000} {
		file := filepath.Join(t.TempDir(), "model.json")
		if err := os.WriteFile(file, []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(file, perm); err != nil {
			t.Fatal(err)
		}
		if err := Write(file, []byte("new")); err != nil {
			t.Fatal(err)
		}
		if got := mode(t, file); got != perm {
			t.Errorf("replacing a %v file left it %v", perm, got)
		}
		if err := os.Chmod(file, 0o600); err != nil {
			t.Fatal(err)
		}
		if got := read(t, file); got != "new" {
			t.Errorf("the %v file holds %q, want new", perm, got)
		}
	}
}

// The files of a set are all staged before any is replaced: when one
// cannot be written, the others keep their old content and no temporary
// file is left.
func TestWriteSetFailureReplacesNone(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.json")
	if err := os.WriteFile(a, []byte("old a"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A regular file where the second file's folder should be.
	blocker := filepath.Join(dir, "blocker")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err := WriteSet([]File{{Path: a, Data: []byte("new a")}, {Path: filepath.Join(blocker, "b.dot"), Data: []byte("new b")}})
	if err == nil || err.Error() != "mkdir "+blocker+": not a directory" {
		t.Fatalf("error %v, want mkdir %s: not a directory", err, blocker)
	}
	if got := read(t, a); got != "old a" {
		t.Errorf("a.json holds %q after a failed set, want its old content", got)
	}
	if got := names(t, dir); len(got) != 2 || got[0] != "a.json" || got[1] != "blocker" {
		t.Errorf("the folder holds %q, want a.json and blocker only", got)
	}
}

// A rename that fails leaves no temporary file behind, and the error says
// which files of the set were already replaced.
func TestWriteSetRenameFailure(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.dot")
	// A folder that is not empty cannot be renamed over.
	if err := os.MkdirAll(filepath.Join(b, "inside"), 0o755); err != nil {
		t.Fatal(err)
	}
	err := WriteSet([]File{{Path: a, Data: []byte("new a")}, {Path: b, Data: []byte("new b")}})
	want := regexp.MustCompile(`^rename ` + regexp.QuoteMeta(dir+"/.b.dot.") + `[0-9a-f]{12} ` +
		regexp.QuoteMeta(b) + `: file exists \(already replaced: ` + regexp.QuoteMeta(a) + `\)$`)
	if err == nil || !want.MatchString(err.Error()) {
		t.Fatalf("error %v, want one matching %s", err, want)
	}
	if got := names(t, dir); len(got) != 2 || got[0] != "a.json" || got[1] != "b.dot" {
		t.Errorf("the folder holds %q, want a.json and b.dot/ only", got)
	}
	if got := read(t, a); got != "new a" {
		t.Errorf("a.json holds %q, want new a", got)
	}
	// Alone, the failed file leaves nothing either.
	if err := Write(b, []byte("new")); err == nil {
		t.Fatal("writing over a folder succeeded")
	}
	if got := names(t, dir); len(got) != 2 {
		t.Errorf("the folder holds %q, want a.json and b.dot/ only", got)
	}
}

func TestWriteSetSamePathTwice(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "m.json")
	err := WriteSet([]File{{Path: file, Data: []byte("1")}, {Path: dir + "/./m.json", Data: []byte("2")}})
	if err == nil || err.Error() != "write "+dir+"/./m.json: named twice in one set of files" {
		t.Fatalf("error %v", err)
	}
	if got := names(t, dir); len(got) != 0 {
		t.Errorf("the folder holds %q, want nothing", got)
	}
}

// A streamed file is written like any other, and a stream that fails
// leaves the old file and no temporary file behind.
func TestWriteStream(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "model.dot")
	if err := WriteStream(file, func(w io.Writer) error {
		_, err := io.WriteString(w, "digraph g {}\n")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got := read(t, file); got != "digraph g {}\n" {
		t.Fatalf("read %q", got)
	}
	err := WriteStream(file, func(w io.Writer) error {
		io.WriteString(w, "half")
		return errors.New("model too big")
	})
	if err == nil || err.Error() != "model too big" {
		t.Fatalf("error %v, want model too big", err)
	}
	if got := read(t, file); got != "digraph g {}\n" {
		t.Errorf("a failed stream left %q, want the old content", got)
	}
	if got := names(t, dir); len(got) != 1 || got[0] != "model.dot" {
		t.Errorf("the folder holds %q, want only model.dot", got)
	}
}
