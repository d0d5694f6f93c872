package jvm

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

func TestDefaultCacheDir(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv("XDG_CACHE_HOME", "/home/u/.cache")
	if got := DefaultCacheDir(); got != "/home/u/.cache/droidstar" {
		t.Errorf("with XDG_CACHE_HOME: %s", got)
	}
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "/home/u")
	if got := DefaultCacheDir(); got != "/home/u/.cache/droidstar" {
		t.Errorf("with HOME: %s", got)
	}
	// No cache folder at all: one per user in the temporary folder, never
	// a name shared by all users.
	t.Setenv("HOME", "")
	want := filepath.Join(tmp, fmt.Sprintf("droidstar-%d", os.Getuid()))
	if got := DefaultCacheDir(); got != want {
		t.Errorf("with neither: %s, want %s", got, want)
	}
	file, err := unpackJar([]byte("jar"), DefaultCacheDir())
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(file) != want {
		t.Errorf("unpacked to %s", file)
	}
	info, err := os.Stat(want)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o700 {
		t.Errorf("the cache folder was made %v, want 0700", info.Mode().Perm())
	}
}

// A cache folder that someone else could write is refused before the jar
// is read or written there.
func TestCacheDirMustBePrivate(t *testing.T) {
	me := os.Getuid()
	base := t.TempDir()
	mine := filepath.Join(base, "mine")
	if err := privateDir(mine, me); err != nil {
		t.Fatalf("a new folder: %v", err)
	}
	if err := privateDir(mine, me); err != nil {
		t.Fatalf("the same folder again: %v", err)
	}
	shared := filepath.Join(base, "shared")
	if err := os.Mkdir(shared, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shared, 0o1777); err != nil {
		t.Fatal(err)
	}
	group := filepath.Join(base, "group")
	if err := os.Mkdir(group, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(group, 0o770); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(mine, link); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dir  string
		uid  int
		want string
	}{
		{mine, me + 1, fmt.Sprintf("backend jvm: harness cache %s belongs to user %d, not to you (user %d), who could swap the harness jar; remove it, or set XDG_CACHE_HOME to a folder of your own", mine, me, me+1)},
		{shared, me, "backend jvm: harness cache " + shared + " can be written by group or others (mode 0777), who could swap the harness jar; run chmod go-w on it, or remove it"},
		{group, me, "backend jvm: harness cache " + group + " can be written by group or others (mode 0770), who could swap the harness jar; run chmod go-w on it, or remove it"},
		{link, me, "backend jvm: harness cache " + link + " is a symbolic link, which could be pointed elsewhere; remove it, or set XDG_CACHE_HOME to a folder of your own"},
		{file, me, "backend jvm: harness cache " + file + " is not a folder; remove it, or set XDG_CACHE_HOME to a folder of your own"},
	} {
		err := privateDir(c.dir, c.uid)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s as user %d:\n got %v\nwant %s", filepath.Base(c.dir), c.uid, err, c.want)
		}
		if c.uid == me {
			if _, err := unpackJar([]byte("jar"), c.dir); err == nil || err.Error() != c.want {
				t.Errorf("unpacking into %s: %v", filepath.Base(c.dir), err)
			}
		}
	}
	if entries, _ := os.ReadDir(shared); len(entries) != 0 {
		t.Errorf("a jar was written into the shared folder: %v", entries)
	}
}
