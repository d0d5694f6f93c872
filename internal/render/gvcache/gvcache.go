// Package gvcache puts the droidstar-render helper's compilation cache in
// the user's cache folder. go-graphviz compiles its WebAssembly module in
// a package init and caches the result in $TMPDIR/go-graphviz, a folder
// all users of a machine share: the first user's wazero-* folder in it is
// 0700, so every other user's helper panicked in that init, before main
// could say anything. Only $TMPDIR steers that cache, and it is read in
// the init, so this package sets it in its own init, which Go runs first:
// packages initialise in import-path order among those whose imports are
// initialised, this one sorts before github.com/goccy/..., and it imports
// only standard packages that go-graphviz's wasm package needs as well.
// Package gvwasm, which go-graphviz's packages initialise before, calls
// Restore in its own init, so that the change is over before anything
// else in the program (the helper, a test) could make a temporary file.
package gvcache

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// restore undoes init's change of $TMPDIR; nil once done.
var restore func()

func init() {
	tmp, note := Choose(os.UserCacheDir)
	was, set := os.LookupEnv("TMPDIR")
	os.Setenv("TMPDIR", tmp)
	restore = func() {
		if set {
			os.Setenv("TMPDIR", was)
		} else {
			os.Unsetenv("TMPDIR")
		}
	}
	if note != "" {
		fmt.Fprintln(os.Stderr, "droidstar-render: "+note)
	}
}

// Restore gives $TMPDIR back its value from before this package's init.
// go-graphviz has read it by the time package gvwasm's init calls this.
func Restore() {
	if restore != nil {
		restore()
		restore = nil
	}
}

// Choose returns what $TMPDIR should be for go-graphviz, which caches in
// $TMPDIR/go-graphviz: the user's cache folder's droidstar/render when
// this user can write there and in the cache folders already in it; else
// the null device, under which go-graphviz's cache folder cannot be made,
// so that it compiles with no cache (about a second longer), and a note
// saying why.
func Choose(userCacheDir func() (string, error)) (tmp, note string) {
	const slower = "; rendering without a compilation cache (about 1 s longer)"
	base, err := userCacheDir()
	if err != nil {
		return os.DevNull, "no cache folder (" + err.Error() + ")" + slower
	}
	dir := filepath.Join(base, "droidstar", "render")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return os.DevNull, "cannot make the cache folder " + dir + " (" + reason(err) + ")" + slower
	}
	if bad, err := unwritable(dir); err != nil {
		return os.DevNull, "cannot write in the cache folder " + bad + " (" + reason(err) + ")" + slower
	}
	return dir, ""
}

// unwritable checks that this user can write in dir and in the folders
// go-graphviz and wazero keep there (go-graphviz/wazero-VERSION-ARCH-OS),
// where another user's could be, made 0700; it returns the first it cannot
// write in, with the error.
func unwritable(dir string) (string, error) {
	folders := []string{dir}
	gv := filepath.Join(dir, "go-graphviz")
	if fi, err := os.Stat(gv); err == nil && fi.IsDir() {
		folders = append(folders, gv)
		entries, err := os.ReadDir(gv)
		if err != nil {
			return gv, err
		}
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), "wazero-") {
				folders = append(folders, filepath.Join(gv, e.Name()))
			}
		}
	}
	for _, f := range folders {
		probe, err := os.CreateTemp(f, ".write-check-")
		if err != nil {
			return f, err
		}
		probe.Close()
		if err := os.Remove(probe.Name()); err != nil {
			return f, err
		}
	}
	return "", nil
}

// reason is an error without the path the message already names.
func reason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
